"""The CLI says what it did and exits as the README says: bad input is exit 2 with one
sentence, short session ids work, piped output is never wrapped, undo is a command."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import index_line, memory_text, user_record, write_index, write_memory

from tui import cli
from tui.cli.support import command_name


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def store(claude_home, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    store = claude_home.store(project)
    write_memory(store, "testing.md", memory_text())
    write_memory(store, "orphan.md", memory_text("orphan", "never indexed"))
    write_index(store, [index_line("testing.md", "Testing")])
    return store


@pytest.mark.parametrize("content, says", [
    (None, "there is no such file"), ("{not json", "is not valid JSON"),
    ("[1, 2]", "holds list, not a settings object"),
])
def test_a_missing_or_invalid_settings_file_is_bad_usage(store, tmp_path, capsys, content, says):
    settings = tmp_path / "settings.json"
    if content is not None:
        settings.write_text(content)

    code, out, err = run(capsys, "--settings", str(settings), "audit", str(store))

    assert code == 2
    assert err.startswith(f"memtui: --settings {settings}") and says in err
    assert err.count("\n") == 1 and out == ""


def test_audit_all_on_an_empty_config_home_is_bad_usage_like_projects(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    results = [run(capsys, "--config-dir", str(empty), *command)
               for command in (["projects"], ["audit", "--all"])]

    assert [code for code, _, _ in results] == [2, 2]
    assert results[0][2] == results[1][2]
    assert "No Claude Code projects folder" in results[0][2]


def test_extract_takes_the_short_session_id_the_app_shows(store, claude_home, tmp_path, capsys):
    transcript = claude_home.session(tmp_path / "project",
                                     user_record(str(tmp_path / "project"),
                                                 "Never push to main directly because CI deploys."))
    short = transcript.stem[:8]

    code, out, err = run(capsys, "--config-dir", str(claude_home.home), "extract", short,
                         "--engine", "offline", "--yes")

    assert code == 0, err
    assert f"Extracting session {transcript.stem}" in err
    # what the run reads, the number the app's session picker shows
    assert "2 messages since the last extraction" in err
    code, out, err = run(capsys, "extract", "--help")
    assert "a prefix only one session has" in " ".join(out.split())


def test_an_unknown_or_ambiguous_session_is_bad_usage(store, claude_home, tmp_path, capsys):
    for number in (1, 2):
        claude_home.transcript("-x", [user_record("/x")],
                               session_id=f"abcd000{number}-0000-4000-8000-00000000000{number}")
    home = ["--config-dir", str(claude_home.home)]
    assert run(capsys, *home, "extract", "ffff")[0] == 2
    code, _, err = run(capsys, *home, "extract", "abcd")
    assert code == 2 and "starts 2 session ids" in err


def test_piped_human_output_is_never_wrapped(claude_home, tmp_path):
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "project"
    deep.mkdir(parents=True)
    store = claude_home.store(deep)
    write_memory(store, "testing.md", memory_text())
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
         "projects"], capture_output=True, text=True, env={**os.environ, **claude_home.env},
        timeout=60)

    assert any(str(deep) in line or str(deep).replace(str(tmp_path), "") in line
               for line in result.stdout.splitlines()), result.stdout


def test_undo_lists_and_undoes_memtuis_changes(store, capsys):
    from tui.memory import curate
    from tui.memory.store import load_store
    from tui.memory.writes import apply_changes

    before = (store / "MEMORY.md").read_bytes()
    plan = curate.plan_relink(load_store(store), ["orphan.md"])
    apply_changes(store, plan.changes, plan.label)

    code, out, _ = run(capsys, "undo", str(store), "--list")
    assert code == 0 and plan.label in out and "(undone)" not in out
    code, out, _ = run(capsys, "undo", str(store))
    assert (code, out) == (0, f"Undid {plan.label}.\n")
    assert (store / "MEMORY.md").read_bytes() == before
    code, out, _ = run(capsys, "undo", str(store), "--list", "--json")
    assert [entry["undone"] for entry in json.loads(out)] == [False, True]
    code, out, _ = run(capsys, "undo", str(store))
    assert code == 0 and out.startswith("Nothing to undo")


def test_after_a_dream_the_cli_names_the_undo_command_that_works(store, capsys):
    write_memory(store, "dup.md", memory_text())  # a near-copy the offline dream merges
    code, out, err = run(capsys, "dream", str(store), "--engine", "offline", "--yes")
    assert code == 0, err
    line = next(line for line in (out + err).splitlines() if line.startswith("Applied"))
    assert "memtui undo " in line
    assert run(capsys, "undo", str(store))[1].startswith("Undid dream")


def test_the_undo_hint_runs_as_printed_from_any_folder(store, tmp_path):
    """Run from `/`, the hint named `tmp/…/bin/memtui`, which no shell runs: the script
    memtui was started as, by its absolute path, when the PATH does not find it."""
    script = Path(sys.executable).parent / "memtui"
    if not script.is_file():
        pytest.skip("no memtui script beside this Python (not installed in a venv)")
    env = {**os.environ, "PATH": "/usr/bin:/bin"}  # the venv is not on the PATH
    relative = os.path.relpath(script, "/")
    done = subprocess.run([relative, "fix", str(store), "delete", "orphan.md", "--yes"],
                          cwd="/", env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    hint = done.stdout.split("Undo it with `", 1)[1].split("`", 1)[0]
    assert hint.startswith(shlex.quote(str(script.absolute())) + " undo ")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    undone = subprocess.run(hint, shell=True, cwd=elsewhere, env=env, capture_output=True,
                            text=True, timeout=120)
    assert undone.returncode == 0, undone.stderr
    assert (store / "orphan.md").is_file()


def test_the_hint_says_memtui_only_when_the_path_finds_this_very_script(monkeypatch,
                                                                        tmp_path):
    script = tmp_path / "venv" / "bin" / "memtui"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(script), "demo"])
    on_path = tmp_path / "path"
    on_path.mkdir()
    monkeypatch.setenv("PATH", str(on_path))
    assert command_name() == str(script)  # nothing on the PATH
    (on_path / "memtui").write_text("#!/bin/sh\n")  # another install: not this memtui
    (on_path / "memtui").chmod(0o755)
    assert command_name() == str(script)
    (on_path / "memtui").unlink()
    (on_path / "memtui").symlink_to(script)
    assert command_name() == "memtui"


def test_undo_redo_puts_back_what_the_last_undo_took(store, capsys):
    from tui.memory import curate
    from tui.memory.store import load_store
    from tui.memory.writes import apply_changes

    plan = curate.plan_relink(load_store(store), ["orphan.md"])
    apply_changes(store, plan.changes, plan.label)
    relinked = (store / "MEMORY.md").read_bytes()
    run(capsys, "undo", str(store))
    code, out, _ = run(capsys, "undo", str(store), "--redo")
    assert (code, out) == (0, f"Redid {plan.label}.\n")
    assert (store / "MEMORY.md").read_bytes() == relinked
    code, out, _ = run(capsys, "undo", str(store), "--redo")
    assert code == 0 and out.startswith("Nothing to redo")
    run(capsys, "undo", str(store))
    code, out, _ = run(capsys, "undo", str(store), "--redo", "--json")
    assert json.loads(out) == {"store": str(store), "redone": plan.label}


def test_an_undone_dream_is_redone_with_its_lock_as_the_undo_said(store, capsys):
    """The undo said "U redoes it" and the README `undo --redo`, while redo refused a
    dream (exit 2, and `--json` printed nothing): now it comes back, lock included."""
    lock = store / ".consolidate-lock"
    lock.write_text("")
    three_days_ago = time.time() - 3 * 86400
    os.utime(lock, (three_days_ago, three_days_ago))
    write_memory(store, "dup.md", memory_text())
    assert run(capsys, "dream", str(store), "--engine", "offline", "--yes")[0] == 0
    dreamt = {p.name: p.read_bytes() for p in store.iterdir() if p.is_file()}
    dreamt_at = lock.stat().st_mtime
    assert dreamt_at > three_days_ago
    run(capsys, "undo", str(store))
    assert lock.stat().st_mtime == three_days_ago

    code, out, err = run(capsys, "undo", str(store), "--redo", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["redone"].startswith("dream ")
    assert {p.name: p.read_bytes() for p in store.iterdir() if p.is_file()} == dreamt
    assert lock.stat().st_mtime == dreamt_at  # counted as consolidated again
    code, out, _ = run(capsys, "undo", str(store), "--list", "--json")
    assert json.loads(out)[0]["consolidate_lock"] == "set"

    run(capsys, "undo", str(store))  # and the redo undoes like the dream did
    assert lock.stat().st_mtime == three_days_ago
    assert run(capsys, "undo", str(store), "--redo")[1].startswith("Redid dream ")
    assert lock.stat().st_mtime == dreamt_at


def test_a_dream_whose_undo_left_no_note_says_why_it_is_not_redone(store, capsys):
    from tui import xdg

    write_memory(store, "dup.md", memory_text())
    assert run(capsys, "dream", str(store), "--engine", "offline", "--yes")[0] == 0
    run(capsys, "undo", str(store))
    for note in (xdg.state_dir() / "redo-moves").iterdir():  # as an older memtui's undo
        note.unlink()
    before = {p.name: p.read_bytes() for p in store.iterdir() if p.is_file()}

    code, out, err = run(capsys, "undo", str(store), "--redo", "--json")
    assert code == 2 and "run it again" in err
    assert json.loads(out) == {"store": str(store), "redone": None,
                               "refused": err.removeprefix("memtui: ").strip()}
    assert {p.name: p.read_bytes() for p in store.iterdir() if p.is_file()} == before
