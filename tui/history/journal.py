"""The journal: a bare git repository per store, outside it, holding every version seen.

`<data dir>/journal/<store key>/` is a bare repository (no work tree, so nothing is ever
checked out, least of all over the store). Commits are written with `git fast-import`,
each holding the whole store as it was, with the time it was seen and trailers saying who
or what changed it:

    Memtui-Source: memtui | external | backfill | watch
    Session: <id>     Cwd: <path>     Branch: <git branch>

`main` holds snapshots of the store as memtui found it; `backfill` holds the history
rebuilt from transcripts (see `backfill.py`). A journal that is missing or broken is moved
aside and started again from the store as it is now, with one sentence for the user
(`notices`): broken when opening it fails, or when git cannot read what it should hold (an
object lost, a pack cut short), which `use_journal` finds out on the way. The store
itself is never touched here.

Writers hold the store's memtui lock (`store_lock`), so two processes never append to one
branch at once; a new journal is built under a temporary name and renamed into place, so
no one ever sees (or moves aside) a journal half made.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tui import failpoints, notices
from tui.claude.paths import LOCK_NAME
from tui.memory.store_lock import store_lock
from tui.walk import walk
from tui.xdg import is_temp_name, journal_dir

MAIN = "main"
BACKFILL = "backfill"
SOURCE = "Memtui-Source"

TYPE_CHECKING = False  # importing typing costs 2 ms of a command's start
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")


class JournalError(Exception):
    """The journal could not be written; the message is one sentence for the user."""


class JournalDamaged(JournalError):
    """git cannot read what the journal should hold (a lost object, a corrupt pack)."""


def detail_of(error: Exception) -> str:
    """The line of git's error that says what it could not read (never the command)."""
    said = str(getattr(error, "stderr", "") or "").strip()
    said = said.removeprefix("stderr:").strip().strip("'").strip()
    if said:
        return said.splitlines()[-1]
    status = getattr(error, "status", None)
    if isinstance(status, int):  # git said nothing: GitPython's text is the command line
        return _stopped(status)
    if hasattr(error, "command"):
        return "git failed and said nothing"
    said = str(error).strip()
    return said.splitlines()[0] if said else type(error).__name__


def damaged(store: Path, error: Exception) -> str:
    """One sentence for a journal git cannot read past its branch tips (which is all that
    opening one checks): a lost object, a corrupt pack."""
    return f"The journal of {store} is damaged ({detail_of(error)})."


def use_journal(store: Path, use: Callable[[Journal], T]) -> T:
    """`use(journal)`; when it fails because git cannot read the journal (checked with
    `git fsck`), the journal is moved aside and started again from the store as it is
    now, with one sentence (`notices`), and `use` runs once more on the new one."""
    journal = Journal(store)
    try:
        return use(journal)
    except Exception as error:
        if not journal.is_damaged_by(error):
            raise
        journal.start_again(detail_of(error))
    return use(journal)


@dataclass(frozen=True)
class Version:
    """One commit that touched a file."""

    rev: str
    ref: str  # "main" or "backfill"
    time: float
    subject: str
    trailers: Mapping[str, str]
    blob: str | None  # None: the file is absent in this version

    @property
    def source(self) -> str:
        return self.trailers.get(SOURCE, "")

    @property
    def session(self) -> str:
        return self.trailers.get("Session", "")

    @property
    def cwd(self) -> str:
        return self.trailers.get("Cwd", "")

    @property
    def branch(self) -> str:
        return self.trailers.get("Branch", "")


def blob_id(data: bytes) -> str:
    """The id git gives these bytes, computed without asking git."""
    digest = hashlib.sha1(b"blob %d\0" % len(data))
    digest.update(data)  # not header + data: that would copy a big file once more
    return digest.hexdigest()


@dataclass(frozen=True)
class StoreContents:
    """A store as read now: its files, and what could not be read (relative path, "" for
    the store itself, to the reason)."""

    files: dict[str, bytes]
    unreadable: dict[str, str]


