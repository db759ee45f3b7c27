"""`memtui gc [TARGET|--all] [--dry-run] [--json] [--kept]`: trim memtui's own backups.

A store's undo log and backup copies are trimmed by the retention policy (`[backups]` in
config.toml: `keep_changes`, `keep_days`; see `tui.memory.retention`); then memtui's disk
use per kind is shown. The journal is never trimmed: it is the long-term history.
Exit 0, or 2 on bad usage or a store that could not be trimmed.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from tui.cli.support import UsageError, print_json, resolve_store
from tui.words import plural

NO_STORE = "no undo log here names the store these backups are of, so they were left alone"


def _backup_folders() -> list[Path]:
    """One folder per store memtui keeps backups of, named by the store's key."""
    from tui.disk_use import kind_dirs

    folder = kind_dirs()["backups"]
    try:
        return sorted(entry for entry in folder.iterdir() if entry.is_dir() and not entry.is_symlink())
    except FileNotFoundError:
        return []
    except OSError as error:
        raise UsageError(f"{folder} cannot be read ({error.strerror or error}).") from None


def _every_store() -> list[tuple[Path, str | None]]:
    """(store, why it cannot be trimmed or None) for every store memtui keeps backups of."""
    from tui.memory.trim import logged_store

    found = []
    for key in _backup_folders():
        store = logged_store(key)
        found.append((key, NO_STORE) if store is None else (store, None))
    return found


def _target_store(args: argparse.Namespace) -> Path:
    """The store TARGET names; one whose folder is gone by the path or folder name it had,
    when memtui still keeps backups of it (they are on disk until gc trims them)."""
    try:
        return resolve_store(args, args.target).memory_dir
    except UsageError:
        gone = _gone_store(args.target)
        if gone is None:
            raise
        return gone


def _gone_store(target: str | None) -> Path | None:
    from tui import xdg
    from tui.claude import paths
    from tui.memory.trim import logged_store

    if not target:
        return None
    folders = {folder.name: folder for folder in _backup_folders()}
    if os.sep not in target and "/" not in target:
        names = [target]
    else:
        path = Path(os.path.expanduser(target))  # a memory dir, or a deleted project's path
        names = [xdg.store_key(path), paths.sanitize(paths.normalize_path(path))]
    for name in names:
        key = paths.find_folder(folders, name)
        if key is not None:
            return logged_store(folders[key])
    return None


def cmd_gc(args: argparse.Namespace) -> int:
    from tui.config import ConfigError, config_file
    from tui.disk_use import disk_use, use_in_words
    from tui.memory.refusals import WriteRefused
    from tui.memory.retention import retention_policy
    from tui.memory.trim import TrimResult, trim_store

    if args.all and args.target:
        raise UsageError("Give a TARGET or --all, not both.")
    try:
        policy = retention_policy()
    except ConfigError as error:
        raise UsageError(f"{error} Nothing was trimmed.") from None
    stores = _every_store() if args.all else [(_target_store(args), None)]
    results: list[TrimResult] = []
    for store, problem in stores:
        if problem is None:
            try:
                results.append(trim_store(store, policy, include_kept=args.kept,
                                          dry_run=args.dry_run))
                continue
            except WriteRefused as error:
                problem = str(error)
            except OSError as error:
                problem = f"it could not be trimmed ({error.strerror or error})"
        if not args.all:
            raise UsageError(f"{store}: {problem}")
        results.append(TrimResult(store, 0, 0, 0, 0, 0, 0, skipped=problem))
    use = disk_use()
    if args.json:
        print_json({"dry_run": args.dry_run, "policy": policy.to_json(),
                    "stores": [result.to_json() for result in results],
                    "freed_bytes": sum(result.freed for result in results),
                    "disk_use": use})
        return 0
    for result in results:
        print(result_line(result, args.dry_run, args.kept))
    if args.all and not results:
        print("memtui keeps no backups yet.")
    print(f"Policy: per store, keep {policy.in_words()} (set in [backups] of {config_file()}).")
    print(f"memtui's own files{' now' if not args.dry_run else ''}: {use_in_words(use)}.")
    return 0


def result_line(result, dry_run: bool, include_kept: bool) -> str:
    from tui.disk_use import human_bytes

    if result.skipped:
        return f"{result.store}: {result.skipped}."
    kept = ""
    if result.kept_removed:
        kept += (f" {'Would remove' if dry_run else 'Removed'} "
                 f"{plural(result.kept_removed, 'copy', 'copies')} recovery kept of outside "
                 "writes.")
    if result.kept_copies:
        hint = "" if include_kept else "; --kept removes those past the policy"
        kept += (f" {plural(result.kept_copies, 'copy', 'copies')} recovery kept of outside "
                 f"writes ({human_bytes(result.kept_bytes)}) "
                 f"{'stays' if result.kept_copies == 1 else 'stay'}{hint}.")
    if not result.pruned and not result.folders:
        why = (f"{plural(result.changes, 'change')} in the undo log, all within the policy"
               if result.changes else "memtui has made no change to it")
        return f"{result.store}: nothing to trim ({why}).{kept}"
    what = (f"{result.pruned} of {plural(result.changes, 'change')} and "
            f"{plural(result.folders, 'backup folder')}")
    if dry_run:
        return f"{result.store}: would trim {what}, freeing {human_bytes(result.freed)}.{kept}"
    return f"{result.store}: trimmed {what}, freed {human_bytes(result.freed)}.{kept}"


def add_gc_command(commands) -> None:
    gc = commands.add_parser(
        "gc", help="trim memtui's own backups by the retention policy, and show its disk use")
    gc.add_argument("target", nargs="?",
                    help="memory dir, project path, project name or folder name (default: the current directory)")
    gc.add_argument("--all", action="store_true", help="every store memtui keeps backups of")
    gc.add_argument("--dry-run", action="store_true", help="say what would go, write nothing")
    gc.add_argument("--json", action="store_true", help="machine-readable output")
    gc.add_argument("--kept", action="store_true",
                    help="also remove the copies of outside writes recovery kept, once past "
                         "the policy (by default they stay)")
    gc.set_defaults(run=cmd_gc)
