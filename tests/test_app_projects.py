"""The projects screen: what a user sees after `memtui` opens on a config home."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

from app_home import build_app_home
from conftest import HeldFirstCall, settle
from textual.command import CommandList
from textual.widgets import Input, Static
from textual.widgets._toast import Toast
from waiting import PATIENCE, pilot_until

from tui.app.app import MemtuiApp
from tui.app.screens.confirm import ConfirmScreen
from tui.app.widgets.virtual_table import VirtualTable
from tui.demo import build_demo


def cell_texts(table: VirtualTable) -> list[list[str]]:
    return [[str(cell) for cell in row.cells] for row in table.rows]


def add_project(claude_home, folder: Path) -> None:
    """One more project beside the fixture's, with a session and a store."""
    folder.mkdir(parents=True)
    claude_home.session(folder)
    claude_home.store(folder)


async def test_projects_row_shows_store_health(claude_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects", VirtualTable)
        rows = cell_texts(table)
        assert len(rows) == 1
        path, memories, index, orphans, *_ = rows[0]
        assert path.endswith("work/shop")
        assert memories == "5"
        assert index.startswith("201/200")  # the line limit fired
        assert orphans == "2"  # unindexed + beyond the cut


async def test_first_frame_comes_before_the_scan(claude_home, tmp_path, monkeypatch):
    from tui.app.screens import projects

    fixture = build_app_home(claude_home, tmp_path)
    scan_may_finish = threading.Event()
    discover = projects.discover

    def slow_discover(*args, **kwargs):
        scan_may_finish.wait(PATIENCE)
        return discover(*args, **kwargs)

    monkeypatch.setattr(projects, "discover", slow_discover)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        status = app.screen.query_one("#scan-status", Static)
        assert "Looking for" in str(status.render())  # painted while the scan still runs
        scan_may_finish.set()
        await settle(app, pilot)
        assert "1 project in" in str(status.render())


async def test_filter_narrows_rows(claude_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    add_project(claude_home, tmp_path / "elsewhere" / "garden")
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects", VirtualTable)
        assert len(table.rows) == 2
        await pilot.press("f", *"garden")
        assert app.screen.query_one("#project-filter", Input).has_focus
        rows = cell_texts(table)
        assert len(rows) == 1 and rows[0][0].endswith("elsewhere/garden")
        status = app.screen.query_one("#scan-status", Static)
        assert str(status.render()).startswith("1 of 2 projects in ")  # while it filters
        await pilot.press("escape")
        assert len(table.rows) == 2
        assert str(status.render()).startswith("2 projects in ")


async def test_a_filter_puts_the_cursor_on_its_best_match(claude_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    for folder in ("aaa-gardxn", "zzz/garden"):  # the first row matches "garden" loosely
        add_project(claude_home, tmp_path / folder)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects", VirtualTable)
        assert str(table.highlighted.cells[0]).endswith("aaa-gardxn")
        await pilot.press("f", *"garden", "enter")
        rows = cell_texts(table)
        assert rows[0][0].endswith("zzz/garden") and any(r[0].endswith("aaa-gardxn") for r in rows)
        assert str(table.highlighted.cells[0]).endswith("zzz/garden")


async def test_sort_key_cycles(claude_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    add_project(claude_home, tmp_path / "aaa-first")
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects", VirtualTable)
        assert cell_texts(table)[0][0].endswith("aaa-first")  # by path
        await pilot.press("s")  # by memories, most first
        assert cell_texts(table)[0][0].endswith("work/shop")


async def test_empty_home_says_where_it_looked(claude_home):
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        text = str(app.screen.query_one("#empty", Static).render())
        assert "No Claude Code projects" in text
        assert str(claude_home.home.name) in text
        assert "Press d" in text


async def test_enter_opens_the_store(claude_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "StoreScreen"


async def opened_demo(app, pilot, left: Path) -> Path:
    """Wait for the app to leave `left` for a demo home and list its projects."""
    for _ in range(100):
        await settle(app, pilot)
        if app.home != left and app.screen.query("#projects"):
            if len(app.screen.query_one("#projects", VirtualTable).rows):
                break
    return app.home


async def test_demo_key_asks_before_leaving_a_real_home_and_escape_stays(claude_home, tmp_path,
                                                                        monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the demo's temp dir stays here
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("d")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        title = str(app.screen.query_one("#confirm-title", Static).render())
        assert "demo" in title
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.home == claude_home.home and app.screen.query("#projects")
        assert not list(tmp_path.glob("memtui-demo-*"))  # nothing was built

        await pilot.press("d")
        await settle(app, pilot)
        await pilot.press("y")
        home = await opened_demo(app, pilot, claude_home.home)
        assert home.is_relative_to(tmp_path)
        assert app.screen.query_one("#projects", VirtualTable).rows
        assert app.screen.query_one("#empty").has_class("hidden")


async def test_demo_key_on_a_demo_home_rebuilds_it_without_asking(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    first = build_demo(tmp_path / "first")
    app = MemtuiApp(first.home, {"CLAUDE_CONFIG_DIR": str(first.home)})
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("d")
        home = await opened_demo(app, pilot, first.home)
        assert not isinstance(app.screen, ConfirmScreen)
        assert home != first.home and home.is_relative_to(tmp_path)
        await pilot.press("d")
        again = await opened_demo(app, pilot, home)
        assert not home.exists() and again.is_dir()  # the demo it replaced is gone
    assert not again.exists()  # and the one `d` built goes with the app
    assert first.home.is_dir()  # a demo the app did not build stays


async def test_f1_shows_the_keys_and_palette_has_namespaced_commands(claude_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("f1")
        assert app.screen.query("HelpPanel")
        await pilot.press("f1")
        assert not app.screen.query("HelpPanel")
        await pilot.press("ctrl+p")
        await pilot.press(*"toggle dark")
        palette_hits = app.screen.query_one(CommandList)
        assert await pilot_until(pilot, lambda: palette_hits.option_count == 1)  # searched
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "textual-light"


async def test_notifications_show_file_names_with_brackets_as_written(claude_home):
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await settle(app, pilot)
        app.notify("link to [x](notes[draft].md) is dangling, see [b]MEMORY.md[/b]")
        await pilot.pause()
        [toast] = app.screen.query(Toast)
        assert toast.render().plain == (
            "link to [x](notes[draft].md) is dangling, see [b]MEMORY.md[/b]")


async def test_the_chosen_theme_is_remembered_for_the_next_start(claude_home):
    from tui.app.app import MemtuiApp

    first = MemtuiApp(claude_home.home, claude_home.env)
    async with first.run_test(size=(80, 24)) as pilot:
        first.theme = "nord"
        await pilot.pause()
    second = MemtuiApp(claude_home.home, claude_home.env)
    async with second.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert second.theme == "nord"


async def test_back_from_a_repaired_store_the_row_counts_what_is_on_disk_now(claude_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects", VirtualTable)
        assert cell_texts(table)[0][3] == "2"  # orphans
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("r")  # relink every orphan
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(app, pilot)
        await pilot.press("escape")  # back to the projects
        await settle(app, pilot)
        _, _, index, orphans, *_ = cell_texts(table)[0]
        assert orphans == "0"
        assert index.startswith("202/200")  # one line added, one moved up


async def test_settling_waits_past_a_worker_that_a_newer_one_replaced(claude_home):
    """A sync or a change rescans, and the new scan cancels the one under way (exclusive):
    waiting for the app to settle then waits for the new one, not fails on the old."""
    import asyncio

    from textual.worker import WorkerState

    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        release = threading.Event()
        first = app.run_worker(lambda: release.wait(PATIENCE), thread=True, exclusive=True, group="t")
        settling = asyncio.create_task(app.settled())
        await asyncio.sleep(0.1)
        second = app.run_worker(lambda: None, thread=True, exclusive=True, group="t")
        release.set()
        await asyncio.wait_for(settling, PATIENCE)
        assert first.state is WorkerState.CANCELLED
        assert second.is_finished


async def test_a_scan_replaced_by_a_rescan_leaves_the_rescans_rows(claude_home, monkeypatch):
    """Textual cancels the replaced scan, but its thread runs on: when it ends after the
    rescan, its older rows must not land over the newer ones."""
    from tui.app import summaries

    claude_home.store(folder="-work-one")
    first_scan = HeldFirstCall(summaries.summarize)
    monkeypatch.setattr(summaries, "summarize", first_scan)
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        while not first_scan.entered.is_set():
            await pilot.pause(0.05)
        claude_home.store(folder="-work-two")
        app.screen.action_rescan()
        await settle(app, pilot)
        assert "2 projects in" in str(app.screen.query_one("#scan-status", Static).content)
        first_scan.release()
        assert await pilot_until(pilot, first_scan.answered.is_set)
        await pilot.pause(0.5)  # time for its rows to land, were they posted
        await settle(app, pilot)
        assert "2 projects in" in str(app.screen.query_one("#scan-status", Static).content)
        assert len(app.screen.rows) == 2


async def test_a_home_change_during_a_scan_lets_it_finish_and_is_seen_after(claude_home,
                                                                          monkeypatch):
    """A refresh would replace the scan under way (one scan at a time) and lose what only a
    full scan gives, such as the sync column after a sync: the scan finishes, and the
    change is left for the watcher to see again."""
    from tui.app import summaries
    from tui.app.disk import home_signature
    from tui.app.screens.projects import HomeChanged

    store = claude_home.store(folder="-work-one")
    summarize = summaries.summarize
    reading = threading.Event()
    release = threading.Event()

    def slow(path):
        reading.set()
        release.wait(PATIENCE)
        return summarize(path)

    monkeypatch.setattr(summaries, "summarize", slow)
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        while not reading.is_set():
            await pilot.pause(0.05)
        screen = app.screen
        before = screen.home_seen
        (store / "new.md").write_text("---\nname: new\n---\nA memory Claude just wrote.\n")
        now = home_signature(claude_home.home, screen.scanned.inventory.projects)
        assert now != before
        screen.post_message(HomeChanged(before, now))
        await pilot.pause(0.2)
        release.set()
        await settle(app, pilot)
        assert screen.scanned.summaries is not None  # the scan finished: the rows are whole
        # the watcher polls every 2 s: it sees the change again
        assert await pilot_until(pilot, lambda: screen.rows[0].project.memories == 1)


async def test_counts_past_a_thousand_read_one_way_everywhere(claude_home, tmp_path):
    """`4935/200` beside `28,380/25,000`, `13383 findings`: every count over 999 has its
    thousands separated, in the projects' gauge, the index view and the findings' tally."""
    from conftest import write_index

    from tui.app.screens.store import StoreScreen
    from tui.claude.discovery import discover

    fixture = build_app_home(claude_home, tmp_path)
    lines = [f"- [Lost {n}](lost_{n}.md) — a memory deleted by hand" for n in range(1_200)]
    write_index(fixture.store, lines)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        [row] = cell_texts(app.screen.query_one("#projects", VirtualTable))
        assert row[2].startswith("1,200/200 · ")
        app.push_screen(StoreScreen(discover(fixture.home, fixture.env).projects[0]))
        await settle(app, pilot)
        tally = str(app.screen.query_one("#findings-tally", Static).render())
        assert tally.startswith("1,2") and "1,200 warnings" in tally  # 1,200 dangling, more
        await pilot.press("2")
        await pilot.pause()
        view = app.screen.query_one("#index-view")
        assert view.head_rows()[0].text.startswith("lines 1,200/200   chars ")
