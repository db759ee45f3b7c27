"""Which memory directory a project uses, resolved in Claude Code's order.

1. `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE` (used as is, no `~/` expansion);
2. `autoMemoryDirectory` from managed settings, the `--settings` file, the project's
   `.claude/settings.local.json`, then the user's `settings.json` (`~/` expanded);
3. `<CLAUDE_CODE_REMOTE_MEMORY_DIR or config home>/projects/<sanitized root>/memory/`.

A path of 1. or 2. is refused when relative, shorter than 3 characters, a bare drive root,
a UNC path or holding a NUL (a setting's bare `~`, `~/`, `~/.`, `~/..` too); a refused
variable leaves the choice to 2., a refused setting to 3. (the first file setting the key
decides, as in Claude Code v2.1.88's getAutoMemPathSetting). A value in the checked-in
`.claude/settings.json` is never followed: it is reported.
Settings files are only ever read.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from tui.claude import paths
from tui.claude.files import read_regular
from tui.claude.gitroot import canonical_project_root

SETTING_KEY = "autoMemoryDirectory"
OVERRIDE_VARIABLE = "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"
SETTINGS_LIMIT = 16 << 20  # a settings file past this is no settings file

LINUX_MANAGED_SETTINGS = Path("/etc/claude-code/managed-settings.json")
MACOS_MANAGED_SETTINGS = Path("/Library/Application Support/ClaudeCode/managed-settings.json")


def managed_settings_path() -> Path:
    return MACOS_MANAGED_SETTINGS if sys.platform == "darwin" else LINUX_MANAGED_SETTINGS


class SettingValue(NamedTuple):
    value: str
    source: Path


class MemoryLocation(NamedTuple):
    """Where a project's memory lives and why."""

    memory_dir: Path
    source: str  # "env", "managed", "flag", "local", "user", "default"
    project_root: Path
    setting_file: Path | None = None
    rejected: tuple[str, ...] = ()  # candidate values refused by validation, with reasons
    untrusted: SettingValue | None = None  # a value in the checked-in project settings


_DRIVE_ROOT = re.compile(r"^[A-Za-z]:[\\/]?$")


def rejection_reason(candidate: str, expand_home: bool = True) -> str | None:
    """Why Claude Code would refuse this memory path, or None when it is acceptable.
    `expand_home`: a setting's `~/` is the home directory; the variable's is not expanded,
    so it is a relative path."""
    if "\0" in candidate:
        return "contains a NUL byte"
    if expand_home and candidate in {"~", "~/", "~/.", "~/.."}:
        return "is the home directory itself"
    if candidate.startswith(("\\\\", "//")):
        return "is a UNC path"
    if _DRIVE_ROOT.match(candidate):
        return "is a bare drive root"
    expanded = candidate
    if expand_home and candidate.startswith("~/"):
        expanded = str(Path.home()) + candidate[1:]
    if not (os.path.isabs(expanded) or re.match(r"^[A-Za-z]:[\\/]", expanded)):
        return "is relative"
    if len(expanded) < 3:
        return "is shorter than 3 characters"
    return None


BOM = "\ufeff"


def parse_settings(data: bytes) -> object:
    """A settings file's JSON as Claude Code parses it: a leading UTF-8 byte order mark is
    dropped first (its safeParseJSON strips one before JSON.parse, which would reject it),
    so such a file is read whole. UnicodeDecodeError or ValueError (RecursionError when
    nested past any setting) when it is no JSON."""
    return json.loads(data.decode("utf-8").removeprefix(BOM))


def read_settings(path: Path) -> dict | None:
    """A settings file's object; absent, unreadable, not a file, or malformed -> None."""
    try:
        data = parse_settings(read_regular(path, SETTINGS_LIMIT))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def read_setting(path: Path) -> str | None:
    """`autoMemoryDirectory` from a settings file; absent, unreadable or malformed -> None."""
    data = read_settings(path)
    if data is None:
        return None
    value = data.get(SETTING_KEY)
    return paths.as_written(value) if isinstance(value, str) and value else None


def _expand_home(value: str) -> str:
    if value.startswith("~/"):
        return str(Path.home()) + value[1:]
    return value


def default_memory_dir(project_root: Path, home: Path, env: Mapping[str, str]) -> Path:
    base = Path(env["CLAUDE_CODE_REMOTE_MEMORY_DIR"]) if env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR") else home
    folder = paths.project_dir_name_override(env) or paths.sanitize(str(project_root))
    projects = paths.projects_dir(base)
    if len(folder) > paths.MAX_FOLDER_NAME:
        try:
            existing = paths.find_folder(os.listdir(projects), folder)
        except OSError:
            existing = None
        folder = existing or folder
    return projects / folder / paths.MEMORY_DIR_NAME


