"""How much disk memtui's own files take, per kind (never a store's own files).

Kinds: `backups` (the undo log and plain copies, trimmed by the retention policy),
`archive` (archived memories, kept until the user deletes them), `journal` (one git
repository per store: the long-term history, never trimmed), `caches` (scan caches, safe
to delete), `state` (sync clones, cursors, locks, intent records). Sizes are what the
files take on disk (allocated blocks, as `du` counts), symlinks not followed.
"""

from __future__ import annotations

import os
from pathlib import Path

from tui import xdg
from tui.walk import MAX_DEPTH

# The deepest folder memtui writes: a copy of a store's deepest memory, in
# backups/<store key>/<change>/kept/.
_DEEPEST = MAX_DEPTH + 3


def kind_dirs() -> dict[str, Path]:
    """Each kind's folder, in the order the kinds are reported."""
    data = xdg.data_dir()
    return {"backups": data / "backups", "archive": data / "archive",
            "journal": data / "journal", "caches": xdg.cache_dir(), "state": xdg.state_dir()}


def store_dirs(store: Path) -> dict[str, Path]:
    """The folders holding one store's backups, archive and journal."""
    key = xdg.store_key(store)
    dirs = kind_dirs()
    return {kind: dirs[kind] / key for kind in ("backups", "archive", "journal")}


def file_bytes(stat: os.stat_result) -> int:
    return stat.st_blocks * 512 if hasattr(stat, "st_blocks") else stat.st_size


def tree_bytes(path: Path) -> int:
    """What a file or folder takes on disk, everything under it counted once; 0 when it is
    not there. What cannot be read is left out, never an error."""
    try:
        top = os.lstat(path)
    except OSError:
        return 0
    total = file_bytes(top)
    if not os.path.isdir(path) or os.path.islink(path):
        return total
    pending = [(str(path), 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        total += file_bytes(entry.stat(follow_symlinks=False))
                        if entry.is_dir(follow_symlinks=False) and depth < _DEEPEST:
                            pending.append((entry.path, depth + 1))
                    except OSError:
                        continue
        except OSError:
            continue
    return total


def disk_use() -> dict[str, int]:
    """Bytes on disk per kind, in `kind_dirs` order."""
    return {kind: tree_bytes(path) for kind, path in kind_dirs().items()}


def use_in_words(use: dict[str, int]) -> str:
    """`backups 2.0 MB, archive 0 B, journal 454.7 kB (never trimmed: …), …`"""
    notes = {"journal": " (never trimmed: the long-term history)"}
    return ", ".join(f"{kind} {human_bytes(size)}{notes.get(kind, '')}"
                     for kind, size in use.items())


def human_bytes(count: int) -> str:
    """`812 B`, `4.1 kB`, `12.3 MB`, `1.2 GB` (powers of 1000, as disks are sold)."""
    size = float(count)
    for unit in ("B", "kB", "MB"):
        if size < 999.95:  # what would print as 1000.0 is the next unit
            return f"{count} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"
