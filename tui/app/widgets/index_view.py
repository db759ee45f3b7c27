"""An index as Claude Code loads it: a rule where the cut falls, what is past it dimmed.
A store with team memory has two (MEMORY.md and team/MEMORY.md), each in its own view.

A Line-API view: only the rows on screen are rendered, so a 50 MB index (hundreds of
thousands of lines) scrolls like a short one. Rows are the head (the limits and Claude's
warning, wrapped to the width), then one row per index line, cut with an ellipsis, with
the cut rule before the first line past the cut.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.segment import Segment
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.claude.paths import INDEX_NAME
from tui.memory.index import MAX_CHARS, MAX_LINES, IndexLine, LoadedIndex
from tui.visible import visible

CUT_RULE = "Claude's cut: nothing below this line is loaded"


def _limit_style(index: LoadedIndex, limit: str) -> str:
    return "bold red" if index.cut in (limit, "both") else "bold"


def _head(index: LoadedIndex, file: str, problem: str | None) -> list[RenderableType]:
    """The limits and Claude's warning, above the lines; `problem`: what is wrong with the
    file itself (not text, unreadable, not UTF-8), the audit's sentence."""
    if not index.exists:
        return [Text(visible(problem) if problem else
                     f"This store has no {file}: Claude starts with no index.", style="yellow")]
    parts: list[RenderableType] = [Text(visible(problem), style="bold red")] if problem else []
    parts += [
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


def line_text(line: IndexLine, number_width: int) -> Text:
    """One index line as a row: its number, its text shown (never obeyed), its state."""
    number = Text(f"{line.number:>{number_width}} ", style="dim")
    shown = visible(line.text)
    if line.state == "loaded":
        body = Text(shown)
    elif line.state == "cut":
        body = Text(shown, style="dim")
    else:
        marker = ("  ⟵ stripped", "italic cyan") if line.text.strip() else ""
        body = Text.assemble((shown, "dim italic"), marker)
    return Text.assemble(number, body, no_wrap=True, overflow="ellipsis")


class IndexView(ScrollView, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "scroll_to_cut", "Go to cut", id="index.go_to_cut"),
    ]

    def __init__(self, file: str = INDEX_NAME, **kwargs) -> None:
        super().__init__(**kwargs)
        self.file = file  # store-relative, e.g. "team/MEMORY.md"
        self.border_title = file  # shown when the store has two indexes (a border, in CSS)
        self.index: LoadedIndex | None = None
        self.problem: str | None = None
        self.cut_unseen = False  # scroll to the rule the first time a cut index is shown
        self.first_cut: int | None = None  # the first line past the cut (0-based)
        self.head: list[Strip] = []  # the head's rows at `head_width`
        self.head_width = -1

    def show(self, index: LoadedIndex, problem: str | None = None) -> None:
        newly_cut = index.cut is not None and (self.index is None or self.index.cut is None)
        if newly_cut or index.cut is None:
            self.cut_unseen = newly_cut
        self.index = index
        self.problem = problem
        self.first_cut = index.first_cut_line
        self.head_width = -1
        self.update_size()
        self.refresh()
        if self.cut_unseen and self.display and self.size.height:
            self.call_after_refresh(self.action_scroll_to_cut)

    def on_show(self) -> None:
        if self.cut_unseen:
            self.call_after_refresh(self.action_scroll_to_cut)

    def on_resize(self) -> None:
        self.update_size()

    @property
    def line_count(self) -> int:
        return len(self.index.raw_lines) if self.index is not None and self.index.exists else 0

    def head_rows(self) -> list[Strip]:
        """The head rendered at the current width (it wraps, so it changes with it)."""
        width = self.scrollable_content_region.width
        if width != self.head_width and self.index is not None:
            options = self.app.console.options.update_width(max(1, width))
            head = Group(*_head(self.index, self.file, self.problem))
            lines = self.app.console.render_lines(head, options, pad=False)
            self.head = [Strip(line) for line in lines]
            self.head_width = width
        return self.head

    def update_size(self) -> None:
        if self.index is None:
            return
        rows = len(self.head_rows()) + self.line_count + (self.first_cut is not None)
        self.virtual_size = Size(0, rows)  # rows are cut to the width: no horizontal scroll

    def cut_row(self) -> int | None:
        """The row of the cut rule, or None when nothing is cut."""
        return None if self.first_cut is None else len(self.head_rows()) + self.first_cut

    def render_line(self, y: int) -> Strip:
        return self.render_row(self.scroll_offset.y + y)

    def render_row(self, row: int) -> Strip:
        """One row of the whole view (the head, the lines, the rule), at the view's width."""
        width = self.scrollable_content_region.width
        style = self.rich_style
        head = self.head_rows()
        if self.index is None or row >= len(head) + self.line_count + (self.first_cut is not None):
            return Strip.blank(width, style)
        if row < len(head):
            return head[row].crop_extend(0, width, style).apply_style(style)
        line = row - len(head)
        cut = self.first_cut
        if cut is not None and line >= cut:
            if line == cut:
                return self.render_renderable(Rule(CUT_RULE, style="bold red"), width)
            line -= 1
        number_width = len(str(self.line_count))
        return self.render_renderable(line_text(self.index.raw_lines[line], number_width), width)

    def render_renderable(self, renderable: RenderableType, width: int) -> Strip:
        console = self.app.console
        segments = console.render(renderable, console.options.update_width(max(1, width)))
        first = next(Segment.split_lines(segments), [])
        return Strip(first).crop_extend(0, width, self.rich_style).apply_style(self.rich_style)

    def action_scroll_to_cut(self) -> None:
        """Put the cut rule in the middle of the view."""
        row = self.cut_row()
        if self.index is None:
            return
        if row is None:
            self.notify("Nothing is cut: Claude loads the whole index.")
            return
        self.cut_unseen = False
        self.scroll_to(y=max(0, row - self.scrollable_content_region.height // 2), animate=False)
