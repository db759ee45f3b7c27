"""`memtui copy` and `memtui move`: memories carried from one store to another.

    memtui copy FILE... --to PROJECT [--from SOURCE] [--on-collision keep-both|replace|skip]
                [--hubs | --push-out]
    memtui move FILE... --to PROJECT ...

FILE: a memory as `memtui audit` names it in the source store (default: the current
directory's), or a path to it. The plan is shown, then asked about on a terminal; without
one it needs --yes or --dry-run, and a name the target holds with other text needs
--on-collision (on a terminal, each is asked). Exit 2 for every refusal, in one sentence.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tui.cli.support import (
    UsageError,
    apply_question,
    ask_yes,
    existing_store,
    resolve_store,
    undo_command,
)


def _source_of(args: argparse.Namespace) -> Path:
    """The source store: --from, else the store holding the first FILE given as a path,
    else the current directory's."""
    from tui.claude.paths import INDEX_NAME, MEMORY_DIR_NAME

    if args.source:
        return existing_store(args, args.source).memory_dir
    first = os.path.expanduser(args.files[0])
    if os.path.isfile(first):
        folder = Path(os.path.realpath(os.path.dirname(os.path.abspath(first))))
        for candidate in (folder, *folder.parents):
            if candidate.name == MEMORY_DIR_NAME or (candidate / INDEX_NAME).is_file():
                return candidate
    return existing_store(args, None).memory_dir


def store_file(store: Path, given: str) -> str:
    """The store-relative name of FILE (as `memtui audit` names it, or a path to it), read
    as `memtui fix` reads it; a file that is not there is refused here, before any plan."""
    from tui.cli.fix import store_file as named_in_store

    try:
        relative = named_in_store(store, given)
    except UsageError:
        relative = None
    if relative is None or not os.path.lexists(store / relative):
        raise UsageError(f"{given} is not a memory in {store}.")
    return relative


def _choices(args, source, files: list[str], target) -> dict[str, str]:
    """What to do with each name the target holds with other text: --on-collision, else
    asked on a terminal."""
    from tui.memory.transfer import CHOICES, collisions

    clashing = collisions(source, files, target)
    if not clashing:
        return {}
    if args.on_collision:
        return dict.fromkeys(clashing, args.on_collision)
    if args.yes or not sys.stdin.isatty():
        raise UsageError(
            f"{', '.join(clashing)} {'exists' if len(clashing) == 1 else 'exist'} in "
            f"{target.path} with other text; say --on-collision keep-both, replace or skip.")
    answers = {"k": CHOICES[0], "r": CHOICES[1], "s": CHOICES[2]}
    choices = {}
    for file in clashing:
        sys.stderr.write(f"{file} exists in {target.path} with other text: [k]eep both "
                         "(copy under a new name), [r]eplace it, or [s]kip it? ")
        sys.stderr.flush()
        answer = sys.stdin.readline().strip().lower()[:1]
        if answer not in answers:
            raise UsageError("Not applied: nothing was chosen for " + file + ".")
        choices[file] = answers[answer]
    return choices


