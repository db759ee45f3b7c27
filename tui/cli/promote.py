"""`memtui promote` and `memtui demote`: a memory for every session, and back.

    memtui promote FILE [TARGET] [--remove]   append the memory to <config home>/CLAUDE.md
    memtui demote SECTION --to PROJECT        take a promoted section back into a store

CLAUDE.md is written through the safe write with the config home as its folder (backups,
intent record, undo log: `memtui undo <config home>` takes it back), never through the
journal, which would copy every transcript under the config home; a CLAUDE.md that is a
symlink (into a dotfiles repo) is written through it, the link kept. The project store's
side (promote --remove, demote) is a change of that store like `memtui fix`'s, journalled,
made with CLAUDE.md's as one change spanning both folders (`tui.memory.pairs`): one undo
of either folder takes back both. Each command shows its plan, asks on a terminal, and
needs --yes or --dry-run otherwise.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from tui.cli.support import (
    UsageError,
    apply_question,
    ask_yes,
    check_asking,
    config_home_of,
    existing_store,
    print_json,
    undo_command,
)


def add_promote_commands(commands) -> None:
    promote = commands.add_parser(
        "promote", help="append a memory to your own CLAUDE.md, loaded in every session",
        description="Append a memory (its rule, Why and How to apply) as a short section to "
                    "<config home>/CLAUDE.md, which Claude Code loads in every session of "
                    "every project. What you wrote there is left as it is.")
    promote.add_argument("file", metavar="FILE",
                         help="a memory file: its path, or its name in TARGET's store")
    promote.add_argument("target", nargs="?", metavar="TARGET",
                         help="memory dir, project path or folder name (default: the "
                              "current directory's project)")
    promote.add_argument("--remove", action="store_true",
                         help="also take the memory and its index line out of the store "
                              "(a copy kept in the archive, as `memtui fix archive` does)")
    _add_apply_options(promote)
    promote.set_defaults(run=cmd_promote)
    demote = commands.add_parser(
        "demote", help="take a promoted section of CLAUDE.md back into a project's store",
        description="Move a section `memtui promote` added to <config home>/CLAUDE.md back "
                    "into a project's store: a memory file with frontmatter and an index "
                    "line inside the loaded cut. Only that section leaves CLAUDE.md.")
    demote.add_argument("section", metavar="SECTION",
                        help="the promoted memory's name (its file name without .md)")
    demote.add_argument("--to", required=True, metavar="PROJECT",
                        help="memory dir, project path or folder name of the store")
    demote.add_argument("--push-out", action="store_true",
                        help="with --yes: apply even if it leaves other entries past the cut")
    _add_apply_options(demote)
    demote.set_defaults(run=cmd_demote)


def _add_apply_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--yes", action="store_true", help="apply without asking")
    parser.add_argument("--dry-run", action="store_true", help="show the change, write nothing")
    parser.add_argument("--json", action="store_true",
                        help="the plan and the outcome as JSON (needs --yes or --dry-run)")


def _config_home(args: argparse.Namespace) -> Path:
    home = config_home_of(args)
    if not os.path.isdir(home):
        raise UsageError(f"There is no Claude Code config home at {home}.")
    return home


def _memory_of(args: argparse.Namespace) -> tuple[Path, str]:
    """(store, store-relative file) of `promote FILE [TARGET]`."""
    if args.target is None:
        from tui.cli.history import file_in_store

        return file_in_store(args, args.file)
    from tui.cli.fix import store_file

    store = existing_store(args, args.target, stranded=False).memory_dir
    return store, store_file(store, args.file)


def _loaded(store: Path):
    from tui.memory.store import load_store
    from tui.memory.writes import StoreLocked

    loaded = load_store(store)
    if loaded.lock.held():
        raise UsageError(f"{StoreLocked(loaded.lock.pid)} Nothing was written.")
    return loaded


def _print_plan(folder: Path, plan, diff: bool) -> list[dict]:
    from tui.agents.changeset import unified

    print(f"{plan.label[:1].upper()}{plan.label[1:]} in {folder}:")
    for sentence in plan.summary:
        print("  " + sentence.replace("\n", "\n  "))
    changes = []
    for change in plan.changes:
        text = (unified(change.file, change.before, change.after)
                if diff and change.after is not None else None)
        if text:
            print(text, end="")
        changes.append({"file": change.file, "change": change.verb, "diff": text})
    return changes


def _plan_json(folder: Path, plan, changes: list[dict], applied: bool) -> dict:
    return {"folder": str(folder), "label": plan.label, "summary": plan.summary,
            "changes": changes, "applied": applied,
            "undo": undo_command(folder) if applied else None}


def _write(home: Path, claude_md, store: Path | None = None, store_plan=None,
           store_first: bool = False) -> None:
    """CLAUDE.md through the safe write, the config home as its folder (no journal); with
    `store_plan`, that store's change too, journalled, the two as one change."""
    if store_plan is None:
        from tui.memory.writes import apply_changes

        apply_changes(home, claude_md.changes, claude_md.label)
        return
    from tui.history.recovery import apply_journalled_pair
    from tui.memory.pairs import Half

    halves = (Half(home, claude_md.changes, claude_md.label, journalled=False),
              Half(store, store_plan.changes, store_plan.label))
    apply_journalled_pair(*(halves[::-1] if store_first else halves))


