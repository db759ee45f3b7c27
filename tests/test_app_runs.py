"""Runs in the app: a dream on the open store, live phases, review per file, apply, undo, cancel."""

from __future__ import annotations

import datetime as dt
import os
import threading

import pytest
from app_home import FIXED_MTIME, build_app_home
from conftest import memory_text, painted, write_memory
from textual.widgets import RichLog, Static
from waiting import PATIENCE, pilot_until

from tui.agents import merging
from tui.app.app import MemtuiApp
from tui.app.screens.review import ReviewScreen
from tui.app.screens.run import RunScreen
from tui.app.screens.store import StoreScreen
from tui.app.widgets.virtual_table import VirtualTable
from tui.claude.discovery import discover
from tui.claude.paths import LOCK_NAME

DUPLICATE_BODY = ("The release train leaves every Tuesday at ten from the main branch.\n"
                  "**Why:** QA needs a stable build for the weekly demo.\n"
                  "**How to apply:** merge before Monday night.\n")


@pytest.fixture
def dream_app(claude_home, tmp_path):
    """The app home plus a near-duplicate pair and a relative date: a dream changes several files."""
    fixture = build_app_home(claude_home, tmp_path)
    store = fixture.store
    write_memory(store, "project_train.md",
                 memory_text("train", "release train schedule", "project", DUPLICATE_BODY),
                 mtime=FIXED_MTIME)
    write_memory(store, "project_train_again.md",
                 memory_text("train again", "release train schedule", "project",
                             DUPLICATE_BODY + "Also: hotfixes skip the train.\n"),
                 mtime=FIXED_MTIME)
    write_memory(store, "project_freeze.md",
                 memory_text("freeze", "the schema freeze", "project",
                             "## 2026-03-10\n\nWe froze the schema yesterday.\n"),
                 mtime=dt.datetime(2026, 3, 10, 12).timestamp())
    project = discover(fixture.home, fixture.env).projects[0]
    return store, MemtuiApp(fixture.home, fixture.env), project


def hold_consolidate(monkeypatch) -> threading.Event:
    """Hold every dream inside its Consolidate phase until the returned event is set."""
    gate = threading.Event()
    merge = merging.merge_duplicates

    def held_merge(staging, log, notes=None, store=None):
        gate.wait(PATIENCE)
        return merge(staging, log, notes, store)

    monkeypatch.setattr(merging, "merge_duplicates", held_merge)
    return gate


def store_bytes(store) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in store.iterdir() if path.is_file()}


async def until(pilot, condition) -> None:
    """Let the app run until `condition()` holds (run and write workers post back)."""
    assert await pilot_until(pilot, condition), "timed out waiting for the app"


async def open_store(app, pilot, project) -> None:
    app.push_screen(StoreScreen(project))
    await until(pilot, lambda: isinstance(app.screen, StoreScreen) and app.screen.store is not None)


async def start_dream(app, pilot, project) -> RunScreen:
    """Open the project's store and press ctrl+d: the dream's run screen."""
    await open_store(app, pilot, project)
    await pilot.press("ctrl+d")
    assert isinstance(app.screen, RunScreen)
    return app.screen


def phase_statuses(screen: RunScreen) -> dict[str, str]:
    table = screen.query_one("#run-phases", VirtualTable)
    return {str(row.cells[0]): str(row.cells[1]) for row in table.rows}


def choices(screen: ReviewScreen) -> dict[str, str]:
    """file -> "kind choice", as the review table shows it."""
    table = screen.query_one("#review-files", VirtualTable)
    return {row.key: f"{row.cells[1]} {row.cells[0]}" for row in table.rows}


async def test_dream_review_reject_one_apply_then_undo(dream_app):
    store, app, project = dream_app
    before = store_bytes(store)
    async with app.run_test(size=(130, 40)) as pilot:
        run = await start_dream(app, pilot, project)
        await until(pilot, lambda: run.finished)
        assert phase_statuses(run) == {"Orient": "done", "Gather": "done", "Consolidate": "done",
                                       "Prune and index": "done"}
        assert "offline engine" in str(run.query_one("#run-engine", Static).content)
        log = "\n".join(strip.text for strip in run.query_one("#run-log", RichLog).lines)
        assert "project_train_again.md" in log  # the merge was logged

        await pilot.press("enter")
        assert isinstance(app.screen, ReviewScreen)
        review = app.screen
        assert choices(review) == {
            "MEMORY.md": "modified accept", "index_notes.md": "created accept",
            "project_freeze.md": "modified accept", "project_train.md": "archived accept",
            "project_train_again.md": "modified accept",  # keeps the other's name: merged_from
        }
        table = review.query_one("#review-files", VirtualTable)
        table.move_cursor([row.key for row in table.rows].index("project_freeze.md"))
        await pilot.press("space")
        assert choices(review)["project_freeze.md"] == "modified reject"
        await pilot.press("a")
        await until(pilot, lambda: review.outcome is not None)

        after = store_bytes(store)
        assert after["project_freeze.md"] == before["project_freeze.md"]  # rejected: untouched
        assert "project_train.md" not in after  # archived: merged into its longer twin
        assert "index_notes.md" in after
        assert "2026-03-09" not in after["project_freeze.md"].decode()
        assert after["MEMORY.md"] != before["MEMORY.md"]
        assert "project_orphan.md" in after["MEMORY.md"].decode()  # the orphan got its line
        assert choices(review)["project_freeze.md"] == "modified rejected"
        assert choices(review)["MEMORY.md"] == "modified applied"

        await pilot.press("u")
        await until(pilot, lambda: not isinstance(app.screen, ReviewScreen))
        restored = store_bytes(store)
        restored.pop(LOCK_NAME, None)  # the consolidation time stays recorded
        assert restored == before
        assert any(n.message.startswith("Undid dream ") and n.message.endswith("U redoes it.")
                   for n in app._notifications)
        await pilot.press("U")  # as it says: the dream comes back on the store screen
        await until(pilot, lambda: store_bytes(store) == after)


