"""The history commands of `memtui`: watch, history, restore, merge, overwrites.

    memtui watch [TARGET | --all]            commit every change of the stores to the journal
    memtui history backfill [TARGET]         rebuild file histories from the transcripts
    memtui history FILE [--json]             every version of one memory file
    memtui restore FILE --version REV        put a version back (through the safe write)
    memtui merge FILE [--dry-run]            restore the lines the lost updates dropped
    memtui merge FILE --keep first|second|both   resolve a conflict `memtui sync` left
    memtui overwrites [TARGET] [--json]      every lost update of a store
"""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from tui.claude import paths
from tui.claude.lines import lines_with_endings
from tui.claude.memory_files import TEAM_FOLDER
from tui.cli.support import (
    UsageError,
    config_home_of,
    confirmed,
    env_of,
    existing_store,
    print_json,
    resolve_store,
    undo_command,
)
from tui.words import plural

TARGET_HELP = "memory dir, project path, project name or folder name (default: the current directory)"


# These commands need only the store: not whether it is stranded (a read of its transcripts).
def _store(args: argparse.Namespace, target: str | None) -> Path:
    return resolve_store(args, target, stranded=False).memory_dir


def _existing_store(args: argparse.Namespace, target: str | None) -> Path:
    return existing_store(args, target, stranded=False).memory_dir


def file_in_store(args: argparse.Namespace, name: str) -> tuple[Path, str]:
    """(store, store-relative path) for a memory file given as a path, or by its name in
    the store of the current directory's project (as `memtui audit` prints it there)."""
    path = Path(name).expanduser().absolute()

    def holds_memory(folder: Path) -> bool:
        return folder.name == paths.MEMORY_DIR_NAME or (folder / paths.INDEX_NAME).is_file()

    if path.is_dir() and holds_memory(path):
        raise UsageError(f"{name} is the memory directory itself; give the path of a memory "
                         "file in it.")
    for parent in path.parents:
        if parent.name == TEAM_FOLDER and holds_memory(parent.parent):
            continue  # team memory: its own index, but part of the store above
        if holds_memory(parent):
            if not parent.is_dir():
                break
            return parent, path.relative_to(parent).as_posix()
    if not Path(name).is_absolute() and ".." not in Path(name).parts:
        try:
            store = _existing_store(args, None)
        except UsageError:
            store = None
        # As `memtui audit` prints it, or as the app shows it (without .md).
        for file in (name, f"{name}.md") if not name.endswith(".md") else (name,):
            if store is not None and (store / file).is_file():
                return store, Path(file).as_posix()
    raise UsageError(f"{name} is not inside a memory directory, nor a memory of this "
                     "project's store; give the path of a memory file.")


@contextmanager
def _journal_errors(store: Path):
    """A journal that cannot be read or written is one sentence (exit 2), not a traceback
    (a damaged one is moved aside and started again on the way: `use_journal`)."""
    try:
        yield
    except Exception as error:
        # git's errors can only come once git is imported: never import it just to ask.
        git, gitdb = sys.modules.get("git"), sys.modules.get("gitdb.exc")
        journal = sys.modules.get("tui.history.journal")
        if journal and isinstance(error, journal.JournalError):
            raise UsageError(str(error)) from None
        if journal and (git and isinstance(error, git.GitError)
                        or gitdb and isinstance(error, gitdb.ODBError)):
            raise UsageError(journal.damaged(store, error)) from None
        raise


def _local(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))


def _local_iso(recorded: str) -> str:
    """A transcript's ISO-8601 UTC time as `history` prints times (as recorded if it is
    none)."""
    from tui.history.writes_log import parse_time

    stamp = parse_time(recorded)
    return _local(stamp) if stamp else recorded


def _short(session: str | None) -> str:
    return session[:8] if session else "-"


# --- watch --------------------------------------------------------------------------------


