"""`memtui`: the command line. Every command is a thin shell over the core.

Exit codes: 0 fine, 1 audit found errors, 2 bad usage or unreadable input.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

from tui.claude import paths
from tui.cli.support import (
    CommandParser,
    UsageError,
    check_settings_file,
    command_name,
    config_home_of,
    env_of,
    print_json,
    recover_interrupted,
    resolve_store,
)


def cmd_projects(args: argparse.Namespace) -> int:
    from tui.claude.discovery import discover

    home = projects_home(args)
    inventory = discover(home, env_of(args), args.settings)
    if args.json:
        print_json([project_to_json(p) for p in inventory.projects])
    else:
        from tui.render import print_projects, project_rows  # Rich only for human output

        print_projects(project_rows(inventory.projects), home)
    return 0


def project_to_json(project) -> dict:
    return {
        "name": project.name,
        "store": str(project.store) if project.store else None,
        "store_exists": project.store_exists,
        "key_path": project.key_path,
        "paths": list(project.paths),
        "transcript_dirs": [str(d) for d in project.transcript_dirs],
        "transcript_folders": [
            {
                "path": str(f.path),
                "cwd": f.cwds[0] if f.cwds else None,
                "role": f.role,
                "mapped_by": f.mapped_by,
                "sessions": f.sessions,
                "note": f.note or None,
            }
            for f in project.transcript_folders
        ],
        "sessions": project.sessions,
        "memories": project.memories,
        "stranded": project.stranded,
        "stranded_reason": project.stranded_reason or None,
        "resting": project.resting,
        "last_consolidated": project.last_consolidated,
        "note": project.note or None,
    }


def _load_target(args: argparse.Namespace):
    from tui.memory.store import load_store

    target = resolve_store(args, args.target)
    if not os.path.isdir(target.memory_dir):
        where = f" for {target.project_path}" if target.project_path else ""
        raise UsageError(f"There is no memory directory{where} yet (looked at {target.memory_dir}).")
    return target, load_store(target.memory_dir)


def projects_home(args: argparse.Namespace) -> Path:
    """The config home of a whole-tree command; UsageError when it has no projects."""
    home = config_home_of(args)
    if not os.path.isdir(paths.projects_dir(home)):
        raise UsageError(
            f"No Claude Code projects folder at {paths.projects_dir(home)}; "
            f"set CLAUDE_CONFIG_DIR or run `{command_name()} demo` to try memtui on demo data."
        )
    return home


def cmd_audit_all(args: argparse.Namespace) -> int:
    from contextlib import nullcontext

    from tui.claude.discovery import discover
    from tui.collector import collector_paused
    from tui.memory.audit_cache import AuditCache
    from tui.memory.bulk import AuditRun

    home = projects_home(args)
    # A one-shot run of ~100,000 objects without cycles: collecting them only costs (~10%).
    with collector_paused():
        with nullcontext() if args.no_cache else AuditCache() as cache, \
                AuditRun(cache=cache) as run:
            run.start(likely_stores(home))  # audited by the workers while discovery runs
            inventory = discover(home, env_of(args), args.settings)
            audits = run.finish([(p.store, p.stranded_reason or None)
                                 for p in inventory.projects if p.store_exists])
        if args.json:
            print_json([
                {"store": str(a.store), "memories": a.memories, "errors": a.errors,
                 "cached": a.cached, "findings": [f.to_json() for f in a.findings]}
                for a in audits
            ])
        else:
            from tui.render import print_audit_summary

            labels = {p.store: p.key_path or str(p.store) for p in inventory.projects if p.store}
            print_audit_summary(audits, labels)
    return 1 if any(a.errors for a in audits) else 0


def likely_stores(home: Path) -> list[Path]:
    """The memory dirs under the projects folder: most of what discovery will find."""
    projects = paths.projects_dir(home)
    try:
        names = os.listdir(projects)
    except OSError:
        return []
    return [store for name in names
            if os.path.isdir(store := projects / name / paths.MEMORY_DIR_NAME)]


def cmd_audit(args: argparse.Namespace) -> int:
    if args.all:
        if args.target:
            raise UsageError("Give either a TARGET or --all, not both.")
        return cmd_audit_all(args)
    from tui.memory.audit import audit_store  # after --all: the cache may answer every store
    from tui.memory.report import AuditReport

    target, store = _load_target(args)
    untrusted = (target.untrusted.value, target.untrusted.source) if target.untrusted else None
    findings = audit_store(
        store, stranded_reason=target.stranded_reason, untrusted_setting=untrusted
    )
    report = AuditReport(store, tuple(findings))
    if args.json:
        print_json(report.to_json())
    else:
        from tui.render import print_audit

        print_audit(report, target)
    return 1 if report.errors else 0


def cmd_index(args: argparse.Namespace) -> int:
    _, store = _load_target(args)
    index_path = store.path / paths.INDEX_NAME
    if store.index_not_text:
        raise UsageError(f"{index_path} is not text ({store.index_not_text}); "
                         "memtui does not print it.")
    if not store.index.exists:
        raise UsageError(f"{store.path}: {store.index_error}."
                         if store.index_error else f"{index_path} does not exist.")
    text = store.index.model_text if args.loaded else (store.index_text or "")
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from tui.demo import build_demo

    where = Path(args.dir).expanduser() if args.dir else None
    try:
        demo = build_demo(where)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if sys.stdout.isatty() and not args.no_open:
        from tui.app import run_app

        run_app(demo.home, {**env_of(args), "CLAUDE_CONFIG_DIR": str(demo.home)}, None)
    # After the app, so the way back to the demo stays on screen once the user quits.
    memtui = command_name()
    print(f"Demo config home built at {demo.home}")
    print(f"Try it:  CLAUDE_CONFIG_DIR={demo.home} {memtui} projects")
    print(f"         {memtui} --config-dir {demo.home} audit {demo.audit_example}")
    return 0


def cmd_app(args: argparse.Namespace) -> int:
    from tui.app import run_app

    run_app(config_home_of(args), env_of(args), args.settings)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import shlex
    import socket

    from textual_serve.server import Server

    with socket.socket() as probe:
        try:
            probe.bind((args.host, args.port))
        except OSError as error:
            raise UsageError(
                f"Cannot serve on {args.host}:{args.port} ({error.strerror}); try --port."
            ) from None
    command = [sys.executable, "-m", "tui"]
    if args.config_dir:
        command += ["--config-dir", str(config_home_of(args))]
    if args.settings:
        command += ["--settings", str(args.settings)]
    Server(shlex.join(command), host=args.host, port=args.port, title="memtui").serve()
    return 0


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """memtui's parser; given a command word, with only that command's parser."""
    parser, commands = top_parser()
    add_commands(commands, command)
    return parser


def top_parser() -> tuple[CommandParser, argparse._SubParsersAction]:
    """memtui's own options, and the place for its commands."""
    from tui import __version__

    parser = CommandParser(
        prog="memtui", description="See, repair and curate Claude Code's auto-memory."
    )
    parser.add_argument("--version", action="version", version=f"memtui {__version__}")
    parser.add_argument(
        "--config-dir", metavar="DIR",
        help="Claude Code config home (default: $CLAUDE_CONFIG_DIR or ~/.claude)",
    )
    parser.add_argument(
        "--settings", metavar="FILE", type=Path,
        help="a settings file, as passed to `claude --settings`",
    )
    return parser, parser.add_subparsers(dest="command", metavar="COMMAND")


