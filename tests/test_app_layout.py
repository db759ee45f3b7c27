"""80x24 first: whole columns by priority, readable statuses, footers that never cut a label,
number keys that switch tabs on the store screen, digits that are text in a text field."""

from __future__ import annotations

import pytest
from app_home import build_app_home, demo_app, open_review
from conftest import painted, settle
from textual.widgets import Input, TabbedContent
from textual.widgets._footer import FooterKey
from waiting import pilot_until

from tui.app.app import MemtuiApp
from tui.app.screens.store import StoreScreen
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.virtual_table import VirtualTable
from tui.claude.discovery import discover

SMALL, LARGE = (80, 24), (120, 40)


@pytest.fixture
def fixture(claude_home, tmp_path):
    return build_app_home(claude_home, tmp_path)


async def open_store(app, pilot, fixture) -> StoreScreen:
    await settle(app, pilot)
    app.push_screen(StoreScreen(discover(fixture.home, fixture.env).projects[0]))
    await settle(app, pilot)
    return app.screen


def footer_labels(screen) -> list[str]:
    """The footer's keys as painted; fails if one is cut or lies over another."""
    footer = screen.query_one(KeyFooter)
    keys = sorted(footer.query(FooterKey), key=lambda key: key.region.x)
    assert keys, "an empty footer"
    for key, after in zip(keys, [*keys[1:], None], strict=True):
        assert footer.region.x <= key.region.x and key.region.right <= footer.region.right
        assert after is None or key.region.right <= after.region.x
        painted = key.render().plain.strip()
        assert painted == f"{key.key_display} {key.description}"
        assert key.region.width >= len(painted)
    return [key.render().plain.strip() for key in keys]


async def repainted(pilot) -> None:
    """The footer recomposes after the refresh that follows a change of keys."""
    for _ in range(3):
        await pilot.pause()


def keys_of(labels: list[str]) -> set[str]:
    return {label.split()[0] for label in labels}


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_the_projects_table_keeps_its_first_columns_whole(fixture, size):
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects", VirtualTable)
        first = ["path", "memories", "index", "orphans", "status"]
        assert set(first) <= set(table.shown_columns)
        header = table.render_line(0).text
        assert all(label in header for label in
                   ["project", *(table.short_labels.get(key, key) if key in table.shortened
                                 else key for key in first[1:])])
        assert {"Open", "Filter", "Sort", "Rescan", "Demo", "Help"} <= {
            label.split(maxsplit=1)[1] for label in footer_labels(app.screen)}


async def test_at_120_columns_a_path_is_whole_before_the_least_important_columns(
        fixture, monkeypatch):
    """Paths were cut at 120 columns while other columns stood half empty: past the first
    five, a column joins only once the path is whole (up to 40 cells); with short paths
    every column fits."""
    from tui.app.widgets.virtual_table import WHOLE_WIDTH

    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=LARGE) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects", VirtualTable)
        [row] = table.rows
        assert len(row.path) > WHOLE_WIDTH  # a path under the test's temporary folder
        widths = {key: width for _, key, width in table.layout()}
        assert widths["path"] >= WHOLE_WIDTH
        assert "lost" in widths and "since" not in widths
    monkeypatch.setenv("HOME", str(fixture.project.parent.parent))  # the path: ~/work/shop
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=LARGE) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects", VirtualTable)
        assert table.rows[0].path == "~/work/shop"
        assert table.shown_columns == [key for key, _ in table.columns]


