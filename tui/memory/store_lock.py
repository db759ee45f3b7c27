"""One writer per store among memtui processes: an advisory lock outside the store.

`<state dir>/locks/<store key>.lock` is locked with `flock`, so a process that dies
releases it with its last file descriptor; no stale lock survives a crash. The file's body
names the holder (PID, command, start time) so a second memtui can say who it waits for.

The lock is re-entrant within a process: a journalled write takes it, and the safe write
and the journal snapshots inside take it again without blocking themselves. Threads of
one process take turns. Claude Code never takes this lock; it only orders memtui's own
writers, which the compare-and-swap in `writes` cannot do alone.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tui import disk_errors, notices, xdg
from tui.claude.files import read_regular
from tui.memory.refusals import WriteRefused
from tui.xdg import store_key

WAIT_SECONDS = 15.0


class StoreBusy(WriteRefused):
    """Another memtui process is writing this store; the message is one sentence."""


@dataclass
class _Held:
    guard: threading.RLock
    handle: int | None = None
    depth: int = 0


_held: dict[str, _Held] = {}
_registry_guard = threading.Lock()


def lock_path(store: Path) -> Path:
    return xdg.state_dir() / "locks" / f"{store_key(store)}.lock"


def _entry(key: str) -> _Held:
    with _registry_guard:
        return _held.setdefault(key, _Held(threading.RLock()))


def holder(store: Path) -> dict | None:
    """Who holds (or last held) the lock, as its file says; None when unknown."""
    try:
        data = json.loads(read_regular(lock_path(store)))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _busy_sentence(store: Path, waited: float) -> str:
    info = holder(store) or {}
    who = f"process {info['pid']}" if isinstance(info.get("pid"), int) else "another process"
    command = f" (`{info['command']}`)" if isinstance(info.get("command"), str) else ""
    since = ""
    if isinstance(info.get("since"), (int, float)):
        since = f" since {time.strftime('%H:%M:%S', time.localtime(info['since']))}"
    return (f"Another memtui, {who}{command}, has been writing this store{since}; "
            f"gave up after waiting {waited:.0f} s. Try again when it has finished.")


def _lock_file(path: Path, wait: float) -> int | None:
    """An fd holding the exclusive lock, or None when `wait` ran out."""
    try:
        handle = _open_lock_file(path)
    except OSError as error:
        raise WriteRefused(disk_errors.sentence(
            error, "Taking memtui's lock for this store failed", "nothing was changed")
        ) from None
    deadline = time.monotonic() + wait
    delay = 0.005
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(handle)
                return None
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
        except BaseException:
            os.close(handle)
            raise


_FLAGS = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK


def _open_lock_file(path: Path) -> int:
    """The lock file, opened; anything else in its place (a folder, a link, a pipe: never
    memtui's) is moved aside first, with one sentence."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        handle = os.open(path, _FLAGS, 0o644)
    except OSError as error:
        if error.errno not in (errno.EISDIR, errno.ELOOP, errno.ENXIO):
            raise
    else:
        if stat.S_ISREG(os.fstat(handle).st_mode):
            return handle
        os.close(handle)
    aside = path.with_name(f"{path.name}.{time.strftime('%Y%m%dT%H%M%S')}.not-a-lock")
    os.rename(path, aside)
    notices.tell(f"memtui's lock file {path} was not a file; it was moved aside to {aside} "
                 "and a new one made.")
    return os.open(path, _FLAGS, 0o644)


def _write_holder(handle: int) -> None:
    body = json.dumps({"pid": os.getpid(), "command": " ".join(["memtui", *sys.argv[1:]])[:200],
                       "since": time.time()})
    os.ftruncate(handle, 0)
    os.pwrite(handle, body.encode("utf-8", "replace"), 0)


@contextmanager
def store_lock(store: Path, wait: float | None = None) -> Iterator[None]:
    """Hold the store's memtui lock for the block; StoreBusy after `wait` seconds
    (`WAIT_SECONDS` by default)."""
    wait = WAIT_SECONDS if wait is None else wait
    entry = _entry(store_key(store))
    started = time.monotonic()
    if not entry.guard.acquire(timeout=wait):
        raise StoreBusy(_busy_sentence(store, time.monotonic() - started))
    try:
        if entry.depth == 0:
            remaining = max(0.0, wait - (time.monotonic() - started))
            handle = _lock_file(lock_path(store), remaining)
            if handle is None:
                raise StoreBusy(_busy_sentence(store, time.monotonic() - started))
            _write_holder(handle)
            entry.handle = handle
        entry.depth += 1
        try:
            yield
        finally:
            entry.depth -= 1
            if entry.depth == 0 and entry.handle is not None:
                os.close(entry.handle)  # closing the last fd releases the flock
                entry.handle = None
    finally:
        entry.guard.release()



@contextmanager
def store_locks(stores: list[Path], wait: float | None = None) -> Iterator[None]:
    """Hold several stores' locks for the block, taken in one order (by store key) by every
    memtui, so two of them locking the same stores never wait on each other forever."""
    from contextlib import ExitStack

    with ExitStack() as held:
        for _, store in sorted({store_key(store): store for store in stores}.items()):
            held.enter_context(store_lock(store, wait))
        yield
