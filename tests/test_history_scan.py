"""Scanning transcripts for a store's events: subagents, growing files, the cache."""

from __future__ import annotations

import json
import os
import signal
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from waiting import PATIENCE, running

from tests.conftest import write_jsonl, write_whole
from tui.claude import transcripts
from tui.history import scan_cache
from tui.history.scan_cache import ScanCache
from tui.history.writes_log import folder_events, scan_events, transcript_files


def saved(session: str, *paths: str) -> dict:
    return {"type": "system", "subtype": "memory_saved", "sessionId": session, "cwd": "/w",
            "timestamp": "2026-03-01T09:00:00.000Z", "writtenPaths": list(paths)}


def write_result(session: str, path: str, content: str, stamp: str) -> dict:
    return {"type": "user", "sessionId": session, "cwd": "/w", "gitBranch": "main",
            "timestamp": stamp, "message": {"role": "user", "content": []},
            "toolUseResult": {"type": "create", "filePath": path, "content": content,
                              "structuredPatch": [], "originalFile": None}}


@pytest.fixture
def store(claude_home):
    return claude_home.store(folder="-w")


def test_subagent_and_old_style_agent_transcripts_are_read(claude_home, store):
    folder = claude_home.folder("-w")
    write_jsonl(folder / "s1.jsonl", [saved("s1", str(store / "a.md"))])
    (folder / "s1" / "subagents").mkdir(parents=True)
    write_jsonl(folder / "s1" / "subagents" / "agent-x.jsonl", [saved("s1", str(store / "b.md"))])
    write_jsonl(folder / "agent-y.jsonl", [saved("s0", str(store / "c.md"))])

    events = scan_events(store, transcript_files([folder]))

    assert sorted(e.file for e in events) == ["a.md", "b.md", "c.md"]


def test_other_stores_and_unrelated_lines_are_ignored(claude_home, store):
    other = claude_home.store(folder="-other")
    folder = claude_home.folder("-w")
    write_jsonl(folder / "s.jsonl", [
        saved("s", str(other / "a.md")), b"{not json " + str(store).encode() + b"/x.md\n",
        {"type": "user", "message": {"content": "look at " + str(store)}},
    ])

    assert scan_events(store, transcript_files([folder])) == []


def test_a_growing_transcript_is_read_only_from_where_the_last_scan_stopped(claude_home, store, monkeypatch):
    folder = claude_home.folder("-w")
    transcript = folder / "s.jsonl"
    first = json.dumps(write_result("s", str(store / "a.md"), "one\n", "2026-03-01T09:00:00.000Z"))
    second = json.dumps(write_result("s", str(store / "a.md"), "two\n", "2026-03-01T09:01:00.000Z"))
    transcript.write_text(first + "\n" + second[:40])  # the second line is half written
    starts: list[int] = []
    real_scan = scan_cache.matching_lines

    def spy(path, needle, start, on_line):
        starts.append(start)
        return real_scan(path, needle, start, on_line)

    monkeypatch.setattr(scan_cache, "matching_lines", spy)
    with ScanCache() as cache:
        assert [e.content for e in scan_events(store, [transcript], cache)] == ["one\n"]
        with open(transcript, "a") as handle:
            handle.write(second[40:] + "\n")
        assert [e.content for e in scan_events(store, [transcript], cache)] == ["one\n", "two\n"]
        assert [e.content for e in scan_events(store, [transcript], cache)] == ["one\n", "two\n"]

    assert starts == [0, len(first) + 1]  # the third scan did not open the file


def test_a_replaced_transcript_is_read_again_from_the_start(claude_home, store):
    folder = claude_home.folder("-w")
    transcript = folder / "s.jsonl"
    write_jsonl(transcript, [write_result("s", str(store / "a.md"), "old\n", "2026-03-01T09:00:00.000Z")])
    with ScanCache() as cache:
        scan_events(store, [transcript], cache)
        write_jsonl(transcript, [write_result("s", str(store / "b.md"), "new and longer\n",
                                              "2026-03-01T09:00:00.000Z")])
        os.utime(transcript, (1, 1))
        assert [e.file for e in scan_events(store, [transcript], cache)] == ["b.md"]


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM],
                         ids=["ctrl-c", "sigterm"])
