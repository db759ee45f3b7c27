"""Every project and memory store under a config home, with real paths.

A transcript folder is keyed by a session's cwd; a store by the canonical git root. This
module joins the two: each transcript folder is mapped to the store its sessions used
(through git when the cwd still exists, through the transcripts' own evidence when it does
not), and each store gets the real path it is keyed by (from a transcript `cwd`, or by
walking the filesystem when every transcript has been swept).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from tui.claude import paths, transcripts
from tui.claude.discovery_cache import (
    DiscoveryCache,
    Resolution,
    Signatures,
    cache_path,
    witnesses,
)
from tui.claude.gitroot import Looks, canonical_project_root
from tui.claude.memory_files import count_memory_files, counted_memory_files
from tui.claude.pathfinder import DirectoryLister, paths_for_folder
from tui.claude.settings import MemoryLocation, read_setting, root_memory_location

CLAUDE_WORKTREES = "/.claude/worktrees/"  # where `claude --worktree` makes worktrees


# The records of discovery are NamedTuples, not dataclasses: making a dataclass runs
# generated code (~0.5 ms a class, paid by every command that discovers).
class TranscriptFolder(NamedTuple):
    """One folder of `projects/` seen as a place sessions ran."""

    name: str
    path: Path
    session_mtimes: tuple[float, ...]
    cwds: tuple[str, ...]  # distinct cwds, newest session first
    store: Path | None
    mapped_by: str  # "git", "evidence", "folder", "worktree-state" or "unmapped"
    role: str  # "main", "subdirectory", "worktree", "deleted", "other"
    note: str = ""

    @property
    def sessions(self) -> int:
        return len(self.session_mtimes)


class Project(NamedTuple):
    """A store plus the transcript folders whose sessions used it (or an unmapped folder)."""

    name: str
    store: Path | None
    store_exists: bool
    key_path: str | None
    paths: tuple[str, ...]
    transcript_folders: tuple[TranscriptFolder, ...]
    memories: int
    stranded: bool
    stranded_reason: str
    resting: bool
    last_consolidated: float | None
    note: str = ""

    @property
    def transcript_dirs(self) -> tuple[Path, ...]:
        return tuple(folder.path for folder in self.transcript_folders)

    @property
    def sessions(self) -> int:
        return sum(folder.sessions for folder in self.transcript_folders)

    def sessions_since(self, when: float | None) -> int:
        return sum(
            1
            for folder in self.transcript_folders
            for mtime in folder.session_mtimes
            if when is None or mtime > when
        )


class LiveStore(NamedTuple):
    """The store a stranded store's memories belong in: the one its project's sessions use."""

    stranded: bool
    key_path: str | None
    store: Path | None  # None: none was found
    why: str  # the evidence that names it, or why there is none (a clause, no full stop)


class Inventory:
    def __init__(self, home: Path, projects: list[Project] | None = None) -> None:
        self.home = home
        self.projects: list[Project] = [] if projects is None else projects

    def find(self, name: str) -> Project | None:
        for project in self.projects:
            if project.name == name or (project.store and str(project.store) == name):
                return project
        return None


def count_memories(memory_dir: Path) -> int:
    """Every memory file of the store, in every subfolder, as Claude Code's scan sees them."""
    return count_memory_files(memory_dir)