async def test_at_80_columns_memory_statuses_are_words_not_letters(fixture):
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_store(app, pilot, fixture)
        table = screen.query_one("#memory-table", VirtualTable)
        assert {"name", "status"} <= set(table.shown_columns)
        shown = [column_text(table, "status", row)[0] for row in range(len(table.rows))]
        assert {"past cut", "unindexed"} <= set(shown)
        painted = [table.render_line(y).text for y in range(1, len(table.rows) + 1)]
        assert all(len(line) <= table.size.width for line in painted)


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_store_footers_show_the_most_used_keys_whole(fixture, size):
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=size) as pilot:
        screen = await open_store(app, pilot, fixture)
        memories = keys_of(footer_labels(screen))
        assert {"D", "e", "u", "h", "o", "^d", "f1"} <= memories
        if size == LARGE:
            assert {"a", "r", "x", "/"} <= memories
        await pilot.press("3")  # the footer follows the tab and the highlighted finding
        await repainted(pilot)
        assert {"space", "f1"} <= keys_of(footer_labels(screen))
        findings = screen.query_one("#findings-table", VirtualTable)
        kinds = [row.finding.kind for row in findings.rows]
        findings.move_cursor(kinds.index("dangling"))
        await repainted(pilot)
        assert "d Remove dangling" in footer_labels(screen)
        findings.move_cursor(kinds.index("unindexed"))
        await repainted(pilot)
        assert footer_labels(screen)[0] == "r Relink"
        for tab in "24":
            await pilot.press(tab)
            await repainted(pilot)
            footer_labels(screen)


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_every_other_screen_footer_fits(fixture, size, monkeypatch):
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=size) as pilot:
        await open_store(app, pilot, fixture)
        for key, wanted in (("h", {"r", "b", "s", "u", "esc"}), ("o", {"m", "h", "u", "esc"}),
                            ("e", {"^s", "esc"}), ("x", {"⏎", "esc"})):
            await pilot.press(key)
            await settle(app, pilot)
            assert wanted | {"f1"} <= keys_of(footer_labels(app.screen)), key
            await pilot.press("escape")
            await settle(app, pilot)
        await pilot.press("ctrl+d")
        run = app.screen
        await settle(app, pilot)
        assert run.finished
        assert {"⏎", "esc", "f1"} <= keys_of(footer_labels(run))
        await pilot.press("enter")
        await settle(app, pilot)
        assert {"a", "space", "esc", "f1"} <= keys_of(footer_labels(app.screen))


async def test_a_digit_typed_in_the_filter_or_the_question_is_text(fixture):
    """Nobody could filter for note_1 or ask about v2 while digits switched tabs: in a text
    field a digit is text, and esc leaves the field so that 1-4 switch tabs again."""
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_store(app, pilot, fixture)
        tabs = screen.query_one("#store-tabs", TabbedContent)
        query = screen.query_one("#recall-query", Input)
        await pilot.press("4")
        assert tabs.active == "recall" and query.has_focus
        await pilot.press(*"deploy v2")
        assert tabs.active == "recall" and query.value == "deploy v2"
        await pilot.press("escape", "1")
        assert tabs.active == "memories"
        assert query.value == "deploy v2"
        await pilot.press("slash", *"note_1")
        field = screen.query_one("#memory-filter", Input)
        assert tabs.active == "memories" and field.value == "note_1"
        await pilot.press("enter", "3")  # enter keeps the filter and leaves the field
        assert tabs.active == "findings"
        assert field.value == "note_1"
        await pilot.press("2")
        assert tabs.active == "index"


