"""Walking a folder tree safely on any disk: `os.walk`, bounded.

At most `MAX_DEPTH` levels below the top (Claude Code's scanner and memtui's stop there
too), never into a symlinked folder, and without recursion: a folder 1,500 levels deep, or
a loop of bind mounts, is walked to the bound and no further, never a RecursionError.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

MAX_DEPTH = 32


def walk(top: str | os.PathLike[str], *, topdown: bool = True,
         onerror: Callable[[OSError], None] | None = None,
         max_depth: int = MAX_DEPTH) -> Iterator[tuple[str, list[str], list[str]]]:
    """(folder, subfolder names, file names) as `os.walk(top, followlinks=False)` gives
    them, for folders at most `max_depth` levels below `top`. Top-down, the caller may
    prune the subfolder names in place; a symlinked folder is named but never entered."""
    if not topdown:
        yield from reversed(list(walk(top, onerror=onerror, max_depth=max_depth)))
        return
    pending = [(os.fspath(top), 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as error:
            if onerror is not None:
                onerror(error)
            continue
        folders, files = [], []
        for entry in entries:
            try:
                is_folder = entry.is_dir()
            except OSError:
                is_folder = False
            (folders if is_folder else files).append(entry.name)
        yield folder, folders, files
        if depth >= max_depth:
            continue
        for name in reversed(folders):
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                pending.append((path, depth + 1))
