"""The `.consolidate-lock` in a memory dir.

Its mtime is "last consolidated at"; its body is the holder's PID. It is held while the
file is younger than 60 minutes and that PID is alive.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from tui.claude.paths import LOCK_NAME

HOLD_SECONDS = 60 * 60


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class LockState:
    path: Path
    exists: bool
    mtime: float | None = None
    pid: int | None = None

    @property
    def last_consolidated(self) -> float | None:
        return self.mtime

    def held(self, now: float | None = None) -> bool:
        """True while a live process holds the lock (a dream is running)."""
        if not self.exists or self.mtime is None or self.pid is None:
            return False
        now = time.time() if now is None else now
        return now - self.mtime < HOLD_SECONDS and pid_alive(self.pid)


def read_lock(memory_dir: Path) -> LockState:
    path = memory_dir / LOCK_NAME
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return LockState(path, exists=False)
    try:
        body = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        body = ""
    pid = int(body) if body.isdigit() else None
    return LockState(path, exists=True, mtime=mtime, pid=pid)
