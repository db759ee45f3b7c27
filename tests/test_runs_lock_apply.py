"""The consolidate lock as Claude Code uses it, and applying a change set to a live store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from conftest import index_line, memory_text, write_index, write_memory

from tui.agents.changeset import undo_changeset
from tui.agents.dream import compute_gates, run_dream
from tui.agents.result import FAILED, SUCCEEDED, conclude
from tui.claude.lock import acquire_lock, read_lock, release_lock, rollback_lock
from tui.claude.paths import LOCK_NAME
from tui.cli import build_parser
from tui.cli.runs import add_run_commands


@pytest.fixture
def store(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    for name in ("alpha", "beta", "gamma"):
        write_memory(store, f"{name}.md", memory_text(name, f"{name} rules", "feedback",
                                                      f"## Incident 2026-03-10\n\n"
                                                      f"{name} happened yesterday.\n"),
                     mtime=time.time() - 86400 * 3)
    write_index(store, [index_line("alpha.md"), index_line("missing.md")])
    return store


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_live_holder_younger_than_an_hour_is_refused(store):
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    try:
        (store / LOCK_NAME).write_text(str(holder.pid))
        result = run_dream(store, engine="offline")
        assert result.status == FAILED and str(holder.pid) in result.error
        assert (store / LOCK_NAME).read_text() == str(holder.pid)
    finally:
        holder.kill()
        holder.wait()


def test_a_live_pid_with_a_lock_dated_years_ahead_is_not_held_forever(store):
    """A clock that was wrong when the lock was written: Claude Code would count it held
    until that date; memtui only while it is within the hold time of now, either way."""
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        lock = store / LOCK_NAME
        lock.write_text(str(holder.pid))
        os.utime(lock, (time.time() + 3 * 365 * 86400,) * 2)
        assert not read_lock(store).held()
        lease = acquire_lock(store)
        assert read_lock(store).pid == os.getpid()
        rollback_lock(lease)
        os.utime(lock, (time.time() + 10 * 60,) * 2)  # minutes ahead: a small skew, held
        assert read_lock(store).held()
    finally:
        holder.kill()
        holder.wait()


def test_a_pid_whose_process_started_after_the_lock_was_written_is_not_its_holder(store):
    """The dream that wrote the lock died and its PID went to a process started later."""
    from tui.claude.lock import process_start

    later = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        started = process_start(later.pid)
        assert started is not None and abs(started - time.time()) < 60
        lock = store / LOCK_NAME
        lock.write_text(str(later.pid))
        os.utime(lock, (started - 10 * 60,) * 2)  # written ten minutes before it started
        assert not read_lock(store).held()
        result = run_dream(store, engine="offline")
        assert result.status == SUCCEEDED, result.error
        conclude(result, apply=False)
        os.utime(lock, (started + 5,) * 2)  # written after it started: it may hold it
        assert read_lock(store).held()
    finally:
        later.kill()
        later.wait()


def test_a_dead_holder_or_an_old_lock_is_reclaimed(store):
    lock = store / LOCK_NAME
    lock.write_text(str(_dead_pid()))
    lease = acquire_lock(store)
    assert read_lock(store).pid == os.getpid()
    rollback_lock(lease)
    lock.write_text(str(os.getppid()))  # alive, but two hours old
    os.utime(lock, (time.time() - 7200,) * 2)
    lease = acquire_lock(store)
    assert lease.previous.pid == os.getppid() and read_lock(store).pid == os.getpid()


def test_rollback_restores_the_previous_mtime_or_removes_a_new_lock(store):
    lock = store / LOCK_NAME
    lease = acquire_lock(store)
    rollback_lock(lease)
    assert not lock.exists()
    lock.write_text("")
    os.utime(lock, (1_500_000_000, 1_500_000_000))
    lease = acquire_lock(store)
    rollback_lock(lease)
    assert lock.read_text() == "" and lock.stat().st_mtime == 1_500_000_000


def test_success_leaves_the_mtime_at_the_start_time(store):
    lease = acquire_lock(store)
    time.sleep(0.02)
    release_lock(lease)
    state = read_lock(store)
    assert state.mtime == lease.started and not state.held()


def test_gates_count_sessions_in_the_cwd_folder_and_across_the_store(claude_home, store, tmp_path):
    lock = store / LOCK_NAME
    lock.write_text("")
    os.utime(lock, (time.time() - 30 * 3600,) * 2)
    main_folder, worktree = claude_home.folder("-main"), claude_home.folder("-wt")
    for folder, count in ((main_folder, 2), (worktree, 3)):
        for _ in range(count):
            claude_home.transcript(folder.name, [{"type": "user"}])
    claude_home.transcript("-main", [{"type": "user"}], mtime=time.time() - 40 * 3600)
    (main_folder / "not-a-uuid.jsonl").write_text("{}\n")
    gates = compute_gates(store, [main_folder, worktree], main_folder)
    assert round(gates.hours_since) == 30
    assert gates.sessions_cwd == 2 and gates.sessions_all == 5


def test_a_file_changed_during_review_refuses_the_whole_change_set(store):
    """The files of a run go together: one changed on disk since it was staged refuses them
    all, and the dream does not count as a consolidation."""
    lock = store / LOCK_NAME
    result = run_dream(store, engine="offline")
    assert result.status == SUCCEEDED
    changed = {d.file for d in result.changeset.files}
    assert {"MEMORY.md"} <= changed
    before = {f: (store / f).read_bytes() for f in changed if (store / f).exists()}
    edited = sorted(changed)[-1]
    (store / edited).write_text("edited by another session\n")  # after staging

    outcome = conclude(result, apply=True)

    assert outcome.applied == ()
    assert [file for file, _ in outcome.refused] == [edited]
    assert outcome.refused[0][1] == (f"{edited} changed on disk since the run staged it; "
                                     "nothing was written, as the files of a run go together.")
    assert (store / edited).read_text() == "edited by another session\n"
    for file in changed - {edited}:
        assert (store / file).read_bytes() == before[file]
    assert not lock.exists()  # rolled back: there was none before the dream


def test_undoing_a_dream_puts_the_lock_back_so_it_does_not_count_as_consolidated(store):
    lock = store / ".consolidate-lock"
    lock.write_text("")
    three_days_ago = time.time() - 3 * 86400
    os.utime(lock, (three_days_ago, three_days_ago))
    result = run_dream(store, engine="offline")
    conclude(result, apply=True)
    assert lock.stat().st_mtime > three_days_ago  # the dream counts as a consolidation

    assert undo_changeset(store)
    assert lock.stat().st_mtime == three_days_ago and lock.read_text() == ""


def test_lock_notes_stay_bounded_and_undo_still_puts_the_lock_back(store):
    """Each applied dream leaves a note to put the lock back on undo; without a bound they
    piled up in the state dir forever."""
    from tui import xdg
    from tui.agents.changeset import remember_lock_before
    from tui.agents.undo_notes import KEPT, LOCK

    for n in range(2 * KEPT):  # many dreams of other stores applied before
        remember_lock_before([f"older-{n}"], read_lock(store))
    lock = store / LOCK_NAME
    lock.write_text("")
    three_days_ago = time.time() - 3 * 86400
    os.utime(lock, (three_days_ago, three_days_ago))
    conclude(run_dream(store, engine="offline"), apply=True)
    assert len(list((xdg.state_dir() / LOCK).iterdir())) <= KEPT

    assert undo_changeset(store)
    assert lock.stat().st_mtime == three_days_ago and lock.read_text() == ""


def test_undoing_a_first_dream_removes_the_lock_it_created(store):
    lock = store / ".consolidate-lock"
    lock.unlink(missing_ok=True)
    conclude(run_dream(store, engine="offline"), apply=True)
    assert lock.exists()
    assert undo_changeset(store)
    assert not lock.exists()


def _parser_main(argv):
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command")
    if "dream" not in commands.choices:
        add_run_commands(commands)
    args = parser.parse_args(argv)
    return args.run(args)


def test_cli_without_yes_and_without_a_tty_shows_the_change_set_only(store, claude_home, capsys):
    before = {p.name: p.read_bytes() for p in store.iterdir()}
    code = _parser_main(["--config-dir", str(claude_home.home), "dream", str(store)])
    out = capsys.readouterr()
    assert code == 0
    assert "=== modified: alpha.md" in out.out and "--yes" in out.out
    assert "▸ Orient" in out.err
    assert {p.name: p.read_bytes() for p in store.iterdir()} == before


def test_cli_json_with_yes_applies_and_reports_phases_and_tokens(store, claude_home, capsys):
    code = _parser_main(["--config-dir", str(claude_home.home), "dream", str(store),
                         "--yes", "--json", "--engine", "offline"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [p["name"] for p in data["phases"]] == ["Orient", "Gather", "Consolidate",
                                                   "Prune and index"]
    assert data["tokens"] == {"input": 0, "output": 0}
    assert set(data["applied"]) == {f["file"] for f in data["changeset"]["files"]}
    assert "yesterday" not in (store / "gamma.md").read_text()


def test_cli_a_dream_refused_before_it_ran_says_only_why(store, claude_home, capsys):
    """Nothing ran, so no heading, no phase and no summary: the one sentence alone."""
    from tui.cli import main

    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    try:
        (store / LOCK_NAME).write_text(str(holder.pid))
        code = main(["--config-dir", str(claude_home.home), "dream", str(store), "--yes",
                     "--engine", "offline"])
    finally:
        holder.kill()
        holder.wait()
    out = capsys.readouterr()
    assert code == 2
    assert out.out == ""
    assert out.err.count("\n") == 1 and out.err.startswith("memtui: dream: ")
    assert f"process {holder.pid}" in out.err and "still holds the lock" in out.err


def test_cli_unknown_target_and_missing_key_are_one_sentence(store, claude_home, capsys):
    from tui.cli.support import UsageError

    with pytest.raises(UsageError, match="No project named .no-such-folder., and no project folder"):
        _parser_main(["--config-dir", str(claude_home.home), "dream", "no-such-folder"])
    code = _parser_main(["--config-dir", str(claude_home.home), "dream", str(store),
                         "--engine", "anthropic"])
    assert code == 2
    assert "No API key" in capsys.readouterr().err


def test_a_dry_run_neither_takes_the_lock_nor_touches_its_mtime(store, claude_home, capsys):
    from tui import failpoints

    lock = store / LOCK_NAME
    lock.write_text("")
    last_dream = time.time() - 3 * 86400
    os.utime(lock, (last_dream, last_dream))
    during = []
    failpoints.on("dream.staged", lambda _: during.append(read_lock(store)))
    try:
        code = _parser_main(["--config-dir", str(claude_home.home), "dream", str(store),
                             "--dry-run", "--engine", "offline"])
    finally:
        failpoints.on("dream.staged", None)
    assert code == 0 and "Dry run: nothing was applied." in capsys.readouterr().out
    assert [(state.body, state.mtime) for state in during] == [(b"", last_dream)]
    assert lock.read_bytes() == b"" and lock.stat().st_mtime == last_dream


def test_a_dry_run_beside_a_running_dream_goes_on_and_says_the_store_may_be_changing(
        store, claude_home, capsys):
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    try:
        (store / LOCK_NAME).write_text(str(holder.pid))
        code = _parser_main(["--config-dir", str(claude_home.home), "dream", str(store),
                             "--dry-run", "--engine", "offline"])
        assert (store / LOCK_NAME).read_text() == str(holder.pid)
    finally:
        holder.kill()
        holder.wait()
    out, err = capsys.readouterr()
    assert code == 0 and "Dry run: nothing was applied." in out
    assert (f"warning: process {holder.pid} holds the consolidation lock (a dream is running "
            "there): this dry run may read the store half rewritten") in err


def test_a_dry_run_killed_midway_leaves_nothing_for_the_next_command_to_recover(store):
    env = {**os.environ, "MEMTUI_FAILPOINT": "dream.staged"}
    killed = subprocess.run(
        [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
         "dream", str(store), "--dry-run", "--engine", "offline"],
        env=env, capture_output=True, text=True, timeout=60)
    assert killed.returncode == -9  # killed at the failpoint, mid-run
    assert not (store / LOCK_NAME).exists()
    env.pop("MEMTUI_FAILPOINT")
    following = subprocess.run(
        [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
         "audit", str(store)], env=env, capture_output=True, text=True, timeout=60)
    assert "consolidation lock" not in following.stdout + following.stderr


# --- a dream that finds nothing to change (issue: it set the lock, undo knew nothing) -----


@pytest.fixture
def tidy_store(claude_home, tmp_path):
    """A store the offline dream has nothing to change in."""
    store = claude_home.store(tmp_path / "tidy")
    write_memory(store, "testing.md", memory_text())
    write_index(store, [index_line("testing.md", "Testing")])
    return store


def _lock_three_days_old(store):
    lock = store / LOCK_NAME
    lock.write_text("")
    three_days_ago = time.time() - 3 * 86400
    os.utime(lock, (three_days_ago, three_days_ago))
    return lock, three_days_ago


def test_a_dream_with_nothing_to_change_counts_and_its_undo_puts_the_lock_back(tidy_store):
    """Claude Code counts a dream that changed nothing (the lock keeps its start time), so
    memtui does too; what it wrote, the lock, is a change memtui can undo."""
    from tui.memory.writes import history

    lock, three_days_ago = _lock_three_days_old(tidy_store)
    result = run_dream(tidy_store, engine="offline")
    assert result.changeset.empty
    outcome = conclude(result, apply=True)
    assert lock.stat().st_mtime > three_days_ago  # "last dream: just now"
    (record,) = history(tidy_store)
    assert (record.label, record.changes, outcome.record_ids) == (
        result.changeset.label, (), (record.id,))

    assert undo_changeset(tidy_store) == f"undo {result.changeset.label}"
    assert lock.stat().st_mtime == three_days_ago and lock.read_text() == ""


def test_undoing_a_first_dream_with_nothing_to_change_removes_its_lock(tidy_store):
    conclude(run_dream(tidy_store, engine="offline"), apply=True)
    assert (tidy_store / LOCK_NAME).exists()
    assert undo_changeset(tidy_store)
    assert not (tidy_store / LOCK_NAME).exists()


def test_a_dream_with_nothing_to_change_that_cannot_be_recorded_leaves_no_lock(
        tidy_store, monkeypatch):
    """memtui never leaves a change it cannot undo: the lock goes back as it was."""
    from tui.memory import undo_log

    lock, three_days_ago = _lock_three_days_old(tidy_store)

    def log_full(store, line):
        raise OSError(28, "No space left on device", str(undo_log.log_path(store)))

    monkeypatch.setattr(undo_log, "append", log_full)
    outcome = conclude(run_dream(tidy_store, engine="offline"), apply=True)
    ((file, reason),) = outcome.refused
    assert file == LOCK_NAME and "the disk is full, so nothing was changed" in reason
    assert lock.stat().st_mtime == three_days_ago and lock.read_text() == ""


def test_cli_lists_and_undoes_a_dream_that_changed_nothing(tidy_store, claude_home, capsys):
    from tui import cli

    home = ["--config-dir", str(claude_home.home)]
    lock, three_days_ago = _lock_three_days_old(tidy_store)
    assert cli.main([*home, "dream", str(tidy_store), "--engine", "offline", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "Nothing to change. As Claude Code counts a dream that changed nothing, this one " \
           "counts as a consolidation" in out
    assert f"undo {tidy_store}`." in out

    assert cli.main([*home, "undo", str(tidy_store), "--list"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.endswith("(offline): set .consolidate-lock (the last dream's time)")
    assert cli.main([*home, "undo", str(tidy_store), "--list", "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert (entry["files"], entry["consolidate_lock"]) == ([], "set")

    assert cli.main([*home, "undo", str(tidy_store)]) == 0
    assert capsys.readouterr().out.startswith("Undid dream ")
    assert lock.stat().st_mtime == three_days_ago
    assert cli.main([*home, "undo", str(tidy_store), "--list"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith(
        "(offline): put .consolidate-lock back")
