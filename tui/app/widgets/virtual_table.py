"""A table that renders only the lines on screen: the memory list and the projects list.

A DataTable measures every cell it is given, so refilling it with thousands of rows on each
filter keystroke is slow. This table holds a plain list of rows with fixed column widths:
replacing the rows costs nothing until the visible lines are painted. When the table is
narrower than its columns, the least important columns give way whole: a column is never
cut to a letter or two. Columns may fit their cells (giving their empty width to the
others), and one column may wrap its text onto more lines of its row.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
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
# Rows a growing or fitting column is measured on: enough to size it, cheap on half a
# million rows.
MEASURED_ROWS = 2_000
# A wrapping column wraps only when it has this much room (narrower, each row would take
# three or four lines), and only up to this many rows (the rows' heights are a pass over
# all of them, at each new width).
WRAP_WIDTH = 48
WRAP_ROWS = 5_000
WRAP_ROOM = 60  # what a wrapping column is given before a growing column widens
# Beside a wrapping column, a growing column takes the width that costs its rows least: a
# cell cut short (a file name read from its middle) costs this many wrapped lines.
CUT_COST = 2
WHOLE_WIDTH = 40  # a column kept whole is kept so up to this width, unless told otherwise


class Row(Protocol):
    key: str
    cells: tuple[object, ...]  # strings, or Texts in one style


@dataclass(frozen=True)
class TableRow:
    """A row with nothing more than its key and cells."""

    key: str
    cells: tuple[object, ...]


@dataclass(frozen=True)
class Place:
    """Where a table's cursor was: the rows it was among, its row and that row's line on
    screen (counted from the top of the view)."""

    rows: Sequence[Row]
    cursor: int
    line: int

    def in_rows(self, rows: Sequence[Row]) -> int:
        """The cursor's row among `rows`: the same row if it is still there, else the
        first after it that is (the one that took its place), else the last before it."""
        if not rows or not self.rows:
            return 0
        cursor = min(self.cursor, len(self.rows) - 1)
        key = self.rows[cursor].key
        same = next((index for index, row in enumerate(rows) if row.key == key), None)
        if same is not None:
            return same
        where = {row.key: index for index, row in enumerate(rows)}
        for row in (*self.rows[cursor + 1:], *reversed(self.rows[:cursor])):
            if row.key in where:
                return where[row.key]
        return 0


# The keys that move a cursor (the actions are `CursorKeys`').
CURSOR_BINDINGS: list[BindingType] = [
    Binding("up", "cursor_up", "Cursor up", show=False),
    Binding("down", "cursor_down", "Cursor down", show=False),
    Binding("pageup", "page_up", "Page up", show=False),
    Binding("pagedown", "page_down", "Page down", show=False),
    Binding("home,ctrl+home", "first", "First", show=False),
    Binding("end,ctrl+end", "last", "Last", show=False),
]


class CursorKeys:
    """The actions of `CURSOR_BINDINGS`, for a view with a cursor on one of `cursor_places`
    places: it gives `cursor_place`, `page_height` and `move_by_key(place)`."""

    cursor_place: int
    cursor_places: int
    page_height: int

    def move_by_key(self, place: int) -> None:
        raise NotImplementedError

    def action_cursor_up(self) -> None:
        self.move_by_key(self.cursor_place - 1)

    def action_cursor_down(self) -> None:
        self.move_by_key(self.cursor_place + 1)

    def action_page_up(self) -> None:
        self.move_by_key(self.cursor_place - self.page_height)

    def action_page_down(self) -> None:
        self.move_by_key(self.cursor_place + self.page_height)

    def action_first(self) -> None:
        self.move_by_key(0)

    def action_last(self) -> None:
        self.move_by_key(self.cursor_places - 1)


class VirtualTable(CursorKeys, ScrollView, can_focus=True):
    """Rows one per line under a fixed header, with a row cursor and marks.

    Marked rows show ● in their first column.
    """

    ALLOW_SELECT = False
    BINDINGS: ClassVar[list[BindingType]] = CURSOR_BINDINGS
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
                 priority: Sequence[str] = (), grow: Collection[str] = (),
                 fit: Collection[str] = (), wrap: str | None = None,
                 whole: tuple[str, str] | None = None, whole_width: int = WHOLE_WIDTH,
                 short_labels: Mapping[str, str] | None = None,
                 cursor: bool = True, id: str | None = None) -> None:
        """`columns` are (key, width) pairs, headed by their key unless `labels` names them
        otherwise; text too long for a column is cut at its end, or at its start in the
        `keep_end` columns. The `fit` columns narrow to their longest cell (or their label),
        so their width at most. `priority` orders the keys from most to least important (the
        declared order by default): a column is shown only when it and every more important
        one fit at their widths; `whole` is (a column, a key of `priority`): from that key
        on, a column is shown only when the first one has its longest cell too (at most
        `whole_width`). The `grow` columns widen to their longest cell, together taking at
        most half the spare width (beside a `wrap` column: the width that cuts and wraps fewest
        of their cells;
        beside the `whole` column: what it leaves once whole);
        then the first shown of the `stretch` columns takes what is left. The `wrap`
        column's text too long for it goes on over more lines of its row (with room for
        `WRAP_WIDTH` cells and up to `WRAP_ROWS` rows; else it is cut). While the stretching
        column is cut short, a `fit` column with a `short_labels` label narrows to its cells
        under that label, its width going to the stretching column. Without a `cursor` the
        table only shows its rows and takes no focus."""
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
        self.fit = tuple(key for key in keys if key in fit)
        self.wrap = wrap
        self.whole = whole or ()
        self.whole_width = whole_width
        self.short_labels = dict(short_labels or {})
        self.shortened: frozenset[str] = frozenset()  # columns headed by their short label
        # The cell widths, sorted, of the first growing column and of the wrapping column.
        self.sizes: dict[str, list[int]] = {}
        self.longest: dict[str, int] = {}  # a growing or fitting column's longest cell
        self.rows: list[Row] = []
        self.marked: frozenset[str] = frozenset()
        self.empty_text = ""
        self._layout: tuple[int, list[tuple[int, str, int]]] = (-1, [])
        # Where each row starts, in lines (and where the last ends), while rows wrap.
        self._starts: tuple[int, list[int] | None] = (-1, None)
        first = dict(self.columns)[self.priority[0]]
        self.virtual_size = Size(first + 2 * CELL_PADDING, 1)

    @property
    def page_height(self) -> int:
        """How many rows fit under the header."""
        return max(1, self.scrollable_content_region.height - 1)

    @property
    def highlighted(self) -> Row | None:
        return self.rows[self.cursor_row] if self.rows else None

    # --- rows of more than one line -------------------------------------------------------

    def wrap_width(self) -> int | None:
        """The wrapping column's width, when its rows wrap at the present width."""
        if self.wrap is None or len(self.rows) > WRAP_ROWS:
            return None
        width = next((width for _, key, width in self.layout() if key == self.wrap), 0)
        return width if width >= WRAP_WIDTH else None

    def starts(self) -> list[int] | None:
        """The first line of each row, then the line after the last; None: a line a row."""
        width = self.wrap_width()
        if width is None:
            return None
        cached_width, starts = self._starts
        if starts is None or cached_width != width:
            index = [key for key, _ in self.columns].index(self.wrap)
            heights = (len(wrap_cell(row.cells[index], width)) for row in self.rows)
            starts = [0, *accumulate(heights)]
            self._starts = (width, starts)
        return starts

    def row_span(self, row: int) -> tuple[int, int]:
        """The first line of `row` and how many lines it takes."""
        starts = self.starts()
        if starts is None or row >= len(self.rows):
            return row, 1
        return starts[row], starts[row + 1] - starts[row]

    def row_at(self, line: int) -> tuple[int, int]:
        """The row on `line` (counted under the header) and which of its lines it is."""
        starts = self.starts()
        if starts is None:
            return line, 0
        if line >= starts[-1]:
            return len(self.rows) + line - starts[-1], 0
        row = bisect_right(starts, line) - 1
        return row, line - starts[row]

    @property
    def line_count(self) -> int:
        starts = self.starts()
        return len(self.rows) if starts is None else starts[-1]

    def refresh_row(self, row: int) -> None:
        first, height = self.row_span(row)
        # Lines of the whole table, under its header: refresh_lines takes the scroll off.
        self.refresh_lines(first + 1, height)

    # --- content --------------------------------------------------------------------------

    def set_rows(self, rows: list[Row], empty_text: str = "", place: Place | None = None) -> None:
        """Show `rows`, keeping the cursor on the same memory if it is still there; with
        `place` (the rows shown before, as new ones after a change), on the row that took
        its place if it is gone, on the same line of the view.

        Posts no Highlighted message: the caller knows the rows changed.
        """
        current = self.highlighted
        self.rows = rows
        self.empty_text = empty_text
        self._starts = (-1, None)
        if self.grow or self.fit or self.whole or self.short_labels:
            self.measure_columns()
        index = 0
        if place is not None:
            index = place.in_rows(rows)
        elif current is not None:  # usually near the top: the scan stops there
            index = next((i for i, row in enumerate(rows) if row.key == current.key), 0)
        self.set_reactive(VirtualTable.cursor_row, index)
        self.update_height()
        if place is not None and rows:
            top = max(0, self.row_span(index)[0] - place.line)
            self.scroll_to(y=top, animate=False, immediate=True)
        self.scroll_to_cursor()
        self.refresh()

    @property
    def place(self) -> Place:
        """Where the cursor is, for `set_rows` to keep it there."""
        return Place(self.rows, self.cursor_row,
                     self.row_span(self.cursor_row)[0] - round(self.scroll_y))

    def update_height(self) -> None:
        self.virtual_size = Size(self.virtual_size.width, self.line_count + 1)

    def measure_columns(self) -> None:
        """The longest cell of each growing and fitting column, on the first rows."""
        indexes = {key: index for index, (key, _) in enumerate(self.columns)}
        measured = dict.fromkeys((*self.grow, *self.fit, *self.whole[:1],
                                  *(self.stretch if self.short_labels else ())))
        longest = {key: 0 for key in measured}
        beside = (self.grow[0], self.wrap) if self.wrap is not None and self.grow else ()
        sizes: dict[str, list[int]] = {key: [] for key in beside}
        for row in self.rows[:MEASURED_ROWS]:
            cells = row.cells
            for key in measured:
                cell = cells[indexes[key]]
                longest[key] = max(longest[key], cell_len(
                    _NOT_PRINTABLE.sub(" ", cell.plain if isinstance(cell, Text) else str(cell))))
            for key, found in sizes.items():
                cell = cells[indexes[key]]
                found.append(cell_len(cell.plain if isinstance(cell, Text) else str(cell)))
        if longest != self.longest or sizes != self.sizes:
            self.longest = longest
            self.sizes = {key: sorted(found) for key, found in sizes.items()}
            self._layout = (-1, [])  # the columns' widths follow their cells

    def set_marked(self, keys: Collection[str]) -> None:
        self.marked = frozenset(keys)
        self.refresh()

    def move_cursor(self, row: int) -> None:
        self.cursor_row = row

    def validate_cursor_row(self, row: int) -> int:
        return max(0, min(row, len(self.rows) - 1))

    def watch_cursor_row(self, old: int, new: int) -> None:
        self.refresh_row(old)
        self.refresh_row(new)
        self.scroll_to_cursor()
        self.post_message(self.Highlighted(self, self.highlighted))

    def scroll_to_cursor(self) -> None:
        """Bring the cursor's row into view, all its lines when they fit."""
        top = round(self.scroll_y)
        first, height = self.row_span(self.cursor_row)
        if first < top:
            top = first
        elif first + height > top + self.page_height:
            top = max(first + height - self.page_height, 0) if height <= self.page_height \
                else first
        self.scroll_to(y=top, animate=False, immediate=True)

    # --- keys and mouse -------------------------------------------------------------------

    @property
    def cursor_place(self) -> int:
        return self.cursor_row

    @property
    def cursor_places(self) -> int:
        return len(self.rows)

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
        row, _ = self.row_at(round(self.scroll_y) + offset.y - 1)
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
        row = -1 if offset is None or offset.y == 0 else \
            self.row_at(round(self.scroll_y) + offset.y - 1)[0]
        self.hover_row = row if row < len(self.rows) else -1

    def on_leave(self) -> None:
        self.hover_row = -1

    def watch_hover_row(self, old: int, new: int) -> None:
        self.refresh_row(old)
        self.refresh_row(new)

    def on_resize(self) -> None:
        if self.wrap is not None:
            self.update_height()  # the rows' heights follow the wrapping column's width
        self.scroll_to_cursor()

    # --- rendering ------------------------------------------------------------------------

    def layout(self) -> list[tuple[int, str, int]]:
        """(cell index, key, width) of each column shown at the table's present width."""
        room = self.scrollable_content_region.width
        cached_room, columns = self._layout
        if room == cached_room:
            return columns
        widths = dict(self.columns)
        for key in self.fit:
            label = cell_len(self.labels.get(key, key))
            widths[key] = min(widths[key], max(label, self.longest.get(key, 0)))
        shown: set[str] = set()
        used = 0
        short, counted = 0, False  # what the whole column lacks of its longest cell
        if self.whole:
            column = self.whole[0]
            wanted = min(self.longest.get(column, 0), self.whole_width)
            short = max(0, wanted - widths[column])
        for key in self.priority:
            need = widths[key] + 2 * CELL_PADDING
            counted = counted or bool(self.whole) and key == self.whole[1]
            if shown and used + need + (short if counted else 0) > room:
                break
            shown.add(key)
            used += need
        stretch = next((key for key in self.stretch if key in shown), None)
        spare = max(0, room - used)
        for key, width in self.grown(widths, shown, spare).items():
            spare -= width - widths[key]
            widths[key] = width
        shortened = set()
        if stretch is not None and self.longest.get(stretch, 0) > widths[stretch] + spare:
            for key in self.fit:  # the stretching column is cut: labels give way first
                if key in shown and key in self.short_labels:
                    narrow = max(cell_len(self.short_labels[key]), self.longest.get(key, 0))
                    if narrow < widths[key]:
                        spare += widths[key] - narrow
                        widths[key] = narrow
                        shortened.add(key)
        self.shortened = frozenset(shortened)
        columns = [(index, key, widths[key] + (spare if key == stretch else 0))
                   for index, (key, _) in enumerate(self.columns) if key in shown]
        self._layout = (room, columns)
        return columns

    def grown(self, widths: dict[str, int], shown: set[str], spare: int) -> dict[str, int]:
        """The growing columns' widths: each up to its longest cell, within half of `spare`
        (with a wrapping column shown: see `cheapest_beside_wrap`; with the `whole` column shown: within
        what is left once it has its longest cell, up to `whole_width`)."""
        budget = spare // 2
        if self.wrap in shown and (cheapest := self.cheapest_beside_wrap(widths, shown, spare)):
            return cheapest
        if self.wrap in shown:
            budget = max(0, spare - max(0, WRAP_ROOM - widths[self.wrap]))
        elif self.whole and self.whole[0] in shown:
            column = self.whole[0]
            wanted = min(self.longest.get(column, 0), self.whole_width)
            budget = max(0, spare - max(0, wanted - widths[column]))
        grown = {}
        for key in self.grow:
            if key in shown:
                extra = min(budget, max(0, self.longest.get(key, 0) - widths[key]))
                grown[key] = widths[key] + extra
                budget -= extra
        return grown

    def cheapest_beside_wrap(self, widths: dict[str, int], shown: set[str],
                             spare: int) -> dict[str, int] | None:
        """The first growing column's width beside the wrapping one that cuts and wraps
        its rows least (a cut counting `CUT_COST` wrapped lines); None when unmeasured."""
        key = self.grow[0] if self.grow else None
        if key not in shown or not self.sizes.get(key):
            return None
        grows, wraps = self.sizes[key], self.sizes[self.wrap]
        start = widths[key]
        # Never so wide that the wrapping column can no longer wrap (its text is cut then).
        widest = min(self.longest.get(key, 0), start + widths[self.wrap] + spare - WRAP_WIDTH)
        best, least = start, None
        for width in range(start, widest + 1):
            room = widths[self.wrap] + spare - (width - start)
            cost = (CUT_COST * (len(grows) - bisect_right(grows, width))
                    + len(wraps) - bisect_right(wraps, room))
            if least is None or cost < least:
                best, least = width, cost
        return {key: best}

    @property
    def shown_columns(self) -> list[str]:
        return [key for _, key, _ in self.layout()]

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        style = self.get_component_rich_style
        if y == 0:
            header = style("virtual-table--header")
            self.layout()  # which labels are short at this width
            labels = [self.short_labels[key] if key in self.shortened
                      else self.labels.get(key, key) for key, _ in self.columns]
            return self.render_cells(labels, header).crop_extend(scroll_x, scroll_x + width, header)
        index, part = self.row_at(y - 1 + scroll_y)
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
        if (wrap_width := self.wrap_width()) is not None:
            cells = self.row_part(cells, part, wrap_width)
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

    def row_part(self, cells: list[object], part: int, width: int) -> list[object]:
        """The cells of one line of a wrapped row: the wrapping column's `part`th line, and
        beside it the other cells on the first line, blanks under them."""
        index = [key for key, _ in self.columns].index(self.wrap)
        cell = cells[index]
        lines = wrap_cell(cell, width)
        line = lines[part] if part < len(lines) else ""
        if part:
            cells = [""] * len(cells)
        cells[index] = Text(line, style=cell.style) if isinstance(cell, Text) else line
        return cells

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


def wrap_cell(cell: object, width: int) -> list[str]:
    """A cell's text in lines of at most `width` cells, broken between words (a word longer
    than a line is broken where the line ends)."""
    text = _NOT_PRINTABLE.sub(" ", cell.plain if isinstance(cell, Text) else str(cell))
    if cell_len(text) <= width:
        return [text]
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if cell_len(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        while cell_len(word) > width:
            # A wide character cut in two is left to the next line (it is padding here).
            head = set_cell_size(word, width).rstrip(" ") or word[0]
            lines.append(head)
            word = word[len(head):]
        line = word
    lines.append(line)
    return lines