def test_watch_stops_cleanly_saying_what_it_committed(claude_home, store, stop_signal):
    """Ctrl-C, or a SIGTERM from a service manager or `kill`: one line saying it stopped and
    how many snapshots it committed, exit 0."""
    script = textwrap.dedent("""
        import sys
        from tui import cli
        sys.exit(cli.main(sys.argv[1:]))
    """)
    with running([sys.executable, "-c", script, "--config-dir", str(claude_home.home), "watch",
                  str(store), "--interval", "0.05"], env=dict(os.environ)) as (process, out, err):
        started = out.wait_for(lambda line: True)
        write_whole(store, "new.md", "a memory written while watched\n")
        out.wait_for(lambda line: "committed" in line)
        process.send_signal(stop_signal)
        assert process.wait(PATIENCE) == 0
        printed = out.whole()
    assert str(store) in started
    assert len(printed) == 3, printed
    assert "committed" in printed[1] and "new.md" in printed[1]
    assert printed[2] == "memtui: stopped watching; 1 snapshot committed.\n"
    assert err.whole() == []


def test_watch_started_as_a_background_job_still_stops_on_ctrl_c(claude_home, store):
    """A shell starts a background job (`memtui watch … &`, a script, CI) with SIGINT
    ignored, and Python then raises no KeyboardInterrupt: `kill -INT` must still stop it
    with its line and exit 0."""
    def as_a_background_job() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    with running([sys.executable, "-m", "tui", "--config-dir", str(claude_home.home), "watch",
                  str(store), "--interval", "0.05"], env=dict(os.environ),
                 preexec_fn=as_a_background_job) as (process, out, err):
        out.wait_for(lambda line: True)
        process.send_signal(signal.SIGINT)
        assert process.wait(PATIENCE) == 0
        printed = out.whole()
    assert printed[-1] == "memtui: stopped watching; 0 snapshots committed.\n"
    assert err.whole() == []


@given(lines=st.lists(st.text(alphabet="ab\nxy", max_size=40), max_size=30),
       tail=st.text(alphabet="abxy", max_size=20), block=st.integers(4, 64),
       start_line=st.integers(0, 5))
@settings(max_examples=300, deadline=None)
def test_matching_lines_finds_every_complete_line_across_block_edges(tmp_path_factory, lines,
                                                                      tail, block, start_line):
    """Whatever the block size: every complete line holding the needle, with its offset;
    a half-written last line is left for the next scan (long lines grow the buffer)."""
    import unittest.mock

    content = "".join(line.replace("\n", "") + "\n" for line in lines) + tail
    data = content.encode()
    path = tmp_path_factory.mktemp("scan") / "t.jsonl"
    path.write_bytes(data)
    complete_lines = data[: data.rfind(b"\n") + 1].split(b"\n")[:-1] if b"\n" in data else []
    start = sum(len(line) + 1 for line in complete_lines[:start_line])
    expected, offset = [], 0
    for line in complete_lines:
        if offset >= start and b"ab" in line:
            expected.append((line, offset))
        offset += len(line) + 1

    found = []
    with unittest.mock.patch.object(scan_cache, "BLOCK", block):
        resume = scan_cache.matching_lines(path, b"ab", start, lambda line, at: found.append((line, at)))

    assert found == expected
    assert resume == max(start, data.rfind(b"\n") + 1)


def _evidence_search(transcript, tmp_path) -> None:
    """Discovery's search of a transcript whose cwd is gone, which a store scan may reuse."""
    transcripts.EvidenceCache(tmp_path / "evidence.json").folder_evidence([str(transcript)])


