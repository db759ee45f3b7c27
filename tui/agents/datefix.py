"""The dream's relative dates: a date in a memory's own prose written as the day it means,
only where the day it was written can be defended; everything else is left as written,
and the run says why.

Which phrases are dates of the memory's own prose is tui/memory/date_prose.py's judgement
(the audit's `relative_date` finding shares it). The day a phrase was written comes from
every witness there is, and all of them must agree: a date in the file's name or a heading
above it (the text), the journal's snapshots, and the transcript of the Write or Edit that
added it (tui/history/first_written.py). The file's mtime and its frontmatter `modified`
are no witness: they say when the file was last touched, not when the sentence was written.

Text the dream wrote itself is never rewritten, so a second dream changes nothing: the
hubs and the index notes file, the "From the index:" paragraphs and "(merged from …)"
blocks it appends (their sentences were written elsewhere, on another day).
"""

from __future__ import annotations

from collections.abc import Callable

from tui.agents.absdates import absolute, rewritten
from tui.agents.indexfit import NOTES_NAME
from tui.agents.staging import Staging
from tui.claude.paths import INDEX_NAME
from tui.history.first_written import FirstWritten, StoreRecords
from tui.memory.date_prose import DateReference, date_references
from tui.memory.hubs import HUB_FILES
from tui.memory.written_on import Written

Log = Callable[[str, str], None]
_DREAM_FILES = frozenset({*HUB_FILES, f"{NOTES_NAME}.md"})
_AROUND = 24  # characters each side of a phrase that find it in the store's history


def fix_dates(staging: Staging, log: Log) -> int:
    """Relative dates made absolute in the memories and daily logs where the day they were
    written is known; how many were replaced."""
    records: list[StoreRecords] = []  # read when a phrase first needs them

    def history() -> StoreRecords:
        if not records:
            records.append(StoreRecords.of(staging.store))
        return records[0]

    replaced = 0
    for relative in staging.markdown():
        if relative.rpartition("/")[2] == INDEX_NAME or relative in _DREAM_FILES:
            continue
        path = staging.root / relative
        text = staging.text(relative)
        lines = text.split("\n")
        changes = []
        for reference in date_references(text, relative):
            if reference.copied:
                continue
            found = reference.found
            line = lines[found.line - 1]
            piece = line[max(0, found.column - _AROUND):found.column + len(found.phrase) + _AROUND]
            written, doubt = _day_written(reference, history().first_written(relative, piece))
            new = absolute(found, written.day) if written else None
            if new is None:
                log("info", f"{relative} line {found.line}: left {found.phrase!r} as written: "
                            f"{doubt or 'it names no single day'}")
                continue
            changes.append((found, new, written))
        if changes:
            path.write_text(rewritten(text, [(found, new) for found, new, _ in changes]),
                            encoding="utf-8")
            replaced += len(changes)
            log("info", f"{relative}: " + ", ".join(
                f"{found.phrase!r} → {new!r} (written {written.day}: {written.source})"
                for found, new, written in changes))
    return replaced


def _day_written(reference: DateReference,
                 history: FirstWritten) -> tuple[Written | None, str | None]:
    """The day every witness gives, or why none can be trusted (with what each witness
    would have it say)."""
    if history.unsure:
        return None, history.unsure
    witnesses = ([reference.written] if reference.written else []) + history.days
    days = sorted({witness.day for witness in witnesses})
    if not days:
        return None, ("nothing says which day it was written (no date in the file's name or "
                      "a heading above it, no journal or transcript of its writing)")
    if len(days) > 1:
        return None, "its witnesses disagree: " + "; ".join(
            f"{witness.source} says {witness.day} (it would read "
            f"{absolute(reference.found, witness.day)!r})" for witness in witnesses)
    sources = list(dict.fromkeys(witness.source for witness in witnesses))
    return Written(days[0], " and ".join(sources)), None
