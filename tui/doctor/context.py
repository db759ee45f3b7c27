"""What every check reads: the project, its store, Claude Code's settings and environment.

Everything is read lazily and once; nothing here writes anywhere.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from tui.claude import paths
from tui.claude.files import read_regular
from tui.claude.settings import (
    BOM,
    SETTINGS_LIMIT,
    MemoryLocation,
    managed_settings_path,
    parse_settings,
)

RECENT_SESSIONS = 10  # the extraction and compaction checks read this many newest sessions


@dataclass(frozen=True)
class SettingsFile:
    """One of Claude Code's settings files, highest precedence first in `DoctorContext`."""

    scope: str  # "managed", "flag", "local", "project" (checked in), "user"
    path: Path
    data: dict | None  # None: absent or unreadable
    problem: str | None = None  # why a file that exists could not be used
    bom: bool = False  # it starts with a UTF-8 byte order mark (read all the same)

    @property
    def label(self) -> str:
        return {"managed": "managed settings", "flag": "the --settings file",
                "local": "local project settings", "project": "checked-in project settings",
                "user": "user settings"}[self.scope]


def read_settings_file(scope: str, path: Path | None) -> SettingsFile | None:
    if path is None:
        return None
    try:
        raw = read_regular(path, SETTINGS_LIMIT)
    except FileNotFoundError:
        return SettingsFile(scope, path, None)
    except OSError as error:
        return SettingsFile(scope, path, None, f"cannot be read ({error.strerror or error})")
    try:
        data = parse_settings(raw)
    except UnicodeDecodeError:
        return SettingsFile(scope, path, None, "is not UTF-8 text")
    except (ValueError, RecursionError) as error:
        return SettingsFile(scope, path, None, f"is not valid JSON ({error})")
    bom = raw.startswith(BOM.encode())
    if not isinstance(data, dict):
        return SettingsFile(scope, path, None, f"holds a JSON {type(data).__name__}, not an object",
                            bom)
    return SettingsFile(scope, path, data, bom=bom)


class EnvValue(NamedTuple):
    """A variable as Claude Code sees it, and where it comes from."""

    value: str
    file: Path | None  # the settings file whose "env" block sets it; None: the environment

    @property
    def where(self) -> str:
        return "the environment" if self.file is None else f'"env" in {self.file}'

    def unset(self, name: str) -> str:
        """The fix that takes the variable away where this value is set."""
        if self.file is None:
            return f"unset {name}"
        return f'remove "{name}" from the "env" block of {self.file}'


