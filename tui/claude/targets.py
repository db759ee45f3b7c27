"""Turn what a user types (a memory dir, a project path, a folder name) into a store."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from tui.claude import paths
from tui.claude.discovery import store_state
from tui.claude.settings import SettingValue, resolve_memory_location


class TargetError(Exception):
    """A target that names no store; the message is one sentence for the user."""


class Target(NamedTuple):
    memory_dir: Path
    how: str  # "memory dir", "project path", "folder name"
    project_path: str | None = None
    source: str = "default"  # where the memory dir came from (settings source)
    stranded_reason: str | None = None
    untrusted: SettingValue | None = None
    rejected: tuple[str, ...] = ()


def _folder_of(memory_dir: Path, home: Path) -> str | None:
    projects = paths.projects_dir(home)
    # realpath, not resolve(): a symlink loop is a path, not a RuntimeError.
    if os.path.realpath(memory_dir.parent.parent) == os.path.realpath(projects):
        return memory_dir.parent.name
    return None


def _with_state(target: Target, home: Path, env: Mapping[str, str]) -> Target:
    folder = _folder_of(target.memory_dir, home)
    if folder is None:
        return target
    key, stranded, why, _ = store_state(folder, home, env)
    return Target(
        target.memory_dir, target.how, target.project_path or key, target.source,
        why if stranded else None, target.untrusted, target.rejected,
    )


def resolve_target(
    target: str | None,
    *,
    home: Path,
    env: Mapping[str, str] | None = None,
    settings_file: Path | None = None,
    stranded: bool = True,
) -> Target:
    """The store `target` names; with `stranded` False, whether it is stranded is not
    worked out (that reads its folder's transcripts), for a command that needs only the
    store."""
    env = os.environ if env is None else env
    projects = paths.projects_dir(home)

    def stated(found: Target) -> Target:
        return _with_state(found, home, env) if stranded else found

    if target is None:
        target = os.getcwd()

    # os.path's tests, not Path's: they answer False for a name too long, unreadable or
    # holding a NUL, where Path's raise.
    candidate = Path(os.path.expanduser(target))
    is_dir = os.path.isdir(candidate)
    if is_dir and (
        candidate.name == paths.MEMORY_DIR_NAME
        or os.path.isfile(candidate / paths.INDEX_NAME)
    ):
        return stated(Target(candidate.absolute(), "memory dir"))

    if is_dir:
        location = resolve_memory_location(
            candidate, home=home, env=env, settings_file=settings_file
        )
        return Target(
            location.memory_dir, "project path", str(location.project_root), location.source,
            untrusted=location.untrusted, rejected=location.rejected,
        )

    if os.sep not in target and "/" not in target:
        try:
            names = os.listdir(projects)
        except OSError:
            names = []
        folder = paths.find_folder(names, target)
        if folder:
            return stated(Target(projects / folder / paths.MEMORY_DIR_NAME, "folder name"))
        raise TargetError(f"No project folder named {target!r} under {projects}.")
    if not os.path.lexists(candidate):
        # A checkout deleted since its sessions ran, by the path `memtui projects` shows.
        try:
            names = os.listdir(projects)
        except OSError:
            names = []
        folder = paths.find_folder(names, paths.sanitize(paths.normalize_path(candidate)))
        if folder:
            memory_dir = projects / folder / paths.MEMORY_DIR_NAME
            if not os.path.isdir(memory_dir):  # a removed worktree: its sessions used a store
                memory_dir = _store_used_by(projects / folder, home, env) or memory_dir
            return stated(Target(memory_dir, "folder name"))
        raise TargetError(f"{target} does not exist.")
    raise TargetError(f"{target} is not a memory directory, a project path or a folder name.")


def _store_used_by(folder: Path, home: Path, env: Mapping[str, str]) -> Path | None:
    """The store discovery maps a transcript folder to (by the memory files its sessions
    wrote, or its worktree-state origin), when it has none of its own."""
    from tui.claude.discovery import discover

    wanted = os.path.realpath(folder)
    for project in discover(home, env).projects:
        if project.store is not None and any(
                os.path.realpath(dir_) == wanted for dir_ in project.transcript_dirs):
            return project.store
    return None
