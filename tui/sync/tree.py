"""The stores' folders in a remote commit, read from git's tree objects entry by entry.

Not `git ls-tree -r`: one entry git itself refuses (an empty name) makes it fail for the
whole commit, and it lists what a store must never hold (`..`, an absolute path, a
300-byte name, a symlink). Here each entry of a store's folder is checked, one a store
cannot hold is refused with the reason, and the rest of that store, and every other store,
syncs as usual. Only the trees on the way to the wanted folders are read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field

MAX_NAME_BYTES = 255  # a longer name is more than any common file system holds
MAX_FILE_BYTES = 5 * 1024 * 1024  # no memory is this big; a file that is was put there
FILE_MODES = (b"100644", b"100755")
TREE_MODE = b"40000"
_KINDS = {b"120000": "a symlink", b"160000": "a git submodule"}


@dataclass
class Folder:
    """One store's folder on the remote."""
    files: dict[str, str] = field(default_factory=dict)  # blob id by store-relative path
    refused: dict[str, str] = field(default_factory=dict)  # why, by store-relative path
    unreadable: str | None = None  # why the folder could not be read at all


def stored_path(raw: bytes) -> str:
    """A path as the store names it: undecodable bytes kept (surrogateescape), as the
    local scan names a file."""
    return raw.decode("utf-8", "surrogateescape")


def shown_path(path: str) -> str:
    """A path fit to print: bytes that are not UTF-8 as escapes, a very long name cut."""
    text = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    size = len(path.encode("utf-8", "surrogateescape"))
    return text if len(text) <= 80 else f"{text[:40]}…{text[-12:]} ({size} bytes)"


def name_problem(name: bytes, first: bool) -> str | None:
    """Why a store cannot hold an entry of this name; `first`: the first part of its path."""
    if not name:
        return "an absolute path" if first else "an empty name in its path"
    if name.startswith(b"/"):
        return "an absolute path"
    if b"/" in name or b"\\" in name:
        return "a name holding a path separator"
    if name in (b".", b".."):
        return "a `.` or `..` in its path"
    if name.lower() == b".git":
        return "a `.git` folder or file"
    if len(name) > MAX_NAME_BYTES:
        return f"a name over {MAX_NAME_BYTES} bytes"
    try:
        name.decode("utf-8")
    except UnicodeDecodeError:
        return "a name that is not UTF-8"
    return None


def tree_entries(data: bytes, id_bytes: int) -> Iterator[tuple[bytes, bytes, str]]:
    """(mode, name, object id) of each entry of a raw tree object; ValueError when it is
    cut short."""
    position = 0
    while position < len(data):
        space = data.index(b" ", position)
        end = data.index(b"\0", space)
        oid = data[end + 1:end + 1 + id_bytes]
        if len(oid) != id_bytes:
            raise ValueError("a tree entry cut short")
        yield data[position:space], data[space + 1:end], oid.hex()
        position = end + 1 + id_bytes


def read_folders(
    commit: str,
    wanted: Collection[str],
    read_objects: Callable[[list[str]], Mapping[str, tuple[str, bytes]]],
) -> dict[str, Folder]:
    """The folder of each wanted store (`github.com/ana/app/memory`) in `commit`, reading
    the trees level by level, one `read_objects` call (ids -> (type, bytes)) per level. A
    wanted folder the commit lacks is empty."""
    folders = {folder: Folder() for folder in wanted}
    prefixes = {"/".join(folder.split("/")[:n]) for folder in wanted
                for n in range(1, folder.count("/") + 1)}
    id_bytes = len(commit) // 2
    head = read_objects([commit]).get(commit)
    if head is None or head[0] != "commit" or not head[1].startswith(b"tree "):
        raise ValueError(f"commit {commit[:10]} cannot be read")
    # (tree id, path on the remote, store folder when inside one, path in the store)
    level: list[tuple[str, str, str | None, str]] = [(head[1][5:5 + 2 * id_bytes].decode(),
                                                       "", None, "")]
    while level:
        trees = read_objects([tree for tree, *_ in level])
        following = []
        for tree, path, store, inner in level:
            kind, data = trees.get(tree, ("missing", b""))
            try:
                if kind != "tree":
                    raise ValueError(f"tree {tree[:10]} is {kind}")
                entries = list(tree_entries(data, id_bytes))
            except ValueError as error:
                if inner:  # a folder inside a store: that folder is left alone
                    folders[store].refused[inner.rstrip("/")] = f"a folder git cannot read ({error})"
                    continue
                for folder, found in folders.items():
                    if folder == store or (store is None and (not path or folder.startswith(f"{path}/"))):
                        found.unreadable = str(error)
                continue
            if store is None:
                following += _toward(entries, path, folders.keys(), prefixes)
            else:
                following += _inside(entries, folders[store], store, inner)
        level = following
    return folders


def _toward(entries, path: str, wanted: Collection[str], prefixes: set[str]):
    """The trees on the way to the wanted folders, and those folders."""
    for mode, name, oid in entries:
        if mode != TREE_MODE:
            continue
        try:
            child = f"{path}/{name.decode('utf-8')}" if path else name.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if child in wanted:
            yield oid, child, child, ""
        elif child in prefixes:
            yield oid, child, None, ""


def _inside(entries, folder: Folder, store: str, inner: str):
    """The files of a store's folder, each entry a store cannot hold refused."""
    names = Counter(name for _, name, _ in entries)
    for mode, name, oid in entries:
        problem = name_problem(name, not inner)
        path = f"{inner}{stored_path(name)}"
        if problem is None and names[name] > 1:
            problem = "a name given twice in one folder on the remote (a file and a folder)"
        if problem is None and mode not in FILE_MODES and mode != TREE_MODE:
            problem = _KINDS.get(mode, f"an entry of unknown kind ({mode.decode(errors='replace')})")
        if problem is None and mode in FILE_MODES and not name.endswith(b".md"):
            problem = "not a .md file"
        if problem is not None:
            folder.refused[path] = problem
        elif mode == TREE_MODE:
            yield oid, f"{store}/{path}", store, f"{path}/"
        else:
            folder.files[path] = oid
