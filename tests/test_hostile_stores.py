"""A store holding what no memory tool wrote: special files, unreadable folders, a binary
MEMORY.md. Each is an `unreadable` finding with its reason, never a hang or a traceback,
and a binary index is neither printed, nor linted, nor rewritten by a run."""

from __future__ import annotations

import json
import os
import stat

import pytest
from conftest import index_line, memory_text, write_index, write_memory
from test_hostile_readers import watched_fifo

from tui import cli
from tui.agents.dream import run_dream
from tui.agents.staging import PathRefused, Staging
from tui.claude import memory_files
from tui.claude.paths import INDEX_NAME
from tui.memory.audit import audit_store
from tui.memory.store import load_store

BINARY = b"PK\x03\x04\x00\x00" + bytes(range(256)) * 40 + b"\x1b[2J\x07" * 50


@pytest.fixture
def store(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "deploy.md", memory_text("deploy", "how we deploy", "project"))
    write_index(store, [index_line("deploy.md")])
    return store


def findings(store, kind=None):
    found = audit_store(load_store(store))
    return [f for f in found if kind is None or f.kind == kind]


@pytest.mark.parametrize("name", ["MEMORY.md", "x.md", "topics/deep.md"])
def test_a_fifo_in_a_store_is_unreadable_and_never_opened(store, name):
    (store / name).parent.mkdir(exist_ok=True)
    if name == INDEX_NAME:
        (store / name).unlink()
    with watched_fifo(store / name) as opened:
        unreadable = findings(store, "unreadable")
        loaded = load_store(store, head_only=True)
    assert opened == []
    [finding] = unreadable
    assert finding.file == name and "named pipe (FIFO), not a regular file" in finding.message
    assert loaded.index_error is None or "named pipe" in loaded.index_error


@pytest.mark.parametrize("target, kind", [("/dev/zero", "character device"),
                                          ("/dev/null", "character device")])
def test_a_memory_linked_to_a_device_is_unreadable_with_what_it_is(store, target, kind):
    os.symlink(target, store / "dev.md")
    [finding] = findings(store, "unreadable")
    assert finding.file == "dev.md" and f"it is a {kind}, not a regular file" in finding.message


def test_an_index_linked_to_dev_zero_is_unreadable_not_endless(store):
    (store / INDEX_NAME).unlink()
    os.symlink("/dev/zero", store / INDEX_NAME)
    [finding] = findings(store, "unreadable")
    assert finding.file == INDEX_NAME and "character device" in finding.message


def test_a_socket_named_like_a_memory_is_unreadable(store):
    os.mknod(store / "s.md", 0o600 | stat.S_IFSOCK)
    [finding] = findings(store, "unreadable")
    assert "it is a socket, not a regular file" in finding.message


def test_a_folder_that_cannot_be_listed_is_an_unreadable_finding(store, monkeypatch):
    """As root every folder can be listed: the refusal is played by os.scandir."""
    (store / "topics").mkdir()
    real_scandir = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith("topics"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    with monkeypatch.context() as patch:  # os is everyone's: pytest's own clean-up lists too
        patch.setattr(memory_files.os, "scandir", scandir)
        [finding] = findings(store, "unreadable")
    assert finding.file == "topics/"
    assert finding.message == "topics/ cannot be listed (Permission denied): the memories in it are unseen"


def test_symlink_loops_in_a_store_end(store):
    for number in range(1, 4):
        os.symlink(".", store / f"loop{number}")
    os.symlink("..", store / "up")
    assert [m.file for m in load_store(store).memories] == ["deploy.md"]


# --- a binary MEMORY.md --------------------------------------------------------------------


@pytest.fixture
def binary_index(store):
    (store / INDEX_NAME).write_bytes(BINARY)
    return store


def test_a_binary_index_is_unreadable_first_and_its_lines_are_not_linted(binary_index, capsys):
    found = findings(binary_index)
    index_findings = [f for f in found if f.file == INDEX_NAME]
    assert [f.kind for f in index_findings] == ["unreadable"]
    assert "is not text (it holds NUL bytes)" in index_findings[0].message
    assert cli.main(["audit", str(binary_index)]) == 1
    out = capsys.readouterr().out
    first_finding = next(line for line in out.splitlines() if line.startswith("error"))
    assert "unreadable" in first_finding and "long_index_line" not in out


def test_mostly_invalid_utf8_is_not_text_but_a_legacy_encoding_is_only_non_utf8(store):
    (store / INDEX_NAME).write_bytes(bytes(range(128, 256)) * 50)
    assert "most of it is not UTF-8 text" in findings(store, "unreadable")[0].message
    (store / INDEX_NAME).write_bytes("- [Café](deploy.md) - été à Zürich\n".encode("latin-1"))
    [finding] = findings(store, "unreadable")
    assert "not valid UTF-8" in finding.message
    assert load_store(store).index_not_text is None


@pytest.mark.parametrize("loaded", [True, False])
def test_index_of_a_binary_file_is_one_sentence_and_exit_2(binary_index, capsysbinary, loaded):
    argv = ["index", str(binary_index)] + (["--loaded"] if loaded else [])
    assert cli.main(argv) == 2
    out, err = capsysbinary.readouterr()
    assert out == b""
    assert err.decode().count("\n") == 1 and "is not text (it holds NUL bytes)" in err.decode()
    assert b"\x1b" not in err and b"\x07" not in err


def test_index_of_an_unreadable_index_says_why(store, capsys):
    (store / INDEX_NAME).unlink()
    (store / INDEX_NAME).mkdir()
    assert cli.main(["index", str(store), "--loaded"]) == 2
    assert "MEMORY.md cannot be read (it is a directory" in capsys.readouterr().err


def test_no_dream_rewrites_a_binary_index(binary_index):
    result = run_dream(binary_index, engine="offline")
    assert result.error is None and result.changeset is not None
    changed = {change.file for change in result.changeset.files}
    assert INDEX_NAME not in changed and not any(f.endswith("notes.md") for f in changed)
    assert (binary_index / INDEX_NAME).read_bytes() == BINARY


def test_a_model_cannot_write_a_binary_index(binary_index):
    staging = Staging.create(binary_index)
    try:
        with pytest.raises(PathRefused, match="not text"):
            staging.resolve(INDEX_NAME, writing=True)
        (staging.root / INDEX_NAME).write_text("- [Deploy](deploy.md) — rewritten\n")
        files, notes = staging.staged()
        assert files[INDEX_NAME] == BINARY and "left it as it is" in notes[0]
    finally:
        staging.discard()


def test_audit_json_keeps_the_exact_message(binary_index, capsys):
    assert cli.main(["audit", str(binary_index), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    kinds = [f["kind"] for f in report["findings"] if f["file"] == INDEX_NAME]
    assert kinds == ["unreadable"]


@pytest.mark.parametrize("size", [0, 1, 8191, 8192, 8193, 70_001, (1 << 20) - 1, (1 << 20) + 9])
def test_a_memory_is_read_whole_up_to_the_limit_whatever_its_size(store, size):
    from tui.memory.store import FULL_READ_LIMIT

    text = "".join(chr(ord("a") + n % 26) + ("\n" if n % 61 == 60 else "") for n in range(size))
    (store / "sized.md").write_text(text[:size])
    loaded = load_store(store).memory("sized.md")
    assert loaded.text == text[:size][:FULL_READ_LIMIT]
    assert loaded.size == size and loaded.error is None
