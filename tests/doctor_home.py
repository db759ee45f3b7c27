"""A config home for the doctor tests: one project under the user's home with a healthy store,
and the helpers that run `memtui doctor --json` on it."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from conftest import index_line, memory_text, real, write_index, write_memory

from tui import cli

KEY = "sk-ant-api03-SECRETSECRETSECRET-abcdef"
def build_project(fake_home, claude_home):
    """A project directory under the user's home, its store with a small healthy index."""
    root = fake_home / "work" / "shop"
    root.mkdir(parents=True)
    store = claude_home.store(real(root))
    write_memory(store, "testing.md", memory_text())
    write_index(store, [index_line("testing.md")])
    return claude_home, real(root), store


def run_doctor(claude, target, capsys, *extra: str) -> tuple[int, dict, str]:
    code = cli.main(["--config-dir", str(claude.home), "doctor", str(target), "--json", *extra])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else {}, out + err


def memtui(claude, *words) -> str:
    """A memtui command as the doctor prints it for a home that is not ~/.claude: the home
    named, so that it runs the same when pasted."""
    return shlex.join(["memtui", "--config-dir", str(claude.home), *map(str, words)])


def checks_of(report: dict) -> dict[str, dict]:
    return {check["id"]: check for check in report["checks"]}


def settings(path: Path, data: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


