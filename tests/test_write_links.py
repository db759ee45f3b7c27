"""No memtui write follows a symlink out of the store, whoever makes it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import memory_text, user_record, write_memory

from tui.agents.dream import run_dream
from tui.agents.extract import run_extract
from tui.agents.result import conclude
from tui.agents.staging import PathRefused, Staging
from tui.claude.lock import LockBusy, acquire_lock
from tui.claude.paths import LOCK_NAME
from tui.memory.audit import audit_store
from tui.memory.store import load_store
from tui.memory.writes import FileChange, WriteRefused, apply_changes


@pytest.fixture
def store(claude_home) -> Path:
    memory = claude_home.store(folder="-home-me-proj")
    write_memory(memory, "feedback_testing.md", memory_text())
    write_memory(memory, "user_role.md", memory_text("role", "who I am", "user"))
    return memory


@pytest.fixture
def outside(tmp_path) -> Path:
    folder = tmp_path / "dotfiles"
    folder.mkdir()
    return folder


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes()
            for path in folder.rglob("*") if path.is_file()}


def dream_and_apply(store: Path):
    result = run_dream(store, engine="offline")
    assert result.error is None, result.error
    conclude(result, apply=True)
    return result


def test_a_dream_never_writes_through_a_symlinked_index(store, outside):
    """The offline dream would add both memories to the index; the index is a link to a
    file outside the store, so the change is left out and the run says why."""
    (outside / "MEMORY.md").write_text("# Memory\n")
    (store / "MEMORY.md").symlink_to(outside / "MEMORY.md")
    before = files_under(outside)

    result = dream_and_apply(store)

    assert files_under(outside) == before
    assert "MEMORY.md" not in [f.file for f in result.changeset.files]
    assert any("MEMORY.md is a symlink" in note for note in result.changeset.notes)
    assert (store / "MEMORY.md").is_symlink()


def test_a_dream_never_creates_a_file_through_a_dangling_relative_link(store, outside):
    (store / "MEMORY.md").symlink_to(os.path.relpath(outside / "new-index.md", store))
    (store / "dangling.md").symlink_to("../../../dotfiles/gone.md")

    dream_and_apply(store)

    assert files_under(outside) == {}
    assert not Path(store, "../../../dotfiles/gone.md").exists()


def test_an_extraction_never_writes_through_a_symlinked_index(claude_home, tmp_path, outside):
    """The offline extraction adds a memory and its index line; the memory goes in, the
    index line would go through the link, so it is left out with a note."""
    project = tmp_path / "project"
    project.mkdir()
    store = claude_home.store(project)
    (outside / "MEMORY.md").write_text("# Memory\n")
    (store / "MEMORY.md").symlink_to(outside / "MEMORY.md")
    transcript = claude_home.session(
        project, user_record(str(project), "Never push to main directly because CI deploys."))
    before = files_under(outside)

    result = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                         engine="offline")
    assert result.error is None, result.error
    conclude(result, apply=True)

    assert files_under(outside) == before
    assert [f.file for f in result.changeset.files if f.file == "MEMORY.md"] == []
    assert any("MEMORY.md is a symlink" in note for note in result.changeset.notes)


def test_staging_holds_regular_files_only(store, outside):
    (outside / "secret.md").write_text("not the store's")
    (store / "MEMORY.md").symlink_to(outside / "secret.md")
    (store / "alias.md").symlink_to("user_role.md")
    (store / "linked_dir").symlink_to(outside, target_is_directory=True)

    staging = Staging.create(store)
    try:
        links = [p for p in staging.root.rglob("*") if p.is_symlink()]
        assert links == []
        assert not (staging.root / "MEMORY.md").exists()  # points outside: left out
        assert (staging.root / "alias.md").read_bytes() == (store / "user_role.md").read_bytes()
        assert set(staging.links) == {"MEMORY.md", "alias.md", "linked_dir"}
        with pytest.raises(PathRefused, match="symlink"):
            staging.resolve("alias.md", writing=True)
        with pytest.raises(PathRefused, match="symlink"):
            staging.resolve("linked_dir/new.md", writing=True)
        with pytest.raises(PathRefused, match="symlink"):
            staging.resolve("MEMORY.md", writing=False)
    finally:
        staging.discard()


def test_curation_refuses_to_write_through_a_link_with_one_sentence(store, outside):
    (outside / "note.md").write_text("outside\n")
    (store / "note.md").symlink_to(outside / "note.md")

    with pytest.raises(WriteRefused, match=r"^note.md is a symlink; memtui only writes regular files"):
        apply_changes(store, [FileChange("note.md", b"outside\n", b"changed\n")], "edit")

    assert (outside / "note.md").read_text() == "outside\n"


def test_the_consolidate_lock_is_never_written_through_a_link(store, outside):
    (outside / "target").write_text("precious\n")
    (store / LOCK_NAME).symlink_to(outside / "target")

    with pytest.raises(LockBusy, match="symlink"):
        acquire_lock(store)

    assert (outside / "target").read_text() == "precious\n"


def test_links_are_shown_as_such(store, outside):
    (outside / "MEMORY.md").write_text("# Memory\n- [Role](user_role.md) - who\n")
    (store / "MEMORY.md").symlink_to(outside / "MEMORY.md")
    (store / "alias.md").symlink_to("user_role.md")

    findings = {(f.kind, f.file): f for f in audit_store(load_store(store))}

    index = findings[("symlink", "MEMORY.md")]
    assert index.severity == "warning"
    assert "outside the memory directory" in index.message
    alias = findings[("symlink", "alias.md")]
    assert alias.severity == "info"
    assert alias.message.startswith("alias.md is a symlink to user_role.md; memtui does not write")
