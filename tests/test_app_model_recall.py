"""Recall with the model in the recall tab, against the fake Messages API."""

from __future__ import annotations

import json

from app_home import build_app_home
from conftest import painted
from fake_anthropic import failure, reply, text, tool
from test_app_runs import open_store, until
from textual.widgets import Static

from tui.app.app import MemtuiApp
from tui.claude.discovery import discover


def model_env(fake, **overrides: str) -> dict[str, str]:
    """The environment of a user whose key reaches the fake Messages API."""
    return {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.url, **overrides}


def recall_app(claude_home, tmp_path, extra_env: dict[str, str]):
    fixture = build_app_home(claude_home, tmp_path)
    env = {**fixture.env, **extra_env}
    project = discover(fixture.home, env).projects[0]
    return MemtuiApp(fixture.home, env), project


def shown(app, selector: str) -> str:
    return painted(app.screen.query_one(selector, Static).content, wrap=True)


def model_column(app) -> str:
    return shown(app, "#recall-model")


async def ask(app, pilot, project, question: str) -> None:
    await open_store(app, pilot, project)
    await pilot.press("4")
    app.screen.query_one("#recall-query").value = question
    await pilot.press("enter")


async def test_the_model_column_shows_the_models_picks_from_descriptions_only(
        claude_home, tmp_path, fake):
    fake.queue(reply(tool("pick_memories",
                          files=["reference_dashboards.md", "no_such_file.md"])))
    app, project = recall_app(claude_home, tmp_path, model_env(fake))
    async with app.run_test(size=(160, 40)) as pilot:
        await ask(app, pilot, project, "where is the checkout latency graph?")
        await until(pilot, lambda: "for “where is" in model_column(app))
        column = model_column(app)
        assert "reference_dashboards.md" in column
        assert "grafana dashboards for checkout latency" in column
        assert "no_such_file.md" not in column  # a name outside the store is dropped
        offline = shown(app, "#recall-results")
        assert "reference_dashboards.md" in offline  # the offline matcher stays beside it

    sent = json.dumps(fake.requests[0]["body"])
    assert "grafana dashboards for checkout latency" in sent  # a description
    assert "[reference]" in sent  # and its type
    assert "grafana.internal/d/checkout" not in sent  # never a body
    assert "Prefers Go and Postgres" not in sent


async def test_a_reply_in_plain_json_is_understood_too(claude_home, tmp_path, fake):
    fake.queue(reply(text('Here you go: {"files": ["user_role.md"]}')))
    app, project = recall_app(claude_home, tmp_path, model_env(fake))
    async with app.run_test(size=(160, 40)) as pilot:
        await ask(app, pilot, project, "what languages does the user like?")
        await until(pilot, lambda: "for “what" in model_column(app))
        assert "user_role.md" in model_column(app)


async def test_a_rejected_key_is_one_sentence_in_the_model_column(claude_home, tmp_path, fake):
    app, project = recall_app(claude_home, tmp_path, model_env(fake, ANTHROPIC_API_KEY="wrong-key"))
    async with app.run_test(size=(160, 40)) as pilot:
        await ask(app, pilot, project, "how do we test?")
        await until(pilot, lambda: "(401)" in model_column(app))
        column = model_column(app)
        assert "The API rejected the key (401)" in column
        assert "Traceback" not in column
    assert len(fake.requests) == 1


async def test_a_model_error_is_not_mistaken_for_picks(claude_home, tmp_path, fake):
    fake.queue(failure(404, "not_found_error"))
    app, project = recall_app(claude_home, tmp_path, model_env(fake, ANTHROPIC_MODEL="claude-nope"))
    async with app.run_test(size=(160, 40)) as pilot:
        await ask(app, pilot, project, "how do we test?")
        await until(pilot, lambda: "claude-nope" in model_column(app)
                    and "not found" in model_column(app))


async def test_without_a_key_the_tab_says_what_the_model_column_needs(claude_home, tmp_path):
    app, project = recall_app(claude_home, tmp_path, {})
    async with app.run_test(size=(160, 40)) as pilot:
        await ask(app, pilot, project, "how do we test?")
        await until(pilot, lambda: "needs ANTHROPIC_API_KEY" in model_column(app)
                    and "feedback_testing.md" in shown(app, "#recall-results"))


def _pnpm_memories(store) -> None:
    """Three memories that answer "which package manager", none in those words, one
    saying them in its text (which the selector never reads)."""
    from conftest import memory_text, write_memory

    write_memory(store, "feedback_pnpm.md", memory_text(
        "pnpm", "Use pnpm, never npm or yarn, in this repository", "feedback",
        "`pnpm install`, `pnpm add -D`.\n**Why:** npm rewrote the lockfile.\n"))
    write_memory(store, "feedback_lockfile.md", memory_text(
        "lockfile", "Commit pnpm-lock.yaml with every dependency bump", "feedback",
        "The package manager writes it; CI installs from it frozen.\n"))
    write_memory(store, "project_workspaces.md", memory_text(
        "workspaces", "The monorepo's apps are pnpm workspaces", "project"))


async def test_recall_says_its_ranking_is_a_word_overlap_estimate_not_the_selector(
        claude_home, tmp_path, fake):
    """"which package manager" read: "No memory's description matches: the selector would
    pick nothing", beside three pnpm memories a model would surely pick."""
    fake.queue(reply(tool("pick_memories", files=["feedback_pnpm.md"])))
    app, project = recall_app(claude_home, tmp_path, model_env(fake))
    _pnpm_memories(project.store)
    async with app.run_test(size=(160, 40)) as pilot:
        await ask(app, pilot, project, "which package manager")
        await until(pilot, lambda: "for “which" in model_column(app))
        estimate = " ".join(shown(app, "#recall-results").split())
        assert "the selector would pick nothing" not in estimate
        assert estimate.startswith("Word-overlap estimate (the selector is a model")
        assert "no memory's type or description shares a word with the question" in estimate
        assert ("No description says “manager” or “package”: whether a memory that says it "
                "in other words answers it, only a model can tell (press enter to ask ") in estimate
        assert ("Said only in their text, which the selector never reads: "
                "feedback_lockfile.md (manager, package).") in estimate
        assert "feedback_pnpm.md" in model_column(app)


async def test_without_a_key_the_estimate_says_a_model_is_needed_and_how_to_ask_one(
        claude_home, tmp_path):
    app, project = recall_app(claude_home, tmp_path, {"ANTHROPIC_API_KEY": ""})
    _pnpm_memories(project.store)
    async with app.run_test(size=(160, 40)) as pilot:
        await open_store(app, pilot, project)
        await pilot.press("4", *"which package manager")
        estimate = " ".join(shown(app, "#recall-results").split())
        assert ("No description says “manager” or “package”" in estimate
                and "the model column asks one once ANTHROPIC_API_KEY is set" in estimate)
