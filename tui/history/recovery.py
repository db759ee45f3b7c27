"""Getting lost content back: every lost update of a store, and the journalled write.

The CLI and the app both go through here, so a restore or a merge is the same change
whichever one the user started: journal snapshot -> safe write (`apply_changes`, hash
checked and undoable) -> journal snapshot.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tui.history.overwrites import (
    JournalHistory,
    LostUpdate,
    lines_back,
    lost_updates_in_events,
)
from tui.history.writes_log import MemoryEvent
from tui.xdg import journal_dir

TYPE_CHECKING = False  # importing typing costs 2 ms of a command's start
if TYPE_CHECKING:
    from tui.history.merge import MergeResult


def all_lost_updates(store: Path, events: Iterable[MemoryEvent]) -> list[LostUpdate]:
    """Lost updates the transcripts show, then those between journal snapshots (if any)
    that the transcripts do not already show (`memtui watch` sees those writes too). A
    version the transcripts name no writer for is memtui's when the journal says so."""
    found = lost_updates_in_events(events)
    if journal_dir(store).exists():  # opening a journal would create one: only read it
        from tui.history.journal import use_journal  # git and its helpers: ~12 ms to import

        def with_journal(journal) -> list[LostUpdate]:
            history = JournalHistory(journal)
            named = [history.name_memtui(update) for update in found]
            return named + [update for update in history.lost_updates()
                            if not any(_same_write(update, seen) for seen in named)]

        found = use_journal(store, with_journal)
    return found


def _same_write(journal: LostUpdate, transcript: LostUpdate) -> bool:
    """The journal's lost update is one the transcripts recorded: the same file written
    to the same text, losing lines that write is known to have lost."""
    return (journal.file == transcript.file and journal.written == transcript.written
            and set(journal.lost_lines) <= set(transcript.lost_lines))


def file_text(store: Path, file: str) -> str | None:
    """A memory file's text now (a byte that is not UTF-8 kept as a lone surrogate, so it
    is written back as it was); None when it is gone or cannot be read."""
    from tui.memory.writes import WriteRefused, read_bytes

    try:
        data = read_bytes(store, file)
    except WriteRefused:
        return None
    return None if data is None else data.decode("utf-8", "surrogateescape")


def still_missing(store: Path, updates: Iterable[LostUpdate]) -> list[LostUpdate]:
    """The lost updates some of whose lines are not in their file now: the ones to act on
    (a merged one stays in the transcripts and the journal for good)."""
    texts: dict[str, str | None] = {}
    missing = []
    for update in updates:
        if update.file not in texts:
            texts[update.file] = file_text(store, update.file)
        if not lines_back(update, texts[update.file]):
            missing.append(update)
    return missing


def merge_back(update: LostUpdate, current: str) -> MergeResult:
    """The file as it is now with the lines `update` dropped merged back in."""
    from tui.history.merge import merge3

    return merge3(update.base or "", current, update.lost_version)


def record_external(store: Path) -> None:
    """Journal whatever changed in the store since the last snapshot (Claude Code's writes,
    found when the app opens or reloads a store). Nothing is committed when nothing changed."""
    _tell(_snapshot(store, "changes found by memtui", "external"))


# On the commit of a change spanning two stores: "<the other store> <its record id>".
PAIR_TRAILER = "Memtui-Pair"


def _snapshot(store: Path, message: str, source: str, pair: str | None = None) -> str | None:
    """Commit the store to its journal; a journal that cannot be written never blocks a
    write (the safe write keeps its own backups): the sentence saying why it failed,
    for the caller to say (None when it did not)."""
    from git import GitError

    from tui.disk_errors import sentence
    from tui.history.journal import JournalError, damaged, use_journal
    from tui.memory.refusals import WriteRefused

    trailers = {PAIR_TRAILER: pair} if pair else None
    try:
        use_journal(store, lambda journal: journal.snapshot(message, source=source,
                                                            trailers=trailers))
    except WriteRefused:
        pass  # another memtui holds the store: its own snapshots catch this change
    except OSError as error:
        return sentence(error, "Writing the journal failed",
                        "the journal missed a version (the undo log has it)")
    except JournalError as error:
        return f"{str(error).rstrip('.')}; the undo log still holds memtui's changes."
    except GitError as error:
        return f"{damaged(store, error).rstrip('.')}; the undo log still holds memtui's changes."
    return None


def apply_journalled(store: Path, changes, label: str, **options):
    """Every memtui change to a store: journal snapshot -> safe write -> journal snapshot.

    The first snapshot catches whatever Claude Code wrote since the last one, so the
    journal tells its writes from ours. Returns the undo record; raises `WriteRefused`
    (one sentence) having written nothing.
    """
    from tui.memory.store_lock import store_lock
    from tui.memory.writes import apply_changes

    with store_lock(store):
        missed = _snapshot(store, f"before {label}", "external")
        record = apply_changes(store, changes, label, **options)
        _tell(missed, _snapshot(store, label, "memtui"))
    return record


