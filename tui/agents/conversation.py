"""A session's messages as extraction reads them, and our per-session cursor.

The cursor is the uuid of the last message an extraction covered, kept in memtui's state
dir with the transcript's path: the transcript on disk is append-only, so a compaction in
Claude Code cannot move it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tui import xdg
from tui.agents.undo_notes import CURSOR, drop_note, read_note, write_notes
from tui.claude import transcripts


@dataclass(frozen=True)
class Message:
    uuid: str
    role: str  # "user" or "assistant"
    text: str
    timestamp: str
    wrote: tuple[str, ...] = ()  # file paths this record says were written


def _text_of(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content
                         if isinstance(b, dict) and b.get("type") == "text")
    return ""


def read_messages(transcript: Path) -> list[Message]:
    """User and assistant messages in file order, main chain only (no sidechains)."""
    messages: list[Message] = []
    for record in transcripts.iter_records(transcript):
        kind = record.get("type")
        uuid = record.get("uuid")
        if not isinstance(uuid, str) or record.get("isSidechain"):
            continue
        wrote = tuple(transcripts.written_paths(record))
        if kind not in ("user", "assistant"):
            if wrote:
                messages.append(Message(uuid, "system", "", str(record.get("timestamp", "")),
                                        wrote))
            continue
        message = record.get("message")
        text = _text_of(message.get("content")) if isinstance(message, dict) else ""
        if record.get("isCompactSummary") or record.get("isMeta"):
            text = ""
        messages.append(Message(uuid, kind, text, str(record.get("timestamp", "")), wrote))
    return messages


def cursor_file(session_id: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", session_id)
    return xdg.state_dir() / "cursors" / f"{safe}.json"


def _cursor_data(session_id: str) -> dict:
    try:
        data = json.loads(cursor_file(session_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def read_cursor(session_id: str) -> str | None:
    uuid = _cursor_data(session_id).get("uuid")
    return uuid if isinstance(uuid, str) else None


def read_pending_end(session_id: str) -> str | None:
    """The last message of a range whose topics were not all extracted, if any."""
    until = _cursor_data(session_id).get("until")
    return until if isinstance(until, str) else None


def save_cursor(session_id: str, transcript: Path, uuid: str | None,
                until: str | None = None) -> None:
    """Move the cursor to `uuid`; `until` marks a range still owed a second pass."""
    data = {"transcript": str(transcript), "uuid": uuid}
    if until:
        data["until"] = until
    _write_cursor(session_id, data)


def _write_cursor(session_id: str, data: dict) -> None:
    path = cursor_file(session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".tmp")
    temp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(temp, path)


def remember_cursor_before(record_ids: Iterable[str], session_id: str, moved_to: str) -> None:
    """Keep the session's cursor as it was before an applied extraction moves it to
    `moved_to`, so undoing the extraction puts its messages back to be read again."""
    write_notes(CURSOR, record_ids, {"session": session_id, "moved_to": moved_to,
                                     "before": _cursor_data(session_id) or None})


def restore_cursor_after_undo(record_id: str | None) -> dict | None:
    """If the undone record was an extraction, move its session's cursor back, unless a
    later extraction has moved it on since. What it moved, for a redo: the cursor as the
    undo left it and as the extraction had left it."""
    note = read_note(CURSOR, record_id) if record_id is not None else None
    try:
        session_id, moved_to, before = note["session"], note["moved_to"], note["before"]
    except (TypeError, KeyError):
        return None  # not an extraction, or applied before memtui kept cursor notes
    moved = None
    if read_cursor(session_id) == moved_to:
        extracted = _cursor_data(session_id)
        if isinstance(before, dict):
            _write_cursor(session_id, before)
        else:
            cursor_file(session_id).unlink(missing_ok=True)
        moved = {"session": session_id, "undone_to": _cursor_data(session_id) or None,
                 "redo_to": extracted}
    drop_note(CURSOR, record_id)
    return moved


def redo_cursor(moved: dict, redo_id: str) -> None:
    """Move a session's cursor forward again as the redone extraction had moved it,
    unless it moved since the undo; the redo's own undo moves it back."""
    try:
        session_id, undone_to, redo_to = moved["session"], moved["undone_to"], moved["redo_to"]
    except (TypeError, KeyError):
        return
    if (_cursor_data(session_id) or None) != undone_to or not isinstance(redo_to, dict):
        return
    _write_cursor(session_id, redo_to)
    write_notes(CURSOR, (redo_id,), {"session": session_id, "moved_to": redo_to.get("uuid"),
                                     "before": undone_to})


def mark_pending(session_id: str, transcript: Path, until: str) -> None:
    """Keep the cursor where it is, and remember where the unfinished range ends."""
    save_cursor(session_id, transcript, read_cursor(session_id), until)


def up_to(messages: list[Message], until: str | None) -> list[Message]:
    """The messages up to and including `until` (all of them when it is not there)."""
    for position, message in enumerate(messages):
        if message.uuid == until:
            return messages[: position + 1]
    return messages


def after_cursor(messages: list[Message], cursor: str | None) -> tuple[list[Message], bool]:
    """The messages after the cursor, and False when the cursor was not found (all are new)."""
    if cursor is None:
        return messages, True
    for position, message in enumerate(messages):
        if message.uuid == cursor:
            return messages[position + 1:], True
    return messages, False


def render(messages: list[Message], limit: int = 60_000) -> str:
    """The conversation as plain text for a prompt, newest part kept when too long."""
    parts = [f"[{m.role}] {m.text.strip()}" for m in messages if m.text.strip()]
    text = "\n\n".join(parts)
    return text if len(text) <= limit else "[… earlier messages cut …]\n" + text[-limit:]
