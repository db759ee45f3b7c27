"""Waiting for what another thread, process or timer does: poll for it up to a generous
deadline, never sleep a fixed time.

A loaded machine (a shared 2-core CI box, or the suite's own parallel workers) can take
seconds over what takes milliseconds on an idle one: a Python start, a git commit, a worker's
answer. A test that passes stops waiting as soon as the condition holds, so a long deadline
costs nothing; it only decides how long a failing test takes to say so.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO

# Seconds. On a shared 2-core machine an app test waits 3 s for a store's reload alone at
# load 12, and ran past 60 s in a whole parallel run at load 12 to 18.
PATIENCE = 120.0


def wait_until(condition: Callable[[], object], timeout: float = PATIENCE,
               every: float = 0.05) -> bool:
    """Whether `condition()` came to hold within `timeout` seconds (polled every `every`)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return bool(condition())
        time.sleep(every)
    return True


async def pilot_until(pilot, condition: Callable[[], object], timeout: float = PATIENCE,
                      every: float = 0.1) -> bool:
    """`wait_until` inside a Textual pilot test: the app runs (its workers post back, its
    timers fire) while the test waits. Each look holds the GIL that the app's worker
    threads need, so a condition should be cheap and `every` not too short."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return bool(condition())
        await pilot.pause(every)
    return True


class PrintedLines:
    """The lines a process prints on one pipe, read by a thread of their own as they come,
    so that a test waits for a line with a deadline (a bare `readline` waits forever) and
    nothing else reads the pipe meanwhile."""

    def __init__(self, pipe: IO[str]):
        self.pipe = pipe
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.pipe:
            self.lines.append(line)

    def wait_for(self, wanted: Callable[[str], bool], timeout: float = PATIENCE) -> str:
        """The first line printed that is `wanted`."""
        assert wait_until(lambda: any(map(wanted, list(self.lines))), timeout), \
            f"no such line in {timeout:.0f} s; printed so far: {self.lines}"
        return next(line for line in list(self.lines) if wanted(line))

    def whole(self) -> list[str]:
        """Every line, once the process has ended (and with it the pipe)."""
        self.close()
        assert self.pipe.closed, f"the pipe is still open; printed: {self.lines}"
        return list(self.lines)

    def close(self) -> None:
        """Wait for the reader to reach the end of the pipe, then close it."""
        self._reader.join(PATIENCE)
        if not self._reader.is_alive():
            self.pipe.close()


@contextmanager
def running(args: list[str], **options) -> Iterator[tuple[subprocess.Popen, PrintedLines,
                                                          PrintedLines]]:
    """A process, with its stdout and its stderr read line by line as printed; killed and
    reaped on the way out whatever happened, its readers ended with it."""
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               **options)
    out, err = PrintedLines(process.stdout), PrintedLines(process.stderr)
    try:
        yield process, out, err
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        out.close()
        err.close()