def test_a_store_scan_reads_only_the_lines_the_evidence_search_found(claude_home, store, tmp_path,
                                                                     monkeypatch):
    transcript = claude_home.folder("-w") / "s.jsonl"
    write_jsonl(transcript, [{"type": "user", "message": {"content": "x" * 5000}},
                             write_result("s", str(store / "a.md"), "one\n", "2026-03-01T09:00:00.000Z")])
    _evidence_search(transcript, tmp_path)
    monkeypatch.setattr(scan_cache, "matching_lines", lambda *_: pytest.fail("the file was read again"))
    with ScanCache() as cache:
        assert [e.content for e in scan_events(store, [transcript], cache)] == ["one\n"]


@pytest.mark.parametrize("change", ["grown", "shrunk", "replaced"])
def test_a_transcript_changed_after_the_evidence_search_is_read_again(claude_home, store, tmp_path,
                                                                      change):
    transcript = claude_home.folder("-w") / "s.jsonl"
    filler = {"type": "user", "message": {"content": "x" * 100}}

    def event(content: str) -> dict:
        return write_result("s", str(store / "a.md"), content, "2026-03-01T09:00:00.000Z")

    write_jsonl(transcript, [event("one\n"), filler, event("two\n")])
    _evidence_search(transcript, tmp_path)
    before = transcript.stat()
    if change == "grown":
        with open(transcript, "a") as out:
            out.write(json.dumps(event("three\n")) + "\n")
        expected = ["one\n", "two\n", "three\n"]
    elif change == "shrunk":
        write_jsonl(transcript, [{"type": "user"}, event("1\n")])
        expected = ["1\n"]
    else:  # the same size, its lines elsewhere
        write_jsonl(transcript, [filler, event("uno\n"), event("dos\n")])
        assert transcript.stat().st_size == before.st_size
        os.utime(transcript, ns=(before.st_atime_ns, before.st_mtime_ns + 1))
        expected = ["uno\n", "dos\n"]
    with ScanCache() as cache:
        assert [e.content for e in scan_events(store, [transcript], cache)] == expected


_LINES = st.sampled_from([
    b'{"p": "/h/projects/-a/memory/x.md"}', b'{"p": "C:\\\\h\\\\projects\\\\-a\\\\memory\\\\x.md"}',
    b'{"p": "/h/projects/-b/memory/y.md", "q": "/h/projects/-a/memory/"}',
    b'{"p": "/h/projects/-b/memory/y.md"}', b'{"t": "memory is hard", "y": "directory/"}',
    b'{"type": "worktree-state"}', b"x" * 300, b"",
])


@given(lines=st.lists(_LINES, max_size=30), tail=_LINES, block=st.integers(8, 128),
       start_line=st.integers(0, 5))
@settings(max_examples=200, deadline=None)
def test_the_lines_the_evidence_search_found_give_what_a_store_scan_finds(tmp_path_factory, lines,
                                                                          tail, block, start_line):
    """For a needle naming a memory dir, the remembered lines give the same lines, offsets
    and resume point as reading the whole file, whatever the block size of either search."""
    import unittest.mock

    path = tmp_path_factory.mktemp("scan") / "t.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines) + tail)
    start = sum(len(line) + 1 for line in lines[:start_line])
    needle = b"projects/-a/memory/"
    with unittest.mock.patch.object(transcripts, "_BLOCK", block):
        transcripts.EvidenceCache(path.with_suffix(".json")).folder_evidence([str(path)])
    remembered, read = [], []
    with unittest.mock.patch.object(scan_cache, "BLOCK", block * 3):
        expected = scan_cache.matching_lines(path, needle, start, lambda *found: read.append(found))
    resume = transcripts.read_memory_dir_lines(path, path.stat(), needle, start,
                                               lambda *found: remembered.append(found))
    assert (remembered, resume) == (read, expected)


def test_a_store_outside_projects_is_read_from_its_transcripts_after_the_evidence_search(
        claude_home, tmp_path):
    """Its lines need not name a memory dir, so the evidence search's lines cannot answer."""
    notes = tmp_path / "notes"
    notes.mkdir()
    transcript = claude_home.folder("-w") / "s.jsonl"
    write_jsonl(transcript, [write_result("s", str(notes / "a.md"), "one\n", "2026-03-01T09:00:00.000Z"),
                             saved("s", str(claude_home.store(folder="-w") / "b.md"))])
    _evidence_search(transcript, tmp_path)
    with ScanCache() as cache:
        assert [e.content for e in scan_events(notes, [transcript], cache)] == ["one\n"]


