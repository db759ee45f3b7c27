"""Changes spanning two stores (a move, a promote that takes the memory out of its store):
made, undone and redone together, all or nothing across crashes.

Each store gets its own change set and undo-log record, as for any change; each record
names the other half (`writes.Pair`: its store, record id and label, and which half was
made first). Both halves are made under both stores' locks: a pair mark is written
first, then each half is made with its intent record left standing, then the mark goes
(the moment the pair is made), then the intents (`intents`: recovery rolls back a half
whose mark still stands). When the second half cannot be made, the first is rolled back
the way recovery would before the refusal is said: no record of either is left.

Undoing either store's half undoes both, the half made second first, but only while the
other store's next undo is still the other half: when memtui changed that store since,
nothing is undone and the sentence says which store moved on. Redo likewise.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from tui import failpoints
from tui.memory import trim
from tui.memory.intents import PairMark, forget_pair, recover_store
from tui.memory.refusals import WriteRefused
from tui.memory.store_lock import store_locks
from tui.memory.swap import Mtime
from tui.memory.writes import (
    UNDO,
    ChangeRecord,
    FileChange,
    HeldChange,
    Merge,
    Pair,
    check_changes,
    log_state,
    make_held,
    new_record_id,
    reverted_changes,
    step_label,
)


@dataclass(frozen=True)
class Half:
    """One store's change set of a pair."""
    store: Path
    changes: tuple[FileChange, ...]
    label: str
    archive: bool | None = None  # default: the label starts with "archive" (`apply_changes`)
    undoes: str | None = None
    journalled: bool = True  # the store keeps a journal (the config home does not)


def apply_pair(first: Half, second: Half) -> tuple[ChangeRecord, ChangeRecord]:
    """Make `first`, then `second`, as one change: both, or WriteRefused (one sentence)
    having changed neither."""
    if Path(first.store).resolve() == Path(second.store).resolve():
        raise WriteRefused("Both halves of the change are in one store; refused.")
    if not (first.changes and second.changes):
        raise WriteRefused("There is nothing to change in one of the two stores.")
    ids = new_record_id(), new_record_id()
    halves = (first, second)
    pairs = [Pair(other.store, other_id, other.label, made_first, other.journalled)
             for other, other_id, made_first in ((second, ids[1], True), (first, ids[0], False))]
    with store_locks([first.store, second.store]):
        for half in halves:
            recover_store(half.store)
        for half in halves:  # refused here, nothing is written in either store
            check_changes(half.store, tuple(half.changes))
        mark = PairMark(ids[0], [(first.store, ids[0]), (second.store, ids[1])])
        made: list[HeldChange] = []
        try:
            for half, record_id, pair in zip(halves, ids, pairs, strict=True):
                made.append(_make(half, record_id, pair))
                failpoints.reached("pair.half_made", str(half.store))
        except WriteRefused as refused:
            if made:
                raise WriteRefused(_taken_back(refused, made[0])) from refused
            raise
        finally:
            if len(made) < 2:  # not made: the mark goes once no half is left to roll back
                forget_pair(mark.path.stem)
        mark.clear()  # the pair is made
        failpoints.reached("pair.made", str(second.store))
        for held in made:
            held.intent.commit()
        for half in halves:
            trim.after_write(half.store)
    return made[0].record, made[1].record


def _make(half: Half, record_id: str, pair: Pair) -> HeldChange:
    archive = half.label.lower().startswith("archive") if half.archive is None else half.archive
    return make_held(half.store, tuple(half.changes), half.label, record_id=record_id, pair=pair,
                     archive=archive, undoes=half.undoes)


def _taken_back(refused: WriteRefused, first: HeldChange) -> str:
    """The refusal of the second half, and what became of the first."""
    reason = str(refused).rstrip(".")
    store = first.record.store
    try:
        first.take_back()
    except OSError:
        return (f"{reason}; what it had changed in {store} could not be put back yet (the "
                "next memtui command puts it back).")
    return f"{reason}; what it had changed in {store} was taken back, so nothing was changed."


def step_pair(store: Path, step: str, record: ChangeRecord, mtimes: dict[str, Mtime | None],
              merge: Merge | None) -> ChangeRecord | None:
    """Undo (or redo) `record`, this store's half of a pair, with its other half, under
    `store`'s lock (held by the caller); this store's new record. None when the other
    half is already taken back on its own (an older memtui undid one store): this half
    then goes alone, as any change."""
    pair = record.pair
    assert pair is not None
    verb = "undone" if step == UNDO else "redone"
    if not Path(pair.store).is_dir():
        raise WriteRefused(f"{record.label} also changed {pair.store}, which is gone, so it "
                           f"cannot be {verb} there; nothing was {verb}.")
    with store_locks([store, pair.store]):
        recover_store(pair.store)
        other_log = log_state(pair.store)
        found = other_log.next_step(step)
        if found is None or found[0].id != pair.id:
            if pair.id in other_log.undone:
                return None
            raise WriteRefused(_moved_on(record, step, other_log.holds(pair.id), found))
        other, other_mtimes = found
        own_half = Half(store, reverted_changes(store, record, mtimes, merge),
                        step_label(step, record), archive=False, undoes=record.id,
                        journalled=other.pair.journalled if other.pair else True)
        other_half = Half(pair.store, reverted_changes(pair.store, other, other_mtimes, merge),
                          step_label(step, other), archive=False, undoes=other.id,
                          journalled=pair.journalled)
        # Taken back in the reverse order of the step before: a kill between the two
        # (rolled back by recovery) or a reader in between never sees the memory in neither.
        if record.pair.first:
            made_other, made_own = apply_pair(other_half, own_half)
        else:
            made_own, made_other = apply_pair(own_half, other_half)
    return made_own


def _moved_on(record: ChangeRecord, step: str, held: bool,
              found: tuple[ChangeRecord, dict] | None) -> str:
    """Why the pair cannot be undone (redone) now, in one sentence saying what to do."""
    other = record.pair.store
    verb = "undone" if step == UNDO else "redone"
    if not held:
        return (f"{record.label} also changed {other}, whose undo log no longer holds that "
                f"change, so it cannot be {verb} in both stores; nothing was {verb}.")
    if step == UNDO and found is not None:
        return (f"{record.label} also changed {other}, where memtui has made a newer change "
                f"since ({found[0].label}); nothing was undone: undo that first "
                f"(`memtui undo {shlex.quote(str(other))}`), then this undoes both stores.")
    return (f"{record.label.removeprefix('undo ')} cannot be redone: memtui has changed "
            f"{other} since it was undone there; nothing was redone.")
