"""memtui killed at chosen moments, and two memtui processes at once.

The victim is a real process (`python -c`) killed with SIGKILL by a failpoint
(`MEMTUI_FAILPOINT`); the next `memtui` command must put the store back whole, say so in
one line, and leave no temp file behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from conftest import memory_text, snapshot, write_index, write_memory

from tui import xdg
from tui.agents.staging import Staging
from tui.claude.lock import read_lock
from tui.claude.paths import LOCK_NAME
from tui.cli import main
from tui.memory.store_lock import StoreBusy
from tui.memory.writes import FileChange, apply_changes, history, undo_last
from tui.xdg import RUN_COPY_PREFIX, intents_dir, journal_dir

FILES = ("a_first.md", "b_second.md", "c_third.md")

APPLY = textwrap.dedent("""
    import sys
    from pathlib import Path
    from tui.memory.writes import FileChange, apply_changes
    store = Path(sys.argv[1])
    changes = [FileChange(name, (store / name).read_bytes(), f"new {name}\\n".encode())
               for name in sys.argv[2:]]
    apply_changes(store, changes, "edit three")
""")

UNDO = "import sys; from pathlib import Path; from tui.memory.writes import undo_last; " \
       "undo_last(Path(sys.argv[1]))"


@pytest.fixture
def store(claude_home) -> Path:
    memory = claude_home.store(folder="-home-me-proj")
    write_index(memory, ["# Memory"] + [f"- [{name}]({name}) - a memory" for name in FILES])
    for name in FILES:
        write_memory(memory, name, memory_text(name.removesuffix(".md")))
    return memory


def run_python(code: str, *args: str, failpoint: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("MEMTUI_FAILPOINT", None)
    if failpoint:
        env["MEMTUI_FAILPOINT"] = failpoint
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          timeout=60)


def temp_files(store: Path) -> list[str]:
    return [name for _, _, names in os.walk(store) for name in names if "memtui-" in name]


def next_command(store: Path, capsys) -> str:
    """`memtui audit STORE`, as the user's next command; what it said on stderr."""
    main(["audit", str(store)])
    return capsys.readouterr().err


@pytest.mark.parametrize("moment", ["apply.logged", "apply.staged", "swap.aside:2",
                                    "swap.installed:2", "apply.swapped", "apply.before_commit"])
def test_a_change_set_killed_half_way_is_rolled_back_by_the_next_command(store, capsys, moment):
    original = snapshot(store)
    killed = run_python(APPLY, str(store), *FILES, failpoint=moment)
    assert killed.returncode == -signal.SIGKILL

    said = next_command(store, capsys)

    assert snapshot(store) == original
    assert temp_files(store) == []
    assert history(store) == []
    assert not list(intents_dir(store).glob("*.json"))
    if moment.startswith(("swap.installed", "apply.swapped", "apply.before_commit")):
        assert f"{store}: rolled back an interrupted change (edit three)" in said
        assert said.count("\n") == 1  # one line


def test_a_change_set_killed_once_it_was_made_is_kept(store, capsys):
    killed = run_python(APPLY, str(store), *FILES, failpoint="apply.committed")
    assert killed.returncode == -signal.SIGKILL

    assert next_command(store, capsys) == ""
    assert all((store / name).read_bytes() == f"new {name}\n".encode() for name in FILES)
    assert temp_files(store) == []
    assert [record.label for record in history(store)] == ["edit three"]
    undo_last(store)  # and it can still be undone
    assert (store / FILES[0]).read_bytes() != f"new {FILES[0]}\n".encode()


def test_a_change_set_killed_as_its_intent_goes_leaves_no_temp_file(store):
    """Once the intent record is gone no recovery looks at the store: nothing of the write
    may be left in it by then (a staged file is a hard link of the memory, kept forever)."""
    killed = run_python(APPLY, str(store), *FILES, failpoint="apply.intent_cleared")
    assert killed.returncode == -signal.SIGKILL

    assert temp_files(store) == []
    assert all((store / name).read_bytes() == f"new {name}\n".encode() for name in FILES)


