"""Turn what a user types (a memory dir, a project path, a folder name) into a store."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from tui.claude import paths
from tui.claude.discovery import store_state
from tui.claude.gitroot import find_git_root
from tui.claude.settings import (
    OVERRIDE_VARIABLE,
    SETTING_KEY,
    MemoryLocation,
    SettingValue,
    resolve_memory_location,
)


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
    why: str = ""  # why the words given name this store, one clause
    # The store keyed by the path given, when sessions there use another (`memory_dir`).
    passed_over: Path | None = None

    def to_json(self) -> dict:
        return {"how": self.how, "why": self.why,
                "keyed_store": str(self.passed_over) if self.passed_over else None}


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
    return target._replace(project_path=target.project_path or key,
                           stranded_reason=why if stranded else None)


def resolve_target(
    target: str | None,
    *,
    home: Path,
    env: Mapping[str, str] | None = None,
    settings_file: Path | None = None,
    stranded: bool = True,
    config_home: bool = False,
) -> Target:
    """The store `target` names; with `stranded` False, whether it is stranded is not
    worked out (that reads its folder's transcripts), for a command that needs only the
    store. With `config_home`, the config home itself is a target too: the folder of the
    user's CLAUDE.md, which `memtui promote` writes (`memtui undo` takes that back)."""
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
    if config_home and is_dir and os.path.realpath(candidate) == os.path.realpath(home):
        return Target(candidate.absolute(), "config home",
                      why="the config home, whose CLAUDE.md Claude Code loads in every session")
    if is_dir and (
        candidate.name == paths.MEMORY_DIR_NAME
        or os.path.isfile(candidate / paths.INDEX_NAME)
    ):
        return stated(Target(candidate.absolute(), "memory dir",
                             why="given as the memory directory itself"))

    if is_dir:
        location = resolve_memory_location(
            candidate, home=home, env=env, settings_file=settings_file
        )
        return Target(
            location.memory_dir, "project path", str(location.project_root), location.source,
            untrusted=location.untrusted, rejected=location.rejected,
            why=_why_location(candidate, location),
            passed_over=_keyed_by(candidate, projects, location.memory_dir) if stranded else None,
        )

    if os.sep not in target and "/" not in target:
        try:
            names = os.listdir(projects)
        except OSError:
            names = []
        folder = paths.find_folder(names, target)
        if folder:
            return stated(Target(projects / folder / paths.MEMORY_DIR_NAME, "folder name",
                                 why="given by its project folder's name"))
        return stated(_by_project_name(target, names, home, env, settings_file))
    if not os.path.lexists(candidate):
        # A checkout deleted since its sessions ran, by the path `memtui projects` shows.
        try:
            names = os.listdir(projects)
        except OSError:
            names = []
        folder = paths.find_folder(names, paths.sanitize(paths.normalize_path(candidate)))
        if folder:
            memory_dir = projects / folder / paths.MEMORY_DIR_NAME
            why = f"{target} no longer exists; this is the store keyed by it"
            if not os.path.isdir(memory_dir):  # a removed worktree: its sessions used a store
                used = _store_used_by(projects / folder, home, env)
                if used is not None:
                    memory_dir = used
                    why = (f"{target} no longer exists, and it has no store of its own; its "
                           "sessions wrote their memories to this one")
            return stated(Target(memory_dir, "project path", why=why))
        raise TargetError(f"{target} does not exist.")
    raise TargetError(f"{target} is not a memory directory, a project path or a folder name.")


def _by_project_name(target: str, folders: list[str], home: Path, env: Mapping[str, str],
                     settings_file: Path | None) -> Target:
    """The store of the one project whose path ends in `target` (`shop` for ~/work/shop,
    as `memtui projects` shows it), else a TargetError naming the close matches."""
    import difflib

    from tui.claude.discovery import discover

    inventory = discover(home, env, settings_file).projects
    # The path `memtui projects` shows first, then the other paths sessions ran in.
    shown = _by_basename((project.key_path or (project.paths or ("",))[0], project)
                         for project in inventory)
    other = _by_basename((path, project) for project in inventory for path in project.paths)
    found = _named(target, shown) or _named(target, other)
    if found and all(project.store is None for project in found):
        where = found[0].key_path or found[0].paths[0]
        raise TargetError(f"The project {where} has no memory store"
                          + (f": {found[0].note}" if found[0].note else "."))
    found = [project for project in found if project.store is not None]
    if len(found) == 1:
        [project] = found
        where = project.key_path or project.paths[0]
        return Target(project.store, "project name", where,
                      why=f"{target} names the project {where}")
    if found:
        shown = ", ".join(project.key_path or project.paths[0] for project in found)
        raise TargetError(f"{target!r} names {len(found)} projects ({shown}); give the path "
                          "of the one you mean.")
    guesses = difflib.get_close_matches(target, [*shown, *folders], n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(guesses)}?" if guesses else (
        " (`memtui projects` lists them)")
    raise TargetError(f"No project named {target!r}, and no project folder of that name under "
                      f"{paths.projects_dir(home)}{hint}")


def _by_basename(pairs) -> dict[str, list]:
    named: dict[str, list] = {}
    for path, project in pairs:
        if path:
            named.setdefault(os.path.basename(path.rstrip("/")), []).append(project)
    return named


def _named(target: str, named: dict[str, list]) -> list:
    """The projects called `target`, exactly, else ignoring case; each once."""
    found = named.get(target) or next(
        (found for name, found in named.items() if name.casefold() == target.casefold()), [])
    return list({id(project): project for project in found}.values())


def _why_location(path: Path, location: MemoryLocation) -> str:
    """Why sessions in `path` use `location.memory_dir`, as Claude Code decides it."""
    if location.source == "env":
        return f"{OVERRIDE_VARIABLE} names it, before any setting"
    if location.setting_file is not None:
        return f"{SETTING_KEY} in {location.setting_file} names it"
    root = location.project_root
    real = Path(paths.normalize_path(path))
    if real == root:
        return f"Claude Code keys the store of sessions in {root} by that path"
    checkout = find_git_root(real)
    if checkout is not None and checkout != root:
        inside = f"is inside {checkout}, which " if real != checkout else ""
        return (f"{path} {inside}is a worktree of {root}, and a worktree's sessions use the "
                "main checkout's store")
    return f"{path} is inside {root}, and sessions in a subfolder use its root's store"


def _keyed_by(path: Path, projects: Path, chosen: Path) -> Path | None:
    """The memory dir keyed by `path` itself, when it exists and is not `chosen`: no
    session there loads it."""
    try:
        names = os.listdir(projects)
    except OSError:
        return None
    folder = paths.find_folder(names, paths.sanitize(paths.normalize_path(path)))
    keyed = projects / folder / paths.MEMORY_DIR_NAME if folder else None
    if keyed is None or not os.path.isdir(keyed):
        return None
    return None if os.path.realpath(keyed) == os.path.realpath(chosen) else keyed


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
