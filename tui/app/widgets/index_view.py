"""MEMORY.md as Claude Code loads it: a rule where the cut falls, what is past it dimmed."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Console, Group
from rich.rule import Rule
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.memory.index import MAX_CHARS, MAX_LINES, LoadedIndex
from tui.visible import visible

CUT_RULE = "Claude's cut: nothing below this line is loaded"


def _limit_style(index: LoadedIndex, limit: str) -> str:
    return "bold red" if index.cut in (limit, "both") else "bold"


def _head(index: LoadedIndex) -> list:
    """The limits and Claude's warning, above the lines."""
    parts: list = [
        Text.assemble(
            ("lines ", "dim"), (f"{index.lines}/{MAX_LINES}", _limit_style(index, "lines")),
            ("   chars ", "dim"), (f"{index.chars:,}/{MAX_CHARS:,}", _limit_style(index, "chars")),
            ("   loaded ", "dim"), (f"{index.loaded_lines} lines", "bold"),
        ),
    ]
    if index.warning:
        parts.append(Text(f"Claude sees: {index.warning}", style="bold yellow"))
    parts.append(Text(""))
    return parts


def cut_row(index: LoadedIndex, console: Console, width: int) -> int | None:
    """The row of the cut rule in `index_renderable` at `width`, or None when nothing is cut."""
    first_cut = next((n for n, line in enumerate(index.raw_lines) if line.state == "cut"), None)
    if first_cut is None:
        return None
    head = console.render_lines(Group(*_head(index)), console.options.update_width(width))
    return len(head) + first_cut  # each index line is one row (no_wrap)


def index_renderable(index: LoadedIndex) -> Group:
    if not index.exists:
        return Group(Text("This store has no MEMORY.md: Claude starts with no index.",
                          style="yellow"))
    parts = _head(index)
    ruled = False
    width = len(str(len(index.raw_lines)))
    for line in index.raw_lines:
        if line.state == "cut" and not ruled:
            parts.append(Rule(CUT_RULE, style="bold red"))
            ruled = True
        number = Text(f"{line.number:>{width}} ", style="dim")
        shown = visible(line.text)
        if line.state == "loaded":
            body = Text(shown)
        elif line.state == "cut":
            body = Text(shown, style="dim")
        else:
            marker = ("  ⟵ stripped", "italic cyan") if line.text.strip() else ""
            body = Text.assemble((shown, "dim italic"), marker)
        parts.append(Text.assemble(number, body, no_wrap=True, overflow="ellipsis"))
    return Group(*parts)


class IndexView(VerticalScroll):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "scroll_to_cut", "Go to cut", id="index.go_to_cut"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.index: LoadedIndex | None = None
        self.cut_unseen = False  # scroll to the rule the first time a cut index is shown

    def compose(self):
        yield Static(id="index-text")

    def show(self, index: LoadedIndex) -> None:
        newly_cut = index.cut is not None and (self.index is None or self.index.cut is None)
        if newly_cut or index.cut is None:
            self.cut_unseen = newly_cut
        self.index = index
        self.query_one("#index-text", Static).update(index_renderable(index))
        if self.cut_unseen and self.display and self.size.height:
            self.call_after_refresh(self.action_scroll_to_cut)

    def on_show(self) -> None:
        if self.cut_unseen:
            self.call_after_refresh(self.action_scroll_to_cut)

    def action_scroll_to_cut(self) -> None:
        """Put the cut rule in the middle of the view."""
        if self.index is None:
            return
        row = cut_row(self.index, self.app.console, self.scrollable_content_region.width)
        if row is None:
            self.notify("Nothing is cut: Claude loads the whole index.")
            return
        self.cut_unseen = False
        self.scroll_to(y=max(0, row - self.scrollable_content_region.height // 2), animate=False)
