"""`memtui watch` against what `scripts/torture_watch.py` throws at it: files it cannot read,
kills in the middle of a journal write, names that are not text."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import hostile_homes
import pytest
from waiting import PATIENCE, running, wait_until

from tests.conftest import memory_text, write_memory, write_whole
from tui.history.journal import Journal

# One watcher in a process of its own (root's permission bypass dropped, so a mode of 0
# bites): its start, then two polls, each event's note on a line.
WATCH_A_LITTLE = textwrap.dedent("""
    import sys
    from pathlib import Path
    from tui.history.watch import StoreWatcher
    watcher = StoreWatcher(Path(sys.argv[1]), max_delay=0)
    print(watcher.start().note)
    for _ in range(2):
        event = watcher.poll()
        print(event.note if event else "-")
""")


def watch_a_little(store) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", WATCH_A_LITTLE, str(store)], capture_output=True, text=True,
        timeout=60, env=dict(os.environ),
        preexec_fn=hostile_homes.drop_root_bypass if os.geteuid() == 0 else None)


@pytest.fixture
def store(claude_home, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "user_role.md", memory_text(name="role", type="user"))
    write_memory(store, "MEMORY.md", "- [role](user_role.md) — who I am\n")
    write_memory(store, "topic/deep.md", memory_text(name="deep", body="In a subfolder.\n"))
    return store


@pytest.mark.skipif(not hostile_homes.can_deny_permissions(), reason="cannot take read permission away here")
@pytest.mark.parametrize("locked", ["", "topic", "user_role.md"])
def test_what_watch_cannot_read_keeps_its_last_version_and_is_said_in_one_line(store, locked):
    journal = Journal(store)
    first = journal.snapshot("seen")
    write_memory(store, "MEMORY.md", "- [role](user_role.md) — who I am, edited\n")
    (store / locked).chmod(0)
    try:
        result = watch_a_little(store)
    finally:
        (store / locked).chmod(0o755 if (store / locked).is_dir() else 0o644)

    assert "Traceback" not in result.stdout + result.stderr and result.returncode == 0
    tree = journal.tree(journal.head())
    assert {"user_role.md", "topic/deep.md"} <= tree.keys()  # never recorded as deleted
    assert tree["user_role.md"] == journal.tree(first)["user_role.md"]
    said = [line for line in result.stdout.splitlines() if "cannot read" in line]
    assert len(said) == 1 and "Permission denied" in said[0]
    if locked:  # what could be read was journalled
        assert journal.read(journal.head(), "MEMORY.md").endswith(b"edited\n")


def test_a_ref_lock_left_by_a_killed_journal_write_does_not_stop_the_journal(store):
    """git leaves `refs/heads/main.lock` when killed between taking it and renaming it; every
    journal writer holds the store's lock, so one found under that lock is stale."""
    journal = Journal(store)
    journal.snapshot("seen")
    (journal.path / "refs" / "heads" / "main.lock").write_text("")
    write_memory(store, "MEMORY.md", "- [role](user_role.md) — edited after the kill\n")

    rev = journal.snapshot("seen again")

    assert rev is not None and journal.read(rev, "MEMORY.md").endswith(b"after the kill\n")
    assert not (journal.path / "refs" / "heads" / "main.lock").exists()


def test_a_store_watch_cannot_commit_is_said_once_and_the_other_stores_are_still_watched(
        store, claude_home, tmp_path, monkeypatch):
    import threading

    from tui.history.watch import watch
    from tui.memory import store_lock as store_lock_module

    monkeypatch.setattr(store_lock_module, "WAIT_SECONDS", 0.2)
    other = claude_home.store(tmp_path / "other")
    write_memory(other, "MEMORY.md", "- [a](a.md) — a\n")
    write_memory(store, "MEMORY.md", "- [role](user_role.md) — changed while busy\n")
    holding, release, stop = threading.Event(), threading.Event(), threading.Event()

    def hold_the_lock() -> None:  # another memtui writing the store for a long time
        with store_lock_module.store_lock(store):
            holding.set()
            release.wait(PATIENCE)

    holder = threading.Thread(target=hold_the_lock, daemon=True)
    holder.start()
    assert holding.wait(PATIENCE)
    notes: list[str] = []
    watching = threading.Thread(target=watch, args=([store, other], stop, lambda e: notes.append(e.note)),
                                kwargs={"interval": 0.05}, daemon=True)
    watching.start()
    try:
        assert wait_until(lambda: len(notes) >= 2)  # both started, the first one busy
        write_memory(other, "a.md", "written while the first store is busy\n")
        assert wait_until(lambda: any("a.md" in note and "committed" in note for note in notes)), notes
        assert watching.is_alive()
        busy = [note for note in notes if "Another memtui" in note]
        assert len(busy) == 1 and busy[0].startswith(str(store))
        release.set()
        journal = Journal(store)
        assert wait_until(lambda: journal.head() is not None and journal.read(
            journal.head(), "MEMORY.md").endswith(b"changed while busy\n"))
    finally:
        release.set()
        stop.set()
        watching.join(PATIENCE)


