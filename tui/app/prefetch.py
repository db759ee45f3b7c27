"""Discovery begun in a child process while the app is still loading Textual.

Importing Textual and building the first frame take most of a second on a slow machine, and
the projects screen only then starts discovery. A child forked before that (`tui.forked`)
discovers on the other core, and the screen's first scan takes its inventory instead of
discovering again. Whatever goes wrong in the child leaves the app to discover on its own,
as it did before.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from tui.app.disk import HomeSignature, home_signature
from tui.claude.discovery import Inventory, discover
from tui.forked import Forked, fork_call

WAIT_SECONDS = 60.0  # longer than any discovery of a real home; then the app does its own


class Prefetched(NamedTuple):
    inventory: Inventory
    signature: HomeSignature  # taken right after the discovery, as a scan takes it


class Prefetch:
    """One discovery under way in a child process, for one home, environment and settings."""

    def __init__(self, child: Forked, made_for: tuple) -> None:
        self.child = child
        self.made_for = made_for

    def take(self, home: Path, env: Mapping[str, str],
             settings_file: Path | None) -> Prefetched | None:
        """What the child found, once, waiting for it; None when it was made for another
        home or could not be made."""
        if self.child.done:
            return None
        if self.made_for != _made_for(home, env, settings_file):
            self.child.close()
            return None
        found = self.child.result(WAIT_SECONDS)
        return found if isinstance(found, Prefetched) else None

    def close(self) -> None:
        self.child.close()


def _made_for(home: Path, env: Mapping[str, str], settings_file: Path | None) -> tuple:
    return os.fspath(home), dict(env), settings_file and os.fspath(settings_file)


def _discovered(home: Path, env: Mapping[str, str], settings_file: Path | None) -> Prefetched:
    inventory = discover(home, env, settings_file)
    return Prefetched(inventory, home_signature(home, inventory.projects))


def start(home: Path, env: Mapping[str, str], settings_file: Path | None) -> Prefetch | None:
    """A child discovering `home`; None where none can be forked."""
    child = fork_call(_discovered, home, dict(env), settings_file)
    return None if child is None else Prefetch(child, _made_for(home, env, settings_file))
