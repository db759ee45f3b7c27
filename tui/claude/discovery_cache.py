"""What discovery worked out, kept between runs while the files that decided it stay the same.

Four answers are kept, in a JSON file in the cache dir (written whole and renamed into place;
a damaged, foreign or older one is started again):

- each transcript's first `cwd`, while its size and mtime stay the same, and each
  transcript folder's session files and whether it holds a store folder (unless that is
  a link), while the folder lists the same;
- each existing cwd's resolution (its realpath, the canonical project root, the store),
  while every path the resolution looked at stays the same: each folder on the way to the
  cwd and to its realpath (a symlink made, moved or removed), the `.git` of every folder from
  the realpath up to the checkout (a repository made or removed), a worktree's pointer files
  and the project's settings files (`autoMemoryDirectory`);
- each store's count of memory files, while every folder it walked lists the same (its
  mtime; a store holding a symlink or a folder it cannot list is counted every time);
- the paths found for a store folder no transcript names (`pathfinder`), while every
  folder the walk listed lists the same.

What serves every cwd (the config home, the environment, the user's, managed and
`--settings` files) is the cache's context: when it changes, no resolution is reused.

A file changed in the same clock tick as it was looked at keeps its size and mtime; like
git's index, a signature taken within `RACY_NS` of a file's mtime is never trusted later.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from tui.claude.files import read_regular, replace_cache_file
from tui.claude.gitroot import Looks
from tui.claude.paths import MAX_FOLDER_NAME, sanitize
from tui.jsontext import compact_json, load_json

VERSION = 5  # 5: a transcript folder's entry says whether it holds a store
RACY_NS = 2_000_000_000
NAME = "n"  # what a path names: its kind and inode (a symlink: also when it was made)
CONTENT = "c"  # a file that was read: kind, inode, size, mtime and ctime (symlinks followed)
LISTING = "l"  # a folder that was listed: inode and mtime


class Resolution(NamedTuple):
    """An existing cwd as discovery sees it."""

    real: str  # realpath, NFC (`paths.normalize_path`)
    root: str  # canonical project root
    memory_dir: str


class Signatures:
    """Each (kind, path) signature, taken once per run."""

    def __init__(self) -> None:
        self._taken: dict[str, object] = {}
        self.now_ns = time.time_ns()

    def of(self, key: str) -> object:
        try:
            return self._taken[key]
        except KeyError:
            taken = self._taken[key] = self._take(key[0], key[1:])
            return taken

    def _take(self, kind: str, path: str) -> object:
        try:
            info = os.lstat(path) if kind == NAME else os.stat(path)
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            return None
        except (OSError, ValueError):
            return "unreadable"  # never equal to a stored signature
        if kind == NAME:
            made = info.st_mtime_ns if stat.S_ISLNK(info.st_mode) else 0
            return [stat.S_IFMT(info.st_mode), info.st_ino, info.st_dev, made]
        if self.now_ns - info.st_mtime_ns < RACY_NS:
            return "racy"  # may still change within the same mtime
        if kind == CONTENT:
            return [stat.S_IFMT(info.st_mode), info.st_ino, info.st_dev, info.st_size,
                    info.st_mtime_ns, info.st_ctime_ns]
        return [info.st_ino, info.st_dev, info.st_mtime_ns]

    def trusted(self, key: str) -> bool:
        return type(self.of(key)) is not str  # "racy" or "unreadable"

    # `os.path`'s lexists, islink, isfile and isdir from the NAME signatures the cache
    # keeps anyway: discovery looks at each path once (a link's target, again each time).
    def exists(self, path: str) -> bool:
        return type(self.of(NAME + path)) is list

    def is_link(self, path: str) -> bool:
        return self._kind(path) == stat.S_IFLNK

    def is_file(self, path: str) -> bool:
        kind = self._kind(path)
        return os.path.isfile(path) if kind == stat.S_IFLNK else kind == stat.S_IFREG

    def is_dir(self, path: str) -> bool:
        kind = self._kind(path)
        return os.path.isdir(path) if kind == stat.S_IFLNK else kind == stat.S_IFDIR

    def _kind(self, path: str) -> int | None:
        found = self.of(NAME + path)
        return found[0] if type(found) is list else None


def prefixes(path: str) -> Iterable[str]:
    """`/a`, `/a/b`, `/a/b/c` for `/a/b/c`."""
    position = path.find("/", 1)
    while position != -1:
        yield path[:position]
        position = path.find("/", position + 1)
    if path != "/":
        yield path.rstrip("/") or "/"


LEGACY_NAME = "discovery.json"  # the one file all config homes shared once: removed on save


def cache_path(home: Path) -> Path:
    """One cache per config home: switching CLAUDE_CONFIG_DIR between two leaves both warm
    (one shared file was all resolved again at every switch)."""
    from tui import xdg

    return xdg.cache_dir() / f"discovery{sanitize(os.path.abspath(home))}.json"


class DiscoveryCache:
    def __init__(self, values: list, files: list[Path | None], path: Path | None):
        """`values` and `files` (the settings files every cwd reads) are the context;
        `path` None: a pass of its own, nothing read or kept (one store's state is worked
        out in ~1 ms, reading a heavy tree's cache took 20)."""
        self.path = path
        self.signatures = Signatures()
        self.context = [*values, *([os.fspath(file), self.signatures.of(CONTENT + os.fspath(file))]
                                   if file is not None else None for file in files)]
        self.transcripts: dict[str, list] = {}
        self.counts: dict[str, list] = {}  # store: [memory files, [[folder, listing], ...]]
        self.walks: dict[str, list] = {}  # folder name: [paths found, [[folder, listing], ...]]
        self.sessions: dict[str, list] = {}  # transcript folder: [names, [[itself, listing]]]
        # Each resolution names the keys it was decided by as indices into `keys`, whose
        # signatures when stored are `witnessed`; a key seen changed gets a new index.
        self.resolutions: dict[str, tuple[Resolution, tuple[int, ...]]] = {}
        self.keys: list[str] = []
        self.witnessed: list[object] = []
        self._index: dict[str, int] | None = None
        self._stale: set[int] | None = None  # indices whose signature changed since
        self.changed = False
        self.asked: set[str] = set()  # transcripts and cwds this run asked about
        if path is None:
            return
        try:
            self._load(load_json(read_regular(self.path)))
        except (OSError, ValueError, RecursionError, TypeError, KeyError, IndexError):
            self.transcripts, self.resolutions, self.keys, self.witnessed = {}, {}, [], []
            self.counts, self.walks, self.sessions = {}, {}, {}

    def _load(self, loaded: object) -> None:
        if not isinstance(loaded, dict) or loaded.get("version") != VERSION:
            return
        self.transcripts = {os.path.join(folder, name): entry  # stored by folder: shorter
                            for folder, names in loaded["transcripts"].items()
                            for name, entry in names.items()}
        counts, walks, sessions = loaded["counts"], loaded["walks"], loaded["sessions"]
        if all(isinstance(entries, dict) for entries in (counts, walks, sessions)):
            self.counts, self.walks, self.sessions = counts, walks, sessions
        if loaded.get("context") != self.context:
            return  # another config home, environment or global settings: resolve again
        keys = [key for key, _ in loaded["witnesses"]]
        if not all(isinstance(key, str) and key for key in keys):
            return
        witnessed = [signature for _, signature in loaded["witnesses"]]
        resolutions = {}
        for cwd, (real, root, memory_dir, used) in loaded["resolutions"].items():
            if (all(isinstance(t, str) for t in (cwd, real, root, memory_dir))
                    and all(type(i) is int and 0 <= i < len(keys) for i in used)):
                resolutions[cwd] = (Resolution(real, root, memory_dir), tuple(used))
        self.keys, self.witnessed, self.resolutions = keys, witnessed, resolutions

    # --- transcripts ------------------------------------------------------------------------

    def first_cwd(self, path: str, info: os.stat_result) -> tuple[bool, str | None]:
        """(known, cwd) for a transcript of this size and mtime."""
        self.asked.add(path)
        entry = self.transcripts.get(path)
        if (isinstance(entry, list) and len(entry) == 3 and entry[0] == info.st_size
                and entry[1] == info.st_mtime_ns and (entry[2] is None or isinstance(entry[2], str))):
            return True, entry[2]
        return False, None

    def remember_first_cwd(self, path: str, info: os.stat_result, cwd: str | None) -> None:
        if self.signatures.now_ns - info.st_mtime_ns >= RACY_NS:
            previous = self.transcripts.get(path)
            self.transcripts[path] = [info.st_size, info.st_mtime_ns, cwd]
            # A session still running grows at every turn, its first cwd stays: the file
            # is not rewritten for that alone (the next run reads one line again).
            if not (isinstance(previous, list) and len(previous) == 3 and previous[2] == cwd):
                self.changed = True

    # --- stores ---------------------------------------------------------------------------

    def memory_count(self, store: str) -> int | None:
        """A store's count of memory files, while none of its folders' listings changed."""
        self.asked.add(store)
        count = self._listed(self.counts.get(store))
        return count if type(count) is int else None

    def remember_count(self, store: str, count: int, folders: list[str] | None) -> None:
        self._remember_listed(self.counts, store, count, folders)

    def folder_contents(self, folder: str) -> tuple[list[str] | None, bool | None]:
        """(the transcripts' names, whether it holds a store folder; None: a link) in a
        folder, while it lists the same; (None, None) when unknown."""
        self.asked.add(folder)
        contents = self._listed(self.sessions.get(folder))
        if not (isinstance(contents, list) and len(contents) == 2):
            return None, None
        names, holds_store = contents
        if (isinstance(names, list) and all(isinstance(n, str) for n in names)
                and holds_store in (True, False, None)):
            return names, holds_store
        return None, None

    def remember_folder_contents(self, folder: str, names: list[str],
                                 holds_store: bool | None) -> None:
        self._remember_listed(self.sessions, folder, [names, holds_store], [folder])

    def walk(self, name: str) -> list[str] | None:
        """The paths a walk from the root found for a folder name, while every folder it
        listed lists the same."""
        self.asked.add(name)
        found = self._listed(self.walks.get(name))
        return found if isinstance(found, list) and all(isinstance(p, str) for p in found) else None

    def remember_walk(self, name: str, found: list[str], folders: list[str]) -> None:
        self._remember_listed(self.walks, name, found, folders)

    def _listed(self, entry: object) -> object:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], list)):
            return None
        for folder, listing in entry[1]:
            if not isinstance(folder, str) or self.signatures.of(LISTING + folder) != listing:
                return None
        return entry[0]

    def _remember_listed(self, entries: dict[str, list], name: str, answer: object,
                         folders: list[str] | None) -> None:
        keys = [LISTING + folder for folder in folders or ()]
        if folders is None or not all(self.signatures.trusted(key) for key in keys):
            return
        entries[name] = [answer, [[key[1:], self.signatures.of(key)] for key in keys]]
        self.changed = True

    # --- resolutions ------------------------------------------------------------------------

    def resolution(self, cwd: str) -> Resolution | None:
        """The stored resolution of `cwd`, when nothing it was decided by has changed."""
        self.asked.add(cwd)
        entry = self.resolutions.get(cwd)
        if entry is None:
            return None
        if self._stale is None:  # every stored key looked at once
            of = self.signatures.of
            self._stale = {index for index, (key, signature)
                           in enumerate(zip(self.keys, self.witnessed, strict=True)) if of(key) != signature}
        resolution, used = entry
        if self._stale.isdisjoint(used):
            return resolution
        del self.resolutions[cwd]
        self.changed = True
        return None

    def remember(self, cwd: str, resolution: Resolution, used: Iterable[str]) -> None:
        used = tuple(dict.fromkeys(used))
        signatures = [self.signatures.of(key) for key in used]
        if not os.path.isabs(cwd) or any(type(s) is str for s in signatures):  # not trusted
            return
        if self._index is None:
            self._index = {key: index for index, key in enumerate(self.keys)}
        indices = []
        for key, signature in zip(used, signatures, strict=True):
            index = self._index.get(key)
            if index is None or self.witnessed[index] != signature:
                index = self._index[key] = len(self.keys)
                self.keys.append(key)
                self.witnessed.append(signature)
            indices.append(index)
        self.resolutions[cwd] = (resolution, tuple(indices))
        self.changed = True

    def save(self, whole_tree: bool = False) -> None:
        """Write what changed; after a whole-tree scan, only what it asked about is kept
        (transcripts and checkouts since removed are forgotten)."""
        if whole_tree:
            kept = {path: entry for path, entry in self.transcripts.items() if path in self.asked}
            self.changed |= len(kept) != len(self.transcripts)
            self.transcripts = kept
            for entries in (self.counts, self.walks, self.sessions):
                for name in [name for name in entries if name not in self.asked]:
                    del entries[name]
                    self.changed = True
            for cwd in [cwd for cwd in self.resolutions if cwd not in self.asked]:
                del self.resolutions[cwd]
                self.changed = True
        if not self.changed or self.path is None:
            return
        by_folder: dict[str, dict[str, list]] = {}
        for path, entry in self.transcripts.items():
            folder, name = os.path.split(path)
            by_folder.setdefault(folder, {})[name] = entry
        renumbered: dict[int, int] = {}  # only the keys a kept resolution names
        resolutions = {}
        for cwd, (resolution, used) in self.resolutions.items():
            for index in used:
                renumbered.setdefault(index, len(renumbered))
            resolutions[cwd] = [resolution.real, resolution.root, resolution.memory_dir,
                                [renumbered[index] for index in used]]
        document = {"version": VERSION, "context": self.context,
                    "transcripts": by_folder, "counts": self.counts, "walks": self.walks,
                    "sessions": self.sessions,
                    "witnesses": [[self.keys[index], self.witnessed[index]]
                                  for index in renumbered],
                    "resolutions": resolutions}
        try:
            data = compact_json(document)
        except ValueError:
            return  # a cache that cannot be written only costs time
        if replace_cache_file(os.fspath(self.path), data):
            try:
                (self.path.parent / LEGACY_NAME).unlink(missing_ok=True)
            except OSError:
                pass


