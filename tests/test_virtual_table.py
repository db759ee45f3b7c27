"""The memory table: what it paints, how its cursor moves, follows and survives new rows."""

from __future__ import annotations

from conftest import lines_in_style
from rich.text import Text
from textual.app import App, ComposeResult

from tui.app.memory_rows import MemoryRow
from tui.app.widgets.virtual_table import VirtualTable

COLUMNS = (("mark", 1), ("name", 12), ("status", 6), ("note", 10))
SIZE = (60, 12)  # a header and 11 rows


def row(name: str, status: str = "ok", note: str = "") -> MemoryRow:
    cells = ("", Text(name), Text(status, style="green"), note)
    return MemoryRow(f"{name}.md", f"{name}.md", status, cells, name)


ROWS = [row(f"memory-{i:02}", note=f"note {i}") for i in range(40)]


class TableApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.highlighted: list[str | None] = []

    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, stretch="note", labels={"mark": ""}, id="table")

    def on_mount(self) -> None:
        self.query_one(VirtualTable).set_rows(ROWS)

    def on_virtual_table_highlighted(self, message: VirtualTable.Highlighted) -> None:
        self.highlighted.append(message.row.key if message.row else None)


def lines(table: VirtualTable) -> list[str]:
    """The table as painted, one string per line on screen."""
    return [table.render_line(y).text for y in range(table.scrollable_content_region.height)]


def background(table: VirtualTable, y: int) -> object:
    return next(iter(table.render_line(y))).style.bgcolor


async def test_header_rows_and_long_cells_cut_with_an_ellipsis():
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        table.set_rows([row("a-rather-long-memory-name", note="n"), *ROWS[:3]])
        await pilot.pause()
        shown = lines(table)
        assert shown[0].split() == ["name", "status", "note"]
        assert "a-rather-lo…  ok" in shown[1]
        assert "memory-00" in shown[2] and "note 0" in shown[2]
        assert len(shown[1].rstrip()) <= 60
        # The last column takes the spare width: the line is filled to the table's edge.
        assert table.render_line(1).cell_length == table.size.width


async def test_tabs_line_breaks_and_escapes_in_a_cell_stay_inside_its_column():
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        odd = [row("tab\tname", note="two\nlines"), row("esc\x1b[31mred", note="sep\u2028x")]
        table.set_rows(odd + ROWS)
        await pilot.pause()
        painted = lines(table)
        assert painted[1].startswith("    tab name      ok      two lines")
        assert painted[2].startswith("    esc [31mred")
        assert all(len(line) == len(painted[0]) for line in painted[:3])
        assert not any(char in "".join(painted) for char in "\t\n\x1b\u2028")


def test_a_cut_through_a_wide_character_keeps_the_ellipsis_next_to_the_text():
    from rich.cells import cell_len

    from tui.app.widgets.virtual_table import fit

    assert fit("日本語のメモ", 6) == "日本… "
    assert fit("日本語のメモ", 7) == "日本語…"
    assert all(cell_len(fit("日本語のメモ", width)) == width for width in range(1, 14))


def test_a_path_column_is_cut_at_its_start_so_the_project_name_stays():
    from rich.cells import cell_len

    from tui.app.widgets.virtual_table import fit

    assert fit("/home/me/work/clients/acme/webapp", 16, keep_end=True) == "…nts/acme/webapp"
    assert fit("~/code/日本語のプロジェクト", 12, keep_end=True) == "…ロジェクト "
    assert all(cell_len(fit("~/code/日本語のプロジェクト", w, keep_end=True)) == w
               for w in range(1, 30))


async def test_cursor_zebra_stripes_and_marks_are_painted():
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        cursor, even, odd = background(table, 1), background(table, 3), background(table, 2)
        assert len({cursor, even, odd}) == 3
        table.blur()
        await pilot.pause()
        assert background(table, 1) not in {cursor, even, odd}  # a dimmer cursor
        table.set_marked({"memory-01.md"})
        assert lines(table)[2].startswith(" ●  memory-01")
        assert not lines(table)[3].startswith(" ●")