class _Scanner:
    def __init__(self, home: Path, env: Mapping[str, str], settings_file: Path | None,
                 cached: bool = True):
        self.home = home
        self.projects_dir = paths.projects_dir(home)
        self.env = env
        self.settings_file = settings_file
        self.lister = DirectoryLister()
        self._locations: dict[Path, MemoryLocation] = {}  # by project root
        self._settings: dict[str, str | None] = {}
        self._resolved: dict[str, Resolution | None] = {}
        self.evidence_cache: transcripts.EvidenceCache | None = None  # made when first needed
        self.listed: set[str] | None = None  # every session file a whole-tree scan listed
        # A whole-tree scan stats every transcript once, up front, and reads the first cwds
        # the cache does not know all at once (`read_first_cwds`).
        self.statted: dict[str, os.stat_result] = {}
        self.read_ahead: dict[str, str | None] = {}  # first cwds by absolute path
        from tui.claude.settings import managed_settings_path

        # What every cwd's resolution depends on besides its own files.
        self.cache = DiscoveryCache(
            [os.fspath(home), os.path.abspath(home), str(Path.home()),
             *(env.get(name) for name in ("CLAUDE_CONFIG_DIR", "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
                                          "CLAUDE_CODE_REMOTE_MEMORY_DIR",
                                          "CLAUDE_CODE_PROJECT_DIR_NAME"))],
            [managed_settings_path(), settings_file, home / "settings.json"],
            cache_path(home) if cached else None,
        )
        self.normalized = paths.RealPaths(self.cache.signatures.is_link)
        self.looks = _PassLooks(self.cache.signatures, self.normalized)

    @cached_property
    def folder_names(self) -> list[str]:
        try:
            return os.listdir(self.projects_dir)
        except OSError:
            return []

    def read_setting(self, file: Path) -> str | None:
        """A settings file's value, read once per scan (the user's file serves every cwd);
        most projects have no `.claude` folder, looked at once for its two files."""
        key = os.fspath(file)  # a Path hashes and finds its parent slowly: by its text
        if key not in self._settings:
            # The folder's lstat is taken once per pass by the signatures (a witness).
            present = self.cache.signatures.is_dir(os.path.dirname(key))
            self._settings[key] = read_setting(file) if present else None
        return self._settings[key]

    def resolved(self, cwd: str) -> Resolution | None:
        """An existing cwd's realpath, project root and store (None when it is no folder),
        from the cache while what decided it stays the same."""
        if cwd in self._resolved:
            return self._resolved[cwd]
        found = self.cache.resolution(cwd)
        if found is None and self.cache.signatures.is_dir(cwd):
            location = self.location(cwd)
            found = Resolution(self.normalized(cwd), str(location.project_root),
                               str(location.memory_dir))
            self.cache.remember(cwd, found, witnesses(cwd, found.real, found.root,
                                                      found.memory_dir, self.cache.signatures,
                                                      self.looks))
        self._resolved[cwd] = found
        return found

    def location(self, cwd: str) -> MemoryLocation:
        """`resolve_memory_location`, once per project root (a project's cwds share it)."""
        root = canonical_project_root(self.normalized(cwd), self.looks)
        found = self._locations.get(root)
        if found is None:
            found = self._locations[root] = root_memory_location(
                root, home=self.home, env=self.env, settings_file=self.settings_file,
                read=self.read_setting,
            )
        return found

    def local_store(self, store: str) -> Path:
        """A memory dir named in a transcript, moved to this config home when it matches
        (a session on Windows names it with backslashes, which POSIX paths do not split)."""
        folder = store.replace("\\", "/").split("/")[-2]
        candidate = self.projects_dir / folder / paths.MEMORY_DIR_NAME
        return candidate if os.path.isdir(self.projects_dir / folder) else Path(store)

    def transcript_folder(self, entry_name: str, files: list[str]) -> TranscriptFolder:
        dated = []
        for file in files:
            try:
                dated.append((self.statted.get(file) or os.stat(file), file))
            except OSError:
                continue
        dated.sort(key=lambda pair: (pair[0].st_mtime, pair[1]), reverse=True)
        cwds: list[str] = []
        for info, file in dated:
            cwd = self.first_cwd(file, info)
            if cwd and cwd not in cwds:
                cwds.append(cwd)
        folder_path = self.projects_dir / entry_name
        mtimes = tuple(info.st_mtime for info, _ in dated)

        for cwd in cwds:
            resolution = self.resolved(cwd)
            if resolution is not None:
                root, real_cwd = resolution.root, resolution.real
                role = "main" if real_cwd == root else (
                    "subdirectory" if real_cwd.startswith(root.rstrip("/") + "/") else "worktree"
                )
                return TranscriptFolder(
                    entry_name, folder_path, mtimes, tuple(cwds), Path(resolution.memory_dir),
                    "git", role
                )

        evidence = self.folder_evidence([file for _, file in dated])
        role = "deleted" if cwds else "other"
        if evidence.stores:
            # Sorted: a tie goes to the first by path, not to the set's order of the run.
            counts = Counter(self.local_store(s) for s in sorted(evidence.stores))
            store = counts.most_common(1)[0][0]
            return TranscriptFolder(
                entry_name, folder_path, mtimes, tuple(cwds), store, "evidence", role,
                note="its cwd is gone; mapped by the memory files its sessions wrote",
            )
        # The folder is named after the sessions' cwd and the store after its project root:
        # a store in the folder itself is the one these sessions used.
        own_store = folder_path / paths.MEMORY_DIR_NAME
        if os.path.isdir(own_store):
            return TranscriptFolder(
                entry_name, folder_path, mtimes, tuple(cwds), own_store, "folder", role,
                note="its cwd is gone; its sessions sit beside the store they used",
            )
        for original in sorted(evidence.original_cwds):
            store = self.origin_store(original)
            if store is not None:
                return TranscriptFolder(
                    entry_name, folder_path, mtimes, tuple(cwds), store, "worktree-state", role,
                    note=f"its worktree is gone; mapped through the worktree's origin {original}",
                )
        if evidence.original_cwds:
            original = sorted(evidence.original_cwds)[0]
            note = (f"its sessions ran in a worktree of {original}, which no longer exists "
                    "and left no memory store here")
        elif cwds:
            note = (f"its sessions ran in {cwds[0]}, which no longer exists, and no transcript "
                    "names the store they used (no memory write, no worktree origin)")
        else:
            note = "no transcript record names a working directory"
        return TranscriptFolder(
            entry_name, folder_path, mtimes, tuple(cwds), None, "unmapped", role, note=note,
        )

    def folder_contents(self, folder: str) -> tuple[list[str], bool]:
        """(its session files, whether it holds a store folder), from the cache
        while the folder lists the same."""
        key = _absolute(folder)
        names, holds_store = self.cache.folder_contents(key)
        if names is None:
            found, memory = transcripts.listed_folder(folder)
            names = [os.path.basename(path) for path in found]
            holds_store = _holds_store(memory)
            self.cache.remember_folder_contents(key, names, holds_store)
        if holds_store is None:
            holds_store = os.path.isdir(os.path.join(folder, paths.MEMORY_DIR_NAME))
        return [os.path.join(folder, name) for name in names], holds_store

    def first_cwd(self, file: str, info: os.stat_result) -> str | None:
        """A transcript's first cwd, from the cache while its size and mtime stay the same."""
        key = _absolute(file)
        known, cwd = self.cache.first_cwd(key, info)
        if not known:
            if key in self.read_ahead:
                cwd = self.read_ahead.pop(key)
            else:
                cwd = transcripts.first_cwd(file, info)  # stat'd a moment ago, for its mtime
            self.cache.remember_first_cwd(key, info, cwd)
        return cwd

    def read_first_cwds(self, files: list[str]) -> None:
        """Stat every transcript, and read ahead the first cwds the cache does not know:
        on a first run, thousands, shared with a forked child (`transcripts.first_cwds`)."""
        unknown: list[tuple[str, os.stat_result]] = []
        for file in files:
            try:
                info = self.statted[file] = os.stat(file)
            except OSError:
                continue
            key = _absolute(file)
            if not self.cache.first_cwd(key, info)[0]:
                unknown.append((key, info))
        if len(unknown) >= transcripts.FIRST_CWDS_SHARED:
            self.read_ahead.update(zip((key for key, _ in unknown),
                                       transcripts.first_cwds(unknown), strict=True))

    def memory_count(self, store: Path) -> int:
        """`count_memories`, from the cache while the store's folders list the same."""
        key = os.path.abspath(store)
        count = self.cache.memory_count(key)
        if count is None:
            count, folders = counted_memory_files(key)
            self.cache.remember_count(key, count, folders)
        return count

    def origin_store(self, original: str) -> Path | None:
        """The store of the checkout a worktree was made from (`worktree-state` originalCwd)."""
        resolution = self.resolved(original)
        if resolution is not None:
            return Path(resolution.memory_dir)
        # The checkout is gone too; its store outlives it, in the folder named after it.
        folder = paths.find_folder(self.folder_names, paths.sanitize(original))
        store = self.projects_dir / folder / paths.MEMORY_DIR_NAME if folder else None
        return store if store is not None and os.path.isdir(store) else None

    def key_path(self, name: str, memory_dir: Path, folders: list[TranscriptFolder],
                 own: TranscriptFolder | None) -> tuple[str | None, bool, str, bool]:
        """(key path, stranded, why, resting) for a store folder under projects/."""
        for folder in folders:
            if folder.mapped_by != "git":
                continue
            for cwd in folder.cwds:
                resolution = self.resolved(cwd)
                if resolution is not None:
                    root = resolution.root
                    if paths.folder_matches(name, paths.sanitize(root)):
                        return root, False, "", False
        candidates: list[str] = []
        if own is not None:
            candidates = [c for c in own.cwds if paths.folder_matches(name, paths.sanitize(c))]
        resting = False
        if not candidates:
            candidates = self.paths_for_folder(name)
            resting = bool(candidates)
        if not candidates:
            return (None, True,
                    "no path on this machine has this folder name, so no session will load it",
                    False)
        key = candidates[0]
        resolution = self.resolved(key)
        if resolution is None:
            return key, True, f"{key} no longer exists, so no session will load this store", False
        root = resolution.root
        if root != resolution.real:
            return (key, True,
                    f"it is keyed by {key}, but sessions there use the store of {root}", resting)
        return key, False, "", resting

    def paths_for_folder(self, name: str) -> list[str]:
        """`paths_for_folder`, from the cache while every folder it listed lists the same."""
        found = self.cache.walk(name)
        if found is None:
            listed: list[str] = []
            found = paths_for_folder(name, lister=self.lister, listed=listed)
            self.cache.remember_walk(name, found, listed)
        return found

    def store_state(self, name: str) -> tuple[str | None, bool, str, bool]:
        """(key path, stranded, why, resting) for one store folder, without a full scan."""
        memory_dir = self.projects_dir / name / paths.MEMORY_DIR_NAME
        files, _ = self.folder_contents(os.path.join(self.projects_dir, name))
        own = self.transcript_folder(name, files) if files else None
        mapped = [own] if own is not None and own.store == memory_dir else []
        return self.key_path(name, memory_dir, mapped, own)

    def live_store(self, memory_dir: Path) -> LiveStore:
        """Where the sessions of a stranded store's project keep their memories now."""
        name = memory_dir.parent.name
        key, stranded, _, _ = self.store_state(name)
        if not stranded:
            return LiveStore(False, key, None, "sessions load it")
        here = os.path.realpath(memory_dir)
        for path, how in self.checkout_evidence(name, key):
            resolution = self.resolved(path)
            if resolution is not None and os.path.realpath(resolution.memory_dir) != here:
                store = Path(resolution.memory_dir)
                return LiveStore(True, key, store, f"sessions in {path} use it ({how})")
        for store in self.written_stores(name):
            if os.path.realpath(store) != here and not self.store_state(store.parent.name)[1]:
                return LiveStore(True, key, store,
                                 "the stranded store's sessions wrote their memories there")
        gone = (f"{key} no longer exists" if key
                else "no path on this machine has its folder name")
        return LiveStore(True, key, None,
                         f"{gone}, and no session names the checkout it came from")

    def checkout_evidence(self, name: str, key: str | None) -> list[tuple[str, str]]:
        """(path, how it is known) of places whose sessions use the store this one's
        memories belong in, the surest first."""
        found: list[tuple[str, str]] = []
        if key:
            found.append((key, "the path the stranded store is keyed by"))
        files, _ = self.folder_contents(os.path.join(self.projects_dir, name))
        if files:
            evidence = self.folder_evidence(files)
            found += [(original, "the checkout its worktree was made from, by worktree-state")
                      for original in sorted(evidence.original_cwds)]
            own = self.transcript_folder(name, files)
            found += [(cwd, "where its sessions ran") for cwd in own.cwds]
        if key and CLAUDE_WORKTREES in key.replace("\\", "/"):
            # `claude --worktree` puts worktrees in the checkout: <root>/.claude/worktrees/<name>
            checkout = key.replace("\\", "/").rpartition(CLAUDE_WORKTREES)[0]
            found.append((checkout, f"the checkout `claude --worktree` made {key} in"))
        return found

    def written_stores(self, name: str) -> list[Path]:
        """The stores this folder's sessions wrote memories to, by their paths."""
        files, _ = self.folder_contents(os.path.join(self.projects_dir, name))
        stores = self.folder_evidence(files).stores if files else set()
        return [self.local_store(store) for store in sorted(stores)]

    def folder_evidence(self, files: list[str]) -> transcripts.MemoryEvidence:
        if self.evidence_cache is None:
            self.evidence_cache = transcripts.EvidenceCache()
        return self.evidence_cache.folder_evidence(files)

    def scan(self) -> Inventory:
        inventory = Inventory(self.home)
        try:
            entries = sorted(os.scandir(self.projects_dir), key=lambda e: e.name)
        except OSError:
            return inventory
        folders: dict[str, TranscriptFolder] = {}
        store_names: list[str] = []
        listings: list[tuple[str, list[str]]] = []
        self.listed = set()
        for entry in entries:
            try:
                if not entry.is_dir():
                    continue
            except OSError:
                continue
            files, holds_store = self.folder_contents(entry.path)
            self.listed.update(files)
            if files:
                listings.append((entry.name, files))
            if holds_store:
                store_names.append(entry.name)
        self.read_first_cwds([file for _, files in listings for file in files])
        for name, files in listings:
            folders[name] = self.transcript_folder(name, files)

        by_store: dict[Path, list[TranscriptFolder]] = {}
        for folder in folders.values():
            if folder.store is not None:
                by_store.setdefault(folder.store, []).append(folder)

        seen_stores: set[Path] = set()
        for name in store_names:
            memory_dir = self.projects_dir / name / paths.MEMORY_DIR_NAME
            seen_stores.add(memory_dir)
            mapped = by_store.get(memory_dir, [])
            key, stranded, why, resting = self.key_path(name, memory_dir, mapped, folders.get(name))
            inventory.projects.append(
                self.project(name, memory_dir, key, mapped, stranded, why, resting, exists=True)
            )
        for store, mapped in sorted(by_store.items()):
            if store in seen_stores:
                continue
            name = store.parent.name if store.parent.parent == self.projects_dir else str(store)
            git_roots = [r.root for f in mapped if f.mapped_by == "git"
                         for r in map(self.resolved, f.cwds) if r is not None]
            key = git_roots[0] if git_roots else None
            inventory.projects.append(self.project(name, store, key, mapped, False, "", False))
        for folder in folders.values():
            if folder.store is None:
                inventory.projects.append(
                    Project(
                        folder.name, None, False, None, folder.cwds, (folder,), 0, False, "",
                        False, None, note=folder.note,
                    )
                )
        return inventory

    def forget_gone_transcripts(self) -> None:
        """After a whole-tree scan, the evidence of transcripts deleted since is forgotten
        (the cache is read for it even when no folder needed evidence this time)."""
        if self.listed is None:
            return
        if self.evidence_cache is None and transcripts.evidence_cache_path().exists():
            self.evidence_cache = transcripts.EvidenceCache()
        if self.evidence_cache is not None:
            self.evidence_cache.forget_gone(os.fspath(self.projects_dir), self.listed)

    def project(self, name: str, store: Path, key: str | None, mapped: list[TranscriptFolder],
                stranded: bool, why: str, resting: bool, exists: bool | None = None) -> Project:
        if exists is None:
            exists = os.path.isdir(store)
        seen_paths: list[str] = []
        for folder in mapped:
            for cwd in folder.cwds:
                if cwd not in seen_paths:
                    seen_paths.append(cwd)
        if key and key not in seen_paths:
            seen_paths.insert(0, key)
        try:  # the lock's mtime is "last consolidated at" (`lock.read_lock`)
            consolidated = (os.stat(os.path.join(store, paths.LOCK_NAME)).st_mtime
                            if exists else None)
        except OSError:
            consolidated = None
        return Project(
            name=name,
            store=store,
            store_exists=exists,
            key_path=key,
            paths=tuple(seen_paths),
            transcript_folders=tuple(sorted(mapped, key=lambda f: f.name)),
            memories=self.memory_count(store) if exists else 0,
            stranded=stranded,
            stranded_reason=why,
            resting=resting,
            last_consolidated=consolidated,
        )


