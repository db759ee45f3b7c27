"""`memtui export` and `memtui import`: stores carried to another machine in a zip.

Exit codes: 0 done, 2 bad usage, an archive that cannot be imported, or a store that
refused its change.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tui.cli.support import (
    UsageError,
    config_home_of,
    env_of,
    existing_store,
    resolve_store,
    undo_command,
)


def cmd_export(args: argparse.Namespace) -> int:
    from tui.memory.export_zip import ExportRefused, export_stores

    if args.all and args.target:
        raise UsageError("Give a TARGET or --all, not both.")
    stores = _every_store(args) if args.all else [_one_store(args)]
    if not stores:
        raise UsageError(f"No project under {config_home_of(args)} has a memory store to export.")
    try:
        report = export_stores(stores, Path(args.output))
    except ExportRefused as error:
        raise UsageError(str(error)) from None
    noun = "store" if report.stores == 1 else "stores"
    print(f"Exported {report.stores} {noun} ({report.files} files, {_size(report.size)}) "
          f"to {report.output}.")
    if report.secrets:
        from tui.memory.import_zip import shown_name

        shown = ", ".join(map(shown_name, report.secrets[:3])) + (
            f" and {len(report.secrets) - 3} more" if len(report.secrets) > 3 else "")
        print(f"{len(report.secrets)} of them hold a secret ({shown}): the archive holds it "
              "too, so keep it private; an import refuses those files.")
    return 0


def _one_store(args: argparse.Namespace):
    from tui.memory.export_zip import ExportStore

    target = existing_store(args, args.target)
    name = os.path.basename(target.project_path) if target.project_path else \
        target.memory_dir.parent.name
    return ExportStore(target.memory_dir, target.project_path, name)


def _every_store(args: argparse.Namespace) -> list:
    from tui.claude.discovery import discover
    from tui.cli.stores import projects_home
    from tui.memory.export_zip import ExportStore

    inventory = discover(projects_home(args), env_of(args), args.settings)
    stores: dict[str, ExportStore] = {}
    for project in inventory.projects:
        if project.store is not None and project.store_exists:
            stores.setdefault(os.path.realpath(project.store),
                              ExportStore(project.store, project.key_path, project.name))
    return list(stores.values())


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / 1024 / 1024:.1f} MB"


def cmd_import(args: argparse.Namespace) -> int:
    from tui.memory.import_zip import ImportRefused, plan_import, read_archive, skipped_sentences

    source = Path(args.archive)
    if not os.path.isfile(source):
        raise UsageError(f"{source} is not a file.")
    try:
        archive = read_archive(source)
    except ImportRefused as error:
        raise UsageError(str(error)) from None
    if args.target and len(archive.projects) != 1:
        raise UsageError(f"{source} holds {len(archive.projects)} projects, so it goes to each "
                         "one's own store: import it without a TARGET.")
    skipped = {kind: list(names) for kind, names in archive.skipped.items()}
    failed = False
    for project in archive.projects:
        store = _store_of(args, project)
        if store is None:
            skipped.setdefault("no_store", []).extend(
                f"{project.folder}/{file}" for file in project.files)
            continue
        plan = plan_import(store, project, source.name)
        for kind, names in plan.skipped.items():
            skipped.setdefault(kind, []).extend(names)
        failed |= not _carry_out(plan, source, args.dry_run)
    for sentence in skipped_sentences(skipped):
        print(sentence)
    return 2 if failed else 0


def _store_of(args: argparse.Namespace, project) -> Path | None:
    """The store the project goes to here: TARGET, else the one of the same project path."""
    from tui.claude import paths

    if args.target:
        return resolve_store(args, args.target, stranded=False).memory_dir
    projects = paths.projects_dir(config_home_of(args))
    if project.path is None or not project.path.startswith("/"):
        # No sessions told where it was: the folder Claude Code keyed it by there.
        folder = project.project_folder
        return None if folder is None else projects / folder / paths.MEMORY_DIR_NAME
    if os.path.isdir(project.path):
        return resolve_store(args, project.path, stranded=False).memory_dir
    sanitized = paths.sanitize(paths.normalize_path(project.path))
    try:
        names = os.listdir(projects)
    except OSError:
        names = []
    return projects / (paths.find_folder(names, sanitized) or sanitized) / paths.MEMORY_DIR_NAME


def _carry_out(plan, source: Path, dry_run: bool) -> bool:
    """Apply one store's change and say what it did; False when the store refused it."""
    from tui.history.recovery import apply_journalled
    from tui.memory.refusals import WriteRefused

    counts = [f"{len(plan.created)} new", f"{len(plan.merged)} merged"]
    if plan.conflicted:
        counts.append(f"{len(plan.conflicted)} with conflict markers in the body "
                      f"({', '.join(plan.conflicted[:3])}"
                      f"{' and more' if len(plan.conflicted) > 3 else ''})")
    counts.append(f"{len(plan.identical)} already the same")
    where = f"{plan.project.path or plan.project.folder} -> {plan.store}"
    if dry_run:
        print(f"{where}: would import {', '.join(counts)} (dry run: nothing written).")
        return True
    if not plan.changes:
        print(f"{where}: nothing to change ({', '.join(counts)}).")
        return True
    try:
        apply_journalled(plan.store, plan.changes, f"import {source.name}")
    except WriteRefused as error:
        print(f"memtui: {where}: {error}", file=sys.stderr)
        return False
    print(f"{where}: imported {', '.join(counts)}; `{undo_command(plan.store)}` takes it back.")
    return True


def add_transfer_commands(commands) -> None:
    export = commands.add_parser("export", help="pack stores into a zip (memories, index, mtimes)")
    export.add_argument("target", nargs="?", help="memory dir, project path or folder name")
    export.add_argument("--all", action="store_true", help="every store under the config home")
    export.add_argument("-o", "--output", required=True, metavar="FILE.zip",
                        help="the zip to write (never replaces a file)")
    export.set_defaults(run=cmd_export)

    imports = commands.add_parser(
        "import", help="merge an exported zip into this machine's stores")
    imports.add_argument("archive", metavar="FILE.zip", help="a zip `memtui export` made")
    imports.add_argument("target", nargs="?",
                         help="for an archive of one project: the store to merge it into")
    imports.add_argument("--dry-run", action="store_true",
                         help="say what would be imported, write nothing")
    imports.set_defaults(run=cmd_import)
