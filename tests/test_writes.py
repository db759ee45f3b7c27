"""Safe writes: conflict checks, the consolidate lock, atomic replace, backups, undo."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest
from conftest import memory_text, snapshot, write_index, write_memory

from tui import xdg
from tui.claude.paths import LOCK_NAME
from tui.memory import swap, writes
from tui.memory.intents import recover_store
from tui.memory.writes import (
    ConflictError,
    FileChange,
    StoreLocked,
    WriteRefused,
    apply_changes,
    archive_dir,
    history,
    list_archived,
    read_bytes,
    restore_change,
    undo_last,
)


@pytest.fixture
def data_dir() -> Path:
    return xdg.data_dir()  # conftest points it at a fresh temp dir for every test


@pytest.fixture
def store(claude_home) -> Path:
    memory = claude_home.store(folder="-home-me-proj")
    write_index(memory, ["# Memory", "- [Testing](feedback_testing.md) — how we test"])
    write_memory(memory, "feedback_testing.md", memory_text())
    return memory


def test_apply_writes_backs_up_logs_and_undo_restores_bytes(store, data_dir):
    original = snapshot(store, recursive=True)
    (store / "MEMORY.md").chmod(0o640)
    new_index = original["MEMORY.md"] + b"- [Role](user_role.md) \xe2\x80\x94 who I am\n"
    record = apply_changes(store, [
        FileChange("MEMORY.md", original["MEMORY.md"], new_index),
        FileChange("user_role.md", None, b"---\nname: role\n---\nbody\n"),
    ], "add role")

    assert (store / "MEMORY.md").read_bytes() == new_index
    assert stat.S_IMODE((store / "MEMORY.md").stat().st_mode) == 0o640
    assert (store / "user_role.md").read_bytes() == b"---\nname: role\n---\nbody\n"
    backup = data_dir / "backups" / "-home-me-proj" / record.id / "MEMORY.md"
    assert backup.read_bytes() == original["MEMORY.md"]
    assert "changed MEMORY.md" in record.summary() and "created user_role.md" in record.summary()

    undo = undo_last(store)
    assert undo is not None and undo.undoes == record.id
    assert snapshot(store, recursive=True) == {**original}
    assert stat.S_IMODE((store / "MEMORY.md").stat().st_mode) == 0o640
    newest, oldest = history(store)
    assert newest.label == "undo add role" and oldest.undone
    assert oldest.summary().endswith("(undone)")


def test_undo_walks_back_one_change_at_a_time(store):
    first = read_bytes(store, "feedback_testing.md")
    apply_changes(store, [FileChange("feedback_testing.md", first, b"second\n")], "edit 1")
    apply_changes(store, [FileChange("feedback_testing.md", b"second\n", b"third\n")], "edit 2")

    undo_last(store)
    assert read_bytes(store, "feedback_testing.md") == b"second\n"
    undo_last(store)
    assert read_bytes(store, "feedback_testing.md") == first
    assert undo_last(store) is None
    assert [r.label for r in history(store)] == [
        "undo edit 1", "undo edit 2", "edit 2", "edit 1",
    ]


def test_conflict_refuses_everything_and_carries_both_versions(store):
    original = snapshot(store, recursive=True)
    changes = [
        FileChange("user_new.md", None, b"new\n"),
        FileChange("feedback_testing.md", b"what we read earlier\n", b"ours\n"),
    ]
    with pytest.raises(ConflictError) as raised:
        apply_changes(store, changes, "edit")

    assert raised.value.file == "feedback_testing.md"
    assert raised.value.expected == b"what we read earlier\n"
    assert raised.value.actual == original["feedback_testing.md"]
    assert snapshot(store, recursive=True) == original
    assert history(store) == []


def test_undo_refuses_when_the_file_changed_since(store):
    before = read_bytes(store, "feedback_testing.md")
    apply_changes(store, [FileChange("feedback_testing.md", before, b"ours\n")], "edit")
    (store / "feedback_testing.md").write_bytes(b"Claude wrote this meanwhile\n")

    with pytest.raises(ConflictError):
        undo_last(store)
    assert read_bytes(store, "feedback_testing.md") == b"Claude wrote this meanwhile\n"


def test_a_live_consolidate_lock_refuses_and_names_the_pid(store):
    (store / LOCK_NAME).write_text(str(os.getpid()))
    before = read_bytes(store, "feedback_testing.md")

    with pytest.raises(StoreLocked) as raised:
        apply_changes(store, [FileChange("feedback_testing.md", before, b"x\n")], "edit")
    assert str(os.getpid()) in str(raised.value)
    assert read_bytes(store, "feedback_testing.md") == before

    stale = time.time() - 2 * 60 * 60
    os.utime(store / LOCK_NAME, (stale, stale))
    apply_changes(store, [FileChange("feedback_testing.md", before, b"x\n")], "edit")
    assert read_bytes(store, "feedback_testing.md") == b"x\n"


@pytest.mark.parametrize("file", ["../escape.md", "/tmp/absolute.md", "sub/../../x.md",
                                  "notes.txt", LOCK_NAME])
def test_targets_outside_the_store_or_not_markdown_are_refused(store, file):
    with pytest.raises(WriteRefused):
        apply_changes(store, [FileChange(file, None, b"x\n")], "sneaky")
    assert not (store.parent / "escape.md").exists()


def test_a_symlink_out_of_the_store_is_refused(store, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"private\n")
    (store / "linked.md").symlink_to(outside)
    (store / "linked_dir").symlink_to(tmp_path, target_is_directory=True)

    with pytest.raises(WriteRefused):
        apply_changes(store, [FileChange("linked.md", b"private\n", b"gone\n")], "edit")
    with pytest.raises(WriteRefused):
        apply_changes(store, [FileChange("linked_dir/new.md", None, b"x\n")], "edit")
    assert outside.read_bytes() == b"private\n"
    assert not (tmp_path / "new.md").exists()


def test_a_failed_write_half_way_leaves_every_file_as_it_was(store, monkeypatch):
    """All-or-nothing: the file already replaced is put back, no temp file remains."""
    original = snapshot(store, recursive=True)
    real_link = os.link
    installs = []

    def failing_link(source, destination, **options):
        if Path(destination).parent == store and str(source).endswith(".memtui-new"):
            installs.append(destination)
            if len(installs) == 2:
                raise OSError(28, "No space left on device")
        return real_link(source, destination, **options)

    monkeypatch.setattr(swap.os, "link", failing_link)
    with pytest.raises(WriteRefused, match="Writing MEMORY.md failed.*the disk is full, so nothing was changed"):
        apply_changes(store, [
            FileChange("feedback_testing.md", original["feedback_testing.md"], b"one\n"),
            FileChange("MEMORY.md", original["MEMORY.md"], b"two\n"),
        ], "edit")

    assert len(installs) == 2  # feedback_testing.md went in, MEMORY.md failed
    assert snapshot(store, recursive=True) == original
    assert not [p for p in store.iterdir() if "memtui-" in p.name]
    assert history(store) == []


def test_a_torn_last_log_line_is_skipped(store, data_dir):
    before = read_bytes(store, "feedback_testing.md")
    apply_changes(store, [FileChange("feedback_testing.md", before, b"x\n")], "edit")
    log = data_dir / "backups" / "-home-me-proj" / "log.jsonl"
    with open(log, "a") as out:
        out.write('{"id": "cut-sh')

    assert [r.label for r in history(store)] == ["edit"]
    assert undo_last(store) is not None
    assert read_bytes(store, "feedback_testing.md") == before
    assert json.loads(log.read_text().splitlines()[-1])["undoes"] is not None


def test_undoing_a_delete_brings_back_the_old_mtime(store):
    old = time.time() - 30 * 86400
    os.utime(store / "feedback_testing.md", (old, old))
    before = read_bytes(store, "feedback_testing.md")
    apply_changes(store, [FileChange("feedback_testing.md", before, None)], "delete 1 memory")
    assert not (store / "feedback_testing.md").exists()

    undo_last(store)
    assert read_bytes(store, "feedback_testing.md") == before
    assert (store / "feedback_testing.md").stat().st_mtime == pytest.approx(old, abs=1)


def test_archiving_keeps_every_version_and_restores_under_the_old_name(store):
    first = read_bytes(store, "feedback_testing.md")
    apply_changes(store, [FileChange("feedback_testing.md", first, None)], "archive 1 memory")
    write_memory(store, "feedback_testing.md", "a newer memory\n")
    apply_changes(store, [FileChange("feedback_testing.md", b"a newer memory\n", None)],
                  "archive 1 memory")

    archived = list_archived(store)
    assert sorted(path.read_bytes() for path in archived) == sorted([first, b"a newer memory\n"])
    assert all(path.is_relative_to(archive_dir(store)) for path in archived)
    stamped = next(path for path in archived if path.name != "feedback_testing.md")
    change = restore_change(store, stamped)
    assert change == FileChange("feedback_testing.md", None, b"a newer memory\n", change.mtime)

    apply_changes(store, [change], "restore feedback_testing.md")
    assert read_bytes(store, "feedback_testing.md") == b"a newer memory\n"


def test_an_empty_change_is_refused_and_not_logged(store):
    with pytest.raises(WriteRefused, match="nothing to change"):
        apply_changes(store, [], "nothing")
    assert history(store) == []


def test_a_plain_delete_is_not_archived(store):
    before = read_bytes(store, "feedback_testing.md")
    apply_changes(store, [FileChange("feedback_testing.md", before, None)], "delete 1 memory")
    assert list_archived(store) == []


def test_stores_outside_a_projects_folder_get_a_hashed_key(tmp_path, data_dir):
    elsewhere = tmp_path / "custom-memory"
    elsewhere.mkdir()
    record = apply_changes(elsewhere, [FileChange("a.md", None, b"a\n")], "create")

    assert writes.store_key(elsewhere).startswith("path-")
    log = data_dir / "backups" / writes.store_key(elsewhere) / "log.jsonl"
    assert json.loads(log.read_text())["id"] == record.id


def test_when_even_the_rollback_fails_the_next_command_puts_the_files_back(store, monkeypatch):
    """A rollback that cannot write keeps its intent record; recovery finishes the job."""
    original = snapshot(store, recursive=True)
    real_link, real_replace = os.link, os.replace

    def failing_link(source, destination, **options):
        if str(destination).endswith("MEMORY.md") and str(source).endswith(".memtui-new"):
            raise OSError(5, "Input/output error")
        return real_link(source, destination, **options)

    def failing_replace(source, destination):
        if Path(destination).parent == store:
            raise OSError(5, "Input/output error")
        return real_replace(source, destination)

    monkeypatch.setattr(swap.os, "link", failing_link)
    monkeypatch.setattr(swap.os, "replace", failing_replace)
    with pytest.raises(WriteRefused, match="could not be put back yet \\(the next memtui command puts it back\\)"):
        apply_changes(store, [
            FileChange("feedback_testing.md", original["feedback_testing.md"], b"one\n"),
            FileChange("MEMORY.md", original["MEMORY.md"], b"two\n"),
        ], "edit")
    monkeypatch.setattr(swap.os, "link", real_link)
    monkeypatch.setattr(swap.os, "replace", real_replace)
    assert read_bytes(store, "feedback_testing.md") == b"one\n"  # stuck half-way

    messages = recover_store(store)
    assert messages == [f"{store}: rolled back an interrupted change (edit); "
                        "1 file put back as it was."]
    assert snapshot(store, recursive=True) == original
    assert not [p for p in store.iterdir() if "memtui-" in p.name]
    assert history(store) == []


def test_redo_puts_back_what_undo_took_newest_undo_first(store):
    from tui.memory.writes import redo_last

    first = read_bytes(store, "feedback_testing.md")
    apply_changes(store, [FileChange("feedback_testing.md", first, b"second\n")], "edit 1")
    apply_changes(store, [FileChange("feedback_testing.md", b"second\n", b"third\n")], "edit 2")
    undo_last(store)
    undo_last(store)
    assert read_bytes(store, "feedback_testing.md") == first

    redone = redo_last(store)
    assert redone is not None and redone.label == "redo edit 1"
    assert read_bytes(store, "feedback_testing.md") == b"second\n"
    redo_last(store)
    assert read_bytes(store, "feedback_testing.md") == b"third\n"
    assert redo_last(store) is None  # nothing left undone

    undone = undo_last(store)  # undo after redo takes back the redone change
    assert undone is not None and undone.label == "undo edit 2"
    assert read_bytes(store, "feedback_testing.md") == b"second\n"
    redo_last(store)
    assert read_bytes(store, "feedback_testing.md") == b"third\n"
    undo_last(store)
    undo_last(store)
    assert read_bytes(store, "feedback_testing.md") == first
    assert undo_last(store) is None


def test_a_new_change_after_an_undo_leaves_nothing_to_redo(store):
    from tui.memory.writes import redo_last

    first = read_bytes(store, "feedback_testing.md")
    apply_changes(store, [FileChange("feedback_testing.md", first, b"second\n")], "edit 1")
    undo_last(store)
    apply_changes(store, [FileChange("MEMORY.md", read_bytes(store, "MEMORY.md"), b"# M\n")],
                  "edit index")
    assert redo_last(store) is None
    assert read_bytes(store, "feedback_testing.md") == first


def test_redo_refuses_when_the_file_changed_since_the_undo(store):
    from tui.memory.writes import redo_last

    first = read_bytes(store, "feedback_testing.md")
    apply_changes(store, [FileChange("feedback_testing.md", first, b"ours\n")], "edit")
    undo_last(store)
    (store / "feedback_testing.md").write_bytes(b"Claude wrote this meanwhile\n")
    with pytest.raises(ConflictError):
        redo_last(store)
    assert read_bytes(store, "feedback_testing.md") == b"Claude wrote this meanwhile\n"


def test_undo_with_a_merge_keeps_what_was_written_since_on_other_lines(store):
    from tui.history.recovery import keep_both

    index = read_bytes(store, "MEMORY.md")
    ours = index + b"- [Role](user_role.md) \xe2\x80\x94 who I am\n"
    apply_changes(store, [FileChange("MEMORY.md", index, ours)], "relink")
    (store / "MEMORY.md").write_bytes(b"# Claude's heading\n" + ours)
    with pytest.raises(ConflictError):
        undo_last(store)  # without a merge: refused, as before
    undo_last(store, keep_both)
    assert read_bytes(store, "MEMORY.md") == b"# Claude's heading\n" + index


def test_undo_refuses_with_a_sentence_when_the_file_was_deleted_since(store):
    from tui.history.recovery import keep_both

    before = read_bytes(store, "feedback_testing.md")
    apply_changes(store, [FileChange("feedback_testing.md", before, before + b"more\n")], "edit")
    (store / "feedback_testing.md").unlink()
    with pytest.raises(ConflictError) as raised:
        undo_last(store, keep_both)
    assert "was deleted on disk since memtui's change (edit)" in str(raised.value)
    assert not (store / "feedback_testing.md").exists()
