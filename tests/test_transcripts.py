"""Reading transcripts defensively (reference §8) and the memory evidence they carry."""

from __future__ import annotations

import json
import os

import pytest
from conftest import (
    SNAPSHOT_RECORD,
    edit_result_record,
    memory_saved_record,
    tool_use_record,
    user_record,
    worktree_state_record,
    write_jsonl,
    write_result_record,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from tui import forked
from tui.claude import transcripts

STORE = "/home/u/.claude/projects/-home-u-repo/memory"


def test_first_cwd_skips_a_first_line_without_cwd(tmp_path):
    path = tmp_path / "s.jsonl"
    write_jsonl(path, [SNAPSHOT_RECORD, user_record("/home/u/repo"), user_record("/other")])
    assert transcripts.first_cwd(path) == "/home/u/repo"


def test_first_cwd_survives_a_half_written_last_line(tmp_path):
    path = tmp_path / "s.jsonl"
    half = json.dumps(user_record("/late"))[:40]
    write_jsonl(path, [SNAPSHOT_RECORD, user_record("/home/u/repo"), half])
    assert transcripts.first_cwd(path) == "/home/u/repo"
    write_jsonl(path, [SNAPSHOT_RECORD, json.dumps(user_record("/only"))[:-5]])
    assert transcripts.first_cwd(path) is None


def test_first_cwd_skips_non_utf8_blank_and_non_object_lines(tmp_path):
    path = tmp_path / "s.jsonl"
    write_jsonl(path, [
        b'\xff\xfe{"cwd": \x80\x81}\n',
        b"\n",
        b"   \n",
        b'["cwd", "/not/an/object"]\n',
        b'"cwd"\n',
        user_record("/home/u/repo"),
    ])
    assert transcripts.first_cwd(path) == "/home/u/repo"


def test_first_cwd_ignores_empty_and_non_string_cwd(tmp_path):
    path = tmp_path / "s.jsonl"
    write_jsonl(path, [user_record(""), {**user_record(None), "cwd": 42}, user_record("/real")])
    assert transcripts.first_cwd(path) == "/real"


def test_first_cwd_of_missing_or_empty_file_is_none(tmp_path):
    assert transcripts.first_cwd(tmp_path / "missing.jsonl") is None
    (tmp_path / "empty.jsonl").write_bytes(b"")
    assert transcripts.first_cwd(tmp_path / "empty.jsonl") is None


def _first_cwd_by_definition(data: bytes) -> str | None:
    """The first line (split on `\\n` only) that is a JSON object with a non-empty string
    `cwd`, as a reader of the lines one by one finds it."""
    for line in data.split(b"\n"):
        try:
            record = json.loads(line.decode("utf-8", errors="replace"))
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("cwd"), str) and record["cwd"]:
            return record["cwd"]
    return None


_TRANSCRIPT_LINES = st.one_of(
    st.builds(lambda cwd: json.dumps(user_record(cwd)).encode(),
              st.sampled_from(["/home/u/repo", "", "/x y/ü", "/a\\\\b"])),
    st.builds(lambda size: json.dumps({**SNAPSHOT_RECORD, "pad": "p" * size}).encode(),
              st.integers(0, 90)),
    st.builds(lambda text: json.dumps({"type": "user", "message": text}).encode(),
              st.sampled_from(['"cwd": "/in/text"', "cwd", ""])),
    st.binary(max_size=30),
    st.just(b'{"cwd": 42}'),
    st.just(b'{"cwd": "/cut/short'),
)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(_TRANSCRIPT_LINES, max_size=8), crlf=st.booleans(),
       ends_with_newline=st.booleans(), first=st.integers(1, 40), later=st.integers(1, 40))
def test_first_cwd_read_in_blocks_is_the_first_line_with_a_cwd(
        tmp_path_factory, lines, crlf, ends_with_newline, first, later):
    """Blocks of any size (lines cut across them, a last line with no newline) find what a
    line-by-line reading finds."""
    data = (b"\r\n" if crlf else b"\n").join(lines) + (b"\n" if ends_with_newline else b"")
    path = tmp_path_factory.mktemp("cwd") / "s.jsonl"
    path.write_bytes(data)
    blocks = transcripts.FIRST_BLOCK, transcripts.NEXT_BLOCKS
    transcripts.FIRST_BLOCK, transcripts.NEXT_BLOCKS = first, later
    try:
        assert transcripts.first_cwd(path) == _first_cwd_by_definition(data)
    finally:
        transcripts.FIRST_BLOCK, transcripts.NEXT_BLOCKS = blocks


def test_session_files_are_top_level_jsonl_not_agents(tmp_path):
    (tmp_path / "11111111-1111-1111-1111-111111111111.jsonl").write_text("")
    (tmp_path / "agent-abc.jsonl").write_text("")
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.jsonl").write_text("")
    names = sorted(p.name for p in transcripts.session_files(tmp_path))
    assert names == ["11111111-1111-1111-1111-111111111111.jsonl"]


