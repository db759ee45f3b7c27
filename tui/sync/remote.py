"""memtui's clone of a sync remote: one bare repository per remote under the state dir.

Never inside a store, and never checked out: the stores are the working copies, and the
three-way merge happens per file in `engine`. The remote holds one branch, `main`, with a
folder per project identity (`github.com/ana/app/memory/...`).

Every git call goes through `git` itself (fetch, push, ls-tree, cat-file, fast-import),
with no prompt for credentials: a hook must never hang on one.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from tui import xdg

BRANCH = "main"
TRACKING = f"refs/remotes/origin/{BRANCH}"
OUTGOING = "refs/memtui/outgoing"
NETWORK_TIMEOUT = 120  # seconds for one fetch or push
_CREDENTIALS = re.compile(r"(://)[^/@\s]*@")


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


def _git_env(path: Path) -> dict[str, str]:
    env = {**os.environ, "GIT_DIR": str(path), "GIT_TERMINAL_PROMPT": "0"}
    # Never a prompt: a hook must not wait for one, and in the app it would land on the screen.
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


def _first_cause(stderr: bytes) -> str:
    """git's first error line: the specific one (`'x' does not appear to be a git
    repository`, `ssh: connect to host ...`), not the advice printed after it."""
    lines = [line.strip() for line in stderr.decode(errors="replace").splitlines() if line.strip()]
    causes = [line for line in lines if line.startswith(("fatal:", "error:", "ssh:"))]
    first = (causes or lines or ["git error"])[0]
    first = first.removeprefix("fatal: ").removeprefix("error: ").rstrip(".")
    return shown_url(first)  # git may quote the URL, credentials and all


class SyncRepo:
    """The local bare clone of one remote."""

    def __init__(self, url: str):
        self.url = url
        self.path = clone_dir(url)
        self._trees: dict[str, dict[str, str]] = {}
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
            self._run(["init", "--quiet", "--bare", f"--initial-branch={BRANCH}"], building)
            self._run(["remote", "add", "origin", self.url], building)
            (building / "memtui-remote").write_text(shown_url(self.url) + "\n", encoding="utf-8")
            os.rename(building, self.path)
        except OSError:
            if not (self.path / "HEAD").is_file():
                raise
        finally:
            shutil.rmtree(building, ignore_errors=True)

    def move_aside(self) -> Path:
        """Put a damaged clone aside (kept for a look, never deleted here); the next
        `ensure` makes a new one."""
        stamp = time.strftime("%Y%m%dT%H%M%S")
        broken = self.path.with_name(f"{self.path.name}.broken-{stamp}-{secrets.token_hex(2)}")
        os.replace(self.path, broken)
        self._trees.clear()
        self._present.clear()
        return broken

    @contextmanager
    def locked(self, wait: float = 60.0) -> Iterator[None]:
        """One memtui sync per remote at a time on this machine."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(self.path.name + ".lock"), "a+") as handle:
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
        self._network(["fetch", "--quiet", "--no-tags", "--prune", "origin",
                       "+refs/heads/*:refs/remotes/origin/*"])
        return self.rev(TRACKING)

    def push(self, commit: str) -> str | None:
        """Push `commit` as the remote's main; None when it went, else why the remote
        refused it (another machine pushed first, or updated the branch at the same moment)."""
        result = self._network(["push", "--porcelain", "--quiet", "origin",
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
            result = subprocess.run(["git", *args], env=_git_env(self.path), capture_output=True,
                                    timeout=NETWORK_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise RemoteUnreachable(
                f"The sync remote {shown_url(self.url)} did not answer within "
                f"{NETWORK_TIMEOUT} s; nothing was changed."
            ) from None
        if check and result.returncode != 0:
            raise RemoteUnreachable(
                f"The sync remote {shown_url(self.url)} cannot be reached "
                f"({_first_cause(result.stderr)}); nothing was changed."
            )
        return result

    # --- reading ------------------------------------------------------------------------

    def rev(self, ref: str) -> str | None:
        result = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                                env=_git_env(self.path), capture_output=True)
        if result.returncode != 0:
            return None
        return result.stdout.decode().strip() or None

    def has_commit(self, commit: str) -> bool:
        if commit not in self._present:
            self._present[commit] = self.rev(commit) is not None
        return self._present[commit]

    def tree(self, commit: str | None) -> dict[str, str]:
        """Blob ids by path of a commit ({} for none); kept, a commit never changes."""
        if commit is None:
            return {}
        if commit not in self._trees:
            listing = self._run(["ls-tree", "-r", "-z", "--full-tree", commit]).stdout
            entries: dict[str, str] = {}
            for entry in listing.split(b"\0"):
                if entry:
                    meta, _, path = entry.partition(b"\t")
                    mode, kind, blob = meta.split()
                    if kind == b"blob" and mode in (b"100644", b"100755"):  # no symlinks
                        entries[path.decode("utf-8", "surrogateescape")] = blob.decode()
            self._trees[commit] = entries
        return self._trees[commit]

    def blobs(self, ids: Iterable[str]) -> dict[str, bytes]:
        """The bytes of many blobs in one `git cat-file --batch`."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        out = self._run(["cat-file", "--batch"], stdin=("\n".join(wanted) + "\n").encode()).stdout
        found: dict[str, bytes] = {}
        position = 0
        for blob in wanted:
            header_end = out.index(b"\n", position)
            size = int(out[position:header_end].split()[2])
            start = header_end + 1
            found[blob] = out[start:start + size]
            position = start + size + 1
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
        result = subprocess.run(["git", *args], env=_git_env(path or self.path),
                                capture_output=True, input=stdin)
        if result.returncode != 0:
            raise OSError(f"git {args[0]} failed in {path or self.path}: {_first_cause(result.stderr)}")
        return result


def _quote(path: str) -> str:
    if path.startswith('"') or "\n" in path or '"' in path:
        escaped = path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    return path
