"""A function run in a forked child process, its result handed back through a pipe.

For work that must be done anyway and can use the machine's other core while this process
does something else: the app's discovery while Textual loads, half of a big transcript
search. A fork copies only the thread that calls it, so there is none while another thread
runs (it may hold a lock the child would wait on forever). Whatever goes wrong in the child
(an error, a kill, a hang past the wait) gives no result, never an exception: the caller
then does the work itself.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from tui.collector import collector_paused
from tui.cores import usable_cores

Item = TypeVar("Item")
Answer = TypeVar("Answer")

PIPE_BYTES = 1 << 20  # room for most results: the child need not wait for the reader


class Forked:
    """One child at work; its result is read once."""

    def __init__(self, pid: int, pipe: int) -> None:
        self.pid = pid
        self.pipe = pipe
        self.chunks: list[bytes] = []
        self.done = False

    def ready(self, timeout: float = 0.0) -> bool:
        """Whether all the child writes is there (it closed its end), reading what it has
        written for at most `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not self.done:
            if select.select([self.pipe], [], [], max(0.0, deadline - time.monotonic()))[0]:
                chunk = os.read(self.pipe, PIPE_BYTES)
                if not chunk:
                    return True
                self.chunks.append(chunk)
            elif time.monotonic() >= deadline:
                return False
        return False

    def result(self, timeout: float) -> object | None:
        """The function's result, waiting at most `timeout` seconds for it; None when the
        child failed or took longer (it is stopped then)."""
        data = b"".join(self.chunks) if self.ready(timeout) else b""
        try:
            # Unpickling makes every object of the result at once: in the app, the cycle
            # collector's passes over Textual's heap meanwhile cost twice the unpickling.
            with collector_paused():
                found = pickle.loads(data) if data else None
        except (pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError):
            found = None
        self.close()
        return found

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


def fork_call(function: Callable[..., object], *args: object) -> Forked | None:
    """`function(*args)` begun in a child process; None where there is no fork or no other
    core to run it on, or while another thread runs."""
    if not hasattr(os, "fork") or threading.active_count() > 1 or usable_cores() < 2:
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
            data = pickle.dumps(function(*args), pickle.HIGHEST_PROTOCOL)
            with open(write, "wb") as pipe:
                pipe.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return Forked(pid, read)


def map_shared(function: Callable[[Item], Answer], mine: list[Item], theirs: list[Item],
               wait: float) -> list[Answer]:
    """`function` of every item of `mine`, then of `theirs`, in order: `theirs` in a forked
    child while this process does `mine`; what the child does not give back within `wait`
    seconds is done here after all."""
    child = fork_call(_map, function, theirs)
    done = _map(function, mine)
    answers = child.result(wait) if child is not None else None
    if not (isinstance(answers, list) and len(answers) == len(theirs)):
        answers = _map(function, theirs)
    return done + answers


def _map(function: Callable[[Item], Answer], items: list[Item]) -> list[Answer]:
    return [function(item) for item in items]


def _widen(pipe: int) -> None:
    """A pipe of PIPE_BYTES where the system allows it (Linux)."""
    try:
        import fcntl

        fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass  # the child then waits for the parent to read: slower, the same result
