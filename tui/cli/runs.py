"""`memtui dream` and `memtui extract`: runs from the command line.

Progress goes to stderr phase by phase; the summary, then the change set, to stdout. On a
terminal the summary comes first, the diff is offered (`d`, in a pager; `--diff` prints
it), then the question; without `--yes` and without a terminal to ask on, the summary and
the diff are shown and nothing is applied. A change set the guards hold a file of is
applied whole or not at all: `--yes` refuses it in one sentence (exit 2).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import threading
from pathlib import Path

from tui.cli.support import UsageError, config_home_of, env_of, resolve_store, undo_command
from tui.words import plural

ENGINES = ("anthropic", "offline")


def add_run_commands(commands) -> None:
    dream = commands.add_parser("dream", help="consolidate a store (preview, apply, undo)")
    dream.add_argument("target", nargs="?", help="memory dir, project path, project name or folder name")
    _run_flags(dream)
    dream.add_argument("--dry-run", action="store_true", help="show the change set only")
    dream.set_defaults(run=cmd_dream)

    extract = commands.add_parser("extract", help="turn a session into memories")
    extract.add_argument("session", help="the session id (its transcript's file name), "
                                         "or a prefix only one session has")
    _run_flags(extract)
    extract.add_argument("--force", action="store_true",
                         help="extract even if the session already wrote memory itself")
    extract.add_argument("--topic", action="append", default=[], metavar="TOPIC",
                         help="a focused pass: save only this topic (repeatable)")
    extract.add_argument("--topics", metavar="'A;B'",
                         help="a focused pass on these topics, separated by semicolons")
    extract.set_defaults(run=cmd_extract)


def _run_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", choices=ENGINES,
                        help="default: anthropic when an API key is configured, else offline")
    parser.add_argument("--yes", action="store_true", help="apply without asking")
    parser.add_argument("--diff", action="store_true",
                        help="print the diff of every file after the summary")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def _home_env(args: argparse.Namespace) -> tuple[Path, dict[str, str]]:
    return config_home_of(args), env_of(args)


def _engine(args: argparse.Namespace, env: dict[str, str]):
    from tui.agents.client import EngineError, load_config

    try:
        config = load_config(env)
    except EngineError as error:
        raise UsageError(str(error)) from None
    engine = args.engine or ("anthropic" if config.has_credentials else "offline")
    return engine, config


class _Printer:
    """Phase lines, and the model's replies as they stream, as they happen (stderr, so
    stdout stays the result)."""

    def __init__(self, quiet: bool, heading: str = ""):
        self.quiet = quiet
        # Said before the run's first line: a run refused before it started says only why.
        self.heading = heading
        self.streaming = False  # a reply is being printed piece by piece
        self.streamed = False  # ... and its whole text, logged next, is not printed again

    def say_heading(self) -> None:
        if self.heading and not self.quiet:
            print(self.heading, file=sys.stderr)
        self.heading = ""

    def __call__(self, event) -> None:
        from tui.agents.events import LogLine, ModelText, PhaseChanged

        if self.quiet:
            return
        self.say_heading()
        if isinstance(event, ModelText):
            if not self.streaming:
                sys.stderr.write("    model: ")
                self.streaming = self.streamed = True
            sys.stderr.write(event.text)
            sys.stderr.flush()
            return
        if self.streaming:  # the reply is complete: whatever comes next starts a line
            print(file=sys.stderr)
            self.streaming = False
        if isinstance(event, LogLine) and event.kind == "model" and self.streamed:
            self.streamed = False
            return
        if isinstance(event, PhaseChanged):
            phase = event.phase
            if phase.status == "running" and not (phase.tokens_in or phase.tool_calls):
                print(f"▸ {phase.name} …", file=sys.stderr)
            elif phase.status in ("done", "failed", "cancelled"):
                tokens = f", {phase.tokens_in}/{phase.tokens_out} tokens" if phase.tokens_in else ""
                calls = f", {phase.tool_calls} tool calls" if phase.tool_calls else ""
                note = f" — {phase.note}" if phase.note else ""
                print(f"  {phase.status} in {phase.elapsed:.1f} s{tokens}{calls}{note}",
                      file=sys.stderr)
        elif isinstance(event, LogLine) and event.kind in (
            "model", "tool", "refused", "retry", "warning"
        ):  # not "error": a run that failed says its error once, as its `memtui:` sentence
            print(f"    {event.kind}: {event.text}", file=sys.stderr)
        elif isinstance(event, LogLine) and event.kind == "info" and event.phase == "Read":
            print(f"    {event.text}", file=sys.stderr)  # what an extraction reads


def _run(args: argparse.Namespace, start, printer: _Printer) -> int:
    return _run_once(args, start, printer)[0]


def _run_once(args: argparse.Namespace, start, printer: _Printer) -> tuple[int, object, bool]:
    """Run, show, and apply when told to: the exit code, the result, and whether it counts
    (applied, or nothing to change). `printer`: the run's listener."""
    from tui.agents.events import PENDING
    from tui.agents.result import SKIPPED, SUCCEEDED, conclude

    # Ctrl-C raises inside the run, which rolls the lock back before it propagates.
    result = start(threading.Event())
    if result.status not in (SUCCEEDED, SKIPPED) and all(
            phase.status == PENDING for phase in result.phases):
        # Refused before anything ran (the lock held, no key): the sentence alone.
        if args.json:
            _print_json(result, None)
        print(f"memtui: {result.kind}: {result.error}", file=sys.stderr)
        return 2, result, False
    printer.say_heading()
    dry_run = getattr(args, "dry_run", False)
    interactive = sys.stdin.isatty() and sys.stdout.isatty() and not args.json
    changeset = result.changeset if result.status == SUCCEEDED else None
    changes = changeset is not None and not changeset.empty
    if not args.json:
        _print_summary(result, dry_run)
        if changes and (args.diff or not interactive):
            _print_changeset(result)
    # Nothing to change is a finished run: it counts (lock time, cursor) unless a dry run.
    apply = bool(changeset is not None and changeset.empty and not dry_run)
    if changes and not dry_run:
        if args.yes:
            apply = True
        elif interactive and changeset.refusal is None:
            apply = _ask(changeset)
    outcome = conclude(result, apply) if result.status == SUCCEEDED else None

    if args.json:
        _print_json(result, outcome)
    else:
        _print_outcome(result, outcome, apply, dry_run)
    if result.status == SKIPPED:
        if not args.json:
            print(f"Skipped: {result.error}")
        return 0, result, False
    if result.status != SUCCEEDED:
        print(f"memtui: {result.kind}: {result.error}", file=sys.stderr)
        return 2, result, False
    if outcome is not None and outcome.refused and not (outcome.applied or outcome.record_ids):
        print(f"memtui: {changeset.refusal or _nothing_applied(outcome.refused)}",
              file=sys.stderr)
        return 2, result, False
    if changes and not dry_run and interactive and changeset.refusal:
        print(f"memtui: {changeset.refusal}", file=sys.stderr)
        return 2, result, False
    counted = apply and (outcome is None or bool(outcome.applied))
    return (1 if outcome and outcome.refused else 0), result, counted


