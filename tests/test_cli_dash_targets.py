"""Targets that begin with '-', in every position, for every command, through `main()`.

Every folder Claude Code names after a path starts with '-' (`-home-ubuntu`), and many with
`-h`, which argparse alone reads as `-h` (help) given a value.
"""

from __future__ import annotations

import json

import pytest
from conftest import index_line, memory_text, user_record, write_index, write_memory

from tui import cli


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def stores(claude_home):
    """Healthy stores in folders named like `/home/ubuntu`, `/h/x` and `/home/x` are."""
    for folder in ("-home-ubuntu", "-h-x", "-home-x"):
        store = claude_home.store(folder=folder)
        write_memory(store, "testing.md", memory_text())
        write_index(store, [index_line("testing.md", "Testing")])
    return claude_home


def in_home(home, *argv: str) -> list[str]:
    return ["--config-dir", str(home.home), *argv]


@pytest.mark.parametrize("argv", [
    ["audit", "-home-ubuntu"],
    ["audit", "-h-x"],
    ["audit", "-home-x", "--json"],
    ["audit", "--json", "-home-x"],
    ["audit", "--json", "--", "-home-x"],
])
def test_audit_reads_a_folder_name_that_starts_with_dash_h_anywhere(stores, capsys, argv):
    code, out, err = run(capsys, *in_home(stores, *argv))
    folder = next(word for word in argv if word.startswith("-h"))
    # Exit 1: no path on this machine has these names, so each store is stranded.
    assert (code, err) == (1, "")
    unwrapped = "".join(out.split())  # Rich folds long paths over lines
    assert f"projects/{folder}/memory" in unwrapped and "stranded_store" in unwrapped


@pytest.mark.parametrize("argv", [["index", "-home-x", "--loaded"], ["index", "--loaded", "-home-x"]])
def test_index_loaded_of_a_dash_folder(stores, capsys, argv):
    code, out, _ = run(capsys, *in_home(stores, *argv))
    assert code == 0 and out == index_line("testing.md", "Testing") + "\n"


def test_overwrites_of_a_dash_folder(stores, capsys):
    code, out, _ = run(capsys, *in_home(stores, "overwrites", "-home-x"))
    assert code == 0 and "-home-x/memory" in out


@pytest.mark.parametrize("argv", [
    ["dream", "-home-x", "--dry-run", "--engine", "offline"],
    ["dream", "--dry-run", "-home-x", "--engine=offline"],
])
def test_dream_dry_run_of_a_dash_folder(stores, capsys, argv):
    code, _, err = run(capsys, *in_home(stores, *argv))
    assert code == 0
    assert "Dreaming over " in err and "-home-x/memory with the offline engine" in err


def test_history_backfill_of_a_dash_folder(stores, capsys):
    code, out, _ = run(capsys, *in_home(stores, "history", "backfill", "-home-x", "--json"))
    assert code == 0 and json.loads(out)["store"].endswith("projects/-home-x/memory")


def test_history_restore_and_merge_take_a_file_path_that_starts_with_dash(
        stores, capsys, monkeypatch):
    monkeypatch.chdir(stores.projects)
    file = "-h-x/memory/testing.md"
    code, out, _ = run(capsys, *in_home(stores, "history", file, "--json"))
    (version,) = json.loads(out)
    assert code == 0

    (stores.projects / file).write_text("changed\n", encoding="utf-8")
    code, out, _ = run(capsys, *in_home(stores, "restore", file, "--version", version["rev"], "--yes"))
    assert code == 0 and out.startswith("--- testing.md (now)") and "\nRestored testing.md" in out
    assert (stores.projects / file).read_text(encoding="utf-8") == memory_text()

    code, out, _ = run(capsys, *in_home(stores, "merge", "--dry-run", file))
    assert code == 0 and out.startswith("No lost update of testing.md")


def test_extract_takes_a_session_that_starts_with_dash(stores, capsys):
    cwd = "/home/x"
    stores.transcript("-home-x", [user_record(cwd, "Always run ruff before committing.")],
                      session_id="-x1")
    code, out, _ = run(capsys, *in_home(stores, "extract", "-x1", "--engine", "offline", "--json"))
    assert code == 0 and json.loads(out)["status"] == "succeeded"


def test_watch_takes_a_dash_folder(stores, capsys, monkeypatch):
    from tui.history import watch

    watched = []
    monkeypatch.setattr(watch, "watch", lambda stores, *_, **__: watched.extend(stores))
    code, _, _ = run(capsys, *in_home(stores, "watch", "--interval", "5", "-h-x"))
    assert code == 0 and watched == [stores.projects / "-h-x" / "memory"]


def test_demo_builds_in_a_folder_that_starts_with_dash(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "demo", "-my-demo", "--no-open")
    assert code == 0 and (tmp_path / "-my-demo" / "claude" / "projects").is_dir()
    assert "Demo config home built at" in out


@pytest.mark.parametrize("argv", [["audit", "-h"], ["audit", "--help"], ["-h"], ["dream", "-h"]])
def test_dash_h_alone_still_shows_help(capsys, argv):
    code, out, _ = run(capsys, *argv)
    assert code == 0 and out.startswith("usage: memtui")


def test_a_dash_word_a_command_has_no_place_for_is_named(stores, capsys):
    code, _, err = run(capsys, *in_home(stores, "projects", "-home-x"))
    assert (code, err) == (2, "memtui projects has no place for -home-x (`memtui projects "
                              "--help` shows what it takes).\n")


def test_a_dash_folder_that_does_not_exist_is_one_sentence(stores, capsys):
    code, out, err = run(capsys, *in_home(stores, "audit", "-home-nobody"))
    assert (code, out) == (2, "")
    assert err.startswith(f"memtui: No project named '-home-nobody', and no project folder of "
                          f"that name under {stores.projects}") and err.count("\n") == 1


@pytest.mark.parametrize("argv", [
    ["fix", "-h-x", "relink", "--yes"],
    ["fix", "--yes", "-h-x", "relink"],
    ["fix", "-h-x", "--yes", "relink", "--", "-h-orphan.md"],
])
def test_fix_takes_a_dash_folder_and_a_dash_file(stores, capsys, argv):
    store = stores.projects / "-h-x" / "memory"
    write_memory(store, "-h-orphan.md", memory_text("orphan", "never indexed"))
    code, out, err = run(capsys, *in_home(stores, *argv))
    assert (code, err) == (0, "")
    assert "Add an index line for -h-orphan.md" in out
    assert "(-h-orphan.md)" in (store / "MEMORY.md").read_text()


def test_fix_dash_h_alone_shows_its_help(capsys):
    code, out, _ = run(capsys, "fix", "-h")
    assert code == 0 and out.startswith("usage: memtui fix")
