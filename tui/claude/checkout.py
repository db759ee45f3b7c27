"""What git knows of a project's checkout: the files it tracks, and how paths left HEAD's
history (renamed, or deleted), for checking memories against the code they describe.

Two git commands per checkout, each in its own process group and with a timeout: `git
ls-files` and one `git log` of the renames and deletions on HEAD's history. Their answer is
kept in a cache under `~/.cache/memtui`, keyed by the checkout's HEAD (read from the files
under `.git`, without starting git) and its index's stat: a later audit asks git again only
once HEAD moves (a commit, a checkout) or the index changes (an add), and after commits on
top of the HEAD it knew, only for those commits.

What is not tracked is not cached: whether a path exists on disk (an ignored or untracked
file) is asked of the file system each time.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from tui.claude.gitroot import gitdir_pointer, read_small_text

if TYPE_CHECKING:
    import sqlite3
    import subprocess

GIT_SECONDS = 60.0  # one git command's limit; a history this slow to read is said to be
CACHE_BUSY_SECONDS = 1.0
SUBMODULE_MODE = "160000"
_FORMAT_VERSION = 1  # of the cached rows: a change makes every cached checkout stale


class Departure(NamedTuple):
    """How a path left HEAD's history: its newest rename or deletion."""

    commit: str  # abbreviated id
    date: str  # YYYY-MM-DD, the commit's date
    renamed_to: str | None  # None: deleted


class Unchecked(NamedTuple):
    """Why a checkout cannot be checked (a clause: "~/code/shop no longer exists")."""

    reason: str


@dataclass(frozen=True)
class Checkout:
    root: str
    head: str
    tracked: frozenset[str]
    submodules: tuple[str, ...]  # their files are another repository's
    departures: Mapping[str, Departure]
    common_dir: str | None = None  # the repository's git dir (a worktree's main one)

    # Read from the git dir only when a mention needs them (most never do).
    @cached_property
    def other_trees(self) -> tuple[str, ...]:
        """The repository's other worktrees, each a checkout too."""
        return _other_trees(self.common_dir, self.root) if self.common_dir else ()

    @cached_property
    def origin(self) -> str | None:
        """The `origin` remote's URL, as configured."""
        return _origin(self.common_dir) if self.common_dir else None

    @cached_property
    def folders(self) -> frozenset[str]:
        """Every folder holding a tracked file, as `src/billing`."""
        found: set[str] = set()
        for path in self.tracked:
            slash = path.rfind("/")
            while slash > 0 and (folder := path[:slash]) not in found:
                found.add(folder)
                slash = path.rfind("/", 0, slash)
        return frozenset(found)

    @cached_property
    def _by_name(self) -> dict[str, list[str]]:
        """Every tracked file and folder by its last name."""
        return _by_last_name((*self.tracked, *self.folders))

    @cached_property
    def _departed_by_name(self) -> dict[str, list[str]]:
        return _by_last_name(self.departures)

    def has_end(self, path: str) -> bool:
        """Whether `path` is a tracked file or folder seen from a folder below the root
        (`api/x.py` for `backend/api/x.py`): a memory written in a subdirectory names
        paths so."""
        return bool(_ending_in(self._by_name, path))

    def departed_ending_in(self, path: str) -> list[str]:
        """The departed paths `path` is the end of: [`backend/api/x.py`] for `api/x.py`."""
        return _ending_in(self._departed_by_name, path)


def _by_last_name(paths) -> dict[str, list[str]]:
    """One entry a path (not one a suffix): a monorepo's 300,000 files stay 300,000."""
    found: dict[str, list[str]] = {}
    for path in paths:
        found.setdefault(path.rpartition("/")[2], []).append(path)
    return found


def _ending_in(by_name: Mapping[str, list[str]], path: str) -> list[str]:
    tail = "/" + path
    return [full for full in by_name.get(path.rpartition("/")[2], ()) if full.endswith(tail)]


class CheckoutState(NamedTuple):
    """Where a checkout's git files are, and its HEAD and index as they are now: read from
    the files under `.git`, without starting git (unless HEAD is in a reftable)."""

    root: str
    git_dir: str
    common_dir: str
    head: str | None
    index: str  # the index file's stat

    @property
    def key(self) -> str | None:
        """What git's answer for the checkout depends on; None when HEAD cannot be told."""
        return f"{self.head}\0{self.index}" if self.head else None


