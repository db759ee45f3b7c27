"""`R` on a stranded store's screen: its memories brought into the store its project's
sessions use, after the same confirmation every write goes through."""

from __future__ import annotations

import json

import pytest
from conftest import painted, settle, snapshot
from rescue_home import TABS_LINE, build_rescue_home
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from tui.app.app import MemtuiApp
from tui.app.curation import rescue_confirmation
from tui.app.screens.confirm import ConfirmScreen
from tui.app.screens.store import StoreScreen
from tui.app.widgets.findings import FindingsView
from tui.app.widgets.key_footer import KeyFooter
from tui.claude.discovery import discover
from tui.history.recovery import undo_journalled
from tui.memory import curate
from tui.memory.rescue import Rescue


def project_of(home, store):
    return next(p for p in discover(home.home, home.env).projects if p.store == store)


async def open_store(app, pilot, project) -> StoreScreen:
    app.push_screen(StoreScreen(project))
    await settle(app, pilot)
    return app.screen


@pytest.fixture
def rescue_home(claude_home, tmp_path):
    return build_rescue_home(claude_home, tmp_path)


async def rescue_shown(app, pilot, home) -> str:
    """R pressed on the stranded store's screen: the confirmation's text."""
    await open_store(app, pilot, project_of(home, home.stranded))
    await pilot.press("R")
    await settle(app, pilot)
    assert isinstance(app.screen, ConfirmScreen)
    return " ".join(painted(s.content) for s in app.screen.query(Static))


async def test_r_shows_the_rescue_applies_it_to_the_live_store_and_undo_there_restores(
        rescue_home):
    live_before = snapshot(rescue_home.live, recursive=True)
    stranded_before = snapshot(rescue_home.stranded, recursive=True)
    app = MemtuiApp(rescue_home.home, rescue_home.env)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        listed = await rescue_shown(app, pilot, rescue_home)
        assert f"The memories go to {rescue_home.live}" in listed
        assert "it comes in as feedback_testing-from-shop-wt.md" in listed
        assert f"+{TABS_LINE}" in listed  # the index diff
        await pilot.press("y")
        await settle(app, pilot)
        assert isinstance(app.screen, StoreScreen) and app.screen.path == rescue_home.stranded
        toast = list(app._notifications)[-1]
        assert toast.message.startswith("rescue 4 memories from shop-wt: 5 files changed in "
                                        f"{rescue_home.live}")
        assert f"memtui undo {rescue_home.live}" in toast.message
    assert (rescue_home.live / "topics" / "api.md").exists()
    assert snapshot(rescue_home.stranded, recursive=True) == stranded_before
    undo_journalled(rescue_home.live)
    assert snapshot(rescue_home.live, recursive=True) == live_before


async def test_r_under_a_settings_file_rescues_into_the_store_its_sessions_use(rescue_home,
                                                                                tmp_path):
    """Sessions run with `--settings` keep their memories in its autoMemoryDirectory: the
    app started with the same file brings the stranded memories there."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    flag = tmp_path / "flag-settings.json"
    flag.write_text(json.dumps({"autoMemoryDirectory": str(elsewhere)}))
    live_before = snapshot(rescue_home.live, recursive=True)
    app = MemtuiApp(rescue_home.home, rescue_home.env, flag)
    async with app.run_test(size=(120, 40)) as pilot:
        listed = await rescue_shown(app, pilot, rescue_home)
        assert f"The memories go to {elsewhere}" in listed
        await pilot.press("y")
        await settle(app, pilot)
    assert (elsewhere / "topics" / "api.md").exists()
    assert snapshot(rescue_home.live, recursive=True) == live_before


async def test_the_stranded_finding_names_the_key_and_the_command(rescue_home):
    app = MemtuiApp(rescue_home.home, rescue_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project_of(rescue_home, rescue_home.stranded))
        await pilot.press("3")
        view = app.screen.query_one(FindingsView)
        kinds = [row.finding.kind for row in view.rows]
        view.table.move_cursor(kinds.index("stranded_store"))
        await pilot.pause()
        detail = painted(app.screen.query_one("#findings-detail", Static).content)
        assert "fix: R rescue" in detail
        assert "memtui fix … rescue" in detail
        # The finding's fix is also the stranded screen's own first key: shown once.
        footer = app.screen.query_one(KeyFooter)
        shown = [key.key_display for key in footer.query(FooterKey)]
        assert shown.count("R") == 1, shown


async def test_cancelling_the_rescue_writes_nothing(rescue_home):
    before = snapshot(rescue_home.live, recursive=True)
    app = MemtuiApp(rescue_home.home, rescue_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_store(app, pilot, project_of(rescue_home, rescue_home.stranded))
        await pilot.press("R")
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen and not screen.busy
    assert snapshot(rescue_home.live, recursive=True) == before


async def test_r_on_a_store_that_is_not_stranded_says_so(rescue_home):
    before = snapshot(rescue_home.live, recursive=True)
    app = MemtuiApp(rescue_home.home, rescue_home.env)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await open_store(app, pilot, project_of(rescue_home, rescue_home.live))
        await pilot.press("R")
        await settle(app, pilot)
        assert app.screen is screen
        messages = [n.message for n in app._notifications]
        assert any("is not stranded" in message for message in messages)
    assert snapshot(rescue_home.live, recursive=True) == before


async def test_r_without_a_live_store_says_so_in_one_sentence(claude_home, tmp_path):
    home = build_rescue_home(claude_home, tmp_path, worktree_state=False)
    app = MemtuiApp(home.home, home.env)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await open_store(app, pilot, project_of(home, home.stranded))
        await pilot.press("R")
        await settle(app, pilot)
        assert app.screen is screen and not screen.busy
        messages = [n.message for n in app._notifications]
        assert any(message.startswith(f"No live store was found for {home.stranded}")
                   for message in messages)


def test_a_rescue_whose_live_store_can_no_longer_be_found_says_why(rescue_home):
    """Between the confirmation and the apply the evidence went (the worktree's
    transcripts were deleted): the apply says why it cannot, not that a file changed."""
    from tui.app import curation

    rescue = curation.prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env,
                                     None)
    assert not isinstance(rescue, str), rescue
    before = snapshot(rescue_home.live, recursive=True)
    for transcript in rescue_home.stranded.parent.glob("*.jsonl"):
        transcript.unlink()
    said, severity = curation.apply_rescue(rescue, rescue_home.home, rescue_home.env, None)
    assert severity == "error"
    assert said.startswith(f"No live store was found for {rescue_home.stranded}"), said
    assert snapshot(rescue_home.live, recursive=True) == before


async def test_the_rescue_writes_paths_under_the_home_directory_from_tilde(rescue_home, tmp_path,
                                                                          monkeypatch):
    """A store's path runs over two lines of the confirmation; from `~` it reads at a
    glance, as the app's titles do."""
    monkeypatch.setenv("HOME", str(tmp_path))
    app = MemtuiApp(rescue_home.home, rescue_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        listed = await rescue_shown(app, pilot, rescue_home)
        assert f"The memories go to ~/{rescue_home.live.relative_to(tmp_path)}" in listed
        assert str(tmp_path) not in listed


async def test_r_on_a_rescued_store_offers_its_archive_with_paths_from_tilde(
        rescue_home, tmp_path, monkeypatch):
    from tui.history.recovery import apply_journalled
    from tui.memory.rescue import prepare_rescue

    rescue = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env)
    apply_journalled(rescue.live, rescue.plan.changes, rescue.plan.label)
    monkeypatch.setenv("HOME", str(tmp_path))
    app = MemtuiApp(rescue_home.home, rescue_home.env)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_store(app, pilot, project_of(rescue_home, rescue_home.stranded))
        await pilot.press("R")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        said = " ".join(painted(s.content) for s in app.screen.query(Static))
    assert f"is in ~/{rescue_home.live.relative_to(tmp_path)} already: the rescue is done" in said
    assert str(tmp_path) not in said


