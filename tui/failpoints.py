"""Named moments inside a write, where tests and the torture script step in.

`reached(name)` costs one dict lookup when nothing listens. Tests register a callback
(`on(name, callback)`) to act at that exact moment, for example an outside writer landing
between memtui's check and its replace. `MEMTUI_FAILPOINT=name` or `name:N` makes the
process kill itself with SIGKILL the first (or Nth) time it gets there: a crash at a chosen
moment, for the crash-recovery tests and `scripts/torture_writes.py`.
"""

from __future__ import annotations

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
    point, _, nth = wanted.partition(":")
    if point != name:
        return
    _counts[name] = _counts.get(name, 0) + 1
    if _counts[name] >= (int(nth) if nth.isdigit() else 1):
        os.kill(os.getpid(), signal.SIGKILL)
