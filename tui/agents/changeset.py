"""The result of a run: what it would change, shown as diffs, applied on confirmation.

Before it is shown, the change set passes the guards (`tui.agents.guards`): a file that
would hide a memory Claude sees, or lose a line of text, is held, and what needs it goes
with it. Applying is all or nothing: every target is checked against the live file, and
one that changed since it was staged refuses the whole change, as a held file does when
no choice was made (the command line's --yes).
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from tui.agents.guards import Declared, joined, lost_lines
from tui.agents.undo_notes import LOCK, REDO, drop_note, read_note, write_notes
from tui.claude.lines import lines_with_endings
from tui.claude.lock import (
    LockBusy,
    LockLease,
    LockState,
    read_lock,
    restore_lock,
    state_from_json,
    state_json,
)
from tui.claude.memory_files import TEAM_FOLDER, TEAM_INDEX
from tui.claude.paths import INDEX_NAME
from tui.memory.index import LoadedIndex, parse_index
from tui.memory.links import wiki_names
from tui.memory.reach import TextLinks, loaded_roots, reach
from tui.words import listed, plural

if TYPE_CHECKING:
    from tui.memory.writes import ChangeRecord

CREATED, MODIFIED, ARCHIVED = "created", "modified", "archived"


@dataclass(frozen=True)
class FileDiff:
    file: str
    kind: str  # created, modified, archived
    before: bytes | None
    after: bytes | None
    diff: str
    mtime: float | None = None  # the mtime it keeps: its meaning did not change

    def to_json(self) -> dict:
        return {"file": self.file, "kind": self.kind, "diff": self.diff,
                "keeps_mtime": self.mtime is not None}


@dataclass(frozen=True)
class ChangeSet:
    store: Path
    label: str
    files: tuple[FileDiff, ...]
    index_before: LoadedIndex
    index_after: LoadedIndex
    notes: tuple[str, ...] = ()  # what the run could not do (entries that do not fit, …)
    # Every .md file of the store as the run found it: what Claude reaches, before and after.
    originals: Mapping[str, bytes] = field(default_factory=dict, repr=False, compare=False)
    # The files applied together, each group once: its first file in the change set's
    # order, then the others by name.
    groups: tuple[tuple[str, ...], ...] = ()
    lost: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # lines a file loses
    # lines the engine rewrote on purpose -> the lines that stand for them
    rewrites: Mapping[str, frozenset[str]] = field(default_factory=dict, repr=False,
                                                   compare=False)

    @property
    def empty(self) -> bool:
        return not self.files

    @cached_property
    def hides(self) -> tuple[str, ...]:
        """Memories Claude sees now that applying the whole change set would leave it no
        way to reach, while their files stay: they would become invisible."""
        return self.hidden_by(f.file for f in self.files)

    def hidden_by(self, chosen: Iterable[str]) -> tuple[str, ...]:
        """The memories Claude sees now (inside MEMORY.md's loaded cut) that it could no
        longer reach once the `chosen` files are applied: neither inside the new cut nor
        linked by a chain of memories from it (a hub the run wrote, say; see `reach`)."""
        chosen = set(chosen)
        changed = {f.file: f for f in self.files if f.file in chosen}
        if not changed:
            return ()
        removed = {file for file, diff in changed.items() if diff.after is None}
        index = self.index_after if INDEX_NAME in changed else self.index_before
        before = {link.file for link in self.index_before.links if link.visible and link.file
                  and os.path.lexists(self.store / link.file)  # a dangling line hides nothing
                  and not os.path.isdir(self.store / link.file)}  # nor one linking a folder
        missing = before - removed - {link.file for link in index.links if link.visible}
        if not missing:
            return ()
        texts = dict(self._original_texts)
        for file, diff in changed.items():
            if diff.after is None:
                texts.pop(file, None)
            else:
                texts[file] = diff.after.decode("utf-8", errors="replace")
        return tuple(sorted(missing - _reached(texts).keys()))

    @cached_property
    def _original_texts(self) -> dict[str, str]:
        """`originals` decoded once: the review asks `hidden_by` again at every toggle."""
        return {file: data.decode("utf-8", errors="replace")
                for file, data in self.originals.items()}

    @cached_property
    def held(self) -> dict[str, str]:
        """{file: why the guards hold it}: not applied unless the user accepts it."""
        held = {file: f"{file} would {_losing(lines)}" for file, lines in self.lost.items()}
        if self.hides:
            lost = self.lost.get(INDEX_NAME)
            held[INDEX_NAME] = (f"the run's {INDEX_NAME} would hide {', '.join(self.hides)} "
                                "from Claude" + (f" and {_losing(lost)}" if lost else ""))
        return held

    def default_choice(self) -> set[str]:
        """The files to apply unless the user says otherwise: all but those held, and
        what needs them."""
        held = set(self.held)
        for file in self.held:
            held.update(self._group_of.get(file, ()))
        return {f.file for f in self.files} - held

    def rejecting(self, file: str) -> set[str]:
        """`file` and the files that cannot go without it."""
        return set(self._group_of.get(file, (file,))) & {f.file for f in self.files}

    def accepting(self, file: str) -> set[str]:
        """`file` and the files it cannot go without (each of a group needs the others)."""
        return self.rejecting(file)

    @cached_property
    def _group_of(self) -> dict[str, tuple[str, ...]]:
        return {file: group for group in self.groups for file in group}

    @property
    def refusal(self) -> str | None:
        """One sentence saying why the whole change set is refused when no choice is
        made, or None: a file held refuses it all, since its files depend on each other."""
        if not self.held:
            return None
        (file, reason), *more = self.held.items()
        others = (f" ({plural(len(more), 'more file')} held too: "
                  f"{listed([file for file, _ in more], 3)})") if more else ""
        return (f"The change set was refused whole, nothing was written: {reason}{others}. "
                "Review it in the app to apply part of it.")

    def counts(self) -> dict[str, int]:
        return {kind: sum(1 for f in self.files if f.kind == kind)
                for kind in (CREATED, MODIFIED, ARCHIVED)}

    def to_json(self) -> dict:
        return {
            "store": str(self.store),
            "label": self.label,
            "counts": self.counts(),
            "files": [f.to_json() for f in self.files],
            "index_before": _index_json(self.index_before),
            "index_after": _index_json(self.index_after),
            "notes": list(self.notes),
            "hides": list(self.hides),
            "held": self.held,
            "lost_lines": {file: list(lines) for file, lines in self.lost.items()},
            "applied_together": [list(group) for group in self.groups],
            "refusal": self.refusal,
        }


@dataclass(frozen=True)
class ApplyResult:
    applied: tuple[str, ...]
    refused: tuple[tuple[str, str], ...]  # (file, one-sentence reason)
    record_ids: tuple[str, ...]


def _losing(lines: tuple[str, ...]) -> str:
    return (f"lose {plural(len(lines), 'line')} of text: “{lines[0]}”"
            + (" and more" if len(lines) > 1 else ""))


def _index_json(index: LoadedIndex) -> dict:
    return {"exists": index.exists, "lines": index.lines, "chars": index.chars,
            "loaded_lines": index.loaded_lines, "cut": index.cut}


def _text(data: bytes | None) -> list[str]:
    if data is None:
        return []
    return lines_with_endings(data.decode("utf-8", errors="replace"))


def unified(file: str, before: bytes | None, after: bytes | None) -> str:
    old = f"a/{file}" if before is not None else "/dev/null"
    new = f"b/{file}" if after is not None else "/dev/null"
    skipped, before, after = _differing_lines(before, after)
    diff = difflib.unified_diff(_text(before), _text(after), old, new)
    return "".join(
        _moved(line, skipped) if line.startswith("@@ ") else
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        for line in diff
    )


# Lines kept around the change: difflib shows three of context, and may align a change
# a few lines away from where the bytes first differ (which of two equal lines went).
CONTEXT = 20


def _differing_lines(before: bytes | None, after: bytes | None
                     ) -> tuple[int, bytes | None, bytes | None]:
    """(lines skipped, before, after) with the lines both begin and end with left out but
    for the context around the change: a line added to a 200 MB index is diffed as a few
    lines, not as two 200 MB texts."""
    if before is None or after is None or len(before) + len(after) < 1 << 20:
        return 0, before, after
    with memoryview(before) as one, memoryview(after) as other:
        start = _common_prefix(one, other)
        end = _common_suffix(one[start:], other[start:])
    start = before.rfind(b"\n", 0, start) + 1
    for _ in range(CONTEXT):  # back to the start of the context lines before the change
        start = before.rfind(b"\n", 0, max(start - 1, 0)) + 1
    stop_before, stop_after = len(before) - end, len(after) - end
    for _ in range(CONTEXT + 1):  # on past the end of the context lines after it
        stop_before = _next_line(before, stop_before)
        stop_after = _next_line(after, stop_after)
    return before.count(b"\n", 0, start), before[start:stop_before], after[start:stop_after]


def _next_line(data: bytes, position: int) -> int:
    found = data.find(b"\n", position)
    return len(data) if found < 0 else found + 1


def _common_prefix(one: memoryview, other: memoryview, step: int = 1 << 16) -> int:
    """How many leading bytes the two have in common, compared a block at a time."""
    length = min(len(one), len(other))
    start = 0
    while start + step <= length and one[start:start + step] == other[start:start + step]:
        start += step
    end = min(start + step, length)
    return next((index for index in range(start, end) if one[index] != other[index]), end)


def _common_suffix(one: memoryview, other: memoryview, step: int = 1 << 16) -> int:
    """How many trailing bytes the two have in common."""
    length = min(len(one), len(other))
    done = 0
    while done + step <= length and (one[len(one) - done - step:len(one) - done]
                                     == other[len(other) - done - step:len(other) - done]):
        done += step
    for offset in range(done, min(done + step, length)):
        if one[len(one) - offset - 1] != other[len(other) - offset - 1]:
            return offset
    return min(done + step, length)


def _moved(header: str, skipped: int) -> str:
    """A hunk header with the lines left out before it counted back in."""
    if not skipped:
        return header
    return re.sub(r"([-+])(\d+)", lambda m: f"{m[1]}{int(m[2]) + skipped}", header, count=2)


def build_changeset(originals: dict[str, bytes], staged: dict[str, bytes],
                    deleted: Iterable[str], store: Path, label: str,
                    notes: Iterable[str] = (), declared: Declared | None = None) -> ChangeSet:
    """Compare the store as staged (`originals`) with the staging copy after the run,
    and pass it through the guards with what the engine `declared` of it."""
    declared = declared or Declared()
    files: list[FileDiff] = []
    gone = set(deleted)
    for name in sorted(set(originals) | set(staged)):
        before, after = originals.get(name), staged.get(name)
        mtime = declared.mtimes.get(name)
        if name in gone and before is not None and after is None:
            files.append(FileDiff(name, ARCHIVED, before, None, unified(name, before, None)))
        elif before is None and after is not None:
            files.append(FileDiff(name, CREATED, None, after, unified(name, None, after),
                                  mtime))
        elif before is not None and after is not None and before != after:
            files.append(FileDiff(name, MODIFIED, before, after, unified(name, before, after),
                                  mtime))
    # The index first, then by kind: the order a reviewer reads best.
    files.sort(key=lambda f: (f.file != INDEX_NAME, (CREATED, MODIFIED, ARCHIVED).index(f.kind),
                              f.file))
    lost = lost_lines({name: _decoded(data) for name, data in originals.items()},
                      {f.file: _decoded(f.after) for f in files}, declared.rewrites)
    return ChangeSet(
        store, label, tuple(files),
        parse_index(_decoded(originals.get(INDEX_NAME))),
        parse_index(_decoded(staged.get(INDEX_NAME, originals.get(INDEX_NAME)))),
        tuple(notes), originals,
        _ordered_groups(joined(declared.groups, (f.file for f in files)), files),
        {file: tuple(lines) for file, lines in lost.items()},
        {old: frozenset(new) for old, new in declared.rewrites.items()},
    )


def _ordered_groups(groups: Iterable[frozenset[str]], files: Iterable[FileDiff]
                    ) -> tuple[tuple[str, ...], ...]:
    """Each group led by its first file in the change set's order (the order the review
    reads), the others after it by name; the groups in the order of their leaders."""
    order = {diff.file: number for number, diff in enumerate(files)}
    led = []
    for group in groups:
        leader = min(group, key=order.__getitem__)
        led.append((leader, *sorted(group - {leader})))
    return tuple(sorted(led, key=lambda group: order[group[0]]))


def _reached(texts: Mapping[str, str]) -> dict[str, str | None]:
    """What Claude reaches in a store of these texts, from the cuts of its indexes."""
    from tui.memory import frontmatter

    names = None
    if any("[[" in text for text in texts.values()):
        names = wiki_names((file, frontmatter.parse(text).name) for file, text in texts.items())
    indexes = [parse_index(texts.get(INDEX_NAME), names),
               parse_index(texts.get(TEAM_INDEX), names, folder=f"{TEAM_FOLDER}/")]
    return reach(loaded_roots(indexes), TextLinks(texts, names))


def _decoded(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", errors="replace")


def apply_changeset(changeset: ChangeSet, only: Iterable[str] | None = None,
                    lease: LockLease | None = None) -> ApplyResult:
    """Apply the chosen files (`default_choice()` when none are named), all or none: a
    held file refuses the whole change set when no choice was made, and a file whose live
    bytes are no longer what was staged refuses the whole choice. What is applied goes in
    as one record (`undo_changeset` reverts it). A dream applies through its `lease` on
    the consolidate lock, which it keeps meanwhile."""
    from tui.history.recovery import apply_journalled
    from tui.memory import writes

    if only is None and changeset.refusal is not None:
        return ApplyResult((), tuple(changeset.held.items()), ())
    chosen = set(only) if only is not None else changeset.default_choice()
    pending = [f for f in changeset.files if f.file in chosen]
    refused: list[tuple[str, str]] = []
    for diff in pending:
        try:
            live = writes.read_bytes(changeset.store, diff.file)
        except writes.WriteRefused as error:
            refused.append((diff.file, str(error)))
            continue
        if live != diff.before:
            refused.append((diff.file, f"{diff.file} changed on disk since the run staged it"))
    if refused:
        return ApplyResult((), _nothing_written(refused), ())
    changes = [writes.FileChange(d.file, d.before, d.after, d.mtime) for d in pending]
    try:
        record = apply_journalled(changeset.store, changes, changeset.label, archive=True,
                                  lease=lease)
    except writes.ConflictError as error:  # changed between our check and the write
        return ApplyResult((), _nothing_written([(error.file, str(error))]), ())
    except writes.WriteRefused as error:
        return ApplyResult((), tuple((d.file, str(error)) for d in pending), ())
    return ApplyResult(tuple(d.file for d in pending), (), (record.id,))


def _nothing_written(refused: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """The refusals of a change of which nothing was written, each saying so."""
    return tuple((file, f"{reason.rstrip('.')}; nothing was written, as the files of a run "
                        "go together.") for file, reason in refused)


def remember_lock_before(record_ids: Iterable[str], previous: LockState) -> None:
    """Keep the lock as it was before a dream, so undoing the dream undoes "consolidated"."""
    write_notes(LOCK, record_ids, state_json(previous))


def restore_lock_after_undo(store: Path, record_id: str | None) -> dict | None:
    """If the undone record was a dream, put the lock back as it was before it. What it
    moved, for a redo: the lock as the undo left it and as the dream had left it."""
    before = read_note(LOCK, record_id) if record_id is not None else None
    if before is None:
        return None  # not a dream, or applied before memtui kept lock notes
    dreamt = read_lock(store)
    if dreamt.held():
        return None  # a live dream owns it now: leave it alone
    try:
        restore_lock(store, state_from_json(store, before))
    except (OSError, LockBusy, ValueError, TypeError):
        return None
    drop_note(LOCK, record_id)
    return {"undone_to": state_json(read_lock(store)), "redo_to": state_json(dreamt)}


def redo_lock(store: Path, moved: dict, redo_id: str) -> None:
    """Set the lock again as the redone dream had left it, unless it moved since the undo
    (a consolidation since is newer: it stays); the redo's own undo puts it back."""
    now = read_lock(store)
    if now.held() or state_json(now) != moved["undone_to"]:
        return
    try:
        restore_lock(store, state_from_json(store, moved["redo_to"]))
    except (OSError, LockBusy, ValueError, TypeError):
        return
    remember_lock_before((redo_id,), now)


