"""The sandbox a model works in: a staging copy and bounded tools."""

from __future__ import annotations

import json
import os

from tui.agents.staging import GREP_MATCHES, GREP_SNIPPET, Staging, Toolbox
from tui.claude.paths import LOCK_NAME


def test_staging_keeps_mtimes_and_leaves_the_lock_out(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    (store / "a.md").write_text("a\n")
    os.utime(store / "a.md", (1_600_000_000, 1_600_000_000))
    (store / LOCK_NAME).write_text("1")
    staging = Staging.create(store)
    try:
        assert (staging.root / "a.md").stat().st_mtime == 1_600_000_000
        assert not (staging.root / LOCK_NAME).exists()
    finally:
        staging.discard()
    assert not staging.root.exists()


def test_grep_output_is_bounded_and_delete_is_recorded(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    (store / "old.md").write_text("old\n")
    folder = claude_home.folder("-project")
    records = [{"type": "user", "message": {"content": "deploy " + "x" * 5000}}] * 100
    (folder / "s.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    staging = Staging.create(store)
    log: list[tuple[str, str]] = []
    tools = Toolbox(staging, [folder], lambda kind, text: log.append((kind, text)))
    try:
        found = tools.call("grep_transcripts", {"pattern": "deploy"}).text.splitlines()
        assert len(found) == GREP_MATCHES + 1 and found[-1] == "[more matches not shown]"
        assert all(len(line) <= GREP_SNIPPET + 20 for line in found)

        assert not tools.call("delete_file", {"path": "old.md"}).is_error
        assert staging.deleted == {"old.md"} and (store / "old.md").exists()
        refused = tools.call("delete_file", {"path": "MEMORY.md"})
        assert refused.is_error and tools.refusals and log[-1][0] == "refused"
    finally:
        staging.discard()


def test_the_models_edit_keeps_crlf_line_endings(claude_home, tmp_path):
    """read_text would turn CRLF into LF: an edit of one word must not rewrite every line."""
    from tui.agents.staging import Staging, Toolbox

    store = claude_home.store(tmp_path / "project")
    (store / "notes.md").write_bytes(b"first line\r\nsecond line\r\n")
    staging = Staging.create(store)
    try:
        toolbox = Toolbox(staging, [], lambda kind, text: None)
        assert toolbox.call("read_file", {"path": "notes.md"}).text == "first line\r\nsecond line\r\n"
        toolbox.call("edit_file", {"path": "notes.md", "old_text": "second", "new_text": "2nd"})
        assert (staging.root / "notes.md").read_bytes() == b"first line\r\n2nd line\r\n"
    finally:
        staging.discard()


def test_a_steps_text_is_read_again_after_a_same_size_rewrite_in_the_same_tick(claude_home, tmp_path):
    # The steps share one read of each file; a file rewritten with its size and mtime kept
    # (two writes within the clock's tick) must not hand the next step the old words.
    store = claude_home.store(tmp_path / "project")
    (store / "a.md").write_bytes(b"caf\xe9 old\n")  # not UTF-8: read as read_store_text reads it
    os.utime(store / "a.md", (1_600_000_000, 1_600_000_000))
    staging = Staging.create(store)
    try:
        assert staging.text("a.md") == "caf\ufffd old\n"
        path = staging.root / "a.md"
        path.write_text("first\n")
        written = path.stat().st_mtime_ns
        assert staging.text("a.md") == "first\n"
        path.write_text("other\n")
        os.utime(path, ns=(written, written))
        assert staging.text("a.md") == "other\n"
    finally:
        staging.discard()
