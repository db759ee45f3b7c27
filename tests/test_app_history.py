"""History in the app: lost updates merged back from the overwrites screen, file history.

Transcripts come from the builders of test_history_transcripts (Claude Code 2.1.x record
shapes): two sessions in two worktrees of one repository share one memory store.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from conftest import HeldFirstCall, painted, settle
from textual.widgets import Static
from waiting import pilot_until

from tests.conftest import add_worktree, make_repo, memory_text, real
from tests.test_history_transcripts import (
    A_LINE,
    B_LINE,
    BASE,
    START,
    Session,
    clashing_rewrites,
)
from tui.app.app import MemtuiApp
from tui.app.screens.confirm import ConfirmScreen
from tui.app.screens.history import HistoryScreen
from tui.app.screens.overwrites import OverwritesScreen
from tui.app.screens.store import StoreScreen
from tui.app.widgets.virtual_table import VirtualTable
from tui.claude import paths
from tui.claude.discovery import discover
from tui.history.journal import Journal
from tui.memory import writes


def rows(table: VirtualTable) -> list[list[str]]:
    return [[str(cell) for cell in row.cells] for row in table.rows]


def project_of(claude, store):
    return next(p for p in discover(claude.home, claude.env).projects if p.store == store)


async def open_store(app, pilot, project) -> StoreScreen:
    app.push_screen(StoreScreen(project))
    await settle(app, pilot)
    assert isinstance(app.screen, StoreScreen)
    return app.screen


@pytest.fixture
def overwritten(tmp_path, claude_home):
    """Session B in worktree b blindly overwrote the line session A in worktree a added."""
    repo = make_repo(tmp_path / "shop")
    tree_a = real(add_worktree(repo, tmp_path / "shop-wt-a", "feature-a"))
    tree_b = real(add_worktree(repo, tmp_path / "shop-wt-b", "feature-b"))
    store = claude_home.store(real(tmp_path / "shop"))
    memory = store / "feedback_testing.md"
    memory.write_text(BASE, encoding="utf-8")
    a = Session(claude_home, tree_a, "feature-a", START)
    b = Session(claude_home, tree_b, "feature-b", START + timedelta(seconds=30))
    a.read(memory, BASE)
    b.read(memory, BASE)
    a.clock = START + timedelta(minutes=5)
    a.write(memory, BASE + A_LINE + "\n", BASE)
    b.clock = START + timedelta(minutes=10)
    b.write(memory, BASE + B_LINE + "\n", BASE + A_LINE + "\n")
    a.save()
    b.save()
    (store / "MEMORY.md").write_text("- [testing](feedback_testing.md) — how we test\n",
                                     encoding="utf-8")
    return claude_home, store, memory, tree_a, tree_b


async def test_overwrites_screen_merges_the_lost_line_back_and_undo_restores(overwritten):
    claude, store, memory, tree_a, tree_b = overwritten
    before_merge = memory.read_bytes()
    app = MemtuiApp(claude.home, claude.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project_of(claude, store))
        await pilot.press("o")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, OverwritesScreen)
        [row] = rows(screen.query_one("#overwrites", VirtualTable))
        assert row[0] == "1 lost" and row[2] == "feedback_testing.md"
        assert tree_b.name in row[3] and tree_a.name in row[4]
        assert A_LINE in painted(screen.query_one("#overwrite-text", Static).content)

        await pilot.press("m")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        preview = painted(app.screen.query_one("#confirm-preview", Static).content)
        assert f"+{A_LINE}" in preview
        summary = " ".join(painted(s.content) for s in app.screen.query("#confirm-summary Static"))
        assert "1 lost line goes back into feedback_testing.md" in summary
        assert memory.read_bytes() == before_merge  # nothing written before the yes
        await pilot.press("y")
        await settle(app, pilot)

        merged = memory.read_text(encoding="utf-8")
        assert A_LINE in merged and B_LINE in merged and merged.startswith(BASE)
        assert app.screen is screen
        assert rows(screen.query_one("#overwrites", VirtualTable))[0][0] == "1 back"

        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, StoreScreen)
        await pilot.press("u")
        await settle(app, pilot)
        assert memory.read_bytes() == before_merge


async def test_merge_with_a_conflict_writes_nothing_and_shows_both_sides(tmp_path, claude_home):
    repo = make_repo(tmp_path / "shop")
    tree_a = real(add_worktree(repo, tmp_path / "shop-wt-a", "feature-a"))
    tree_b = real(add_worktree(repo, tmp_path / "shop-wt-b", "feature-b"))
    store = claude_home.store(real(tmp_path / "shop"))
    memory = store / "feedback_testing.md"
    clashing_rewrites(claude_home, tree_a, tree_b, memory)
    before = memory.read_bytes()
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(OverwritesScreen(project_of(claude_home, store)))
        await settle(app, pilot)
        await pilot.press("m")
        await settle(app, pilot)
        assert isinstance(app.screen, OverwritesScreen)  # no confirmation to say yes to
        detail = painted(app.screen.query_one("#overwrite-text", Static).content)
        assert "Run the suite in parallel." in detail and "Run only the fast tests." in detail
    assert memory.read_bytes() == before


@pytest.fixture
def two_versions(tmp_path, claude_home):
    """A memory whose journal holds an older and a newer version."""
    project_dir = tmp_path / "garden"
    project_dir.mkdir()
    claude_home.session(project_dir)
    store = claude_home.store(project_dir)
    memory = store / "feedback_watering.md"
    old = memory_text(name="watering", body="Water the tomatoes at dawn.\n")
    new = memory_text(name="watering", body="Water the tomatoes at dusk.\n")
    (store / "MEMORY.md").write_text("- [watering](feedback_watering.md) — when to water\n",
                                     encoding="utf-8")
    memory.write_text(old, encoding="utf-8")
    journal = Journal(store)
    journal.snapshot("first version", when=1_750_000_000)
    memory.write_text(new, encoding="utf-8")
    journal.snapshot("second version", when=1_750_003_600)
    return claude_home, store, memory, old, new


async def test_history_lists_versions_diffs_them_and_restores_the_old_one(two_versions):
    claude, store, memory, old, new = two_versions
    app = MemtuiApp(claude.home, claude.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project_of(claude, store))
        await pilot.press("h")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        table = screen.query_one("#versions", VirtualTable)
        assert [row[5] for row in rows(table)] == ["second version", "first version"]

        unified = painted(screen.query_one("#diff-body", Static).content)
        assert "-Water the tomatoes at dawn." in unified
        assert "+Water the tomatoes at dusk." in unified
        await pilot.press("s")
        side_by_side = painted(screen.query_one("#diff-body", Static).content)
        line = next(text for text in side_by_side.splitlines() if "dawn" in text)
        assert "dusk" in line  # the old and the new line face each other

        await pilot.press("down", "r")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "+Water the tomatoes at dawn." in painted(app.screen.query_one("#confirm-preview", Static).content)
        await pilot.press("y")
        await settle(app, pilot)
        assert memory.read_text(encoding="utf-8") == old
        assert len(rows(table)) == 3  # the restore is a version of its own

    assert writes.undo_last(store) is not None
    assert memory.read_text(encoding="utf-8") == new


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_detail_pane_gets_room_to_read_at_80_and_at_160_columns(overwritten, size):
    claude, store, *_ = overwritten
    app = MemtuiApp(claude.home, claude.env)
    async with app.run_test(size=size) as pilot:
        await open_store(app, pilot, project_of(claude, store))
        for key, table_id, detail_id, first in (("o", "#overwrites", "#overwrite-detail", "file"),
                                                ("h", "#versions", "#diff-pane", "time")):
            await pilot.press(key)
            await settle(app, pilot)
            table = app.screen.query_one(table_id, VirtualTable)
            detail = app.screen.query_one(detail_id)
            assert first in table.shown_columns and len(table.shown_columns) >= 3
            assert len(table.rows) >= 1 and table.size.height >= 4  # header and 3 rows
            if size == (80, 24):  # one above the other, the detail as wide as the screen
                assert detail.content_size.width >= 70 and detail.content_size.height >= 10
            else:  # side by side, the table whole
                assert detail.content_size.width >= 60
                assert table.region.right <= detail.region.x
            await pilot.press("escape")
            await settle(app, pilot)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_lost_updates_table_says_who_overwrote_and_when(overwritten, size):
    claude, store, _, _, tree_b = overwritten
    [b_id] = [p.stem for p in claude.folder(paths.sanitize(str(tree_b))).glob("*.jsonl")]
    app = MemtuiApp(claude.home, claude.env)
    async with app.run_test(size=size) as pilot:
        app.push_screen(OverwritesScreen(project_of(claude, store)))
        await settle(app, pilot)
        table = app.screen.query_one("#overwrites", VirtualTable)
        assert {"lines", "time", "file", "by"} <= set(table.shown_columns)
        row = "".join(segment.text for segment in table.render_line(1))
    assert "2026-03-01" in row and "1 lost" in row  # more than half a year ago: the date
    assert f"{b_id[:8]} in {tree_b.name}" in row
    assert "feedback_testing.md" in row


async def test_merging_from_the_app_keeps_a_byte_that_is_not_utf8(overwritten):
    claude, store, memory, _, _ = overwritten
    memory.write_bytes(memory.read_bytes() + b"- Caf\xe9 at ten, written by hand in Latin-1.\n")
    before = memory.read_bytes()
    app = MemtuiApp(claude.home, claude.env)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(OverwritesScreen(project_of(claude, store)))
        await settle(app, pilot)
        await pilot.press("m")
        await settle(app, pilot)
        assert "Caf\\xe9" in painted(app.screen.query_one("#confirm-preview", Static).content)
        await pilot.press("y")
        await settle(app, pilot)
    assert memory.read_bytes() == before + A_LINE.encode() + b"\n"


async def test_a_lost_update_by_untracked_writers_reads_as_words_and_shows_control_characters(
        tmp_path, claude_home):
    store = claude_home.store(real(make_repo(tmp_path / "shop").working_dir))
    memory = store / "feedback_colour.md"
    evil = "- Colour with \x1b[31mred\x1b[0m; \u202eevil"
    journal = Journal(store)
    for text in (BASE, BASE + evil + "\n", BASE + B_LINE + "\n"):  # as `memtui watch` saw them
        memory.write_text(text, encoding="utf-8")
        journal.snapshot("seen by watch", source="watch")
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(OverwritesScreen(project_of(claude_home, store)))
        await settle(app, pilot)
        detail = " ".join(painted(app.screen.query_one("#overwrite-text", Static).content).split())
    assert "by an untracked writer (extraction, dream or a person)," in detail
    assert "session an untracked" not in detail
    assert "␛[31mred␛[0m; <U+202E>evil" in detail


async def test_a_rescan_of_lost_updates_is_not_undone_by_the_scan_it_replaced(overwritten,
                                                                            monkeypatch):
    """f5 while a scan runs: Textual cancels the first, but its thread runs on, and what it
    found (here: nothing, as if it had read the transcripts before the overwrite) must not
    land over the rescan's answer when it ends last."""
    from tui.history import recovery

    claude, store, *_ = overwritten
    app = MemtuiApp(claude.home, claude.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)  # the projects screen's scan, which counts lost updates too
        first_scan = HeldFirstCall(recovery.all_lost_updates, first=lambda *_: [])
        monkeypatch.setattr(recovery, "all_lost_updates", first_scan)
        app.push_screen(OverwritesScreen(project_of(claude, store)))
        while not first_scan.entered.is_set():
            await pilot.pause(0.05)
        await pilot.press("f5")
        await settle(app, pilot)
        table = app.screen.query_one("#overwrites", VirtualTable)
        assert [row[0] for row in rows(table)] == ["1 lost"]
        first_scan.release()
        assert await pilot_until(pilot, first_scan.answered.is_set)
        await pilot.pause(0.5)  # time for its rows to land, were they posted
        await settle(app, pilot)
        assert [row[0] for row in rows(table)] == ["1 lost"]
        assert "1 lost update:" in painted(app.screen.query_one("#overwrites-status", Static).content)


