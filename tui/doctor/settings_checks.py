"""Checks of Claude Code's own switches: is memory on, which keys are misread, which store."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from tui.claude.files import read_text
from tui.claude.settings import (
    DISABLE_AUTO_MEMORY,
    ENABLED_KEY,
    SETTING_KEY,
    auto_memory_state,
)
from tui.doctor.context import DoctorContext, SettingsFile
from tui.doctor.report import FAIL, OK, WARN, Check

DREAM_KEY = "autoDreamEnabled"
# Keys that guides and habit put in settings.json, which Claude Code does not read.
MISREAD_KEYS = {
    "autoMemory": ENABLED_KEY,
    "autoMemoryEnable": ENABLED_KEY,
    "memoryEnabled": ENABLED_KEY,
    "autoDream": DREAM_KEY,
    "autoDreamEnable": DREAM_KEY,
    "dreamEnabled": DREAM_KEY,
    "autoMemoryDir": SETTING_KEY,
    "autoMemoryPath": SETTING_KEY,
    "memoryDirectory": SETTING_KEY,
    "memoryDir": SETTING_KEY,
}
REMOTE_GATES = ("minHours", "minSessions")
BOOLEAN_KEYS = (ENABLED_KEY, DREAM_KEY)
# Places no memory store belongs: credentials and the system.
SENSITIVE_IN_HOME = (".ssh", ".gnupg", ".aws", ".kube", ".docker", ".config/gcloud", ".azure")
SENSITIVE_SYSTEM = ("/etc", "/usr", "/bin", "/sbin", "/boot", "/System", "/Library",
                    "/private/etc", "/proc", "/sys", "/dev")


def key_line(path: Path, key: str) -> int | None:
    """The 1-based line where `"key":` first appears in a settings file, for the evidence."""
    try:
        text = read_text(path)
    except OSError:
        return None
    match = re.search(rf'"{re.escape(key)}"\s*:', text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def where(file: SettingsFile, key: str) -> str:
    line = key_line(file.path, key)
    return f"{file.path}:{line}" if line else str(file.path)


def check_auto_memory(ctx: DoctorContext) -> Check:
    variable = ctx.claude_var(DISABLE_AUTO_MEMORY)
    files = [(f.path, f.data) for f in ctx.settings]
    state = auto_memory_state(variable.value if variable else None, files)
    if state.decided_by == "env":
        value, source = variable.value, variable.where
        if not state.enabled:
            return Check("auto_memory", FAIL,
                         f"Auto memory is off: {DISABLE_AUTO_MEMORY}={value} is set in {source}, "
                         "and it wins over every setting.", ctx.unset_everywhere(DISABLE_AUTO_MEMORY))
        return Check("auto_memory", OK,
                     f"Auto memory is on: {DISABLE_AUTO_MEMORY}={value} in {source} keeps it on "
                     "whatever the settings say.")
    odd = (f" ({DISABLE_AUTO_MEMORY}={variable.value!r} in {variable.where} is neither a true "
           "nor a false word, so Claude Code ignores it)") if variable else ""
    unset = ctx.unset_everywhere(DISABLE_AUTO_MEMORY) if variable else None
    if state.decided_by == "setting":
        file = next(f for f in ctx.settings if f.path == state.source)
        if not state.enabled:
            return Check("auto_memory", FAIL,
                         f'Auto memory is off: "{ENABLED_KEY}": false in {where(file, ENABLED_KEY)} '
                         f"({file.label}){odd}.",
                         f'set "{ENABLED_KEY}": true in {file.path} (or turn it on with /memory '
                         "in Claude Code)")
        return Check("auto_memory", WARN if odd else OK,
                     f'Auto memory is on: "{ENABLED_KEY}": true in {where(file, ENABLED_KEY)}{odd}.',
                     unset)
    return Check("auto_memory", WARN if odd else OK,
                 f"Auto memory is on (the default: no variable or setting turns it off){odd}.",
                 unset)


def _misread(file: SettingsFile) -> tuple[list[str], list[str]]:
    """(what is wrong, how to fix it) in one settings file."""
    data = file.data or {}
    found: list[str] = []
    fixes: list[str] = []
    for key, read_instead in MISREAD_KEYS.items():
        if key not in data:
            continue
        value = data[key]
        at = where(file, key)
        if isinstance(value, dict) and any(gate in value for gate in REMOTE_GATES):
            found.append(f'"{key}" at {at} is not read by Claude Code (it reads "{read_instead}"; '
                         "minHours and minSessions come from a remote flag, 24 h and 5 sessions "
                         "by default, and no setting changes them)")
        else:
            found.append(f'"{key}" at {at} is not read by Claude Code (it reads "{read_instead}")')
        enabled = value.get("enabled") if isinstance(value, dict) else value
        if read_instead in BOOLEAN_KEYS:
            wanted = "false" if enabled is False else "true"
            fixes.append(f'replace "{key}" with "{read_instead}": {wanted} in {file.path}')
        else:
            fixes.append(f'rename "{key}" to "{read_instead}" in {file.path}')
    for gate in REMOTE_GATES:
        if gate in data:
            found.append(f'"{gate}" at {where(file, gate)} is not a setting: the dream gates come '
                         "from a remote flag (24 h and 5 sessions by default)")
            fixes.append(f'remove "{gate}" from {file.path}')
    for key in BOOLEAN_KEYS:
        if key in data and not isinstance(data[key], bool):
            found.append(f'"{key}" at {where(file, key)} is {data[key]!r}, not true or false')
            fixes.append(f'set "{key}": true (or false, without quotes) in {file.path}')
    if SETTING_KEY in data and not isinstance(data[SETTING_KEY], str):
        found.append(f'"{SETTING_KEY}" at {where(file, SETTING_KEY)} is not a path string')
        fixes.append(f'set "{SETTING_KEY}" to a path such as "~/notes/memory" in {file.path}')
    return found, fixes


def check_settings_keys(ctx: DoctorContext) -> Check:
    problems: list[str] = []
    fixes: list[str] = []
    for file in ctx.settings:
        if file.problem:
            problems.append(f"{file.path} ({file.label}) {file.problem}, so Claude Code reads "
                            "none of its settings")
            fixes.append(f"repair the JSON in {file.path}")
            continue
        found, how = _misread(file)
        problems += found
        fixes += how
    # What Claude Code does with a byte order mark: its JSON reader (safeParseJSON) strips a
    # leading one before JSON.parse, so the file is read whole, as memtui reads it.
    marked = [f"{f.path} starts with a UTF-8 byte order mark, which Claude Code drops before "
              "parsing: the file is read as if the mark were not there"
              for f in ctx.settings if f.bom and f.problem is None]
    if problems:
        return Check("settings_keys", WARN, "; ".join(problems + marked) + ".", "; ".join(fixes))
    read = [f"{f.path}" for f in ctx.settings if f.data is not None]
    where_from = f" (read: {', '.join(read)})" if read else " (there are no settings files)"
    return Check("settings_keys", OK,
                 "No memory setting is misspelled or misplaced" + where_from + "; the dream's "
                 "24 h / 5 sessions gates come from a remote flag, not from settings"
                 + "".join(f"; {note}" for note in marked) + ".")


def _expand(value: str) -> str:
    return str(Path.home()) + value[1:] if value.startswith("~/") else value


def _inside(path: str, folder: str) -> bool:
    path, folder = os.path.normpath(path), os.path.normpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def sensitive_place(path: str) -> str | None:
    """The credentials or system folder a memory path points into, if any."""
    home = str(Path.home())
    for name in SENSITIVE_IN_HOME:
        if _inside(path, os.path.join(home, name)):
            return f"~/{name}"
    for folder in SENSITIVE_SYSTEM:
        if _inside(path, folder):
            return folder
    return None


def _source_text(ctx: DoctorContext) -> tuple[str, str | None]:
    """(where the store comes from, the fix that changes it)."""
    location = ctx.location
    if location is None:
        return "named directly; no existing project path is known for it", None
    if location.source == "env":
        return ("set by CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
                "unset CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
    if location.source == "default":
        return f"the default, keyed by the project root {location.project_root}", None
    file = location.setting_file
    line = key_line(file, SETTING_KEY) if file else None
    return (f"set by \"{SETTING_KEY}\" in {file}{f':{line}' if line else ''}",
            f'remove "{SETTING_KEY}" from {file}')


def _rescue_fix(ctx: DoctorContext, notes: list[str]) -> tuple[bool, str | None]:
    """(whether memories of the stranded store are still lost, the rescue that brings them
    into the store the rescue itself picks, so the two cannot disagree). No fix, and a
    note saying why, when the rescue finds no store, or finds every memory home already."""
    from tui.claude.discovery import live_store
    from tui.memory.rescue import rescue_into

    found = live_store(ctx.store, ctx.home, ctx.env, ctx.settings_flag)
    if found.store is None:
        notes.append(f"a rescue finds no store for its memories: {found.why}")
        return True, None
    rescue = rescue_into(ctx.store, found)
    if rescue.left:  # a rescue carries memories, not text of the index's own
        notes.append(f"every memory of it is in {found.store} already, but "
                     + "; ".join(rescue.left).removesuffix("."))
        return True, None
    if rescue.done:
        held = (f"every memory of it is in {found.store} already" if rescue.memories
                else "it holds no memory")
        notes.append(f"but {held}, so none is lost (the rescue is done: "
                     f"{ctx.memtui('fix', ctx.store, 'retire')} archives it, undo brings it "
                     "back)")
        return False, None
    # The settings file moves the live store: the command is given it too.
    return True, (f"{ctx.memtui('fix', ctx.store, 'rescue')} copies its memories into "
                  f"{found.store} (memtui undo there takes it back)")


def _not_a_directory(ctx: DoctorContext, source: str) -> Check:
    """The memory directory's path is taken by a file (or a symlink to one, or a broken
    one): Claude Code cannot create the directory, so it saves nothing. The fix moves the
    file aside, under a name nothing uses, and never over another file (`mv -n`)."""
    store = str(ctx.store)
    if os.path.islink(store):
        target = os.readlink(store)
        kind = (f"a symlink to a file ({target})" if os.path.exists(store)
                else f"a symlink to {target}, which does not exist")
    else:
        kind = "a regular file" if os.path.isfile(store) else "a special file"
    aside = f"{store}.not-a-directory"
    number = 1
    while os.path.lexists(aside):
        number += 1
        aside = f"{store}.not-a-directory-{number}"
    return Check("memory_dir", FAIL,
                 f"This project's memory directory {store} ({source}) is {kind}, not a "
                 "directory: Claude Code cannot create the directory there, so it saves no "
                 f"memory. Moved aside to {aside}, the file is kept and Claude Code creates the "
                 "directory at its first save.",
                 shlex.join(["mv", "-n", "--", store, aside]))


def check_memory_dir(ctx: DoctorContext) -> Check:
    store = str(ctx.store)
    source, undo = _source_text(ctx)
    if os.path.lexists(store) and not os.path.isdir(store):
        return _not_a_directory(ctx, source)
    exists = os.path.isdir(ctx.store)
    missing = "" if exists else "; it does not exist yet (Claude Code creates it at the first save)"
    status, fix = OK, None
    location = ctx.location
    notes: list[str] = []
    if location is not None and os.path.realpath(location.memory_dir) != os.path.realpath(store):
        message = (f"{store} is not the memory directory of {location.project_root}: its "
                   f"sessions use {location.memory_dir} ({source})")
        status = WARN
        fix = (f"{ctx.memtui('audit', store)} shows what is in it; move what is worth keeping into "
               f"{location.memory_dir}")
        if ctx.stranded_reason:
            notes.append(f"this store is stranded ({ctx.stranded_reason})")
            lost, rescue = _rescue_fix(ctx, notes)
            status, fix = (WARN, rescue or fix) if lost else (OK, None)
    else:
        message = f"This project's memory directory is {store} ({source}){missing}"
        if ctx.stranded_reason:
            notes.append(f"it is stranded: {ctx.stranded_reason}")
            lost, fix = _rescue_fix(ctx, notes) if exists else (True, None)
            status = WARN if lost else OK
    for rejected in location.rejected if location else ():
        notes.append(f"Claude Code refuses {rejected}")
        status = WARN
    untrusted = location.untrusted if location else None
    if untrusted is not None:
        line = key_line(untrusted.source, SETTING_KEY)
        danger = sensitive_place(_expand(untrusted.value))
        notes.append(f'"{SETTING_KEY}": "{untrusted.value}" in the checked-in '
                     f"{untrusted.source}{f':{line}' if line else ''} is ignored by design "
                     "(a repository must not choose where memory is written)"
                     + (f"; it points into {danger}" if danger else ""))
        if danger:
            status, fix = FAIL, f'remove "{SETTING_KEY}" from {untrusted.source}'
        elif status == OK:
            status = WARN
            fix = (f"to use it, move the line to {untrusted.source.parent / 'settings.local.json'}"
                   f" or {ctx.home / 'settings.json'}; else remove it")
    danger = sensitive_place(store)
    if danger:
        notes.append(f"it points into {danger}, where credentials or system files live")
        status, fix = FAIL, undo or f"remove the setting that points memory at {store}"
    elif not _inside(store, str(Path.home())) and not _inside(store, str(ctx.home)):
        notes.append(f"it lies outside your home directory {Path.home()}")
        if status == OK:
            status, fix = WARN, undo
    if notes:
        message += "; " + "; ".join(notes)
    return Check("memory_dir", status, message + ".", fix)
