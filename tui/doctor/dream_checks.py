"""Checks of the automatic dream: its gates and its lock."""

from __future__ import annotations

import os
import re
import stat
from datetime import UTC, datetime
from pathlib import Path

from tui.agents.gates import MIN_HOURS, MIN_SESSIONS, compute_gates
from tui.claude.lock import HOLD_SECONDS, holder_alive, pid_alive, read_lock
from tui.claude.paths import LOCK_NAME
from tui.doctor.context import DoctorContext
from tui.doctor.report import FAIL, OK, SKIP, WARN, Check
from tui.doctor.settings_checks import DREAM_KEY, where
from tui.words import plural

ASSISTANT_KEY = "assistant"  # assistant (KAIROS) mode, which turns the automatic dream off
DAILY_LOG = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")
REMOTE_NOTE = (f"the automatic dream waits for {MIN_HOURS} h and {MIN_SESSIONS} sessions "
               "(defaults; Claude Code can change them remotely)")


def stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


def daily_logs(store: Path) -> list[str]:
    """Assistant-mode daily logs, `logs/YYYY/MM/YYYY-MM-DD.md`, newest first."""
    found: list[str] = []
    try:
        for year in os.scandir(store / "logs"):
            if not (year.is_dir() and year.name.isdigit()):
                continue
            for month in os.scandir(year.path):
                if month.is_dir() and month.name.isdigit():
                    found += [f"logs/{year.name}/{month.name}/{entry.name}"
                              for entry in os.scandir(month.path) if DAILY_LOG.match(entry.name)]
    except OSError:
        pass
    return sorted(found, reverse=True)


def _target(ctx: DoctorContext) -> str:
    return str(ctx.project_root or ctx.store)


def ago(hours: float) -> str:
    """How long ago, in the unit a person reads: "4 min ago", "3.5 h ago"."""
    return f"{hours * 60:.0f} min ago" if hours < 1 else f"{hours:.1f} h ago"


def check_dream_gates(ctx: DoctorContext) -> Check:
    if not os.path.isdir(ctx.store):
        return Check("dream_gates", SKIP, f"{ctx.no_store}: nothing to consolidate.")
    gates = compute_gates(ctx.store, ctx.transcript_dirs, ctx.cwd_folder, ctx.now)
    lock = read_lock(ctx.store)
    if gates.hours_since is None:
        last = "No consolidation yet (no .consolidate-lock), so the time gate is open"
    else:
        last = (f"Last consolidation {stamp(lock.mtime)}, {ago(gates.hours_since)} (the "
                f"mtime of {lock.path})")
    folder = ctx.cwd_folder.name if ctx.cwd_folder else "(no transcript folder for the project root)"
    cwd_count = gates.sessions_cwd or 0
    sessions = (f"{plural(cwd_count, 'session')} since in {folder} (Claude Code counts only the folder "
                f"of the session's own cwd) and {gates.sessions_all} across the project's folders")
    message = f"{last}; {sessions}; {REMOTE_NOTE}"
    # A consolidation inside the time gate, as Claude Code reads it (the lock's mtime): a
    # dream ran a moment ago, so another is no fix, whatever else the check finds.
    recent = gates.hours_since is not None and 0 <= gates.hours_since < MIN_HOURS
    fix = None if recent else ctx.memtui("dream", _target(ctx))
    due = (f"; a dream ran {ago(gates.hours_since)}, so the time gate is shut until "
           f"{stamp((lock.mtime or 0) + MIN_HOURS * 3600)}") if recent else ""

    enabled = ctx.setting(DREAM_KEY)
    if enabled is not None and enabled[0] is False:
        return Check("dream_gates", WARN,
                     f'The automatic dream is off: "{DREAM_KEY}": false in '
                     f"{where(enabled[1], DREAM_KEY)}. {message}.",
                     f'set "{DREAM_KEY}": true in {enabled[1].path}'
                     + (f", or run {fix}" if fix else ""))
    switched = (f' ("{DREAM_KEY}": true in {where(enabled[1], DREAM_KEY)} overrides the '
                "server-side default)") if enabled is not None and enabled[0] is True else ""
    assistant = ctx.setting(ASSISTANT_KEY)
    if assistant is not None and assistant[0] is True:
        file = assistant[1]
        return Check("dream_gates", WARN,
                     f'Assistant mode is on ("{ASSISTANT_KEY}": true in '
                     f"{where(file, ASSISTANT_KEY)}): in assistant mode the automatic dream does "
                     f"not run, a nightly one distills the daily logs{switched}. {message}.",
                     f'set "{ASSISTANT_KEY}": false in {file.path} (assistant mode off: the '
                     "automatic dream runs again)" + (f", or run {fix}" if fix else ""))
    logs = daily_logs(ctx.store)
    if logs:
        held = (f"The store holds assistant-mode daily logs ({logs[0]} and {len(logs) - 1} "
                "more): in assistant mode the automatic dream does not run, a nightly one "
                f"distills the logs{switched}")
        if recent:
            return Check("dream_gates", OK, f"{held}{due}. {message}.")
        return Check("dream_gates", WARN, f"{held}. {message}.", f"{fix}{_distills(ctx)}")
    if gates.hours_since is not None and gates.hours_since < 0:
        return Check("dream_gates", FAIL,
                     f"The lock's mtime {stamp(lock.mtime)} is in the future (a copy with another "
                     f"clock?): the time gate stays shut until {MIN_HOURS} h after it. {message}.",
                     f'touch -d "{MIN_HOURS + 1} hours ago" {lock.path}')
    hours_open = gates.hours_since is None or gates.hours_since >= MIN_HOURS
    if hours_open and cwd_count < MIN_SESSIONS <= gates.sessions_all:
        return Check("dream_gates", WARN,
                     f"{message}: the sessions are spread over several folders (worktrees, "
                     "subdirectories), so the session gate stays shut in each of them"
                     f"{switched}.", fix)
    state = ("both gates are open: the next session in the project starts a dream"
             if hours_open and cwd_count >= MIN_SESSIONS else "the automatic dream is waiting")
    return Check("dream_gates", OK, f"{message}: {state}{switched}{due}.")


