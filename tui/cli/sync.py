"""`memtui sync`: memory across machines through a git remote.

    memtui sync [TARGET | --all] [--remote URL] [--dry-run] [--json] [--yes]
    memtui sync --name NAME TARGET     give a store without a git origin its identity
    memtui sync --machine NAME         this machine's name in conflicts (default: hostname)
    memtui sync --print-hooks          a Claude Code hooks snippet: commit on Stop, sync at SessionEnd

`--name` and `--machine` are remembered; given before any remote is set, they are saved
and nothing is synced.

Exit codes: 0 synced (conflicts and blocked files are reported, not failures), 1 the
remote could not be reached or the sync could not finish (one sentence), 2 bad usage.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from contextlib import contextmanager
from pathlib import Path

from tui.cli.support import (
    UsageError,
    config_home_of,
    env_of,
    print_json,
    resolve_store,
    tidy_store,
)
from tui.words import plural

LEFT_ALONE = "not pulled: "  # how the reason of a remote entry sync left alone starts


def memtui_for_hooks() -> str:
    """This memtui as a hook can run it: its script (by name when the PATH finds it), else
    this Python running the package."""
    import shlex
    import shutil

    from tui.cli.support import command_name

    name = command_name()
    if name != "memtui" or shutil.which("memtui"):
        return name
    return f"{shlex.quote(sys.executable)} -m tui"


# Which hook does what, and why it costs a session nothing (printed with the snippet).
HOOKS_NOTE = """\
Stop (after every turn): `watch --once` commits what the turn changed in the project's store
to its journal, on this machine only: no network, under a second.
SessionEnd: `sync --all`, the fetch and push, started in the background (`nohup … &`), so
no session waits for the network; what other machines pushed arrives at the end of each
session, for the next one. Output is dropped, and neither hook's failure (an offline
machine, a project with no memory yet) reaches Claude Code."""


def hooks_snippet() -> str:
    """Claude Code settings: a local journal commit after each turn, and the network sync
    when a session ends, in the background. Output is dropped (a hook's stdout may go into
    Claude's context)."""
    memtui = memtui_for_hooks()
    commit = [{"hooks": [{"type": "command", "timeout": 30,
                          "command": f"{memtui} watch --once >/dev/null 2>&1 || true"}]}]
    sync = [{"hooks": [{"type": "command", "timeout": 10,
                        "command": f"nohup {memtui} sync --all >/dev/null 2>&1 &"}]}]
    return json.dumps({"hooks": {"Stop": commit, "SessionEnd": sync}}, indent=2)


def _targets(args: argparse.Namespace, settings):
    from tui.claude.discovery import discover
    from tui.sync.engine import SyncTarget
    from tui.sync.identity import identity_of

    if args.all:
        inventory = discover(config_home_of(args), env_of(args), args.settings)
        # Projects with sessions but no memory yet are included: what other machines
        # learned for them comes in.
        chosen = [(p.store, p.key_path, p.stranded_reason or None)
                  for p in inventory.projects
                  if p.store is not None and (p.store_exists or (p.sessions and not p.stranded))]
        if not chosen:
            raise UsageError(f"No memory store under {config_home_of(args)} to sync.")
        for store, _, _ in chosen:  # as `resolve_store` does for the one store it names
            tidy_store(Path(store))
    else:
        target = resolve_store(args, args.target)
        chosen = [(target.memory_dir, target.project_path, target.stranded_reason)]
    targets = [SyncTarget(Path(store), identity_of(key, settings.name_of(Path(store)), why))
               for store, key, why in chosen]
    # A project with no memory yet is worth listing only when it can receive some.
    targets = [t for t in targets if t.store.is_dir() or t.identity.key is not None]
    if not targets:
        raise UsageError(f"There is no memory directory at {chosen[0][0]} yet, and no name "
                         "to find its memory on the remote by (no git origin; give one with "
                         "--name NAME).")
    return targets


def cmd_sync(args: argparse.Namespace) -> int:
    if args.print_hooks:
        print(hooks_snippet())  # stdout: the JSON alone, to paste or pipe
        print(HOOKS_NOTE, file=sys.stderr)
        return 0
    if args.all and args.target:
        raise UsageError("Give either a TARGET or --all, not both.")
    from tui.sync.settings import SettingsError, load_settings, save_settings

    try:
        settings = load_settings()
    except SettingsError as error:
        raise UsageError(str(error)) from None
    given = []
    if args.name is not None:
        given.append(_give_name(args, settings))
    if args.machine is not None:
        given.append(_give_machine(args, settings))
    if given and not args.dry_run:
        try:
            save_settings(settings)
        except SettingsError as error:
            raise UsageError(str(error)) from None
    remote = args.remote or settings.remote
    if not remote and given:
        print(f"{' '.join(given)} No sync remote yet: the first `memtui sync --remote URL` "
              "syncs.")
        return 0
    if not remote:
        raise UsageError("No sync remote yet: give one with --remote URL (a bare repository "
                         "path, or an ssh or https URL); memtui remembers it.")
    targets = _targets(args, settings)
    from tui.sync.engine import SyncFailed, sync
    from tui.sync.remote import RemoteUnreachable, SyncBusy
    from tui.sync.settings import default_machine

    try:
        with _ended_by_sigterm():
            report = sync(remote, targets, dry_run=args.dry_run, accept_cut=args.yes,
                          machine=settings.machine or default_machine())
    except (RemoteUnreachable, SyncFailed, SyncBusy) as error:
        print(f"memtui: {error}", file=sys.stderr)
        return 1
    if args.remote and args.remote != settings.remote and not args.dry_run:
        settings.remote = args.remote
        try:
            save_settings(settings)
        except SettingsError as error:
            print(f"memtui: {error}", file=sys.stderr)
    if args.json:
        print_json(report.to_json())
    else:
        _print_report(report)
    return 0


@contextmanager
def _ended_by_sigterm():
    """SIGTERM (a hook's timeout, `kill`) ends the sync as Ctrl-C does: through its
    cleanup, so the git it runs ends with it."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread takes signals
        return

    def stop(signum, frame):
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _checked_name(name: str, what: str) -> str:
    from tui.memory.secrets import find_secrets
    from tui.sync.identity import valid_name

    if not valid_name(name):
        raise UsageError(f"{name!r} cannot name {what}: use letters, digits, '.', '_' "
                         "and '-' (at most 100).")
    if next(find_secrets(name), None) is not None:
        raise UsageError(f"That name looks like a secret, and it would be pushed; give {what} "
                         "another.")
    return name


def _give_name(args: argparse.Namespace, settings) -> str:
    """Give TARGET's store its name on the remote; the sentence saying so."""
    if args.all or not args.target:
        raise UsageError("--name NAME needs the one TARGET it names.")
    name = _checked_name(args.name, "a store")
    store = resolve_store(args, args.target).memory_dir
    settings.give_name(store, name)
    return f"{store} is {name} on the remote."


def _give_machine(args: argparse.Namespace, settings) -> str:
    """Name this machine in sync conflicts; the sentence saying so."""
    settings.machine = _checked_name(args.machine, "this machine")
    return f"This machine is {settings.machine} in sync conflicts."


def _files(files: list[str]) -> str:
    shown = ", ".join(files[:5])
    return shown + (f" and {len(files) - 5} more" if len(files) > 5 else "")


def _merge_command(store: Path, files: list[str]) -> str:
    """The command that resolves the first file, ready to paste."""
    import shlex

    from tui.cli.support import command_name

    command = (f"`{command_name()} merge {shlex.quote(str(store / files[0]))} "
               "--keep first|second|both`")
    return command + (" (likewise for the others)" if len(files) > 1 else "")


def _print_report(report) -> None:
    verb = "would be " if report.dry_run else ""
    print(f"Remote: {report.remote}" + (" (dry run: nothing written or pushed)" if report.dry_run else ""))
    for project in report.projects:
        name = project.identity or str(project.store)
        if project.skipped:
            print(f"  {name}: {project.skipped}")
            continue
        parts = []
        pulled, pushed = project.pulled_texts, project.pushed_texts
        if pulled:
            parts.append(f"{len(pulled)} {verb}pulled ({_files(pulled)})")
        if project.pulled_deletions:
            parts.append(f"{len(project.pulled_deletions)} {verb}deleted here, as on the remote "
                         f"({_files(project.pulled_deletions)})")
        if pushed:
            parts.append(f"{len(pushed)} {verb}pushed ({_files(pushed)})")
        if project.pushed_deletions:
            parts.append(f"{len(project.pushed_deletions)} {verb}deleted on the remote "
                         f"({_files(project.pushed_deletions)})")
        if project.conflicts:
            parts.append(f"{plural(len(project.conflicts), 'conflict')}, both texts kept in "
                         f"{_files(project.conflicts)}: keep one with "
                         f"{_merge_command(project.store, project.conflicts)} or K in the app")
            if not report.dry_run and (machine := _shared_machine_name(project)):
                parts.append(f"the other machine is called {machine} too: give this one its "
                             "own name with `memtui sync --machine NAME`")
        if project.arrived_past_cut:
            arrived = project.arrived_past_cut
            came = "would come" if report.dry_run else "came"
            parts.append(f"{plural(len(arrived), 'memory', 'memories')} {came} in past "
                         f"the loaded cut, where Claude does not see "
                         f"{'it' if len(arrived) == 1 else 'them'} ({_files(arrived)}): make "
                         "room in the index (`memtui audit` lists them as beyond_cut)")
        parts += _blocked_parts(project.blocked)
        if project.unresolved and not project.conflicts:
            holds = "holds" if len(project.unresolved) == 1 else "hold"
            parts.append(f"{_files(project.unresolved)} still {holds} both texts of a conflict "
                         f"({_merge_command(project.store, project.unresolved)}, or K in the app)")
        print(f"  {name}: {'; '.join(parts) if parts else 'in sync'}")


def _shared_machine_name(project) -> str | None:
    """The machine name both sides of a conflict carry (two machines left with one
    hostname, `vm`, `localhost`), read from the first conflicted file."""
    from tui.memory.conflicts import find_conflicts

    try:
        text = (project.store / project.conflicts[0]).read_bytes().decode("utf-8", "replace")
    except OSError:
        return None
    return next((conflict.machine for conflict in find_conflicts(text)
                 if conflict.other.rsplit(", ", 1)[0] == conflict.machine), None)


def _blocked_parts(blocked: list[dict[str, str]]) -> list[str]:
    """What did not travel: each file kept here on its own, what was left alone in one."""
    parts = [f"{item['file']} blocked: {item['reason']}" for item in blocked
             if not item["reason"].startswith(LEFT_ALONE)]
    alone = [f"{item['file']} ({item['reason'].removeprefix(LEFT_ALONE)})" for item in blocked
             if item["reason"].startswith(LEFT_ALONE)]
    if alone:
        parts.append(f"{len(alone)} remote entr{'y' if len(alone) == 1 else 'ies'} not pulled "
                     f"and left as they are: {_files(alone)}")
    return parts


def add_sync_command(commands) -> None:
    sync = commands.add_parser("sync", help="sync memory with other machines through a git remote")
    sync.add_argument("target", nargs="?", help="memory dir, project path or folder name "
                                                "(default: the current directory)")
    sync.add_argument("--all", action="store_true", help="every store under the config home")
    sync.add_argument("--remote", metavar="URL",
                      help="the git remote (bare repository path, ssh or https); remembered")
    sync.add_argument("--name", metavar="NAME",
                      help="the identity of TARGET on the remote, for a store without git origin")
    sync.add_argument("--machine", metavar="NAME",
                      help="this machine's name in sync conflicts (default: the hostname); "
                           "remembered")
    sync.add_argument("--dry-run", action="store_true", help="show what would move, change nothing")
    sync.add_argument("--json", action="store_true", help="machine-readable output")
    sync.add_argument("--yes", action="store_true",
                      help="accept a merged index that leaves entries past the loaded cut")
    sync.add_argument("--print-hooks", action="store_true",
                      help="print a Claude Code settings snippet that syncs on every session")
    sync.set_defaults(run=cmd_sync)
