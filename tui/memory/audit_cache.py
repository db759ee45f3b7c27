"""Findings of unchanged stores, kept between runs of `memtui audit --all`.

A store's findings depend only on what is below it, so each store is fingerprinted by
a listing of every entry with its type, inode, size, mtime and ctime (ctime cannot be set
back, so any write or rename shows). While the fingerprint and memtui's own audit code are
unchanged, the cached findings are the findings. Not cached: a store holding a symlink
(what it points at lives elsewhere), and a store changed in the two seconds before its
fingerprint was taken (a second write in the same clock tick could keep the size and the
times).

Findings that depend on the project's code (`stale_path`) are kept apart, with the paths
the memories mention: they hold while the store, the checkout's HEAD and index, and what
the file system said of the paths git does not have (an ignored file) are unchanged. A
commit or an add moves HEAD or the index, so a moved file shows at once; the mentions are
then judged again against the checkout as it is.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from tui import notices, xdg
from tui.cache_db import damaged_cache, write_ahead_log
from tui.memory.finding import Finding
from tui.walk import MAX_DEPTH

if TYPE_CHECKING:  # loaded with the mentions' JSON: its patterns take ~15 ms to compile
    from tui.memory.path_mentions import PathMention

SETTLE_NS = 2_000_000_000
BUSY_SECONDS = 1.0  # how long to wait for another memtui writing the cache; then go without
# The code an audit runs, and the libraries whose answers it keeps: a change to any (an
# upgrade) makes every cached audit stale.
_RULE_PACKAGES = ("memory", "claude")
_RULE_LIBRARIES = ("rapidfuzz", "pyyaml", "detect_secrets", "markdown_it_py")


def _installed_records() -> bytes:
    """The RECORD of each rule library's installed distribution (every file it installed,
    with its hash: the version, and whether libyaml's extension is there), the first found
    on sys.path as import finds it. Read, not imported: a cached run never loads them."""
    from tui.installed import dist_info_folders

    folders = dist_info_folders(_RULE_LIBRARIES)
    found: dict[str, bytes] = {}
    for library, folder in folders.items():
        try:
            found[library] = Path(folder, "RECORD").read_bytes()
        except OSError:
            found[library] = b"unreadable"
    return b"".join(b"%s\0%s\0" % (library.encode(), found.get(library, b"absent"))
                    for library in _RULE_LIBRARIES)


@cache  # the code cannot change under a running process; hashing it per store cost 1 s
def rules_digest() -> str:
    digest = hashlib.blake2b(digest_size=16)
    root = Path(__file__).parent.parent
    for package in _RULE_PACKAGES:
        for source in sorted((root / package).glob("*.py")):
            digest.update(source.read_bytes())
    digest.update(f"{sys.version_info[:2]}".encode())
    digest.update(_installed_records())
    return digest.hexdigest()


def fingerprint(store: Path) -> tuple[str, int] | None:
    """(digest of the store's listing, newest ctime in ns), or None when it must not be cached."""
    records: list[str] = []
    newest = 0
    stack = [(str(store), "", 0)]
    while stack:
        folder, prefix, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return None
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                return None
            if stat.S_ISLNK(info.st_mode):
                return None
            if stat.S_ISDIR(info.st_mode) and depth < MAX_DEPTH:  # as deep as the audit reads
                stack.append((entry.path, f"{prefix}{entry.name}/", depth + 1))
            newest = max(newest, info.st_ctime_ns)
            records.append(
                f"{prefix}{entry.name}\0{info.st_mode}\0{info.st_ino}\0{info.st_size}"
                f"\0{info.st_mtime_ns}\0{info.st_ctime_ns}"
            )
    records.sort()
    listing = "\n".join(records).encode("utf-8", "surrogateescape")  # names need not be UTF-8
    return hashlib.blake2b(listing, digest_size=16).hexdigest(), newest


def _key(store: Path) -> bytes:
    """A store's path as bytes: names need not be UTF-8, and SQLite text must be."""
    return os.fsencode(store)


def _rows(findings: Sequence[Finding]) -> list[list]:
    return [[f.kind, f.severity, f.file, f.line, f.message, f.target, f.other, f.score]
            for f in findings]


def _findings(rows: list[list]) -> tuple[Finding, ...]:
    return tuple(Finding(*fields) for fields in rows)


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=BUSY_SECONDS)
    write_ahead_log(db, BUSY_SECONDS)  # readers never wait for a writer
    # No fsync per store written: a cache lost to a power cut is only audited again (674
    # commits, each synced, added seconds to the first `audit --all`).
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute(
        "CREATE TABLE IF NOT EXISTS audits("
        "store BLOB PRIMARY KEY, fingerprint TEXT, memories INTEGER, findings TEXT)"
    )
    # Apart from the findings: 60% of a row's bytes, read only when a store is judged again.
    db.execute("CREATE TABLE IF NOT EXISTS mentions("
               "store BLOB PRIMARY KEY, fingerprint TEXT, mentions TEXT)")
    db.execute("CREATE TABLE IF NOT EXISTS code_findings("
               "store BLOB PRIMARY KEY, state TEXT, findings TEXT)")
    return db