def apply_journalled_pair(first, second):
    """A change spanning two stores (`tui.memory.pairs.Half` each), made as one: each
    journalled store snapshotted before and after, its journal commit naming the other
    store. Returns both undo records; WriteRefused having written neither."""
    from tui.memory.pairs import apply_pair
    from tui.memory.store_lock import store_locks

    halves = (first, second)
    with store_locks([first.store, second.store]):
        missed = [_snapshot(half.store, f"before {half.label}", "external")
                  for half in halves if half.journalled]
        records = apply_pair(first, second)
        made = [_snapshot(record.store, record.label, "memtui", _other_half(record))
                for half, record in zip(halves, records, strict=True) if half.journalled]
        _tell(*missed, *made)
    return records


def _other_half(record) -> str | None:
    return f"{record.pair.store} {record.pair.id}" if record.pair is not None else None


def _tell(*failures: str | None) -> None:
    """Say why the journal missed a version, once the change it was for is made. Of a
    refused change nothing is said: the outside write is still on disk for the next
    snapshot, memtui wrote nothing, and the user needs the one sentence of the refusal."""
    from tui import notices

    for sentence in failures:
        if sentence:
            notices.tell(sentence)


def keep_both(file: str, base: bytes, ours: bytes, theirs: bytes) -> bytes | None:
    """`ours` and `theirs`, both edits of `base`, merged line by line; None when they
    touch the same lines or are not UTF-8 text."""
    from tui.history.merge import merge3

    try:
        texts = [data.decode("utf-8") for data in (base, ours, theirs)]
    except UnicodeDecodeError:
        return None
    merged = merge3(*texts)
    return merged.text.encode("utf-8") if merged.clean else None


def undo_journalled(store: Path, journalled: bool = True):
    """Undo memtui's newest change to the store, journalled like any other change; what
    was written to its files since is kept when it touched other lines. A change spanning
    two stores is undone in both. `journalled`: False for the config home, whose journal
    would copy every transcript."""
    from tui.memory.writes import UNDO, undo_last

    return _journalled_step(store, UNDO, lambda: undo_last(store, keep_both), journalled)


def redo_journalled(store: Path, refuse=None, journalled: bool = True):
    """Redo what memtui's newest undo took back, journalled like any other change."""
    from tui.memory.writes import REDO, redo_last

    return _journalled_step(store, REDO, lambda: redo_last(store, refuse, keep_both),
                            journalled)


def _journalled_step(store: Path, step: str, take, journalled: bool):
    """`take()` (an undo or a redo) between a snapshot of what others wrote and one of
    what it wrote, under the store lock; for a change spanning two stores, the other
    store's lock and journal too."""
    from tui.memory.store_lock import store_locks
    from tui.memory.writes import next_pair

    pair = next_pair(store, step)
    journals = [store] if journalled else []
    if pair is not None and pair.journalled:
        journals.append(pair.store)
    with store_locks([store, *([pair.store] if pair else [])]):
        missed = [_snapshot(folder, f"before {step}", "external") for folder in journals]
        record = take()
        if record is not None:
            made = ([_snapshot(store, record.label, "memtui", _other_half(record))]
                    if journalled else [])
            if record.pair is not None and record.pair.store in journals:
                made.append(_snapshot(record.pair.store, record.pair.label, "memtui",
                                      f"{store} {record.id}"))
            _tell(*missed, *made)
    return record


def write_journalled(store: Path, file: str, before: bytes | None, after: bytes, label: str):
    """Write one file through the safe write, with the journal holding before and after."""
    from tui.memory.writes import FileChange

    return apply_journalled(store, [FileChange(file, before, after)], label)


def lost_update_counts(projects) -> dict[Path, int]:
    """Lost updates whose lines are still missing, per existing store of these discovery
    projects; -1 where counting failed.

    One scan cache serves every store, so a second count only reads what transcripts grew.
    """
    import sqlite3

    from git import GitError

    from tui.history.journal import JournalError
    from tui.history.scan_cache import ScanCache
    from tui.history.writes_log import folder_events

    folders: dict[Path, list[Path]] = {}
    for project in projects:
        if project.store is not None and project.store_exists:
            folders.setdefault(project.store, []).extend(project.transcript_dirs)
    counts: dict[Path, int] = {}
    with ScanCache() as cache:
        for store, dirs in folders.items():
            try:
                events = folder_events(store, dirs, cache)
                counts[store] = len(still_missing(store, all_lost_updates(store, events)))
            except (OSError, sqlite3.Error, GitError, JournalError):
                counts[store] = -1  # one unreadable journal or cache never hides the others
    return counts