def _distills(ctx: DoctorContext) -> str:
    """What a dream run now does with daily logs: only a model distills them."""
    from tui.doctor.access_checks import memtui_config

    config, _ = memtui_config(ctx)
    if config is not None and config.has_credentials:
        return ""
    return (" (with no key memtui dreams offline: it consolidates the store and leaves the "
            "daily logs to a dream with a model, --engine anthropic)")


def check_dream_lock(ctx: DoctorContext) -> Check:
    path = ctx.store / LOCK_NAME
    if not os.path.isdir(ctx.store):
        return Check("dream_lock", SKIP, f"{ctx.no_store}: there is no lock.")
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if not os.access(ctx.store, os.W_OK | os.X_OK):
        return Check("dream_lock", FAIL,
                     f"{ctx.store} is not writable for you, so Claude Code cannot take the lock "
                     "(nor save any memory).", f"chmod u+rwx {ctx.store}")
    if info is None:
        return Check("dream_lock", OK, f"No {LOCK_NAME} in {ctx.store}: no dream has run (or "
                     "the lock was removed); nothing blocks one.")
    if not stat.S_ISREG(info.st_mode):
        kind = "a symlink" if stat.S_ISLNK(info.st_mode) else "not a regular file"
        return Check("dream_lock", FAIL,
                     f"{path} is {kind}: Claude Code cannot take the lock, so no dream runs.",
                     f"rm -r {path}")
    lock = read_lock(ctx.store)
    age = ctx.now - (lock.mtime or 0)
    minutes = age / 60
    when = stamp(lock.mtime or 0)
    if age < -60:
        return Check("dream_lock", FAIL,
                     f"{path} has an mtime in the future ({when}): it counts as a consolidation "
                     "that has not happened yet.", f'touch -d "{MIN_HOURS + 1} hours ago" {path}')
    body = (lock.body or b"").strip()
    if lock.pid is None and body:
        return Check("dream_lock", WARN,
                     f"{path} ({when}, {minutes:.0f} min old) holds no process id "
                     f"({len(body)} bytes that are not a PID).",
                     f"rm {path} (the next session may then dream)")
    if lock.pid is None:
        return Check("dream_lock", OK, f"{path}: last consolidation {when}; no holder.")
    alive = pid_alive(lock.pid)
    if age < HOLD_SECONDS and alive and not holder_alive(lock.pid, lock.mtime or 0):
        return Check("dream_lock", WARN,
                     f"{path} ({when}) names process {lock.pid}, which started after the lock "
                     "was written, so it is not the holder: the dream that took the lock died "
                     "and its process id went to another program. memtui takes the lock as "
                     "free; Claude Code waits until "
                     f"{stamp((lock.mtime or 0) + HOLD_SECONDS)} for it.",
                     f"rm {path} (re-arms the dream for the next session), or "
                     f"{ctx.memtui('dream', _target(ctx))}")
    if age < HOLD_SECONDS and alive:
        return Check("dream_lock", OK,
                     f"A dream holds {path}: process {lock.pid} (running) took it {minutes:.0f} "
                     f"min ago, at {when}; it is free again after 60 minutes at most.")
    if age < HOLD_SECONDS:
        return Check("dream_lock", WARN,
                     f"Stale lock: {path} names process {lock.pid}, which is not running, and is "
                     f"{minutes:.0f} min old ({when}): a dream died or was killed; Claude Code "
                     "reclaims the lock but counts the dead run as a consolidation, so the next "
                     f"automatic dream waits until {stamp((lock.mtime or 0) + MIN_HOURS * 3600)}.",
                     f"rm {path} (re-arms the dream for the next session), or "
                     f"{ctx.memtui('dream', _target(ctx))}")
    state = "still running" if alive else "not running"
    return Check("dream_lock", OK,
                 f"{path}: last consolidation {when} by process {lock.pid} ({state}); "
                 "older than 60 minutes, so the lock is free.")