def test_condensed_paths_are_whole_paths_under_the_home_directory():
    from tui.render import condense_paths

    assert condense_paths("go to /home/u/.claude/x: in /home/u/code (the path /home/u).",
                          "/home/u") == "go to ~/.claude/x: in ~/code (the path ~)."
    assert condense_paths("/home/u/a, /tmp/home/u/b and /home/user2/c", "/home/u/") == \
        "~/a, /tmp/home/u/b and /home/user2/c"


@pytest.mark.parametrize(("options", "keys"), [
    ((curate.MOVE_OUT,), "m"),
    ((curate.REMOVE_DANGLING, curate.MOVE_OUT), "d or m"),
    ((curate.REMOVE_DANGLING, curate.SHORTEN_LINES, curate.MOVE_OUT), "d, S or m"),
])
def test_a_rescue_that_would_push_entries_out_names_only_the_keys_that_make_room(
        tmp_path, options, keys):
    plan = curate.Plan("rescue 1 memory", (), ["Copy a.md."], ("m200.md",), options)
    confirmation = rescue_confirmation(Rescue(tmp_path / "old", tmp_path / "live", plan))
    assert confirmation.summary[-1] == (f"To make room first, open {tmp_path / 'live'} and "
                                        f"press {keys} there.")



async def test_after_the_rescue_the_store_is_done_and_r_offers_to_archive_it_undoably(
        rescue_home):
    stranded_before = snapshot(rescue_home.stranded, recursive=True)
    app = MemtuiApp(rescue_home.home, rescue_home.env)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await rescue_shown(app, pilot, rescue_home)
        await pilot.press("y")  # the rescue
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("3")
        await settle(app, pilot)
        view = screen.query_one(FindingsView)
        found = {row.finding.kind: row.finding.severity for row in view.rows}
        assert found.get("rescued_store") == "info" and "stranded_store" not in found
        assert "error" not in found.values()

        await pilot.press("R")  # again: the store is done, the offer is to archive it
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        shown = " ".join(painted(s.content) for s in app.screen.query(Static))
        assert "the rescue is done" in shown and "memtui's archive" in shown
        await pilot.press("y")
        await settle(app, pilot)
        assert app.screen is screen
        assert not any(path.is_file() for path in rescue_home.stranded.rglob("*"))
        await pilot.press("u")
        await settle(app, pilot)
    assert snapshot(rescue_home.stranded, recursive=True) == stranded_before


async def test_the_projects_screen_calls_a_store_rescued_once_every_memory_is_home(rescue_home):
    from tui.app.screens.projects import COLUMNS
    from tui.app.widgets.virtual_table import VirtualTable
    from tui.history.recovery import apply_journalled
    from tui.memory.rescue import prepare_rescue
    from tui.render import condense

    async def status() -> str:
        app = MemtuiApp(rescue_home.home, rescue_home.env)
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(app, pilot)
            table = app.screen.query_one("#projects", VirtualTable)
            [row] = [r for r in table.rows if str(r.cells[0]) == condense(str(rescue_home.worktree))]
            return dict(zip((key for key, _ in COLUMNS), map(str, row.cells), strict=True))["status"]

    assert await status() == "stranded"
    rescue = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env)
    apply_journalled(rescue.live, rescue.plan.changes, rescue.plan.label)
    assert await status() == "rescued"
