"""One sentence for a file-system error: which path, what is wrong with it, what to do.

A full disk, a file-size limit, a read-only mount, a missing permission, a file where a
folder should be or a folder where a file should be: each is said the same way wherever
it happens (a store, memtui's backups, journal, caches or state, the temp dir).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

# memtui's own folders, and the variable that moves each one elsewhere.
_OWN_DIRS = (("data_dir", "MEMTUI_DATA_DIR"), ("state_dir", "MEMTUI_STATE_DIR"),
             ("cache_dir", "MEMTUI_CACHE_DIR"), ("config_dir", "MEMTUI_CONFIG_DIR"))


def unwritable(folder: str | os.PathLike[str]) -> str | None:
    """Why nothing can be created, replaced or removed in `folder`, an existing folder (a
    read-only mount, its mode, an immutable flag); None when it can be, or is no folder."""
    if not os.path.isdir(folder) or os.access(folder, os.W_OK | os.X_OK):
        return None
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "it is on a read-only file system"
    except OSError:
        pass
    return "you have no permission to write in it"


def failed_path(error: OSError) -> str | None:
    """The path an error is about, as the call that failed named it."""
    for name in (error.filename, error.filename2):
        if name is not None:
            return os.fsdecode(name)
    return None


def naming(error: OSError, path: str | os.PathLike[str]) -> None:
    """Have the error name `path` if the call that failed did not (`os.write`, `os.fsync`)."""
    if error.filename is None:
        error.filename = os.fspath(path)


def sentence(error: OSError, failed: str = "memtui stopped", outcome: str = "",
             shown: str | None = None) -> str:
    """`<failed> at <path>: <what is wrong>[, so <outcome>]; <what to do>.` (`failed`:
    "Recording the change failed"; `outcome`: "nothing was changed"; `shown`: the path as
    the user should read it, when it is not the one the call named; no path: the reason
    alone)."""
    path = failed_path(error)
    problem, remedy = _explained(error, path)
    where = f" at {shown or path}" if path else ""
    so = f", so {outcome}" if outcome else ""
    return f"{failed}{where}: {problem}{so}; {remedy}."


def _explained(error: OSError, path: str | None) -> tuple[str, str]:
    elsewhere = _own_variable(path)
    moved = f", or point {elsewhere} at another folder" if elsewhere else ""
    code = error.errno
    if code in (errno.ENOSPC, errno.EDQUOT):
        full = "the disk is full" if code == errno.ENOSPC else "the disk quota is used up"
        return full, f"free some space{moved} and try again"
    if code == errno.EFBIG:
        return ("the file would grow past this process's file-size limit (ulimit -f)",
                "raise the limit and try again")
    if code == errno.EROFS:
        return "it is on a read-only file system", f"make it writable{moved} and try again"
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied", f"give your user access to it{moved} and try again"
    if code == errno.ENOTDIR:
        blocker = _file_in_the_way(path)
        what = f"{blocker} is a file where a folder is needed" if blocker else \
            "a part of the path is a file where a folder is needed"
        return what, f"move it aside{moved} and try again"
    if code == errno.EISDIR:
        return "it is a folder where a file is needed", "move it aside and try again"
    if code == errno.ELOOP:
        return "it leads through a loop of symlinks", "fix the link and try again"
    reason = error.strerror or str(error)
    return reason[:1].lower() + reason[1:], "check it and try again"


def _file_in_the_way(path: str | None) -> str | None:
    """The nearest part of `path` that exists and is not a folder."""
    if not path:
        return None
    for part in [Path(path), *Path(path).parents]:
        if os.path.lexists(part):
            return None if os.path.isdir(part) else str(part)
    return None


def _own_variable(path: str | None) -> str | None:
    """The variable that moves the memtui folder `path` is in, if it is in one."""
    if not path:
        return None
    from tui import xdg

    for place, variable in _OWN_DIRS:
        folder = str(getattr(xdg, place)())
        if path == folder or path.startswith(folder.rstrip("/") + "/"):
            return variable
    return None
