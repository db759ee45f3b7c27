"""memtui's clone of a sync remote: one bare repository per remote under the state dir.

Never inside a store, and never checked out: the stores are the working copies, and the
three-way merge happens per file in `engine`. The remote holds one branch, `main`, with a
folder per project identity (`github.com/ana/app/memory/...`).

Every git call goes through `git` itself (fetch, push, cat-file, fast-import, log), with
no prompt for credentials and in a process group of its own (`gitproc`): a hook must never
hang, and nothing git starts outlives memtui. A dry run fetches into a temporary clone that
borrows this one's objects, and writes nothing under memtui's state.
"""

from __future__ import annotations

import fcntl
import glob
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from tui import xdg
from tui.sync.gitproc import (
    STALL_SECONDS,
    Stalled,
    end_group,
    first_cause,
    git_env,
    run_git,
    run_network,
)
from tui.sync.merge import Side
from tui.sync.tree import Folder, read_folders

BRANCH = "main"
TRACKING = f"refs/remotes/origin/{BRANCH}"
OUTGOING = "refs/memtui/outgoing"
MACHINE_TRAILER = "Machine"  # the commit message line naming the machine that pushed
_CREDENTIALS = re.compile(r"(://)[^/@\s]*@")
_OUR_SUBJECT = re.compile(r"^memtui sync from (.+?): \d+ file")  # before the trailer existed


class RemoteUnreachable(Exception):
    """The remote could not be read or written; one sentence for the user."""


class SyncBusy(Exception):
    """Another memtui is syncing with the same remote."""


def shown_url(url: str) -> str:
    """The URL without a password or token, for anything printed."""
    return _CREDENTIALS.sub(r"\1", url)


