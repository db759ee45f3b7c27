"""What a sync remote may hold that no memtui pushed, built with git's plumbing
(`hash-object`, `mktree`'s raw form, `commit-tree`), as another tool or a hostile machine
could: entries git itself refuses to check out, names no store can hold, files that are no
memory. Also memories whose name or text holds a token, in the encodings a file may have,
and a host that accepts a connection and never answers. Used by the tests and by
`scripts/torture_sync.py`.
"""

from __future__ import annotations

import codecs
import os
import socket
import subprocess
import threading
from pathlib import Path

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
BLOB, TREE, LINK, SUBMODULE = "100644", "40000", "120000", "160000"


# Another tool's commits, made in any home: a fresh one has no git identity configured.
AUTHOR = {f"GIT_{who}_{what}": value for who in ("AUTHOR", "COMMITTER")
          for what, value in (("NAME", "another tool"), ("EMAIL", "tool@example.invalid"))}


def git(remote: Path, *args: str, data: bytes | None = None) -> str:
    return subprocess.run(["git", "--git-dir", str(remote), *args], input=data, check=True,
                          capture_output=True, env={**os.environ, **AUTHOR}).stdout.decode().strip()


def blob(remote: Path, data: bytes) -> str:
    return git(remote, "hash-object", "-w", "--stdin", data=data)


def raw_tree(remote: Path, entries: list[tuple[str, bytes, str]]) -> str:
    """A tree object of exactly these (mode, name, id) entries, in this order: written with
    `hash-object --literally`, so names `mktree` would refuse (empty, with a `/`) go in too."""
    data = b"".join(mode.encode() + b" " + name + b"\0" + bytes.fromhex(oid)
                    for mode, name, oid in entries)
    return git(remote, "hash-object", "-t", "tree", "-w", "--literally", "--stdin", data=data)


def tree_of(remote: Path, *entries: tuple[str, bytes, str]) -> str:
    return raw_tree(remote, list(entries))


def _listing(remote: Path, tree: str) -> list[tuple[str, bytes, str]]:
    out = subprocess.run(["git", "--git-dir", str(remote), "ls-tree", "-z", tree], check=True,
                         capture_output=True).stdout
    entries = []
    for item in out.split(b"\0"):
        if item:
            meta, _, name = item.partition(b"\t")
            mode, _, oid = meta.split()
            entries.append((mode.decode().lstrip("0") if mode == b"040000" else mode.decode(),
                            name, oid.decode()))
    return entries


def _with(remote: Path, tree: str | None, path: list[bytes],
          add: list[tuple[str, bytes, str]]) -> str:
    """`tree` with `add` put into the folder at `path` (made when missing)."""
    entries = _listing(remote, tree) if tree else []
    if not path:
        names = {name for _, name, _ in add}
        return raw_tree(remote, [e for e in entries if e[1] not in names] + add)
    inner = next((oid for mode, name, oid in entries if name == path[0] and mode == TREE), None)
    child = _with(remote, inner, path[1:], add)
    return raw_tree(remote, [e for e in entries if e[1] != path[0]] + [(TREE, path[0], child)])


def push_entries(remote: Path, folder: str, add: list[tuple[str, bytes, str]],
                 message: str = "another tool") -> str:
    """A commit on the remote's `main` adding `add` to `folder`, as a machine that pushed
    them would leave it."""
    head = git(remote, "rev-parse", "--verify", "--quiet", "main")
    root = git(remote, "rev-parse", f"{head}^{{tree}}") if head else None
    tree = _with(remote, root, [part.encode() for part in folder.split("/")], add)
    commit = git(remote, "commit-tree", tree, *(["-p", head] if head else []), "-m", message)
    git(remote, "update-ref", "refs/heads/main", commit)
    return commit