@dataclass
class DoctorContext:
    home: Path  # Claude Code's config home
    env: Mapping[str, str]  # the process environment
    store: Path  # the memory directory checked
    project_root: Path | None  # the project path, when known and present
    location: MemoryLocation | None  # how the project path resolves to a store
    settings_flag: Path | None = None
    managed_file: Path | None = None
    project: object | None = None  # a discovery Project, when the caller has one
    stranded_reason: str | None = None  # why no session loads this store, if none does
    now: float = field(default_factory=time.time)
    # MEMORY.md's text when the caller has read it already (the app's store screen): a
    # 50 MB index is not read, decoded and parsed a second time.
    index_text: str | None = None
    memo: dict = field(default_factory=dict)  # what several checks share, read once

    @cached_property
    def settings(self) -> tuple[SettingsFile, ...]:
        """Claude Code's settings files, highest precedence first."""
        root = self.project_root
        candidates = [
            ("managed", self.managed_file or managed_settings_path()),
            ("flag", self.settings_flag),
            ("local", root / ".claude" / "settings.local.json" if root else None),
            ("project", root / ".claude" / "settings.json" if root else None),
            ("user", self.home / "settings.json"),
        ]
        found = (read_settings_file(scope, path) for scope, path in candidates)
        return tuple(f for f in found if f is not None)

    def setting(self, key: str, *, trusted_only: bool = False) -> tuple[object, SettingsFile] | None:
        """The value Claude Code uses for a setting, and the file it comes from."""
        for file in self.settings:
            if trusted_only and file.scope == "project":
                continue
            if file.data is not None and key in file.data:
                return file.data[key], file
        return None

    @cached_property
    def claude_env(self) -> dict[str, EnvValue]:
        """Claude Code's environment: the `env` objects of the settings files are applied
        over the shell's, the highest file last."""
        merged = {name: EnvValue(value, None) for name, value in self.env.items()}
        for file in reversed(self.settings):
            block = file.data.get("env") if file.data else None
            if isinstance(block, dict):
                for name, value in block.items():
                    if isinstance(name, str) and isinstance(value, str | int | float | bool):
                        text = str(value).lower() if isinstance(value, bool) else str(value)
                        merged[name] = EnvValue(text, file.path)
        return merged

    @property
    def no_store(self) -> str:
        """Why there is no store directory to look into (said by the checks that skip)."""
        if os.path.lexists(self.store):
            return f"{self.store} is not a directory (see memory_dir)"
        return f"{self.store} does not exist yet"

    def memtui(self, *words: str | Path) -> str:
        """A memtui command line for a fix, run as this doctor ran: on the same config home
        and `--settings` file, so that it works when pasted as printed (a config home other
        than ~/.claude is named: the shell it is pasted into may not set CLAUDE_CONFIG_DIR)."""
        import shlex

        options: list[str | Path] = []
        if self.home != paths.config_home({}):
            options += ["--config-dir", self.home]
        if self.settings_flag:
            options += ["--settings", self.settings_flag]
        return shlex.join(["memtui", *map(str, options), *map(str, words)])

    def unset_everywhere(self, name: str) -> str:
        """The fix that takes a variable away from Claude Code: from every settings file's
        `env` block setting it and from the environment (a lower one would take over)."""
        places = [EnvValue(str(file.data["env"][name]), file.path) for file in self.settings
                  if file.data and isinstance(file.data.get("env"), dict)
                  and name in file.data["env"]]
        if self.env.get(name) is not None:
            places.append(EnvValue(self.env[name], None))
        return "; ".join(place.unset(name) for place in places) or f"unset {name}"

    def claude_var(self, name: str) -> EnvValue | None:
        found = self.claude_env.get(name)
        return found if found and found[0] != "" else None

    @cached_property
    def discovered(self):
        """The discovery Project whose store is the one checked (None when none is)."""
        if self.project is not None:
            return self.project
        from tui.claude.discovery import discover

        wanted = os.path.realpath(self.store)
        projects = discover(self.home, self.env, self.settings_flag).projects
        for project in projects:
            if project.store is not None and os.path.realpath(project.store) == wanted:
                return project
        # A folder named as TARGET whose store cannot be determined (its checkout is gone):
        # the project is that folder's sessions.
        folder = os.path.dirname(wanted)
        for project in projects:
            if project.store is None and any(os.path.realpath(path) == folder
                                             for path in project.transcript_dirs):
                return project
        return None

    @cached_property
    def transcript_dirs(self) -> tuple[Path, ...]:
        project = self.discovered
        dirs = tuple(project.transcript_dirs) if project is not None else ()
        cwd = self.cwd_folder
        if cwd is not None and cwd not in dirs:
            dirs += (cwd,)
        return dirs

    @cached_property
    def cwd_folder(self) -> Path | None:
        """The transcript folder of sessions started at the project root, if there is one."""
        if self.project_root is None:
            return None
        projects = paths.projects_dir(self.home)
        name = paths.project_dir_name_override(self.env) or paths.sanitize(
            paths.normalize_path(self.project_root))
        try:
            folder = paths.find_folder(os.listdir(projects), name)
        except OSError:
            return None
        return projects / folder if folder else None

    @cached_property
    def recent_sessions(self) -> tuple[Path, ...]:
        """The newest session transcripts of the project, newest first."""
        from tui.claude.transcripts import UUID_NAME, session_files

        found: list[tuple[float, Path]] = []
        for folder in self.transcript_dirs:
            for file in session_files(folder):
                if not UUID_NAME.match(file.name):
                    continue
                try:
                    found.append((file.stat().st_mtime, file))
                except OSError:
                    continue
        found.sort(reverse=True)
        return tuple(file for _, file in found[:RECENT_SESSIONS])
