"""Rules of the reference (../shared/reference/claude-code-memory.md) that no topic's test
file holds: each test names its section and asserts what a user of memtui sees."""

from __future__ import annotations

from conftest import memory_text, user_record, write_index, write_memory
from fake_anthropic import reply, tool

from tui import cli
from tui.agents.client import ClientConfig
from tui.agents.recall import ask_model
from tui.agents.result import SUCCEEDED
from tui.claude import paths
from tui.memory.store import load_store


def config(fake) -> ClientConfig:
    return ClientConfig(api_key="test-key", base_url=fake.url, retry_delay=0.01)


def test_config_home_is_claude_config_dir_else_dot_claude_in_home(fake_home, tmp_path,
                                                                    monkeypatch, capsys):
    """Reference §1: the config home is `$CLAUDE_CONFIG_DIR` if set, else `~/.claude`."""
    default_store = fake_home / ".claude" / "projects" / "-home-me-default" / "memory"
    configured_store = tmp_path / "elsewhere" / "projects" / "-home-me-configured" / "memory"
    for store in (default_store, configured_store):
        store.mkdir(parents=True)
        write_index(store, [])

    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert paths.config_home() == fake_home / ".claude"
    assert cli.main(["projects", "--json"]) == 0
    assert str(default_store) in capsys.readouterr().out

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "elsewhere"))
    assert cli.main(["projects", "--json"]) == 0
    out = capsys.readouterr().out
    assert str(configured_store) in out and str(default_store) not in out


def test_recall_by_the_model_keeps_at_most_five_files(fake, tmp_path):
    """Reference §5: the selector returns at most 5 file names, whatever the model says."""
    files = [f"project_{number}.md" for number in range(7)]
    for file in files:
        write_memory(tmp_path, file, memory_text(file, f"deploys, part {file}", "project"))
    fake.queue(reply(tool("pick_memories", files=files)))
    assert ask_model(load_store(tmp_path), "how do we deploy?", config(fake)) == files[:5]


def test_an_extraction_gets_five_model_turns_then_stops(fake, claude_home, tmp_path):
    """Reference §6: the extraction agent has at most 5 turns; what it did not get to is
    said, not lost silently (memtui's extraction keeps the topics left)."""
    from tui.agents.extract import run_extract

    cwd = tmp_path / "project"
    cwd.mkdir()
    claude_home.store(cwd)
    transcript = claude_home.session(cwd, user_record(str(cwd), "Always run ruff."))
    fake.queue(reply(tool("plan_topics", topics=["ruff before commits"])),
               *[reply(tool("list_files")) for _ in range(9)])
    result = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                         engine="anthropic", config=config(fake))
    assert result.status == SUCCEEDED, result.error
    assert len(fake.requests) == 5
    assert result.topics_left == ("ruff before commits",)