def cmd_watch(args: argparse.Namespace) -> int:
    import signal
    import threading

    from tui.history.watch import transcript_attributor, watch
    from tui.visible import one_line

    if args.all and args.target:
        raise UsageError("Give a TARGET or --all, not both.")
    find_stores = None
    if args.all:
        from tui.claude.discovery import discover

        def find_stores() -> list[Path]:
            inventory = discover(config_home_of(args), env_of(args), args.settings)
            return [p.store for p in inventory.projects if p.store is not None and p.store_exists]

        stores = find_stores()
        if not stores:
            raise UsageError(f"No memory store under {paths.projects_dir(config_home_of(args))} to watch.")
    else:
        stores = [_store(args, args.target)]
    stop = threading.Event()
    commits = 0

    def report(event) -> None:
        nonlocal commits
        commits += event.rev is not None
        print(one_line(event.note), flush=True)  # a file name may hold a newline

    attribute = transcript_attributor(config_home_of(args), env_of(args))
    if args.once:
        from tui.history.watch import StoreWatcher

        for store in stores:
            print(one_line(StoreWatcher(store, attribute).start().note), flush=True)
        return 0
    # Ctrl-C, `kill -INT` and a SIGTERM (a service manager, `kill`) stop it: said, exit 0.
    # SIGINT is taken explicitly: a shell starts background jobs with it ignored, and
    # Python then never raises KeyboardInterrupt.
    stopping = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.signal(sig, signal.default_int_handler) for sig in stopping}
    try:
        watch(stores, stop, report, interval=args.interval, attribute=attribute, find_stores=find_stores)
    except KeyboardInterrupt:
        stop.set()
        print(f"memtui: stopped watching; {plural(commits, 'snapshot')} committed.")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


# --- history ------------------------------------------------------------------------------


def cmd_history(args: argparse.Namespace) -> int:
    if args.file == "backfill":
        return _backfill(args)
    if args.target is not None:
        raise UsageError("`memtui history FILE` takes one file; did you mean `history backfill TARGET`?")
    from tui.history.backfill import backfill
    from tui.history.journal import use_journal
    from tui.history.writes_log import store_events

    def versions_of(journal) -> tuple[list, int]:
        journal.snapshot("changes found by memtui history", source="external")
        # As the app's history screen does: the versions the transcripts hold are rebuilt
        # first (the scan cache reads only what transcripts grew since the last time).
        rebuilt = backfill(journal, events).written
        return journal.versions(file), rebuilt

    store, file = file_in_store(args, args.file)
    events = store_events(store, config_home_of(args), env_of(args))
    with _journal_errors(store):
        versions, rebuilt = use_journal(store, versions_of)
    if args.json:
        print_json([
            {"rev": v.rev, "branch": v.ref, "time": v.time, "source": v.source,
             "session": v.session or None, "cwd": v.cwd or None, "git_branch": v.branch or None,
             "message": v.subject, "exists": v.blob is not None,
             "agent": v.trailers.get("Agent") or None}
            for v in versions
        ])
        return 0
    if rebuilt:
        print(f"Rebuilt {plural(rebuilt, 'version')} of this store's files from the transcripts "
              "into the journal first.")
    if not versions:
        print(f"No version of {file} in the journal or the transcripts.")
        return 0
    where = max(len("working directory"), *(len(v.cwd or "-") for v in versions))
    print(f"{'version':10}  {'time':19}  {'by':9} {'session':8}  {'working directory':{where}}  what")
    for v in versions:
        state = "" if v.blob else "  (deleted)"
        print(f"{v.rev[:10]}  {_local(v.time)}  {v.source or '-':9} {_short(v.session):8}  "
              f"{v.cwd or '-':{where}}  {v.subject}{state}")
    return 0


def _backfill(args: argparse.Namespace) -> int:
    from tui.history.backfill import backfill
    from tui.history.journal import use_journal
    from tui.history.writes_log import store_events

    store = _existing_store(args, args.target)
    events = store_events(store, config_home_of(args), env_of(args))
    with _journal_errors(store):
        journal, result = use_journal(store, lambda journal: (journal, backfill(journal, events)))
    files = len({e.file for e in events if e.kind != "saved"})
    if args.json:
        print_json({"store": str(store), "journal": str(journal.path), "versions": result.planned,
                     "new_commits": result.written, "rebuilt": result.rebuilt, "files": files})
        return 0
    if not result.planned:
        print("The transcripts record no write to this store's memory files; nothing to backfill.")
    elif not result.written:
        print(f"Journal already holds all {result.planned} versions the transcripts record.")
    else:
        print(f"Backfilled {plural(result.planned, 'version')} of {plural(files, 'file')} from the "
              f"transcripts ({result.written} new commits) into {journal.path}.")
    return 0


# --- restore and merge --------------------------------------------------------------------


def _apply(store: Path, file: str, before: bytes | None, after: bytes, label: str) -> int:
    """Journal snapshot -> safe write -> journal snapshot; 1 with one sentence when refused."""
    from tui.history.recovery import write_journalled
    from tui.memory.writes import WriteRefused

    try:
        with _journal_errors(store):
            write_journalled(store, file, before, after, label)
    except WriteRefused as error:
        print(f"memtui: {error}", file=sys.stderr)
        return 1
    return 0