def scan_store(store: Path) -> StoreContents | None:
    """Every regular file of the store by relative path; None when the store is missing."""
    if not store.is_dir():
        return None
    files: dict[str, bytes] = {}
    unreadable: dict[str, str] = {}

    def cannot_read(path: str, error: OSError) -> None:
        if not isinstance(error, FileNotFoundError):  # gone between listing and reading
            relative = Path(path).relative_to(store).as_posix()
            unreadable["" if relative == "." else relative] = error.strerror or str(error)

    for folder, dirs, names in walk(store, onerror=lambda e: cannot_read(e.filename, e)):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".git"))
        for name in names:
            if name == LOCK_NAME or is_temp_name(name):
                continue  # Claude Code's lock, or a memtui write in flight
            path = Path(folder, name)
            if path.is_symlink() or not path.is_file():
                continue
            try:
                files[path.relative_to(store).as_posix()] = path.read_bytes()
            except OSError as error:
                cannot_read(str(path), error)
    return StoreContents(files, unreadable)


def kept_versions(tree: Mapping[str, str], unreadable: Iterable[str]) -> dict[str, str]:
    """Blob ids in `tree` of what lies at or under the unreadable paths: what a snapshot
    keeps as it was rather than record as deleted."""
    prefixes = tuple(unreadable)
    return {path: blob for path, blob in tree.items() if any(
        not prefix or path == prefix or path.startswith(prefix + "/") for prefix in prefixes)}


def message_with_trailers(subject: str, trailers: Mapping[str, str | None]) -> str:
    lines = [f"{key}: {' '.join(str(value).split())}" for key, value in trailers.items() if value]
    return subject.strip() + ("\n\n" + "\n".join(lines) if lines else "") + "\n"


def parse_trailers(message: str) -> tuple[str, dict[str, str]]:
    subject, _, rest = message.strip().partition("\n")
    trailers: dict[str, str] = {}
    last_paragraph = rest.strip().split("\n\n")[-1] if rest.strip() else ""
    for line in last_paragraph.splitlines():
        key, sep, value = line.partition(": ")
        if sep and key and " " not in key:
            trailers[key] = value
    return subject, trailers


def _quote_path(path: str) -> str:
    if path.startswith('"') or "\n" in path:
        escaped = path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    return path


def _identity() -> str:
    name = os.environ.get("GIT_COMMITTER_NAME") or "memtui"
    email = os.environ.get("GIT_COMMITTER_EMAIL") or "memtui@localhost"
    return f"{name} <{email}>"


@dataclass(frozen=True)
class Commit:
    """A commit to write: the whole tree, or (with `partial`) only these files changed;
    a file's bytes, the id of a blob already in the journal (str), or None to delete it."""

    message: str
    when: float
    files: Mapping[str, bytes | str | None]
    partial: bool = False


PACK_LIMIT = 50  # what git gc --auto allows by default


