"""A cheap fingerprint of a store directory, to notice when Claude Code writes it."""

from __future__ import annotations

import os
from pathlib import Path

from tui.claude.memory_files import memory_files

Signature = frozenset[tuple[str, int, int]]


def signature(store: Path) -> Signature:
    """(name, mtime_ns, size) of every entry and of every memory file in a subfolder:
    changes whenever a file is written or removed."""
    try:
        with os.scandir(store) as listing:
            entries = [(entry.name, entry) for entry in listing]
    except OSError:
        return frozenset()
    entries += [(file, entry) for file, entry in memory_files(store) if "/" in file]
    found = set()
    for name, entry in entries:
        try:
            stat = entry.stat()
        except OSError:
            continue
        found.add((name, stat.st_mtime_ns, stat.st_size))
    return frozenset(found)
