"""`memtui demo [DIR] [--no-open]`: a realistic config home to try memtui on."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tui.cli.support import UsageError, command_name, env_of


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
    if not demo.home.is_dir():
        return 0  # replaced by a demo built in the app (`d`), which went with it
    # After the app, so the way back to the demo stays on screen once the user quits.
    memtui = command_name()
    print(f"Demo config home built at {demo.home}")
    print(f"Try it:  CLAUDE_CONFIG_DIR={demo.home} {memtui} projects")
    print(f"         {memtui} --config-dir {demo.home} audit {demo.audit_example}")
    return 0


def add_demo_command(commands) -> None:
    demo = commands.add_parser("demo", help="build a realistic demo config home and open it")
    demo.add_argument("dir", nargs="?", help="where to build it (default: a temp dir)")
    demo.add_argument("--no-open", action="store_true",
                      help="only build it; do not open the app on it")
    demo.set_defaults(run=cmd_demo)