# --- forgetting transcripts that are gone -------------------------------------------------


def cached_paths(cache: ScanCache) -> set[str]:
    """The transcripts the cache holds rows of, in either table."""
    rows = cache.db.execute("SELECT path FROM files UNION SELECT path FROM items")
    return {os.fsdecode(path) for (path,) in rows}


def two_sessions(claude_home, store, folder_name: str = "-w") -> tuple:
    folder = claude_home.folder(folder_name)
    first, second = folder / "s1.jsonl", folder / "s2.jsonl"
    write_jsonl(first, [saved("s1", str(store / "a.md"))])
    write_jsonl(second, [saved("s2", str(store / "b.md"))])
    return folder, first, second


def test_a_transcript_deleted_between_two_scans_leaves_no_row(claude_home, store):
    folder, first, second = two_sessions(claude_home, store)
    other_store = claude_home.store(folder="-other")
    with ScanCache() as cache:
        folder_events(store, [folder], cache)
        folder_events(other_store, [folder], cache)  # rows of a second needle, same files
        assert cached_paths(cache) == {str(first), str(second)}
        second.unlink()
        assert [e.file for e in folder_events(store, [folder], cache)] == ["a.md"]
        assert cached_paths(cache) == {str(first)}  # the other needle's rows too


def test_a_transcript_left_out_of_a_partial_scan_keeps_its_rows(claude_home, store, monkeypatch):
    folder, first, second = two_sessions(claude_home, store)
    with ScanCache() as cache:
        folder_events(store, [folder], cache)
        scan_events(store, [first], cache)  # one file, no folder said to be listed whole
        assert cached_paths(cache) == {str(first), str(second)}
        # A caller that names a folder listed whole but leaves out a file still there:
        scan_events(store, [first], cache, listed=[folder])
        assert cached_paths(cache) == {str(first), str(second)}
        read = []
        monkeypatch.setattr(scan_cache, "matching_lines", lambda *args: read.append(args) or 0)
        assert sorted(e.file for e in folder_events(store, [folder], cache)) == ["a.md", "b.md"]
        assert read == []  # both answered from the cache


def test_a_removed_folder_is_forgotten_by_the_daily_sweep_not_before(claude_home, store):
    folder, first, second = two_sessions(claude_home, store)
    gone_folder, gone, _ = two_sessions(claude_home, store, "-w-worktrees-gone")
    with ScanCache() as cache:
        folder_events(store, [folder, gone_folder], cache)
        import shutil

        shutil.rmtree(gone_folder)  # no scan lists it again
        folder_events(store, [folder], cache)
        assert str(gone) in cached_paths(cache)  # swept at the first scan, a day not yet past
        cache.db.execute("UPDATE swept SET at = at - ?", (scan_cache.SWEEP_SECONDS + 1,))
        cache.db.commit()
        folder_events(store, [folder], cache)
        assert cached_paths(cache) == {str(first), str(second)}


def test_a_cache_another_process_holds_while_it_is_upgraded_is_kept_not_replaced(
        claude_home, store, monkeypatch):
    import sqlite3

    folder, _, _ = two_sessions(claude_home, store)
    with ScanCache() as cache:
        folder_events(store, [folder], cache)
        path = cache.path
        cache.db.execute("PRAGMA user_version=3")  # left by an older memtui: to be rebuilt
        cache.db.commit()
    inode = path.stat().st_ino
    writer = sqlite3.connect(path)
    writer.execute("BEGIN IMMEDIATE")  # that older memtui, in the middle of its write
    try:
        monkeypatch.setattr(scan_cache, "BUSY_SECONDS", 0.1)
        with ScanCache() as cache:
            assert sorted(e.file for e in folder_events(store, [folder], cache)) == ["a.md", "b.md"]
        assert path.stat().st_ino == inode  # its file, not deleted under it
    finally:
        writer.rollback()
        writer.close()
    assert sqlite3.connect(path).execute("SELECT count(*) FROM files").fetchone()[0] == 2


