"""Replacing one store file only if it is still what was read: a verified compare-and-swap.

Claude Code writes memory files at any moment and takes no lock, so comparing the file's
bytes and then replacing it leaves a gap in which its write would be silently lost. Here
the old file is first moved aside (one atomic rename), and the bytes compared are the
bytes of the file that was moved: a write that landed before the move is in what we
compare, and a file created at the path after the move makes our install fail (it never
replaces: `link` refuses an existing name). A writer still holding the moved file open
is caught by the aside's signature (inode, size, mtime and ctime in nanoseconds), checked
again for every file of the set after the last install and just before the asides go.

Every file of a change set is staged as a temp file (`.<name>.<id>.memtui-new`) before the
first swap; the old file waits as `.<name>.<id>.memtui-old`. Neither ends in `.md`, so
Claude Code's scanner never reads them, and `intents.recover_store` cleans up after a crash.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from tui import failpoints
from tui.disk_errors import naming
from tui.xdg import TEMP_MARK

NEW_SUFFIX, OLD_SUFFIX = f"{TEMP_MARK}new", f"{TEMP_MARK}old"
LEGACY_SUFFIX = f"{TEMP_MARK}tmp"  # what memtui before the swap left behind


class SwapConflict(Exception):
    """The file is not the bytes the change was made against; `actual` is what is there."""

    def __init__(self, file: str, actual: bytes | None):
        self.file = file
        self.actual = actual
        super().__init__(file)


def temp_name(path: Path, record_id: str, suffix: str) -> Path:
    return path.with_name(f".{path.name}.{record_id}{suffix}")


def read_nofollow(path: Path) -> bytes | None:
    """A regular file's bytes without following a link; None when absent.

    Anything else at the path (a link, a folder, a FIFO) raises OSError: it is never
    the bytes a change was made against."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        chunks = []
        while chunk := os.read(handle, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(handle)


def _signature(path: Path) -> tuple[int, int, int, int]:
    info = os.lstat(path)
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def fsync_dir(folder: Path) -> None:
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


# A file's mtime as memtui keeps it: nanoseconds as an int (exact: `st_mtime_ns`), or seconds
# as a float (what older undo records and callers holding `st_mtime` give).
Mtime = int | float


def mtime_ns(mtime: Mtime) -> int:
    """`mtime` in nanoseconds: an int is already, a float is seconds."""
    return mtime if isinstance(mtime, int) else round(mtime * 1_000_000_000)


def write_new_file(path: Path, data: bytes, mode: int | None, mtime: Mtime | None) -> int:
    """Create `path` (which must not exist) holding `data`, synced; returns its inode."""
    failpoints.reached("io.write", str(path))
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(handle, view):]
        if mode is not None:
            os.fchmod(handle, mode)
        if mtime is not None:
            os.utime(handle, ns=(mtime_ns(mtime), mtime_ns(mtime)))
        os.fsync(handle)
        return os.fstat(handle).st_ino
    except BaseException as error:
        os.close(handle)
        handle = -1
        path.unlink(missing_ok=True)
        if isinstance(error, OSError):
            naming(error, path)
        raise
    finally:
        if handle >= 0:
            os.close(handle)


def _install(temp: Path, path: Path, data: bytes, mode: int | None, mtime: Mtime | None) -> int:
    """Give the staged temp file the name `path`, never replacing anything there."""
    try:
        os.link(temp, path, follow_symlinks=False)
        return os.lstat(temp).st_ino
    except FileExistsError:
        raise
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK,
                               errno.ENOSYS):
            raise
    # A filesystem without hard links: an exclusive create refuses a name just as well.
    return write_new_file(path, data, mode, mtime)