class Journal:
    """The journal of one store."""

    def __init__(self, store: Path, path: Path | None = None):
        self.store = Path(store)
        self.path = path or journal_dir(self.store)
        self.unreadable: dict[str, str] = {}  # as the last snapshot found it
        self.repo = self._open()

    # --- opening, checking, recreating --------------------------------------------------

    def _open(self):
        import git

        if self.path.exists():
            repo = self._readable()
            if repo is not None:
                return repo
            with store_lock(self.store):  # only the lock holder may judge it broken
                repo = self._readable()
                if repo is not None:
                    return repo
                self._move_aside("git cannot open it")
        return self._create(git)
    def _readable(self):
        import git

        try:
            repo = git.Repo(self.path)
            self._check(repo)
            return repo
        except (git.GitError, ValueError, OSError):
            return None

    def _create(self, git):
        """Build the journal under a temporary name, then rename it into place; when
        another process got there first, use theirs."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        building = self.path.with_name(f".{self.path.name}.building-{secrets.token_hex(4)}")
        try:
            git.Repo.init(building, bare=True, initial_branch=MAIN)
            (building / "memtui-store").write_text(f"{self.store}\n", encoding="utf-8")
            os.rename(building, self.path)
        except OSError:
            if not self.path.exists():
                raise
        finally:
            shutil.rmtree(building, ignore_errors=True)
        return git.Repo(self.path)

    def _check(self, repo) -> None:
        """Raise when git cannot read the repository or any of its branches."""
        if not repo.bare:
            raise ValueError("not a bare repository")
        refs = repo.git.for_each_ref("--format=%(refname)", "refs/heads").split()
        repo.git.symbolic_ref("HEAD")
        for ref in refs:
            repo.git.rev_parse("--verify", "--quiet", f"{ref}^{{tree}}")

    def _move_aside(self, why: str) -> None:
        stamp = time.strftime("%Y%m%dT%H%M%S")
        broken = self.path.with_name(f"{self.path.name}.broken-{stamp}")
        count = 1
        while broken.exists():
            count += 1
            broken = self.path.with_name(f"{self.path.name}.broken-{stamp}-{count}")
        os.replace(self.path, broken)
        notices.tell(f"The journal of {self.store} was damaged ({why}); it was moved aside to "
                     f"{broken} and a new one started from the store as it is now.")

    def is_damaged_by(self, error: Exception) -> bool:
        """Whether `error` comes from git failing to read the journal: a damage error, or
        any other git error (or a write git refused) while `git fsck` finds it damaged."""
        if isinstance(error, JournalDamaged):
            return True
        import git
        from gitdb.exc import ODBError

        if not isinstance(error, (JournalError, git.GitError, ODBError, ValueError)):
            return False
        check = subprocess.run(
            ["git", "fsck", "--connectivity-only", "--no-dangling", "--no-progress"],
            env={**os.environ, "GIT_DIR": str(self.path)}, capture_output=True,
        )
        return check.returncode != 0

    def start_again(self, why: str) -> None:
        """Move this journal aside and start a new one holding the store as it is now."""
        import git

        with store_lock(self.store):
            if self.path.exists():
                self._move_aside(why)
            self.repo = self._create(git)
            self.snapshot("the store as it was when its damaged journal was started again",
                          source="external")

    # --- reading --------------------------------------------------------------------------

    def head(self, ref: str = MAIN) -> str | None:
        import git

        try:
            return self.repo.git.rev_parse("--verify", "--quiet", f"refs/heads/{ref}^{{commit}}")
        except git.GitCommandError:
            return None

    def tree(self, rev: str | None) -> dict[str, str]:
        """Blob ids by path at a revision ({} for none)."""
        if rev is None:
            return {}
        listing = self.repo.git.ls_tree("-r", "-z", "--full-tree", rev, strip_newline_in_stdout=False)
        entries: dict[str, str] = {}
        for entry in listing.split("\0"):
            if not entry:
                continue
            meta, _, path = entry.partition("\t")
            entries[path] = meta.split()[2]
        return entries

    def read(self, rev: str, file: str) -> bytes | None:
        """The bytes of `file` at `rev`; None when absent there."""
        commit = self.repo.commit(rev)
        try:
            return commit.tree[file].data_stream.read()
        except KeyError:
            return None
        except ValueError as error:  # GitPython's word for an object git cannot find
            raise JournalDamaged(damaged(self.store, error)) from None

    def resolve(self, rev: str) -> str:
        """A full commit id for a (possibly short) revision; JournalError if there is none."""
        import git

        try:
            return self.repo.git.rev_parse("--verify", "--quiet", f"{rev}^{{commit}}")
        except git.GitCommandError:
            raise JournalError(f"The journal of {self.store} has no version {rev!r}.") from None

    def log(self, ref: str = MAIN, paths: Iterable[str] = ()) -> list[tuple[str, float, str]]:
        """(rev, time, message) of a branch, newest first; [] for a branch not yet made."""
        if self.head(ref) is None:
            return []
        out = self.repo.git.log(
            f"refs/heads/{ref}", "--format=%H%x1f%ct%x1f%B%x1e", "--", *paths
        )
        commits = []
        for chunk in out.split("\x1e"):
            if chunk.strip():
                rev, stamp, message = chunk.strip("\n").split("\x1f", 2)
                commits.append((rev, float(stamp), message))
        return commits

    def changes(self, ref: str = MAIN) -> list[tuple[str, float, str, dict[str, str | None]]]:
        """(rev, time, message, {path: new blob id, None if deleted}) of a branch, oldest first.

        One `git log` for the whole branch, however long the store has been watched.
        """
        if self.head(ref) is None:
            return []
        # Split on NUL alone: file names may hold any other byte, and messages any but NUL.
        # Tokens: a commit ("<id> <time>\n<message>"), then a (":<modes> <ids> <status>",
        # path) pair per changed file; a commit never starts with ":", its id is hex.
        out = self.repo.git.log(
            f"refs/heads/{ref}", "--reverse", "--root", "--raw", "--no-abbrev", "--no-renames",
            "-z", "--format=%H %ct%n%B",
        )
        commits: list[tuple[str, float, str, dict[str, str | None]]] = []
        tokens = iter(out.split("\0"))
        for token in tokens:
            token = token.lstrip("\n")
            if token.startswith(":"):
                *_, blob, status = token.split()
                commits[-1][3][next(tokens)] = None if status.startswith("D") else blob
            elif token:
                header, _, message = token.partition("\n")
                rev, stamp = header.split(" ")
                commits.append((rev, float(stamp), message.strip("\n"), {}))
        return commits

    def blob(self, blob_id: str) -> bytes:
        """The bytes of a blob, by its id."""
        try:
            return self.repo.odb.stream(bytes.fromhex(blob_id)).read()
        except ValueError as error:
            raise JournalDamaged(damaged(self.store, error)) from None

    def versions(self, file: str) -> list[Version]:
        """Every commit on either branch that touched `file`, newest first."""
        found: list[Version] = []
        for ref in (MAIN, BACKFILL):
            for rev, stamp, message in self.log(ref, [file]):
                subject, trailers = parse_trailers(message)
                blob = self.tree(rev).get(file)
                found.append(Version(rev, ref, stamp, subject, trailers, blob))
        found.sort(key=lambda v: (v.time, v.ref == MAIN), reverse=True)
        return found

    # --- writing --------------------------------------------------------------------------

    def write(self, ref: str, commits: Iterable[Commit], *, parent: str | None, force: bool = False) -> str | None:
        """Append commits to `ref` on top of `parent` (None: a new root). Returns the new head."""
        identity = _identity()
        stream: list[bytes] = [f"reset refs/heads/{ref}\n".encode()]
        if parent:
            stream.append(f"from {parent}\n\n".encode())
        wrote = False
        for commit in commits:
            wrote = True
            message = commit.message.encode("utf-8", "surrogateescape")
            stamp = f"{int(commit.when)} +0000"
            stream.append(
                f"commit refs/heads/{ref}\nauthor {identity} {stamp}\n"
                f"committer {identity} {stamp}\ndata {len(message)}\n".encode()
                + message + b"\n"
            )
            if not commit.partial:
                stream.append(b"deleteall\n")
            for path, data in sorted(commit.files.items()):
                quoted = _quote_path(path).encode("utf-8", "surrogateescape")
                if data is None:
                    stream.append(b"D " + quoted + b"\n")
                elif isinstance(data, str):
                    stream.append(f"M 100644 {data} ".encode() + quoted + b"\n")
                else:
                    stream += [b"M 100644 inline " + quoted + b"\ndata %d\n" % len(data), data, b"\n"]
            stream.append(b"\n")
        if not wrote:
            return self.head(ref)
        with store_lock(self.store):
            return self._import(ref, stream, force)

    def _import(self, ref: str, stream: list[bytes], force: bool) -> str | None:
        # Every write becomes one pack (never a spray of loose files); _tidy merges them.
        failpoints.reached("io.write", str(self.path))
        args = ["git", "-c", "fastimport.unpackLimit=1", "fast-import", "--quiet", "--done"]
        if force:
            args.append("--force")
        stream.append(b"done\n")
        env = {**os.environ, "GIT_DIR": str(self.path)}
        result = subprocess.run(args, input=b"".join(stream), env=env, capture_output=True)
        if result.returncode != 0 and self._clear_stale_locks():
            result = subprocess.run(args, input=b"".join(stream), env=env, capture_output=True)
        if result.returncode != 0:
            said = result.stderr.decode(errors="replace").strip().splitlines()
            raise JournalError(f"Writing the journal at {self.path} failed "
                               f"({said[-1] if said else _stopped(result.returncode)}).")
        self._tidy(env)
        return self.head(ref)

    def _clear_stale_locks(self) -> bool:
        """Remove the lock files a git killed mid-write leaves (`refs/heads/main.lock`,
        `packed-refs.lock`), which would fail every later write; called holding the store's
        lock, which every journal writer holds, so any found is stale. Whether any was."""
        stale = [self.path / "packed-refs.lock", self.path / "HEAD.lock"]
        for folder, _dirs, names in walk(self.path / "refs"):
            stale += [Path(folder, name) for name in names if name.endswith(".lock")]
        removed = False
        for path in stale:
            try:
                path.unlink()
                removed = True
            except FileNotFoundError:
                pass
            except OSError:
                return False
        return removed

    def _tidy(self, env: Mapping[str, str]) -> None:
        """Pack the journal into one pack once fast-import has left too many (one per write),
        and remove the temp packs of writes killed midway (stale: we hold the store's lock)."""
        try:
            with os.scandir(self.path / "objects" / "pack") as entries:
                names = [entry.name for entry in entries]
        except OSError:
            return
        for name in names:
            if name.startswith("tmp_"):
                with contextlib.suppress(OSError):
                    os.unlink(self.path / "objects" / "pack" / name)
        packs = sum(1 for name in names if name.endswith(".pack"))
        if packs > PACK_LIMIT:
            subprocess.run(["git", "gc", "--quiet"], env=env, capture_output=True)

    def unsnapshotted(self) -> list[str]:
        """Files whose bytes differ from the last snapshot (added, changed or removed)."""
        tree = self.tree(self.head(MAIN))
        current = self._current(scan_store(self.store), tree)
        return sorted(path for path in current.keys() | tree.keys() if current.get(path) != tree.get(path))

    @staticmethod
    def _current(contents: StoreContents | None, tree: Mapping[str, str]) -> dict[str, str]:
        """Blob ids by path of the store now, what cannot be read as the tree has it."""
        if contents is None:
            return {}
        current = kept_versions(tree, contents.unreadable)
        current.update((path, blob_id(data)) for path, data in contents.files.items())
        return current

    def snapshot(self, message: str, *, source: str = "memtui", trailers: Mapping[str, str | None] | None = None,
                 when: float | None = None, lock_wait: float | None = None) -> str | None:
        """Commit the store as it is now, if it differs from the last snapshot; what cannot
        be read keeps its last version (listed in `unreadable` afterwards).

        Returns the new commit id, or None when nothing changed or the store is missing;
        StoreBusy when another memtui holds the store for longer than `lock_wait`.
        """
        with store_lock(self.store, lock_wait):  # the parent read here is the parent written
            return self._snapshot(message, source, trailers, when)

    def _snapshot(self, message: str, source: str, trailers: Mapping[str, str | None] | None,
                  when: float | None) -> str | None:
        contents = scan_store(self.store)
        self.unreadable = contents.unreadable if contents else {}
        if contents is None:
            return None
        parent = self.head(MAIN)
        tree = self.tree(parent)
        current = self._current(contents, tree)
        if current == tree:
            return None
        # A file the parent holds as it is goes by its blob id: git is not sent its bytes again.
        files: dict[str, bytes | str] = {path: current[path] if tree.get(path) == current[path] else data
                                         for path, data in contents.files.items()}
        files.update(kept_versions(tree, contents.unreadable))
        full = message_with_trailers(message, {SOURCE: source, **(trailers or {})})
        commit = Commit(full, time.time() if when is None else when, files)
        return self.write(MAIN, [commit], parent=parent)


def _stopped(code: int) -> str:
    """Why git ended with `code` and said nothing."""
    import signal

    if code == -signal.SIGXFSZ:
        return "git went past this process's file-size limit (ulimit -f)"
    if code < 0:
        return f"git was stopped by {signal.Signals(-code).name}"
    return f"git exited with {code}"


def changed_files(journal: Journal, older: str | None, newer: str) -> list[str]:
    """Paths whose bytes differ between two revisions (older None: everything in newer)."""
    before, after = journal.tree(older), journal.tree(newer)
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))
