"""An outside writer racing memtui's write: kept or reported, never silently overwritten.

Each test makes Claude Code's write land at one exact moment inside memtui's apply (a
failpoint), in each of the two ways a writer replaces a file: in place (open, truncate,
write, as Node's writeFile does) and by renaming a temp file over it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import memory_text, snapshot, write_index, write_memory

from tui import failpoints
from tui.memory.writes import ConflictError, FileChange, apply_changes, history

OUTSIDE = b"written by Claude Code in another worktree\n"


@pytest.fixture
def store(claude_home) -> Path:
    memory = claude_home.store(folder="-home-me-proj")
    write_index(memory, ["# Memory", "- [Testing](feedback_testing.md) - how we test"])
    write_memory(memory, "feedback_testing.md", memory_text())
    write_memory(memory, "user_role.md", memory_text("role", "who I am", "user"))
    return memory


@pytest.fixture(autouse=True)
def no_failpoints():
    yield
    for name in ("apply.staged", "swap.aside", "swap.installed", "apply.swapped"):
        failpoints.on(name, None)


def write_in_place(path: Path, data: bytes = OUTSIDE) -> None:
    with open(path, "wb") as out:
        out.write(data)


def write_by_rename(path: Path, data: bytes = OUTSIDE) -> None:
    temp = path.with_name(path.name + ".claude-tmp")
    temp.write_bytes(data)
    os.replace(temp, path)


def once(callback):
    """A failpoint callback that acts the first time only."""
    done = []

    def act(detail: str) -> None:
        if not done:
            done.append(detail)
            callback(detail)

    return act


def change_both(store: Path) -> list[FileChange]:
    original = snapshot(store)
    return [
        FileChange("user_role.md", original["user_role.md"], b"memtui's role\n"),
        FileChange("feedback_testing.md", original["feedback_testing.md"], b"memtui's test\n"),
    ]


def assert_outside_write_kept(store: Path, original: dict[str, bytes]) -> None:
    """The outside bytes are in feedback_testing.md, every other file is as it was, no
    memtui temp file is left and nothing was recorded as applied."""
    now = snapshot(store)
    assert now["feedback_testing.md"] == OUTSIDE
    assert {k: v for k, v in now.items() if k != "feedback_testing.md"} == {
        k: v for k, v in original.items() if k != "feedback_testing.md"}
    assert not [name for name in os.listdir(store) if "memtui-" in name]
    assert history(store) == []


@pytest.mark.parametrize("outside_write", [write_in_place, write_by_rename])
def test_an_outside_write_after_the_backups_is_reported_not_overwritten(store, outside_write):
    """The early check passed; the write lands while memtui staged its files."""
    original = snapshot(store)
    failpoints.on("apply.staged", once(lambda _: outside_write(store / "feedback_testing.md")))

    with pytest.raises(ConflictError, match="feedback_testing.md changed on disk") as raised:
        apply_changes(store, change_both(store), "edit two")

    assert raised.value.actual == OUTSIDE
    assert_outside_write_kept(store, original | {"feedback_testing.md": OUTSIDE})


def test_a_file_created_after_memtui_moved_the_old_one_aside_is_kept(store):
    """Between the move aside and the install the name is free: a writer that creates
    the file then wins, and memtui's install refuses to replace it."""
    original = snapshot(store)

    def create_anew(detail: str) -> None:
        if detail == "feedback_testing.md":
            write_in_place(store / "feedback_testing.md")

    failpoints.on("swap.aside", create_anew)
    with pytest.raises(ConflictError, match="feedback_testing.md"):
        apply_changes(store, change_both(store), "edit two")

    assert_outside_write_kept(store, original | {"feedback_testing.md": OUTSIDE})


def test_a_writer_holding_the_old_file_open_is_caught_before_the_old_file_goes(store):
    """A writer opened the file before memtui moved it aside and writes after the install:
    its bytes land in the moved-aside file, which the last check sees; the whole set is
    rolled back and the outside bytes return to the file's name."""
    original = snapshot(store)
    held = open(store / "feedback_testing.md", "r+b")  # noqa: SIM115 (held across the apply)

    def write_through_held_handle(_: str) -> None:
        held.seek(0)
        held.truncate()
        held.write(OUTSIDE)
        held.flush()

    failpoints.on("apply.swapped", once(write_through_held_handle))
    try:
        with pytest.raises(ConflictError, match="feedback_testing.md"):
            apply_changes(store, change_both(store), "edit two")
    finally:
        held.close()

    assert_outside_write_kept(store, original | {"feedback_testing.md": OUTSIDE})


def test_an_outside_write_after_memtuis_install_is_kept_by_the_rollback(store):
    """A conflict on a later file rolls the earlier ones back, but a file an outside
    writer rewrote after memtui's install keeps the outside write."""

    def another_session_writes_both(detail: str) -> None:
        if detail == "user_role.md":
            write_by_rename(store / "user_role.md")
            write_in_place(store / "feedback_testing.md")

    failpoints.on("swap.installed", another_session_writes_both)
    with pytest.raises(ConflictError, match="an outside write to user_role.md was kept too"):
        apply_changes(store, change_both(store), "edit two")

    now = snapshot(store)
    assert now["user_role.md"] == OUTSIDE
    assert now["feedback_testing.md"] == OUTSIDE
    assert not [name for name in os.listdir(store) if "memtui-" in name]
    assert history(store) == []


def test_a_conflict_on_the_second_file_puts_the_first_back_with_its_inode(store):
    original = snapshot(store)
    inode = (store / "user_role.md").stat().st_ino
    failpoints.on("apply.staged", once(lambda _: write_in_place(store / "feedback_testing.md")))

    with pytest.raises(ConflictError):
        apply_changes(store, change_both(store), "edit two")

    assert snapshot(store)["user_role.md"] == original["user_role.md"]
    assert (store / "user_role.md").stat().st_ino == inode  # the very file, not a copy


def test_a_create_never_replaces_a_file_that_appeared(store):
    failpoints.on("apply.staged", once(lambda _: write_in_place(store / "new_topic.md")))

    with pytest.raises(ConflictError, match="new_topic.md"):
        apply_changes(store, [FileChange("new_topic.md", None, b"memtui's\n")], "add")

    assert (store / "new_topic.md").read_bytes() == OUTSIDE


def test_a_delete_never_removes_a_file_rewritten_meanwhile(store):
    before = (store / "user_role.md").read_bytes()
    failpoints.on("apply.staged", once(lambda _: write_in_place(store / "user_role.md")))

    with pytest.raises(ConflictError, match="user_role.md"):
        apply_changes(store, [FileChange("user_role.md", before, None)], "delete 1 memory")

    assert (store / "user_role.md").read_bytes() == OUTSIDE


def test_without_a_race_the_change_goes_in_whole(store):
    apply_changes(store, change_both(store), "edit two")

    now = snapshot(store)
    assert now["user_role.md"] == b"memtui's role\n"
    assert now["feedback_testing.md"] == b"memtui's test\n"
    assert not [name for name in os.listdir(store) if "memtui-" in name]
    assert [record.label for record in history(store)] == ["edit two"]
