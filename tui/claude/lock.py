"""The `.consolidate-lock` in a memory dir.

Its mtime is "last consolidated at"; its body is the holder's PID. It is held while the
file is younger than 60 minutes and that PID is alive. Two cases Claude Code counts as held
are not: a lock dated more than those 60 minutes in the future (a clock that was wrong:
it would be held until that date), and a PID whose process started after the lock was
written (the holder died and its PID went to another process, which cannot be it).

memtui takes it as Claude Code does, with two guarantees more: it never writes through a
link or into anything but a regular file, and before writing its PID it records the lock
as it was (bytes and mtime) in a lease file outside the store, so that a memtui killed
mid-dream leaves nothing counted: the next command puts the lock back exactly.
"""

from __future__ import annotations

import base64
import json
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from tui import failpoints
from tui.claude.paths import LOCK_NAME
from tui.xdg import TEMP_MARK, lock_leases_dir, store_key

_PID_DIGITS = 10  # a PID is at most this long; a longer body is no PID

HOLD_SECONDS = 60 * 60


# A process that started this much after the lock's mtime is surely not its holder: the
# boot time a start time is counted from, and a file's mtime, are each rounded.
START_SLACK = 2.0


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # no such process; no PID is that high
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def holder_alive(pid: int, written: float) -> bool:
    """Whether process `pid` is alive and may have written a lock at `written`: one that
    started after that moment reused the PID of a holder that is gone."""
    if not pid_alive(pid):
        return False
    started = process_start(pid)
    return started is None or started <= written + START_SLACK


def process_start(pid: int) -> float | None:
    """When a process started (seconds since the epoch), from /proc; None where there is
    no /proc to say (macOS) or the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as source:
            stat_line = source.read()
        with open("/proc/stat", "rb") as source:
            boot = next(int(line.split()[1]) for line in source if line.startswith(b"btime "))
        # Field 22, counted after the command name, which may hold spaces and parentheses.
        ticks = int(stat_line[stat_line.rindex(b")") + 2:].split()[19])
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


@dataclass(frozen=True)
class LockState:
    path: Path
    exists: bool
    mtime: float | None = None
    pid: int | None = None
    body: bytes | None = None  # exactly as found, so a rollback can restore it

    @property
    def last_consolidated(self) -> float | None:
        return self.mtime

    def held(self, now: float | None = None) -> bool:
        """True while a live process holds the lock (a dream is running)."""
        if not self.exists or self.mtime is None or self.pid is None:
            return False
        now = time.time() if now is None else now
        return (abs(now - self.mtime) < HOLD_SECONDS
                and holder_alive(self.pid, self.mtime))


def read_lock(memory_dir: Path) -> LockState:
    path = memory_dir / LOCK_NAME
    try:
        info = path.stat()
    except OSError:
        return LockState(path, exists=False)
    body = _read_body(path) if stat.S_ISREG(info.st_mode) else None
    text = (body or b"").decode("utf-8", errors="replace").strip()
    pid = int(text) if text.isdigit() and len(text) <= _PID_DIGITS else None
    return LockState(path, exists=True, mtime=info.st_mtime, pid=pid, body=body)


def _read_body(path: Path) -> bytes | None:
    """The lock's bytes (at most a few KB: a PID), never blocking on a special file."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        return os.read(handle, 4096)
    except OSError:
        return None
    finally:
        os.close(handle)


LOCK_TEMP_SUFFIX = f"{TEMP_MARK}lock"


