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


def test_an_index_that_hides_a_visible_memory_is_left_out_by_default(fake, store):
    model_drops_billing(fake)
    index_before = (store / "MEMORY.md").read_bytes()

    result = run_dream(store, engine="anthropic", config=config(fake))
    assert result.changeset.hides == ("billing.md",)
    outcome = conclude(result, apply=True)

    assert (store / "MEMORY.md").read_bytes() == index_before
    assert "Fridays only." in (store / "deploy.md").read_text()
    (file, reason), = outcome.refused
    assert file == "MEMORY.md" and "would hide billing.md from Claude" in reason


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
        assert screen.accepted == {"deploy.md"}
        summary = painted(screen.query_one("#review-summary").content)
        assert "MEMORY.md is rejected for now: it would hide billing.md" in summary
        await pilot.press("a")
        await settle(app, pilot)
    assert snapshot(store)["MEMORY.md"] == before["MEMORY.md"]