def resolve_memory_location(
    cwd: str | os.PathLike[str],
    *,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    settings_file: Path | None = None,
    managed_file: Path | None = None,
    read: Callable[[Path], str | None] | None = None,
    normalize: Callable[[str], str] | None = None,
) -> MemoryLocation:
    """Resolve the store a session started in `cwd` reads and writes.

    `read` reads a settings file's `autoMemoryDirectory` (default `read_setting`) and
    `normalize` makes the realpath (default `paths.normalize_path`): a caller resolving
    many cwds passes ones that do each file and folder once."""
    env = os.environ if env is None else env
    home = paths.config_home(env) if home is None else home
    project_root = canonical_project_root((normalize or paths.normalize_path)(cwd))
    return root_memory_location(project_root, home=home, env=env, settings_file=settings_file,
                                managed_file=managed_file, read=read)


def root_memory_location(
    project_root: Path,
    *,
    home: Path,
    env: Mapping[str, str],
    settings_file: Path | None = None,
    managed_file: Path | None = None,
    read: Callable[[Path], str | None] | None = None,
) -> MemoryLocation:
    """`resolve_memory_location` past the canonical root: the same for every cwd of it."""
    read = read or read_setting
    project_settings = project_root / ".claude"
    shared_file = project_settings / "settings.json"
    untrusted_value = read(shared_file)
    untrusted = SettingValue(untrusted_value, shared_file) if untrusted_value else None

    rejected: list[str] = []
    override = env.get(OVERRIDE_VARIABLE)
    if override:
        reason = rejection_reason(override, expand_home=False)
        if reason is None:
            return MemoryLocation(Path(override), "env", project_root, untrusted=untrusted)
        rejected.append(f"{OVERRIDE_VARIABLE} {override!r} {reason}")

    candidates = [
        ("managed", managed_file or managed_settings_path()),
        ("flag", settings_file),
        ("local", project_settings / "settings.local.json"),
        ("user", home / "settings.json"),
    ]
    for source, file in candidates:
        if file is None:
            continue
        value = read(file)
        if value is None:
            continue
        reason = rejection_reason(value)
        if reason:
            # Claude Code takes the first file setting the key, then checks it: a refused
            # value means the default, not the next file's value.
            rejected.append(f"{SETTING_KEY} {value!r} in {file} {reason}")
            break
        return MemoryLocation(
            Path(_expand_home(value)), source, project_root, file, tuple(rejected), untrusted
        )
    return MemoryLocation(
        default_memory_dir(project_root, home, env),
        "default",
        project_root,
        rejected=tuple(rejected),
        untrusted=untrusted,
    )


ENV_TRUE = frozenset({"1", "true", "yes", "on"})
ENV_FALSE = frozenset({"0", "false", "no", "off"})
DISABLE_AUTO_MEMORY = "CLAUDE_CODE_DISABLE_AUTO_MEMORY"
ENABLED_KEY = "autoMemoryEnabled"


def env_switch(value: str | None) -> bool | None:
    """An on/off variable as Claude Code reads it: True for a true word, False for a false
    word, None when unset or neither (then the next rule decides)."""
    word = (value or "").strip().lower()
    if word in ENV_TRUE:
        return True
    if word in ENV_FALSE:
        return False
    return None


class AutoMemory(NamedTuple):
    """Whether Claude Code writes auto-memory, and which rule decided it."""

    enabled: bool
    decided_by: str  # "env", "setting" or "default"
    source: Path | None = None  # the settings file, when a setting decided


def auto_memory_state(flag: str | None,
                      settings: Iterable[tuple[Path, Mapping | None]]) -> AutoMemory:
    """The variable wins, then the first settings file (highest precedence first) holding
    `autoMemoryEnabled` as a boolean; default on."""
    switch = env_switch(flag)
    if switch is not None:
        return AutoMemory(not switch, "env")
    for path, data in settings:
        value = data.get(ENABLED_KEY) if data is not None else None
        if isinstance(value, bool):
            return AutoMemory(value, "setting", path)
    return AutoMemory(True, "default")


def auto_memory_enabled(env: Mapping[str, str], user_settings: Path) -> bool:
    """Whether Claude Code writes auto-memory at all (env wins over the setting)."""
    return auto_memory_state(
        env.get(DISABLE_AUTO_MEMORY), [(user_settings, read_settings(user_settings))]).enabled
