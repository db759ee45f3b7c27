"""Write history from transcripts: lost updates between worktrees, merge, backfill.

Transcripts are built in the record shapes Claude Code 2.1.x writes (as in
../shared/data/claude-transcripts/spotter: assistant `tool_use` records followed by user
records whose `toolUseResult` holds the structured result).
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.conftest import ClaudeHome, memory_text, write_jsonl
from tui.claude import paths

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """`memtui ARGS` through the real CLI."""
    from tui import cli

    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


class Session:
    """One Claude Code session writing its transcript, with a clock of its own."""

    def __init__(self, claude: ClaudeHome, cwd: Path, branch: str, start: datetime):
        self.claude = claude
        self.id = str(uuid.uuid4())
        self.cwd = str(cwd)
        self.branch = branch
        self.clock = start
        self.records: list[dict] = []
        self.parent: str | None = None

    def _record(self, kind: str, **fields) -> dict:
        self.clock += timedelta(seconds=1)
        record = {
            "parentUuid": self.parent, "isSidechain": False, "userType": "external",
            "cwd": self.cwd, "sessionId": self.id, "version": "2.1.39",
            "gitBranch": self.branch, "type": kind, "uuid": str(uuid.uuid4()),
            "timestamp": self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + "000Z", **fields,
        }
        self.parent = record["uuid"]
        self.records.append(record)
        return record

    def _tool(self, name: str, tool_input: dict, result: dict, text: str) -> None:
        tool_id = f"toolu_{uuid.uuid4().hex[:24]}"
        self._record("assistant", message={
            "model": "claude-opus-4-6", "id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}],
            "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1},
        })
        self._record("user", message={"role": "user", "content": [
            {"tool_use_id": tool_id, "type": "tool_result", "content": text}
        ]}, toolUseResult=result)

    def read(self, path: Path, content: str) -> None:
        lines = content.count("\n") + (not content.endswith("\n"))
        self._tool("Read", {"file_path": str(path)}, {"type": "text", "file": {
            "filePath": str(path), "content": content, "numLines": lines, "startLine": 1,
            "totalLines": lines,
        }}, content)

    def write(self, path: Path, content: str, original: str | None) -> None:
        path.write_text(content, encoding="utf-8")
        self._tool("Write", {"file_path": str(path), "content": content}, {
            "type": "update" if original is not None else "create", "filePath": str(path),
            "content": content, "structuredPatch": [], "originalFile": original,
        }, f"The file {path} has been updated successfully.")

    def edit(self, path: Path, old: str, new: str) -> None:
        original = path.read_text(encoding="utf-8")
        path.write_text(original.replace(old, new, 1), encoding="utf-8")
        self._tool("Edit", {"file_path": str(path), "old_string": old, "new_string": new,
                            "replace_all": False}, {
            "filePath": str(path), "oldString": old, "newString": new, "originalFile": original,
            "structuredPatch": [], "userModified": False, "replaceAll": False,
        }, f"The file {path} has been updated successfully.")

    def save(self) -> Path:
        folder = self.claude.folder(paths.sanitize(self.cwd))
        path = folder / f"{self.id}.jsonl"
        snapshot = {"type": "file-history-snapshot", "messageId": "m", "snapshot": {},
                    "isSnapshotUpdate": False}
        write_jsonl(path, [snapshot, *self.records])
        return path


BASE = memory_text(body="Run the whole suite.\n**Why:** it caught bugs.\n")
A_LINE = "- Use the staging database for payment tests."
B_LINE = "- Never mock the clock in billing tests."


def blind_overwrite(worktrees):
    """Sessions in two worktrees read one memory; A writes, then B overwrites it blindly."""
    claude, tree_a, tree_b, store = worktrees
    memory = store / "feedback_testing.md"
    memory.write_text(BASE, encoding="utf-8")
    a = Session(claude, tree_a, "feature-a", START)
    b = Session(claude, tree_b, "feature-b", START + timedelta(seconds=30))
    a.read(memory, BASE)
    b.read(memory, BASE)
    a.clock = START + timedelta(minutes=5)
    version_a = BASE + A_LINE + "\n"
    a.write(memory, version_a, BASE)
    b.clock = START + timedelta(minutes=10)
    b.write(memory, BASE + B_LINE + "\n", version_a)
    a.save()
    b.save()
    return a, b, memory


def test_blind_overwrite_in_another_worktree_is_a_lost_update(worktrees, capsys):
    claude, tree_a, tree_b, store = worktrees
    a, b, memory = blind_overwrite(worktrees)

    code, out, _ = run_cli(["--config-dir", str(claude.home), "overwrites", str(store), "--json"], capsys)

    assert code == 0
    [lost] = json.loads(out)
    assert lost["file"] == "feedback_testing.md"
    assert (lost["session"], lost["cwd"]) == (b.id, str(tree_b))
    assert (lost["previous_session"], lost["previous_cwd"]) == (a.id, str(tree_a))
    assert lost["time"] == "2026-03-01T09:10:02.000Z"
    assert lost["lost_lines"] == [A_LINE]


def test_merge_restores_the_lost_lines_and_keeps_the_overwriters(worktrees, capsys):
    claude, _, _, store = worktrees
    _, _, memory = blind_overwrite(worktrees)

    code, out, err = run_cli(["--config-dir", str(claude.home), "merge", str(memory), "--yes"], capsys)

    assert (code, err) == (0, "")
    text = memory.read_text(encoding="utf-8")
    assert A_LINE in text and B_LINE in text
    assert text.startswith(BASE)
    assert "Merged" in out
    # and the journal remembers the file before and after the merge
    code, out, _ = run_cli(["--config-dir", str(claude.home), "history", str(memory), "--json"], capsys)
    sources = [v["source"] for v in json.loads(out)]
    assert sources[:2] == ["memtui", "external"]


def clashing_rewrites(claude: ClaudeHome, tree_a: Path, tree_b: Path, memory: Path) -> None:
    """Sessions in worktrees a and b both read BASE; a rewrites its first rule ("in
    parallel"), then b rewrites the same line its own way ("only the fast tests")."""
    memory.write_text(BASE, encoding="utf-8")
    a = Session(claude, tree_a, "feature-a", START)
    b = Session(claude, tree_b, "feature-b", START)
    a.read(memory, BASE)
    b.read(memory, BASE)
    version_a = BASE.replace("Run the whole suite.", "Run the suite in parallel.")
    a.write(memory, version_a, BASE)
    b.write(memory, BASE.replace("Run the whole suite.", "Run only the fast tests."), version_a)
    a.save()
    b.save()


def test_merge_with_overlapping_changes_shows_the_conflict_and_writes_nothing(worktrees, capsys):
    claude, tree_a, tree_b, store = worktrees
    memory = store / "feedback_testing.md"
    clashing_rewrites(claude, tree_a, tree_b, memory)
    before = memory.read_bytes()

    code, out, _ = run_cli(["--config-dir", str(claude.home), "merge", str(memory), "--yes"], capsys)

    assert code == 1
    assert "Run the suite in parallel." in out and "Run only the fast tests." in out
    assert memory.read_bytes() == before


def test_edit_after_read_that_does_not_touch_the_other_change_is_not_flagged(worktrees, capsys):
    claude, tree_a, tree_b, store = worktrees
    memory = store / "feedback_testing.md"
    memory.write_text(BASE, encoding="utf-8")
    a = Session(claude, tree_a, "feature-a", START)
    b = Session(claude, tree_b, "feature-b", START)
    a.read(memory, BASE)
    b.read(memory, BASE)
    a.write(memory, BASE + A_LINE + "\n", BASE)
    b.edit(memory, "it caught bugs.", "it caught three release bugs.")
    a.save()
    b.save()
    assert A_LINE in memory.read_text(encoding="utf-8")

    code, out, _ = run_cli(["--config-dir", str(claude.home), "overwrites", str(store), "--json"], capsys)

    assert (code, json.loads(out)) == (0, [])


def test_backfill_rebuilds_versions_with_their_sessions_and_twice_changes_nothing(worktrees, capsys):
    claude, tree_a, tree_b, store = worktrees
    a, b, memory = blind_overwrite(worktrees)
    argv = ["--config-dir", str(claude.home), "history", "backfill", str(store), "--json"]

    code, out, _ = run_cli(argv, capsys)
    first = json.loads(out)
    code_again, out_again, _ = run_cli(argv, capsys)
    second = json.loads(out_again)

    assert (code, code_again) == (0, 0)
    assert first["new_commits"] == 3 and second["new_commits"] == 0 and not second["rebuilt"]
    code, out, _ = run_cli(["--config-dir", str(claude.home), "history", str(memory), "--json"], capsys)
    backfilled = [v for v in json.loads(out) if v["source"] == "backfill"]
    assert [(v["session"], v["cwd"]) for v in backfilled] == [
        (b.id, str(tree_b)), (a.id, str(tree_a)), (None, None),
    ]
    assert backfilled[0]["time"] == datetime(2026, 3, 1, 9, 10, 2, tzinfo=UTC).timestamp()


def test_restore_puts_a_backfilled_version_back(worktrees, capsys):
    claude, _, _, store = worktrees
    _, _, memory = blind_overwrite(worktrees)
    run_cli(["--config-dir", str(claude.home), "history", "backfill", str(store)], capsys)
    _, out, _ = run_cli(["--config-dir", str(claude.home), "history", str(memory), "--json"], capsys)
    written_by_a = next(v for v in json.loads(out) if "Write" in v["message"]
                        and v["git_branch"] == "feature-a")

    code, out, _ = run_cli(["--config-dir", str(claude.home), "restore", str(memory),
                            "--version", written_by_a["rev"][:12], "--yes"], capsys)

    assert code == 0
    assert memory.read_text(encoding="utf-8") == BASE + A_LINE + "\n"


def test_restore_of_an_unknown_version_is_one_sentence(worktrees, capsys):
    claude, _, _, store = worktrees
    memory = store / "feedback_testing.md"
    memory.write_text(BASE, encoding="utf-8")

    code, _, err = run_cli(["--config-dir", str(claude.home), "restore", str(memory),
                            "--version", "deadbeef"], capsys)

    assert code == 2
    assert err.count("\n") == 1 and "no version 'deadbeef'" in err
    assert memory.read_text(encoding="utf-8") == BASE


def test_overwrites_after_a_transcript_is_deleted_prints_what_an_empty_cache_prints(worktrees, capsys):
    import shutil
    import sqlite3

    from tui import xdg

    claude, tree_a, _, store = worktrees
    blind_overwrite(worktrees)
    reader = Session(claude, tree_a, "feature-a", START + timedelta(hours=1))
    reader.read(store / "feedback_testing.md", BASE)
    old = reader.save()
    argv = ["--config-dir", str(claude.home), "overwrites", str(store), "--json"]
    before = run_cli(argv, capsys)
    old.unlink()  # Claude Code's cleanup of an old session

    pruned = run_cli(argv, capsys)
    with sqlite3.connect(xdg.cache_dir() / "transcript-scan.sqlite") as db:
        rows = {path for (path,) in db.execute("SELECT path FROM files UNION SELECT path FROM items")}
    shutil.rmtree(xdg.cache_dir())
    assert pruned == run_cli(argv, capsys) == before  # the reader's session lost nothing
    assert len(json.loads(pruned[1])) == 1
    assert len(rows) == 2 and str(old).encode() not in rows


def test_history_names_its_columns_and_an_empty_backfill_says_why(worktrees, capsys):
    claude, _, _, store = worktrees
    memory = store / "feedback_testing.md"
    memory.write_text(BASE, encoding="utf-8")

    code, out, _ = run_cli(["--config-dir", str(claude.home), "history", str(memory)], capsys)
    assert code == 0
    header, version = out.splitlines()[:2]
    assert header.split() == ["version", "time", "by", "session", "working", "directory", "what"]
    assert version[header.index("by"):].split()[0] == "external"  # under its heading

    code, out, _ = run_cli(["--config-dir", str(claude.home), "history", "backfill", str(store)],
                           capsys)
    assert code == 0
    assert out.strip() == ("The transcripts record no write to this store's memory files; "
                           "nothing to backfill.")


def test_merge_keeps_every_byte_it_does_not_merge_even_one_that_is_not_utf8(worktrees, capsys):
    claude, _, _, store = worktrees
    _, _, memory = blind_overwrite(worktrees)
    memory.write_bytes(memory.read_bytes() + b"- Caf\xe9 at ten, written by hand in Latin-1.\n")
    before = memory.read_bytes()

    code, out, err = run_cli(["--config-dir", str(claude.home), "merge", str(memory), "--yes"], capsys)

    assert (code, err) == (0, "")
    assert memory.read_bytes() == before + A_LINE.encode() + b"\n"
    assert "Caf\\xe9" in out  # the diff shows the byte as it is, not as a replacement


def _journal_git(store: Path, *args: str, data: bytes | None = None) -> str:
    import os
    import subprocess

    from tui.xdg import journal_dir

    env = {**os.environ, "GIT_DIR": str(journal_dir(store))}
    return subprocess.run(["git", *args], input=data, env=env, capture_output=True,
                          check=True).stdout.decode()


def damage_old_journal_versions(store: Path) -> None:
    """Lose the tree of the oldest commit of each branch, as a bad disk block would: the
    branch tips (all memtui checks when it opens a journal) stay readable."""
    from tui.xdg import journal_dir

    path = journal_dir(store)
    for pack in list((path / "objects" / "pack").glob("*.pack")):
        data = pack.read_bytes()
        pack.unlink()
        pack.with_suffix(".idx").unlink()
        _journal_git(store, "unpack-objects", "-q", data=data)
    def tree(rev: str) -> str:
        return _journal_git(store, "rev-parse", f"{rev}^{{tree}}").strip()

    tips = {tree(branch) for branch in ("main", "backfill")}
    for branch in ("main", "backfill"):
        older = [tree(rev) for rev in _journal_git(store, "rev-list", "--reverse", branch).split()]
        lost = next(tree for tree in older if tree not in tips)
        (path / "objects" / lost[:2] / lost[2:]).unlink(missing_ok=True)


def _moved_aside_once(store: Path, err: str) -> Path:
    """The one sentence a command said on moving a damaged journal aside, and where to."""
    from tui.xdg import journal_dir

    [moved] = journal_dir(store).parent.glob("*.broken-*")
    assert err.startswith(f"memtui: The journal of {store} was damaged (") and err.endswith(
        f"); it was moved aside to {moved} and a new one started from the store as it is "
        "now.\n"), err
    assert "Traceback" not in err
    return moved


def test_a_damaged_journal_is_moved_aside_and_started_again_by_every_history_command(
        worktrees, capsys):
    import shutil

    from tui.xdg import journal_dir

    claude, _, _, store = worktrees
    _, _, memory = blind_overwrite(worktrees)
    home = ["--config-dir", str(claude.home)]
    run_cli([*home, "history", "backfill", str(store)], capsys)
    run_cli([*home, "history", str(memory)], capsys)
    for edit in ("- A hand edit.\n", "- Another hand edit.\n"):
        memory.write_text(BASE + edit, encoding="utf-8")
        run_cli([*home, "history", str(memory)], capsys)
    damage_old_journal_versions(store)
    damaged = journal_dir(store).with_name("damaged-copy")
    shutil.copytree(journal_dir(store), damaged)
    text = memory.read_bytes()

    for argv, code_wanted in ((["history", str(memory)], 0), (["overwrites", str(store)], 0),
                              (["restore", str(memory), "--version", "backfill~2"], 2)):
        for old in journal_dir(store).parent.glob("*.broken-*"):
            shutil.rmtree(old)
        shutil.rmtree(journal_dir(store))
        shutil.copytree(damaged, journal_dir(store))

        code, out, err = run_cli([*home, *argv], capsys)

        if code_wanted:  # the version asked for was in the damaged journal: said so
            assert code == 2 and "has no version 'backfill~2'" in err, err
            err = "".join(line + "\n" for line in err.splitlines() if "has no version" not in line)
        assert code == code_wanted, (argv, code, err[-300:])
        _moved_aside_once(store, err)
        assert memory.read_bytes() == text  # the store is never touched
        assert run_cli([*home, *argv], capsys)[2].count("was damaged") == 0  # said once


def test_a_broken_branch_in_the_journal_is_moved_aside_by_backfill(worktrees, capsys):
    from tui.xdg import journal_dir

    claude, _, _, store = worktrees
    blind_overwrite(worktrees)
    argv = ["--config-dir", str(claude.home), "history", "backfill", str(store)]
    run_cli(argv, capsys)
    (journal_dir(store) / "refs" / "heads" / "backfill").write_text("garbage\n")

    code, _, err = run_cli(argv, capsys)

    assert code == 0
    _moved_aside_once(store, err)


def test_overwrites_says_whether_the_lost_lines_are_back_and_how_to_merge_them(worktrees, capsys):
    claude, _, _, store = worktrees
    _, _, memory = blind_overwrite(worktrees)
    home = ["--config-dir", str(claude.home)]

    code, out, _ = run_cli([*home, "overwrites", str(store)], capsys)
    assert code == 0
    assert "1 line lost, still missing from the file:" in out
    assert f"memtui merge {memory}" in out
    assert json.loads(run_cli([*home, "overwrites", str(store), "--json"], capsys)[1])[0]["back"] is False

    run_cli([*home, "merge", str(memory), "--yes"], capsys)

    code, out, _ = run_cli([*home, "overwrites", str(store)], capsys)
    assert code == 0
    assert "1 line lost, all in the file again:" in out and "memtui merge" not in out
    assert json.loads(run_cli([*home, "overwrites", str(store), "--json"], capsys)[1])[0]["back"] is True


def test_merge_brings_back_a_lost_update_the_journal_found(worktrees, capsys):
    from tui.history.journal import Journal

    claude, _, _, store = worktrees
    memory = store / "feedback_testing.md"
    journal = Journal(store)
    for text in (BASE, BASE + A_LINE + "\n", BASE + B_LINE + "\n"):  # as `memtui watch` saw them
        memory.write_text(text, encoding="utf-8")
        journal.snapshot("seen by watch", source="watch")
    home = ["--config-dir", str(claude.home)]
    assert json.loads(run_cli([*home, "overwrites", str(store), "--json"], capsys)[1])[0][
        "found_in"] == "journal"

    code, out, err = run_cli([*home, "merge", str(memory), "--yes"], capsys)

    assert (code, err) == (0, "")
    assert memory.read_text(encoding="utf-8") == BASE + B_LINE + "\n" + A_LINE + "\n"


def test_merge_brings_back_every_lost_update_of_the_file_not_only_the_newest(worktrees, capsys):
    claude, tree_a, tree_b, store = worktrees
    _, _, memory = blind_overwrite(worktrees)
    later_line = "- Run the flaky tests three times before calling them flaky."
    now = memory.read_text(encoding="utf-8")
    a = Session(claude, tree_a, "feature-a", START + timedelta(hours=1))
    b = Session(claude, tree_b, "feature-b", START + timedelta(hours=1))
    a.read(memory, now)
    b.read(memory, now)
    a.write(memory, now + later_line + "\n", now)
    b.write(memory, now.replace("it caught bugs.", "it caught release bugs."), now + later_line + "\n")
    a.save()
    b.save()
    home = ["--config-dir", str(claude.home)]
    assert len(json.loads(run_cli([*home, "overwrites", str(store), "--json"], capsys)[1])) == 2

    code, _, err = run_cli([*home, "merge", str(memory), "--yes"], capsys)

    assert (code, err) == (0, "")
    text = memory.read_text(encoding="utf-8")
    assert A_LINE in text and later_line in text and "it caught release bugs." in text
    assert all(lost["back"] for lost in json.loads(
        run_cli([*home, "overwrites", str(store), "--json"], capsys)[1]))


def test_a_journal_moved_aside_and_started_again_is_said_once(worktrees, capsys):
    from tui.xdg import journal_dir

    claude, _, _, store = worktrees
    _, _, memory = blind_overwrite(worktrees)
    home = ["--config-dir", str(claude.home)]
    run_cli([*home, "history", "backfill", str(store)], capsys)
    (journal_dir(store) / "HEAD").write_bytes(b"\x00\xffnot a ref\n")

    code, out, err = run_cli([*home, "history", str(memory)], capsys)

    # The new journal's first version, and those the transcripts hold, rebuilt into it again.
    rebuilt, header, *versions = out.splitlines()
    assert code == 0 and rebuilt.startswith("Rebuilt ") and header.startswith("version ")
    assert sum("changes found by memtui history" in version for version in versions) == 1
    _moved_aside_once(store, err)
    assert run_cli([*home, "history", str(memory)], capsys)[2] == ""


def test_a_lost_update_both_the_transcripts_and_the_journal_saw_is_listed_once(worktrees, capsys):
    from tui.history.journal import Journal

    claude, _, _, store = worktrees
    a, b, memory = blind_overwrite(worktrees)
    final = memory.read_text(encoding="utf-8")
    journal = Journal(store)
    for text in (BASE, BASE + A_LINE + "\n", final):  # `memtui watch` saw every version too
        memory.write_text(text, encoding="utf-8")
        journal.snapshot("seen by watch", source="watch")

    code, out, _ = run_cli(["--config-dir", str(claude.home), "overwrites", str(store), "--json"],
                           capsys)

    assert code == 0
    [lost] = json.loads(out)
    assert (lost["found_in"], lost["session"], lost["previous_session"]) == ("transcripts", b.id, a.id)


def test_a_multiedit_result_in_the_old_shape_is_the_sessions_own_version(worktrees, capsys):
    """Builds 1.0.x record a MultiEdit's prior text as `originalFileContents` (as in
    ../shared/data/claude-transcripts/claude-code-viewer), not `originalFile`."""
    claude, tree_a, _, store = worktrees
    memory = store / "feedback_testing.md"
    memory.write_text(BASE, encoding="utf-8")
    a = Session(claude, tree_a, "feature-a", START)
    a.read(memory, BASE)
    edited = BASE.replace("Run the whole suite.", "Run the whole suite.\n" + A_LINE)
    memory.write_text(edited, encoding="utf-8")
    edits = [{"old_string": "Run the whole suite.", "new_string": "Run the whole suite.\n" + A_LINE,
              "replace_all": False}]
    a._tool("MultiEdit", {"file_path": str(memory), "edits": edits}, {
        "filePath": str(memory), "edits": edits, "originalFileContents": BASE,
        "structuredPatch": [], "userModified": False,
    }, "Applied 1 edit.")
    a.write(memory, BASE + B_LINE + "\n", edited)  # it rewrites its own line away
    a.save()
    home = ["--config-dir", str(claude.home)]

    code, out, _ = run_cli([*home, "overwrites", str(store), "--json"], capsys)
    assert (code, json.loads(out)) == (0, [])
    code, out, _ = run_cli([*home, "history", "backfill", str(store), "--json"], capsys)
    assert json.loads(out)["versions"] == 3  # read, MultiEdit, Write: no unrecorded writer


def test_undo_json_says_what_was_undone_as_json(worktrees, capsys):
    claude, _, _, store = worktrees
    _, _, memory = blind_overwrite(worktrees)
    before = memory.read_bytes()
    home = ["--config-dir", str(claude.home)]
    run_cli([*home, "merge", str(memory), "--yes"], capsys)

    code, out, _ = run_cli([*home, "undo", str(store), "--json"], capsys)
    assert code == 0
    assert json.loads(out) == {"store": str(store), "undone": "merge lines of feedback_testing.md "
                               "lost on 2026-03-01T09:10:02.000Z"}
    assert memory.read_bytes() == before

    code, out, _ = run_cli([*home, "undo", str(store), "--json"], capsys)
    assert (code, json.loads(out)) == (0, {"store": str(store), "undone": None})


def test_merge_and_restore_of_a_named_pipe_answer_in_one_sentence_instead_of_waiting(
        worktrees, tmp_path):
    import os
    import subprocess
    import sys

    claude, _, _, store = worktrees
    pipe = store / "feedback_pipe.md"
    os.mkfifo(pipe)
    home = ["--config-dir", str(claude.home)]
    for argv in (["merge", str(pipe), "--yes"], ["restore", str(pipe), "--version", "main", "--yes"]):
        if argv[0] == "restore":  # a version that holds a regular feedback_pipe.md
            pipe.unlink()
            pipe.write_text(BASE, encoding="utf-8")
            subprocess.run([sys.executable, "-m", "tui", *home, "history", str(pipe)],
                           capture_output=True, timeout=60, check=True)
            pipe.unlink()
            os.mkfifo(pipe)
        result = subprocess.run([sys.executable, "-m", "tui", *home, *argv],
                                capture_output=True, text=True, timeout=20)
        assert result.returncode == 2, argv
        assert result.stderr == ("memtui: feedback_pipe.md cannot be read (it is a named pipe "
                                 "(FIFO), not a regular file).\n")


def test_a_removed_worktree_named_by_its_path_is_the_store_its_sessions_wrote(worktrees, capsys):
    import git

    claude, _, tree_b, store = worktrees
    blind_overwrite(worktrees)
    git.Repo(store_repo := tree_b.parent / "shop").git.worktree("remove", "--force", str(tree_b))
    assert not tree_b.exists() and store_repo.exists()

    code, out, err = run_cli(["--config-dir", str(claude.home), "overwrites", str(tree_b), "--json"],
                             capsys)

    assert (code, err) == (0, "")
    [lost] = json.loads(out)
    assert (lost["file"], lost["cwd"]) == ("feedback_testing.md", str(tree_b))


def test_overwrites_prints_local_times_as_history_does(worktrees, capsys, monkeypatch):
    import time

    claude, _, _, store = worktrees
    blind_overwrite(worktrees)
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        code, out, _ = run_cli(["--config-dir", str(claude.home), "overwrites", str(store)], capsys)
        _, as_json, _ = run_cli(["--config-dir", str(claude.home), "overwrites", str(store),
                                 "--json"], capsys)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert code == 0
    assert out.startswith("2026-03-01 18:10:02  feedback_testing.md: ")  # 09:10:02 UTC
    assert json.loads(as_json)[0]["time"] == "2026-03-01T09:10:02.000Z"  # scripts keep UTC


def test_restore_and_merge_say_the_undo_command_that_takes_them_back(worktrees, capsys):
    import shlex

    claude, _, _, store = worktrees
    _, _, memory = blind_overwrite(worktrees)
    before = memory.read_bytes()
    home = ["--config-dir", str(claude.home)]
    run_cli([*home, "history", "backfill", str(store)], capsys)
    versions = json.loads(run_cli([*home, "history", str(memory), "--json"], capsys)[1])
    by_a = next(v["rev"] for v in versions if v["git_branch"] == "feature-a")

    for argv in (["merge", str(memory), "--yes"], ["restore", str(memory), "--version", by_a, "--yes"]):
        code, out, _ = run_cli([*home, *argv], capsys)
        assert code == 0
        undo = out.strip().splitlines()[-1].split("`")[1]
        assert undo == f"memtui undo {shlex.quote(str(store))}"
        assert run_cli([*home, *shlex.split(undo)[1:]], capsys)[0] == 0
        assert memory.read_bytes() == before
