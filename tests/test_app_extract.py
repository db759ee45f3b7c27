"""Extraction from the app: pick a session, run it live, review, apply, undo; skips and force."""

from __future__ import annotations

import pytest
from app_home import FIXED_MTIME, build_app_home
from conftest import memory_saved_record, user_record
from test_app_runs import choices, open_store, phase_statuses, store_bytes, until
from textual.widgets import RichLog

from tui.app.app import MemtuiApp
from tui.app.screens.review import ReviewScreen
from tui.app.screens.run import RunScreen
from tui.app.screens.sessions import SessionPicker
from tui.app.screens.store import StoreScreen
from tui.app.widgets.virtual_table import VirtualTable
from tui.claude.discovery import discover
from tui.render import condense

LINTER = "remember: always run the linter before saying a task is done"


def extract_app(claude_home, tmp_path, *records: dict):
    """The app home plus a newer session with `records`; returns its session id too."""
    fixture = build_app_home(claude_home, tmp_path)
    cwd = str(fixture.project)
    transcript = claude_home.session(cwd, user_record(cwd, "Please fix the flaky test."),
                                     *records, mtime=FIXED_MTIME + 7200)
    project = discover(fixture.home, fixture.env).projects[0]
    return fixture.store, MemtuiApp(fixture.home, fixture.env), project, transcript.stem


def picker_rows(app) -> list[list[str]]:
    """Each session's cells as shown (its id cut to 8 characters), then its full id."""
    table = app.screen.query_one("#sessions-table", VirtualTable)
    return [[*(str(cell) for cell in row.cells), row.key] for row in table.rows]


async def pick_newest_session(app, pilot, project) -> list[list[str]]:
    await open_store(app, pilot, project)
    await pilot.press("x")
    assert isinstance(app.screen, SessionPicker)
    await until(pilot, lambda: len(picker_rows(app)) == 2)
    rows = picker_rows(app)
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, RunScreen))
    return rows


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_picker_names_each_session_by_the_id_the_doctor_uses(claude_home, tmp_path,
                                                                      size):
    """At 80x24 the picker had no id column, while the doctor names sessions by id."""
    _, _, _, session_id = extract_app(claude_home, tmp_path)
    for number in range(30):  # more than a page: the table has a scrollbar
        claude_home.session(tmp_path / "work" / "shop", mtime=FIXED_MTIME - 60 * number)
    fixture_home = claude_home.home
    project = discover(fixture_home, claude_home.env).projects[0]
    app = MemtuiApp(fixture_home, dict(claude_home.env))
    async with app.run_test(size=size) as pilot:
        await open_store(app, pilot, project)
        await pilot.press("x")
        await until(pilot, lambda: len(picker_rows(app)) == 32)
        table = app.screen.query_one("#sessions-table", VirtualTable)
        assert {"session", "new messages", "working directory"} <= set(table.shown_columns)
        assert session_id[:8] in table.render_line(1).text


def log_text(run: RunScreen) -> str:
    return "\n".join(strip.text for strip in run.query_one("#run-log", RichLog).lines)


async def test_an_instruction_in_a_picked_session_becomes_a_feedback_memory_and_undo_restores(
        claude_home, tmp_path):
    store, app, project, session_id = extract_app(
        claude_home, tmp_path, user_record(None, LINTER))
    before = store_bytes(store)
    async with app.run_test(size=(140, 40)) as pilot:
        rows = await pick_newest_session(app, pilot, project)
        assert rows[0][4] == session_id  # newest first
        assert rows[0][1] == session_id[:8]
        assert rows[0][2] == "3 (memtui never ran)"  # "hello", the flaky test, the linter
        assert rows[0][3] == condense(str(tmp_path / "work" / "shop"))
        run = app.screen
        await until(pilot, lambda: run.finished)
        assert phase_statuses(run) == {"Read": "done", "Extract": "done", "Index": "done"}
        assert run.title.startswith(f"extract: session {session_id[:8]}")

        await pilot.press("enter")
        assert isinstance(app.screen, ReviewScreen)
        review = app.screen
        shown = choices(review)
        created = [file for file, choice in shown.items() if choice == "created accept"]
        assert len(created) == 1 and shown["MEMORY.md"] == "modified accept"
        await pilot.press("a")
        await until(pilot, lambda: review.outcome is not None)
        memory = (store / created[0]).read_text()
        assert "type: feedback" in memory
        # The rule itself, without the "remember:" that asked for it.
        assert "\n\nAlways run the linter before saying a task is done\n" in memory
        assert f"({created[0]})" in (store / "MEMORY.md").read_text()

        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, StoreScreen))
    assert store_bytes(store) == before


async def test_after_an_applied_extraction_the_picker_shows_no_new_messages(
        claude_home, tmp_path):
    store, app, project, session_id = extract_app(
        claude_home, tmp_path, user_record(None, LINTER))
    async with app.run_test(size=(140, 40)) as pilot:
        await pick_newest_session(app, pilot, project)
        run = app.screen
        await until(pilot, lambda: run.finished)
        await pilot.press("enter")
        review = app.screen
        await pilot.press("a")
        await until(pilot, lambda: review.outcome is not None)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, StoreScreen))
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker)
                    and len(picker_rows(app)) == 2)
        news = {row[4]: row[2] for row in picker_rows(app)}
        assert news[session_id] == "none"


async def test_a_session_that_wrote_memory_itself_is_skipped_in_one_sentence_unless_forced(
        claude_home, tmp_path):
    store, app, project, _ = extract_app(claude_home, tmp_path)
    cwd = str(tmp_path / "work" / "shop")
    # The newest session: its own agent saved a memory in the range.
    claude_home.session(cwd, user_record(cwd, LINTER),
                        memory_saved_record([str(store / "feedback_linter.md")]),
                        mtime=FIXED_MTIME + 9000)
    project = discover(claude_home.home, claude_home.env).projects[0]
    before = store_bytes(store)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_store(app, pilot, project)
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker)
                    and len(picker_rows(app)) == 3)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        run = app.screen
        await until(pilot, lambda: run.finished)
        assert run.sub_title == "skipped"
        log = " ".join(log_text(run).split())  # the log wraps long lines
        assert log.count("skipped:") == 1
        sentence = log.split("skipped:")[1]
        assert "feedback_linter.md" in sentence and "press f to extract anyway." in sentence
        assert "--force" not in sentence
        await pilot.press("enter")  # nothing to review
        assert app.screen is run and store_bytes(store) == before

        await pilot.press("f")
        await until(pilot, lambda: run.finished and run.sub_title == "succeeded")
        await pilot.press("enter")
        assert isinstance(app.screen, ReviewScreen)
        assert any(choice == "created accept" for choice in choices(app.screen).values())