def _print_json(result, outcome) -> None:
    data = result.to_json()
    data["applied"] = list(outcome.applied) if outcome else []
    data["apply_refused"] = ([{"file": f, "reason": r} for f, r in outcome.refused]
                             if outcome else [])
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def _ask(changeset) -> bool:
    """Apply? `d` shows the diff in a pager and asks again."""
    while True:
        answer = input("Apply these changes? [y/N, d: show the diff] ").strip().lower()
        if answer in ("d", "diff"):
            import pydoc

            pydoc.pager("".join(f"=== {diff.kind}: {diff.file}\n{diff.diff}"
                                for diff in changeset.files))
            continue
        return answer in ("y", "yes")


def _nothing_applied(refused: tuple[tuple[str, str], ...]) -> str:
    """One sentence for a change set of which no file could be written."""
    reasons = list(dict.fromkeys(reason for _, reason in refused))
    if len(reasons) == 1:
        return reasons[0]  # one reason for every file: the change set was refused whole
    file, reason = refused[0]
    return f"Nothing was applied: {len(refused)} files were refused, {file} first: {reason}"


def _print_changeset(result) -> None:
    changeset = result.changeset
    if changeset is None:
        return
    for diff in changeset.files:
        print(f"=== {diff.kind}: {diff.file}")
        print(diff.diff, end="" if diff.diff.endswith("\n") or not diff.diff else "\n")


def _gauge(index) -> str:
    if not index.exists:
        return "no MEMORY.md"
    loaded = (f"cut by {index.cut}: Claude loads {plural(index.loaded_lines, 'line')}"
              if index.cut else "all loaded")
    return f"{plural(index.lines, 'line')}, {index.chars:,} characters ({loaded})"


def _print_summary(result, dry_run: bool) -> None:
    """What the run found and would change, before any diff or question."""
    out = sys.stdout
    if result.gates:
        gates = result.gates
        hours = "never" if gates["hours_since"] is None else f"{gates['hours_since']} h ago"
        cwd = "-" if gates["sessions_cwd"] is None else gates["sessions_cwd"]
        print(f"Last dream: {hours}; sessions since: {cwd} in this folder, "
              f"{gates['sessions_all']} across the store (automatic dreams wait for "
              f"{gates['min_hours']} h and {gates['min_sessions']} sessions)", file=out)
    print(f"Engine: {result.engine}; tokens in/out: {result.tokens_in}/{result.tokens_out}",
          file=out)
    for refusal in result.refusals:
        print(f"Refused: {refusal}", file=out)
    for topic in result.topics_left:
        print(f"Topic left for a second pass: {topic}", file=out)
    changeset = result.changeset
    if changeset is None:
        return
    for note in changeset.notes:
        print(f"Note: {note}", file=out)
    for reason in changeset.held.values():
        print(f"Held: {reason}.", file=out)
    counts = changeset.counts()
    kept = sum(1 for diff in changeset.files if diff.mtime is not None)
    print(f"Change set: {counts['created']} created, {counts['modified']} modified, "
          f"{counts['archived']} archived"
          + (f"; {kept} with an mtime of before the run (recall orders memories by it)"
             if kept else ""), file=out)
    print(f"Index: {_gauge(changeset.index_before)} → {_gauge(changeset.index_after)}",
          file=out)
    if changeset.refusal:
        print("Applied whole or not at all, so this change set would be refused: the app's "
              "review can apply part of it.", file=out)


