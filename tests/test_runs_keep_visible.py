"""No run makes a memory Claude sees now invisible unless the user says so."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import index_line, memory_text, painted, settle, snapshot, write_index, write_memory
from fake_anthropic import reply, text, tool

from tui.agents.client import ClientConfig
from tui.agents.dream import run_dream
from tui.agents.result import conclude


@pytest.fixture
def store(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    for name in ("deploy", "testing", "billing"):
        write_memory(store, f"{name}.md", memory_text(name, f"how we do {name}", "project"))
    write_index(store, [index_line(f"{n}.md") for n in ("deploy", "testing", "billing")])
    return store


def model_drops_billing(fake) -> None:
    fake.queue(
        reply(tool("write_file", path="MEMORY.md",
                   content=index_line("deploy.md") + "\n" + index_line("testing.md") + "\n"),
              tool("write_file", path="deploy.md",
                   content=memory_text("deploy", "how we deploy", "project", "Fridays only.\n"))),
        reply(text("Tidied.")), reply(text("-")), reply(text("-")), reply(text("-")),
    )


def config(fake) -> ClientConfig:
    return replace(ClientConfig(api_key="test-key", base_url=fake.url, retry_delay=0.01))


def test_an_index_that_hides_a_visible_memory_refuses_the_whole_change_by_default(fake, store):
    """The model's MEMORY.md hides billing.md and its deploy.md loses the lines it had:
    both are held, and with no choice made (the command line's --yes) nothing is written."""
    model_drops_billing(fake)
    before = snapshot(store)

    result = run_dream(store, engine="anthropic", config=config(fake))
    assert result.changeset.hides == ("billing.md",)
    outcome = conclude(result, apply=True)

    assert snapshot(store) == before
    assert outcome.applied == ()
    reasons = dict(outcome.refused)
    assert "would hide billing.md from Claude" in reasons["MEMORY.md"]
    assert reasons["deploy.md"] == "deploy.md would lose 1 line of text: “description: how we do deploy”"
    assert result.changeset.refusal == (
        "The change set was refused whole, nothing was written: the run's MEMORY.md would hide "
        "billing.md from Claude and lose 1 line of text: “- [billing](billing.md) — a memory” "
        "(1 more file held too: deploy.md). Review it in the app to apply part of it.")


def test_choosing_the_index_explicitly_applies_it(fake, store):
    model_drops_billing(fake)
    result = run_dream(store, engine="anthropic", config=config(fake))

    outcome = conclude(result, apply=True, only={"MEMORY.md", "deploy.md"})

    assert set(outcome.applied) == {"MEMORY.md", "deploy.md"}
    assert "billing.md" not in (store / "MEMORY.md").read_text()


async def test_the_review_starts_with_that_index_rejected_and_says_why(fake, store, claude_home):
    from tui.app.app import MemtuiApp
    from tui.app.screens.review import ReviewScreen

    model_drops_billing(fake)
    result = run_dream(store, engine="anthropic", config=config(fake))
    before = snapshot(store)
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = ReviewScreen(result)
        app.push_screen(screen)
        await settle(app, pilot)
        assert screen.accepted == set()
        summary = painted(screen.query_one("#review-summary").content)
        assert "MEMORY.md is rejected for now: the run's MEMORY.md would hide billing.md" in summary
        assert "deploy.md is rejected for now: deploy.md would lose 1 line of text" in summary
        await pilot.press("a")
        await settle(app, pilot)
    assert snapshot(store)["MEMORY.md"] == before["MEMORY.md"]
