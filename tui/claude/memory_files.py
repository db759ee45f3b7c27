"""Which files of a memory dir Claude Code reads as memories, and what each one is.

Its scanner is recursive: every `.md` file in every subfolder is a memory, except files
named `MEMORY.md` (an index). memtui walks the same way, and safely on any disk: it never
follows a symlinked folder, skips `.git`, enters no folder twice (bind mounts) and stops
`MAX_DEPTH` levels down.

Two subfolders are not plain memories: `logs/` (assistant mode's daily logs,
`logs/YYYY/MM/YYYY-MM-DD.md`) and `sessions/` are raw notes a dream distils, never
indexed; `team/` is team memory, indexed by its own `team/MEMORY.md`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from tui.claude.paths import INDEX_NAME
from tui.walk import MAX_DEPTH

SKIPPED_FOLDERS = frozenset({".git"})
LOG_FOLDERS = ("logs", "sessions")
TEAM_FOLDER = "team"
TEAM_INDEX = f"{TEAM_FOLDER}/{INDEX_NAME}"
_LOG_PREFIXES = tuple(f"{folder}/" for folder in LOG_FOLDERS)


def memory_files(
    store: str | os.PathLike[str], unreadable: list[tuple[str, str]] | None = None
) -> list[tuple[str, os.DirEntry[str]]]:
    """(store-relative path with `/`, entry) of every memory file below `store`, by path;
    `unreadable` gets (folder, why) for each folder that cannot be listed ("" the store)."""
    found = [(prefix + entry.name, entry)
             for prefix, entries in _walk(os.fspath(store), unreadable) for entry in entries]
    found.sort(key=lambda item: item[0])
    return found


def count_memory_files(store: str | os.PathLike[str]) -> int:
    return sum(len(entries) for _, entries in _walk(os.fspath(store)))


def counted_memory_files(store: str) -> tuple[int, list[str] | None]:
    """The count, and the folders whose listings decide it: None when more does (a folder
    that cannot be listed, a symlink whose target may change kind)."""
    unreadable: list[tuple[str, str]] = []
    listed: list[str | None] = []
    count = sum(len(entries) for _, entries in _walk(store, unreadable, listed))
    return count, None if unreadable or None in listed else listed


def _walk(store: str, unreadable: list[tuple[str, str]] | None = None,
          listed: list[str | None] | None = None
          ) -> Iterator[tuple[str, list[os.DirEntry[str]]]]:
    """(store-relative prefix of a folder, its memory files), folder by folder: a count
    needs no path of its own for each file."""
    visited: set[tuple[int, int]] = set()
    stack = [(store, "", 0)]
    while stack:
        folder, prefix, depth = stack.pop()
        try:
            status = os.stat(folder)
            if (status.st_dev, status.st_ino) in visited:
                continue
            visited.add((status.st_dev, status.st_ino))
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as error:
            if unreadable is not None and not isinstance(error, FileNotFoundError):
                unreadable.append((prefix, error.strerror or str(error)))
            if listed is not None:
                listed.append(None)
            continue
        if listed is not None:
            listed.append(folder)
        files = []
        for entry in entries:
            name = entry.name
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
                is_link = entry.is_symlink()
            except OSError:
                if listed is not None:
                    listed.append(None)
                continue
            if is_link and listed is not None:
                listed.append(None)
            if is_folder:
                if depth < MAX_DEPTH and name not in SKIPPED_FOLDERS:
                    stack.append((entry.path, f"{prefix}{name}/", depth + 1))
            elif name.endswith(".md") and name != INDEX_NAME and not (
                    is_link and _links_to_folder(entry)):
                files.append(entry)
        yield prefix, files


def _links_to_folder(entry: os.DirEntry[str]) -> bool:
    """Whether a symlink leads to a folder: never followed, and not a file either."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def is_log(file: str) -> bool:
    """A daily log or session note: read by the dream and the recall scan, never indexed."""
    return file.startswith(_LOG_PREFIXES)


def is_team(file: str) -> bool:
    """A team memory, indexed by `team/MEMORY.md`."""
    return file.startswith(f"{TEAM_FOLDER}/")


def index_of(file: str) -> str:
    """The index that should link a memory file."""
    return TEAM_INDEX if is_team(file) else INDEX_NAME
