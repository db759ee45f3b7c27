"""Watching stores and committing every change to their journals.

Polling a store costs one `os.scandir` walk of a few hundred entries, and it keeps working
when the store is deleted and made again (an OS watch would die with the directory). A
change is committed once the store has stayed the same for one more poll, so a burst of
writes becomes one commit; while writes go on without a pause, the store is committed as
it is at least every `MAX_DELAY` seconds, so a long burst still leaves versions (what
changed and changed back between two commits is coalesced). Each commit names the
sessions whose transcripts wrote the changed files since the last commit, when any did.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tui.history.journal import Journal, JournalError, changed_files, damaged, detail_of
from tui.memory.refusals import WriteRefused
from tui.walk import MAX_DEPTH
from tui.words import listed

Signature = tuple[tuple[str, int, int], ...] | None
MAX_DELAY = 2.0  # seconds between commits at most while a store keeps changing
# A commit that failed (another memtui holding the store for longer than LOCK_WAIT, a
# journal git cannot write) is tried again this much later; meanwhile the other stores
# are watched, never held up by one store for longer than LOCK_WAIT.
RETRY_AFTER = 5.0
LOCK_WAIT = 1.0
# The coarsest file timestamps in common use tick every 2 s (FAT; ext4 on kernels before
# 6.13 ticks every few ms): a file written this close to a look is compared by its bytes.
RACY_NS = 2_000_000_000
DISCOVER_EVERY = 30  # polls between two looks for new stores (watch --all)


def signature(store: Path) -> Signature:
    """(path, size, mtime) of every file; None when the store is missing. Every poll of
    every store walks it, so this is one `scandir` a folder and one `lstat` a file."""
    if not os.path.isdir(store):
        return None
    entries: list[tuple[str, int, int]] = []
    folders = [(os.fspath(store), 0)]
    while folders:
        folder, depth = folders.pop()
        try:
            listing = os.scandir(folder)
        except OSError:
            continue  # gone, or unreadable (the snapshot says which)
        with listing:
            for entry in listing:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if depth < MAX_DEPTH:  # as deep as a snapshot reads
                            folders.append((entry.path, depth + 1))
                    else:
                        info = entry.stat(follow_symlinks=False)
                        entries.append((entry.path, info.st_size, info.st_mtime_ns))
                except OSError:
                    continue  # gone since the listing
    return tuple(sorted(entries))


@dataclass(frozen=True)
class WatchEvent:
    store: Path
    rev: str | None
    note: str  # one line for the user


Attributor = Callable[[Path, list[str], float], Mapping[str, str | None]]


class StoreWatcher:
    """One store: its journal, its last signature, a pending change."""

    def __init__(self, store: Path, attribute: Attributor | None = None,
                 max_delay: float = MAX_DELAY, clock: Callable[[], float] = time.time):
        self.store = store
        self.attribute = attribute
        self.max_delay = max_delay
        self.clock = clock
        self.journal: Journal | None = None  # opened by the first commit
        self.seen: Signature = None
        self.pending: Signature = None
        self.last_commit = clock()
        self.said_unreadable: dict[str, str] = {}
        self.trouble: str | None = None  # why the last commit failed, once said
        self.behind = False  # a commit failed: the journal lags the store whatever it shows
        self.racy = False  # a file was written close enough to the last look to hide a write
        self.retry_at = 0.0

    def start(self) -> WatchEvent:
        looked = time.time_ns()
        self.seen = signature(self.store)
        self.racy = racy(self.seen, looked)
        rev, trouble = self._try_commit("changes found when watching started", self.clock())
        if trouble:
            return WatchEvent(self.store, None, f"{self.store}: {trouble}")
        note = "missing, waiting for it" if self.seen is None else (
            "snapshot taken" if rev else "journal up to date"
        )
        return WatchEvent(self.store, rev, f"{self.store}: {note}{self._readability()}")

    def _readability(self) -> str:
        """What the last snapshot could not read, when that changed since it was said."""
        now = dict(self.journal.unreadable) if self.journal else {}
        if now == self.said_unreadable:
            return ""
        self.said_unreadable = now
        if not now:
            return "; every file can be read again"
        names = sorted(path or "the store itself" for path in now)
        return (f"; cannot read {listed(names, 5)} ({'; '.join(sorted(set(now.values())))}), "
                "so the journal keeps their last versions until they can be read")

    def poll(self) -> WatchEvent | None:
        started = self.clock()
        if started < self.retry_at:
            return None
        looked = time.time_ns()
        now = signature(self.store)
        if now == self.seen and not self.behind:
            self.pending = None
            if not self.racy:
                return None
            # The same sizes and times, but a rewrite in the tick of the last look would
            # show them too: compare the bytes (a commit only if they differ).
            self.racy = racy(now, looked)
            return self._commit_and_say(started)
        overdue = self.pending is not None and started - self.last_commit >= self.max_delay
        if now != self.pending and not overdue:  # still changing: wait for it to settle
            self.pending = now
            return None
        self.seen, self.pending, self.racy = now, None, racy(now, looked)
        if now is None:
            return WatchEvent(self.store, None, f"{self.store}: store deleted, waiting for it")
        return self._commit_and_say(started)

    def _commit_and_say(self, started: float) -> WatchEvent | None:
        before = self.journal.head() if self.journal else None
        rev, trouble = self._try_commit("change seen by memtui watch", started)
        if trouble is not None:  # the next poll after a pause tries again
            return WatchEvent(self.store, None, f"{self.store}: {trouble}") if trouble else None
        readability = self._readability()
        if rev is None:
            return WatchEvent(self.store, None, f"{self.store}: {readability[2:]}") if readability else None
        files = changed_files(self.journal, before, rev)
        return WatchEvent(self.store, rev,
                          f"{self.store}: committed {rev[:8]} ({', '.join(files)}){readability}")

    def _try_commit(self, message: str, seen_at: float) -> tuple[str | None, str | None]:
        """(new commit, None), or (None, why it failed: one sentence the first time, ""
        while it goes on failing); a failure is retried after `RETRY_AFTER` seconds, and
        watching the other stores goes on."""
        import git
        from gitdb.exc import ODBError

        try:
            rev = self._commit(message, seen_at)
        except (WriteRefused, JournalError, git.GitError, ODBError, OSError, ValueError) as error:
            self.retry_at = self.clock() + RETRY_AFTER
            self.behind = True
            said = trouble_sentence(self.store, error)
            said, self.trouble = ("" if said == self.trouble else said), said
            return None, said
        self.trouble, self.behind = None, False
        return rev, None

    def _commit(self, message: str, seen_at: float) -> str | None:
        """Snapshot the store; `seen_at` (when this poll began) becomes the last commit
        time, so the next deadline does not drift by the time the commit took."""
        import git

        if self.journal is None:
            self.journal = Journal(self.store)
        try:
            return self._snapshot(message, seen_at)
        except (JournalError, git.GitError, OSError) as error:
            # The journal went away or broke under us: start it again and retry once.
            if self.journal.is_damaged_by(error):
                self.journal.start_again(detail_of(error))
            else:
                self.journal = Journal(self.store)
            return self._snapshot(message, seen_at)

    def _snapshot(self, message: str, seen_at: float) -> str | None:
        trailers: Mapping[str, str | None] = {}
        if self.attribute is not None and self.journal.head() is not None:
            changed = self.journal.unsnapshotted()
            if changed:
                trailers = self.attribute(self.store, changed, self.last_commit)
        rev = self.journal.snapshot(message, source="watch", trailers=trailers, lock_wait=LOCK_WAIT)
        if rev:
            self.last_commit = seen_at
        return rev


def racy(seen: Signature, looked_ns: int) -> bool:
    """Whether a file was written within `RACY_NS` of the look that saw it: a rewrite of
    the same size in the same timestamp tick would leave its (size, mtime) as they were."""
    return seen is not None and any(mtime >= looked_ns - RACY_NS for _, _, mtime in seen)


def trouble_sentence(store: Path, error: Exception) -> str:
    """One sentence for a commit that failed."""
    if isinstance(error, (WriteRefused, JournalError)):
        return f"{error} watch tries again in {RETRY_AFTER:.0f} s."
    if isinstance(error, OSError):
        return (f"The journal of {store} cannot be written ({error.strerror or error}); "
                f"watch tries again in {RETRY_AFTER:.0f} s.")
    return f"{damaged(store, error)} watch tries again in {RETRY_AFTER:.0f} s."


def transcript_attributor(home: Path | None, env: Mapping[str, str] | None) -> Attributor:
    """Name the sessions whose transcripts changed these files since a time."""
    from tui.history.scan_cache import ScanCache
    from tui.history.writes_log import folder_events, store_transcript_folders

    folders: dict[Path, list[Path]] = {}
    caches: list[ScanCache] = []  # made in the watching thread: SQLite objects stay in theirs

    def attribute(store: Path, files: list[str], since: float) -> Mapping[str, str | None]:
        if store not in folders:
            folders[store] = store_transcript_folders(store, home, env)
        if not caches:
            caches.append(ScanCache())
        events = folder_events(store, folders[store], caches[0])
        # A transcript's clock and ours differ by the time a tool result takes to land.
        writers = [e for e in events if e.changes_file and e.file in files and e.when >= since - 5]
        if not writers:
            return {}
        last = writers[-1]
        others = sorted({e.session for e in writers} - {last.session})
        return {"Session": last.session, "Agent": last.agent or None, "Cwd": last.cwd,
                "Branch": last.branch,
                "Other-Sessions": ", ".join(others) or None}

    return attribute


def watch(stores: Sequence[Path], stop: threading.Event, report: Callable[[WatchEvent], None],
          *, interval: float = 1.0, attribute: Attributor | None = None,
          find_stores: Callable[[], Sequence[Path]] | None = None) -> int:
    """Poll until `stop` is set; returns how many commits were made after the start.
    `find_stores`, asked every `DISCOVER_EVERY` polls, names stores to watch from then on
    (the projects started while watching)."""
    watchers: dict[Path, StoreWatcher] = {}

    def take_up(found: Sequence[Path]) -> None:
        for store in map(Path, found):
            if store not in watchers:
                watchers[store] = StoreWatcher(store, attribute)
                report(watchers[store].start())

    take_up(stores)
    commits = 0
    polls = 0
    while not stop.wait(interval):
        polls += 1
        if find_stores is not None and polls % DISCOVER_EVERY == 0:
            take_up(find_stores())
        for watcher in list(watchers.values()):
            event = watcher.poll()
            if event is not None:
                commits += event.rev is not None
                report(event)
    return commits
