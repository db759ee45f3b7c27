"""Discovery begun in a child process while the app is still loading Textual.

Importing Textual and building the first frame take most of a second on a slow machine, and
the projects screen only then starts discovery. A process forked before that (no thread runs
yet, so the fork is safe) discovers on the other core and hands the inventory over a pipe:
when it is there by the time the screen mounts, the first frame has the rows. Whatever goes
wrong in the child (no fork, an error, a kill, a hang) leaves the app to discover on its own,
as it did before.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from tui.app.disk import HomeSignature, home_signature
from tui.claude.discovery import Inventory, discover

WAIT_SECONDS = 60.0  # longer than any discovery of a real home; then the app does its own
PIPE_BYTES = 1 << 20  # room for a heavy home's inventory (~400 KB): the child need not wait


class Prefetched(NamedTuple):
    inventory: Inventory
    signature: HomeSignature  # taken right after the discovery, as a scan takes it


class Prefetch:
    """One discovery under way in a child process, for one home, environment and settings."""

    def __init__(self, pid: int, pipe: int, made_for: tuple) -> None:
        self.pid = pid
        self.pipe = pipe
        self.made_for = made_for
        self.chunks: list[bytes] = []
        self.done = False

    def take(self, home: Path, env: Mapping[str, str], settings_file: Path | None,
             wait: bool = True) -> Prefetched | None:
        """What the child found, once; None when it was made for another home or could
        not be made, and, with `wait` False, while the child is still at it."""
        if self.done:
            return None
        if self.made_for != _made_for(home, env, settings_file):
            self.close()
            return None
        try:
            ended = self.ready(WAIT_SECONDS if wait else 0)
            if not ended and not wait:
                return None
            found = pickle.loads(b"".join(self.chunks)) if ended and self.chunks else None
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
            found = None
        self.close()
        return found if isinstance(found, Prefetched) else None

    def close(self) -> None:
        """Stop the child if it still runs and reap it."""
        if self.done:
            return
        self.done = True
        self.chunks = []
        os.close(self.pipe)
        try:
            if os.waitpid(self.pid, os.WNOHANG) == (0, 0):
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass

    def ready(self, timeout: float = 0.0) -> bool:
        """Whether all the child writes is there (it closed its end), reading what it has
        written for at most `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            if select.select([self.pipe], [], [], max(0.0, deadline - time.monotonic()))[0]:
                chunk = os.read(self.pipe, PIPE_BYTES)
                if not chunk:
                    return True
                self.chunks.append(chunk)
            elif time.monotonic() >= deadline:
                return False


def _made_for(home: Path, env: Mapping[str, str], settings_file: Path | None) -> tuple:
    return os.fspath(home), dict(env), settings_file and os.fspath(settings_file)


def start(home: Path, env: Mapping[str, str], settings_file: Path | None) -> Prefetch | None:
    """Fork a child discovering `home`; None where there is no fork."""
    if not hasattr(os, "fork"):
        return None
    read, write = os.pipe()
    _widen(write)
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: never returns, never runs the parent's exit handlers
        code = 1
        try:
            os.close(read)
            inventory = discover(home, env, settings_file)
            found = Prefetched(inventory, home_signature(home, inventory.projects))
            with open(write, "wb") as pipe:
                pipe.write(pickle.dumps(found, pickle.HIGHEST_PROTOCOL))
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return Prefetch(pid, read, _made_for(home, env, settings_file))


def _widen(pipe: int) -> None:
    """A pipe big enough for the whole inventory, where the system allows (Linux)."""
    try:
        import fcntl

        fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass  # the child then waits for the parent to read: slower, the same result