def _undo_hint(store: Path) -> str:
    return f"`{undo_command(store)}` takes it back"


def _current(store: Path, file: str) -> bytes | None:
    from tui.memory.writes import WriteRefused, read_bytes

    try:
        return read_bytes(store, file)
    except WriteRefused as error:
        raise UsageError(str(error)) from None


def cmd_restore(args: argparse.Namespace) -> int:
    from tui.history.journal import use_journal

    def version_of(journal) -> tuple[str, bytes | None]:
        rev = journal.resolve(args.version)
        return rev, journal.read(rev, file)

    store, file = file_in_store(args, args.file)
    with _journal_errors(store):
        rev, wanted = use_journal(store, version_of)
    if wanted is None:
        raise UsageError(f"{file} does not exist in version {args.version}; nothing to restore.")
    current = _current(store, file)
    if current == wanted:
        print(f"{file} is already at version {rev[:10]}.")
        return 0
    _print_diff(file, current, wanted, f"version {rev[:10]}")
    if not _go_ahead(args, "restore"):
        return 0
    status = _apply(store, file, current, wanted, f"restore {file} to version {rev[:10]}")
    if status == 0:
        print(f"Restored {file} to version {rev[:10]}; {_undo_hint(store)}.")
    return status


def _print_diff(file: str, before: bytes | None, after: bytes, to: str) -> None:
    import difflib

    old, new = ((data or b"").decode("utf-8", "replace") for data in (before, after))
    sys.stdout.writelines(line if line.endswith("\n") else line + "\n" for line in
                          difflib.unified_diff(lines_with_endings(old), lines_with_endings(new),
                                               f"{file} (now)", f"{file} ({to})"))


def _go_ahead(args: argparse.Namespace, command: str) -> bool:
    """After the change is shown: --dry-run stops there; else --yes, or the user's yes on
    a terminal (as `memtui fix` asks)."""
    if args.dry_run:
        print("Dry run: nothing was written.")
        return False
    if confirmed(args, command):
        return True
    print("Not applied.")
    return False


def cmd_merge(args: argparse.Namespace) -> int:
    from tui.history.overwrites import lines_back
    from tui.history.recovery import all_lost_updates, merge_back
    from tui.history.writes_log import store_events

    store, file = file_in_store(args, args.file)
    if _sync_conflicts(store, file):
        return _merge_sync_conflicts(args, store, file)
    if args.keep:
        raise UsageError(f"{file} holds no conflict from memtui sync; --keep has nothing to choose.")
    events = store_events(store, config_home_of(args), env_of(args))
    with _journal_errors(store):
        lost = [u for u in all_lost_updates(store, events) if u.file == file]
    if not lost:
        print(f"No lost update of {file} found in the transcripts or the journal; nothing to merge.")
        return 0
    current_bytes = _current(store, file)
    # A byte that is not UTF-8 (a hand edit in Latin-1) goes back exactly as it was.
    current = (current_bytes or b"").decode("utf-8", "surrogateescape")
    missing = sorted((u for u in lost if not lines_back(u, current)), key=lambda u: u.time)
    if not missing:
        print(f"Every line lost from {file} ({plural(len(lost), 'lost update')}) is already back "
              "in it.")
        return 0
    merged = current
    for update in missing:  # oldest first, each into what the ones before it left
        result = merge_back(update, merged)
        if result.conflicts:
            print(f"{plural(len(result.conflicts), 'conflict')} between {file} now and the version "
                  "lost on "
                  f"{update.time}; nothing was written:")
            for conflict in result.conflicts:
                for label, lines in (("base", conflict.base), ("now", conflict.ours),
                                     ("lost", conflict.theirs)):
                    print(f"--- {label}")
                    sys.stdout.writelines(line if line.endswith("\n") else line + "\n" for line in lines)
            return 1
        merged = result.text
    if merged == current:
        print(f"Every line lost from {file} is already back in it.")
        return 0
    import difflib

    sys.stdout.writelines(difflib.unified_diff(
        lines_with_endings(current), lines_with_endings(merged),
        f"{file} (now)", f"{file} (merged)",
    ))
    if not _go_ahead(args, "merge"):
        return 0
    label = f"merge lines of {file} lost on {', '.join(u.time for u in missing)}"
    status = _apply(store, file, current_bytes, merged.encode("utf-8", "surrogateescape"), label)
    if status == 0:
        print(f"Merged the lines of {plural(len(missing), 'lost update')} back into {file}; "
              f"{_undo_hint(store)}.")
    return status