async def test_at_160_columns_the_findings_where_column_shows_whole_paths(tmp_path):
    from tui.app.widgets.findings import where

    app, webapp = demo_app(tmp_path / "demo")
    async with app.run_test(size=(160, 48)) as pilot:
        table = await demo_findings(app, pilot, webapp)
        places = [where(row.finding) for row in table.rows]
        assert max(map(len, places[:table.page_height])) > 24  # its width at 80 columns
        for number, place in enumerate(places[:table.page_height // 2]):
            assert column_text(table, "where", number)[0] == place
        widths = {key: width for _, key, width in table.layout()}
        assert widths["message"] >= 50  # the message keeps most of the room


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_the_projects_status_comes_right_after_the_path(fixture, claude_home, size):
    """At 80 columns the status column gave way, so `stranded` and `no store` could not be
    seen: it is the most important column after the path."""
    claude_home.session(fixture.project.parent / "spike")  # sessions, but no store
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects", VirtualTable)
        assert {"path", "status", "memories", "index", "orphans"} <= set(table.shown_columns)
        painted = [table.render_line(y).text for y in range(1, len(table.rows) + 1)]
        assert any("no store" in line for line in painted)


async def test_the_projects_columns_narrow_to_their_cells_for_the_path(fixture):
    """At 120 columns paths were cut while columns stood half empty: every column but the
    path and the index is as wide as its label or its longest cell, the path takes the rest."""
    from tui.app.screens.projects import FITTED

    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=LARGE) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects", VirtualTable)
        keys = [key for key, _ in table.columns]
        used = 0
        for index, key, width in table.layout():
            used += width + 2
            if key in FITTED:
                cells = [str(row.cells[index]) for row in table.rows]
                label = (table.short_labels[key] if key in table.shortened
                         else table.labels.get(key, key))
                assert width == max(map(len, [label, *cells])), key
        assert set(keys) - {"path", "index"} <= set(FITTED)
        assert used == table.scrollable_content_region.width  # the path took the rest


async def test_at_120_columns_a_path_is_not_cut_while_headers_stand_over_empty_cells(
        claude_home, tmp_path, monkeypatch):
    """`~/code/webapp-worktrees/feature-authentication-flow-2026` was cut while `memories` and
    `orphans` stood over numbers of a digit or two: their headers shorten and the path is
    read whole; with room to spare the headers are whole again."""
    monkeypatch.setenv("HOME", str(tmp_path))
    project = tmp_path / "code" / "webapp-worktrees" / "feature-authentication-flow-2026"
    project.mkdir(parents=True)
    claude_home.session(project)
    claude_home.store(project)
    shown = "~/code/webapp-worktrees/feature-authentication-flow-2026"
    for size, short in ((LARGE, True), ((160, 40), False)):
        app = MemtuiApp(claude_home.home, claude_home.env)
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            table = app.screen.query_one("#projects", VirtualTable)
            assert shown in table.render_line(1).text
            header = table.render_line(0).text.split()
            assert ("mem" in header and "orph" in header) is short
            assert ("memories" in header and "orphans" in header) is not short


async def test_at_120_columns_the_findings_file_names_take_the_room_messages_leave(tmp_path):
    """24 names were cut from the left (`…rence_presence_dashboard.md`) while messages of
    56 cells stood in 60: the name column widens as far as it cuts more names than it
    wraps messages, counting a cut name as two wrapped lines."""
    from tui.app.widgets.findings import message_beside, where

    app, webapp = demo_app(tmp_path / "demo")
    async with app.run_test(size=LARGE) as pilot:
        table = await demo_findings(app, pilot, webapp)
        widths = {key: width for _, key, width in table.layout()}
        places = [where(row.finding) for row in table.rows]
        messages = [message_beside(row.finding) for row in table.rows]
        cut = sum(len(place) > widths["where"] for place in places)
        wrapped = sum(len(message) > widths["message"] for message in messages)
        assert cut < 10 and wrapped < len(messages) // 2, (cut, wrapped)
        for width in range(widths["where"] - 3, widths["where"] + 4):  # none costs less
            room = widths["where"] + widths["message"] - width
            assert 2 * cut + wrapped <= 2 * sum(len(p) > width for p in places) + sum(
                len(m) > room for m in messages), width


async def demo_findings(app, pilot, webapp) -> VirtualTable:
    """The demo's big store open on its Findings tab."""
    await settle(app, pilot)
    app.push_screen(StoreScreen(webapp))
    await settle(app, pilot)
    await pilot.press("3")
    await settle(app, pilot)
    return app.screen.query_one("#findings-table", VirtualTable)


def in_view(table: VirtualTable, row: int) -> bool:
    """Whether every line of `row` is on screen."""
    first, height = table.row_span(row)
    top = round(table.scroll_y)
    return top <= first and first + height <= top + table.page_height


def column_text(table: VirtualTable, key: str, row: int) -> list[str]:
    """What `key`'s column paints on each line of `row` (which must be in view)."""
    x = 0
    for _, shown, width in table.layout():
        if shown == key:
            break
        x += width + 2
    first, height = table.row_span(row)
    top = round(table.scroll_y)
    return [table.render_line(line - top + 1).text[x + 1:x + 1 + width].rstrip()
            for line in range(first, first + height)]


async def test_at_120_columns_every_finding_is_read_whole_in_its_row(tmp_path):
    """The message column was cut at 120 columns; a message too long for it wraps onto
    more lines of its row, and no row repeats the file name its `where` shows."""
    from tui.app.widgets.findings import message_beside, where

    app, webapp = demo_app(tmp_path / "demo")
    async with app.run_test(size=LARGE) as pilot:
        table = await demo_findings(app, pilot, webapp)
        wrapped = 0
        for number, row in enumerate(table.rows):
            if not in_view(table, number):  # a page at a time: each move repaints
                table.move_cursor(number)
                table.scroll_to(y=table.row_span(number)[0], animate=False, immediate=True)
                await pilot.pause()
            lines = column_text(table, "message", number)
            wrapped += len(lines) > 1
            # A word longer than the column (a temp path, longer still under xdist) is
            # folded mid-word: compare what is read, not where the lines break.
            assert "".join("".join(lines).split()) == \
                "".join(message_beside(row.finding).split()), row.finding
            assert "…" not in column_text(table, "where", number)[0] or \
                len(where(row.finding)) > 24
            assert not lines[0].startswith(row.finding.file or "\0")
        assert 0 < wrapped < len(table.rows) // 2  # most messages take one line


async def test_at_80_columns_a_finding_names_its_file_once(tmp_path):
    from tui.app.widgets.findings import where

    app, webapp = demo_app(tmp_path / "demo")
    async with app.run_test(size=SMALL) as pilot:
        table = await demo_findings(app, pilot, webapp)
        assert table.shown_columns == ["mark", "kind", "where", "message"]
        for number, row in enumerate(table.rows[:table.page_height]):
            [message] = column_text(table, "message", number)
            file = row.finding.file
            assert file and where(row.finding).startswith(file)
            assert not message.startswith(file[:10]), message
        detail = app.screen.query_one("#findings-detail").render().plain
        assert detail.startswith(f"{table.rows[0].finding.severity} ")  # severity, in words


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_the_review_file_list_keeps_the_start_of_each_name(tmp_path, size):
    """`…lling_incident.md`: the list was narrower than its names and cut them at their
    start. It takes the width the names need, up to half the screen; a name longer still
    keeps its start. The kind of change stays, in a short word where a whole one would cut
    the names (at 80x24 it was left out)."""
    from tui.agents.dream import run_dream

    app, webapp = demo_app(tmp_path / "demo")
    result = run_dream(webapp.store, engine="offline")
    async with app.run_test(size=size) as pilot:
        await open_review(app, pilot, result)
        files = app.screen.query_one("#review-files", VirtualTable)
        assert files.size.width <= size[0] // 2
        for number, row in enumerate(files.rows[:files.page_height]):
            [shown] = column_text(files, "file", number)
            if size == LARGE:
                assert shown == row.key
            else:
                assert row.key.startswith(shown.removesuffix("…"))
        assert files.shown_columns == ["choice", "change", "file"]
        kinds = {"created": "new", "modified": "mod", "archived": "arch"}
        header = files.render_line(0).text.split()
        assert header[:2] == (["change", "file"] if size == LARGE else ["kind", "file"])
        for number, row in enumerate(files.rows[:files.page_height]):
            [change] = column_text(files, "change", number)
            kind = next(d.kind for d in result.changeset.files if d.file == row.key)
            assert change == (kind if size == LARGE else kinds[kind])


async def test_a_long_log_line_wraps_under_its_text_not_under_its_phase(claude_home, tmp_path):
    from textual.widgets import RichLog

    from tui.agents.events import LogLine
    from tui.agents.result import CANCELLED, RunResult
    from tui.app.runs import Engine
    from tui.app.screens.run import RunScreen

    fixture = build_app_home(claude_home, tmp_path)
    long = "index: no room for project_notifications_decision.md (the file is kept) " * 2

    def start(listener, cancel):
        listener(LogLine("Prune and index", "info", long))
        return RunResult("dream", "offline", CANCELLED, (), ())

    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        app.push_screen(RunScreen("dream", "shop", Engine("offline", None, None), start,
                                  ("Prune and index",), fixture.store))
        await settle(app, pilot)
        lines = [strip.text for strip in app.screen.query_one("#run-log", RichLog).lines]
        first = next(n for n, line in enumerate(lines) if "no room for" in line)
        assert lines[first].startswith("Prune and index info    index: no room")
        assert lines[first + 1].startswith(" " * 24) and lines[first + 1].strip()


async def test_a_toast_takes_rows_of_its_own_and_covers_no_text(fixture):
    from textual.widgets._toast import Toast

    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        screen = await open_store(app, pilot, fixture)
        app.notify("Applied: 1 file changed. Press u to undo.")
        for _ in range(3):
            await pilot.pause()
        [toast] = screen.query(Toast)
        tabs = screen.query_one("#store-tabs")
        footer = screen.query_one(KeyFooter)
        assert tabs.region.bottom <= toast.region.y
        assert toast.region.bottom <= footer.region.y


async def test_f1_lists_memtuis_keys_before_textuals(fixture):
    """The help panel listed Textual's keys (cursor, scroll, focus) before memtui's."""
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=LARGE) as pilot:
        await open_store(app, pilot, fixture)
        await pilot.press("f1")
        await pilot.pause()
        keys = app.screen.query_one("HelpPanel BindingsTable").render()
        rows = [" ".join(line.split()) for line in painted(keys, wrap=True).splitlines()
                if line.strip()]
        first_textual = next(n for n, row in enumerate(rows) if "Cursor up" in row)
        assert rows[first_textual - 1] == "General"
        assert {"/ Filter", "r Relink", "u Undo", "q Quit"} <= set(rows[:first_textual])
        assert not any("Focus Next" in row for row in rows[:first_textual])


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_the_memories_tab_shows_each_memorys_type_and_description(tmp_path, size):
    """A memory is its type and its description: at 80 columns the table showed neither,
    at 120 no description (its 42-column name took the room). A short type tag, the name
    as wide as the names are (up to a bound), the status, and the description in the rest;
    the preview of the highlighted memory stays on screen."""
    from tui.app.memory_rows import TYPE_TAGS

    app, webapp = demo_app(tmp_path / "demo")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        app.push_screen(StoreScreen(webapp))
        await settle(app, pilot)
        table = app.screen.query_one("#memory-table", VirtualTable)
        widths = {key: width for _, key, width in table.layout()}
        assert list(widths)[:5] == ["mark", "type", "name", "status", "description"]
        assert widths["type"] == max(map(len, TYPE_TAGS.values()))
        assert widths["name"] <= 24
        assert widths["description"] == max(widths.values())
        assert widths["description"] >= (28 if size == SMALL else 60)
        store = app.screen.store
        for number, row in enumerate(table.rows[:table.page_height]):
            memory = store.memory(row.file) if row.file else None
            if memory is None or not memory.type:
                continue
            assert column_text(table, "type", number) == [TYPE_TAGS[memory.type]]
            [description] = column_text(table, "description", number)
            assert memory.description.startswith(description.rstrip("…"))
        preview = app.screen.query_one("#preview")
        assert preview.region.height >= 5 and preview.region.width >= 30