class _PassLooks(Looks):
    """`os.path`'s answers for one discovery pass: from the NAME signatures its cache takes
    anyway (each path lstat'ed once) and realpaths built from their parents'."""

    def __init__(self, signatures: Signatures, real_paths: paths.RealPaths) -> None:
        self.lexists = signatures.exists
        self.isfile = signatures.is_file
        self.realpath = real_paths.real


def _absolute(path: str) -> str:
    """`os.path.abspath`, skipped for the absolute paths a scan lists (it normalises each)."""
    return path if os.path.isabs(path) else os.path.abspath(path)


def _holds_store(memory: os.DirEntry[str] | None) -> bool | None:
    """Whether a `projects/` folder's `memory` entry is a store folder; None when it is a
    link, whose target may come and go while the folder lists the same."""
    try:
        if memory is None:
            return False
        return None if memory.is_symlink() else memory.is_dir(follow_symlinks=False)
    except OSError:
        return False


def discover(
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    settings_file: Path | None = None,
) -> Inventory:
    """Scan a config home (default: `$CLAUDE_CONFIG_DIR` or `~/.claude`)."""
    from tui.collector import collector_paused

    env = os.environ if env is None else env
    home = paths.config_home(env) if home is None else home
    with collector_paused():
        scanner = _Scanner(home, env, settings_file)
        inventory = scanner.scan()
        scanner.forget_gone_transcripts()
        if scanner.evidence_cache is not None:
            scanner.evidence_cache.save()
        scanner.cache.save(whole_tree=True)
    return inventory