def checkout_state(path: str | None) -> CheckoutState | Unchecked:
    """The state of the checkout at `path` (a store's project path), or why it cannot be
    checked."""
    shown = tilde(path) if path else ""
    if not path:
        return Unchecked("no checkout is known for this store (no session names its path)")
    if not os.path.isdir(path):
        return Unchecked(f"{shown} no longer exists")
    dirs = git_dirs(path)
    if dirs is None:
        return Unchecked(f"{shown} is not a git repository, so a renamed path cannot be told "
                         "from one that never existed")
    git_dir, common_dir = dirs
    if os.path.exists(os.path.join(common_dir, "shallow")):
        return Unchecked(f"{shown} is a shallow clone: its history is cut, so where a path "
                         "went cannot be told")
    head = head_commit(git_dir, common_dir) or _git_head(path)
    return CheckoutState(path, git_dir, common_dir, head,
                         _stat_key(os.path.join(git_dir, "index")))


def read_checkout(path: str | None, cache: CheckoutCache | None = None,
                  state: CheckoutState | Unchecked | None = None) -> Checkout | Unchecked:
    """The checkout at `path` (a store's project path, in `state` when already read), or
    why it cannot be checked."""
    state = state if state is not None else checkout_state(path)
    if isinstance(state, Unchecked):
        return state
    path, head, index = state.root, state.head, state.index
    cache = cache if cache is not None else CheckoutCache.shared()
    known = cache.get(path) if head else None
    try:
        if known is not None and known.head == head and known.index == index:
            found = known
        else:  # the history is asked again only when HEAD moved, not for an index change
            tracked, submodules = _tracked(path)
            if known is not None and known.head == head:
                departures = known.departures
            elif known is not None and _descends(path, known.head, head):
                # A commit on top: only the commits since, newer than all it knew.
                departures = _departures(path, head, known.head)
                for old, departure in known.departures.items():
                    departures.setdefault(old, departure)
            else:
                departures = _departures(path, head)
            found = _Answer(head or "", index, tracked, submodules, departures)
            if head:
                cache.put(path, found)
    except GitFailed as failed:
        return Unchecked(f"git cannot read {tilde(path)} ({failed})")
    return Checkout(path, head or "", found.tracked, found.submodules, found.departures,
                    state.common_dir)


# --- the git directory, read as files -------------------------------------------------------


def git_dirs(root: str) -> tuple[str, str] | None:
    """(the checkout's git dir, the repository's common dir), or None outside git."""
    dot_git = os.path.join(root, ".git")
    if os.path.isdir(dot_git):
        git_dir = dot_git
    elif os.path.isfile(dot_git):
        pointed = gitdir_pointer(Path(dot_git))
        if pointed is None:
            return None
        git_dir = str(pointed)
    else:
        return None
    common = read_small_text(Path(git_dir, "commondir"))
    common_dir = os.path.realpath(os.path.join(git_dir, common.strip())) if common else git_dir
    return git_dir, common_dir


def head_commit(git_dir: str, common_dir: str) -> str | None:
    """HEAD's commit id, read from the files (loose ref, then packed-refs); "unborn:<ref>"
    for a branch with no commit yet; None when the files do not say (reftable)."""
    head = read_small_text(Path(git_dir, "HEAD"))
    if head is None:
        return None
    head = head.strip()
    if not head.startswith("ref:"):
        return head or None
    ref = head.removeprefix("ref:").strip()
    if os.path.isdir(os.path.join(common_dir, "reftable")):
        return None
    for folder in (git_dir, common_dir):  # a worktree's own refs first, as git reads them
        loose = read_small_text(Path(folder, ref))
        if loose and loose.strip():
            return loose.strip()
    try:
        with open(os.path.join(common_dir, "packed-refs"), encoding="utf-8",
                  errors="replace") as packed:
            for line in packed:
                oid, _, name = line.rstrip("\n").partition(" ")
                if name == ref:
                    return oid
    except OSError:
        pass
    return f"unborn:{ref}"


def _git_head(root: str) -> str | None:
    try:
        out = run_git(root, ["rev-parse", "--verify", "--quiet", "HEAD"], GIT_SECONDS)
    except GitFailed:
        return None
    return out.decode().strip() or None


