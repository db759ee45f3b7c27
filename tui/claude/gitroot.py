"""The canonical git root Claude Code keys memory by.

Worktrees share the main checkout's store; submodules keep their own; a worktree whose
back-links do not check out is treated as its own root, exactly as Claude Code does.
"""

from __future__ import annotations

import os
from pathlib import Path

from tui.claude.files import read_regular


class Looks:
    """How the folders on the way are looked at: `os.path`'s answers, each asked again.
    Discovery passes its own, answered from the lstats its cache takes anyway."""

    lexists = staticmethod(os.path.lexists)
    isfile = staticmethod(os.path.isfile)
    realpath = staticmethod(os.path.realpath)


OS_LOOKS = Looks()


def find_git_root(start: str | os.PathLike[str]) -> Path | None:
    """The nearest directory at or above `start` holding a `.git` directory or file."""
    found = _git_root_of(str(Path(start)), OS_LOOKS)  # pathlib's form, then strings
    return None if found is None else Path(found)


def _git_root_of(path: str, looks: Looks) -> str | None:
    """`find_git_root` of a path in pathlib's form (a realpath is): walked up by strings,
    a tenth of the cost of Path objects per level."""
    while True:
        if looks.lexists(os.path.join(path, ".git")):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


# `.git`, `commondir` and `gitdir` files hold one path; past this they are not git's.
POINTER_LIMIT = 1 << 16


def read_small_text(path: Path) -> str | None:
    """A small git pointer file's text; None when missing, unreadable, no regular file
    (a FIFO must not block discovery) or too long to be a path."""
    try:
        data = read_regular(path, POINTER_LIMIT + 1)
    except OSError:
        return None
    return None if len(data) > POINTER_LIMIT else data.decode("utf-8", errors="replace")


def _realpath(path: Path, looks: Looks) -> Path | None:
    """`os.path.realpath`, or None for a path no file can have (a NUL from a damaged file)."""
    try:
        return Path(looks.realpath(os.fspath(path)))
    except ValueError:
        return None


def gitdir_pointer(dot_git: Path, looks: Looks = OS_LOOKS) -> Path | None:
    """The directory a `.git` *file* points at (`gitdir: <path>`), resolved."""
    text = read_small_text(dot_git)
    if text is None or not text.startswith("gitdir:"):
        return None
    target = text[len("gitdir:") :].strip()
    if not target:
        return None
    return _realpath(dot_git.parent / target, looks)


def canonical_root_of(git_root: Path, looks: Looks = OS_LOOKS) -> Path:
    """Map a checkout to the checkout whose store it shares."""
    dot_git = git_root / ".git"
    if not looks.isfile(os.fspath(dot_git)):
        return git_root
    worktree_git_dir = gitdir_pointer(dot_git, looks)
    if worktree_git_dir is None:
        return git_root
    commondir_text = read_small_text(worktree_git_dir / "commondir")
    if commondir_text is None:
        return git_root  # a submodule: no commondir, its own root
    common_dir = _realpath(worktree_git_dir / commondir_text.strip(), looks)
    if common_dir is None or (_realpath(worktree_git_dir.parent, looks)
                              != common_dir / "worktrees"):
        return git_root
    back_link = read_small_text(worktree_git_dir / "gitdir")
    if back_link is None:
        return git_root
    back_target = _realpath(worktree_git_dir / back_link.strip(), looks)
    if back_target is None or back_target != _realpath(dot_git, looks):
        return git_root
    if common_dir.name == ".git":
        return common_dir.parent
    return common_dir  # a bare repository's worktree


def canonical_project_root(cwd: str | os.PathLike[str], looks: Looks = OS_LOOKS) -> Path:
    """The path whose sanitized name keys the memory store for a session started in `cwd`.

    `cwd` must already be a realpath; outside git it is its own root.
    """
    git_root = _git_root_of(os.fspath(cwd), looks)
    return Path(cwd) if git_root is None else canonical_root_of(Path(git_root), looks)