async def test_cancel_mid_run_rolls_the_lock_back_and_applies_nothing(dream_app, monkeypatch):
    store, app, project = dream_app
    lock = store / LOCK_NAME
    lock.write_text("")
    os.utime(lock, (FIXED_MTIME, FIXED_MTIME))
    before = store_bytes(store)
    gate = hold_consolidate(monkeypatch)
    async with app.run_test(size=(130, 40)) as pilot:
        run = await start_dream(app, pilot, project)
        await until(pilot, lambda: phase_statuses(run)["Consolidate"] == "running")
        assert lock.read_text().strip() == str(os.getpid())  # the run holds the lock
        await pilot.press("x")
        gate.set()
        await until(pilot, lambda: run.finished)
        assert phase_statuses(run) == {"Orient": "done", "Gather": "done",
                                       "Consolidate": "cancelled", "Prune and index": "pending"}
        assert run.sub_title == "cancelled"
        await pilot.press("enter")  # nothing to review
        assert app.screen is run
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, StoreScreen))
    assert lock.stat().st_mtime == FIXED_MTIME
    assert store_bytes(store) == before


async def test_leaving_review_without_applying_releases_nothing(dream_app):
    store, app, project = dream_app
    before = store_bytes(store)
    async with app.run_test(size=(130, 40)) as pilot:
        run = await start_dream(app, pilot, project)
        await until(pilot, lambda: run.finished)
        await pilot.press("enter", "escape")
        await until(pilot, lambda: isinstance(app.screen, StoreScreen))
    assert store_bytes(store) == before  # no lock left behind, no file changed


def words(widget: Static) -> str:
    """A Static's content as words on one line, however it is laid out (a grid of columns)."""
    return " ".join(painted(widget.content, widget.content_region.width or 120,
                            wrap=True).split())


def notifications(app) -> list[str]:
    return [notification.message for notification in app._notifications]


async def test_a_run_sent_to_the_background_notifies_when_done_and_comes_back(
        dream_app, monkeypatch):
    store, app, project = dream_app
    gate = hold_consolidate(monkeypatch)
    async with app.run_test(size=(130, 40)) as pilot:
        run = await start_dream(app, pilot, project)
        await until(pilot, lambda: phase_statuses(run)["Consolidate"] == "running")
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, StoreScreen))
        gate.set()
        await until(pilot, lambda: any(
            "finished: 5 files to review" in text for text in notifications(app)
        ))
        await pilot.press("ctrl+d")  # shows the finished run instead of starting another
        await until(pilot, lambda: app.screen is run)
        assert set(phase_statuses(run).values()) == {"done"}
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen))
        assert not app.is_screen_installed(run)


def test_the_engine_is_named_and_its_cost_estimated():
    from tui.app.runs import estimated_cost, pick_engine

    assert pick_engine({}).name == "offline"
    engine = pick_engine({"ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_MODEL": "claude-sonnet-4-5"})
    assert engine.describe() == "anthropic engine, model claude-sonnet-4-5"
    assert estimated_cost("claude-sonnet-4-5", 1_000_000, 100_000) == pytest.approx(4.5)
    assert estimated_cost("some-other-model", 10, 10) is None


async def test_the_models_reply_streams_in_under_the_log_until_it_is_logged_whole(dream_app):
    from tui.agents.events import Progress
    from tui.agents.result import FAILED, RunResult
    from tui.app.runs import Engine

    _, app, _ = dream_app
    streamed, gate = threading.Event(), threading.Event()
    long_reply, gate_two = threading.Event(), threading.Event()

    def start(listener, cancel):
        progress = Progress(("Orient",), listener)
        progress.start("Orient")
        for piece in ("Reading ", "the ", "index ", "first."):
            progress.stream(piece)
        streamed.set()
        gate.wait(PATIENCE)
        for n in range(600):  # a long reply, in lines: the newest words stay in view
            progress.stream(f"line {n} of a long plan\n")
        progress.stream("FINAL")
        long_reply.set()
        gate_two.wait(PATIENCE)
        progress.say("model", "Reading the index first.")
        progress.finish()
        return RunResult("dream", "anthropic", FAILED, progress.snapshot(), (), error="stopped")

    engine = Engine("anthropic", None, "claude-test")
    async with app.run_test(size=(120, 40)) as pilot:
        run = RunScreen("dream", "the store", engine, start, ("Orient",), store="s")
        app.push_screen(run)
        await until(pilot, streamed.is_set)
        live = run.query_one("#run-live", Static)
        await until(pilot, lambda: live.display)
        # The pieces reach the screen as messages: the last may still be on its way.
        await until(pilot, lambda: "Reading the index first." in words(live))
        gate.set()
        await until(pilot, long_reply.is_set)
        await until(pilot, lambda: "FINAL" in words(live))
        assert "…" in words(live) and "line 599 of a long plan" in words(live)
        assert len(run.streaming) <= 4_000
        gate_two.set()
        await until(pilot, lambda: run.finished)
        assert not live.display
        log = "\n".join(line.text for line in run.query_one("#run-log", RichLog).lines)
        assert "Reading the index first." in log