def _sync_conflicts(store: Path, file: str):
    from tui.memory.conflicts import find_conflicts

    data = _current(store, file)
    return find_conflicts(data.decode("utf-8", "surrogateescape")) if data else []


def _merge_sync_conflicts(args: argparse.Namespace, store: Path, file: str) -> int:
    """A conflict `memtui sync` left in the file: show both texts, or keep the side asked for."""
    from tui.memory.conflicts import find_conflicts, resolve

    before = _current(store, file) or b""
    text = before.decode("utf-8", "surrogateescape")
    conflicts = find_conflicts(text)
    if not args.keep:
        print(f"{file} holds {plural(len(conflicts), 'conflict')} from memtui sync, both texts "
              "kept:")
        for conflict in conflicts:
            for label, lines in (("first", conflict.first), ("second", conflict.second)):
                name = conflict.first_label if label == "first" else conflict.second_label
                print(f"--- line {conflict.line}, {label}: {name}")
                sys.stdout.writelines(line if line.endswith("\n") else line + "\n" for line in lines)
        print(f"Keep one with `memtui merge {args.file} --keep first|second|both` (or edit the file), "
              "then run `memtui sync`.")
        return 1
    merged = resolve(text, args.keep)
    import difflib

    sys.stdout.writelines(difflib.unified_diff(
        lines_with_endings(text), lines_with_endings(merged), f"{file} (now)", f"{file} (resolved)"))
    if not _go_ahead(args, "merge"):
        return 0
    label = f"resolve sync conflicts in {file}, keeping {args.keep}"
    status = _apply(store, file, before, merged.encode("utf-8", "surrogateescape"), label)
    if status == 0:
        print(f"Resolved {plural(len(conflicts), 'sync conflict')} in {file}; `memtui sync` "
              "sends it.")
    return status


# --- overwrites ---------------------------------------------------------------------------


def cmd_overwrites(args: argparse.Namespace) -> int:
    import shlex

    from tui.history.overwrites import lines_back
    from tui.history.recovery import all_lost_updates, file_text
    from tui.history.writers import in_words, writers
    from tui.history.writes_log import store_events

    store = _existing_store(args, args.target)
    events = store_events(store, config_home_of(args), env_of(args))
    with _journal_errors(store):
        found = all_lost_updates(store, events)
    now = {file: file_text(store, file) for file in {update.file for update in found}}
    if args.json:
        print_json([{**update.to_json(), "back": lines_back(update, now[update.file])}
                    for update in found])
        return 0
    if not found:
        print(f"No lost updates found for {store}.")
        return 0
    for update in found:
        back = lines_back(update, now[update.file])
        state = "all in the file again" if back else "still missing from the file"
        by, overwritten = writers(update)
        print(f"{_local_iso(update.time)}  {update.file}: {in_words(by, overwritten)} overwrote "
              f"{in_words(overwritten, by)}; "
              f"{plural(len(update.lost_lines), 'line')} lost, {state}:")
        for line in update.lost_lines:
            print(f"    {line}")
        if not back:
            print(f"  merge them back: memtui merge {shlex.quote(str(store / update.file))}")
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    from tui.agents.changeset import lock_change, redo_changeset, undo_changeset
    from tui.memory.writes import WriteRefused, history, redone_phrase, undone_phrase

    resolved = existing_store(args, args.target, stranded=False, config_home=True)
    store = resolved.memory_dir
    _tell_damaged_log(store)
    if args.list:
        records = history(store)
        if args.json:
            print_json([{"id": r.id, "label": r.label, "time": r.time, "undone": r.undone,
                         "undoes": r.undoes, "files": [c.file for c in r.changes],
                         "consolidate_lock": lock_change(r.label),
                         "pair": str(r.pair.store) if r.pair else None}
                        for r in records])
        elif not records:
            print(f"memtui has made no change to {store}.")
        for record in [] if args.json else records:
            lock = LOCK_CHANGES.get(lock_change(record.label))
            print(record.summary(also=[lock] if lock else []))
        return 0
    try:
        if resolved.how == "config home":
            label = _undo_config_home(store, args.redo)
        else:
            with _journal_errors(store):
                label = (redo_changeset if args.redo else undo_changeset)(store)
    except WriteRefused as error:
        if args.json:
            print_json({"store": str(store), "redone" if args.redo else "undone": None,
                        "refused": str(error)})
        raise UsageError(str(error)) from None
    if args.json:
        if args.redo:
            print_json({"store": str(store), "redone": label and label.removeprefix("redo ")})
        else:
            print_json({"store": str(store), "undone": label and label.removeprefix("undo ")})
        return 0
    if args.redo:
        print(redone_phrase(label) if label else
              f"Nothing to redo: no undo of {store} since memtui's last change to it.")
    else:
        print(undone_phrase(label) if label else _nothing_to_undo(store))
    return 0


