"""A table that renders only the lines on screen: the memory list and the projects list.

A DataTable measures every cell it is given, so refilling it with thousands of rows on each
filter keystroke is slow. This table holds a plain list of rows with fixed column widths:
replacing the rows costs nothing until the visible lines are painted. When the table is
narrower than its columns, the least important columns give way whole: a column is never
cut to a letter or two.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

MARK = "●"
CELL_PADDING = 1  # blank cells either side of each column
# Rows a growing column is measured on: enough to size it, cheap on half a million rows.
MEASURED_ROWS = 2_000


class Row(Protocol):
    key: str
    cells: tuple[object, ...]  # strings, or Texts in one style


@dataclass(frozen=True)
class TableRow:
    """A row with nothing more than its key and cells."""

    key: str
    cells: tuple[object, ...]


class VirtualTable(ScrollView, can_focus=True):
    """Rows one per line under a fixed header, with a row cursor and marks.

    Marked rows show ● in their first column.
    """

    ALLOW_SELECT = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Cursor up", show=False),
        Binding("down", "cursor_down", "Cursor down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home,ctrl+home", "first", "First", show=False),
        Binding("end,ctrl+end", "last", "Last", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "virtual-table--header",
        "virtual-table--even-row",
        "virtual-table--odd-row",
        "virtual-table--cursor",
        "virtual-table--hover",
        "virtual-table--mark",
        "virtual-table--empty",
    }
    DEFAULT_CSS = """
    VirtualTable {
        background: $surface;
        color: $foreground;
        &:focus {
            background-tint: $foreground 5%;
            & > .virtual-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .virtual-table--header {
                background-tint: $foreground 5%;
            }
        }
        & > .virtual-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        &:ansi > .virtual-table--header {
            background: ansi_bright_blue;
            color: ansi_default;
        }
        & > .virtual-table--even-row {
            background: $surface-lighten-1 50%;
        }
        &:dark > .virtual-table--even-row {
            background: $surface-darken-1 40%;
        }
        & > .virtual-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .virtual-table--hover {
            background: $block-hover-background;
        }
        & > .virtual-table--mark {
            color: $accent;
            text-style: bold;
        }
        & > .virtual-table--empty {
            color: $text-muted;
            text-style: italic;
        }
    }
    """

    cursor_row: reactive[int] = reactive(0, repaint=False, init=False)
    hover_row: reactive[int] = reactive(-1, repaint=False, init=False)  # -1: none

    class Highlighted(Message):
        """The cursor moved to another row (`row` is None when the table is empty)."""

        def __init__(self, table: VirtualTable, row: Row | None) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> VirtualTable:
            return self.table

    class Selected(Highlighted):
        """The row under the cursor was chosen (`action_select`, or a click on it)."""

    class HeaderSelected(Message):
        """A column's header was clicked."""

        def __init__(self, table: VirtualTable, column: str) -> None:
            super().__init__()
            self.table = table
            self.column = column

        @property
        def control(self) -> VirtualTable:
            return self.table

    def __init__(self, columns: Sequence[tuple[str, int]], stretch: str | Sequence[str], *,
                 labels: Mapping[str, str] | None = None, keep_end: Collection[str] = (),
                 priority: Sequence[str] = (), grow: Collection[str] = (), cursor: bool = True,
                 id: str | None = None) -> None:
        """`columns` are (key, width) pairs, headed by their key unless `labels` names them
        otherwise; text too long for a column is cut at its end, or at its start in the
        `keep_end` columns. `priority` orders the keys from most to least important (the
        declared order by default): a column is shown only when it and every more important
        one fit at their widths. The `grow` columns widen to their longest cell, together
        taking at most half the spare width; then the first shown of the `stretch` columns
        takes what is left. Without a `cursor` the table only shows its rows and takes no
        focus."""
        super().__init__(id=id)
        self.can_focus = cursor
        self.show_cursor = cursor
        self.columns = tuple(columns)
        self.labels = dict(labels or {})
        self.keep_end = frozenset(keep_end)
        self.stretch = (stretch,) if isinstance(stretch, str) else tuple(stretch)
        keys = [key for key, _ in self.columns]
        self.priority = tuple(priority) or tuple(keys)
        assert sorted(self.priority) == sorted(keys), "priority must rank every column"
        self.grow = tuple(key for key in keys if key in grow)
        self.longest: dict[str, int] = {}  # a growing column's longest cell, in cells
        self.rows: list[Row] = []
        self.marked: frozenset[str] = frozenset()
        self.empty_text = ""
        self._layout: tuple[int, list[tuple[int, str, int]]] = (-1, [])
        first = dict(self.columns)[self.priority[0]]
        self.virtual_size = Size(first + 2 * CELL_PADDING, 1)

    @property
    def page_height(self) -> int:
        """How many rows fit under the header."""
        return max(1, self.scrollable_content_region.height - 1)

    @property
    def highlighted(self) -> Row | None:
        return self.rows[self.cursor_row] if self.rows else None

    # --- content --------------------------------------------------------------------------

    def set_rows(self, rows: list[Row], empty_text: str = "") -> None:
        """Show `rows`, keeping the cursor on the same memory if it is still there.

        Posts no Highlighted message: the caller knows the rows changed.
        """
        current = self.highlighted
        self.rows = rows
        self.empty_text = empty_text
        if self.grow:
            self.measure_growing_columns()
        index = 0
        if current is not None:  # usually near the top: the scan stops there
            index = next((i for i, row in enumerate(rows) if row.key == current.key), 0)
        self.set_reactive(VirtualTable.cursor_row, index)
        self.virtual_size = Size(self.virtual_size.width, len(rows) + 1)
        self.scroll_to_cursor()
        self.refresh()

    def measure_growing_columns(self) -> None:
        indexes = {key: index for index, (key, _) in enumerate(self.columns)}
        longest = {key: 0 for key in self.grow}
        for row in self.rows[:MEASURED_ROWS]:
            cells = row.cells
            for key in self.grow:
                cell = cells[indexes[key]]
                longest[key] = max(longest[key], cell_len(
                    _NOT_PRINTABLE.sub(" ", cell.plain if isinstance(cell, Text) else str(cell))))
        if longest != self.longest:
            self.longest = longest
            self._layout = (-1, [])  # the columns' widths follow their cells

    def set_marked(self, keys: Collection[str]) -> None:
        self.marked = frozenset(keys)
        self.refresh()

    def move_cursor(self, row: int) -> None:
        self.cursor_row = row

    def validate_cursor_row(self, row: int) -> int:
        return max(0, min(row, len(self.rows) - 1))

    def watch_cursor_row(self, old: int, new: int) -> None:
        self.refresh_line(old + 1)
        self.refresh_line(new + 1)
        self.scroll_to_cursor()
        self.post_message(self.Highlighted(self, self.highlighted))

    def scroll_to_cursor(self) -> None:
        top = round(self.scroll_y)
        if self.cursor_row < top:
            top = self.cursor_row
        elif self.cursor_row >= top + self.page_height:
            top = self.cursor_row - self.page_height + 1
        self.scroll_to(y=top, animate=False, immediate=True)

    # --- keys and mouse -------------------------------------------------------------------

    def action_cursor_up(self) -> None:
        self.move_by_key(self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        self.move_by_key(self.cursor_row + 1)

    def action_page_up(self) -> None:
        self.move_by_key(self.cursor_row - self.page_height)

    def action_page_down(self) -> None:
        self.move_by_key(self.cursor_row + self.page_height)

    def action_first(self) -> None:
        self.move_by_key(0)

    def action_last(self) -> None:
        self.move_by_key(len(self.rows) - 1)

    def move_by_key(self, row: int) -> None:
        self.hover_row = -1  # the keyboard leads: no second highlight under a resting mouse
        self.cursor_row = row

    def action_select(self) -> None:
        if self.rows:
            self.post_message(self.Selected(self, self.highlighted))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:
            self.header_clicked(offset.x + round(self.scroll_x))
            return
        row = round(self.scroll_y) + offset.y - 1
        if row == self.cursor_row:  # a click on the row already chosen selects it
            self.action_select()
        elif row < len(self.rows):
            self.cursor_row = row

    def header_clicked(self, x: int) -> None:
        right = 0
        for _, key, width in self.layout():
            right += width + 2 * CELL_PADDING
            if x < right:
                self.post_message(self.HeaderSelected(self, key))
                return

    def on_mouse_move(self, event: events.MouseMove) -> None:
        offset = event.get_content_offset(self)
        row = -1 if offset is None or offset.y == 0 else round(self.scroll_y) + offset.y - 1
        self.hover_row = row if row < len(self.rows) else -1

    def on_leave(self) -> None:
        self.hover_row = -1

    def watch_hover_row(self, old: int, new: int) -> None:
        self.refresh_line(old + 1)
        self.refresh_line(new + 1)

    def on_resize(self) -> None:
        self.scroll_to_cursor()

    # --- rendering ------------------------------------------------------------------------

    def layout(self) -> list[tuple[int, str, int]]:
        """(cell index, key, width) of each column shown at the table's present width."""
        room = self.scrollable_content_region.width
        cached_room, columns = self._layout
        if room == cached_room:
            return columns
        widths = dict(self.columns)
        shown: set[str] = set()
        used = 0
        for key in self.priority:
            need = widths[key] + 2 * CELL_PADDING
            if shown and used + need > room:
                break
            shown.add(key)
            used += need
        stretch = next((key for key in self.stretch if key in shown), None)
        spare = max(0, room - used)
        for key, width in self.grown(widths, shown, spare).items():
            spare -= width - widths[key]
            widths[key] = width
        columns = [(index, key, widths[key] + (spare if key == stretch else 0))
                   for index, (key, _) in enumerate(self.columns) if key in shown]
        self._layout = (room, columns)
        return columns

    def grown(self, widths: dict[str, int], shown: set[str], spare: int) -> dict[str, int]:
        """The growing columns' widths: each up to its longest cell, within half of `spare`."""
        budget = spare // 2
        grown = {}
        for key in self.grow:
            if key in shown:
                extra = min(budget, max(0, self.longest.get(key, 0) - widths[key]))
                grown[key] = widths[key] + extra
                budget -= extra
        return grown

    @property
    def shown_columns(self) -> list[str]:
        return [key for _, key, _ in self.layout()]

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        style = self.get_component_rich_style
        if y == 0:
            header = style("virtual-table--header")
            labels = [self.labels.get(key, key) for key, _ in self.columns]
            return self.render_cells(labels, header).crop_extend(scroll_x, scroll_x + width, header)
        index = y - 1 + scroll_y
        if index >= len(self.rows):
            if index == 0 and self.empty_text:
                text = Segment(f" {self.empty_text}", style("virtual-table--empty"))
                return Strip([text]).adjust_cell_length(width, self.rich_style)
            return Strip.blank(width, self.rich_style)
        row = self.rows[index]
        row_style = style("virtual-table--odd-row" if index % 2 else "virtual-table--even-row")
        cells = list(row.cells)
        if row.key in self.marked:
            cells[0] = Text(MARK, style=style("virtual-table--mark"))
        if index != self.cursor_row or not self.show_cursor:
            if index == self.hover_row and self.show_cursor:
                row_style += style("virtual-table--hover")
            return self.render_cells(cells, row_style).crop_extend(
                scroll_x, scroll_x + width, row_style)
        # The cursor's colours win over the cells' own, as in Textual's DataTable.
        cursor = row_style + style("virtual-table--cursor")
        colours = Style.from_color(cursor.color, cursor.bgcolor)
        line = self.render_cells(cells, cursor).crop_extend(scroll_x, scroll_x + width, cursor)
        return Strip(Segment.apply_style(line, post_style=colours))

    def render_cells(self, cells: Sequence[object], style: Style) -> Strip:
        """One line of cells (strings or Texts) on `style`, each cut to fit its column."""
        segments = []
        pad = " " * CELL_PADDING
        console = self.app.console
        for index, key, width in self.layout():
            cell = cells[index]
            keep_end = key in self.keep_end
            if not isinstance(cell, Text):
                segments.append(Segment(f"{pad}{fit(str(cell), width, keep_end)}{pad}", style))
                continue
            segments.append(Segment(pad, style))
            if cell.spans and not keep_end:  # parts in their own styles (the index gauge)
                fitted = Text(fit(cell.plain, width), style=cell.style)
                for span in cell.spans:
                    fitted.stylize(span.style, span.start, span.end)
                segments.extend(Segment.apply_style(fitted.render(console, end=""), style))
            else:
                text = fit(cell.plain, width, keep_end)
                segments.append(Segment(text, style + console.get_style(cell.style)))
            segments.append(Segment(pad, style))
        return Strip(segments)


# Line breaks, tabs and control characters (an ESC would reach the terminal) in a name or
# description: each shown as a space, so a row stays one line of its own columns (and
# styled parts of a cell keep their places).
_NOT_PRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def fit(text: str, width: int, keep_end: bool = False) -> str:
    """`text` on one line, padded or cut (with an ellipsis) to exactly `width` cells;
    `keep_end` cuts its start instead (a path keeps its last folders)."""
    text = _NOT_PRINTABLE.sub(" ", text)
    length = cell_len(text)
    if length <= width:
        return text + " " * (width - length)
    if keep_end:
        cut = "…" + set_cell_size(text[::-1], width - 1).rstrip(" ")[::-1]
        return cut + " " * (width - cell_len(cut))
    # A wide character that does not fit is replaced by padding: the ellipsis goes first.
    cut = set_cell_size(text, width - 1).rstrip(" ") + "…"
    return cut + " " * (width - cell_len(cut))
