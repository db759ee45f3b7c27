"""`memtui fix`: the app's repairs from the command line.

    memtui fix [TARGET] relink [FILE...]    put orphans (default: every one) inside the cut
    memtui fix [TARGET] dangling [LINE...]  drop index lines whose files are gone
    memtui fix [TARGET] shorten [LINE...]   cut long index lines, the hook kept in the memory
    memtui fix [TARGET] redact [FILE...]    replace credentials with [REDACTED]
    memtui fix [TARGET] repath [FILE...]    write renamed paths of the code as they are now
    memtui fix [TARGET] archive FILE...     remove memories, a copy kept in the archive
    memtui fix [TARGET] delete FILE...      remove memories (undo brings them back)
    memtui fix STRANDED rescue              copy a stranded store's memories home
    memtui fix STRANDED retire              archive a stranded store its rescue emptied

The plans are `tui.memory.curate`'s (a rescue's, `tui.memory.rescue`'s) and the write is the app's (`apply_journalled`), so a
repair made here is the same change, journalled and undoable, as the key in the app. A
repair shows its plan (summary and diff), asks on a terminal, and applies it; without a
terminal it needs --yes or --dry-run. Every refusal is one sentence, exit 2.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from tui.cli.support import (
    UsageError,
    and_list,
    apply_question,
    ask_yes,
    check_asking,
    close_match,
    command_name,
    existing_store,
    print_json,
    resolve_store,
    undo_command,
)
from tui.words import plural

# repair -> (takes FILEs: "optional", "required" or "lines" (index lines), what it does)
REPAIRS = {
    "relink": ("optional", "put orphans (default: every one) inside the loaded cut"),
    "dangling": ("lines", "remove index lines whose only links point at missing files "
                          "(default: every one)"),
    "shorten": ("lines", "shorten index lines over 150 characters, the hook kept in the "
                         "memory (default: every one)"),
    "redact": ("optional", "replace credentials with [REDACTED] (default: in every file)"),
    "repath": ("optional", "write each path of the code that git renamed as its path now "
                           "(default: in every file)"),
    "archive": ("required", "remove memories and their index lines, a copy kept in the archive"),
    "delete": ("required", "remove memories and their index lines (undo brings them back)"),
    "rescue": ("none", "copy a stranded store's memories into the store its sessions use now "
                       "(undo there takes it back)"),
    "retire": ("none", "archive a stranded store whose every memory a rescue brought home "
                       "(undo brings it back)"),
}
NOTHING = {  # what an empty plan means, when its summary does not say
    "relink": "No orphan: every memory is linked inside the loaded cut.",
    "dangling": "No dangling index line: every link points at a file.",
    "shorten": "No index line is over 150 characters.",
}
# Diffs that would print what the repair exists to hide, or a whole removed memory.
NO_DIFF_REPAIRS = {"redact"}
# The finding a line repair answers: a LINE given to it must have one.
LINE_FINDINGS = {"dangling": "dangling", "shorten": "long_index_line"}


def add_fix_command(commands) -> None:
    repairs = "\n".join(f"  {name:9} {what}" for name, (_, what) in REPAIRS.items())
    fix = commands.add_parser(
        "fix", help="repair a store as the app does (relink, dangling, shorten, redact, "
                    "repath, archive, delete, rescue, retire)",
        usage="memtui fix [TARGET] REPAIR [FILE | LINE ...] [--yes | --dry-run] [--json] "
              "[--push-out] [--hubs]",
        description="Repair a store as the app does: show the change, ask, apply it\n"
                    "(`memtui undo` takes it back).\n\n"
                    "TARGET: a memory dir, a project path, a project name or a folder name (default: the\n"
                    "current directory's project). REPAIR:\n"
                    f"{repairs}\n"
                    "FILE: a memory as `memtui audit` names it (topics/api.md), or its path.\n"
                    "LINE: an index line as `memtui audit` names it (MEMORY.md:14,\n"
                    "team/MEMORY.md:3), or a line number of MEMORY.md.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fix.add_argument("words", nargs="*", metavar="[TARGET] REPAIR [FILE | LINE ...]",
                     help=argparse.SUPPRESS)
    fix.add_argument("--yes", action="store_true", help="apply without asking")
    fix.add_argument("--dry-run", action="store_true", help="show the change, write nothing")
    fix.add_argument("--json", action="store_true",
                     help="the plan and the outcome as JSON (needs --yes or --dry-run)")
    fix.add_argument("--push-out", action="store_true",
                     help="with --yes: apply a relink even if it leaves other entries past "
                          "the loaded cut")
    fix.add_argument("--hubs", action="store_true",
                     help="with relink: relink the orphans that fit inside the loaded cut and "
                          "list the rest in hubs that MEMORY.md links, as a dream does")
    fix.set_defaults(run=cmd_fix)


def _split_words(words: list[str]) -> tuple[str | None, str, list[str]]:
    """(TARGET, REPAIR, FILEs): the target may be left out, so the repair is the first
    word, or the second when the first names no repair."""
    if not words:
        raise UsageError(f"`memtui fix` needs a REPAIR: {and_list(list(REPAIRS), 'or')} "
                         "(`memtui fix --help` says what each does).")
    if words[0] in REPAIRS:
        return None, words[0], words[1:]
    if len(words) > 1 and words[1] in REPAIRS:
        return words[0], words[1], words[2:]
    given = words[1] if len(words) > 1 else words[0]
    guess = close_match(given, list(REPAIRS))
    hint = f" (did you mean {guess}?)" if guess else ""
    raise UsageError(f"{given!r} is no repair{hint}; `memtui fix` knows "
                     f"{and_list(list(REPAIRS))}.")


def _check_usage(args: argparse.Namespace, repair: str, files: list[str]) -> None:
    takes, _ = REPAIRS[repair]
    if takes == "none" and files:
        what = ("rescues every memory of" if repair == "rescue"
                else "archives every memory and index of")
        raise UsageError(f"`memtui fix {repair}` takes no FILE: it {what} the stranded store.")
    if takes == "required" and not files:
        raise UsageError(f"`memtui fix {repair}` needs the memory files to {repair}.")
    check_asking(args, "fix")
    if args.hubs and repair != "relink":
        raise UsageError("--hubs goes with `memtui fix relink` only.")


def store_file(store: Path, given: str) -> str:
    """The store-relative name of a FILE given as `memtui audit` names it (topics/api.md)
    or as a path to it, absolute or from the current directory."""
    if os.path.lexists(store / given) and not os.path.isabs(given):
        return given
    path = os.path.expanduser(given)
    if not os.path.lexists(path):
        return given  # named as in the store, where it is not: `_check_files` says so
    # The folder resolved, not the file: a symlinked memory keeps its own name.
    folder, name = os.path.split(os.path.abspath(path))
    relative = os.path.relpath(os.path.join(os.path.realpath(folder), name),
                               os.path.realpath(store))
    if relative.startswith(os.pardir):
        raise UsageError(f"{given} is not inside {store}.")
    return Path(relative).as_posix()


def _check_files(store, repair: str, files: list[str]) -> None:
    known = {memory.file for memory in store.memories}
    if repair in ("redact", "repath"):
        known |= {index.file for index in store.indexes}
    for file in files:
        if file not in known:
            raise UsageError(f"{file} is not a memory in {store.path} "
                             "(`memtui audit` lists them).")


def _index_line(store: Path, word: str) -> tuple[str, int]:
    """(index file, line number) of a LINE: `MEMORY.md:14`, `team/MEMORY.md:3`, a path to
    an index with `:14`, or `14` (a line of MEMORY.md)."""
    from tui.claude.paths import INDEX_NAME

    file, colon, number = word.rpartition(":")
    if not number.isdigit() or int(number) == 0 or (colon and not file):
        raise UsageError(f"{word} is no index line: give it as `memtui audit` names it "
                         f"({INDEX_NAME}:14), or as a line number of {INDEX_NAME}.")
    return (store_file(store, file) if file else INDEX_NAME), int(number)


def _index_lines(store, repair: str, given: list[str]) -> dict[str, list[int]] | None:
    """The index lines a line repair is to act on (None: every one), each one that
    `memtui audit` names for it."""
    from tui.memory.audit import index_findings
    from tui.memory.finding import lines_by_index

    if not given:
        return None
    kind = LINE_FINDINGS[repair]
    found = {(f.file, f.line): f for f in index_findings(store) if f.kind == kind}
    chosen = []
    for word in given:
        line = _index_line(store.path, word)
        if line not in found:
            raise UsageError(f"{line[0]}:{line[1]} has no {kind} finding for `memtui fix "
                             f"{repair}` to repair (`memtui audit` lists them); nothing was "
                             "written.")
        chosen.append(found[line])
    return lines_by_index(chosen)


def _plan(store, repair: str, files: list[str],
          lines: dict[str, list[int]] | None = None, project_path: str | None = None,
          hubs: bool = False):
    from tui.memory import curate
    from tui.memory.audit import orphan_files
    from tui.memory.refusals import WriteRefused

    try:
        if repair == "repath":
            from tui.memory.stale_paths import plan_repath

            return plan_repath(store, project_path, files or None)
        if repair == "relink" and hubs:
            from tui.memory.relink_hubs import plan_relink_in_hubs

            return plan_relink_in_hubs(store, files or orphan_files(store))
        if repair == "relink":
            return curate.plan_relink(store, files or orphan_files(store))
        if repair == "dangling":
            return curate.plan_remove_dangling(store, lines)
        if repair == "shorten":
            return curate.plan_shorten_lines(store, lines=lines)
        if repair == "redact":
            from tui.history.redaction import as_redaction

            return as_redaction(curate.plan_redact_secrets(store, files or None))
        if repair == "archive":
            return curate.plan_archive(store, files)
        return curate.plan_delete(store, files)
    except (WriteRefused, OSError) as error:
        raise UsageError(str(error)) from None


def _rescue(args: argparse.Namespace, stranded: Path):
    """(the live store, the rescue's plan on it), or the refusal as a UsageError."""
    from tui.claude.lock import read_lock
    from tui.cli.support import config_home_of, env_of
    from tui.memory.refusals import WriteRefused
    from tui.memory.rescue import prepare_rescue

    try:
        rescue = prepare_rescue(stranded, config_home_of(args), env_of(args), args.settings)
    except (WriteRefused, OSError) as error:
        raise UsageError(str(error)) from None
    lock = read_lock(rescue.live)
    if lock.held():
        raise UsageError(f"A memory consolidation (process {lock.pid}) is running in "
                         f"{rescue.live}; try again when it has finished. Nothing was written.")
    return rescue.live, rescue.plan


def _retire(args: argparse.Namespace, stranded: Path):
    """The plan archiving a stranded store whose rescue is done, or why not (UsageError)."""
    from tui.cli.support import config_home_of, env_of
    from tui.memory.rescue import finished_rescue, plan_retire
    from tui.memory.store import load_store

    rescue = finished_rescue(stranded, config_home_of(args), env_of(args), args.settings)
    if rescue is None:
        raise UsageError(f"{stranded} is not a stranded store whose every memory is home: "
                         f"`{command_name()} fix {shlex.quote(str(stranded))} rescue` first "
                         "(it says what it would still copy). Nothing was written.")
    store = load_store(stranded)
    if store.lock.held():
        from tui.memory.writes import StoreLocked

        raise UsageError(f"{StoreLocked(store.lock.pid)} Nothing was written.")
    return plan_retire(store, rescue)


def _check_writable(store: Path, plan) -> None:
    """One sentence now, rather than a failed write after the user said yes."""
    for change in plan.changes:
        folder = (store / change.file).parent
        while not folder.exists() and folder != folder.parent:  # the store itself may be new
            folder = folder.parent
        if not os.access(folder, os.W_OK | os.X_OK):
            where = "" if folder == store else f" ({folder} cannot be written)"
            raise UsageError(f"{store} is read-only{where}; nothing was written.")


def _diffs(plan, repair: str) -> list[tuple[str, str, str | None]]:
    """(file, created/changed/deleted, unified diff or None when it is not shown)."""
    from tui.agents.changeset import unified

    shown = repair not in NO_DIFF_REPAIRS
    return [(change.file, change.verb,
             unified(change.file, change.before, change.after)
             if shown and change.after is not None else None)
            for change in plan.changes]


def _print_plan(store: Path, plan, repair: str, diffs) -> None:
    if plan.changes:
        label = plan.label[:1].upper() + plan.label[1:]
        print(f"{label} in {store}:")
    else:  # its label would name a repair of nothing ("Rescue 0 memories")
        print(f"Nothing to change in {store}:")
    for sentence in plan.summary:
        print("  " + sentence.replace("\n", "\n  "))
    for _, _, diff in diffs:  # a removed memory is named in the summary, not printed whole
        print(diff or "", end="")
    if repair in NO_DIFF_REPAIRS and diffs:
        print("(The diff is not shown: it would print the secrets.)")
    if plan.pushed_out:
        print(room_hint(store, plan))


def room_hint(store: Path, plan) -> str:
    """The plan's ways to make room in the cut, as the commands that take them."""
    from tui.memory.curate import GROUP_IN_HUBS, REMOVE_DANGLING, SHORTEN_LINES

    def command(repair: str) -> str:
        return f"`{command_name()} fix {shlex.quote(str(store))} {repair}`"

    repairs = {REMOVE_DANGLING: "dangling", SHORTEN_LINES: "shorten"}
    commands = [command(repairs[option]) for option in plan.options if option in repairs]
    first = f"{' or '.join(commands)}, or " if commands else ""
    hint = f"To make room first: {first}archive a memory Claude no longer needs."
    if GROUP_IN_HUBS in plan.options:
        hint = (f"To relink the ones that fit and list the rest in hubs that MEMORY.md links: "
                f"{command('relink --hubs')}. {hint}")
    return hint


def _ask(plan) -> bool:
    """The user's yes; past the cut, as in the app, only to a question that says so."""
    return ask_yes(apply_question(len(plan.pushed_out)))


def _apply(store: Path, plan) -> list[str]:
    """Apply `plan`; for a redaction, what of memtui's copies could not be scrubbed."""
    from tui.history.recovery import apply_journalled
    from tui.history.redaction import Redaction, apply_redaction
    from tui.memory.writes import ConflictError, WriteRefused

    try:
        if isinstance(plan, Redaction):
            return apply_redaction(store, plan)[1]
        apply_journalled(store, plan.changes, plan.label)
        return []
    except ConflictError as conflict:
        raise UsageError(
            f"{conflict.file} changed on disk while the change was shown (Claude Code writes "
            "without warning); nothing was written: run the same command again to see the "
            "change as it would be now.") from None
    except WriteRefused as refused:
        raise UsageError(str(refused)) from None


def cmd_fix(args: argparse.Namespace) -> int:
    from tui.memory.store import load_store
    from tui.memory.writes import StoreLocked

    target, repair, given = _split_words(args.words)
    _check_usage(args, repair, given)
    stranded = None
    if repair in ("rescue", "retire"):
        # Named by the store it keys (for an existing path, the store keyed by that very
        # path, a worktree's own), not the one its sessions use now, which may not exist yet.
        resolved = resolve_store(args, target)
        stranded = resolved.passed_over or resolved.memory_dir
        if not os.path.isdir(stranded):
            raise UsageError(f"There is no memory directory at {stranded} to {repair}.")
        if repair == "rescue":  # the plan writes the live store, not the one named
            memory_dir, plan = _rescue(args, stranded)
        else:
            memory_dir, plan = stranded, _retire(args, stranded)
            stranded = None
    else:
        resolved = existing_store(args, target)
        memory_dir = resolved.memory_dir
        store = load_store(memory_dir)
        if store.lock.held():
            raise UsageError(f"{StoreLocked(store.lock.pid)} Nothing was written.")
        if repair in LINE_FINDINGS:
            plan = _plan(store, repair, [], _index_lines(store, repair, given))
        else:
            files = list(dict.fromkeys(store_file(memory_dir, file) for file in given))
            _check_files(store, repair, files)
            plan = _plan(store, repair, files, project_path=resolved.project_path,
                         hubs=args.hubs)
    if plan.changes:
        _check_writable(memory_dir, plan)
    diffs = _diffs(plan, repair)
    needs_push_out = bool(plan.pushed_out) and args.yes and not args.push_out
    apply = bool(plan.changes) and not args.dry_run and not needs_push_out
    if not args.json:
        _print_plan(memory_dir, plan, repair, diffs)
    if apply and not args.yes:
        apply = _ask(plan)
    final = repair == "redact"  # undo leaves a redaction as it is
    not_scrubbed = _apply(memory_dir, plan) if apply else []
    for sentence in not_scrubbed:
        print(sentence, file=sys.stderr)
    if args.json:
        print_json({
            "store": str(memory_dir), "repair": repair, "label": plan.label,
            "summary": plan.summary, "pushed_out": list(plan.pushed_out),
            "changes": [{"file": file, "change": verb, "diff": diff}
                        for file, verb, diff in diffs],
            "applied": apply, "undo": undo_command(memory_dir) if apply and not final else None,
            **({"rescued_from": str(stranded)} if stranded else {}),
            **({"not_scrubbed": not_scrubbed} if final else {}),
        })
    else:
        _print_outcome(memory_dir, plan, repair, apply, args.dry_run, needs_push_out)
    if needs_push_out:
        raise UsageError(
            f"Not applied: it would leave {', '.join(plan.pushed_out)} past the loaded cut; "
            "make room first, or add --push-out to apply it anyway.")
    return 0


def _print_outcome(store: Path, plan, repair: str, applied: bool, dry_run: bool,
                   held_back: bool) -> None:
    """The plan's last line: what became of it (a held-back plan is said on stderr); for
    a plan that changes nothing, why, when its summary does not say."""
    if not plan.changes:
        if not plan.summary:
            print(f"  {NOTHING.get(repair, 'Nothing to do.')}")
    elif applied and repair == "redact":
        print(f"Applied: {plural(len(plan.changes), 'file')} changed, and the secrets "
              "scrubbed from memtui's backups, journal and caches; it cannot be undone. "
              "Revoke the credentials: Claude Code's transcripts and anything synced still "
              "hold them.")
    elif applied:
        print(f"Applied: {plural(len(plan.changes), 'file')} changed. Undo it with "
              f"`{undo_command(store)}`.")
    elif dry_run:
        print("Dry run: nothing was written.")
    elif not held_back:
        print("Not applied.")