def _stat_key(path: str) -> str:
    try:
        info = os.stat(path)
    except OSError:
        return "none"
    return f"{info.st_mtime_ns}:{info.st_size}:{info.st_ino}"


def _other_trees(common_dir: str, root: str) -> tuple[str, ...]:
    """The repository's other checkouts: its worktrees, and the main one seen from a
    worktree (`<common dir>/worktrees/<name>/gitdir` names each worktree's `.git` file)."""
    found = []
    main = os.path.dirname(common_dir) if os.path.basename(common_dir) == ".git" else None
    if main and os.path.realpath(main) != os.path.realpath(root):
        found.append(main)
    admin = os.path.join(common_dir, "worktrees")
    try:
        names = sorted(os.listdir(admin))
    except OSError:
        names = []
    for name in names:
        pointer = read_small_text(Path(admin, name, "gitdir"))
        if pointer:
            tree = os.path.dirname(pointer.strip())
            if os.path.isdir(tree) and os.path.realpath(tree) != os.path.realpath(root):
                found.append(tree)
    return tuple(found)


def _origin(common_dir: str) -> str | None:
    """The `origin` remote's URL from the repository's config file, as written."""
    text = read_small_text(Path(common_dir, "config"))
    if not text:
        return None
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.replace('"', "").replace(" ", ".").strip("[]").lower()
        elif section == "remote.origin" and line.replace(" ", "").lower().startswith("url="):
            return line.split("=", 1)[1].strip()
    return None


# --- asking git ---------------------------------------------------------------------------


class GitFailed(Exception):
    """git could not answer: the sentence's clause says why."""