def test_a_scan_reading_a_cache_another_has_just_created_is_not_left_without_tables(
        claude_home, store, monkeypatch):
    """The app's discovery and its lost-updates screen may open a new cache together. Here
    the first finds no tables, then pauses after each statement while the second creates
    them and scans again and again: the first must not drop them under the second."""
    import sqlite3
    import threading
    import time

    folder, _, _ = two_sessions(claude_home, store)
    slow = threading.Event()  # the first opener has looked and found no tables
    connect = sqlite3.connect

    class Pausing(sqlite3.Connection):
        def execute(self, sql, *args):
            return self.pause(sql, super().execute(sql, *args))

        def executescript(self, sql):
            return self.pause(sql, super().executescript(sql))

        def pause(self, sql, cursor):
            if threading.current_thread().name == "first":
                if "user_version" in sql:
                    slow.set()
                if slow.is_set():
                    time.sleep(0.05)
            return cursor

    monkeypatch.setattr(sqlite3, "connect", lambda *args, **kw: connect(*args, **kw, factory=Pausing))
    answers, failures = [], []

    def scan(cache: ScanCache) -> None:
        try:
            answers.append(sorted(e.file for e in folder_events(store, [folder], cache)))
        except sqlite3.Error as error:
            failures.append(error)

    def open_and_scan() -> None:
        with ScanCache() as cache:
            scan(cache)

    first = threading.Thread(target=open_and_scan, name="first")
    first.start()
    slow.wait()
    with ScanCache() as second:
        while first.is_alive():
            scan(second)
    first.join()
    assert failures == []
    assert answers == [["a.md", "b.md"]] * len(answers) and len(answers) > 2


def test_a_cache_with_its_version_but_not_its_tables_is_rebuilt(claude_home, store, tmp_path):
    import sqlite3

    folder, _, _ = two_sessions(claude_home, store)
    path = tmp_path / "half.sqlite"
    half = sqlite3.connect(path)  # an older memtui stopped between its two statements
    half.execute(f"PRAGMA user_version={scan_cache.SCHEMA_VERSION}")
    half.close()
    with ScanCache(path) as cache:
        assert sorted(e.file for e in folder_events(store, [folder], cache)) == ["a.md", "b.md"]
        assert cached_paths(cache) != set()  # kept, so the next scan reads nothing


def test_a_busy_or_read_only_cache_still_answers_and_forgets_later(claude_home, store, monkeypatch):
    import sqlite3
    import time

    folder, first, second = two_sessions(claude_home, store)
    with ScanCache() as cache:
        folder_events(store, [folder], cache)
    second.unlink()
    with open(first, "a") as grown:  # scanned from where the cache stopped
        grown.write(json.dumps(saved("s1", str(store / "c.md"))) + "\n")
    third = folder / "s3.jsonl"  # scanned whole
    write_jsonl(third, [saved("s3", str(store / "d.md"))])
    expected = ["a.md", "c.md", "d.md"]
    with ScanCache() as cache:
        cache.db.execute("PRAGMA query_only=ON")  # what a read-only database file answers
        assert sorted(e.file for e in folder_events(store, [folder], cache)) == expected
        assert cached_paths(cache) == {str(first), str(second)}
    writer = sqlite3.connect(scan_cache.ScanCache().path)
    writer.execute("BEGIN IMMEDIATE")  # another process in the middle of its write
    try:
        with ScanCache() as cache, monkeypatch.context() as patch:
            patch.setattr(scan_cache, "BUSY_SECONDS", 0.1)
            cache.db.execute("PRAGMA busy_timeout=100")
            started = time.monotonic()
            assert sorted(e.file for e in folder_events(store, [folder], cache)) == expected
            assert time.monotonic() - started < 20  # not the 30 s the cache waits by default
    finally:
        writer.rollback()
        writer.close()
    with ScanCache() as cache:
        assert sorted(e.file for e in folder_events(store, [folder], cache)) == expected
        assert cached_paths(cache) == {str(first), str(third)}