def settle_after_undo(store: Path, undo: ChangeRecord) -> None:
    """What an undone run had moved goes back: a dream's lock, an extraction's cursor;
    what moved is noted under the undo, so that a redo moves it forward again."""
    from tui.agents.conversation import restore_cursor_after_undo

    lock = restore_lock_after_undo(store, undo.undoes)
    cursor = restore_cursor_after_undo(undo.undoes)
    if _run_label(undo.label):
        write_notes(REDO, (undo.id,), {"lock": lock, "cursor": cursor})


def settle_after_redo(store: Path, redo: ChangeRecord) -> None:
    """A redone run moves again what its undo had put back (see `settle_after_undo`)."""
    from tui.agents.conversation import redo_cursor

    moved = read_note(REDO, redo.undoes) if redo.undoes is not None else None
    if not isinstance(moved, dict):
        return
    if isinstance(moved.get("lock"), dict):
        redo_lock(store, moved["lock"], redo.id)
    if isinstance(moved.get("cursor"), dict):
        redo_cursor(moved["cursor"], redo.id)
    drop_note(REDO, redo.undoes)


RUN_LABELS = ("dream ", "extract ")  # how dream.py and extract.py label what they apply


def _run_label(label: str) -> bool:
    """Whether a record's label names a run, or its undo or redo."""
    return label.removeprefix("undo ").removeprefix("redo ").startswith(RUN_LABELS)


