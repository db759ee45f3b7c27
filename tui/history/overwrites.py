"""Lost updates: writes that replaced content their session had never seen.

From transcripts: a Write or Edit by agent S whose `originalFile` (what was on disk just
before) is not the last version S itself read or wrote means someone changed the file
under S. An agent is a session's main agent or one of its subagents: they share the
session's id but not what they have seen. The lines of that unseen version which S's
result dropped, and which S had not seen either, are the lost lines; no lost lines (an
Edit that did not touch the other change) means nothing was lost. The earlier writer is
the latest other agent whose write produced exactly `originalFile`, else the latest other
agent that saved the file without recording content (extraction, dream), else an
untracked writer.

From the journal: between three snapshots a -> b -> c of one file, c dropped lines that b
had added while adding lines of its own, and c was not written by b's session: c was
most likely written from a copy older than b. The journal also knows memtui's own writes
(a merge, a restore): a version memtui wrote is named as memtui's, with what it did.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import NamedTuple

from tui.claude.lines import split_lines
from tui.history.writes_log import MemoryEvent


class LostUpdate(NamedTuple):
    file: str
    session: str | None
    cwd: str | None
    time: str  # of the write that lost content, ISO-8601
    previous_session: str | None  # None: an untracked writer
    previous_cwd: str | None
    previous_time: str | None
    lost_lines: tuple[str, ...]
    base: str | None  # what the losing writer had last seen
    lost_version: str  # the version it overwrote
    written: str | None  # what it wrote
    found_in: str  # "transcripts" or "journal"
    branch: str | None = None
    agent: str | None = None  # the subagent of `session` that wrote; None: its main agent
    previous_agent: str | None = None
    previous_memtui: str | None = None  # what memtui did, when the version lost was its own

    def to_json(self) -> dict:
        return {
            "file": self.file,
            "session": self.session,
            "cwd": self.cwd,
            "branch": self.branch,
            "time": self.time,
            "previous_session": self.previous_session,
            "previous_cwd": self.previous_cwd,
            "previous_time": self.previous_time,
            "lost_lines": list(self.lost_lines),
            "found_in": self.found_in,
            "agent": self.agent,
            "previous_agent": self.previous_agent,
            "previous_memtui": self.previous_memtui,
        }


def lines_back(update: LostUpdate, current: str | None) -> bool:
    """Every line `update` lost is in the file (`current`: its text now) again."""
    present = set(split_lines(current or ""))
    return all(line in present for line in update.lost_lines)


def missing_lines(source: str, *without: str | None) -> tuple[str, ...]:
    """Non-blank lines of `source`, in order, found in none of `without`."""
    present: set[str] = set()
    for text in without:
        present.update(split_lines(text or ""))
    return tuple(line for line in split_lines(source) if line.strip() and line not in present)


def _previous_writer(history: Sequence[MemoryEvent], event: MemoryEvent,
                     seen_at: float) -> MemoryEvent | None:
    others = [e for e in history if (e.session, e.agent) != (event.session, event.agent)]
    for candidate in reversed(others):
        if candidate.content is not None and candidate.content == event.original:
            return candidate
    for candidate in reversed(others):
        if candidate.kind == "saved" and candidate.when >= seen_at:
            return candidate
    return None


def lost_updates_in_events(events: Iterable[MemoryEvent]) -> list[LostUpdate]:
    """Every lost update the transcripts show, oldest first."""
    # (session, agent, file) -> (content, time): what each agent last read or wrote
    seen: dict[tuple[str, str, str], tuple[str, float]] = {}
    changes: dict[str, list[MemoryEvent]] = {}
    found: list[LostUpdate] = []
    for event in events:
        key = (event.session, event.agent, event.file)
        if event.kind == "read":
            if event.content is not None:
                seen[key] = (event.content, event.when)
            continue
        mine = seen.get(key)
        if (
            event.kind in {"write", "edit"}
            and mine is not None
            and event.original is not None
            and event.content is not None
            and event.original != mine[0]
        ):
            lost = missing_lines(event.original, event.content, mine[0])
            if lost:
                previous = _previous_writer(changes.get(event.file, []), event, mine[1])
                found.append(LostUpdate(
                    file=event.file, session=event.session or None, cwd=event.cwd or None,
                    time=event.time,
                    previous_session=previous.session if previous else None,
                    previous_cwd=previous.cwd if previous else None,
                    previous_time=previous.time if previous else None,
                    lost_lines=lost, base=mine[0], lost_version=event.original,
                    written=event.content, found_in="transcripts", branch=event.branch or None,
                    agent=event.agent or None,
                    previous_agent=previous.agent or None if previous else None,
                ))
        if event.content is not None:
            seen[key] = (event.content, event.when)
        changes.setdefault(event.file, []).append(event)
    return found


class JournalHistory:
    """Each file's versions on the journal's main branch, with who wrote them."""

    def __init__(self, journal):
        from tui.history.journal import MAIN, parse_trailers

        self.journal = journal
        self.histories: dict[str, list[tuple[str, float, dict[str, str]]]] = {}
        for rev, stamp, message, changed in journal.changes(MAIN):
            subject, trailers = parse_trailers(message)
            for file, blob in changed.items():
                history = self.histories.setdefault(file, [])
                if blob is not None and (not history or history[-1][0] != blob):
                    history.append((blob, stamp, {**trailers, "rev": rev, "subject": subject}))
        self.texts: dict[str, str] = {}

    def text(self, blob: str) -> str:
        if blob not in self.texts:
            self.texts[blob] = self.journal.blob(blob).decode("utf-8", "surrogateescape")
        return self.texts[blob]

    def memtui_wrote(self, file: str, text: str) -> tuple[str, float] | None:
        """(what memtui did, when) for the newest version of `file` memtui wrote as `text`."""
        for blob, stamp, info in reversed(self.histories.get(file, [])):
            if _by_memtui(info) and self.text(blob) == text:
                return info["subject"], stamp
        return None

    def lost_updates(self) -> list[LostUpdate]:
        """Lost updates between consecutive snapshots."""
        found: list[LostUpdate] = []
        for file, history in self.histories.items():
            for (a, _, _), (b, b_time, b_info), (c, c_time, c_info) in zip(
                history, history[1:], history[2:], strict=False
            ):
                if b_info.get("Session") and _writer_of(b_info) == _writer_of(c_info):
                    continue
                if _by_memtui(c_info):
                    # memtui's own write (an undo, a restore, an applied dream): it replaced
                    # only what it had read (the swap checks that) and its undo log holds
                    # what it dropped, so it never lost anything unseen.
                    continue
                older, middle, newer = self.text(a), self.text(b), self.text(c)
                lost = missing_lines(middle, older, newer)
                if lost and missing_lines(newer, middle):
                    found.append(LostUpdate(
                        file=file, session=c_info.get("Session"), cwd=c_info.get("Cwd"),
                        time=_iso(c_time), previous_session=b_info.get("Session"),
                        previous_cwd=b_info.get("Cwd"), previous_time=_iso(b_time),
                        lost_lines=lost, base=older, lost_version=middle, written=newer,
                        found_in="journal", agent=c_info.get("Agent"),
                        previous_agent=b_info.get("Agent"),
                        previous_memtui=b_info["subject"] if _by_memtui(b_info) else None,
                    ))
        found.sort(key=lambda lost: lost.time)
        return found

    def name_memtui(self, update: LostUpdate) -> LostUpdate:
        """`update` with memtui as the writer it overwrote, when the transcripts name no
        writer and the journal shows memtui wrote exactly the version lost."""
        if update.previous_session or update.previous_memtui:
            return update
        wrote = self.memtui_wrote(update.file, update.lost_version)
        if wrote is None:
            return update
        label, stamp = wrote
        return update._replace(previous_memtui=label, previous_time=_iso(stamp))


def lost_updates_in_journal(journal) -> list[LostUpdate]:
    """Lost updates between consecutive snapshots on the journal's main branch."""
    return JournalHistory(journal).lost_updates()


def _by_memtui(info: dict[str, str]) -> bool:
    from tui.history.journal import SOURCE

    return info.get(SOURCE) == "memtui"


def _writer_of(trailers: dict[str, str]) -> tuple[str | None, str | None]:
    """(session, agent) a snapshot's trailers name: a subagent is a writer of its own."""
    return trailers.get("Session"), trailers.get("Agent")


def _iso(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
