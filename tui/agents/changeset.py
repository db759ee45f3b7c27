"""The result of a run: what it would change, shown as diffs, applied on confirmation.

Applying checks every target against the live file: one that changed since it was staged
is refused and shown, the rest are applied together as one undoable record.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from tui.agents.undo_notes import LOCK, drop_note, read_note, write_notes
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

CREATED, MODIFIED, ARCHIVED = "created", "modified", "archived"


@dataclass(frozen=True)
class FileDiff:
    file: str
    kind: str  # created, modified, archived
    before: bytes | None
    after: bytes | None
    diff: str

    def to_json(self) -> dict:
        return {"file": self.file, "kind": self.kind, "diff": self.diff}


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
                  and os.path.lexists(self.store / link.file)}  # a dangling line hides nothing
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

    def default_choice(self) -> set[str]:
        """The files to apply unless the user says otherwise: all, but an index that would
        hide a memory Claude sees now."""
        chosen = {f.file for f in self.files}
        return chosen - {INDEX_NAME} if self.hides else chosen

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
        }


@dataclass(frozen=True)
class ApplyResult:
    applied: tuple[str, ...]
    refused: tuple[tuple[str, str], ...]  # (file, one-sentence reason)
    record_ids: tuple[str, ...]


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
                    notes: Iterable[str] = ()) -> ChangeSet:
    """Compare the store as staged (`originals`) with the staging copy after the run."""
    files: list[FileDiff] = []
    gone = set(deleted)
    for name in sorted(set(originals) | set(staged)):
        before, after = originals.get(name), staged.get(name)
        if name in gone and before is not None and after is None:
            files.append(FileDiff(name, ARCHIVED, before, None, unified(name, before, None)))
        elif before is None and after is not None:
            files.append(FileDiff(name, CREATED, None, after, unified(name, None, after)))
        elif before is not None and after is not None and before != after:
            files.append(FileDiff(name, MODIFIED, before, after, unified(name, before, after)))
    # The index first, then by kind: the order a reviewer reads best.
    files.sort(key=lambda f: (f.file != INDEX_NAME, (CREATED, MODIFIED, ARCHIVED).index(f.kind),
                              f.file))
    return ChangeSet(
        store, label, tuple(files),
        parse_index(_decoded(originals.get(INDEX_NAME))),
        parse_index(_decoded(staged.get(INDEX_NAME, originals.get(INDEX_NAME)))),
        tuple(notes), originals,
    )


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
    """Apply the chosen files (`default_choice()` when none are named). A file whose live
    bytes are no longer what was staged is refused; the others go in as one record
    (`undo_changeset` reverts it). A dream applies through its `lease` on the consolidate
    lock, which it keeps meanwhile."""
    from tui.history.recovery import apply_journalled
    from tui.memory import writes

    chosen = set(only) if only is not None else changeset.default_choice()
    pending = [f for f in changeset.files if f.file in chosen]
    refused: list[tuple[str, str]] = []
    if only is None and changeset.hides:
        refused.append((INDEX_NAME, f"{INDEX_NAME} was left as it was: the run's version would "
                                    f"hide {', '.join(changeset.hides)} from Claude (apply it "
                                    "on its own to accept that)."))
    while pending:
        ready = []
        for diff in pending:
            try:
                live = writes.read_bytes(changeset.store, diff.file)
            except writes.WriteRefused as error:
                refused.append((diff.file, str(error)))
                continue
            if live != diff.before:
                refused.append((diff.file, f"{diff.file} changed on disk since the run "
                                           "staged it; it was left as it is."))
            else:
                ready.append(diff)
        if not ready:
            break
        changes = [writes.FileChange(d.file, d.before, d.after) for d in ready]
        try:
            record = apply_journalled(changeset.store, changes, changeset.label, archive=True,
                                      lease=lease)
        except writes.ConflictError as error:
            # Changed between our check and the write: refuse that one, retry the rest.
            refused.append((error.file, str(error)))
            pending = [d for d in ready if d.file != error.file]
            continue
        except writes.WriteRefused as error:
            refused.extend((d.file, str(error)) for d in ready)
            break
        return ApplyResult(tuple(d.file for d in ready), tuple(refused), (record.id,))
    return ApplyResult((), tuple(refused), ())


def remember_lock_before(record_ids: Iterable[str], previous: LockState) -> None:
    """Keep the lock as it was before a dream, so undoing the dream undoes "consolidated"."""
    write_notes(LOCK, record_ids, state_json(previous))


def restore_lock_after_undo(store: Path, record_id: str | None) -> None:
    """If the undone record was a dream, put the lock back as it was before it."""
    before = read_note(LOCK, record_id) if record_id is not None else None
    if before is None:
        return  # not a dream, or applied before memtui kept lock notes
    if read_lock(store).held():
        return  # a live dream owns it now: leave it alone
    try:
        restore_lock(store, state_from_json(store, before))
    except (OSError, LockBusy, ValueError, TypeError):
        return
    drop_note(LOCK, record_id)


def settle_after_undo(store: Path, record_id: str | None) -> None:
    """What an undone run had moved goes back: a dream's lock, an extraction's cursor."""
    from tui.agents.conversation import restore_cursor_after_undo

    restore_lock_after_undo(store, record_id)
    restore_cursor_after_undo(record_id)


RUN_LABELS = ("dream ", "extract ")  # how dream.py and extract.py label what they apply


def lock_change(label: str) -> str | None:
    """What a change of this label did to `.consolidate-lock`: "set" (an applied dream
    counts as a consolidation), "restored" (its undo), or None."""
    if label.startswith("dream "):
        return "set"
    if label.startswith("undo dream "):
        return "restored"
    return None


def redo_refusal(label: str) -> str | None:
    """Why an undone run cannot be redone: undoing it put back the lock or the session's
    cursor, which a redo of its files alone would leave saying it never ran."""
    if label.startswith(RUN_LABELS):
        return (f"An undone {label.split()[0]} is not redone: run it again (its review shows "
                "what it would change).")
    return None


def redo_changeset(store: Path) -> str | None:
    """Redo what the newest undo of this store took back; its label, or None if nothing
    is left to redo. An undone dream or extraction is refused (see `redo_refusal`)."""
    from tui.history.recovery import redo_journalled

    record = redo_journalled(store, redo_refusal)
    return record.label if record is not None else None


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
    settle_after_undo(store, record.undoes)
    return record.label