class StoredMentions(Sequence):
    """The paths a cached store's memories mention, read from the cache only when they
    must be judged again (the checkout or the file system changed): most runs never do."""

    def __init__(self, count: int, store: Path, read: Callable[[], str | None]):
        self.count = count
        self.store = store
        self.read = read

    def __len__(self) -> int:
        return self.count

    @cached_property
    def _mentions(self) -> tuple[PathMention, ...]:
        from tui.memory.path_mentions import PathMention

        text = self.read()
        if text is None:  # replaced since by another run: found again in the store
            from tui.memory.stale_paths import store_mentions
            from tui.memory.store import load_store

            return tuple(store_mentions(load_store(self.store)))
        return tuple(PathMention(*fields[:6], tuple(fields[6])) for fields in json.loads(text))

    def __getitem__(self, position):
        return self._mentions[position]

    def __iter__(self) -> Iterator[PathMention]:
        return iter(self._mentions)


class CachedAudit(NamedTuple):
    memories: int
    findings: tuple[Finding, ...]
    # The paths its memories mention: judged against the checkout of each run (or their
    # verdicts kept, `code_findings`), so a commit that moves a file is seen though the
    # store is unchanged.
    mentions: StoredMentions


class CodeFindings(NamedTuple):
    """A store's findings against its checkout, and the file system's answers they hold on
    (`tui.memory.stale_paths.Probes`, as JSON lists)."""

    findings: tuple[Finding, ...]
    probes: list


class AuditCache:
    """Store path -> (fingerprint, memories, findings), in an SQLite file under the XDG cache."""

    def __init__(self, path: Path | None = None, clock: Callable[[], int] = time.time_ns):
        self.path = path or xdg.cache_dir() / "audits.sqlite"
        self.clock = clock
        self.db: sqlite3.Connection | None = None
        self.writable = True
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._open()
        except (OSError, sqlite3.Error):
            self.db = None  # no cache (busy or unwritable): every audit reads the store

    def _open(self) -> sqlite3.Connection:
        try:
            return _connect(self.path)
        except sqlite3.OperationalError:
            raise  # locked by another run, or unwritable: not damaged
        except sqlite3.DatabaseError:
            # A cache is throw-away: a damaged one is replaced, never repaired.
            self.path.unlink(missing_ok=True)
            notices.tell(damaged_cache(self.path))
            return _connect(self.path)

    def settled(self, newest_change_ns: int) -> bool:
        """Whether a store whose newest change is this old may be cached (asked when its
        fingerprint is taken: a write in the same clock tick could keep size and times)."""
        return self.clock() - newest_change_ns >= SETTLE_NS

    def get(self, store: Path, listing: str) -> CachedAudit | None:
        row = self._read("SELECT memories, findings FROM audits WHERE store=? AND "
                         "fingerprint=?", store, listing)
        if row is None:
            return None
        findings, count = json.loads(row[1])
        return CachedAudit(row[0], _findings(findings),
                           StoredMentions(count, store, lambda: self._mentions(store, listing)))

    def _mentions(self, store: Path, listing: str) -> str | None:
        row = self._read("SELECT mentions FROM mentions WHERE store=? AND fingerprint=?",
                         store, listing)
        return None if row is None else row[0]

    def put(self, store: Path, listing: str, memories: int, findings: tuple[Finding, ...],
            mentions: Sequence[PathMention] = ()) -> None:
        key = (_key(store), f"{rules_digest()}:{listing}")
        self._write(("INSERT OR REPLACE INTO audits VALUES (?, ?, ?, ?)",
                     (*key, memories, json.dumps([_rows(findings), len(mentions)]))),
                    ("INSERT OR REPLACE INTO mentions VALUES (?, ?, ?)",
                     (*key, json.dumps(mentions))))

    def get_code(self, store: Path, state: str) -> CodeFindings | None:
        """The store's findings against its checkout, when `state` (the store's listing,
        its checkout and the checkout's HEAD and index) is the one they were made in."""
        row = self._read("SELECT findings FROM code_findings WHERE store=? AND state=?",
                         store, state)
        if row is None:
            return None
        findings, probes = json.loads(row[0])
        return CodeFindings(_findings(findings), probes)

    def put_code(self, store: Path, state: str, found: CodeFindings) -> None:
        self._write(("INSERT OR REPLACE INTO code_findings VALUES (?, ?, ?)",
                     (_key(store), f"{rules_digest()}:{state}",
                      json.dumps([_rows(found.findings), found.probes]))))

    def _read(self, query: str, store: Path, key: str) -> tuple | None:
        """The row of `store` kept under `key` by this code, or None."""
        if self.db is None:
            return None
        try:
            return self.db.execute(query, (_key(store), f"{rules_digest()}:{key}")).fetchone()
        except sqlite3.Error:
            return None

    def _write(self, *statements: tuple[str, tuple]) -> None:
        if self.db is None or not self.writable:
            return
        try:
            with self.db:  # one short transaction each: another run never waits long
                for statement, values in statements:
                    self.db.execute(statement, values)
        except sqlite3.Error:
            self.writable = False  # busy or full: keep reading it, stop waiting to write

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def __enter__(self) -> AuditCache:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