def test_a_killed_undo_is_rolled_back_so_the_next_undo_works(store, capsys):
    original = snapshot(store)
    changes = [FileChange(name, original[name], b"changed\n") for name in FILES]
    apply_changes(store, changes, "edit three")
    killed = run_python(UNDO, str(store), failpoint="swap.installed:2")
    assert killed.returncode == -signal.SIGKILL

    said = next_command(store, capsys)

    assert "rolled back an interrupted change (undo edit three)" in said
    assert all((store / name).read_bytes() == b"changed\n" for name in FILES)
    assert undo_last(store) is not None
    assert snapshot(store) == original
    assert temp_files(store) == []


def test_temp_files_of_an_older_memtui_are_removed_by_the_next_command(store, capsys):
    original = snapshot(store)
    (store / ".a_first.md.1a2b3c4d.memtui-tmp").write_bytes(b"half a write")
    (store / ".b_second.md.20261130T120000-abcdef.memtui-new").write_bytes(b"staged")

    said = next_command(store, capsys)

    assert temp_files(store) == []
    assert snapshot(store) == original
    assert "removed 2 temp files" in said


def test_a_temp_file_left_by_a_kill_is_removed_by_audit_all_too(claude_home, store, capsys):
    """`audit --all` names no store: it tidies every store it reads all the same."""
    os.link(store / FILES[0], store / f".{FILES[0]}.20261130T120000-abcdef.memtui-new")

    main(["--config-dir", str(claude_home.home), "audit", "--all"])

    assert temp_files(store) == []
    assert "removed 1 temp file" in capsys.readouterr().err


def test_a_moved_aside_file_whose_name_is_free_goes_back(store, capsys):
    data = (store / "a_first.md").read_bytes()
    os.rename(store / "a_first.md", store / ".a_first.md.20261130T120000-abcdef.memtui-old")

    next_command(store, capsys)

    assert (store / "a_first.md").read_bytes() == data
    assert temp_files(store) == []


@pytest.mark.parametrize("moment", ["lock.leased", "dream.staged"])
def test_a_dream_killed_before_apply_leaves_the_lock_exactly_as_it_was(store, capsys, moment):
    lock = store / LOCK_NAME
    lock.write_bytes(b"48613\n")
    os.utime(lock, (1_700_000_000.5, 1_700_000_000.5))
    dream = subprocess.Popen(
        [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
         "dream", str(store), "--engine", "offline", "--yes"],
        env={**os.environ, "MEMTUI_FAILPOINT": moment},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert dream.wait(timeout=60) == -signal.SIGKILL
    if moment == "dream.staged":
        assert read_lock(store).pid == dream.pid  # the dead dream's PID is in it

    said = next_command(store, capsys)

    assert lock.read_bytes() == b"48613\n"
    assert os.stat(lock).st_mtime == 1_700_000_000.5
    if moment == "dream.staged":
        assert "put the consolidation lock back as it was" in said
    assert list((xdg.state_dir() / "lock-leases").glob("*.json")) == []
    copies = [p.name for p in Path(tempfile.gettempdir()).glob(f"{RUN_COPY_PREFIX}{dream.pid}-*")]
    assert copies == []


def test_a_store_copy_of_a_killed_run_is_removed_on_the_next_run(store, capsys):
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True).stdout)
    corpse = Path(tempfile.mkdtemp(prefix=f"{RUN_COPY_PREFIX}{dead}-"))
    (corpse / "memory").mkdir()
    (corpse / "memory" / "MEMORY.md").write_text("a copy of someone's store")
    alive = Path(tempfile.mkdtemp(prefix=f"{RUN_COPY_PREFIX}{os.getpid()}-"))

    next_command(store, capsys)

    assert not corpse.exists()
    assert alive.exists()  # a run still going (this process) keeps its copy
    alive.rmdir()


IN_MEMORY = pytest.mark.skipif(not os.path.isdir(xdg.MEMORY_TEMP_DIR),
                               reason=f"no {xdg.MEMORY_TEMP_DIR} on this system")


