"""The Claude Code plugin the repository holds: its files follow the documented schema, the
skill's commands run as printed, and the session-start hook says one line when memory needs
a look and nothing when it is well, in real Claude Code too when its CLI is here."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import index_line, memory_text

from tui import __version__
from tui.claude import paths

REPO = Path(__file__).resolve().parent.parent
MARKETPLACE = REPO / ".claude-plugin" / "marketplace.json"
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MEMTUI = [sys.executable, "-m", "tui"]


def plugins() -> dict[str, Path]:
    entries = json.loads(MARKETPLACE.read_text())["plugins"]
    return {entry["name"]: (MARKETPLACE.parent.parent / entry["source"]).resolve()
            for entry in entries}


def hook_command() -> str:
    hooks = json.loads((plugins()["memtui-session-check"] / "hooks" / "hooks.json").read_text())
    (group,) = hooks["hooks"]["SessionStart"]
    (hook,) = group["hooks"]
    return hook["command"]


def test_marketplace_and_plugins_follow_the_documented_schema():
    marketplace = json.loads(MARKETPLACE.read_text())
    assert KEBAB.match(marketplace["name"])
    assert marketplace["owner"]["name"]
    for entry in marketplace["plugins"]:
        assert entry["source"].startswith("./"), "a local source is a ./ path"
        manifest = json.loads(
            (plugins()[entry["name"]] / ".claude-plugin" / "plugin.json").read_text())
        assert manifest["name"] == entry["name"] and KEBAB.match(manifest["name"])
        assert manifest["version"] == entry["version"] == __version__
        assert manifest["description"] and manifest["license"] == "MIT"
    hooks = json.loads((plugins()["memtui-session-check"] / "hooks" / "hooks.json").read_text())
    assert set(hooks["hooks"]) == {"SessionStart"}
    assert hooks["hooks"]["SessionStart"][0]["hooks"][0]["type"] == "command"


def test_the_skill_has_a_name_and_a_description_claude_can_choose_it_by():
    skill = plugins()["memtui"] / "skills" / "memory-care" / "SKILL.md"
    head = yaml.safe_load(skill.read_text().split("---")[1])
    assert head["name"] == skill.parent.name
    assert "memtui" in head["description"] and len(head["description"]) <= 1024


def claude_home_with_store(tmp_path: Path, memories: int, indexed: int) -> tuple[Path, Path]:
    """A config home whose project (a git checkout) has `memories` memories, the first
    `indexed` of them linked from MEMORY.md."""
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    home = tmp_path / "claude"
    store = paths.projects_dir(home) / paths.sanitize(str(project)) / "memory"
    store.mkdir(parents=True)
    names = [f"note-{chr(97 + n)}.md" for n in range(memories)]
    for name in names:
        (store / name).write_text(memory_text(name.removesuffix(".md"), "a note"))
    (store / "MEMORY.md").write_text("".join(index_line(n) + "\n" for n in names[:indexed]))
    return home, project


def session_start(home: Path, hook_input: str):
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(home))
    return subprocess.run([*MEMTUI, "hook", "session-start"], input=hook_input, env=env,
                          capture_output=True, text=True, timeout=60, cwd=REPO)


def test_the_session_check_says_one_line_when_claude_misses_memories(tmp_path):
    home, project = claude_home_with_store(tmp_path, memories=3, indexed=1)
    done = session_start(home, json.dumps({"cwd": str(project), "source": "startup"}))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.count("\n") == 1
    assert done.stdout.startswith("memory: Claude does not see 2 memories of this project")
    assert "run `" in done.stdout


def test_the_session_check_is_silent_when_memory_is_well_or_absent(tmp_path):
    home, project = claude_home_with_store(tmp_path, memories=3, indexed=3)
    for hook_input in (json.dumps({"cwd": str(project)}),
                       json.dumps({"cwd": str(tmp_path / "no-such-project")})):
        done = session_start(home, hook_input)
        assert (done.returncode, done.stdout) == (0, "")


def test_the_session_check_never_fails_a_session_on_bad_input(tmp_path):
    home, _ = claude_home_with_store(tmp_path, memories=2, indexed=2)
    for hook_input in ("not json", "[1, 2]", json.dumps({"cwd": 42}), ""):
        done = session_start(home, hook_input)
        assert done.returncode == 0 and "Traceback" not in done.stderr


def test_the_hook_is_silent_where_memtui_is_not_installed(tmp_path):
    bare_path = tmp_path / "bin"
    bare_path.mkdir()
    done = subprocess.run(["/bin/sh", "-c", hook_command()], input="{}", text=True,
                          capture_output=True, env={"PATH": str(bare_path)}, timeout=30)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def skill_commands() -> list[str]:
    skill = (plugins()["memtui"] / "skills" / "memory-care" / "SKILL.md").read_text()
    fenced = re.findall(r"```\n(.*?)```", skill, re.S)
    return [line for block in fenced for line in block.splitlines() if line.startswith("memtui ")]


def test_every_command_the_skill_gives_claude_runs_as_printed(tmp_path):
    home, project = claude_home_with_store(tmp_path, memories=3, indexed=1)
    commands = skill_commands()
    assert len(commands) >= 10
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(home))
    for command in commands:
        words = command.replace("<file>", "note-c.md").split()[1:]
        done = subprocess.run([*MEMTUI, *words], cwd=project, env=env, capture_output=True,
                              text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert done.returncode in (0, 1), f"{command}: {done.stderr}"
        assert "Traceback" not in done.stderr


@pytest.mark.skipif(shutil.which(os.environ.get("CLAUDE_CLI", "claude")) is None,
                    reason="Claude Code's CLI (`claude`, or $CLAUDE_CLI) is not installed here")
def test_claude_code_validates_the_marketplace_and_both_plugins(tmp_path):
    claude = shutil.which(os.environ.get("CLAUDE_CLI", "claude"))
    env = dict(os.environ, HOME=str(tmp_path))
    for folder in (REPO, *plugins().values()):
        done = subprocess.run([claude, "plugin", "validate", str(folder), "--strict"],
                              env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(shutil.which(os.environ.get("CLAUDE_CLI", "claude")) is None,
                    reason="Claude Code's CLI (`claude`, or $CLAUDE_CLI) is not installed here")
def test_claude_code_puts_the_hooks_line_into_the_session(tmp_path, fake):
    """The plugin installed from this repository's marketplace into a real Claude Code, a
    session started against the fake Messages API: its first request carries the line."""
    from fake_anthropic import reply, text

    claude = shutil.which(os.environ.get("CLAUDE_CLI", "claude"))
    home, project = claude_home_with_store(tmp_path, memories=3, indexed=1)
    memtui_bin = tmp_path / "memtui-bin"
    memtui_bin.mkdir()
    (memtui_bin / "memtui").write_text(f"#!/bin/sh\nexec {sys.executable} -m tui \"$@\"\n")
    (memtui_bin / "memtui").chmod(0o755)
    env = dict(os.environ, HOME=str(tmp_path), CLAUDE_CONFIG_DIR=str(home),
               ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY=fake.api_key,
               PATH=f"{memtui_bin}:{os.environ['PATH']}", PYTHONPATH=str(REPO),
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    for words in (["marketplace", "add", str(REPO)],
                  ["install", "memtui-session-check@memtui"]):
        done = subprocess.run([claude, "plugin", *words], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    fake.queue(reply(text("ok")), reply(text("ok")))
    subprocess.run([claude, "-p", "hello"], cwd=project, env=env, capture_output=True,
                   text=True, timeout=180)
    assert fake.requests, "Claude Code sent no request to the fake Messages API"
    sent = json.dumps(fake.requests[0]["body"])
    assert sent.count("memory: Claude does not see 2 memories of this project") == 1
