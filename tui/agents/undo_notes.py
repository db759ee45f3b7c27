"""Notes that let an undo put back what an applied run moved outside the store: a dream's
`.consolidate-lock`, an extraction's cursor; and under that undo, what it moved back, so
that a redo moves it forward again. One JSON file per journal record, in a folder per kind
under the state dir, read and removed when that record is undone (or redone).

Undo walks back from the newest change one at a time, and the undo log is never pruned, so
no note ever becomes provably useless: the newest KEPT of each kind are kept instead.
Undoing a run older than that still reverts its memory files; only what it moved outside
them stays put.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from tui import xdg

KEPT = 200
LOCK, CURSOR = "lock-before", "cursor-before"
REDO = "redo-moves"  # under an undo of a run: what it moved back, for a redo to move again


def _note(kind: str, record_id: str) -> Path:
    return xdg.state_dir() / kind / f"{record_id}.json"


def write_notes(kind: str, record_ids: Iterable[str], data: object) -> None:
    """The same note for each record, then the oldest notes of this kind past KEPT gone."""
    written = set()
    for record_id in record_ids:
        path = _note(kind, record_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data), encoding="utf-8")
        written.add(path.name)
    if written:
        _drop_oldest(xdg.state_dir() / kind, keep=written)


def read_note(kind: str, record_id: str) -> object | None:
    """The note of `record_id`; None when there is none (not a run of this kind, or one
    applied before memtui kept such notes) or it cannot be read."""
    try:
        return json.loads(_note(kind, record_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def drop_note(kind: str, record_id: str) -> None:
    _note(kind, record_id).unlink(missing_ok=True)


def _drop_oldest(folder: Path, keep: set[str]) -> None:
    """Remove the oldest notes past KEPT; never those just written."""
    dated = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name not in keep and entry.name.endswith(".json"):
                    try:
                        dated.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.name))
                    except OSError:
                        continue
    except OSError:
        return
    dated.sort(reverse=True)
    for _, name in dated[max(KEPT - len(keep), 0):]:
        try:
            (folder / name).unlink()
        except OSError:
            pass  # gone already, or not ours to remove: the next write tries again