@IN_MEMORY
def test_a_run_copies_the_store_into_memory_unless_a_temp_dir_was_chosen(store, monkeypatch):
    """Issue 44: a 50,000-file copy unlinked from the disk took half of a dream's time."""
    chosen = os.environ["TMPDIR"]
    for name in ("TMPDIR", "TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    staging = Staging.create(store)
    try:
        assert staging.root.parent.parent == Path(xdg.MEMORY_TEMP_DIR)
        assert (staging.root / "MEMORY.md").read_bytes() == (store / "MEMORY.md").read_bytes()
    finally:
        staging.discard()
    assert not staging.root.parent.exists()
    monkeypatch.setenv("TMPDIR", chosen)
    staging = Staging.create(store)
    try:
        assert staging.root.parent.parent == Path(chosen)
    finally:
        staging.discard()


@IN_MEMORY
def test_a_killed_runs_copy_in_memory_is_removed_on_the_next_run(store, capsys):
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True).stdout)
    corpse = Path(tempfile.mkdtemp(prefix=f"{RUN_COPY_PREFIX}{dead}-", dir=xdg.MEMORY_TEMP_DIR))
    (corpse / "memory").mkdir()
    (corpse / "memory" / "MEMORY.md").write_text("a copy of someone's store")

    next_command(store, capsys)

    assert not corpse.exists()


DELETE_AND_CHANGE = textwrap.dedent("""
    import sys
    from pathlib import Path
    from tui.memory.writes import FileChange, apply_changes
    store = Path(sys.argv[1])
    apply_changes(store, [
        FileChange("a_first.md", (store / "a_first.md").read_bytes(), b"changed\\n"),
        FileChange("b_second.md", (store / "b_second.md").read_bytes(), None),
        FileChange("new_one.md", None, b"created\\n"),
    ], "mixed")
""")


@pytest.mark.parametrize("moment", ["swap.installed:1", "swap.aside:2", "apply.swapped",
                                    "apply.before_commit"])
def test_a_killed_change_set_with_a_delete_and_a_create_is_rolled_back_whole(store, capsys,
                                                                               moment):
    """The torture run found a deletion left in place once its moved-aside file was gone."""
    original = snapshot(store)
    killed = run_python(DELETE_AND_CHANGE, str(store), failpoint=moment)
    assert killed.returncode == -signal.SIGKILL

    next_command(store, capsys)

    assert snapshot(store) == original
    assert temp_files(store) == []
    assert history(store) == []


ACQUIRE = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from tui.claude.lock import LockBusy, acquire_lock, rollback_lock
    store, start = Path(sys.argv[1]), float(sys.argv[2])
    time.sleep(max(0.0, start - time.time()))
    try:
        rollback_lock(acquire_lock(store))
        print("won")
    except LockBusy:
        print("lost")
""")


def test_two_processes_taking_the_consolidate_lock_at_once_never_crash(store):
    for _ in range(5):
        start = str(time.time() + 0.5)
        racers = [subprocess.Popen([sys.executable, "-c", ACQUIRE, str(store), start],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                  for _ in range(2)]
        outputs = [racer.communicate(timeout=60) for racer in racers]
        assert all(not err for _, err in outputs), outputs
        assert all(out.strip() in ("won", "lost") for out, _ in outputs)
    assert not (store / LOCK_NAME).exists()  # every winner rolled back: as it was
    assert list((xdg.state_dir() / "lock-leases").glob("*.json")) == []


def test_a_lock_won_then_removed_by_the_other_racer_is_no_crash(store, monkeypatch):
    """The race above, made certain: the other process wins too (last writer wins, there is
    no flock), rolls back and removes the lock between our re-read and our lease."""
    from tui.claude import lock

    reads = []

    def read_then_lose_it(memory_dir):
        state = read_lock(memory_dir)
        reads.append(state)
        if len(reads) == 2:  # our re-read, naming us: now the other racer rolls back
            (memory_dir / LOCK_NAME).unlink()
        return state

    monkeypatch.setattr(lock, "read_lock", read_then_lose_it)
    lease = lock.acquire_lock(store)
    assert lease.pid == os.getpid() and lease.started == reads[1].mtime
    lock.rollback_lock(lease)  # not ours any more: nothing to put back
    assert not (store / LOCK_NAME).exists()


HOLD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from tui.memory.store_lock import store_lock
    with store_lock(Path(sys.argv[1])):
        print("held", flush=True)
        time.sleep(30)
""")


