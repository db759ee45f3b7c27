"""Snapshots of every screen, on the demo config home with a fixed clock, path and timezone.

Store keys (the sanitized project paths) show on screen, so the demo is built at one fixed
path; a lock file keeps two test runs on the same machine from building it at once.
Accept changed screens with `pytest tests/test_app_snapshots.py --snapshot-update` after
looking at the SVGs under tests/__snapshots__/.
"""

from __future__ import annotations

import fcntl
import shutil
import time
from pathlib import Path

import pytest
from conftest import settle
from textual.widgets import TabbedContent

from tui.app.app import MemtuiApp
from tui.app.widgets.virtual_table import VirtualTable
from tui.demo import build_demo

ROOT = Path("/tmp/memtui-snapshots")
LOCK = Path("/tmp/memtui-snapshots.lock")
NOW = 1_767_225_600.0  # 2026-01-01 00:00 UTC: the demo's and the app's clock
SIZE = (120, 40)


@pytest.fixture
def app(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    monkeypatch.setenv("HOME", str(ROOT))  # paths read `~/code/webapp`
    with LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            demo = build_demo(ROOT, now=NOW)
            yield MemtuiApp(demo.home, {"CLAUDE_CONFIG_DIR": str(demo.home)}, now=NOW)
        finally:
            shutil.rmtree(ROOT, ignore_errors=True)
    monkeypatch.undo()
    time.tzset()


async def open_webapp(pilot) -> None:
    """From the projects screen, open the demo's big store (past the cut, with orphans)."""
    await settle(pilot.app, pilot)
    table = pilot.app.screen.query_one("#projects", VirtualTable)
    paths = [str(row.cells[0]) for row in table.rows]
    table.move_cursor(paths.index("~/code/webapp"))
    await pilot.press("enter")
    await settle(pilot.app, pilot)


def test_projects_screen(snap_compare, app):
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: settle(app, pilot))


def test_store_memories_tab(snap_compare, app):
    assert snap_compare(app, terminal_size=SIZE, run_before=open_webapp)


def test_store_index_tab_shows_the_cut_rule(snap_compare, app):
    assert snap_compare(app, press=["2"], terminal_size=SIZE, run_before=open_webapp)


def test_store_findings_tab(snap_compare, app):
    assert snap_compare(app, press=["3"], terminal_size=SIZE, run_before=open_webapp)


def test_store_recall_tab_with_a_query(snap_compare, app):
    press = ["4", *"checkout latency dashboard"]
    assert snap_compare(app, press=press, terminal_size=SIZE, run_before=open_webapp)


def test_relink_confirmation(snap_compare, app):
    assert snap_compare(app, press=["r"], terminal_size=SIZE, run_before=open_webapp)


def test_help_panel(snap_compare, app):
    assert snap_compare(app, press=["f1"], terminal_size=SIZE, run_before=open_webapp)


async def test_escape_leaves_the_recall_query_so_digits_switch_tabs(app):
    async with app.run_test(size=SIZE) as pilot:
        await open_webapp(pilot)
        await pilot.press("4", *"deploy", "escape", "2")
        assert app.screen.query_one("#store-tabs", TabbedContent).active == "index"
        assert app.screen.query_one("#recall-query").value == "deploy"


async def test_c_scrolls_the_index_back_to_the_cut_rule(app):
    async with app.run_test(size=SIZE) as pilot:
        await open_webapp(pilot)
        await pilot.press("2")
        await pilot.pause()
        view = app.screen.query_one("#index-view")
        at_cut = view.scroll_y
        assert at_cut > 0  # a cut index opens at the rule, not at line 1
        await pilot.press("home")
        assert view.scroll_y == 0
        await pilot.press("c")
        await pilot.pause()
        assert view.scroll_y == at_cut
