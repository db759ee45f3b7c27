"""Reading files found on disk without trusting what they are.

Memory dirs, config homes and checkouts hold whatever other programs left there. A named
pipe called `MEMORY.md` blocks the `open()` that reads it until some writer comes, a
symlink to `/dev/zero` never ends, a device may act on being opened, and a path from a
transcript may hold a NUL or a lone surrogate no file name can. So only regular files are
opened: the path is checked with `stat` before the open, and the open itself never blocks
(`O_NONBLOCK`) and is checked again with `fstat`, in case the file changed in between.
Everything else is an `OSError` with a reason a user can read.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat

TYPE_CHECKING = False  # importing typing costs 2 ms of every command's start
if TYPE_CHECKING:
    from typing import BinaryIO

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class NotAFile(OSError):
    """A path that exists but is no regular file nor a directory (IsADirectoryError);
    `strerror` says what it is."""


def kind_of(mode: int) -> str:
    """What a file of this mode is, as a user would say it."""
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return "not a regular file"


def _not_a_file(mode: int, path: str | os.PathLike[str] | bytes) -> OSError:
    reason = f"it is {kind_of(mode)}, not a regular file"
    if stat.S_ISDIR(mode):
        return IsADirectoryError(errno.EISDIR, reason, os.fspath(path))
    return NotAFile(errno.EINVAL, reason, os.fspath(path))


def open_regular(path: str | os.PathLike[str] | bytes,
                 status: os.stat_result | None = None) -> int:
    """A read-only descriptor on a regular file (symlinks followed); OSError for anything
    else, including a path no file can have (a NUL, a lone surrogate). `status`: the
    path's `os.stat`, when the caller has just taken it (it stands for ours)."""
    return open_regular_status(path, status)[0]


def open_regular_status(path: str | os.PathLike[str] | bytes,
                        status: os.stat_result | None = None) -> tuple[int, os.stat_result]:
    """`open_regular`, and the open file's status (its `fstat`)."""
    try:
        if status is None:  # not opening what is no file (a device may act on an open)
            status = os.stat(path)
        if not stat.S_ISREG(status.st_mode):
            raise _not_a_file(status.st_mode, path)
    except ValueError:
        raise OSError(errno.EINVAL, "no file can have this name", repr(path)) from None
    return _open_checked(path)


def open_listed(entry: os.DirEntry[str]) -> tuple[int, os.stat_result]:
    """`open_regular_status` for an entry of a directory listing: one the listing calls a
    regular file (not a symlink) is opened with no `stat` first, the listing's type
    standing for it (a tree's 20,000 memories: 20,000 path lookups fewer); the `fstat`
    after the open checks it all the same."""
    if entry.is_symlink() or not entry.is_file(follow_symlinks=False):
        return open_regular_status(entry.path)
    return _open_checked(entry.path)


def _open_checked(path: str | os.PathLike[str] | bytes) -> tuple[int, os.stat_result]:
    """A non-blocking read-only open, and its `fstat`: OSError unless a regular file."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except ValueError:
        raise OSError(errno.EINVAL, "no file can have this name", repr(path)) from None
    try:
        opened = os.fstat(descriptor)
        if not stat.S_ISREG(opened.st_mode):
            raise _not_a_file(opened.st_mode, path)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor, opened


def open_binary(path: str | os.PathLike[str] | bytes, buffering: int = -1,
                status: os.stat_result | None = None) -> BinaryIO:
    """`open(path, "rb")` for regular files only (`status` as for `open_regular`)."""
    return os.fdopen(open_regular(path, status), "rb", buffering=buffering)


def read_regular(path: str | os.PathLike[str] | bytes, limit: int | None = None) -> bytes:
    """The bytes of a regular file (at most `limit` of them)."""
    with open_binary(path, buffering=0) as handle:
        return handle.readall() if limit is None else _read_up_to(handle, limit)


def _read_up_to(handle: BinaryIO, limit: int) -> bytes:
    chunks = []
    while limit > 0:
        chunk = handle.read(min(limit, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        limit -= len(chunk)
    return b"".join(chunks)


def is_gone(path: str | os.PathLike[str] | bytes) -> bool:
    """Whether nothing is at `path` any more, so a cache may forget it (a path that cannot
    be looked at is not gone: it may be back when it can)."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except (OSError, ValueError):
        return False
    return False


def replace_cache_file(path: str, data: bytes) -> bool:
    """Write a cache file whole: into a partial file beside it, renamed into place. Whether
    it was written; a cache that cannot be (a folder in its place, a full disk) only costs
    time, and leaves no partial file behind to pile up run after run."""
    folder, name = os.path.split(path)
    partial = os.path.join(folder, f".{name}.{os.getpid()}.partial")
    try:
        os.makedirs(folder, exist_ok=True)
        with open(partial, "wb") as handle:
            handle.write(data)
        os.replace(partial, path)
    except OSError:
        try:
            os.unlink(partial)
        except OSError:
            pass
        return False
    return True


def read_text(path: str | os.PathLike[str] | bytes, limit: int | None = None) -> str:
    """A regular file's text, bytes that are not UTF-8 replaced."""
    return decode_utf8(read_regular(path, limit), "replace")


# A huge text is worked on a megabyte at a time: one C call over 50 MB holds the GIL for a
# tenth of a second, and the app's UI thread waits that long for its next frame.
STEP = 1 << 20


def decode_utf8(data: bytes, errors: str = "strict") -> str:
    """`data.decode("utf-8", errors)`, a megabyte at a time (see STEP)."""
    if len(data) <= STEP:
        return data.decode("utf-8", errors)
    decoder = codecs.getincrementaldecoder("utf-8")(errors)
    with memoryview(data) as view:
        parts = [decoder.decode(view[start:start + STEP]) for start in range(0, len(data), STEP)]
    parts.append(decoder.decode(b"", final=True))
    return "".join(parts)


# C0 controls but tab, line feed, form feed and carriage return; and DEL.
_CONTROLS = bytes(byte for byte in range(32) if byte not in b"\t\n\f\r") + b"\x7f"
NOT_TEXT_SHARE = 0.3  # past this share of odd characters a file is no text
NOT_TEXT_SAMPLE = 1 << 20  # what is looked at: the first megabyte, as git looks at a head


def not_text(data: bytes) -> str | None:
    """Why a file is no text file, judged by its first megabyte, or None.

    A NUL byte makes it binary (no editor or model writes one); so does a share of more
    than 30% of control characters and bytes that are not UTF-8, which a text in a legacy
    encoding (a few percent) never reaches and random bytes always do."""
    sample = data[:NOT_TEXT_SAMPLE]
    if b"\0" in sample:
        return "it holds NUL bytes"
    text = sample.decode("utf-8", errors="replace")
    controls = len(sample) - len(sample.translate(None, _CONTROLS))
    if text and text.count("\ufffd") + controls > NOT_TEXT_SHARE * len(text):
        return "most of it is not UTF-8 text"
    return None
