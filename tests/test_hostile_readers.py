"""Every reader is total: special files, odd JSON types, lone surrogates, NUL, deep nesting
and damaged caches give a value or one sentence, never a hang or a traceback."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import write_jsonl

from tui.agents.client import EngineError, load_config
from tui.claude import files, gitroot, paths, settings, transcripts
from tui.claude.lines import read_store_text
from tui.claude.targets import TargetError, resolve_target
from tui.history import backfill
from tui.history.scan_cache import ScanCache
from tui.history.writes_log import MemoryEvent, StoreMatcher, apply_edits, parse_line, scan_events
from tui.visible import json_visible, visible

STORE = "/c/projects/-home-me-proj/memory"


@contextlib.contextmanager
def watched_fifo(path: Path):
    """A FIFO at `path`; yields a list that records every time something opened it for
    reading. The watcher opens it for writing whenever a reader is waiting, which both
    notices the open and lets the reader go: a test that fails does not hang."""
    os.mkfifo(path)
    opened: list[float] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            try:
                descriptor = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as error:
                if error.errno not in (errno.ENXIO, errno.ENOENT):
                    return
                time.sleep(0.01)
                continue
            opened.append(time.time())
            os.close(descriptor)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield opened
    finally:
        stop.set()
        watcher.join()


# --- special files are never opened --------------------------------------------------------


def test_a_fifo_is_not_opened_and_says_what_it_is(tmp_path):
    with watched_fifo(tmp_path / "MEMORY.md") as opened:
        with pytest.raises(OSError, match=r"named pipe \(FIFO\), not a regular file"):
            files.read_regular(tmp_path / "MEMORY.md")
        with pytest.raises(OSError):
            read_store_text(tmp_path / "MEMORY.md")
    assert opened == []


def test_a_device_behind_a_symlink_is_not_read(tmp_path):
    os.symlink("/dev/zero", tmp_path / "zero.md")
    with pytest.raises(files.NotAFile, match="character device"):
        files.read_regular(tmp_path / "zero.md")


def test_a_path_no_file_can_have_is_an_os_error(tmp_path):
    for name in ("a\0b", "a\ud800b"):
        with pytest.raises(OSError, match="no file can have this name"):
            files.read_regular(tmp_path / name)


def _opened(open_file, target) -> tuple:
    """What opening gives: the file's bytes and inode, or the error's kind and sentence."""
    try:
        descriptor, status = open_file(target)
    except OSError as error:
        return type(error), error.strerror
    try:
        return os.read(descriptor, 100), status.st_ino
    finally:
        os.close(descriptor)


def test_a_listed_entry_opens_as_its_path_does_without_a_stat_first(tmp_path):
    # open_listed takes the listing's word for a plain file (no stat before the open):
    # every kind of entry must still give what open_regular_status gives for its path.
    (tmp_path / "plain.md").write_text("plain")
    (tmp_path / "folder.md").mkdir()
    os.symlink("plain.md", tmp_path / "link.md")
    os.symlink("missing.md", tmp_path / "dangling.md")
    os.symlink("/dev/zero", tmp_path / "zero.md")
    os.symlink("folder.md", tmp_path / "to-folder.md")
    (tmp_path / "locked.md").write_text("locked")
    (tmp_path / "locked.md").chmod(0)
    with watched_fifo(tmp_path / "pipe.md") as opened:
        os.symlink("pipe.md", tmp_path / "to-pipe.md")
        with os.scandir(tmp_path) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
        assert len(entries) == 9
        for entry in entries:
            assert _opened(files.open_listed, entry) == _opened(
                files.open_regular_status, entry.path), entry.name
    assert opened == []


def test_transcripts_that_are_fifos_or_devices_are_skipped(tmp_path):
    with watched_fifo(tmp_path / "s.jsonl") as opened:
        assert transcripts.first_cwd(tmp_path / "s.jsonl") is None
        found = transcripts.memory_evidence(tmp_path / "s.jsonl")
        assert (found.stores, found.original_cwds) == (set(), set())
    assert opened == []
    os.symlink("/dev/zero", tmp_path / "z.jsonl")
    assert transcripts.memory_evidence(tmp_path / "z.jsonl").stores == set()


def test_history_scan_skips_a_fifo_subagent_transcript(tmp_path):
    agent = tmp_path / "s1" / "subagents" / "agent-a.jsonl"
    agent.parent.mkdir(parents=True)
    with watched_fifo(agent) as opened, ScanCache(tmp_path / "scan.sqlite") as cache:
        assert scan_events(Path(STORE), [agent], cache) == []
    assert opened == []


def test_a_fifo_settings_file_reads_as_no_setting(tmp_path):
    with watched_fifo(tmp_path / "settings.json") as opened:
        assert settings.read_setting(tmp_path / "settings.json") is None
        assert settings.auto_memory_enabled({}, tmp_path / "settings.json")
    assert opened == []


def test_git_pointer_files_that_are_fifos_make_the_checkout_its_own_root(tmp_path):
    """A `.git` file whose `commondir` and `gitdir` are FIFOs: the back-link check fails,
    so the checkout keys its own store, and discovery never waits on a pipe."""
    worktree_git = tmp_path / "main" / ".git" / "worktrees" / "wt"
    worktree_git.mkdir(parents=True)
    checkout = tmp_path / "wt"
    checkout.mkdir()
    (checkout / ".git").write_text(f"gitdir: {worktree_git}\n")
    with watched_fifo(worktree_git / "commondir") as opened:
        assert gitroot.canonical_project_root(checkout) == checkout
    assert opened == []


def test_git_pointer_holding_a_nul_or_too_long_is_no_pointer(tmp_path):
    checkout = tmp_path / "c"
    checkout.mkdir()
    (checkout / ".git").write_bytes(b"gitdir: /tmp/a\0b\n")
    assert gitroot.canonical_project_root(checkout) == checkout
    (checkout / ".git").write_bytes(b"gitdir: " + b"a/" * 100_000)
    assert gitroot.canonical_project_root(checkout) == checkout


# --- settings and config.toml ----------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "[" * 100_000,  # past Python's recursion limit
    '{"autoMemoryDirectory": ["/x"], "autoMemoryEnabled": {}}',
    b'{"autoMemoryDirectory": "/tmp/\xff"}',
    "7" * 5000,  # past Python's digit limit
])
def test_a_settings_file_of_any_shape_reads_as_no_setting(tmp_path, text):
    path = tmp_path / "settings.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    assert settings.read_setting(path) is None
    assert settings.auto_memory_enabled({}, path)


def test_a_memory_dir_setting_holding_nul_is_rejected_with_its_reason(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"autoMemoryDirectory": "/tmp/a\\u0000b"}')
    location = settings.resolve_memory_location(tmp_path, home=tmp_path, env={},
                                                managed_file=path)
    assert location.source == "default"
    assert "contains a NUL byte" in location.rejected[0]


@pytest.mark.parametrize("content, says", [
    (b'[anthropic]\nmodel = "\xff\xfe"\n', "is not UTF-8 text"),
    (b"x = " + b"[" * 100_000, "too large or too deep"),
    (b"x = " + b"9" * 5000, "too large or too deep"),
    (b"anthropic = 5\n", "must be a table"),
    (b"[anthropic]\nmodel = 5\n", r"`model` in \[anthropic\] must be a string"),
    (b"[anthropic]\ntimeout = [1]\n", "timeout must be a number of seconds"),
    (b"[anthropic]\ntimeout = 1e999\n", "timeout must be a number of seconds"),
    (b"[anthropic]\ntimeout = true\n", "timeout must be a number of seconds"),
    (b"[anthropic\n", "cannot be read as TOML"),
    (b'[anthropic]\nmodle = "claude-opus-4"\n',
     r"memtui reads no `modle` in \[anthropic\] \(only `api_key`, `auth_token`, `base_url`, "
     r"`model` and `timeout`\)"),
])
def test_a_damaged_config_toml_is_one_sentence(tmp_path, content, says):
    path = tmp_path / "config.toml"
    path.write_bytes(content)
    with pytest.raises(EngineError, match=says):
        load_config({}, path)


def test_a_fifo_config_toml_is_one_sentence_and_not_opened(tmp_path):
    with watched_fifo(tmp_path / "config.toml") as opened:
        with pytest.raises(EngineError, match="named pipe"):
            load_config({}, tmp_path / "config.toml")
    assert opened == []


# --- transcript records of any type ---------------------------------------------------------


def _result_line(result: dict) -> bytes:
    return json.dumps({"type": "user", "sessionId": "s", "toolUseResult": result}).encode()


@pytest.mark.parametrize("edits", [[5], [None, "x", []], {"a": 1}, "edits", [{"old_string": 5}]])
def test_an_edit_result_with_odd_edits_has_no_content(edits):
    """An Edit result with `edits: [5]` crashed `overwrites` and `history backfill`."""
    line = _result_line({"filePath": f"{STORE}/a.md", "edits": edits, "originalFile": "a"})
    [event] = parse_line(line, 0, StoreMatcher(Path(STORE)), "t.jsonl")
    assert event["kind"] == "edit" and event["content"] is None
    assert apply_edits("a", [5]) is None


@pytest.mark.parametrize("result", [
    {"type": {"a": 1}, "filePath": f"{STORE}/a.md", "structuredPatch": []},
    {"type": ["create"], "filePath": f"{STORE}/a.md"},
    {"type": "create", "filePath": [f"{STORE}/a.md"]},
    {"type": "text", "file": {"filePath": f"{STORE}/a.md", "content": "x", "startLine": {},
                              "numLines": [], "totalLines": {}}},
    {"type": "text", "file": {"filePath": f"{STORE}/a.md", "content": "x", "startLine": True}},
])
def test_a_tool_result_of_odd_types_is_read_or_skipped(result):
    events = parse_line(_result_line(result), 0, StoreMatcher(Path(STORE)), "t.jsonl")
    assert all(event["content"] in (None, "x") for event in events)


def test_lone_surrogates_in_a_write_are_what_claude_code_wrote_to_disk():
    """JSON may hold `\\ud800`; Claude Code's runtime writes it to the file as U+FFFD, so the
    history holds U+FFFD and the journal can encode it."""
    line = (b'{"type":"user","sessionId":"\\ud800","cwd":5,"toolUseResult":{"type":"update",'
            b'"filePath":"' + STORE.encode() + b'/a\\udfff.md","content":"a\\ud800b",'
            b'"originalFile":"\\udc00"}}')
    [item] = parse_line(line, 0, StoreMatcher(Path(STORE)), "t.jsonl")
    assert item["content"] == "a\ufffdb" and item["original"] == "\ufffd"
    assert item["file"] == "a\ufffd.md" and item["session"] == "\ufffd" and item["cwd"] == ""
    for commit in backfill.plan([MemoryEvent(**item)]):
        assert all(isinstance(data, bytes) for data in commit.files.values())


def test_a_damaged_evidence_cache_is_read_again(tmp_path):
    transcript = tmp_path / "s.jsonl"
    write_jsonl(transcript, [{"type": "system", "subtype": "memory_saved",
                              "writtenPaths": [f"{STORE}/a.md"]}])
    info = transcript.stat()
    cache_file = tmp_path / "evidence.json"
    for entry in ([info.st_size, info.st_mtime_ns, 5, {"a": 1}],
                  [info.st_size, info.st_mtime_ns, [{"a": 1}], []]):
        cache_file.write_text(json.dumps({str(transcript): entry}))
        assert transcripts.EvidenceCache(cache_file).folder_evidence([transcript]).stores == {STORE}
    cache_file.write_text("[" * 100_000)
    assert transcripts.EvidenceCache(cache_file).folder_evidence([transcript]).stores == {STORE}


def test_history_scan_keeps_transcripts_whose_names_are_not_utf8(tmp_path):
    folder = os.fsencode(tmp_path) + b"/caf\xe9"
    os.mkdir(folder)
    transcript = Path(os.fsdecode(folder + b"/s.jsonl"))
    write_jsonl(transcript, [{"type": "system", "subtype": "memory_saved",
                              "writtenPaths": [f"{STORE}/a.md"]}])
    for _ in range(2):  # scanned, then answered from the cache
        with ScanCache(tmp_path / "scan.sqlite") as cache:
            [event] = scan_events(Path(STORE), [transcript], cache)
        assert event.kind == "saved" and event.transcript == str(transcript)


def test_history_scan_without_a_writable_cache_dir_still_scans(tmp_path):
    (tmp_path / "cache").write_text("a file where the cache dir should be")
    transcript = tmp_path / "s.jsonl"
    write_jsonl(transcript, [{"type": "system", "subtype": "memory_saved",
                              "writtenPaths": [f"{STORE}/a.md"]}])
    with ScanCache(tmp_path / "cache" / "scan.sqlite") as cache:
        assert [e.kind for e in scan_events(Path(STORE), [transcript], cache)] == ["saved"]


# --- paths ------------------------------------------------------------------------------------


def test_a_long_path_with_a_lone_surrogate_gets_a_folder_name():
    """Past 200 characters the name carries a hash of the path's UTF-16 units; a lone
    surrogate (a JSON cwd, or a file name that is not UTF-8) is one unit like any other."""
    for odd in ("\ud800", "\udcff"):
        name = paths.sanitize("/x/" + "d" * 210 + odd)
        assert name.startswith("-x-" + "d" * 197 + "-") and len(name) > 201


def test_a_path_holding_nul_or_a_lone_surrogate_normalizes_without_resolving():
    assert paths.normalize_path("/tmp/a\0b") == "/tmp/a\0b"
    assert paths.normalize_path("/tmp/../tmp/\ud800") == "/tmp/\ud800"


@pytest.mark.parametrize("target", ["x" * 300, "/tmp/" + "y" * 300, "~nobody-such-user/m",
                                    "a\0b", "/tmp/\ud800"])
def test_a_target_no_file_can_be_is_one_sentence(tmp_path, target):
    with pytest.raises(TargetError):
        resolve_target(target, home=tmp_path, env={})


# --- output -------------------------------------------------------------------------------------


def test_lone_surrogates_are_shown_as_the_bytes_or_code_points_they_stand_for():
    assert visible("caf\udce9.md") == "caf\\xe9.md"
    assert visible("/tmp/\ud800") == "/tmp/<U+D800>"
    assert json.loads(json_visible(json.dumps("a\ud800", ensure_ascii=False))) == "a\ud800"


def test_projects_json_with_a_lone_surrogate_cwd_is_valid_json(make_home):
    """A transcript `cwd` holding `\\ud800` crashed `projects --json` on the real stdout."""
    home = make_home()
    home.transcript("-weird", [b'{"type":"user","cwd":"/tmp/\\ud800x"}\n'])
    result = subprocess.run(
        [sys.executable, "-m", "tui", "--config-dir", str(home.home), "projects", "--json"],
        capture_output=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr.decode()
    [project] = json.loads(result.stdout)
    assert project["paths"] == ["/tmp/\ud800x"]
    result = subprocess.run(
        [sys.executable, "-m", "tui", "--config-dir", str(home.home), "projects"],
        capture_output=True, timeout=60,
    )
    assert result.returncode == 0 and b"/tmp/<U+D800>x" in result.stdout


def test_a_memory_dir_setting_with_a_lone_surrogate_is_the_path_claude_code_makes(tmp_path):
    """Node writes a lone surrogate in a file name as U+FFFD; so does the setting here, and
    the store's path can be encoded (it crashed `overwrites` and `history backfill`)."""
    path = tmp_path / "settings.json"
    path.write_text('{"autoMemoryDirectory": "/tmp/x\\ud800"}')
    assert settings.read_setting(path) == "/tmp/x\ufffd"


@pytest.mark.parametrize("value", ["9" * 5000, "0x" + "f" * 5000, "0o" + "7" * 5000,
                                   "-" + "9" * 400])
def test_a_frontmatter_number_past_a_double_is_infinity_as_in_javascript(value):
    from tui.memory import frontmatter

    memory = frontmatter.parse(f"---\nname: {value}\ntype: user\n---\n")
    assert memory.data["name"] in (float("inf"), float("-inf"))
    assert memory.name in ("inf", "-inf")  # text, where str() of the integer raised


def test_a_pid_past_what_the_kernel_takes_is_no_live_process():
    # `memtui-run-4999999999-x` in the temp dir, or a lock naming that PID, crashed every
    # command with OverflowError from os.kill.
    from tui.claude.lock import pid_alive

    assert pid_alive(4_999_999_999) is False
    assert pid_alive(os.getpid()) is True