async def test_keys_move_the_cursor_and_the_view_follows():
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        table.focus()
        await pilot.press("down", "down")
        assert table.highlighted is ROWS[2]
        await pilot.press("pagedown")
        assert table.cursor_row == 2 + table.page_height
        await pilot.press("end")
        assert table.highlighted is ROWS[-1]
        assert "memory-39" in lines(table)[-1]  # scrolled to the end
        await pilot.press("up")
        assert table.highlighted is ROWS[-2]
        await pilot.press("home")
        assert table.highlighted is ROWS[0] and "memory-00" in lines(table)[1]
        await pilot.press("up", "pageup")  # nothing above the first row
        assert table.cursor_row == 0
        assert app.highlighted[:3] == ["memory-01.md", "memory-02.md", f"memory-{2 + table.page_height:02}.md"]
        assert app.highlighted[-1] == "memory-00.md"


async def test_click_moves_the_cursor_to_the_row_under_the_mouse():
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.click(VirtualTable, offset=(5, 4))  # line 4: the fourth row
        assert table.highlighted is ROWS[3]
        await pilot.click(VirtualTable, offset=(5, 0))  # the header is not a row
        assert table.highlighted is ROWS[3]


async def test_the_row_under_the_mouse_is_highlighted_until_it_leaves():
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        plain = background(table, 5)
        await pilot.hover(VirtualTable, offset=(5, 5))
        assert background(table, 5) != plain
        await pilot.hover(VirtualTable, offset=(5, 3))
        assert background(table, 5) == plain and background(table, 3) != background(table, 5)
        table.focus()
        await pilot.press("down")  # keys take over: the resting mouse highlights nothing
        assert background(table, 3) == background(table, 5)


async def test_new_rows_keep_the_cursor_on_the_same_memory():
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        table.move_cursor(30)
        await pilot.pause()
        table.set_rows(ROWS[25:])  # the memory moved up to the sixth row
        assert table.highlighted is ROWS[30] and table.cursor_row == 5
        table.set_rows(ROWS[:10])  # gone: back to the first row
        assert table.highlighted is ROWS[0]
        await pilot.pause()
        assert "memory-00" in lines(table)[1]


async def test_an_empty_table_shows_why_and_highlights_nothing():
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        table.focus()
        table.set_rows([], "No memory matches “zz”.")
        await pilot.press("down", "end", "pagedown")
        assert table.highlighted is None
        shown = lines(table)
        assert shown[0].split() == ["name", "status", "note"]
        assert shown[1].strip() == "No memory matches “zz”."
        assert all(not line.strip() for line in shown[2:])


class RankedApp(App[None]):
    """The table with a ranking: name and status before the note, the mark last."""

    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, stretch=("note", "name"), labels={"mark": ""},
                           priority=("name", "status", "note", "mark"), id="table")

    def on_mount(self) -> None:
        self.query_one(VirtualTable).set_rows(ROWS)


async def test_narrow_columns_give_way_whole_least_important_first():
    app = RankedApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        assert table.shown_columns == ["mark", "name", "status", "note"]
        await pilot.resize_terminal(26, 12)  # the note no longer fits: gone, not cut
        await pilot.pause()
        assert table.shown_columns == ["name", "status"]
        shown = lines(table)
        assert shown[0].split() == ["name", "status"]
        # The name takes the spare width when the note it would go to is hidden.
        assert shown[1].rstrip().endswith(" ok") and "memory-00" in shown[1]
        assert all(len(line) <= 26 for line in shown)
        await pilot.resize_terminal(12, 12)  # the most important column stays, cut to fit
        await pilot.pause()
        assert table.shown_columns == ["name"]
        assert lines(table)[1].strip() == "memory-00"


class WrappingApp(App[None]):
    """A note column that wraps, a status column that fits its cells."""

    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, stretch="note", labels={"mark": ""}, fit={"status"},
                           wrap="note", id="table")


LONG_NOTE = "a note long enough to go on over two lines of the widest column the table has " * 2