def witnesses(cwd: str, real: str, root: str, memory_dir: str,
              signatures: Signatures, looks: Looks) -> list[str]:
    """The keys a resolution of `cwd` was decided by (see the module's docstring); `looks`
    as `canonical_root_of` had them."""
    keys = [NAME + path for path in prefixes(cwd)]
    if real != cwd:
        keys += [NAME + path for path in prefixes(real)]
    current = real
    while True:  # `find_git_root`: the first `.git` from the realpath up
        dot_git = os.path.join(current, ".git")
        keys.append(NAME + dot_git)
        found = signatures.of(NAME + dot_git)
        if found is not None:
            if not (isinstance(found, list) and stat.S_ISDIR(found[0])):
                keys += _checkout_keys(dot_git, looks)  # a `.git` file, or a link to either
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    settings = os.path.join(root, ".claude")
    keys.append(NAME + settings)
    if signatures.of(NAME + settings) is not None:  # most projects have no `.claude`
        keys += [CONTENT + os.path.join(settings, name)
                 for name in ("settings.json", "settings.local.json")]
    projects = os.path.dirname(os.path.dirname(memory_dir))
    if len(os.path.basename(os.path.dirname(memory_dir))) > MAX_FOLDER_NAME:
        keys.append(LISTING + projects)  # an over-long name is matched among the folders
    return keys


def _checkout_keys(dot_git: str, looks: Looks) -> list[str]:
    """A `.git` file (a worktree or submodule) and what `canonical_root_of` reads through it."""
    from tui.claude.gitroot import gitdir_pointer, read_small_text

    keys = [CONTENT + dot_git]
    if not looks.isfile(dot_git):
        return keys
    worktree_git_dir = gitdir_pointer(Path(dot_git), looks)
    if worktree_git_dir is None:
        return keys
    keys += [NAME + path for path in prefixes(str(worktree_git_dir))]
    for name in ("commondir", "gitdir"):
        pointer = os.path.join(worktree_git_dir, name)
        keys.append(CONTENT + pointer)
        text = read_small_text(Path(pointer))
        if text is not None:
            try:
                target = looks.realpath(os.path.join(worktree_git_dir, text.strip()))
            except ValueError:
                continue
            keys += [NAME + path for path in prefixes(target)]
    return keys