@pytest.mark.parametrize("tool", ["Write", "Edit", "MultiEdit"])
def test_memory_evidence_from_tool_use_file_path(tmp_path, tool):
    path = tmp_path / "s.jsonl"
    write_jsonl(path, [tool_use_record("/gone", tool, f"{STORE}/feedback_testing.md")])
    assert transcripts.memory_evidence(path).stores == {STORE}


def test_memory_evidence_ignores_reads_and_writes_outside_a_memory_dir(tmp_path):
    path = tmp_path / "s.jsonl"
    write_jsonl(path, [
        tool_use_record("/gone", "Read", f"{STORE}/a.md"),
        tool_use_record("/gone", "Write", "/home/u/repo/memory.py"),
        tool_use_record("/gone", "Write", "/home/u/repo/memory/notes.md"),
    ])
    assert transcripts.memory_evidence(path).stores == set()


def test_memory_evidence_from_write_tool_result_file_path(tmp_path):
    path = tmp_path / "s.jsonl"
    write_jsonl(path, [write_result_record("/gone", f"{STORE}/user_role.md")])
    assert transcripts.memory_evidence(path).stores == {STORE}


def test_memory_evidence_from_edit_tool_result_file_path(tmp_path):
    # Edit results carry `filePath` and `structuredPatch` but no `type` field.
    path = tmp_path / "s.jsonl"
    write_jsonl(path, [edit_result_record("/gone", f"{STORE}/user_role.md")])
    assert transcripts.memory_evidence(path).stores == {STORE}


def test_memory_evidence_from_memory_saved_written_paths(tmp_path):
    path = tmp_path / "s.jsonl"
    other = "/home/u/.claude/projects/-elsewhere/memory"
    write_jsonl(path, [memory_saved_record([f"{STORE}/a.md", f"{other}/logs/2026/01/x.md", 7])])
    assert transcripts.memory_evidence(path).stores == {STORE, other}


def test_memory_evidence_from_worktree_state_original_cwd(tmp_path):
    path = tmp_path / "s.jsonl"
    write_jsonl(path, [worktree_state_record("/home/u/repo", "/home/u/repo/.worktrees/x")])
    evidence = transcripts.memory_evidence(path)
    assert evidence.original_cwds == {"/home/u/repo"}
    assert evidence.stores == set()


def test_memory_evidence_windows_paths(tmp_path):
    path = tmp_path / "s.jsonl"
    store = "C:\\Users\\me\\.claude\\projects\\C--Users-me-proj\\memory"
    write_jsonl(path, [tool_use_record("C:\\gone", "Write", store + "\\a.md")])
    assert transcripts.memory_evidence(path).stores == {store}


def test_memory_evidence_survives_malformed_lines(tmp_path):
    path = tmp_path / "s.jsonl"
    write_jsonl(path, [
        b'{"type":"system","subtype":"memory_saved","writtenPaths":\n',
        b'\xffmemory\xfe\n',
        b'{"type":"assistant","message":"memory"}\n',
        b'{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":"memory"}]}}\n',
        b'{"type":"worktree-state","worktreeSession":"memory"}\n',
        memory_saved_record([f"{STORE}/ok.md"]),
    ])
    assert transcripts.memory_evidence(path).stores == {STORE}


def _evidence_the_slow_way(path):
    """Every line decoded, no pre-filter: what the block search must agree with."""
    evidence = transcripts.MemoryEvidence()
    for line in path.read_bytes().split(b"\n"):
        record = transcripts.decode(line)
        if record is not None:
            transcripts.add_evidence(evidence, record)
    return evidence


_RECORDS = st.sampled_from([
    {"type": "user", "message": {"content": "x" * 3000}},
    {"type": "system", "subtype": "memory_saved",
     "writtenPaths": ["/h/.claude/projects/-a/memory/x.md"]},
    {"type": "assistant", "message": {"content": [
        {"type": "tool_use", "name": "Write", "input": {"file_path": "/h/projects/-b/memory/y.md"}}]}},
    {"type": "user", "toolUseResult": {"type": "create",
                                       "filePath": "C:\\Users\\me\\projects\\C-w\\memory\\z.md"}},
    {"type": "worktree-state", "worktreeSession": {"originalCwd": "/home/me/app"}},
    {"type": "assistant", "message": {"content": [{"type": "text", "text": "memory is hard"}]}},
    {"type": "user", "toolUseResult": {"type": {"odd": 1}, "filePath": "/p/projects/-d/memory/q.md"}},
])


@given(records=st.lists(_RECORDS, max_size=40), cut=st.booleans())
@settings(max_examples=150, deadline=None)
def test_the_block_search_finds_the_same_evidence_as_decoding_every_line(tmp_path_factory,
                                                                         records, cut):
    import json as json_module
    from unittest import mock

    path = tmp_path_factory.mktemp("t") / "s.jsonl"
    text = "".join(json_module.dumps(record) + "\n" for record in records)
    if cut and text:
        text = text[:-7]  # a line being written
    path.write_text(text)
    with mock.patch.object(transcripts, "_BLOCK", 512):  # records straddle blocks
        found = transcripts.memory_evidence(path)
    expected = _evidence_the_slow_way(path)
    assert (found.stores, found.original_cwds) == (expected.stores, expected.original_cwds)