def store_state(
    name: str, home: Path, env: Mapping[str, str] | None = None
) -> tuple[str | None, bool, str, bool]:
    """(key path, stranded, why, resting) for the store folder `name` under `home`: one
    folder's transcripts, without the whole tree's discovery cache (reading it is 20 times
    the work on a heavy tree)."""
    env = os.environ if env is None else env
    scanner = _Scanner(home, env, None, cached=False)
    state = scanner.store_state(name)
    if scanner.evidence_cache is not None:  # a discovery that follows reads it, not the files
        scanner.evidence_cache.save()
    return state


def live_store(memory_dir: Path, home: Path, env: Mapping[str, str] | None = None,
               settings_file: Path | None = None) -> LiveStore:
    """The store a stranded store's memories belong in, from what discovery knows: its key
    path's checkout, its sessions' worktree-state origin and cwds, a `claude --worktree`
    path's checkout, the stores its sessions wrote. `settings_file`: the `--settings` file
    sessions run with (its `autoMemoryDirectory` moves the live store)."""
    env = os.environ if env is None else env
    memory_dir = Path(memory_dir)
    if os.path.realpath(memory_dir.parent.parent) != os.path.realpath(paths.projects_dir(home)):
        return LiveStore(False, None, None,
                         f"it is not under {paths.projects_dir(home)}, where checkouts key stores")
    scanner = _Scanner(home, env, settings_file, cached=False)
    found = scanner.live_store(memory_dir)
    if scanner.evidence_cache is not None:
        scanner.evidence_cache.save()
    return found
