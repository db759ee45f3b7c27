"""The transcript reader against real Claude Code transcripts (read-only shared test data)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import SHARED_TRANSCRIPTS, memory_saved_record

from tui.claude import paths, transcripts
from tui.claude.discovery import discover

DATA = SHARED_TRANSCRIPTS

pytestmark = pytest.mark.skipif(
    not DATA.is_dir(), reason=f"real transcripts not available at {DATA}"
)

MAIN_CWD = "/home/marco/projects/spotter"
WORKTREE_FILE = "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
WORKTREE_CWD = "/home/USER/projects/spotter-worktrees/spotter-4te"


def all_transcripts() -> list[Path]:
    return sorted(DATA.rglob("*.jsonl")) if DATA.is_dir() else []


@pytest.mark.parametrize("path", all_transcripts(), ids=lambda p: str(p.relative_to(DATA)))
def test_real_transcript_every_line_is_a_record_or_skipped(path):
    lines = sum(1 for line in transcripts.iter_lines(path) if line.strip())
    records = list(transcripts.iter_records(path))
    assert lines > 0
    assert len(records) == lines  # these files are complete: every line decodes


@pytest.mark.parametrize(
    ("name", "cwd"),
    [("spotter/short.jsonl", MAIN_CWD), ("spotter/tool_heavy.jsonl", MAIN_CWD),
     (f"spotter/{WORKTREE_FILE}", WORKTREE_CWD),
     ("claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl", "/path/to/Demo")],
)
def test_real_first_cwd_reads_past_a_first_line_without_cwd(name, cwd):
    path = DATA / name
    first = transcripts.decode(next(transcripts.iter_lines(path)))
    assert transcripts.first_cwd(path) == cwd
    if name.startswith("spotter/"):
        assert "cwd" not in first


def test_real_transcripts_name_no_memory_store():
    for path in all_transcripts():
        evidence = transcripts.memory_evidence(path)
        assert evidence.stores == set(), path


def test_real_edit_results_count_as_written_paths():
    written = [
        file_path
        for record in transcripts.iter_records(DATA / "spotter" / WORKTREE_FILE, b"toolUseResult")
        if isinstance(record.get("toolUseResult"), dict) and "oldString" in record["toolUseResult"]
        for file_path in transcripts.written_paths(record)
    ]
    assert written and all(p.startswith(WORKTREE_CWD) for p in written)


def test_real_deleted_worktree_maps_to_main_store_through_memory_saved(tmp_path):
    home = tmp_path / "claude"
    main_folder = home / "projects" / paths.sanitize(MAIN_CWD)
    worktree_folder = home / "projects" / paths.sanitize(WORKTREE_CWD)
    main_folder.mkdir(parents=True)
    worktree_folder.mkdir(parents=True)
    (main_folder / "memory").mkdir()
    shutil.copy(DATA / "spotter" / "short.jsonl", main_folder / "short.jsonl")
    copy = worktree_folder / WORKTREE_FILE
    shutil.copy(DATA / "spotter" / WORKTREE_FILE, copy)
    with open(copy, "a", encoding="utf-8") as handle:
        written = f"/home/marco/.claude/projects/{main_folder.name}/memory/feedback_tests.md"
        handle.write(json.dumps(memory_saved_record([written])) + "\n")

    inventory = discover(home, {"CLAUDE_CONFIG_DIR": str(home)})
    project = inventory.find(main_folder.name)
    assert project is not None and project.store == main_folder / "memory"
    worktree = next(f for f in project.transcript_folders if f.name == worktree_folder.name)
    assert (worktree.mapped_by, worktree.role) == ("evidence", "deleted")
    assert worktree.cwds == (WORKTREE_CWD,)


def test_real_compaction_is_found_by_the_doctor(claude_home, capsys):
    from tui import cli

    folder = claude_home.folder(paths.sanitize(WORKTREE_CWD))
    shutil.copy(DATA / "spotter" / WORKTREE_FILE, folder / WORKTREE_FILE)
    store = folder / paths.MEMORY_DIR_NAME
    store.mkdir()
    code = cli.main(["--config-dir", str(claude_home.home), "doctor", str(store), "--json"])
    checks = {c["id"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert code in (0, 1)
    compaction = checks["compaction"]
    assert compaction["status"] == "warn"
    assert "session ae4a77f8" in compaction["message"]
    assert "compacted at 2026-02-12T14:48:36.922Z" in compaction["message"]
    # pasted as printed, the fix reads the same config home the doctor read
    assert compaction["fix"] == (f"memtui --config-dir {claude_home.home} extract "
                                 f"{WORKTREE_FILE.removesuffix('.jsonl')}")
    extraction = checks["extraction"]
    assert "no memory_saved record" in extraction["message"]