async def test_a_damaged_journal_is_moved_aside_by_the_history_and_lost_updates_screens(
        two_versions):
    import shutil

    from tests.test_history_transcripts import _journal_git
    from tui.xdg import journal_dir

    claude, store, *_ = two_versions
    path = journal_dir(store)
    for pack in list((path / "objects" / "pack").glob("*.pack")):
        data = pack.read_bytes()
        pack.unlink()
        pack.with_suffix(".idx").unlink()
        _journal_git(store, "unpack-objects", "-q", data=data)
    first = _journal_git(store, "rev-parse", "main~1^{tree}").strip()
    (path / "objects" / first[:2] / first[2:]).unlink()  # the tip stays readable
    damaged = path.with_name("damaged-copy")
    shutil.copytree(path, damaged)
    app = MemtuiApp(claude.home, claude.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project_of(claude, store))
        for key, status in (("h", "#history-status"), ("o", "#overwrites-status")):
            for old in path.parent.glob("*.broken-*"):
                shutil.rmtree(old)
            shutil.rmtree(path)
            shutil.copytree(damaged, path)
            await pilot.press(key)
            await settle(app, pilot)
            said = " ".join(painted(app.screen.query_one(status, Static).content).split())
            [moved] = path.parent.glob("*.broken-*")
            assert f"The journal of {store} was damaged (" in said
            assert f"moved aside to {moved} and a new one started" in said
            assert "Could not" not in said and "cmdline" not in said and "Cmd(" not in said
            await pilot.press("escape")
            await settle(app, pilot)