def test_the_evidence_cache_rereads_a_transcript_only_when_it_changed(tmp_path, monkeypatch):
    path = tmp_path / "s.jsonl"
    write_jsonl(path, [{"type": "worktree-state", "worktreeSession": {"originalCwd": "/o"}}])
    cache_file = tmp_path / "cache.json"
    searches = []
    for name in ("_memory_dir_search", "_original_cwds"):
        real = getattr(transcripts, name)
        monkeypatch.setattr(transcripts, name,
                            lambda *args, real=real, name=name: searches.append(name) or real(*args))

    first = transcripts.EvidenceCache(cache_file)
    assert first.folder_evidence([str(path)]).original_cwds == {"/o"}
    first.save()
    again = transcripts.EvidenceCache(cache_file)
    assert again.folder_evidence([str(path)]).original_cwds == {"/o"}
    assert searches == ["_memory_dir_search", "_original_cwds"]  # the second answered from the cache
    with open(path, "a") as out:
        out.write('{"type": "system", "subtype": "memory_saved", '
                  '"writtenPaths": ["/h/projects/-a/memory/x.md"]}\n')
    assert again.folder_evidence([str(path)]).stores == {"/h/projects/-a/memory"}
    # read again; the worktree origins not even searched: a folder with a store needs none
    assert searches == ["_memory_dir_search", "_original_cwds", "_memory_dir_search"]


@pytest.mark.parametrize("engine", ["re", "re2"])
@given(parts=st.lists(st.sampled_from([b"/", b"\\\\", b"memory", b"memor", b"y", b"x", b"\n"]),
                      max_size=40),
       cut=st.integers(0, 400))
def test_the_memory_dir_search_finds_every_path_form_and_nothing_else(engine, parts, cut):
    """Every `/memory/` and `\\\\memory\\\\` (JSON's escaped Windows separator) that lies
    whole in the searched part, overlapping ones too; never mixed separators. re searches
    a process's first 32 MB, RE2 the rest: both alike."""
    import re

    from tui.claude.transcripts import _memory_dir_starts

    searched = transcripts._bytes_searched
    transcripts._bytes_searched = 0 if engine == "re" else transcripts.RE2_AFTER
    data = bytearray(b"".join(parts))
    end = min(cut, len(data))
    expected = [m.start() for m in re.finditer(rb"(?=/memory/|\\\\memory\\\\)", data[:end])]
    try:
        assert list(_memory_dir_starts(data, end)) == expected
    finally:
        transcripts._bytes_searched = searched


def _folder_of_transcripts(folder, count: int):
    """`count` transcripts of different sizes, each writing its own store and reading
    another's, with lines that name a memory dir without writing it."""
    folder.mkdir()
    files = []
    for n in range(count):
        path = folder / f"{n:08d}-0000-0000-0000-000000000000.jsonl"
        write_jsonl(path, [
            {"type": "user", "message": {"content": "x" * (500 * n)}},
            tool_use_record("/gone", "Write", f"/h/.claude/projects/-p{n % 3}/memory/a.md"),
            tool_use_record("/gone", "Read", f"/h/.claude/projects/-q{n}/memory/b.md"),
        ])
        files.append(str(path))
    return files


def test_a_big_search_shared_with_a_child_finds_what_one_process_finds(tmp_path, monkeypatch):
    files = _folder_of_transcripts(tmp_path / "folder", 9)
    alone = transcripts.EvidenceCache(tmp_path / "alone.json").folder_evidence(files)
    lines_alone = {path: vars_of(transcripts._searched.pop(os.path.abspath(path)))
                   for path in files}
    shared_out = []
    real_fork = forked.fork_call
    monkeypatch.setattr(transcripts, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(forked, "fork_call",
                        lambda *args: shared_out.append(args) or real_fork(*args))
    shared = transcripts.EvidenceCache(tmp_path / "shared.json").folder_evidence(files)
    assert len(shared_out) == 1 and 0 < len(shared_out[0][2]) < len(files)  # split in two
    assert (shared.stores, shared.original_cwds) == (alone.stores, alone.original_cwds)
    assert {path: vars_of(transcripts._searched[os.path.abspath(path)])
            for path in files} == lines_alone  # what the overwrites scan reads again


def test_a_child_that_gives_no_answer_leaves_its_share_to_this_process(tmp_path, monkeypatch):
    files = _folder_of_transcripts(tmp_path / "folder", 5)
    expected = transcripts.EvidenceCache(tmp_path / "alone.json").folder_evidence(files)
    monkeypatch.setattr(transcripts, "PARALLEL_BYTES", 0)
    real_fork = forked.fork_call
    monkeypatch.setattr(forked, "fork_call", lambda *args: real_fork(_fails))
    found = transcripts.EvidenceCache(tmp_path / "failed.json").folder_evidence(files)
    assert found.stores == expected.stores == {f"/h/.claude/projects/-p{n}/memory"
                                                for n in range(3)}


def _fails() -> None:
    raise RuntimeError("a bug in the child")


def vars_of(lines) -> tuple:
    return lines.size, lines.mtime_ns, lines.complete, lines.spans
