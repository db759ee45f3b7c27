"""Named moments inside a write, where tests and the torture script step in.

`reached(name)` costs one dict lookup when nothing listens. Tests register a callback
(`on(name, callback)`) to act at that exact moment, for example an outside writer landing
between memtui's check and its replace. `MEMTUI_FAILPOINT=name` or `name:N` makes the
process kill itself with SIGKILL the first (or Nth) time it gets there: a crash at a chosen
moment, for the crash-recovery tests and `scripts/torture_writes.py`. `name:ENOSPC` or
`name:N:EROFS` (any errno name) raises that OSError there instead, naming the point's
detail as its path: a full disk or a read-only folder at a chosen moment, for
`scripts/torture_faults.py`. `io.write` is reached before each file memtui writes of its
own (staged files, intent records, the undo log, archive copies), its path the detail.
"""

from __future__ import annotations

import errno
import os
import signal
from collections.abc import Callable

_callbacks: dict[str, Callable[[str], None]] = {}
_counts: dict[str, int] = {}


def on(name: str, callback: Callable[[str], None] | None) -> None:
    """Call `callback(name)` each time `name` is reached (None: stop)."""
    if callback is None:
        _callbacks.pop(name, None)
    else:
        _callbacks[name] = callback


def reached(name: str, detail: str = "") -> None:
    callback = _callbacks.get(name)
    if callback is not None:
        callback(detail)
    wanted = os.environ.get("MEMTUI_FAILPOINT")
    if not wanted:
        return
    point, *options = wanted.split(":")
    if point != name:
        return
    nth = next((int(option) for option in options if option.isdigit()), 1)
    error = next((option for option in options if not option.isdigit()), None)
    _counts[name] = _counts.get(name, 0) + 1
    if _counts[name] < nth:
        return
    if error is None:
        os.kill(os.getpid(), signal.SIGKILL)
    if _counts[name] == nth:  # the Nth time only, as a disk that fails once
        code = getattr(errno, error)
        raise OSError(code, os.strerror(code), detail or None)