def add_commands(commands: argparse._SubParsersAction, command: str | None) -> None:
    """The parser of `command`, or of every command when it is None or unknown (argparse
    then lists them all)."""
    if not any(command in names for names, _ in COMMANDS):
        command = None
    for names, adder in COMMANDS:
        if command is None or command in names:
            _adder(adder)(commands)


def _adder(adder):
    """An adder, or a `module:function` one, imported now."""
    if callable(adder):
        return adder
    module, function = adder.split(":")
    return getattr(__import__(module, fromlist=[function]), function)


def add_core_commands(commands) -> None:
    projects = commands.add_parser("projects", help="every project and memory store")
    projects.add_argument("--json", action="store_true", help="machine-readable output")
    projects.set_defaults(run=cmd_projects)

    audit = commands.add_parser("audit", help="findings for one store (exit 1 on errors)")
    audit.add_argument("target", nargs="?", help="memory dir, project path or folder name")
    audit.add_argument("--json", action="store_true", help="machine-readable output")
    audit.add_argument("--all", action="store_true", help="every store under the config home")
    audit.add_argument("--no-cache", action="store_true",
                       help="with --all: read every store again, even unchanged ones")
    audit.set_defaults(run=cmd_audit)

    index = commands.add_parser("index", help="print MEMORY.md")
    index.add_argument("target", nargs="?", help="memory dir, project path or folder name")
    index.add_argument("--loaded", action="store_true",
                       help="print exactly what Claude loads, warning included")
    index.set_defaults(run=cmd_index)

    demo = commands.add_parser("demo", help="build a realistic demo config home and open it")
    demo.add_argument("dir", nargs="?", help="where to build it (default: a temp dir)")
    demo.add_argument("--no-open", action="store_true",
                      help="only build it; do not open the app on it")
    demo.set_defaults(run=cmd_demo)


def add_serve_command(commands) -> None:
    serve = commands.add_parser("serve", help="the app in a browser (textual-serve)")
    serve.add_argument("--host", default="localhost")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(run=cmd_serve)


# Every command, in the order `--help` lists them, and what adds its parser. Only the
# module of the command given is imported: all of them cost ~10 ms of every command's start.
COMMANDS = (
    (("projects", "audit", "index", "demo"), add_core_commands),
    (("undo", "watch", "history", "restore", "merge", "overwrites"),
     "tui.cli.history:add_history_commands"),
    (("dream", "extract"), "tui.cli.runs:add_run_commands"),
    (("sync",), "tui.cli.sync:add_sync_command"),
    (("doctor",), "tui.cli.doctor:add_doctor_command"),
    (("serve",), add_serve_command),
)


def command_word(parser: CommandParser, argv: Sequence[str]) -> str | None:
    """The command `argv` names, read past memtui's own options as the parser reads them;
    None for memtui's own help, which names every command."""
    for word in parser.options_first(list(argv)):
        option = parser.option_of(word)
        if option in ("-h", "--help"):
            return None
        if option is None:
            return None if word == "--" else word
    return None


@contextmanager
def visible_output():
    """Human output shows control characters from the data instead of obeying them."""
    from tui.visible import VisibleStream

    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleStream(sys.stdout), VisibleStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = saved


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser, commands = top_parser()
    add_commands(commands, command_word(parser, argv))
    try:
        args, extras = parser.parse_known_args(argv)
        if extras:
            parser.error(f"unrecognized arguments: {' '.join(extras)}")
    except SystemExit as exit_:
        return int(exit_.code or 0) and 2
    if args.command is None:
        args.run = cmd_app
    try:
        check_settings_file(args.settings)
        if args.run is cmd_app:  # the app shows data its own way, and says it in a notification
            return args.run(args)
        with visible_output():
            recover_interrupted()
            return args.run(args)
    except UsageError as error:
        print(f"memtui: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