def run_git(root: str, args: list[str], seconds: float) -> bytes:
    """git's output for `args` in `root`, run in its own process group: on the timeout the
    whole group is killed, so nothing git started lives on."""
    import subprocess  # here: a run whose checkouts are all known from the cache starts none

    env = {name: value for name, value in os.environ.items()
           if name not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    try:
        process = subprocess.Popen(
            ["git", "-C", root, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env, start_new_session=True)
    except OSError as error:
        raise GitFailed(f"git cannot be run: {error.strerror or error}") from None
    try:
        out, err = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        raise GitFailed(f"`git {args[0]}` took more than {seconds:g} s") from None
    except BaseException:
        _kill_group(process)
        raise
    if process.returncode != 0:
        lines = [line.strip() for line in err.decode(errors="replace").splitlines()
                 if line.strip()]
        first = (lines or [f"`git {args[0]}` exited with {process.returncode}"])[0]
        raise GitFailed(first.removeprefix("fatal: ").removeprefix("error: ").rstrip("."))
    return out


def _kill_group(process: subprocess.Popen) -> None:
    import signal

    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.communicate()


class _Answer(NamedTuple):
    """What git said of a checkout at one HEAD and index."""

    head: str
    index: str  # the index file's stat
    tracked: frozenset[str]
    submodules: tuple[str, ...]
    departures: dict[str, Departure]


def _tracked(root: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The index's files, and the submodules among them (mode 160000)."""
    out = run_git(root, ["ls-files", "-z", "--stage"], GIT_SECONDS)
    files: set[str] = set()
    submodules: list[str] = []
    for entry in out.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        path = name.decode("utf-8", "surrogateescape")
        files.add(path)
        if meta.startswith(SUBMODULE_MODE.encode()):
            submodules.append(path)
    return frozenset(files), tuple(submodules)


_HEADER = "\x01"


def _departures(root: str, head: str | None, since: str | None = None
                ) -> dict[str, Departure]:
    """Each path's newest rename or deletion on HEAD's history (git's rename detection),
    or on the commits since `since` only."""
    if head is None or head.startswith("unborn:"):
        return {}  # no commit yet: no history
    commits = f"{since}..HEAD" if since else "HEAD"
    out = run_git(root, ["log", "-z", f"--format={_HEADER}%h %cs", "-M", "--diff-filter=DR",
                         "--name-status", "--no-merges", "--no-ext-diff", "--no-textconv",
                         commits, "--"], GIT_SECONDS)
    return parse_departures(out.decode("utf-8", "surrogateescape"))


def _descends(root: str, old: str, new: str | None) -> bool:
    """Whether HEAD `new` was reached from `old` by commits on top of it (not a reset,
    a rebase or another branch, after which `old`'s history no longer holds)."""
    if new is None or old.startswith("unborn:") or new.startswith("unborn:"):
        return False
    try:
        run_git(root, ["merge-base", "--is-ancestor", old, new], GIT_SECONDS)
    except GitFailed:
        return False
    return True


def parse_departures(log: str) -> dict[str, Departure]:
    """`git log -z --format=<\\x01>%h %cs --name-status` output -> {path: newest departure}.
    Newest first, as git lists commits: a path's first entry is its newest."""
    found: dict[str, Departure] = {}
    tokens = log.split("\0")
    commit = date = ""
    position = 0
    while position < len(tokens):
        token = tokens[position].lstrip("\n")
        position += 1
        if token.startswith(_HEADER):
            commit, _, date = token[1:].partition(" ")
        elif token.startswith("R") and position + 1 < len(tokens):
            old, new = tokens[position], tokens[position + 1]
            position += 2
            found.setdefault(old, Departure(commit, date, new))
        elif token == "D" and position < len(tokens):
            found.setdefault(tokens[position], Departure(commit, date, None))
            position += 1
    return found


# --- the cache ------------------------------------------------------------------------------


class CheckoutCache:
    """Checkout -> what git said at its last HEAD and index, in an SQLite file under the
    XDG cache, and in this process's memory (`audit --all` reads each checkout once)."""

    _shared: CheckoutCache | None = None

    def __init__(self, path: Path | None = None):
        from tui import xdg

        self.path = path or xdg.cache_dir() / "checkouts.sqlite"
        self.memory: dict[str, _Answer] = {}
        self.db: sqlite3.Connection | None = None
        self.opened = False
        self.lock = threading.Lock()  # the app's workers share the one connection

    @classmethod
    def shared(cls) -> CheckoutCache:
        """One per process and cache folder (tests change the folder)."""
        from tui import xdg

        wanted = xdg.cache_dir() / "checkouts.sqlite"
        if cls._shared is None or cls._shared.path != wanted:
            cls._shared = cls(wanted)
        return cls._shared

    def _connect(self) -> sqlite3.Connection | None:
        import sqlite3  # here: a store that mentions no path never opens the cache

        if not self.opened:
            self.opened = True
            try:
                from tui.cache_db import write_ahead_log

                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=CACHE_BUSY_SECONDS,
                                     check_same_thread=False)
                write_ahead_log(db, CACHE_BUSY_SECONDS)
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute("CREATE TABLE IF NOT EXISTS checkouts(root BLOB PRIMARY KEY, "
                           "answer TEXT)")
                self.db = db
            except (OSError, sqlite3.Error):
                self.db = None  # no cache: git is asked each time
        return self.db

    def get(self, root: str) -> _Answer | None:
        if root not in self.memory:
            with self.lock:
                answer = self._read(root)
            if answer is None:
                return None
            self.memory[root] = answer
        return self.memory[root]

    def _read(self, root: str) -> _Answer | None:
        import sqlite3

        db = self._connect()
        if db is None:
            return None
        try:
            row = db.execute("SELECT answer FROM checkouts WHERE root=?",
                             (os.fsencode(root),)).fetchone()
            if row is None:
                return None
            data = json.loads(row[0])
            if data.get("version") != _FORMAT_VERSION:
                return None
            return _Answer(data["head"], data["index"], frozenset(data["tracked"]),
                           tuple(data["submodules"]),
                           {path: Departure(*fields)
                            for path, fields in data["departures"].items()})
        except (sqlite3.Error, ValueError, KeyError, TypeError):
            return None

    def put(self, root: str, answer: _Answer) -> None:
        import sqlite3

        self.memory[root] = answer
        with self.lock:
            db = self._connect()
            if db is None:
                return
            data = {"version": _FORMAT_VERSION, "head": answer.head, "index": answer.index,
                    "tracked": sorted(answer.tracked), "submodules": list(answer.submodules),
                    "departures": {path: list(d) for path, d in answer.departures.items()}}
            try:
                with db:
                    db.execute("INSERT OR REPLACE INTO checkouts VALUES (?, ?)",
                               (os.fsencode(root), json.dumps(data)))
            except sqlite3.Error:
                pass  # busy or full: the answer stays in this process


def tilde(path: str) -> str:
    """A path as a user reads it: the home directory as `~`."""
    home = os.path.expanduser("~").rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home):]
    return path
