"""An index as Claude Code loads it: a rule where the cut falls, what is past it dimmed.
A store with team memory has two (MEMORY.md and team/MEMORY.md), each in its own view.

A Line-API view: only the rows on screen are rendered, so a 50 MB index (hundreds of
thousands of lines) scrolls like a short one. Rows are the head (the limits and Claude's
warning, wrapped to the width), then one row per index line, cut with an ellipsis, with
the cut rule before the first line past the cut. A cursor line shows which line the
store's keys act on (`m` moves its entry past the cut, `r` relinks it).
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.app.widgets.virtual_table import CURSOR_BINDINGS, CursorKeys
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
            ("lines ", "dim"), (f"{index.lines:,}/{MAX_LINES}", _limit_style(index, "lines")),
            ("   chars ", "dim"), (f"{index.chars:,}/{MAX_CHARS:,}", _limit_style(index, "chars")),
            ("   loaded ", "dim"), (f"{index.loaded_lines:,} lines", "bold"),
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


class IndexView(CursorKeys, ScrollView, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "scroll_to_cut", "Go to cut", id="index.go_to_cut"),
        *CURSOR_BINDINGS,
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"index-view--cursor"}
    DEFAULT_CSS = """
    IndexView > .index-view--cursor {
        background: $block-cursor-blurred-background;
        color: $block-cursor-blurred-foreground;
        text-style: $block-cursor-blurred-text-style;
    }
    IndexView:focus > .index-view--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: $block-cursor-text-style;
    }
    """

    def __init__(self, file: str = INDEX_NAME, **kwargs) -> None:
        super().__init__(**kwargs)
        self.file = file  # store-relative, e.g. "team/MEMORY.md"
        self.border_title = file  # shown when the store has two indexes (a border, in CSS)
        self.index: LoadedIndex | None = None
        self.problem: str | None = None
        self.cut_unseen = False  # scroll to the rule the first time a cut index is shown
        self.first_cut: int | None = None  # the first line past the cut (0-based)
        self.cursor = 0  # the line the store's keys act on (0-based)
        self.head: list[Strip] = []  # the head's rows at `head_width`
        self.head_width = -1

    def show(self, index: LoadedIndex, problem: str | None = None) -> None:
        newly_cut = index.cut is not None and (self.index is None or self.index.cut is None)
        if newly_cut or index.cut is None:
            self.cut_unseen = newly_cut
        self.index = index
        self.problem = problem
        self.first_cut = index.first_cut_line
        self.cursor = max(0, min(self.cursor, self.line_count - 1))  # the same line, reloaded
        self.head_width = -1
        self.update_size()
        self.refresh()
        if self.cut_unseen and self.display and self.size.height:
            self.call_after_refresh(self.action_scroll_to_cut)

    @property
    def highlighted(self) -> IndexLine | None:
        """The line under the cursor."""
        return self.index.raw_lines[self.cursor] if self.line_count else None

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

    def row_of(self, line: int) -> int:
        """The row showing `line` (0-based): after the head, and after the rule if past it."""
        past_cut = self.first_cut is not None and line >= self.first_cut
        return len(self.head_rows()) + line + past_cut

    def line_at(self, row: int) -> int | None:
        """The line a row shows, None for the head and the rule."""
        line = row - len(self.head_rows())
        if self.first_cut is not None and line >= self.first_cut:
            line = None if line == self.first_cut else line - 1
        return line if line is not None and 0 <= line < self.line_count else None

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
        strip = self.render_renderable(line_text(self.index.raw_lines[line], number_width), width)
        if line != self.cursor:
            return strip
        # The cursor's colours win over the line's own (dimmed past the cut, stripped).
        cursor = self.get_component_rich_style("index-view--cursor")
        return Strip(Segment.apply_style(strip, post_style=Style.from_color(
            cursor.color, cursor.bgcolor) + Style(bold=cursor.bold)))

    def render_renderable(self, renderable: RenderableType, width: int) -> Strip:
        console = self.app.console
        segments = console.render(renderable, console.options.update_width(max(1, width)))
        first = next(Segment.split_lines(segments), [])
        return Strip(first).crop_extend(0, width, self.rich_style).apply_style(self.rich_style)

    # --- the cursor -----------------------------------------------------------------------

    def move_cursor(self, line: int) -> None:
        if not self.line_count:
            return
        self.refresh_row(self.row_of(self.cursor))
        self.cursor = max(0, min(line, self.line_count - 1))
        self.refresh_row(self.row_of(self.cursor))
        self.scroll_to_cursor()

    def refresh_row(self, row: int) -> None:
        self.refresh_line(row)  # a row of the whole view: refresh_line takes the scroll off

    def scroll_to_cursor(self) -> None:
        row = self.row_of(self.cursor)
        height = max(1, self.scrollable_content_region.height)
        top = round(self.scroll_y)
        if self.cursor == 0:
            top = 0  # the head above the first line comes with it
        elif row < top:
            top = row
        elif row >= top + height:
            top = row - height + 1
        self.scroll_to(y=top, animate=False, immediate=True)

    @property
    def page_height(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    @property
    def cursor_place(self) -> int:
        return self.cursor

    @property
    def cursor_places(self) -> int:
        return self.line_count

    def move_by_key(self, line: int) -> None:
        self.move_cursor(line)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        line = None if offset is None else self.line_at(round(self.scroll_y) + offset.y)
        if line is not None:
            self.move_cursor(line)

    def action_scroll_to_cut(self) -> None:
        """Put the cut rule in the middle of the view, the cursor on the first line past it."""
        row = self.cut_row()
        if self.index is None:
            return
        if row is None:
            self.notify("Nothing is cut: Claude loads the whole index.")
            return
        self.cut_unseen = False
        self.refresh_row(self.row_of(self.cursor))
        self.cursor = self.first_cut
        self.scroll_to(y=max(0, row - self.scrollable_content_region.height // 2), animate=False)
        self.refresh()
