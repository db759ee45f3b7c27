"""What every `memtui` command shares: the config home, its environment, the target store."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from tui.claude import paths


class UsageError(Exception):
    """One sentence for the user; exit 2."""


def config_home_of(args: argparse.Namespace) -> Path:
    """`--config-dir`, else `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    if args.config_dir:
        return Path(args.config_dir).expanduser()
    return paths.config_home()


def env_of(args: argparse.Namespace) -> dict[str, str]:
    """The environment Claude Code would see, with `--config-dir` as `CLAUDE_CONFIG_DIR`.

    Without `--config-dir` the variable stays as it is: setting it changes other rules
    (`CLAUDE_CODE_PROJECT_DIR_NAME` is honoured only beside it).
    """
    env = dict(os.environ)
    if args.config_dir:
        env["CLAUDE_CONFIG_DIR"] = str(config_home_of(args))
    return env


def resolve_store(args: argparse.Namespace, target: str | None):
    """The `tui.claude.targets.Target` a command's TARGET names."""
    from tui.claude.targets import TargetError, resolve_target

    try:
        resolved = resolve_target(
            target, home=config_home_of(args), env=env_of(args), settings_file=args.settings
        )
    except TargetError as error:
        raise UsageError(str(error)) from None
    tidy_store(resolved.memory_dir)
    return resolved


def recover_interrupted() -> None:
    """Finish what a killed memtui left half done, saying so in one line each."""
    from tui.memory.intents import recover_pending

    try:
        messages = recover_pending()
    except OSError as error:
        messages = [f"could not check for interrupted changes ({error.strerror or error})"]
    for message in messages:
        print(f"memtui: {message}", file=sys.stderr)


def tidy_store(store: Path) -> None:
    """Roll back an interrupted change of a store a command opens, and remove temp files."""
    from tui.memory.intents import recover_store
    from tui.memory.refusals import WriteRefused

    if not store.is_dir():
        return
    try:
        messages = recover_store(store, wait=1.0)
    except WriteRefused:
        return  # another memtui is writing it; that one tidies up after itself
    except OSError as error:
        messages = [f"{store}: could not tidy interrupted changes ({error.strerror or error})"]
    for message in messages:
        print(f"memtui: {message}", file=sys.stderr)


def print_json(data: object) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