def _refused(error: Exception) -> UsageError:
    return UsageError(str(error))


def cmd_promote(args: argparse.Namespace) -> int:
    from tui.memory.promoted import plan_promote, user_memory_file
    from tui.memory.writes import WriteRefused

    check_asking(args, "promote")
    home = _config_home(args)
    store_path, file = _memory_of(args)
    store = _loaded(store_path)
    try:
        promotion = plan_promote(home, store, file, args.remove)
    except WriteRefused as error:
        raise _refused(error) from None
    shown = not args.json
    if shown:
        claude_changes = _print_plan(home, promotion.claude_md, diff=True)
        removal_changes = (_print_plan(store_path, promotion.removal, diff=False)
                           if promotion.removal else [])
    else:
        from tui.agents.changeset import unified

        claude_changes = [{"file": c.file, "change": c.verb,
                           "diff": unified(c.file, c.before, c.after)}
                          for c in promotion.claude_md.changes]
        removal_changes = [{"file": c.file, "change": c.verb, "diff": None}
                           for c in (promotion.removal.changes if promotion.removal else ())]
    apply = not args.dry_run and (args.yes or ask_yes())
    if apply:
        try:
            _write(home, promotion.claude_md, store_path, promotion.removal)
        except WriteRefused as error:
            raise _refused(error) from None
    if args.json:
        print_json({"claude_md": _plan_json(home, promotion.claude_md, claude_changes, apply),
                    "store": (_plan_json(store_path, promotion.removal, removal_changes, apply)
                              if promotion.removal else None)})
    elif apply:
        print(f"Applied: {file} is now in {user_memory_file(home)}, loaded in every session.")
        if promotion.removal is None:
            print(f"Undo: `{undo_command(home)}` takes the section back out of CLAUDE.md.")
        else:
            print(f"Undo: `{undo_command(home)}` (or `{undo_command(store_path)}`) takes the "
                  f"section back out of CLAUDE.md and puts {file} and its index line back in "
                  "the project's store, both at once.")
    else:
        print("Dry run: nothing was written." if args.dry_run else "Not applied.")
    return 0


def cmd_demote(args: argparse.Namespace) -> int:
    from tui.memory.promoted import plan_demote, user_memory_file
    from tui.memory.writes import WriteRefused

    check_asking(args, "demote")
    home = _config_home(args)
    store_path = existing_store(args, args.to, stranded=False).memory_dir
    store = _loaded(store_path)
    try:
        demotion = plan_demote(home, args.section, store)
    except WriteRefused as error:
        raise _refused(error) from None
    pushed = demotion.store.pushed_out
    held_back = bool(pushed) and args.yes and not args.push_out
    if args.json:
        from tui.agents.changeset import unified

        def as_json(plan):
            return [{"file": c.file, "change": c.verb,
                     "diff": unified(c.file, c.before, c.after)} for c in plan.changes]

        claude_changes, store_changes = as_json(demotion.claude_md), as_json(demotion.store)
    else:
        claude_changes = _print_plan(home, demotion.claude_md, diff=True)
        store_changes = _print_plan(store_path, demotion.store, diff=True)
    apply = not args.dry_run and not held_back and (
        args.yes or ask_yes(apply_question(len(pushed))))
    if apply:
        try:  # the memory in the store first: a reader in between sees it twice, never lost
            _write(home, demotion.claude_md, store_path, demotion.store, store_first=True)
        except WriteRefused as error:
            raise _refused(error) from None
    if args.json:
        print_json({"claude_md": _plan_json(home, demotion.claude_md, claude_changes, apply),
                    "store": _plan_json(store_path, demotion.store, store_changes, apply),
                    "pushed_out": list(pushed)})
    elif apply:
        print(f"Applied: {demotion.file} is in {store_path}, and its section left "
              f"{user_memory_file(home)}.")
        print(f"Undo: `{undo_command(home)}` (or `{undo_command(store_path)}`) puts the section "
              f"back in CLAUDE.md and takes {demotion.file} and its index line out of the "
              "store, both at once.")
    elif not held_back:
        print("Dry run: nothing was written." if args.dry_run else "Not applied.")
    if held_back:
        raise UsageError(f"Not applied: it would leave {', '.join(pushed)} past the loaded "
                         "cut; make room first, or add --push-out to apply it anyway.")
    return 0