async def test_the_projects_lost_column_counts_only_lost_updates_still_missing(overwritten):
    from tui.app.screens.projects import ProjectsScreen, ProjectTable

    claude, store, memory, _, _ = overwritten

    async def lost_column() -> str:
        app = MemtuiApp(claude.home, claude.env)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            assert isinstance(app.screen, ProjectsScreen)
            table = app.screen.query_one("#projects", ProjectTable)
            column = [key for key, _ in table.columns].index("lost")
            return str(table.rows[0].cells[column])

    assert await lost_column() == "1"
    memory.write_text(memory.read_text(encoding="utf-8") + A_LINE + "\n", encoding="utf-8")
    assert await lost_column() == "0"  # put back by hand: nothing left to merge


async def test_the_lost_column_stops_counting_a_lost_update_merged_back_in_the_app(overwritten):
    """Merged back on the overwrites screen, the projects screen still said 1 lost: it
    counted again only when a session or a checkout came or went."""
    from tui.app.screens.projects import ProjectsScreen, ProjectTable

    claude, store, memory, _, _ = overwritten
    app = MemtuiApp(claude.home, claude.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        projects = app.screen
        assert isinstance(projects, ProjectsScreen)
        table = projects.query_one("#projects", ProjectTable)
        column = [key for key, _ in table.columns].index("lost")
        assert await pilot_until(pilot, lambda: str(table.rows[0].cells[column]) == "1")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, StoreScreen)
        await pilot.press("o")
        await settle(app, pilot)
        await pilot.press("m")
        await settle(app, pilot)
        await pilot.press("y")
        await settle(app, pilot)
        assert A_LINE in memory.read_text(encoding="utf-8")
        await pilot.press("escape", "escape")
        await settle(app, pilot)
        assert app.screen is projects
        assert await pilot_until(pilot, lambda: str(table.rows[0].cells[column]) == "0",
                                 timeout=30)
