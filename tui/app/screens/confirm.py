"""The confirmation every write goes through: the consequence first, then what will change,
any choice to make, and Cancel, all on screen at 80x24."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui.app.widgets.key_footer import HELP_KEY, KeyFooter
from tui.visible import visible

APPLY = "apply"
PUSHED_SHOWN = 4  # entries named at the top; the rest are listed in the summary below
LINE_STYLES = {"before:": "red", "after:": "green", "drop:": "red", "keep:": "green"}


@dataclass(frozen=True)
class Confirmation:
    """What ConfirmScreen shows for a change that is not a curation `Plan` of its own (a
    rescue, a sync, leaving for a demo)."""

    label: str
    summary: list[str]
    preview: object = None  # a Rich renderable, e.g. the diff of every file
    pushed_out: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    apply_label: str = "Apply (y)"


def pushed_warning(pushed: tuple[str, ...]) -> Text:
    text = Text("Applying this would push these entries past Claude's cut:", style="bold")
    for entry in pushed[:PUSHED_SHOWN]:
        text.append(f"\n  {visible(entry)}")
    if len(pushed) > PUSHED_SHOWN:
        text.append(f"\n  … and {len(pushed) - PUSHED_SHOWN} more, listed below")
    text.append("\nMake room first, or apply anyway.", style="bold")
    return text


def summary_renderable(summary: list[str]) -> Group:
    """One bullet per entry; an entry's further lines (a shortened line's before and after)
    under it, their labels in a column of their own, in red and green."""
    parts = []
    for entry in summary:
        first, *rest = visible(entry).split("\n")
        if not rest:
            parts.append(Text(f"• {first}"))
            continue
        lines = Table.grid(padding=(0, 1))
        lines.add_column(no_wrap=True)
        lines.add_column()
        for line in rest:
            label, _, text = line.strip().partition(" ")
            if label not in LINE_STYLES:
                label, text = "", line.strip()
            style = LINE_STYLES.get(label, "")
            lines.add_row(Text(label, style=f"bold {style}"), Text(text.strip(), style=style))
        entry_grid = Table.grid(padding=(0, 1))
        entry_grid.add_column(no_wrap=True)
        entry_grid.add_column()
        entry_grid.add_row("•", Group(Text(first), lines))
        parts.append(entry_grid)
    return Group(*parts)


class ConfirmScreen(ModalScreen[str | None]):
    """Dismisses with "apply", one of the plan's options, or None when cancelled."""

    AUTO_FOCUS = "#confirm-summary"  # arrows scroll what will change; enter presses nothing
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="confirm.cancel"),
        Binding("y", "apply", "Apply", id="confirm.apply"),
        # A modal screen stops the app's own keys: help is bound here again, under the
        # app's ids, so the footer shows F1 and a keymap for it applies here too.
        Binding("f1", "app.toggle_help", "Help", id=HELP_KEY),
        Binding("question_mark", "app.toggle_help", "Help", show=False, id=f"{HELP_KEY}_alt"),
    ]
    # Its own footer: the keys of the screen underneath do nothing while it is open.
    FOOTER_KEYS: ClassVar[tuple[str, ...]] = ("confirm.apply", "confirm.cancel")

    def __init__(self, plan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        plan = self.plan
        with Vertical(id="confirm-dialog"):
            yield Static(Text(visible(plan.label)), id="confirm-title")
            if plan.pushed_out:
                yield Static(pushed_warning(plan.pushed_out), id="confirm-pushed")
            with VerticalScroll(id="confirm-summary"):
                yield Static(summary_renderable(plan.summary))
                preview = getattr(plan, "preview", None)  # a renderable, e.g. a diff
                if preview is not None:
                    yield Static(preview, id="confirm-preview")
            if plan.options:  # other plans to choose instead (make room, another side)
                with Horizontal(id="confirm-options"):
                    for number, option in enumerate(plan.options):
                        yield Button(option.capitalize(), id=f"option-{number}", compact=True,
                                     variant="primary")
            with Horizontal(id="confirm-buttons"):
                if plan.pushed_out:
                    yield Button("Apply anyway", id="apply", compact=True, variant="warning")
                else:
                    yield Button(getattr(plan, "apply_label", "Apply (y)"), id="apply",
                                 compact=True, variant="primary")
                yield Button("Cancel (esc)", id="cancel", compact=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.call_after_refresh(self.fit_summary)

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit_summary)

    def fit_summary(self) -> None:
        """Let the summary scroll in the rows the rest leaves, so the consequence above it
        and the buttons below it are always on screen."""
        dialog = self.query_one("#confirm-dialog")
        summary = self.query_one("#confirm-summary")
        used = dialog.styles.gutter.height + sum(
            child.styles.margin.top + child.styles.margin.bottom
            + (0 if child is summary else child.outer_size.height)
            for child in dialog.children)
        footer = self.query_one(KeyFooter).outer_size.height
        summary.styles.max_height = max(2, self.size.height - footer - used)

    @on(Button.Pressed)
    def chosen(self, event: Button.Pressed) -> None:
        button = event.button.id or ""
        if button == "apply":
            self.dismiss(APPLY)
        elif button.startswith("option-"):
            self.dismiss(self.plan.options[int(button.removeprefix("option-"))])
        else:
            self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Pushing entries past the cut takes the "Apply anyway" button, never a stray y.
        return not (action == "apply" and self.plan.pushed_out)

    def action_apply(self) -> None:
        self.dismiss(APPLY)

    def action_cancel(self) -> None:
        self.dismiss(None)


def confirm_then(app, plan, on_apply: Callable[[], object]) -> None:
    """Show `plan` to confirm; `on_apply()` once the user applies it, nothing on cancel."""

    def decided(choice: str | None) -> None:
        if choice == APPLY:
            on_apply()

    app.push_screen(ConfirmScreen(plan), decided)
