"""`memtui hook session-start`: what the plugin's SessionStart hook runs.

Claude Code runs it at the start of every session and adds what it prints to the session's
context. It prints one line when the project's memory has something Claude cannot see or
read, and nothing at all when memory is well: a hook that talks every session is noise the
user pays for in context. It reads, never writes, and never fails a session: a problem of
its own goes to stderr (Claude Code's debug log) with exit 0.
"""

from __future__ import annotations

import argparse
import json
import sys

from tui.cli.support import UsageError, and_list, command_name, existing_store
from tui.words import plural

# Long enough for any real hook input; a stream that never ends cannot hold the hook up.
_MAX_INPUT = 1 << 20


def session_start_line(args: argparse.Namespace, cwd: str | None) -> str | None:
    """The one line for the session in `cwd`, or None when its memory is well."""
    from tui.memory.audit import memory_statuses, orphan_files
    from tui.memory.store import load_store

    try:
        target = existing_store(args, cwd, stranded=False)
    except UsageError:
        return None  # no memory for this project yet: nothing Claude misses
    store = load_store(target.memory_dir, head_only=True)
    statuses = memory_statuses(store)
    orphans = orphan_files(store, statuses)
    past_cut = sum(1 for file in orphans if statuses[file].indexed)
    where = [f"{past_cut:,} past the loaded cut" if past_cut else "",
             f"{len(orphans) - past_cut:,} in no index line" if len(orphans) > past_cut else ""]
    problems = []
    if orphans:
        problems.append(f"does not see {plural(len(orphans), 'memory', 'memories')} of this "
                        f"project ({and_list([w for w in where if w])})")
    if unreadable := sum(1 for memory in store.memories if memory.error):
        problems.append(f"cannot read {plural(unreadable, 'memory file')}")
    if store.index_error:
        problems.append("cannot read its index")
    if not problems:
        return None
    return f"memory: Claude {and_list(problems)}: run `{command_name()}` to see and repair it."


def _hook_input() -> dict:
    """Claude Code's hook input from stdin; {} when there is none (run by hand)."""
    if sys.stdin is None or sys.stdin.isatty():
        return {}
    try:
        data = json.loads(sys.stdin.read(_MAX_INPUT) or "{}")
    except (ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def cmd_session_start(args: argparse.Namespace) -> int:
    cwd = _hook_input().get("cwd")
    try:
        line = session_start_line(args, cwd if isinstance(cwd, str) and cwd else None)
    except Exception as error:  # a hook never fails the session it starts
        print(f"memtui: the session check did not run ({error})", file=sys.stderr)
        return 0
    if line:
        print(line)
    return 0


def add_hook_command(commands) -> None:
    hook = commands.add_parser(
        "hook", help="what the Claude Code plugin's hooks run (see README)",
        description="What the Claude Code plugin's hooks run. `session-start` reads the hook "
                    "input on stdin and prints one line when the session's project has "
                    "memories Claude cannot see or read, nothing when all is well.")
    hook.add_argument("event", choices=["session-start"],
                      help="session-start: one line when memory needs a look")
    hook.set_defaults(run=cmd_session_start)
