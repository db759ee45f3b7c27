"""A cheap fingerprint of a store directory, to notice when Claude Code writes it."""

from __future__ import annotations

import os
from pathlib import Path

Signature = frozenset[tuple[str, int, int]]


def signature(store: Path) -> Signature:
    """(name, mtime_ns, size) of every entry: changes whenever a file is written or removed."""
    found = set()
    try:
        with os.scandir(store) as entries:
            for entry in entries:
                try:
                    stat = entry.stat()
                except OSError:
                    continue
                found.add((entry.name, stat.st_mtime_ns, stat.st_size))
    except OSError:
        pass
    return frozenset(found)