def lock_change(label: str) -> str | None:
    """What a change of this label did to `.consolidate-lock`: "set" (an applied dream
    counts as a consolidation, and so does its redo), "restored" (its undo), or None."""
    if label.startswith(("dream ", "redo dream ")):
        return "set"
    if label.startswith("undo dream "):
        return "restored"
    return None


def redo_refusal(undo: ChangeRecord) -> str | None:
    """Why an undone run cannot be redone: its undo put back the lock or the session's
    cursor, and the note of where the run had left them is gone (an undo by an older
    memtui, or one of many since), so a redo of its files alone would leave them saying it
    never ran."""
    if not _run_label(undo.label) or read_note(REDO, undo.id) is not None:
        return None
    run = undo.label.removeprefix("undo ").split()[0]
    moved = "the consolidate lock" if run == "dream" else "the session's cursor"
    return (f"This undone {run} cannot be redone: memtui no longer knows where it had left "
            f"{moved}; run it again (its review shows what it would change).")


def redo_changeset(store: Path) -> str | None:
    """Redo what the newest undo of this store took back; its label, or None if nothing
    is left to redo. A redone dream sets the lock again, a redone extraction its cursor."""
    from tui.history.recovery import redo_journalled

    record = redo_journalled(store, redo_refusal)
    if record is None:
        return None
    settle_after_redo(store, record)
    return both_stores(record)


def undo_changeset(store: Path) -> str | None:
    """Undo the newest applied record of this store; its label, or None if nothing to undo.

    Undoing a dream also puts the `.consolidate-lock` back as it was, so Claude Code does
    not count the undone dream as a consolidation; undoing an extraction moves its
    session's cursor back, so the next extraction reads those messages again.
    """
    from tui.history.recovery import undo_journalled

    record = undo_journalled(store)
    if record is None:
        return None
    settle_after_undo(store, record)
    return both_stores(record)


def both_stores(record: ChangeRecord) -> str:
    """The label of an undo or redo, saying so when it took in two stores (a move)."""
    if record.pair is None:
        return record.label
    return f"{record.label}, in both {record.store} and {record.pair.store}"
