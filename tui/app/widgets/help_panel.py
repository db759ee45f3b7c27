"""F1: every key of the screen, memtui's own first, then the keys every Textual app has
(moving around, focus, copy), which Textual's panel lists first."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import HelpPanel, KeyPanel, Markdown
from textual.widgets._key_panel import BindingsTable

from tui.app.widgets.key_footer import key_description

GENERAL = "General"  # the title over the keys that are not memtui's


class KeysTable(BindingsTable):
    def render_bindings_table(self) -> Table:
        """memtui's keys (its bindings have ids), then the others, each in the order they
        are bound; the keys bound to one action share a row."""
        screen = self.screen
        rows: dict[tuple[bool, str], tuple[list[str], Text]] = {}
        for _, binding, _, _ in screen.active_bindings.values():
            if binding.system:
                continue
            group = (binding.id is None, binding.action)
            if group not in rows:
                description = Text(key_description(screen, binding),
                                   style=self.get_component_rich_style(
                                       "bindings-table--description"))
                if binding.tooltip:
                    description.append(f" {binding.tooltip}", style="dim")
                rows[group] = ([], description)
            display = self.app.get_key_display(binding)
            if display not in rows[group][0]:
                rows[group][0].append(display)
        table = Table(padding=(0, 0), show_header=False, box=box.SIMPLE)
        table.add_column("", justify="right")
        table.add_column("")
        key_style = self.get_component_rich_style("bindings-table--key")
        header_style = self.get_component_rich_style("bindings-table--header")
        for general in (False, True):
            shown = [(keys, text) for (other, _), (keys, text) in rows.items() if other == general]
            if not shown:
                continue
            if general:
                table.add_section()
                table.add_row("", Text(GENERAL, style=header_style))
            for keys, text in shown:
                table.add_row(Text(" ".join(keys), style=key_style), text)
        return table


class KeysPanel(KeyPanel):
    def compose(self) -> ComposeResult:
        yield KeysTable(shrink=True, expand=False)


class KeysHelp(HelpPanel):
    """Textual's help panel (the focused widget's help above the keys), with memtui's
    keys first."""

    def compose(self) -> ComposeResult:
        yield Markdown(id="widget-help")
        yield KeysPanel(id="keys-help")
