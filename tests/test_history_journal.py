"""The journal: snapshots outside the store, recreated when missing or broken; the watcher."""

from __future__ import annotations

import itertools
import shutil
import threading
import time

import pytest
from waiting import PATIENCE, wait_until

from tests.conftest import memory_text, write_memory
from tui.history.journal import Journal
from tui.history.watch import watch


@pytest.fixture(autouse=True)
def memtui_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def store(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "user_role.md", memory_text(name="role", type="user"))
    write_memory(store, "MEMORY.md", "- [role](user_role.md) — who I am\n")
    return store


def test_snapshot_commits_only_changes_and_stays_outside_the_store(store, tmp_path):
    journal = Journal(store)

    first = journal.snapshot("first look")
    unchanged = journal.snapshot("nothing new")
    write_memory(store, "user_role.md", memory_text(name="role", type="user", body="Data engineer.\n"))
    second = journal.snapshot("edited")

    assert first and second and unchanged is None
    assert journal.path.is_relative_to(tmp_path / "data")
    assert sorted(p.name for p in store.iterdir()) == ["MEMORY.md", "user_role.md"]
    assert journal.read(first, "user_role.md") != journal.read(second, "user_role.md")
    assert journal.read(second, "user_role.md") == (store / "user_role.md").read_bytes()


@pytest.mark.parametrize("damage", ["delete .git", "garbage HEAD", "lose objects"])
def test_a_broken_or_missing_journal_is_started_again_and_the_store_kept(store, damage):
    journal = Journal(store)
    journal.snapshot("first look")
    before = {p.name: p.read_bytes() for p in store.iterdir()}
    if damage == "delete .git":
        shutil.rmtree(journal.path)
    elif damage == "garbage HEAD":
        (journal.path / "HEAD").write_bytes(b"\x00\xffnot a ref\n")
    else:
        shutil.rmtree(journal.path / "objects")

    again = Journal(store)
    rev = again.snapshot("after repair")

    assert rev is not None
    assert {p.name: p.read_bytes() for p in store.iterdir()} == before
    assert again.read(rev, "user_role.md") == before["user_role.md"]
    if damage != "delete .git":  # moved aside, kept for a look
        assert list(again.path.parent.glob(f"{again.path.name}.broken-*"))


def test_the_watcher_commits_changes_made_while_it_runs_even_after_the_store_is_recreated(store):
    stop = threading.Event()
    notes: list[str] = []
    thread = threading.Thread(
        target=watch, args=([store], stop, lambda event: notes.append(event.note)),
        kwargs={"interval": 0.05}, daemon=True,
    )
    thread.start()
    try:
        assert wait_until(lambda: notes)  # started, first snapshot taken
        write_memory(store, "feedback_tests.md", memory_text(body="Run them all.\n"))
        journal = Journal(store)
        assert wait_until(lambda: "feedback_tests.md" in journal.tree(journal.head()))

        shutil.rmtree(store)
        assert wait_until(lambda: any("deleted" in note for note in notes))
        store.mkdir()
        write_memory(store, "project_launch.md", memory_text(body="Launch on 2026-04-01.\n"))
        assert wait_until(lambda: "project_launch.md" in journal.tree(journal.head()))
    finally:
        stop.set()
        thread.join(PATIENCE)
    assert not thread.is_alive()
    # the version from before the deletion is still in the journal
    first = journal.log()[-1][0]
    assert "user_role.md" in journal.tree(first)


def test_a_snapshot_that_drops_the_previous_writers_lines_is_a_lost_update(store):
    from tui.history.overwrites import lost_updates_in_journal

    journal = Journal(store)
    base = "Run the whole suite.\n"
    write_memory(store, "feedback_tests.md", base)
    journal.snapshot("seen", source="watch", trailers={"Session": "s-base"})
    write_memory(store, "feedback_tests.md", base + "- Use the staging database.\n")
    journal.snapshot("seen", source="watch", trailers={"Session": "s-a", "Cwd": "/wt-a"})
    write_memory(store, "feedback_tests.md", base + "- Never mock the clock.\n")
    journal.snapshot("seen", source="watch", trailers={"Session": "s-b", "Cwd": "/wt-b"})
    write_memory(store, "feedback_tests.md", base + "- Never mock the clock.\n- And the network.\n")
    journal.snapshot("seen", source="watch", trailers={"Session": "s-b", "Cwd": "/wt-b"})

    [lost] = lost_updates_in_journal(journal)

    assert (lost.file, lost.session, lost.previous_session, lost.previous_cwd) == (
        "feedback_tests.md", "s-b", "s-a", "/wt-a")
    assert lost.lost_lines == ("- Use the staging database.",)


