"""`memtui sync`: pull, merge and push every chosen store through one git remote.

One run, under a per-remote lock on this machine:

1. fetch the remote (unreachable: one sentence, nothing changed);
2. plan each store three-way against its last synced base (`plan`);
3. write what comes in through the safe, journalled, undoable write (`apply_journalled`),
   then remember the fetched commit as the store's base;
4. commit what goes out on top of the fetched commit and push it; when another machine
   pushed first, the push is rejected: fetch, plan and merge again, and retry.

What never travels: files that are not memories or indexes (`.consolidate-lock`, memtui's
temp files, anything not `.md`), symlinks, anything outside the store, files over 5 MB,
and files with a secret in their name or text, in any encoding (blocked, with the line).
A store whose dream holds Claude Code's consolidate lock is skipped.

What never comes in: a remote entry this machine cannot hold (`tree`: `..`, an absolute
path, a long or undecodable name, a symlink, `.git`, not `.md`, over 5 MB) or whose name a
folder or file here takes (or the reverse). Each is left alone on both sides and named in
`blocked` with its reason; the rest of the store, and every other store, syncs as usual.
A dry run fetches into a temporary clone: it writes nothing under memtui's state.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tui import failpoints
from tui.history.journal import blob_id
from tui.memory.conflicts import CONFLICT_OPEN
from tui.memory.writes import FileChange, mtime_of
from tui.sync.identity import Identity
from tui.sync.plan import StorePlan, is_index, plan_store
from tui.sync.remote import TRACKING, RemoteUnreachable, SyncRepo, machine_message, shown_url
from tui.sync.settings import machine_name, store_id
from tui.sync.tree import MAX_FILE_BYTES, Folder, name_problem, shown_path
from tui.words import plural

CONFLICT_MARK = CONFLICT_OPEN.encode()
ATTEMPTS = 8  # pushes rejected in a row (other machines pushing) before giving up


class SyncFailed(Exception):
    """The sync could not finish; one sentence for the user (exit 1)."""


@dataclass(frozen=True)
class SyncTarget:
    store: Path
    identity: Identity


@dataclass
class ProjectSync:
    identity: str | None
    store: Path
    pulled: list[str] = field(default_factory=list)
    pushed: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    blocked: list[dict[str, str]] = field(default_factory=list)
    skipped: str | None = None
    incoming: list[FileChange] = field(default_factory=list)  # a dry run's writes, to preview
    unresolved: list[str] = field(default_factory=list)  # files still holding a sync conflict
    past_cut: list[str] = field(default_factory=list)  # memories the merged index hides
    # Memories that came in with their index lines past the loaded cut: Claude does not see
    # them here until room is made (nothing this machine saw is hidden, so nothing is held).
    arrived_past_cut: list[str] = field(default_factory=list)
    # Of `pulled` and `pushed`, the files that were deleted rather than sent.
    pulled_deletions: list[str] = field(default_factory=list)
    pushed_deletions: list[str] = field(default_factory=list)

    @property
    def pulled_texts(self) -> list[str]:
        """Of `pulled`, the files that came with a text (not deleted here)."""
        return [file for file in self.pulled if file not in self.pulled_deletions]

    @property
    def pushed_texts(self) -> list[str]:
        """Of `pushed`, the files sent with a text (not deleted on the remote)."""
        return [file for file in self.pushed if file not in self.pushed_deletions]

    def set_pushed(self, outgoing: dict[str, bytes | None]) -> None:
        """What this store sends: a text per file, None for a file deleted on the remote."""
        self.pushed = sorted(outgoing)
        self.pushed_deletions = sorted(file for file, data in outgoing.items() if data is None)

    def to_json(self) -> dict:
        return {"identity": self.identity, "store": str(self.store), "pulled": self.pulled,
                "pushed": self.pushed, "conflicts": self.conflicts, "blocked": self.blocked,
                "skipped": self.skipped, "pulled_deletions": self.pulled_deletions,
                "pushed_deletions": self.pushed_deletions,
                "arrived_past_cut": self.arrived_past_cut}


@dataclass
class SyncReport:
    remote: str
    projects: list[ProjectSync]
    dry_run: bool = False

    def to_json(self) -> dict:
        return {"remote": self.remote, "projects": [p.to_json() for p in self.projects]}


def read_local(store: Path) -> tuple[dict[str, bytes], dict[str, str]]:
    """Every file of the store that travels: of what the journal snapshots (regular files,
    no symlink, nothing under `.git`, no lock, no temp file), the `.md` files; and what
    could not be read (a path, "" for the store itself, to the reason)."""
    from tui.history.journal import scan_store

    contents = scan_store(store)
    if contents is None:
        return {}, {}
    files = {file: data for file, data in contents.files.items() if file.endswith(".md")}
    # A folder may hold memories; a file that is no memory would not travel anyway.
    unreadable = {path: why for path, why in contents.unreadable.items()
                  if path.endswith(".md") or not os.path.isfile(store / path)}
    return files, unreadable


def _unreadable_reason(store: Path, unreadable: dict[str, str]) -> str:
    path, why = next(iter(sorted(unreadable.items())))
    more = f" (and {len(unreadable) - 1} more)" if len(unreadable) > 1 else ""
    return (f"{path or store} cannot be read ({why}){more}, so sync would take what is in it "
            "for deleted; nothing was synced for this store (make it readable, then sync again)")


def _outgoing_refusal(file: str, data: bytes | None) -> str | None:
    """Why a file must not leave this machine: a name the other machines cannot hold, a
    size no memory has, a secret in its name or text (in any encoding); None to send it."""
    from tui.memory.secrets import find_secrets, first_secret_in_bytes

    parts = file.encode("utf-8", "surrogateescape").split(b"/")
    problem = next(filter(None, (name_problem(part, n == 0) for n, part in enumerate(parts))),
                   None)
    if problem:
        return f"not pushed: {problem}"
    hit = next(find_secrets(file), None)
    if hit is not None:
        return f"secret in its name ({hit.kind}); not pushed"
    if data is None:
        return None
    if len(data) > MAX_FILE_BYTES:
        return f"over {MAX_FILE_BYTES >> 20} MB; not pushed"
    hit = first_secret_in_bytes(data)
    return None if hit is None else f"secret on line {hit.line} ({hit.kind}); not pushed"


def _redacted(path: str) -> str:
    """A path fit to print: escaped, shortened, and any secret in it replaced."""
    from tui.memory.secrets import find_secrets, redact

    shown = shown_path(path)
    for hit in sorted(find_secrets(shown), key=lambda hit: -hit.start):
        shown = redact(shown, hit)
    return shown


def _ancestors(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:n]) for n in range(1, len(parts))]


def _clashes(store: Path, remote: Folder, local: Mapping[str, bytes]) -> dict[str, str]:
    """Paths the remote and this machine give different kinds: a file on one side where the
    other has a folder (or here a symlink, a pipe). Why, by path."""
    reasons: dict[str, str] = {}
    kinds: dict[str, int | None] = {}

    def kind(path: str) -> int | None:
        if path not in kinds:
            try:
                kinds[path] = stat.S_IFMT(os.lstat(store / path).st_mode)
            except (OSError, ValueError):
                kinds[path] = None
        return kinds[path]

    for path in remote.files:
        if path in local:
            continue
        taken = next((a for a in _ancestors(path) if kind(a) not in (None, stat.S_IFDIR)), None)
        if taken is not None:
            reasons[path] = f"not pulled: {shown_path(taken)} here is no folder"
        elif kind(path) is not None:
            reasons[path] = "not pulled: something other than a file has this name here"
    on_remote = set(remote.files) | set(remote.refused)
    remote_folders = {a for path in on_remote for a in _ancestors(path)}
    for path in local:
        if path in remote_folders:
            reasons[path] = "not pushed: the remote has a folder of this name"
        elif any(a in on_remote for a in _ancestors(path)):
            reasons[path] = "not pushed: the remote has a file where this path has a folder"
    return reasons


def _past_cut(file: str, before: bytes | None, after: bytes | None) -> tuple[list[str], list[str]]:
    """(memories visible in the loaded index before a change and linked only past it after,
    memories linked only past it after that it did not link before)."""
    from tui.memory.index import parse_index

    folder = os.path.dirname(file)
    folder = f"{folder}/" if folder else ""

    def parse(data: bytes | None):
        return parse_index(None if data is None else data.decode("utf-8", "replace"), folder=folder)

    old, new = parse(before), parse(after)
    linked_before = {link.file for link in old.links if link.file}
    visible_before = {link.file for link in old.links if link.visible and link.file}
    visible_after = {link.file for link in new.links if link.visible and link.file}
    hidden_after = {link.file for link in new.links if link.file} - visible_after
    return sorted(visible_before & hidden_after), sorted(hidden_after - linked_before)


class _Run:
    """One `sync` over one remote."""

    def __init__(self, repo: SyncRepo, targets: Sequence[SyncTarget], *, dry_run: bool,
                 accept_cut: bool, machine: str, fetch: bool = True):
        self.repo = repo
        self.fetch = fetch
        self.dry_run = dry_run
        self.accept_cut = accept_cut
        self.machine = machine
        self.projects: dict[Path, ProjectSync] = {}
        self.active: list[SyncTarget] = []
        owners: dict[str, Path] = {}
        for target in targets:
            key = target.identity.key
            project = ProjectSync(key, target.store)
            self.projects[target.store] = project
            if key is None:
                project.skipped = f"not synced: {target.identity.reason}"
            elif key in owners:
                project.skipped = (f"not synced: {owners[key]} has the same identity {key} "
                                   "on this machine; give one of them its own --name")
            else:
                owners[key] = target.store
                self.active.append(target)
        self.bases = repo.load_bases()
        self.wanted = {target.identity.remote_folder for target in self.active}
        self.refused = ""

    def run(self) -> None:
        for _ in range(ATTEMPTS):
            head = self.repo.fetch() if self.fetch else self.repo.rev(TRACKING)
            if self._attempt(head):
                return
        raise SyncFailed(f"{shown_url(self.repo.url)} refused this machine's push {ATTEMPTS} "
                         f"times (last: {self.refused}); what came in was kept, run sync again.")

    def _base_of(self, target: SyncTarget) -> dict[str, str] | None:
        recorded = self.bases.get(store_id(target.store))
        if not recorded or recorded["identity"] != target.identity.key:
            return None
        if not self.repo.has_commit(recorded["commit"]):
            return None
        return self._folder(recorded["commit"], target).files

    def _folder(self, commit: str | None, target: SyncTarget) -> Folder:
        """One store's folder at a commit."""
        return self.repo.folders(commit, self.wanted)[target.identity.remote_folder]

    def _attempt(self, head: str | None) -> bool:
        """Plan, pull and push once; False when the push was rejected."""
        outgoing: dict[str, bytes | None] = {}
        agreed: list[SyncTarget] = []
        pushes: dict[Path, dict[str, bytes | None]] = {}
        for target in list(self.active):
            project = self.projects[target.store]
            plan = self._plan(target, head, project)
            if plan is None:
                self.active.remove(target)
                continue
            for file in plan.pulled:
                if file not in project.pulled:
                    project.pulled.append(file)
            for change in plan.local_changes:
                if change.after is None and change.file not in project.pulled_deletions:
                    project.pulled_deletions.append(change.file)
            for file in plan.conflicts:
                if file not in project.conflicts:
                    project.conflicts.append(file)
            if self.dry_run:
                project.set_pushed(plan.outgoing)
                project.incoming = plan.local_changes
                continue
            if not self._pull(target, plan, project):
                self.active.remove(target)
                continue
            agreed.append(target)
            pushes[target.store] = plan.outgoing
            folder = target.identity.remote_folder
            outgoing.update({f"{folder}/{file}": data for file, data in plan.outgoing.items()})
        if self.dry_run:
            return True
        self._remember(agreed, head)
        if not outgoing:
            return True
        commit = self.repo.commit(head, outgoing, self._message(pushes))
        failpoints.reached("sync.before_push", commit)
        refused = self.repo.push(commit)
        if refused:
            self.refused = refused
            return False
        for target in agreed:
            self.projects[target.store].set_pushed(pushes[target.store])
        self._remember(agreed, commit)
        return True

    def _plan(self, target: SyncTarget, head: str | None, project: ProjectSync) -> StorePlan | None:
        from tui.claude.lock import read_lock

        store = target.store
        lock = read_lock(store)
        if lock.held():
            project.skipped = (f"a memory consolidation (process {lock.pid}) is running in this "
                               "store; skipped, the next sync catches up")
            return None
        remote = self._folder(head, target)
        if remote.unreadable:
            project.skipped = (f"its folder on the remote cannot be read ({remote.unreadable}); "
                               "nothing was synced for this store")
            return None
        if not store.is_dir():
            # A project with sessions but no memory yet here: the other machines' memory
            # comes in, in the folder Claude Code would create for it.
            if not remote.files:
                project.skipped = "no memory yet, here or on the remote"
                return None
            if not self.dry_run:
                try:
                    store.mkdir(parents=True, exist_ok=True)
                except OSError as error:
                    project.skipped = f"{store} cannot be created ({error.strerror or error})"
                    return None
        local, unreadable = read_local(store) if store.is_dir() else ({}, {})
        if unreadable:
            project.skipped = _unreadable_reason(store, unreadable)
            return None
        base = self._base_of(target)
        local_ids = {file: blob_id(data) for file, data in local.items()}
        left_alone = self._left_alone(target, remote, local, local_ids, base, project)
        folder = target.identity.remote_folder
        plan = plan_store(
            local, base, remote.files, self.repo.blobs, self.machine, local_ids=local_ids,
            left_alone=left_alone,
            remote_sides=lambda files: self.repo.sides(head, {f: f"{folder}/{f}" for f in files})
            if head else {},
            local_time=lambda file: mtime_of(store / file))
        project.unresolved = _unresolved_after(local, plan.local_changes)
        for file, data in list(plan.outgoing.items()):
            reason = _outgoing_refusal(file, data)
            if reason:
                del plan.outgoing[file]
                project.blocked.append({"file": _redacted(file), "reason": reason})
        pushed_out, arrived = [], []
        for change in plan.local_changes:
            if is_index(change.file):
                hidden, new = _past_cut(change.file, change.before, change.after)
                pushed_out += hidden
                arrived += new
        project.past_cut = pushed_out
        project.arrived_past_cut = arrived
        if pushed_out and not self.accept_cut:
            unseen = "it" if len(pushed_out) == 1 else "them"
            project.skipped = (f"the merged index would leave {', '.join(pushed_out)} past the "
                               f"loaded cut, where Claude does not see {unseen}; nothing was "
                               "synced for this store (accept with --yes, or make room in the "
                               "index first)")
            return None
        return plan

    def _left_alone(self, target: SyncTarget, remote: Folder, local: Mapping[str, bytes],
                    local_ids: Mapping[str, str], base: Mapping[str, str] | None,
                    project: ProjectSync) -> set[str]:
        """The paths neither pulled nor pushed, each named in `blocked` with why: remote
        entries this machine cannot hold (and what lies under them), files over the size
        limit, names one side gives a file and the other a folder."""
        reasons = {path: f"not pulled: {why}" for path, why in remote.refused.items()}
        sizes = self.repo.sizes(blob for path, blob in remote.files.items()
                                if local_ids.get(path) != blob)
        big = {blob for blob, size in sizes.items() if size > MAX_FILE_BYTES}
        reasons.update({path: f"not pulled: over {MAX_FILE_BYTES >> 20} MB"
                        for path, blob in remote.files.items() if blob in big})
        for path, why in _clashes(target.store, remote, local).items():
            reasons.setdefault(path, why)
        project.blocked = [{"file": _redacted(path), "reason": why}
                           for path, why in sorted(reasons.items())]
        folders = tuple(f"{path}/" for path in remote.refused)
        under = {path for path in (*local, *remote.files, *(base or {}))
                 if path.startswith(folders)} if folders else set()
        return set(reasons) | under

    def _pull(self, target: SyncTarget, plan: StorePlan, project: ProjectSync) -> bool:
        """Write the incoming changes; False (store skipped) when the write is refused."""
        from tui.history.recovery import apply_journalled
        from tui.memory.refusals import WriteRefused

        if not plan.local_changes:
            return True
        try:
            apply_journalled(target.store, plan.local_changes,
                             f"sync from {shown_url(self.repo.url)}")
        except (WriteRefused, OSError) as error:
            # A store that cannot take this pull: the others sync on; the next sync retries.
            why = str(error) if isinstance(error, WriteRefused) else \
                f"Writing to {target.store} failed ({error.strerror or error})."
            project.skipped = f"{why} The next sync catches up."
            project.pulled = []
            project.pulled_deletions = []
            return False
        return True

    def _remember(self, targets: Sequence[SyncTarget], commit: str | None) -> None:
        if commit is None:
            return
        for target in targets:
            self.bases[store_id(target.store)] = {"identity": target.identity.key, "commit": commit}
        self.repo.save_bases(self.bases)

    def _message(self, pushes: dict[Path, dict[str, bytes | None]]) -> str:
        files = sum(len(files) for files in pushes.values())
        stores = sum(1 for files in pushes.values() if files)
        return machine_message(f"memtui sync from {self.machine}: {plural(files, 'file')} of "
                               f"{plural(stores, 'project')}", self.machine)


