"""`memtui demo`: the demo config home shows every situation memtui is built for, and the
core (discovery, audit) reads it the way it reads a real one."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from conftest import cpu_seconds

from tui.claude import paths, transcripts
from tui.claude.discovery import discover
from tui.claude.gitroot import canonical_project_root
from tui.claude.lock import read_lock
from tui.cli import main
from tui.demo import MARKER, build_demo
from tui.render import project_rows

NOW = 1_764_460_800.0  # 2025-11-30T00:00:00Z
DAY = 86_400.0


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
        patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        return build_demo(tmp_path_factory.mktemp("demo") / "demo", now=NOW)


@pytest.fixture(scope="module")
def inventory(demo):
    return discover(demo.home, env={"CLAUDE_CONFIG_DIR": str(demo.home)})


def code(demo, *parts: str) -> str:
    return paths.normalize_path(demo.root.joinpath("code", *parts))


def project_keyed_by(inventory, path: str):
    return next(p for p in inventory.projects if p.key_path == path)


def audit_json(demo, target: str, capsys) -> tuple[int, dict]:
    status = main(["--config-dir", str(demo.home), "audit", target, "--json"])
    return status, json.loads(capsys.readouterr().out)


def test_store_folders_are_named_as_claude_code_names_them(demo):
    webapp = code(demo, "webapp")
    store = demo.home / "projects" / paths.sanitize(webapp) / "memory"
    assert (store / "MEMORY.md").is_file()
    assert demo.audit_example == webapp
    # The worktrees are real: git resolves them to the main checkout, as Claude Code does.
    for branch in ("feature-auth", "fix-cache"):
        worktree = code(demo, "webapp-worktrees", branch)
        assert str(canonical_project_root(worktree)) == webapp
    assert not os.path.exists(code(demo, "webapp-worktrees", "spike-sse"))


def test_discovery_maps_main_checkout_subdirectory_worktrees_and_deleted_worktree(
    demo, inventory
):
    webapp = project_keyed_by(inventory, code(demo, "webapp"))
    assert webapp.store == demo.home / "projects" / paths.sanitize(webapp.key_path) / "memory"
    assert webapp.memories >= 200
    roles = {folder.cwds[0]: (folder.role, folder.mapped_by) for folder in webapp.transcript_folders}
    assert roles == {
        code(demo, "webapp"): ("main", "git"),
        code(demo, "webapp", "frontend"): ("subdirectory", "git"),
        code(demo, "webapp-worktrees", "feature-auth"): ("worktree", "git"),
        code(demo, "webapp-worktrees", "fix-cache"): ("worktree", "git"),
        code(demo, "webapp-worktrees", "spike-sse"): ("deleted", "evidence"),
    }
    assert webapp.last_consolidated == pytest.approx(NOW - 2.2 * DAY)
    # Enough sessions since the last consolidation for a dream to be due.
    assert webapp.sessions_since(webapp.last_consolidated) >= 5


def test_worktree_store_is_stranded(demo, inventory):
    stranded = project_keyed_by(inventory, code(demo, "webapp-worktrees", "feature-auth"))
    assert stranded.stranded
    assert code(demo, "webapp") in stranded.stranded_reason
    assert stranded.memories == 2


def test_project_without_transcripts_is_resting_and_found_on_disk(demo, inventory):
    notes = project_keyed_by(inventory, code(demo, "café notes"))
    assert notes.resting and not notes.stranded
    assert notes.transcript_folders == ()
    assert notes.memories == 3


def test_folder_whose_cwd_is_gone_without_memory_writes_is_unmapped(demo, inventory):
    unmapped = [p for p in inventory.projects if p.store is None]
    assert [p.paths for p in unmapped] == [(code(demo, "graphql-spike"),)]
    assert unmapped[0].transcript_folders[0].mapped_by == "unmapped"


def test_webapp_audit_reports_every_kind_of_problem(demo, capsys):
    status, report = audit_json(demo, demo.audit_example, capsys)
    assert status == 1
    assert report["index"]["cut"] in ("both", "lines")
    assert report["index"]["lines"] > 200
    kinds = {f["kind"] for f in report["findings"]}
    assert kinds >= {
        "index_over_limit", "unindexed", "beyond_cut", "dangling", "long_index_line",
        "missing_frontmatter", "missing_description", "unknown_type", "missing_why",
        "relative_date", "duplicate",
    }
    long_lines = {f["message"].split("(")[1].split(")")[0] for f in report["findings"]
                  if f["kind"] == "long_index_line"}
    assert long_lines == {"keep it under 150", "keep it under 200"}
    phrases = " ".join(f["message"] for f in report["findings"] if f["kind"] == "relative_date")
    for phrase in ("yesterday", "next Thursday", "上周"):
        assert phrase in phrases
    duplicates = [(f["file"], f["other"]) for f in report["findings"] if f["kind"] == "duplicate"]
    assert duplicates == [("feedback_pnpm.md", "feedback_use_pnpm.md")]
    assert {m["form"] for m in report["memories"]} == {"none", "flat", "nested"}


def test_healthy_project_audit_is_clean(demo, capsys):
    status, report = audit_json(demo, code(demo, "cli-tool"), capsys)
    assert status == 0
    assert [f for f in report["findings"] if f["severity"] == "error"] == []
    assert report["index"]["cut"] is None


def test_transcripts_have_the_real_record_shapes(demo):
    projects = demo.home / "projects"
    main_folder = projects / paths.sanitize(code(demo, "webapp"))
    records, broken_lines = [], 0
    for file in sorted(main_folder.glob("*.jsonl")):
        first = transcripts.decode(next(transcripts.iter_lines(file)))
        assert first["type"] == "file-history-snapshot" and "cwd" not in first
        for line in transcripts.iter_lines(file):
            record = transcripts.decode(line)
            if record is None:
                broken_lines += 1
            else:
                records.append(record)
    assert broken_lines == 1  # the live session's half-written last line
    kinds = {(r["type"], r.get("subtype")) for r in records}
    assert kinds >= {("user", None), ("assistant", None), ("summary", None),
                     ("ai-title", None), ("system", "memory_saved"),
                     ("system", "compact_boundary")}
    writes = [r["toolUseResult"] for r in records if "toolUseResult" in r
              and r["toolUseResult"].get("type") == "update"]
    assert writes and all(w["originalFile"] and w["structuredPatch"] for w in writes)
    said = " ".join(r["message"]["content"] for r in records
                    if r["type"] == "user" and isinstance(r["message"]["content"], str))
    for instruction in ("remember to always run the linter", "不要用 mock", "use pnpm not npm"):
        assert instruction in said
    subagents = list(main_folder.glob("*/subagents/agent-*.jsonl"))
    assert subagents and all(r["isSidechain"] for r in transcripts.iter_records(subagents[0]))


def test_a_worktree_session_silently_overwrote_the_main_checkouts_edit(demo):
    from tui.history.overwrites import lost_updates_in_events
    from tui.history.writes_log import store_events

    store = demo.home / "projects" / paths.sanitize(code(demo, "webapp")) / "memory"
    events = store_events(store, demo.home, {"CLAUDE_CONFIG_DIR": str(demo.home)})
    lost = lost_updates_in_events(events)
    assert [(u.file, u.cwd, u.previous_cwd) for u in lost] == [
        ("project_flaky_e2e.md", code(demo, "webapp-worktrees", "fix-cache"), code(demo, "webapp"))
    ]
    assert lost[0].lost_lines == ("Aiko pinned Playwright to 1.48 on main until WEB-4211 lands.",)
    assert lost[0].written == (store / "project_flaky_e2e.md").read_text(encoding="utf-8")


def test_session_times_and_lock_are_fixed_by_now(demo):
    mtimes = [f.stat().st_mtime for f in (demo.home / "projects").glob("*/*.jsonl")]
    assert mtimes and all(NOW - 30 * DAY < m < NOW for m in mtimes)
    lock = read_lock(demo.home / "projects" / paths.sanitize(code(demo, "webapp")) / "memory")
    assert lock.exists and lock.pid is not None and not lock.held(NOW)
    assert lock.mtime == pytest.approx(NOW - 2.2 * DAY)
    logs = list((lock.path.parent / "logs").glob("*/*/*.md"))
    assert [p.name for p in sorted(logs)] == ["2025-11-27.md", "2025-11-29.md"]


def _snapshot(home: Path) -> dict[str, tuple[bytes, float]]:
    return {
        str(p.relative_to(home)): (p.read_bytes(), p.stat().st_mtime)
        for p in home.rglob("*") if p.is_file()
    }


def test_rebuilding_a_demo_reproduces_it_exactly(tmp_path):
    first = build_demo(tmp_path / "demo", now=NOW)
    before = _snapshot(first.home)
    (first.home / "projects" / "stray").mkdir()
    started = cpu_seconds()
    second = build_demo(tmp_path / "demo", now=NOW)
    spent = cpu_seconds() - started
    assert second == first
    assert _snapshot(second.home) == before
    assert spent < 3.0  # git operations included; typically well under a second


def test_default_location_is_a_fresh_temp_dir(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    demo = build_demo(now=NOW)
    assert demo.root.parent == Path(paths.normalize_path(tmp_path))
    assert demo.root.name.startswith("memtui-demo-")
    assert (demo.root / MARKER).is_file()


def test_a_temp_dir_demo_lasts_until_the_next_one_replaces_it(tmp_path, monkeypatch):
    """Each `memtui demo` and each `d` in the app left a 3.8 MB folder in the temp dir for
    good: the next demo removes the ones it replaces."""
    import os
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ended = _ended_pid()
    gone = tmp_path / f"memtui-demo-{ended}-old"  # built by a process that has ended
    gone.mkdir()
    (gone / MARKER).write_text("")
    running = tmp_path / f"memtui-demo-{os.getppid()}-open"  # another memtui still shows it
    running.mkdir()
    (running / MARKER).write_text("")
    not_ours = tmp_path / f"memtui-demo-{ended}-notes"  # no marker: the user's own folder
    not_ours.mkdir()

    first = build_demo(now=NOW)
    assert not gone.exists() and running.is_dir() and not_ours.is_dir()
    second = build_demo(now=NOW)
    assert not first.root.exists() and (second.root / MARKER).is_file()
    assert sorted(tmp_path.iterdir()) == sorted([running, not_ours, second.root])


def _ended_pid() -> int:
    import subprocess

    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_cli_builds_a_demo_and_refuses_a_folder_with_other_files(tmp_path, capsys):
    assert main(["demo", str(tmp_path / "fresh")]) == 0
    assert str(tmp_path / "fresh" / "claude") in capsys.readouterr().out

    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "thesis.tex").write_text("precious")
    assert main(["demo", str(occupied)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count(".") == 1 and error.endswith(".") and "\n" not in error
    assert "not empty" in error
    assert [p.name for p in occupied.iterdir()] == ["thesis.tex"]


def test_cli_says_in_one_sentence_when_the_demo_folder_cannot_be_made(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    assert main(["demo", str(tmp_path / "notes.txt" / "demo"), "--no-open"]) == 2
    error = capsys.readouterr().err
    assert error == (f"memtui: Cannot make the folder {tmp_path / 'notes.txt' / 'demo'} "
                     "for the demo: Not a directory.\n")


def test_demo_text_reads_as_written_english(demo):
    """The demo is the first store a user reads: no "a accessibility change", no "api
    gateway" or "image cdn" with their capitals lost in mid-sentence."""
    texts = [path.read_text(encoding="utf-8")
             for path in (demo.home / "projects").rglob("*.md")]
    assert texts
    for text in texts:
        assert not re.search(r"\b[aA] [aeioAEIO]", text), text
        assert not re.search(r"(?<![-\w/`])(api|cdn|sso|csv|pdfs|graphql)(?![-\w`])", text), text


def test_no_path_appears_on_two_rows(inventory):
    labels = [row.path for row in project_rows(inventory.projects)]
    assert len(labels) == len(set(labels))