@dataclass
class FileSwap:
    """One file of a change set on its way from `before` to `after`."""

    file: str
    path: Path
    before: bytes | None
    after: bytes | None
    record_id: str
    mode: int | None = None
    mtime: Mtime | None = None  # the mtime to give the new file (undo, restore)
    before_mtime: Mtime | None = None  # the old file's, should it be written back
    temp: Path | None = None
    aside: Path | None = None
    aside_signature: tuple[int, int, int, int] | None = None
    installed: int | None = None  # the inode we put at `path`
    removed: bool = False  # deleted, and the moved-aside old file dropped

    def stage(self) -> None:
        """Write the new bytes next to the target, synced, ready to be linked in."""
        if self.after is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temp = temp_name(self.path, self.record_id, NEW_SUFFIX)
        write_new_file(temp, self.after, self.mode, self.mtime)
        self.temp = temp

    def swap(self) -> None:
        """Move the old file aside, compare it, install the new one; SwapConflict if the
        file is not what the change was made against (then it is left as it was)."""
        if self.before is not None:
            self._take_aside()
        failpoints.reached("swap.aside", self.file)
        if self.after is None:
            return
        try:
            self.installed = _install(self.temp, self.path, self.after, self.mode, self.mtime)
        except FileExistsError:
            # Someone wrote the file after we moved it aside: theirs stays.
            actual = _read_or_none(self.path)
            self._put_aside_back()
            raise SwapConflict(self.file, actual) from None
        failpoints.reached("swap.installed", self.file)

    def _take_aside(self) -> None:
        aside = temp_name(self.path, self.record_id, OLD_SUFFIX)
        try:
            os.rename(self.path, aside)
        except FileNotFoundError:
            raise SwapConflict(self.file, None) from None
        self.aside = aside
        try:
            self.aside_signature = _signature(aside)
            actual = read_nofollow(aside)
        except OSError:
            actual = None
            self.aside_signature = None
        if actual != self.before or self.aside_signature is None:
            self._put_aside_back()
            raise SwapConflict(self.file, actual)

    def _put_aside_back(self) -> None:
        """The moved file returns to its name, unless something new took the name."""
        if self.aside is None:
            return
        try:
            os.link(self.aside, self.path, follow_symlinks=False)
        except FileExistsError:
            return  # the caller keeps the aside's bytes (see `writes._save_leftover`)
        except OSError:
            os.rename(self.aside, self.path)  # no hard links: the name is still free
            self.aside = None
            return
        os.unlink(self.aside)
        self.aside = None

    def verify(self) -> None:
        """The last look at the moved-aside file: if a writer that held it open wrote
        meanwhile, SwapConflict (the caller rolls the whole set back)."""
        if self.aside is not None and _signature(self.aside) != self.aside_signature:
            raise SwapConflict(self.file, _read_or_none(self.aside))

    def drop_aside(self) -> None:
        if self.aside is not None:
            os.unlink(self.aside)
            self.aside = None
            self.removed = self.after is None

    def roll_back(self) -> bool:
        """Undo this swap; False when an outside write since our install (or, for a
        deletion, a file created at the name since) was kept instead."""
        if self.removed:
            return self._write_back_removed()
        if self.installed is None:
            self._put_aside_back()
            return True
        if not self._ours_unchanged():
            self.installed = None
            return False
        if self.aside is not None:
            os.replace(self.aside, self.path)  # the old file itself, inode and all
            self.aside = None
        elif self.before is None:
            os.unlink(self.path)
        else:
            self.discard_temp()
            temp = temp_name(self.path, self.record_id, NEW_SUFFIX)
            write_new_file(temp, self.before, self.mode, self.before_mtime)
            os.replace(temp, self.path)
        self.installed = None
        return True

    def _write_back_removed(self) -> bool:
        assert self.before is not None
        temp = temp_name(self.path, self.record_id, NEW_SUFFIX)
        temp.unlink(missing_ok=True)
        write_new_file(temp, self.before, self.mode, self.before_mtime)
        try:
            _install(temp, self.path, self.before, self.mode, self.before_mtime)
        except FileExistsError:
            return False
        finally:
            temp.unlink(missing_ok=True)
        self.removed = False
        return True

    def _ours_unchanged(self) -> bool:
        try:
            info = os.lstat(self.path)
            return info.st_ino == self.installed and read_nofollow(self.path) == self.after
        except OSError:
            return False

    def discard_temp(self) -> None:
        if self.temp is not None:
            self.temp.unlink(missing_ok=True)
            self.temp = None


def _read_or_none(path: Path) -> bytes | None:
    try:
        return read_nofollow(path)
    except OSError:
        return None