def _unresolved_after(local: dict[str, bytes], changes: Sequence[FileChange]) -> list[str]:
    """Files that hold a sync conflict once the pull is written: a resolution pulled from
    another machine clears one, a conflict of this merge is reported as such."""
    merged = dict(local)
    for change in changes:
        if change.after is None:
            merged.pop(change.file, None)
        else:
            merged[change.file] = change.after
    return sorted(file for file, data in merged.items() if CONFLICT_MARK in data)


def sync(url: str, targets: Sequence[SyncTarget], *, dry_run: bool = False,
         accept_cut: bool = False, fetch: bool = True, machine: str | None = None) -> SyncReport:
    """Sync the targets with the remote at `url`. Raises RemoteUnreachable (nothing changed)
    or SyncFailed, each with one sentence. `fetch=False` (dry runs only): plan against the
    remote as last fetched, for a status that needs no network. `machine`: the name this
    machine's text carries in a conflict (default: the one in the settings, else the
    hostname)."""
    assert fetch or dry_run
    repo = SyncRepo(url)
    machine = machine or machine_name()

    def once() -> SyncReport:
        run = _Run(repo, targets, dry_run=dry_run, accept_cut=accept_cut, fetch=fetch,
                   machine=machine)
        run.run()
        return SyncReport(shown_url(url), list(run.projects.values()), dry_run)

    if dry_run:
        with repo.locked(create=False), repo.scratch():
            try:
                return once()
            except OSError as error:
                raise SyncFailed(f"Looking at the remote failed ({error}); nothing was "
                                 "changed.") from None
    with repo.locked():
        try:
            repo.ensure()
            return once()
        except OSError as error:
            if not (repo.path / "HEAD").is_file():
                raise SyncFailed(f"memtui's copy of the remote cannot be set up ({error}).") from None
            # git failing in memtui's own clone: it is damaged. Start a new one, once; the
            # stores' bases live beside it and the remote holds their commits.
            repo.move_aside()
        try:
            repo.ensure()
            return once()
        except OSError as error:
            raise SyncFailed(f"Syncing failed ({error}); run sync again.") from None


__all__ = ["ProjectSync", "RemoteUnreachable", "SyncFailed", "SyncReport", "SyncTarget", "sync"]
