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
        return resolve_target(
            target, home=config_home_of(args), env=env_of(args), settings_file=args.settings
        )
    except TargetError as error:
        raise UsageError(str(error)) from None


def print_json(data: object) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
