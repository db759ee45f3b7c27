"""`memtui`: the command line. Every command is a thin shell over the core.

This module reads the command word and builds only that command's parser; the commands
live one group to a module beside it (stores, search, demo, fix, promote, history, runs,
sync, doctor, gc, serve, hook, transfer, copy_move).
Exit codes: 0 fine, 1 audit found errors, 2 bad usage or unreadable input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

from tui.cli.support import (
    CommandParser,
    UsageError,
    check_settings_file,
    config_home_of,
    env_of,
    recover_interrupted,
)


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
    add_global_options(parser, default=None)
    return parser, parser.add_subparsers(dest="command", metavar="COMMAND")


def add_global_options(parser: argparse.ArgumentParser, default) -> None:
    """memtui's own options, which every command takes too (`memtui doctor --settings F`).
    A command's parser leaves them out of the namespace unless given (`default` SUPPRESS),
    so that one given before the command stays."""
    parser.add_argument(
        "--config-dir", metavar="DIR", default=default,
        help="Claude Code config home (default: $CLAUDE_CONFIG_DIR or ~/.claude)",
    )
    parser.add_argument(
        "--settings", metavar="FILE", type=Path, default=default,
        help="a settings file, as passed to `claude --settings`",
    )


def add_commands(commands: argparse._SubParsersAction, command: str | None) -> None:
    """The parser of `command`, or of every command when it is None or unknown (argparse
    then lists them all)."""
    if not is_command(command):
        command = None
    for names, adder in COMMANDS:
        if command is None or command in names:
            _adder(adder)(commands)
    for parser in {id(parser): parser for parser in commands.choices.values()}.values():
        add_global_options(parser, default=argparse.SUPPRESS)


def is_command(word: str | None) -> bool:
    return any(word in names for names, _ in COMMANDS)


def unknown_command(word: str) -> str:
    """One sentence for a word in the command's place that names no command."""
    from tui.cli.support import and_list, close_match

    commands = [name for names, _ in COMMANDS for name in names]
    guess = close_match(word, commands)
    hint = f" (did you mean {guess}?)" if guess else ""
    return f"memtui has no command {word!r}{hint}; its commands are {and_list(commands)}."


def _adder(adder: str):
    """A `module:function` adder, imported now."""
    module, function = adder.split(":")
    return getattr(__import__(module, fromlist=[function]), function)


# Every command, in the order `--help` lists them, and what adds its parser. Only the
# module of the command given is imported: all of them cost ~10 ms of every command's start.
COMMANDS = (
    (("projects", "audit", "index"), "tui.cli.stores:add_store_commands"),
    (("search",), "tui.cli.search:add_search_command"),
    (("demo",), "tui.cli.demo:add_demo_command"),
    (("fix",), "tui.cli.fix:add_fix_command"),
    (("promote", "demote"), "tui.cli.promote:add_promote_commands"),
    (("undo", "watch", "history", "restore", "merge", "overwrites"),
     "tui.cli.history:add_history_commands"),
    (("dream", "extract"), "tui.cli.runs:add_run_commands"),
    (("sync",), "tui.cli.sync:add_sync_command"),
    (("doctor",), "tui.cli.doctor:add_doctor_command"),
    (("gc",), "tui.cli.gc:add_gc_command"),
    (("serve",), "tui.cli.serve:add_serve_command"),
    (("hook",), "tui.cli.hook:add_hook_command"),
    (("export", "import"), "tui.cli.transfer:add_transfer_commands"),
    (("copy", "move"), "tui.cli.copy_move:add_copy_move_commands"),
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


def cmd_app(args: argparse.Namespace) -> int:
    """`memtui` without a command: the app."""
    from tui.app import run_app

    run_app(config_home_of(args), env_of(args), args.settings)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser, commands = top_parser()
    try:
        word = command_word(parser, argv)
        if word is not None and not is_command(word):
            parser.exit(2, f"{unknown_command(word)}\n")
        add_commands(commands, word)
        args, extras = parser.parse_known_args(argv)
        if extras:
            command = commands.choices.get(args.command, parser)
            command.exit(2, f"{command.prog} has no place for {' '.join(extras)} "
                            f"(`{command.prog} --help` shows what it takes).\n")
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
    except UsageError as error:  # said outside `visible_output`: made visible here
        return _said(str(error))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as error:  # a full disk, a read-only folder, a file in a folder's place
        from tui.disk_errors import sentence

        return _said(sentence(error))
    except Exception as error:
        from tui.memory.refusals import WriteRefused

        if isinstance(error, WriteRefused):  # a write that did not happen, in one sentence
            return _said(str(error))
        raise
    finally:
        _say_notices()


def _said(sentence: str) -> int:
    """One sentence on stderr, made visible; exit 2."""
    from tui.visible import visible

    print(f"memtui: {visible(sentence)}", file=sys.stderr)
    return 2


def _say_notices() -> None:
    """What the core repaired of memtui's own files on the way, one line each."""
    from tui import notices
    from tui.visible import visible

    for sentence in notices.take():
        print(f"memtui: {visible(sentence)}", file=sys.stderr)