def cmd_copy_move(args: argparse.Namespace) -> int:
    from tui.memory.curate import GROUP_IN_HUBS
    from tui.memory.refusals import WriteRefused
    from tui.memory.store import load_store
    from tui.memory.transfer import apply_transfer, plan_transfer
    from tui.words import listed

    move = args.command == "move"
    if args.yes and args.dry_run:
        raise UsageError("Give --yes or --dry-run, not both.")
    if not (args.yes or args.dry_run) and not sys.stdin.isatty():
        raise UsageError("Without a terminal to ask on, add --dry-run to see the change, or "
                         "--yes to make it.")
    source_dir = _source_of(args)
    target_dir = resolve_store(args, args.to, stranded=False).memory_dir
    source, target = load_store(source_dir), load_store(target_dir)
    files = list(dict.fromkeys(store_file(source_dir, file) for file in args.files))
    try:
        transfer = plan_transfer(source, files, target, _choices(args, source, files, target),
                                 move=move, hubs=args.hubs)
    except WriteRefused as refused:
        raise UsageError(str(refused)) from None
    print(f"{transfer.label[:1].upper()}{transfer.label[1:]} from {source_dir} to {target_dir}:")
    for sentence in transfer.summary:
        print(f"  {sentence}")
    if transfer.pushed_out:
        print(_room_hint(target_dir, transfer))
    if transfer.empty:
        print("Nothing to change.")
        return 0
    if args.dry_run:
        print("Dry run: nothing was written.")
        return 0
    if transfer.pushed_out and args.yes and not args.push_out:
        ways = ("add --hubs to put the lines that do not fit in a hub its MEMORY.md links, "
                "or --push-out" if GROUP_IN_HUBS in transfer.options
                else "make room first, or add --push-out")
        raise UsageError(f"Not applied: it would leave {listed(transfer.pushed_out, 5)} past "
                         f"the target's loaded cut; {ways} to apply anyway.")
    if not args.yes and not ask_yes(apply_question(len(transfer.pushed_out))):
        print("Not applied.")
        return 0
    try:
        apply_transfer(source_dir, target_dir, transfer)
    except WriteRefused as refused:
        raise UsageError(str(refused)) from None
    if move and transfer.target_changes and transfer.source_changes:
        print(f"Moved. One undo takes back both stores: `{undo_command(target_dir)}` "
              f"(or `{undo_command(source_dir)}`).")
    elif move:
        changed = target_dir if transfer.target_changes else source_dir
        print(f"Moved. `{undo_command(changed)}` takes it back.")
    else:
        print(f"Copied. `{undo_command(target_dir)}` takes it back.")
    return 0


def _room_hint(target_dir: Path, transfer) -> str:
    """The target's ways to make room, as commands; hubs, as this command's own --hubs."""
    from dataclasses import replace

    from tui.cli.fix import room_hint
    from tui.memory.curate import GROUP_IN_HUBS

    others = tuple(option for option in transfer.options if option != GROUP_IN_HUBS)
    hint = room_hint(target_dir, replace(transfer, options=others))
    if GROUP_IN_HUBS in transfer.options:
        hint = ("To put the lines that do not fit in a hub that the target's MEMORY.md links: "
                f"add --hubs. {hint}")
    return hint


COLLISION_CHOICES = ("keep-both", "replace", "skip")  # tui.memory.transfer's, not imported:
# every command's start would pay for the curation code


def add_copy_move_commands(commands) -> None:
    for name, verb in (("copy", "copy"), ("move", "move")):
        parser = commands.add_parser(name, help=f"{verb} memories to another project's store")
        parser.add_argument("files", nargs="+", metavar="FILE",
                            help="a memory as `memtui audit` names it, or its path")
        parser.add_argument("--to", required=True, metavar="PROJECT",
                            help="the target: memory dir, project path or folder name")
        parser.add_argument("--from", dest="source", metavar="SOURCE",
                            help="the source store (default: the one holding FILE, else the "
                                 "current directory's)")
        parser.add_argument("--on-collision", choices=COLLISION_CHOICES,
                            help="for a name the target holds with other text (asked on a "
                                 "terminal otherwise)")
        parser.add_argument("--yes", action="store_true", help="apply without asking")
        parser.add_argument("--dry-run", action="store_true",
                            help="show the change, write nothing")
        parser.add_argument("--push-out", action="store_true",
                            help="with --yes: apply even if it leaves other entries of the "
                                 "target past its loaded cut")
        parser.add_argument("--hubs", action="store_true",
                            help="put the index lines that do not fit inside the target's "
                                 "loaded cut in hubs that its MEMORY.md links, as a dream does")
        parser.set_defaults(run=cmd_copy_move)
