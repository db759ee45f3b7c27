"""Cheap fingerprints of a store directory and of the config home, to notice when Claude
Code writes them."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from tui.claude.memory_files import TEAM_INDEX, memory_files
from tui.claude.paths import INDEX_NAME, LOCK_NAME

if TYPE_CHECKING:
    from tui.claude.discovery import Project

Signature = frozenset[tuple[str, int, int]]
WATCH_GROUP = "watch"  # the disk watchers' workers: they run as long as their screen


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


class HomeSignature(NamedTuple):
    """What the projects screen shows, fingerprinted by a few stats per project."""

    folders: frozenset[tuple[str, int]]  # transcript folders: a new session, a new folder
    checkouts: frozenset[tuple[str, bool]]  # a project's paths: a removed worktree
    stores: dict[Path, tuple[tuple[int, int] | None, ...]]  # the store, its index, its lock


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def home_signature(home: Path, projects: Iterable[Project]) -> HomeSignature:
    """Cheap enough to take every few seconds: no file is read, a memory rewritten in place
    goes unnoticed (the projects table shows no memory's text)."""
    folders = set()
    try:
        with os.scandir(home / "projects") as listing:
            for entry in listing:
                try:
                    folders.add((entry.name, entry.stat().st_mtime_ns))
                except OSError:
                    continue
    except OSError:
        pass
    checkouts, stores = set(), {}
    for project in projects:
        checkouts.update((path, os.path.isdir(path)) for path in project.paths)
        if project.store is not None:
            stores[project.store] = tuple(_stamp(project.store / name) for name in
                                          ("", INDEX_NAME, LOCK_NAME, TEAM_INDEX))
    return HomeSignature(frozenset(folders), frozenset(checkouts), stores)