def _replace_lock(path: Path, body: bytes, mtime: float | None = None) -> None:
    """Give the lock file `body` (and `mtime`) in one rename, so a reader or a kill sees the
    old lock or the new one, never a truncated one. Never writes through a link: a lock
    that is not a regular file is refused, and a rename replaces a name, not its target."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise LockBusy(f"{path} is a symlink; memtui does not write through links.")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise LockBusy(f"{path} is not a regular file; memtui will not write it.")
    temp = path.with_name(f".{path.name}.{os.getpid()}{LOCK_TEMP_SUFFIX}")
    temp.unlink(missing_ok=True)
    mode = stat.S_IMODE(info.st_mode) if info is not None else 0o644
    handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        os.write(handle, body)
        if mtime is not None:
            os.utime(handle, (mtime, mtime))
    finally:
        os.close(handle)
    try:
        os.replace(temp, path)
    except OSError:
        temp.unlink(missing_ok=True)
        raise


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
    if previous.exists and previous.body is None:
        raise LockBusy(f"{previous.path} is not a regular file; memtui will not take it.")
    pid = os.getpid()
    record = _write_lease_record(memory_dir, pid, previous)
    try:
        failpoints.reached("lock.leased", str(memory_dir))
        _replace_lock(previous.path, str(pid).encode())
        taken = read_lock(memory_dir)  # its mtime too: a racer may remove the lock right after
        if taken.pid != pid:
            raise LockBusy("Another process took the consolidation lock at the same moment.")
    except BaseException:
        record.unlink(missing_ok=True)
        raise
    return LockLease(previous.path, pid, taken.mtime, previous)


def release_lock(lease: LockLease) -> None:
    """A successful run: the mtime stays at the start time, the body no longer names a
    live holder (memtui may keep running long after the run)."""
    if _still_ours(lease):
        _replace_lock(lease.path, b"", lease.started)
    _lease_record(lease.path.parent, lease.pid).unlink(missing_ok=True)


def rollback_lock(lease: LockLease) -> None:
    """A failed or cancelled run: as if it never started (bytes and mtime as they were)."""
    if _still_ours(lease):  # else someone reclaimed it since; theirs now
        restore_lock(lease.path.parent, lease.previous)
    _lease_record(lease.path.parent, lease.pid).unlink(missing_ok=True)


def restore_lock(memory_dir: Path, previous: LockState) -> None:
    """Put the lock back exactly as `previous` found it, or remove it if there was none."""
    path = memory_dir / LOCK_NAME
    if not previous.exists:
        path.unlink(missing_ok=True)
        return
    _replace_lock(path, previous.body or b"", previous.mtime)


def state_json(state: LockState) -> dict:
    """A lock state as JSON (bytes in base64), for records kept outside the store."""
    return {"exists": state.exists, "mtime": state.mtime,
            "body": None if state.body is None else base64.b64encode(state.body).decode()}


def state_from_json(memory_dir: Path, data: dict) -> LockState:
    body = data.get("body")
    return LockState(memory_dir / LOCK_NAME, bool(data.get("exists")), data.get("mtime"),
                     None, None if body is None else base64.b64decode(body))


def _lease_record(memory_dir: Path, pid: int) -> Path:
    """One record per process: two dreams racing for the lock never touch each other's."""
    return lock_leases_dir() / f"{store_key(memory_dir)}.{pid}.json"


def _write_lease_record(memory_dir: Path, pid: int, previous: LockState) -> Path:
    record = _lease_record(memory_dir, pid)
    record.parent.mkdir(parents=True, exist_ok=True)
    partial = record.with_suffix(".partial")
    partial.write_text(json.dumps({"store": str(memory_dir), "pid": pid,
                                   "previous": state_json(previous)}), encoding="utf-8")
    os.replace(partial, record)
    return record


def recover_abandoned_leases() -> list[str]:
    """Locks taken by a memtui that died mid-dream, put back as they were before it."""
    messages: list[str] = []
    try:
        records = list(lock_leases_dir().glob("*.json"))
    except OSError:
        return messages
    for record in records:
        try:
            data = json.loads(record.read_text(encoding="utf-8"))
            store, pid = Path(data["store"]), int(data["pid"])
            previous = state_from_json(store, data["previous"])
        except (OSError, ValueError, KeyError, TypeError):
            record.unlink(missing_ok=True)
            continue
        if pid_alive(pid):
            continue
        if read_lock(store).pid == pid:
            try:
                restore_lock(store, previous)
            except (OSError, LockBusy):
                continue
            messages.append(f"{store}: put the consolidation lock back as it was before an "
                            "interrupted memtui dream.")
        record.unlink(missing_ok=True)
    return messages


def _still_ours(lease: LockLease) -> bool:
    """Our PID is in it, or it is exactly as `release_lock` left it."""
    state = read_lock(lease.path.parent)
    if state.pid == lease.pid:
        return True
    return state.exists and state.pid is None and state.mtime == lease.started