async def test_a_wide_memories_table_widens_the_name_once_the_description_has_its_room(
        tmp_path):
    """At 140 columns the description had all it could use and more, while names were cut
    at 24: the name widens into what the description leaves (once it has its longest text,
    up to 80 columns), and only then do the date and size join."""
    from tui.app.screens.store import DESCRIPTION_WHOLE

    app, webapp = demo_app(tmp_path / "demo")
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(app, pilot)
        app.push_screen(StoreScreen(webapp))
        await settle(app, pilot)
        table = app.screen.query_one("#memory-table", VirtualTable)
        widths = {key: width for _, key, width in table.layout()}
        assert widths["description"] >= min(table.longest["description"], DESCRIPTION_WHOLE)
        assert 24 < widths["name"] <= table.longest["name"]
        assert "modified" not in widths


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_with_the_palette_open_the_footer_shows_the_palettes_keys(fixture, size):
    """The footer went on listing the store's keys (Relink, Archive…), which do nothing
    while the palette is open."""
    from textual.command import CommandPalette

    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=size) as pilot:
        screen = await open_store(app, pilot, fixture)
        before = footer_labels(screen)
        assert "a Archive" in before

        def described() -> list[str]:
            return [key.description for key in screen.query_one(KeyFooter).query(FooterKey)]

        await pilot.press("ctrl+p")
        assert await pilot_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        assert await pilot_until(pilot, lambda: described() == ["Run", "Choose", "Close"])
        await pilot.pause()
        assert footer_labels(screen) == ["⏎ Run", "↑↓ Choose", "esc Close"]
        await pilot.press("escape")
        assert await pilot_until(pilot, lambda: app.screen is screen)
        assert await pilot_until(pilot, lambda: "Archive" in described())
        await pilot.pause()
        assert footer_labels(screen) == before


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_the_demo_dialogs_footer_names_y_as_its_button_does(fixture, size):
    """The button said "Open the demo (y)" while the footer said "y Apply"."""
    from textual.widgets import Button

    from tui.app.screens.confirm import ConfirmScreen

    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await pilot.press("d")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert str(dialog.query_one("#apply", Button).label) == "Open the demo (y)"
        labels = footer_labels(dialog)
        assert "y Open the demo" in labels and "y Apply" not in labels