def test_journal_changes_name_every_written_and_deleted_file_in_order(store):
    journal = Journal(store)
    journal.snapshot("first")
    write_memory(store, "a note with spaces.md", "one\n")
    write_memory(store, "笔记.md", "二\n")
    journal.snapshot("second")
    (store / "a note with spaces.md").unlink()
    journal.snapshot("third")

    changes = [(message.splitlines()[0], changed) for _, _, message, changed in journal.changes()]

    assert [subject for subject, _ in changes] == ["first", "second", "third"]
    assert set(changes[0][1]) == {"user_role.md", "MEMORY.md"}
    second = changes[1][1]
    assert set(second) == {"a note with spaces.md", "笔记.md"}
    assert journal.blob(second["笔记.md"]) == "二\n".encode()
    assert changes[2][1] == {"a note with spaces.md": None}


def test_a_long_watched_journal_is_packed_and_keeps_every_snapshot(store, monkeypatch):
    from tui.history import journal as journal_module

    monkeypatch.setattr(journal_module, "PACK_LIMIT", 4)
    journal = Journal(store)
    for n in range(12):
        write_memory(store, "user_role.md", memory_text(name="role", type="user") + f"v{n}\n")
        journal.snapshot(f"snapshot {n}")

    packs = list((journal.path / "objects" / "pack").glob("*.pack"))
    assert 1 <= len(packs) <= 4
    assert [message.splitlines()[0] for _, _, message in journal.log()][:3] == [
        "snapshot 11", "snapshot 10", "snapshot 9"]
    assert len(journal.versions("user_role.md")) == 12


def test_journal_changes_survive_any_byte_in_names_and_messages(store):
    journal = Journal(store)
    odd = ["rec\x1esep.md", "unit\x1fsep.md", "new\nline.md", ":colon.md"]
    for name in odd:
        write_memory(store, name, "x\n")
    journal.snapshot("edit unit\x1fsep.md", trailers={"Session": "s-1"})
    (store / "rec\x1esep.md").unlink()
    journal.snapshot("edit rec\x1esep.md", trailers={"Session": "s-2"})

    *_, (_, _, first, added), (_, _, second, removed) = journal.changes()

    assert set(odd) <= set(added)
    assert first.startswith("edit unit\x1fsep.md") and first.endswith("Session: s-1")
    assert removed == {"rec\x1esep.md": None}
    assert second.endswith("Session: s-2")


def test_watch_under_churn_commits_at_least_every_two_seconds(store):
    """1,000 writes over 20 s, one every 20 ms, never a quiet poll: versions still reach
    the journal at most 2 s apart (what happened between two commits is coalesced)."""
    from tui.history.watch import MAX_DELAY, StoreWatcher

    clock = [1_000.0]
    watcher = StoreWatcher(store, clock=lambda: clock[0])
    watcher.start()
    committed_at: list[float] = []
    for step in range(1_000):
        write_memory(store, "feedback_tests.md", memory_text(body=f"Version {step}.\n"))
        clock[0] = 1_000.0 + (step + 1) * 0.02
        if step % 50 == 49:  # the default one-second poll
            if watcher.poll() is not None:
                committed_at.append(clock[0])

    assert len(committed_at) >= 9
    gaps = [later - earlier for earlier, later in itertools.pairwise(committed_at)]
    assert max(gaps) <= MAX_DELAY + 1e-6
    assert committed_at[0] - 1_000.0 <= MAX_DELAY + 1e-6


def test_two_processes_creating_one_journal_both_succeed_and_nothing_is_moved_aside(store):
    import subprocess
    import sys

    from tui.xdg import journal_dir

    code = ("import sys, time; from pathlib import Path; from tui.history.journal import Journal;"
            "time.sleep(max(0.0, float(sys.argv[2]) - time.time()));"
            "print(Journal(Path(sys.argv[1])).snapshot('first look') or 'none')")
    start = str(time.time() + 1.0)
    runs = [subprocess.Popen([sys.executable, "-c", code, str(store), start],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(4)]
    outputs = [run.communicate(timeout=60) for run in runs]

    assert all(not err for _, err in outputs), outputs
    commits = [out.strip() for out, _ in outputs if out.strip() != "none"]
    assert len(commits) == 1  # one snapshot; the others found nothing new
    assert sorted(p.name for p in journal_dir(store).parent.iterdir()) == [journal_dir(store).name]


def test_a_snapshot_never_records_a_memtui_write_in_flight(store):
    """memtui's temp files (a new version beside the file, the old one set aside, a lock's
    own temp file) are gone a moment later: a version holding them would be history of
    files nobody wrote."""
    journal = Journal(store)
    for name in (".user_role.md.memtui-new", ".user_role.md.1.memtui-old",
                 ".consolidate-lock.memtui-lock", ".old.md.memtui-tmp"):
        (store / name).write_text("in flight\n")
    first = journal.snapshot("while writing")
    assert sorted(journal.tree(first)) == ["MEMORY.md", "user_role.md"]
