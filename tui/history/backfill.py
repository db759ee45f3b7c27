"""Rebuilding each memory file's history from the transcripts, into the journal.

Versions come from Write results (the full content), Edit/MultiEdit results (the edit
applied to `originalFile`), full Reads, and every `originalFile` that no recorded write
produced (someone else wrote it: an extraction, a dream, a person): that version is kept
too, attributed to the latest session that saved the file without recording content.
Commits go to the journal's `backfill` branch in time order with the original times, one
per version, each naming its event; a second run with the same transcripts plans the same
commits and writes nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from tui.history.journal import (
    BACKFILL,
    SOURCE,
    Commit,
    Journal,
    message_with_trailers,
    parse_trailers,
)
from tui.history.writers import Writer, in_words
from tui.history.writes_log import MemoryEvent

EVENT = "Event"


@dataclass(frozen=True)
class BackfillResult:
    planned: int
    written: int
    rebuilt: bool


def _event_id(event: MemoryEvent, role: str) -> str:
    key = f"{event.transcript}\0{event.offset}\0{event.file}\0{role}"
    return hashlib.sha1(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _commit(event: MemoryEvent, text: str, subject: str, role: str,
            by: MemoryEvent | None) -> Commit:
    trailers = {
        SOURCE: "backfill",
        "Session": by.session if by else None,
        "Agent": by.agent if by else None,
        "Cwd": by.cwd if by else None,
        "Branch": by.branch if by else None,
        EVENT: _event_id(event, role),
    }
    data = text.encode("utf-8", "surrogateescape")
    return Commit(message_with_trailers(subject, trailers), event.when, {event.file: data}, partial=True)


def _agent_words(event: MemoryEvent) -> str:
    """"session 92b10f9f", or "a subagent (a881341) of session 92b10f9f"."""
    return in_words(Writer(event.session, event.agent or None, None))


def plan(events: Iterable[MemoryEvent]) -> list[Commit]:
    """The commits that tell every file's recorded history, oldest first."""
    known: dict[str, str] = {}
    unrecorded_saves: dict[str, MemoryEvent] = {}
    commits: list[Commit] = []
    for event in events:
        file = event.file
        if event.kind == "saved":
            unrecorded_saves[file] = event
            continue
        if event.kind in {"write", "edit"} and event.original is not None and known.get(file) != event.original:
            saver = unrecorded_saves.get(file)
            who = _agent_words(saver) if saver else "an unrecorded writer"
            commits.append(_commit(
                event, event.original, f"{file}: version written by {who}", "original", saver
            ))
            known[file] = event.original
        if event.content is None or known.get(file) == event.content:
            continue
        if event.kind == "read":
            subject = f"{file}: version seen by a Read in {_agent_words(event)}"
            by = unrecorded_saves.get(file)
        else:
            subject = f"{file}: {event.kind.title()} in {_agent_words(event)}"
            by = event
        commits.append(_commit(event, event.content, subject, "content", by))
        known[file] = event.content
        unrecorded_saves.pop(file, None)
    return commits


def backfill(journal: Journal, events: Iterable[MemoryEvent]) -> BackfillResult:
    """Bring the journal's `backfill` branch in line with the transcripts."""
    planned = plan(events)
    existing = [
        parse_trailers(message)[1].get(EVENT) for _, _, message in reversed(journal.log(BACKFILL))
    ]
    wanted = [parse_trailers(commit.message)[1].get(EVENT) for commit in planned]
    if existing == wanted[: len(existing)]:
        missing = planned[len(existing):]
        if missing:
            journal.write(BACKFILL, missing, parent=journal.head(BACKFILL))
        return BackfillResult(len(planned), len(missing), rebuilt=False)
    journal.write(BACKFILL, planned, parent=None, force=True)
    return BackfillResult(len(planned), len(planned), rebuilt=True)
