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


class LockBusy(Exception):
    """Another live process holds the lock; the message is one sentence for the user."""


@dataclass(frozen=True)
class LockLease:
    """Our hold on the lock, with what was there before so a failed run can be undone."""

    path: Path
    pid: int
    started: float  # the mtime we wrote: "last consolidated at" if the run succeeds
    previous: LockState


def acquire_lock(memory_dir: Path, now: float | None = None) -> LockLease:
    """Take the lock as Claude Code does: refuse a live holder, reclaim a stale one,
    write our PID and re-read it (last writer wins, there is no flock)."""
    previous = read_lock(memory_dir)
    if previous.held(now) and previous.pid != os.getpid():
        minutes = (time.time() - (previous.mtime or 0)) / 60
        raise LockBusy(
            f"A consolidation by process {previous.pid} started {minutes:.0f} min ago "
            "still holds the lock; wait for it to finish."
        )
    pid = os.getpid()
    previous.path.write_text(str(pid), encoding="utf-8")
    if read_lock(memory_dir).pid != pid:
        raise LockBusy("Another process took the consolidation lock at the same moment.")
    return LockLease(previous.path, pid, previous.path.stat().st_mtime, previous)


def release_lock(lease: LockLease) -> None:
    """A successful run: the mtime stays at the start time, the body no longer names a
    live holder (memtui may keep running long after the run)."""
    if not _still_ours(lease):
        return
    lease.path.write_text("", encoding="utf-8")
    os.utime(lease.path, (lease.started, lease.started))


def rollback_lock(lease: LockLease) -> None:
    """A failed or cancelled run: as if it never started."""
    if not _still_ours(lease):
        return  # someone reclaimed it since; theirs now
    if not lease.previous.exists:
        lease.path.unlink(missing_ok=True)
        return
    lease.path.write_text("", encoding="utf-8")
    mtime = lease.previous.mtime or lease.started
    os.utime(lease.path, (mtime, mtime))


def _still_ours(lease: LockLease) -> bool:
    """Our PID is in it, or it is exactly as `release_lock` left it."""
    state = read_lock(lease.path.parent)
    if state.pid == lease.pid:
        return True
    return state.exists and state.pid is None and state.mtime == lease.started
