"""`memtui serve [--host HOST] [--port PORT]`: the app in a browser, loading nothing from
other hosts (`tui.web_server`)."""

from __future__ import annotations

import argparse
import sys

from tui.cli.support import UsageError, config_home_of


def cmd_serve(args: argparse.Namespace) -> int:
    import shlex
    import socket

    from tui.web_server import LocalServer

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
    LocalServer(shlex.join(command), host=args.host, port=args.port, title="memtui").serve()
    return 0


def _port(text: str) -> int:
    port = int(text) if text.strip().lstrip("-").isdigit() else 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1-65535)")
    return port


def add_serve_command(commands) -> None:
    serve = commands.add_parser("serve", help="the app in a browser (textual-serve)")
    serve.add_argument("--host", default="localhost")
    serve.add_argument("--port", type=_port, default=8000)
    serve.set_defaults(run=cmd_serve)