# Each kind of entry no store can hold: (kind, entries to add to a store's folder, the
# reason sync gives, the path it names).
def hostile_entries(remote: Path) -> dict[str, tuple[list[tuple[str, bytes, str]], str, str]]:
    memory = blob(remote, b"---\nname: hostile\ndescription: not for a store\n---\nHi.\n")
    inside = tree_of(remote, (BLOB, b"escape.md", memory))
    return {
        "dot-dot": ([(TREE, b"..", inside)], "a `.` or `..` in its path", ".."),
        "dot": ([(TREE, b".", inside)], "a `.` or `..` in its path", "."),
        # (An empty name would make one: git's own pack-objects dies on it, so no git
        # could fetch that remote at all.)
        "absolute": ([(BLOB, b"/etc/escape.md", memory)], "an absolute path",
                     "/etc/escape.md"),
        "long-name": ([(BLOB, b"x" * 300 + b".md", memory)], "a name over 255 bytes",
                      "x" * 300 + ".md"),
        "not-utf8": ([(BLOB, b"caf\xe9.md", memory)], "a name that is not UTF-8",
                     "caf\udce9.md"),
        "symlink": ([(LINK, b"passwd.md", blob(remote, b"/etc/passwd"))], "a symlink",
                    "passwd.md"),
        "dot-git": ([(TREE, b".git", tree_of(remote, (BLOB, b"config.md", memory)))],
                    "a `.git` folder or file", ".git"),
        "not-md": ([(BLOB, b"notes.txt", blob(remote, b"plain text\n"))], "not a .md file",
                   "notes.txt"),
        "too-big": ([(BLOB, b"huge.md", blob(remote, b"---\nname: huge\n---\n"
                                              + b"x" * (6 << 20)))], "over 5 MB", "huge.md"),
        "file-and-folder": ([(BLOB, b"twice.md", memory), (TREE, b"twice.md", inside)],
                            "a name given twice in one folder", "twice.md"),
        "submodule": ([(SUBMODULE, b"module.md", memory)], "a git submodule", "module.md"),
    }


def secret_texts() -> dict[str, bytes]:
    """A memory holding TOKEN in each encoding a file may carry a BOM for."""
    text = f"---\nname: ci\ndescription: how CI runs\n---\nThe token is {TOKEN}\n"
    return {
        "utf-8-bom": codecs.BOM_UTF8 + text.encode("utf-8"),
        "utf-16-le": codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
        "utf-16-be": codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
        "utf-32-le": codecs.BOM_UTF32_LE + text.encode("utf-32-le"),
        "utf-32-be": codecs.BOM_UTF32_BE + text.encode("utf-32-be"),
        "utf-16-no-bom": text.encode("utf-16-le"),
    }


def remote_objects(remote: Path) -> list[bytes]:
    """The content of every object in the repository (commits, trees, blobs)."""
    out = subprocess.run(["git", "--git-dir", str(remote), "cat-file", "--batch-all-objects",
                          "--batch"], capture_output=True, check=True).stdout
    objects, position = [], 0
    while position < len(out):
        header_end = out.index(b"\n", position)
        size = int(out[position:header_end].split()[2])
        objects.append(out[header_end + 1:header_end + 1 + size])
        position = header_end + 2 + size
    return objects


def holds_token(data: bytes) -> bool:
    """Whether TOKEN is in these bytes, in any of the encodings `secret_texts` uses."""
    return any(TOKEN.encode(codec) in data for codec in
               ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"))


class BlackHole:
    """A TCP port on 127.0.0.1 that accepts every connection and never says a word: a
    remote host that does not answer, with no network needed."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.held: list[socket.socket] = []
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        self.server.settimeout(0.2)
        while not self.closed.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            self.held.append(connection)

    def urls(self) -> dict[str, str]:
        return {"ssh": f"ssh://git@127.0.0.1:{self.port}/memory.git",
                "git": f"git://127.0.0.1:{self.port}/memory.git",
                "https": f"http://127.0.0.1:{self.port}/memory.git"}

    def close(self) -> None:
        self.closed.set()
        self.thread.join()
        for connection in self.held:
            connection.close()
        self.server.close()

    def __enter__(self) -> BlackHole:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def processes_with(marker: str, *command: str) -> list[int]:
    """The pids of live processes whose environment holds `marker` (`/proc`, Linux), of
    those whose command line starts with `command` when given (`"git", "fetch"`)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        argv[0] = argv[0].rsplit(b"/", 1)[-1]
        if marker.encode() in environ and state != "Z" and (
                [arg.encode() for arg in command] == argv[:len(command)]):
            found.append(int(entry.name))
    return found


def snapshot_tree(root: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime in ns) of every file under root; {} when it does not exist."""
    if not root.exists():
        return {}
    return {str(path.relative_to(root)): (path.lstat().st_size, path.lstat().st_mtime_ns)
            for path in root.rglob("*")}

