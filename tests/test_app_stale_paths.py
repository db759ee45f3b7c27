"""Stale paths in the app: the finding on the Findings tab with the key that fixes it, and
"update renamed paths" in the command palette, each previewed and undoable."""

from __future__ import annotations

import pytest
from code_repos import shop_repo
from conftest import (
    index_line,
    memory_text,
    painted,
    real,
    settle,
    snapshot,
    write_index,
    write_memory,
)
from textual.widgets import Static

from tui.app.app import MemtuiApp
from tui.app.screens.confirm import ConfirmScreen
from tui.app.screens.store import StoreScreen
from tui.app.widgets.virtual_table import VirtualTable
from tui.claude.discovery import discover

BODY = ("Charges live in `src/billing/old_api.py`.\nSetup: docs/setup.md\n"
        "**Why:** x.\n**How to apply:** y.\n")


@pytest.fixture
def shop_home(claude_home, fake_home):
    shop = real(shop_repo(fake_home / "code" / "shop"))
    claude_home.session(shop)
    store = claude_home.store(shop)
    write_memory(store, "project_billing.md",
                 memory_text("billing", "where billing code lives", "project", BODY))
    write_index(store, [index_line("project_billing.md")])
    return claude_home, store


async def open_store(app, pilot, claude_home) -> StoreScreen:
    [project] = discover(claude_home.home, claude_home.env).projects
    screen = StoreScreen(project)
    app.push_screen(screen)
    await settle(app, pilot)
    return screen


def stale_rows(screen: StoreScreen) -> list:
    table = screen.query_one("#findings-table", VirtualTable)
    return [row.finding for row in table.rows if row.finding.kind == "stale_path"]


async def test_p_on_a_stale_path_finding_shows_the_rewrite_applies_it_and_u_undoes_it(shop_home):
    claude_home, store = shop_home
    before = snapshot(store)
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_store(app, pilot, claude_home)
        await pilot.press("3")
        assert [(f.target, f.other) for f in stale_rows(screen)] == [
            ("src/billing/old_api.py", "src/payments/api.py"), ("docs/setup.md", None)]
        table = screen.query_one("#findings-table", VirtualTable)
        kinds = [row.finding.target for row in table.rows]
        table.move_cursor(kinds.index("src/billing/old_api.py"))
        await pilot.pause()
        detail = screen.query_one("#findings-detail", Static).render()
        assert "fix: p update paths" in str(detail)
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.plan.label == "update 1 renamed path"
        diff = painted(app.screen.query_one("#confirm-preview", Static).content)
        assert "-Charges live in `src/billing/old_api.py`." in diff
        assert "+Charges live in `src/payments/api.py`." in diff
        assert snapshot(store) == before  # shown, not written
        await pilot.press("y")
        await settle(app, pilot)
        assert "`src/payments/api.py`" in (store / "project_billing.md").read_text()
        assert [f.target for f in stale_rows(screen)] == ["docs/setup.md"]
        await pilot.press("u")
        await settle(app, pilot)
        assert snapshot(store) == before


async def test_a_deleted_path_offers_edit_and_archive_not_the_rewrite(shop_home):
    claude_home, store = shop_home
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_store(app, pilot, claude_home)
        await pilot.press("3")
        table = screen.query_one("#findings-table", VirtualTable)
        table.move_cursor([row.finding.target for row in table.rows].index("docs/setup.md"))
        await pilot.pause()
        detail = str(screen.query_one("#findings-detail", Static).render())
        assert "fix: e edit · a archive" in detail and "update paths" not in detail


async def test_the_palette_updates_every_renamed_path_of_the_store(shop_home):
    claude_home, store = shop_home
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, claude_home)
        await pilot.press("ctrl+p")
        await pilot.press(*"update renamed paths")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.plan.summary[0] == ("Write src/payments/api.py for "
                                              "src/billing/old_api.py (project_billing.md "
                                              "line 7).")
