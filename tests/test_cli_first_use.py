"""A new user's first commands: each says why it did nothing, takes the project's name as
`memtui projects` shows it, asks before it writes, and shows the history it has."""

from __future__ import annotations

import io
import json
import os
import sys

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


class Terminal(io.StringIO):
    """stdin as a terminal, holding what the user answers."""

    def isatty(self) -> bool:
        return True


def _lost_line(worktrees):
    from test_history_transcripts import blind_overwrite

    claude, _, _, _ = worktrees
    _, _, memory = blind_overwrite(worktrees)
    return ["--config-dir", str(claude.home)], memory


def _change_to_make(worktrees, capsys, command: str):
    """(config home options, memory, argv) of a restore of the memory as it was before a
    hand edit, or of a merge of the line a lost update dropped."""
    home, memory = _lost_line(worktrees)
    if command == "merge":
        return home, memory, ["merge", str(memory)]
    run(capsys, *home, "history", str(memory))  # the journal holds the file as it is now
    code, out, _ = run(capsys, *home, "history", str(memory), "--json")
    now = json.loads(out)[0]  # newest first: the file as it is
    memory.write_text("rewritten by hand\n", encoding="utf-8")
    return home, memory, ["restore", str(memory), "--version", now["rev"]]


@pytest.mark.parametrize("command", ["restore", "merge"])
def test_restore_and_merge_ask_on_a_terminal_as_fix_does(worktrees, capsys, monkeypatch,
                                                         command):
    """They wrote at once, while `fix` showed the change and asked."""
    home, memory, argv = _change_to_make(worktrees, capsys, command)
    before = memory.read_bytes()

    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    code, out, err = run(capsys, *home, *argv)
    assert code == 0 and "Apply this change? [y/N]" in err
    assert out.startswith(f"--- {memory.name} (now)\n") and out.endswith("Not applied.\n")
    assert memory.read_bytes() == before

    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    code, out, err = run(capsys, *home, *argv)
    assert code == 0 and "Apply this change? [y/N]" in err
    assert memory.read_bytes() != before and "takes it back." in out


@pytest.mark.parametrize("command", ["restore", "merge"])
def test_restore_and_merge_need_yes_without_a_terminal(worktrees, capsys, command):
    home, memory, argv = _change_to_make(worktrees, capsys, command)
    before = memory.read_bytes()

    code, out, err = run(capsys, *home, *argv)
    assert code == 2 and out.startswith(f"--- {memory.name} (now)\n")
    assert err == (f"memtui: `memtui {command}` asks before it writes and stdin is not a "
                   "terminal to ask on: add --yes to apply the change shown (--dry-run shows "
                   "it only); nothing was written.\n")
    assert memory.read_bytes() == before
    code, out, _ = run(capsys, *home, *argv, "--dry-run")
    assert code == 0 and out.endswith("Dry run: nothing was written.\n")
    assert memory.read_bytes() == before
    assert run(capsys, *home, *argv, "--yes")[0] == 0 and memory.read_bytes() != before


def test_history_of_a_file_shows_the_versions_the_transcripts_hold_at_once(worktrees, capsys):
    """It showed the one version the journal had until the user knew to run `history
    backfill`; the app's history screen rebuilt them itself."""
    home, memory = _lost_line(worktrees)

    code, out, _ = run(capsys, *home, "history", str(memory))

    assert code == 0 and out.startswith("Rebuilt ") and "from the transcripts" in out
    assert "shop-wt-a" in out and "shop-wt-b" in out and "backfill" in out
    code, out, _ = run(capsys, *home, "history", str(memory), "--json")
    versions = json.loads(out)
    assert [v["source"] for v in versions].count("backfill") >= 2
    assert {v["git_branch"] for v in versions} >= {"feature-a", "feature-b"}
    code, out, _ = run(capsys, *home, "history", str(memory))
    assert not out.startswith("Rebuilt ")  # once is enough
