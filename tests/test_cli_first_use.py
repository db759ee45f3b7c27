"""A new user's first commands: each says why it did nothing, takes the project's name as
`memtui projects` shows it, asks before it writes, and shows the history it has."""

from __future__ import annotations

import json
import os

import pytest
from conftest import (
    index_line,
    memory_saved_record,
    memory_text,
    user_record,
    write_index,
    write_memory,
)

from tui import cli


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_an_extraction_skipped_says_why_and_how_to_go_on(claude_home, tmp_path, capsys):
    """It said "skipped" and nothing more: the reason was only in --json."""
    cwd = str(tmp_path / "shop")
    (tmp_path / "shop").mkdir()
    store = claude_home.store(cwd)
    write_memory(store, "feedback_linter.md", memory_text("linter"))
    write_index(store, [index_line("feedback_linter.md", "Linter")])
    transcript = claude_home.session(
        cwd, user_record(cwd, "remember: always run the linter before a commit"),
        memory_saved_record([str(store / "feedback_linter.md")]))

    code, out, err = run(capsys, "--config-dir", str(claude_home.home), "extract", transcript.stem,
                         "--engine", "offline")

    assert code == 0, err
    said = out + err
    assert "feedback_linter.md" in said and "already wrote memory itself" in said
    assert "--force" in said


@pytest.fixture
def named_projects(claude_home, tmp_path):
    """Two projects, `shop` and `billing`, as `memtui projects` shows them: by their path."""
    stores = {}
    for name in ("shop", "billing"):
        project = tmp_path / "work" / name
        project.mkdir(parents=True)
        claude_home.session(str(project))
        stores[name] = claude_home.store(project)
        write_memory(stores[name], "orphan.md", memory_text("orphan", f"never indexed in {name}"))
        write_index(stores[name], [])
    return claude_home, stores


@pytest.mark.parametrize("command", [["audit", "--json"], ["doctor", "--json"],
                                     ["undo", "--list", "--json"]])
def test_a_project_is_named_as_memtui_projects_shows_it(named_projects, capsys, command):
    claude, stores = named_projects
    home = ["--config-dir", str(claude.home)]
    code, out, _ = run(capsys, *home, "projects")
    assert code == 0 and f"{os.sep}shop " in out

    code, out, err = run(capsys, *home, command[0], "shop", *command[1:])

    assert code in (0, 1) and err == "", err
    if command[0] == "undo":
        assert json.loads(out) == []  # no change yet, of the shop's store
    else:
        assert str(stores["shop"]) in out and str(stores["billing"]) not in out


def test_a_name_close_to_a_project_s_is_suggested(named_projects, capsys):
    claude, _ = named_projects
    code, out, err = run(capsys, "--config-dir", str(claude.home), "audit", "biling")
    assert (code, out) == (2, "")
    assert err.startswith("memtui: No project named 'biling'")
    assert err.endswith("did you mean billing?\n") and err.count("\n") == 1