def test_a_file_name_with_a_newline_keeps_each_watch_message_on_one_line(store, claude_home):
    import signal

    with running([sys.executable, "-m", "tui", "--config-dir", str(claude_home.home), "watch",
                  str(store), "--interval", "0.05"], env=dict(os.environ)) as (process, out, err):
        out.wait_for(lambda line: str(store) in line)  # started
        write_whole(store, "two\nlines\x1b[2J.md", "a name no one should give a file\n")
        out.wait_for(lambda line: "committed" in line and "lines" in line)
        process.send_signal(signal.SIGINT)
        assert process.wait(PATIENCE) == 0
        printed = out.whole()
    assert len(printed) == 3, printed
    assert "committed" in printed[1] and "two\u240alines\u241b[2J.md" in printed[1]
    assert printed[2].startswith("memtui: stopped watching") and err.whole() == []


def test_the_temp_pack_of_a_killed_journal_write_is_removed_by_the_next_write(store):
    """fast-import killed mid-write leaves `objects/pack/tmp_pack_*` (as big as what it was
    writing); git itself would keep it two weeks. Under the store's lock it is stale."""
    journal = Journal(store)
    journal.snapshot("seen")
    left = journal.path / "objects" / "pack" / "tmp_pack_Xy12Ab"
    left.write_bytes(b"PACK" + bytes(4096))
    write_memory(store, "MEMORY.md", "- [role](user_role.md) — edited after the kill\n")

    assert journal.snapshot("seen again") is not None
    assert not left.exists()


def test_watch_all_takes_up_a_store_made_after_it_started(store, claude_home, tmp_path):
    """Watch runs for days; projects started meanwhile get their stores journalled too."""
    import signal

    with running([sys.executable, "-m", "tui", "--config-dir", str(claude_home.home), "watch",
                  "--all", "--interval", "0.05"], env=dict(os.environ)) as (process, out, err):
        out.wait_for(lambda line: line.startswith(str(store)))
        later = claude_home.store(tmp_path / "started-later")
        write_memory(later, "MEMORY.md", "- [a](a.md) — a project started while watching\n")
        out.wait_for(lambda line: line.startswith(str(later)))  # within 30 polls
        journal = Journal(later)
        assert wait_until(lambda: journal.head() is not None and journal.read(
            journal.head(), "MEMORY.md") == b"- [a](a.md) \xe2\x80\x94 a project started while watching\n")
        process.send_signal(signal.SIGINT)
        assert process.wait(PATIENCE) == 0
    assert err.whole() == []


def test_a_rewrite_hidden_behind_the_same_size_and_timestamp_is_still_committed(store):
    """A filesystem whose timestamps tick coarsely (jiffies on older kernels, 2 s on FAT)
    gives a rewrite of the same size in the same tick the same (size, mtime): the watcher
    must look at the bytes of files written that close to its last look."""
    from tui.history.watch import StoreWatcher

    path = store / "user_role.md"
    watcher = StoreWatcher(store, max_delay=0)
    watcher.start()
    before = path.stat()
    path.write_bytes(path.read_bytes().replace(b"role", b"ROLE"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the same tick
    assert path.stat().st_size == before.st_size

    for _ in range(3):
        watcher.poll()

    journal = Journal(store)
    assert journal.read(journal.head(), "user_role.md") == path.read_bytes()
