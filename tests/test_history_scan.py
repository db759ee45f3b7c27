"""Scanning transcripts for a store's events: subagents, growing files, the cache."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import write_jsonl
from tui.history import scan_cache
from tui.history.scan_cache import ScanCache
from tui.history.writes_log import scan_events, transcript_files


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


def test_watch_stops_cleanly_on_ctrl_c(claude_home, store, tmp_path):
    script = textwrap.dedent("""
        import sys
        from tui import cli
        sys.exit(cli.main(sys.argv[1:]))
    """)
    process = subprocess.Popen(
        [sys.executable, "-c", script, "--config-dir", str(claude_home.home), "watch", str(store),
         "--interval", "0.05"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ),
    )
    try:
        started = process.stdout.readline()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)  # a loaded machine: git may be slow to end
    finally:
        process.kill()
    assert str(store) in started
    assert process.returncode == 0
    assert out.strip().splitlines()[-1].startswith("memtui: stopped watching")
    assert err == ""


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