def clone_dir(url: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9.]+", "-", shown_url(url)).strip("-")[-40:] or "remote"
    digest = hashlib.sha256(url.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return xdg.state_dir() / "sync" / f"{slug}-{digest}"


def _first_cause(stderr: bytes) -> str:
    return shown_url(first_cause(stderr))  # git may quote the URL, credentials and all


class SyncRepo:
    """The local bare clone of one remote (`path`; git runs in `git_dir`, the same but in
    a dry run)."""

    def __init__(self, url: str):
        self.url = url
        self.path = clone_dir(url)
        self.git_dir = self.path
        self._folders: dict[str, dict[str, Folder]] = {}
        self._present: dict[str, bool] = {}

    # --- setting up and locking ---------------------------------------------------------

    def ensure(self) -> None:
        """Create the clone (bare, remote `origin`) unless it exists; built under a temp
        name and renamed into place, so no one ever sees it half made."""
        if (self.path / "HEAD").is_file():
            self._run(["rev-parse", "--git-dir"])  # OSError for a clone git cannot read
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        building = self.path.with_name(f".{self.path.name}.building-{secrets.token_hex(4)}")
        try:
            self._init(building)
            (building / "memtui-remote").write_text(shown_url(self.url) + "\n", encoding="utf-8")
            os.rename(building, self.path)
        except OSError:
            if not (self.path / "HEAD").is_file():
                raise
        finally:
            shutil.rmtree(building, ignore_errors=True)

    def _init(self, where: Path) -> None:
        self._run(["init", "--quiet", "--bare", f"--initial-branch={BRANCH}"], where)
        self._run(["remote", "add", "origin", self.url], where)

    @contextmanager
    def scratch(self) -> Iterator[None]:
        """A dry run's clone: a temporary bare repository borrowing this clone's objects
        (so a fetch brings only what is new) and its last fetched head; removed after."""
        temp = Path(tempfile.mkdtemp(prefix="memtui-sync-dry-run-"))
        try:
            self._init(temp)
            if (self.path / "HEAD").is_file():
                (temp / "objects" / "info" / "alternates").write_text(
                    f"{self.path / 'objects'}\n", encoding="utf-8")
                head = self.rev(TRACKING)
                if head is not None:
                    self._run(["update-ref", TRACKING, head], temp)
            self.git_dir = temp
            yield
        finally:
            self.git_dir = self.path
            self._folders.clear()
            self._present.clear()
            shutil.rmtree(temp, ignore_errors=True)

    def move_aside(self) -> Path:
        """Put a damaged clone aside for a look (only the newest such copy is kept); the
        next `ensure` makes a new one."""
        stamp = time.strftime("%Y%m%dT%H%M%S")
        broken = self.path.with_name(f"{self.path.name}.broken-{stamp}-{secrets.token_hex(2)}")
        for older in self.path.parent.glob(f"{glob.escape(self.path.name)}.broken-*"):
            shutil.rmtree(older, ignore_errors=True)
        os.replace(self.path, broken)
        self._folders.clear()
        self._present.clear()
        return broken

    @contextmanager
    def locked(self, wait: float = 60.0, create: bool = True) -> Iterator[None]:
        """One memtui sync per remote at a time on this machine. `create=False` (a dry run)
        makes no lock file: without one, no sync has made the clone either."""
        lock = self.path.with_name(self.path.name + ".lock")
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            handle = open(lock, "a+" if create else "r")  # noqa: SIM115 - closed below
        except FileNotFoundError:
            if create:
                raise
            yield
            return
        with handle:
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise SyncBusy(f"Another memtui has been syncing with {shown_url(self.url)} "
                                       f"for over {wait:.0f} s; try again when it has finished.") from None
                    time.sleep(0.05)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    # --- talking to the remote ----------------------------------------------------------

    def fetch(self) -> str | None:
        """The remote's head after fetching it; None for a remote with no commit yet."""
        self._network(["fetch", "--progress", "--no-tags", "--prune", "origin",
                       "+refs/heads/*:refs/remotes/origin/*"])
        return self.rev(TRACKING)

    def push(self, commit: str) -> str | None:
        """Push `commit` as the remote's main; None when it went, else why the remote
        refused it (another machine pushed first, or updated the branch at the same moment)."""
        result = self._network(["push", "--porcelain", "--progress", "origin",
                                f"{commit}:refs/heads/{BRANCH}"], check=False)
        if result.returncode == 0:
            self._run(["update-ref", TRACKING, commit])
            return None
        refused = [line for line in result.stdout.decode(errors="replace").splitlines()
                   if line.startswith("!\t")]
        if refused:
            return refused[0].rsplit("\t", 1)[-1].strip() or "rejected"
        raise RemoteUnreachable(
            f"Pushing to {shown_url(self.url)} failed ({_first_cause(result.stderr)})."
        )

    def _network(self, args: list[str], *, check: bool = True) -> subprocess.CompletedProcess:
        try:
            result = run_network(args, git_env(str(self.git_dir)))
        except Stalled:
            raise RemoteUnreachable(
                f"The sync remote {shown_url(self.url)} did not answer for "
                f"{STALL_SECONDS:.0f} s; nothing was changed."
            ) from None
        if check and result.returncode != 0:
            raise RemoteUnreachable(
                f"The sync remote {shown_url(self.url)} cannot be reached "
                f"({_first_cause(result.stderr)}); nothing was changed."
            )
        return result

    # --- reading ------------------------------------------------------------------------

    def rev(self, ref: str) -> str | None:
        result = run_git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                         git_env(str(self.git_dir)))
        if result.returncode != 0:
            return None
        return result.stdout.decode().strip() or None

    def has_commit(self, commit: str) -> bool:
        if commit not in self._present:
            self._present[commit] = self.rev(commit) is not None
        return self._present[commit]

    def folders(self, commit: str | None, wanted: Collection[str]) -> dict[str, Folder]:
        """The wanted store folders at a commit (kept: a commit never changes); a commit
        whose trees cannot be read at all is an OSError (a damaged clone)."""
        if commit is None:
            return {folder: Folder() for folder in wanted}
        if commit not in self._folders:
            try:
                self._folders[commit] = read_folders(commit, wanted, self.objects)
            except ValueError as error:
                raise OSError(f"git objects of {commit[:10]} cannot be read ({error})") from None
        return self._folders[commit]

    def objects(self, ids: Iterable[str]) -> dict[str, tuple[str, bytes]]:
        """(type, bytes) of many objects in one `git cat-file --batch`; a missing one left out."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        out = self._run(["cat-file", "--batch"], stdin=("\n".join(wanted) + "\n").encode()).stdout
        found: dict[str, tuple[str, bytes]] = {}
        position = 0
        for oid in wanted:
            header_end = out.index(b"\n", position)
            header = out[position:header_end].split()
            position = header_end + 1
            if len(header) != 3:  # "<id> missing"
                continue
            size = int(header[2])
            found[oid] = (header[1].decode(), out[position:position + size])
            position += size + 1
        return found

    def blobs(self, ids: Iterable[str]) -> dict[str, bytes]:
        """The bytes of many blobs in one `git cat-file --batch`."""
        return {oid: data for oid, (_, data) in self.objects(ids).items()}

    def sizes(self, ids: Iterable[str]) -> dict[str, int]:
        """The size of many objects in one `git cat-file --batch-check`."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        out = self._run(["cat-file", "--batch-check"],
                        stdin=("\n".join(wanted) + "\n").encode()).stdout
        return {parts[0].decode(): int(parts[2]) for parts in map(bytes.split, out.splitlines())
                if len(parts) == 3}

    def sides(self, head: str, paths: Mapping[str, str]) -> dict[str, Side]:
        """Who pushed the version at `head` of each path (remote path by the caller's name
        for it), and when: the machine named in the last commit that changed it, and that
        commit's time. Reads the history only as far back as it must."""
        left = {remote: name for name, remote in paths.items()}
        found: dict[str, Side] = {}
        if not left:
            return found
        process = subprocess.Popen(
            ["git", "log", "--format=format:%x1e%ct%x1f%an%x1f%B%x1f", "-z", "--name-only",
             head, "--", *left], env=git_env(str(self.git_dir)), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, process_group=0)
        try:
            pending = b""
            while left:
                chunk = process.stdout.read1(65536)
                pending += chunk
                records = pending.split(b"\x1e")
                pending = records.pop() if chunk else b""
                for record in records:
                    _one_commit(record, left, found)
                if not chunk:
                    break
        finally:
            end_group(process)
            process.stdout.close()
        return found

    # --- writing ------------------------------------------------------------------------

    def commit(self, parent: str | None, files: Mapping[str, bytes | None], message: str) -> str:
        """A commit on top of `parent` changing only `files` (None: deleted)."""
        name = os.environ.get("GIT_COMMITTER_NAME") or "memtui"
        email = os.environ.get("GIT_COMMITTER_EMAIL") or "memtui@localhost"
        stamp = f"{int(time.time())} +0000"
        text = message.encode("utf-8", "surrogateescape")
        stream = [f"reset {OUTGOING}\n".encode()]
        stream.append(f"commit {OUTGOING}\nauthor {name} <{email}> {stamp}\n"
                      f"committer {name} <{email}> {stamp}\ndata {len(text)}\n".encode()
                      + text + b"\n")
        if parent:
            stream.append(f"from {parent}\n".encode())
        for path, data in sorted(files.items()):
            quoted = _quote(path).encode("utf-8", "surrogateescape")
            if data is None:
                stream.append(b"D " + quoted + b"\n")
            else:
                stream.append(b"M 100644 inline " + quoted + b"\ndata %d\n" % len(data) + data + b"\n")
        stream.append(b"\ndone\n")
        self._run(["-c", "fastimport.unpackLimit=1", "fast-import", "--quiet", "--done", "--force"],
                  stdin=b"".join(stream))
        commit = self.rev(OUTGOING)
        assert commit is not None
        return commit

    # --- the last synced base of each store ----------------------------------------------

    @property
    def _bases_file(self) -> Path:
        # Beside the clone, not in it: a clone moved aside and fetched again keeps its bases.
        return self.path.with_name(self.path.name + ".bases.json")

    def load_bases(self) -> dict[str, dict[str, str]]:
        """{store path: {"identity", "commit"}}: the remote commit each store last agreed with."""
        try:
            data = json.loads(self._bases_file.read_text(encoding="utf-8"))
            return {key: value for key, value in data.items()
                    if isinstance(value, dict) and isinstance(value.get("commit"), str)
                    and isinstance(value.get("identity"), str)}
        except (OSError, ValueError, AttributeError):
            return {}  # no base: every differing file is treated as changed on both sides

    def save_bases(self, bases: Mapping[str, Mapping[str, str]]) -> None:
        temp = self._bases_file.with_name(f".{self.path.name}.{secrets.token_hex(4)}.tmp")
        temp.write_text(json.dumps(bases, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(temp, self._bases_file)
        # Every base stays reachable, whatever the remote does to its branch later.
        wanted = {value["commit"] for value in bases.values()}
        listed = self._run(["for-each-ref", "--format=%(refname)", "refs/memtui/bases/"]).stdout
        held = {ref.rsplit("/", 1)[1] for ref in listed.decode().split()}
        commands = [f"create refs/memtui/bases/{c} {c}" for c in sorted(wanted - held)]
        commands += [f"delete refs/memtui/bases/{c}" for c in sorted(held - wanted)]
        if commands:
            self._run(["update-ref", "--stdin"], stdin=("\n".join(commands) + "\n").encode())

    def _run(self, args: list[str], path: Path | None = None,
             stdin: bytes | None = None) -> subprocess.CompletedProcess:
        where = path or self.git_dir
        result = run_git(args, git_env(str(where)), stdin)
        if result.returncode != 0:
            raise OSError(f"git {args[0]} failed in {where}: {_first_cause(result.stderr)}")
        return result


def machine_message(subject: str, machine: str) -> str:
    """A commit message naming the machine that pushed it, for the other machines' labels."""
    return f"{subject}\n\n{MACHINE_TRAILER}: {machine}\n"


def _one_commit(record: bytes, left: dict[str, str], found: dict[str, Side]) -> None:
    """Of one `git log` record (time, author, message, changed paths), the paths still
    looked for: who changed them there, and when."""
    parts = record.split(b"\x1f", 3)
    if len(parts) != 4:
        return
    stamp, author, message, names = parts
    text = message.decode("utf-8", "replace")
    machine = next((line.split(":", 1)[1].strip() for line in reversed(text.splitlines())
                    if line.startswith(f"{MACHINE_TRAILER}:")), None)
    subject = _OUR_SUBJECT.match(text)
    machine = machine or (subject.group(1) if subject else None) or \
        author.decode("utf-8", "replace")
    # Another machine's words, going into a marker line: printable, one line, short.
    machine = "".join(char for char in machine if char.isprintable())[:100] or "the remote"
    when = float(stamp) if stamp.strip().isdigit() else None
    for raw in names.strip(b"\n").split(b"\0"):
        name = left.pop(raw.decode("utf-8", "surrogateescape"), None)
        if name is not None:
            found[name] = Side(machine, when)


def _quote(path: str) -> str:
    if path.startswith('"') or "\n" in path or '"' in path:
        escaped = path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    return path