def _undo_config_home(home: Path, redo: bool) -> str | None:
    """Undo (or redo) memtui's newest change to the config home's CLAUDE.md through the
    safe write alone: a journal of the config home would copy every transcript in it (the
    project store of a promote --remove or a demote is undone with it, journalled)."""
    from tui.agents.changeset import both_stores
    from tui.history.recovery import redo_journalled, undo_journalled

    record = (redo_journalled if redo else undo_journalled)(home, journalled=False)
    return both_stores(record) if record is not None else None


LOCK_CHANGES = {"set": "set .consolidate-lock (the last dream's time)",
                "restored": "put .consolidate-lock back"}


def _tell_damaged_log(store: Path) -> None:
    """Lines of the undo log that cannot be read are skipped; the user hears of it."""
    from tui import notices
    from tui.memory.undo_log import damage_note

    note = damage_note(store)
    if note:
        notices.tell(note)


def _nothing_to_undo(store: Path) -> str:
    from tui.memory.trim import trimmed_note

    trimmed = trimmed_note(store)
    if trimmed:
        return f"Nothing left to undo in {store}: {trimmed}."
    return f"Nothing to undo: memtui's changes to {store} are all undone already."


def add_history_commands(commands) -> None:
    """Add the history subcommands to `memtui`'s argparse subparsers."""
    undo = commands.add_parser("undo", help="undo memtui's newest change to a store, or list them")
    undo.add_argument("target", nargs="?", help=TARGET_HELP)
    undo.add_argument("--list", action="store_true", help="list memtui's changes, newest first")
    undo.add_argument("--json", action="store_true",
                      help="machine-readable output: what was undone or redone (null: nothing), "
                           "or the list")
    undo.add_argument("--redo", action="store_true",
                      help="put back what the last undo took (until memtui changes the store again)")
    undo.set_defaults(run=cmd_undo)

    watch = commands.add_parser("watch", help="commit every change of a store to its journal")
    watch.add_argument("target", nargs="?", help=TARGET_HELP)
    watch.add_argument("--all", action="store_true", help="watch every store")
    watch.add_argument("--interval", type=float, default=1.0, metavar="SECONDS",
                       help="how often to look (default: 1)")
    watch.add_argument("--once", action="store_true",
                       help="commit what changed since the last snapshot, then exit (a hook "
                            "after each turn)")
    watch.set_defaults(run=cmd_watch)

    history = commands.add_parser(
        "history", help="versions of a memory file; `history backfill` rebuilds them",
        description="`memtui history FILE` lists versions; "
                    "`memtui history backfill [TARGET]` rebuilds them from transcripts.",
    )
    history.add_argument("file", metavar="FILE|backfill", help="a memory file, or `backfill`")
    history.add_argument("target", nargs="?", help=f"for backfill: {TARGET_HELP}")
    history.add_argument("--json", action="store_true", help="machine-readable output")
    history.set_defaults(run=cmd_history)

    restore = commands.add_parser("restore", help="put back a version of a memory file")
    restore.add_argument("file", metavar="FILE")
    restore.add_argument("--version", required=True, metavar="REV",
                         help="a revision listed by `memtui history FILE`")
    restore.add_argument("--yes", action="store_true", help="apply without asking")
    restore.add_argument("--dry-run", action="store_true", help="show the change, write nothing")
    restore.set_defaults(run=cmd_restore)

    merge = commands.add_parser("merge", help="merge back the lines a lost update dropped")
    merge.add_argument("file", metavar="FILE")
    merge.add_argument("--yes", action="store_true", help="apply without asking")
    merge.add_argument("--dry-run", action="store_true", help="show the merge, write nothing")
    merge.add_argument("--keep", choices=("first", "second", "both"),
                       help="for a conflict memtui sync left: the text to keep")
    merge.set_defaults(run=cmd_merge)

    overwrites = commands.add_parser("overwrites", help="lost updates of a store")
    overwrites.add_argument("target", nargs="?", help=TARGET_HELP)
    overwrites.add_argument("--json", action="store_true", help="machine-readable output")
    overwrites.set_defaults(run=cmd_overwrites)
