"""The app on a repository whose every path is gone: one row, its store, its sessions.

Runs on synthetic transcripts and, when `../shared` is there, on the real ones.
"""

from __future__ import annotations

import pytest
from conftest import settle
from spotter_home import LAYOUTS, MAIN_CWD, WORKTREE_CWDS
from test_app_extract import picker_rows
from test_app_runs import until
from textual.widgets._toast import Toast

from tui.app.app import MemtuiApp
from tui.app.screens.projects import COLUMNS
from tui.app.screens.sessions import SessionPicker
from tui.app.screens.store import StoreScreen
from tui.app.widgets.virtual_table import VirtualTable
from tui.render import condense


@pytest.fixture(params=LAYOUTS)
def spotter(request, claude_home):
    return request.param(claude_home)


async def press_enter_on(app, pilot, path: str) -> None:
    table = app.screen.query_one("#projects", VirtualTable)
    labels = [str(row.cells[0]) for row in table.rows]
    assert labels.count(condense(path)) == 1, labels
    table.move_cursor(labels.index(condense(path)))
    await pilot.press("enter")


async def test_one_row_per_path_and_enter_opens_the_gone_checkouts_store(spotter):
    app = MemtuiApp(spotter.home.home, spotter.home.env)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects", VirtualTable)
        assert sorted(str(row.cells[0]) for row in table.rows) == sorted(
            condense(path) for path in (MAIN_CWD, *WORKTREE_CWDS))
        (row,) = [r for r in table.rows if str(r.cells[0]) == condense(MAIN_CWD)]
        cells = dict(zip((key for key, _ in COLUMNS), map(str, row.cells), strict=True))
        # Its sessions count toward the next dream: never consolidated, 3 sessions since.
        assert (cells["memories"], cells["folders"], cells["since"]) == ("1", "1", "3")
        assert cells["status"] == "stranded"
        await press_enter_on(app, pilot, MAIN_CWD)
        await until(pilot, lambda: isinstance(app.screen, StoreScreen)
                    and app.screen.store is not None)
        assert app.screen.path == spotter.store
        assert [m.file for m in app.screen.store.memories] == ["feedback_testing.md"]


async def test_the_extract_picker_lists_the_gone_checkouts_sessions(spotter):
    app = MemtuiApp(spotter.home.home, spotter.home.env)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        await press_enter_on(app, pilot, MAIN_CWD)
        await until(pilot, lambda: isinstance(app.screen, StoreScreen)
                    and app.screen.store is not None)
        await pilot.press("x")
        assert isinstance(app.screen, SessionPicker)
        await until(pilot, lambda: len(picker_rows(app)) == len(spotter.main_session_ids))
        rows = picker_rows(app)
        assert sorted(row[4] for row in rows) == list(spotter.main_session_ids)
        assert {row[3] for row in rows} == {f"{condense(MAIN_CWD)} (deleted)"}


async def test_enter_on_a_worktree_folder_says_why_it_has_no_store(spotter):
    app = MemtuiApp(spotter.home.home, spotter.home.env)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await settle(app, pilot)
        await press_enter_on(app, pilot, WORKTREE_CWDS[0])
        await pilot.pause()
        [toast] = app.screen.query(Toast)
        assert toast.render().plain == (
            f"{condense(WORKTREE_CWDS[0])} has no memory store: its sessions ran in "
            f"{WORKTREE_CWDS[0]}, which no longer exists, and no transcript names the store "
            "they used (no memory write, no worktree origin).")