async def test_a_wrapping_column_goes_on_over_more_lines_of_its_row():
    from tui.app.widgets.virtual_table import WRAP_WIDTH

    app = WrappingApp()
    async with app.run_test(size=(WRAP_WIDTH + 30, 12)) as pilot:
        table = app.query_one(VirtualTable)
        table.set_rows([row("first", note=LONG_NOTE.strip()), *ROWS[:3]])
        await pilot.pause()
        shown = [line.rstrip() for line in lines(table)]
        first, height = table.row_span(0)
        assert (first, height) == (0, 4)
        note_at = shown[1].index("a note")
        continued = [line[note_at:] for line in shown[2:5]]
        assert " ".join([shown[1][note_at:], *continued]) == LONG_NOTE.strip()
        assert all(line[:note_at].strip() == "" for line in shown[2:5])  # under its column
        assert "memory-00" in shown[5]  # the next row after the four lines
        # The cursor paints every line of its row; the status fits "ok" (its label is wider).
        assert len({background(table, y) for y in range(1, 5)}) == 1
        assert background(table, 5) != background(table, 1)
        assert dict((key, width) for _, key, width in table.layout())["status"] == 6
        await pilot.press("down")
        assert table.cursor_row == 1 and table.highlighted.key == "memory-00.md"
        await pilot.click(table, offset=(5, 3))  # the third line of the first row
        assert table.cursor_row == 0


async def test_narrower_than_its_wrap_width_a_column_is_cut_not_wrapped():
    from tui.app.widgets.virtual_table import WRAP_WIDTH

    app = WrappingApp()
    async with app.run_test(size=(WRAP_WIDTH + 10, 12)) as pilot:
        table = app.query_one(VirtualTable)
        table.set_rows([row("first", note=LONG_NOTE), *ROWS[:3]])
        await pilot.pause()
        assert table.row_span(0) == (0, 1)
        assert lines(table)[1].rstrip().endswith("…")
        assert "memory-00" in lines(table)[2]


def test_a_word_longer_than_the_line_is_broken_where_the_line_ends():
    from tui.app.widgets.virtual_table import wrap_cell

    assert wrap_cell("one two three", 7) == ["one two", "three"]
    assert wrap_cell("abcdefghij xy", 4) == ["abcd", "efgh", "ij", "xy"]
    assert wrap_cell(Text("short"), 10) == ["short"]
    assert wrap_cell("日本語のメモ", 5) == ["日本", "語の", "メモ"]


class WholeApp(App[None]):
    def compose(self) -> ComposeResult:
        yield VirtualTable((("choice", 8), ("change", 8), ("file", 12)), stretch="file",
                           priority=("choice", "file", "change"), whole=("file", "change"),
                           id="table")


async def test_a_less_important_column_gives_way_before_the_whole_column_is_cut():
    from tui.app.widgets.virtual_table import TableRow

    app = WholeApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        name = "project_notifications_decision.md"  # 33 cells
        table.set_rows([TableRow(name, ("accept", "modified", name))])
        await pilot.pause()
        assert table.shown_columns == ["choice", "change", "file"]
        await pilot.resize_terminal(50, 12)  # 10 + 10 + 35 > 50: the change gives way
        await pilot.pause()
        assert table.shown_columns == ["choice", "file"]
        assert name in lines(table)[1]


async def test_the_cursor_is_painted_where_it_is_once_the_view_has_scrolled():
    """Scrolled down, Up moved the cursor but repainted lines outside the view: the
    highlight stayed on a row the keys no longer acted on."""
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        table.focus()
        await pilot.press("end")
        await pilot.pause()
        assert table.scroll_y > 0
        for key in ("up", "up", "down", "pageup", "up"):
            await pilot.press(key)
            await pilot.pause()
            [painted] = lines_in_style(table, "virtual-table--cursor")
            assert str(table.highlighted.cells[1]) in painted, key


async def test_new_rows_given_the_place_put_the_cursor_on_the_row_that_took_its_place():
    """A fix applied from a row removes it: the cursor goes to the row after it (else the
    last before it) on the same line of the view, not back to the first row."""
    from tui.app.widgets.virtual_table import Place

    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(VirtualTable)
        table.move_cursor(25)
        await pilot.pause()
        place = table.place
        line = place.line
        table.set_rows([r for r in ROWS if r.key not in {"memory-25.md", "memory-26.md"}],
                       place=place)
        await pilot.pause()
        assert table.highlighted.key == "memory-27.md"
        assert table.place.line == line
        assert Place(ROWS, 39, 0).in_rows(ROWS[:30]) == 29
        assert Place(ROWS, 5, 0).in_rows(ROWS[:5]) == 4
        assert Place(ROWS, 5, 0).in_rows([]) == 0
