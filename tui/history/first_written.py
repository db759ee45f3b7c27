"""The day a piece of a memory was first written, from what the store's history recorded.

Three records can tell, each only when it saw the writing itself:
- a Write or Edit in a transcript whose result holds the text and whose file before did
  not: written at that tool call's time;
- the same call kept on the journal's `backfill` branch (transcripts are swept after 30
  days, the journal keeps them);
- the journal's own snapshots (`main`): the first that holds the text, when the snapshot
  before it, without the text, was taken the same day. Text first seen in a snapshot
  memtui itself wrote (a dream, a merge) was not written then: it was moved.

A piece is looked up by the words around a phrase, not by its whole line, so an edit
elsewhere in the line does not make an old phrase look new. Times are read in this
machine's time zone. Text written between midnight and five says "today" or "tomorrow"
for a day its writer may not have meant: it is unsure, whatever the records say.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from tui.history.journal import BACKFILL, MAIN, SOURCE, Journal, JournalError, parse_trailers
from tui.memory.written_on import Written

_SMALL_HOURS = 5  # o'clock: before it, "tomorrow" may mean the day that has begun


class FirstWritten(NamedTuple):
    """What the records say: the days they give, or why they cannot be trusted here."""

    days: list[Written]
    unsure: str | None = None


class _Version(NamedTuple):
    time: float
    text: Callable[[], str | None]  # the file's text then (None: absent)
    written_here: bool  # this version is a write of the text, not a copy or a sighting
    source: str


class StoreRecords:
    """The transcripts' writes and the journal of one store, read once."""

    def __init__(self, events: list, journal: Journal | None):
        self._writes: dict[str, list] = {}
        for event in events:
            if event.kind in ("write", "edit") and event.content is not None and event.when:
                self._writes.setdefault(event.file, []).append(event)
        self._journal = journal
        self._branches: dict[str, list] | None = None
        self._texts: dict[str, str | None] = {}  # blob id -> its text

    @classmethod
    def of(cls, store: Path, home: Path | None = None,
           env: Mapping[str, str] | None = None) -> StoreRecords:
        """What exists for `store`; a journal is only read, never started."""
        from tui.history.writes_log import store_events
        from tui.xdg import journal_dir

        try:
            events = store_events(store, home, env)
        except OSError:
            events = []
        journal = None
        if journal_dir(store).exists():
            try:
                journal = Journal(store)
            except (JournalError, OSError):
                journal = None
        return cls(events, journal)

    def first_written(self, file: str, piece: str) -> FirstWritten:
        days: list[Written] = []
        for versions in self._histories(file):
            found = _first_holding(versions, piece)
            if found is None:
                continue
            if isinstance(found, str):
                return FirstWritten([], found)
            days.append(found)
        return FirstWritten(days)

    def _histories(self, file: str) -> list[list[_Version]]:
        histories = [self._transcript_history(file)]
        if self._journal is not None:
            histories.extend(self._journal_histories(file))
        return histories

    def _transcript_history(self, file: str) -> list[_Version]:
        """Each write, preceded by the file as it was before it: what it added is then new."""
        versions = []
        for event in sorted(self._writes.get(file, ()), key=lambda e: e.when):
            versions.append(_Version(event.when, lambda e=event: e.original, False, ""))
            versions.append(_Version(event.when, lambda e=event: e.content, True,
                                     f"the transcript of session {event.session[:8]}"))
        return versions

    def _journal_histories(self, file: str) -> list[list[_Version]]:
        if self._branches is None:
            try:
                self._branches = {ref: self._journal.changes(ref) for ref in (MAIN, BACKFILL)}
            except (JournalError, OSError, ValueError):
                self._branches = {}
        histories = []
        for ref, commits in self._branches.items():
            versions: list[_Version] = []
            blob: str | None = None
            for _rev, stamp, message, changed in commits:
                subject, trailers = parse_trailers(message)
                if file in changed:
                    blob = changed[file]
                elif ref == BACKFILL:
                    continue  # a backfill commit holds one file: it says nothing of others
                if ref == MAIN:
                    written_here = trailers.get(SOURCE) != "memtui"
                    source = "the journal"
                else:
                    written_here = subject.startswith((f"{file}: Write in", f"{file}: Edit in"))
                    source = "the journal's copy of a transcript"
                versions.append(_Version(stamp, lambda b=blob: self._text(b), written_here,
                                         source))
            histories.append(_same_day_only(versions) if ref == MAIN else versions)
        return histories

    def _text(self, blob: str | None) -> str | None:
        if blob is None:
            return None
        if blob not in self._texts:
            try:
                self._texts[blob] = self._journal.blob(blob).decode("utf-8", "replace")
            except (JournalError, OSError):
                self._texts[blob] = None
        return self._texts[blob]


def _same_day_only(versions: list[_Version]) -> list[_Version]:
    """A snapshot tells the day of what it first holds only when the snapshot before it was
    taken that same day: between the two, the text was written."""
    kept = []
    for before, after in zip([None, *versions], versions, strict=False):
        same_day = before is not None and _day(before.time) == _day(after.time)
        kept.append(after._replace(written_here=after.written_here and same_day))
    return kept


def _first_holding(versions: list[_Version], piece: str) -> Written | str | None:
    """The day of the first version holding `piece` when a write of it; a reason when
    that day is unsure; None when the records did not see it written."""
    held_before = False
    for version in versions:
        text = version.text()
        holds = text is not None and piece in text
        if holds and not held_before:
            if not version.written_here:
                return None
            moment = dt.datetime.fromtimestamp(version.time)
            if moment.hour < _SMALL_HOURS:
                return f"{version.source} shows it written at {moment:%Y-%m-%d %H:%M}"
            return Written(moment.date(), version.source)
        held_before = holds
    return None


def _day(stamp: float) -> dt.date:
    return dt.datetime.fromtimestamp(stamp).date()
