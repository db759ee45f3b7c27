"""Topics left when the turn budget runs out are never lost: the cursor stays, a second
pass focused on them reads the same messages, and only a pass that finishes moves on."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from conftest import memory_text, user_record
from fake_anthropic import reply, text, tool

from tui import cli
from tui.agents.client import ClientConfig
from tui.agents.conversation import read_cursor, read_messages
from tui.agents.extract import MAX_TURNS, run_extract
from tui.agents.result import SUCCEEDED, conclude


@pytest.fixture
def session(claude_home, tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    claude_home.store(cwd)
    return claude_home.session(cwd, user_record(str(cwd), "Always run ruff."),
                               user_record(str(cwd), "Use pnpm not npm."))


def config(fake) -> ClientConfig:
    return replace(ClientConfig(api_key="test-key", base_url=fake.url, retry_delay=0.01))


def queue_budget_exhausted(fake) -> None:
    """Plans two topics, writes only the first before the five turns are spent."""
    fake.queue(reply(tool("plan_topics", topics=["ruff before commits", "pnpm not npm"])),
               *[reply(tool("list_files")) for _ in range(MAX_TURNS - 2)],
               reply(tool("write_file", path="feedback_ruff.md", topic="ruff before commits",
                          content=memory_text("ruff", "run ruff", "feedback"))))


def test_topics_left_keep_the_cursor_and_a_focused_second_pass_moves_it(
        fake, claude_home, session):
    queue_budget_exhausted(fake)
    first = run_extract(session.stem, home=claude_home.home, env=claude_home.env,
                        engine="anthropic", config=config(fake))
    assert first.status == SUCCEEDED, first.error
    assert first.topics_left == ("pnpm not npm",)
    assert any("second pass reads the same messages" in n for n in first.changeset.notes)
    outcome = conclude(first, apply=True)
    assert "feedback_ruff.md" in outcome.applied
    assert read_cursor(session.stem) is None  # unchanged: never extracted before

    fake.queue(reply(tool("write_file", path="feedback_pnpm.md", topic="pnpm not npm",
                          content=memory_text("pnpm", "use pnpm", "feedback"))),
               reply(text("Saved the pnpm topic.")))
    second = run_extract(session.stem, home=claude_home.home, env=claude_home.env,
                         engine="anthropic", config=config(fake), focus=("pnpm not npm",))
    assert second.status == SUCCEEDED, second.error
    prompt = fake.requests[MAX_TURNS]["body"]["messages"][0]["content"][0]["text"]
    assert "- pnpm not npm" in prompt and "Use pnpm not npm." in prompt
    assert "ruff before commits" not in prompt.split("Use pnpm not npm.")[1]
    assert second.topics_left == ()
    conclude(second, apply=True)
    assert read_cursor(session.stem) == read_messages(session)[-1].uuid


def test_a_second_pass_stops_where_the_first_ended_so_newer_messages_stay_new(
        fake, claude_home, session):
    queue_budget_exhausted(fake)
    first = run_extract(session.stem, home=claude_home.home, env=claude_home.env,
                        engine="anthropic", config=config(fake))
    conclude(first, apply=True)
    first_end = read_messages(session)[-1].uuid
    with session.open("a", encoding="utf-8") as transcript:  # the session goes on meanwhile
        cwd = str(session.parent)
        transcript.write(json.dumps(user_record(cwd, "Never push on Fridays.")) + "\n")

    fake.queue(reply(tool("write_file", path="feedback_pnpm.md", topic="pnpm not npm",
                          content=memory_text("pnpm", "use pnpm", "feedback"))),
               reply(text("Saved the pnpm topic.")))
    second = run_extract(session.stem, home=claude_home.home, env=claude_home.env,
                         engine="anthropic", config=config(fake), focus=("pnpm not npm",))
    prompt = fake.requests[MAX_TURNS]["body"]["messages"][0]["content"][0]["text"]
    assert "Use pnpm not npm." in prompt and "Never push on Fridays." not in prompt
    conclude(second, apply=True)
    assert read_cursor(session.stem) == first_end  # the Friday message is still ahead


def cli_extract(capsys, claude_home, *flags):
    code = cli.main(["--config-dir", str(claude_home.home), "extract", *flags])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def api_env(fake, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)


def test_cli_json_lists_the_topics_left(fake, api_env, claude_home, session, capsys):
    queue_budget_exhausted(fake)
    code, out, _ = cli_extract(capsys, claude_home, session.stem, "--json", "--yes")
    data = json.loads(out)
    assert code == 0 and data["topics_left"] == ["pnpm not npm"]
    assert "feedback_ruff.md" in data["applied"]
    assert read_cursor(session.stem) is None


def test_cli_without_a_terminal_prints_the_second_pass_command_which_then_works(
        fake, api_env, claude_home, session, capsys):
    queue_budget_exhausted(fake)
    code, out, _ = cli_extract(capsys, claude_home, session.stem, "--yes")
    assert code == 0 and "Topic left for a second pass: pnpm not npm" in out
    command = f"memtui extract {session.stem} --topic 'pnpm not npm'"
    assert f"Second pass: {command}" in out

    fake.queue(reply(tool("write_file", path="feedback_pnpm.md", topic="pnpm not npm",
                          content=memory_text("pnpm", "use pnpm", "feedback"))),
               reply(text("done")))
    code, out, _ = cli_extract(capsys, claude_home, session.stem, "--topics", "pnpm not npm;",
                               "--yes")
    assert code == 0 and "Second pass" not in out
    assert "- pnpm not npm" in fake.requests[-2]["body"]["messages"][0]["content"][0]["text"]
    assert read_cursor(session.stem) == read_messages(session)[-1].uuid


def test_cli_on_a_terminal_asks_and_runs_the_second_pass(
        fake, api_env, claude_home, session, capsys, monkeypatch):
    import sys

    answers = iter(["y", "y", "y"])  # apply, second pass, apply
    asked = []
    monkeypatch.setattr("builtins.input", lambda question: asked.append(question)
                        or next(answers))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    queue_budget_exhausted(fake)
    fake.queue(reply(tool("write_file", path="feedback_pnpm.md", topic="pnpm not npm",
                          content=memory_text("pnpm", "use pnpm", "feedback"))),
               reply(text("done")))
    code, out, _ = cli_extract(capsys, claude_home, session.stem)
    assert code == 0
    assert asked[1] == "Run a second pass on 1 topic now? [y/N] " and len(asked) == 3
    assert read_cursor(session.stem) == read_messages(session)[-1].uuid

async def test_run_screen_offers_a_second_pass_once_the_first_is_applied(
        fake, claude_home, tmp_path, monkeypatch):
    from test_app_extract import extract_app, log_text, pick_newest_session
    from test_app_runs import until

    from tui.app.app import MemtuiApp
    from tui.app.screens.review import ReviewScreen

    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    store, app, project, session_id = extract_app(claude_home, tmp_path,
                                                  user_record(None, "Use pnpm not npm."))
    app = MemtuiApp(app.home, {**app.env, "ANTHROPIC_API_KEY": "test-key",
                               "ANTHROPIC_BASE_URL": fake.url})
    queue_budget_exhausted(fake)
    async with app.run_test(size=(140, 40)) as pilot:
        await pick_newest_session(app, pilot, project)
        run = app.screen
        await until(pilot, lambda: run.finished)
        assert run.result.topics_left == ("pnpm not npm",)
        assert not run.check_action("second_pass", ())  # the first pass is not applied yet
        await pilot.press("enter")
        review = app.screen
        assert isinstance(review, ReviewScreen)
        await pilot.press("a")
        await until(pilot, lambda: review.outcome is not None)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is run)
        assert run.check_action("second_pass", ())
        assert "press p for a second pass on 1 topic" in log_text(run)
        assert read_cursor(session_id) is None

        fake.queue(reply(tool("write_file", path="feedback_pnpm.md", topic="pnpm not npm",
                              content=memory_text("pnpm", "use pnpm", "feedback"))),
                   reply(text("done")))
        await pilot.press("p")
        await until(pilot, lambda: run.finished)
        assert run.result.status == SUCCEEDED and run.result.topics_left == ()
        assert "- pnpm not npm" in fake.requests[-2]["body"]["messages"][0]["content"][0]["text"]
        await pilot.press("enter")
        second_review = app.screen
        assert isinstance(second_review, ReviewScreen) and second_review is not review
        await pilot.press("a")
        await until(pilot, lambda: second_review.outcome is not None)
    assert (store / "feedback_pnpm.md").exists() and (store / "feedback_ruff.md").exists()
    assert read_cursor(session_id) == read_messages(
        next(claude_home.home.rglob(f"{session_id}.jsonl")))[-1].uuid