def _print_outcome(result, outcome, applied: bool, dry_run: bool) -> None:
    out = sys.stdout
    changeset = result.changeset
    if changeset is None:
        return
    if changeset.empty and outcome is not None and outcome.record_ids:
        print("Nothing to change. As Claude Code counts a dream that changed nothing, this one "
              "counts as a consolidation: .consolidate-lock holds its start time now (the last "
              f"dream); undo with `{undo_command(changeset.store)}`.", file=out)
    elif changeset.empty:  # a refusal to record it is said on stderr
        print("Nothing to change.", file=out)
    elif outcome is not None and outcome.applied:
        print(f"Applied {plural(len(outcome.applied), 'file')}; undo with "
              f"`{undo_command(result.changeset.store)}`.", file=out)
        for file, reason in outcome.refused:
            print(f"Refused {file}: {reason}", file=out)
    elif dry_run:
        print("Dry run: nothing was applied.", file=out)
    elif not applied and changeset.refusal is None:
        print("Not applied: run again with --yes to apply.", file=out)


def cmd_dream(args: argparse.Namespace) -> int:
    from tui.agents.dream import cwd_transcript_folder, run_dream
    home, env = _home_env(args)
    target = resolve_store(args, args.target)
    if not os.path.isdir(target.memory_dir):
        raise UsageError(f"There is no memory directory at {target.memory_dir} yet.")
    engine, config = _engine(args, env)
    transcript_dirs = _transcript_dirs(target.memory_dir, home, env, args.settings)
    printer = _Printer(args.json, f"Dreaming over {target.memory_dir} with the {engine} engine")

    def start(cancel):
        return run_dream(target.memory_dir, engine=engine, config=config,
                         transcript_dirs=transcript_dirs,
                         cwd_folder=cwd_transcript_folder(home, target.project_path),
                         listener=printer, cancel=cancel, dry_run=args.dry_run,
                         checkout=target.project_path)

    return _run(args, start, printer)


def _transcript_dirs(store: Path, home: Path, env, settings) -> tuple[Path, ...]:
    from tui.claude.discovery import discover

    for project in discover(home, env, settings).projects:
        if project.store is not None and os.path.realpath(project.store) == os.path.realpath(store):
            return project.transcript_dirs
    return ()


def cmd_extract(args: argparse.Namespace) -> int:
    from tui.agents.extract import run_extract, second_pass_topics

    home, env = _home_env(args)
    args.session = _session_id(args.session, home)
    engine, config = _engine(args, env)
    heading = f"Extracting session {args.session} with the {engine} engine"

    focus = _focus(args)
    while True:
        printer = _Printer(args.json, heading)

        def start(cancel, focus=focus, printer=printer):
            return run_extract(args.session, home=home, env=env, settings_file=args.settings,
                               engine=engine, config=config, force=args.force,
                               listener=printer, cancel=cancel, focus=focus)

        code, result, counted = _run_once(args, start, printer)
        if not (counted and result.topics_left) or args.json:
            return code
        focus = second_pass_topics(result.topics_left)
        interactive = sys.stdin.isatty() and sys.stdout.isatty() and not args.yes
        what = plural(len(focus), "topic") if focus else "the same messages"
        if not (interactive and input(f"Run a second pass on {what} now? [y/N] ")
                .strip().lower() in ("y", "yes")):
            print("Second pass: " + _second_pass_command(args, focus))
            return code
        heading = f"Second pass on {what} with the {engine} engine"


def _session_id(given: str, home: Path) -> str:
    """The full id of the session `given` names, whole or as a unique prefix."""
    from tui.agents.extract import matching_sessions
    from tui.claude import paths

    matches = matching_sessions(given, home)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UsageError(f"No session {given} under {paths.projects_dir(home)}.")
    shown = ", ".join(match[:13] for match in matches[:5])
    raise UsageError(f"{given} starts {len(matches)} session ids ({shown}"
                     f"{', …' if len(matches) > 5 else ''}); give more of it.")


def _focus(args: argparse.Namespace) -> tuple[str, ...]:
    topics = [*args.topic, *(args.topics or "").split(";")]
    return tuple(t.strip() for t in topics if t.strip())


def _second_pass_command(args: argparse.Namespace, focus: tuple[str, ...]) -> str:
    words = ["memtui", "extract", args.session, *(["--force"] if args.force else []),
             *(["--engine", args.engine] if args.engine else [])]
    for topic in focus:
        words += ["--topic", topic]
    return shlex.join(words)