def test_a_second_memtui_says_who_holds_the_store(store, monkeypatch):
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(store)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        before = (store / FILES[0]).read_bytes()
        started = time.monotonic()
        with pytest.raises(StoreBusy, match=f"Another memtui, process {holder.pid}"), \
                monkeypatch.context() as patch:
            from tui.memory import store_lock

            patch.setattr(store_lock, "WAIT_SECONDS", 0.3)
            apply_changes(store, [FileChange(FILES[0], before, b"x\n")], "edit")
        assert time.monotonic() - started < 10  # not the 15 s it waits by default
        assert (store / FILES[0]).read_bytes() == before
    finally:
        holder.kill()
        holder.wait()
    # A killed holder leaves no stale lock.
    apply_changes(store, [FileChange(FILES[0], before, b"x\n")], "edit")


RACE = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from tui.history.recovery import apply_journalled
    from tui.memory.writes import FileChange, WriteRefused
    store, mine, start = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    before = (store / "a_first.md").read_bytes()
    time.sleep(max(0.0, start - time.time()))
    try:
        apply_journalled(store, [FileChange("a_first.md", before, mine.encode())], "edit")
        print("applied")
    except WriteRefused as error:
        print("refused:", error)
""")


def test_two_processes_applying_at_once_never_both_win(store):
    start = time.time() + 1.0
    racers = [subprocess.Popen([sys.executable, "-c", RACE, str(store), f"racer {n}\n",
                                str(start)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True) for n in (1, 2)]
    outputs = [racer.communicate(timeout=60) for racer in racers]

    said = sorted(out.strip() for out, _ in outputs)
    assert all(not err for _, err in outputs), outputs  # no traceback
    assert said[0] == "applied"
    assert said[1].startswith("refused: a_first.md changed on disk")
    assert (store / "a_first.md").read_text() in ("racer 1\n", "racer 2\n")
    assert len(history(store)) == 1
    # Both made their first journalled write together: one journal, none moved aside.
    journals = os.listdir(journal_dir(store).parent)
    assert journals == [journal_dir(store).name]


def test_the_intent_and_the_log_record_are_there_before_the_first_file_is_touched(store):
    from tui import failpoints
    from tui.memory import undo_log

    seen = {}

    def look(_: str) -> None:
        (intent,) = intents_dir(store).glob("*.json")
        seen.update(json.loads(intent.read_text()))
        seen["record"] = undo_log.record_after(store, seen["log_offset"], seen["id"])
        seen["untouched"] = all(b"x\n" != (store / name).read_bytes() for name in FILES)

    failpoints.on("apply.staged", look)
    try:
        apply_changes(store, [FileChange(name, (store / name).read_bytes(), b"x\n")
                              for name in FILES], "edit three")
    finally:
        failpoints.on("apply.staged", None)
    assert [c["file"] for c in seen["record"]["changes"]] == list(FILES)
    assert seen["untouched"]
    assert not list(intents_dir(store).glob("*.json"))
    assert xdg.state_dir() in intents_dir(store).parents  # outside the store


def test_a_second_dream_cannot_start_while_the_first_is_being_reviewed(store):
    from tui.agents.dream import run_dream
    from tui.agents.result import conclude

    first = run_dream(store, engine="offline")  # holds the lock until concluded
    try:
        second = subprocess.run(
            [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
             "dream", str(store), "--engine", "offline", "--yes"],
            capture_output=True, text=True, timeout=60)
    finally:
        conclude(first, apply=True)

    assert second.returncode != 0
    assert f"A consolidation by process {os.getpid()}" in second.stderr + second.stdout
    assert "Traceback" not in second.stderr
    assert len(history(store)) <= 1  # only the first dream's change set, if it had one


def test_an_unwritable_state_dir_refuses_the_write_in_one_sentence(store, tmp_path, monkeypatch):
    from tui.memory.writes import WriteRefused

    blocked = tmp_path / "state-is-a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("MEMTUI_STATE_DIR", str(blocked))
    before = (store / FILES[0]).read_bytes()

    with pytest.raises(WriteRefused, match="Taking memtui's lock for this store failed at "
                       ".*state-is-a-file is a file where a folder is needed, so nothing was "
                       "changed; move it aside"):
        apply_changes(store, [FileChange(FILES[0], before, b"x\n")], "edit")
    assert (store / FILES[0]).read_bytes() == before
