"""Finding the lines of big transcript files that mention a needle, once per byte.

Files are read in blocks and searched with `bytes.find` (the same work `grep -F` does);
only the lines holding the needle are handed on. What a file yielded is kept in an SQLite
cache under the XDG cache dir, keyed by (path, needle) and checked against (size, mtime):
an unchanged file is not opened again, a grown file is read only from the end of its last
complete line, and a file that shrank or was replaced is read again from the start.

Claude Code deletes old transcripts, so the rows of a transcript gone from disk are dropped:
at once when a scan lists its folder and no longer finds it, and once a day for every row
(a removed project folder is listed by no scan). A row is dropped only once its file is
gone (`lstat` says so); looking costs a stat per row that is not listed, never per row kept.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from tui import notices, xdg
from tui.cache_db import damaged_cache, write_ahead_log
from tui.claude.files import is_gone, open_binary
from tui.claude.line_search import needle_starts, search_lines
from tui.claude.transcripts import read_memory_dir_lines

BLOCK = 1 << 20
ANCHOR = 256  # bytes before the resume point, kept to notice a file replaced by another
SCHEMA_VERSION = 6  # 4: paths are kept as bytes (a file name need not be UTF-8);
# 5: old MultiEdit results are read (their events differ); 6: events name their agent
BUSY_SECONDS = 30  # how long a scan waits for another process's write
SWEEP_SECONDS = 24 * 3600  # how often every row is checked for a transcript gone

LineParser = Callable[[bytes, int, str], list[dict]]  # (line, offset, file path)


def matching_lines(path: Path, needle: bytes, start: int, on_line: Callable[[bytes, int], None]) -> int:
    """Call `on_line(line, offset)` for each complete line from `start` holding `needle`.

    Returns the offset just past the last complete line, where the next scan resumes; a
    half-written last line is left for then.
    """
    return search_lines(path, needle_starts(needle), on_line, start, block=BLOCK)


class ScanCache:
    """Per-file parse results for one needle, reused while a file is unchanged."""

    def __init__(self, path: Path | None = None):
        self.path = path or xdg.cache_dir() / "transcript-scan.sqlite"
        self.writable = True  # until a write fails: read-only, or busy past BUSY_SECONDS
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._connect()
        except (OSError, sqlite3.Error):
            # No cache to write (no folder for it, or another process holds it past
            # BUSY_SECONDS, or it is read-only): scan as if it were empty, and keep nothing.
            self.db = sqlite3.connect(":memory:")
            self._prepare()

    def _connect(self) -> sqlite3.Connection:
        self.db = sqlite3.connect(self.path, timeout=BUSY_SECONDS)
        try:
            self._prepare()
        except sqlite3.OperationalError:
            self.db.close()
            raise  # busy past BUSY_SECONDS or read-only: another process's cache, not damaged
        except sqlite3.DatabaseError:
            # A cache is throw-away: a damaged one is replaced, never repaired.
            self.db.close()
            self.path.unlink(missing_ok=True)
            notices.tell(damaged_cache(self.path))
            self.db = sqlite3.connect(self.path, timeout=BUSY_SECONDS)
            self._prepare()
        return self.db

    def _prepare(self) -> None:
        write_ahead_log(self.db, BUSY_SECONDS)
        # No sync at each commit (WAL stays consistent; a crash may lose the last scan's
        # rows, which a cache can afford): a cold scan committed three times.
        self.db.execute("PRAGMA synchronous=NORMAL")
        if self._ready():
            return
        # Checked again under the write lock: two scans opening a new cache at once (the app's
        # discovery and its lost-updates screen) must not drop the tables the other just made.
        self.db.execute("BEGIN IMMEDIATE")
        try:
            if not self._ready():
                for table in ("files", "items", "swept"):
                    self.db.execute(f"DROP TABLE IF EXISTS {table}")
                self.db.execute(
                    "CREATE TABLE files(path BLOB, needle BLOB, size INTEGER, mtime_ns INTEGER,"
                    " done INTEGER, anchor BLOB, PRIMARY KEY(path, needle))")
                self.db.execute(  # one row per scan pass
                    "CREATE TABLE items(path BLOB, needle BLOB, offset INTEGER, data TEXT)")
                self.db.execute("CREATE INDEX items_by_file ON items(path, needle)")
                self.db.execute("CREATE TABLE swept(at REAL)")  # when every row was last checked
                self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self.db.commit()
        except BaseException:
            self.db.rollback()
            raise

    def _ready(self) -> bool:
        """Whether the cache has this version's tables (written in one transaction)."""
        version, tables = self.db.execute(  # one read: one snapshot of both
            "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM"
            " sqlite_master WHERE type='table' AND name IN ('files', 'items', 'swept'))"
        ).fetchone()
        return version == SCHEMA_VERSION and tables == 3

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> ScanCache:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def scan(self, files: Iterable[Path], needle: bytes, parse: LineParser,
             listed: Iterable[Path] = ()) -> dict[str, list[dict]]:
        """Items per file path: `parse(line, offset, path)` over every line holding `needle`.

        `listed`: folders whose every transcript is among `files` (`transcript_files`);
        the rows of a transcript under one of them that `files` does not name are dropped
        if it is gone. A file of an unlisted folder keeps its rows.
        """
        known = {
            row[0]: row[1:]
            for row in self.db.execute(
                "SELECT path, size, mtime_ns, done, anchor FROM files WHERE needle=?", (needle,)
            )
        }
        checked = []
        for file in files:
            try:
                checked.append((file, os.fsencode(file), os.stat(file)))
            except OSError:
                continue
        unchanged = {key for _, key, info in checked
                     if (known.get(key) or ())[:2] == (info.st_size, info.st_mtime_ns)}
        stored = self._stored_items(needle, unchanged) if unchanged else {}
        results: dict[str, list[dict]] = {}
        for file, key, info in checked:
            if key in unchanged:
                results[str(file)] = stored.get(key, [])
                continue
            cached = known.get(key)
            start = 0
            if cached and info.st_size >= cached[2] and _anchor(file, cached[2]) == cached[3]:
                start = cached[2]
            results[str(file)] = self._rescan(file, needle, parse, start, info)
        self._write(self.db.commit)
        prefixes = tuple(os.path.join(os.fsencode(folder), b"") for folder in listed)
        present = {key for _, key, _ in checked}
        self._forget_gone([key for key in known if key not in present and key.startswith(prefixes)])
        return results

    def _write(self, write: Callable[[], object]) -> None:
        """Run a write of the cache; when it fails, this scan's writes are undone and no
        more are tried: the cache only costs time, the scan answers from what it read."""
        if not self.writable:
            return
        try:
            write()
        except sqlite3.Error:
            self.writable = False
            self.db.rollback()

    def _forget_gone(self, unlisted: list[bytes]) -> None:
        """Drop every needle's rows of the transcripts gone from disk among `unlisted`, and
        once a day among every row. A cache busy with another process's write is not
        waited for: it forgets them another time."""
        swept = self.db.execute("SELECT max(at) FROM swept").fetchone()[0]
        sweep = swept is None or not 0 <= time.time() - swept < SWEEP_SECONDS

        def forget() -> None:
            nonlocal unlisted
            if sweep:  # stamped first: a cache that cannot be written stats nothing
                self.db.execute("DELETE FROM swept")
                self.db.execute("INSERT INTO swept(at) VALUES (?)", (time.time(),))
                unlisted = [key for (key,) in self.db.execute("SELECT DISTINCT path FROM files")]
            gone = [(key,) for key in unlisted if is_gone(key)]
            self.db.executemany("DELETE FROM files WHERE path=?", gone)
            self.db.executemany("DELETE FROM items WHERE path=?", gone)
            self.db.commit()

        if sweep or unlisted:
            self.db.execute("PRAGMA busy_timeout=0")
            self._write(forget)
            self.db.execute(f"PRAGMA busy_timeout={BUSY_SECONDS * 1000}")

    def _stored_items(self, needle: bytes, keys: set[bytes]) -> dict[bytes, list[dict]]:
        """The items of these files, in one query (only theirs decoded)."""
        items: dict[bytes, list[dict]] = {}
        rows = self.db.execute(
            "SELECT path, data FROM items WHERE needle=? ORDER BY path, offset", (needle,))
        for key, data in rows:
            if key in keys:
                items.setdefault(key, []).extend(json.loads(data))
        return items

    def _items(self, key: bytes, needle: bytes) -> list[dict]:
        rows = self.db.execute(
            "SELECT data FROM items WHERE path=? AND needle=? ORDER BY offset", (key, needle)
        )
        return [item for (data,) in rows for item in json.loads(data)]

    def _rescan(self, file: Path, needle: bytes, parse: LineParser, start: int,
                info: os.stat_result) -> list[dict]:
        key = os.fsencode(file)
        earlier = self._items(key, needle) if start else []
        fresh: list[dict] = []

        def on_line(line: bytes, offset: int) -> None:
            fresh.extend(parse(line, offset, str(file)))

        try:
            done = read_memory_dir_lines(file, info, needle, start, on_line)
            if done is None:
                done = matching_lines(file, needle, start, on_line)
        except OSError:
            return earlier

        def store() -> None:
            if start == 0:
                self.db.execute("DELETE FROM items WHERE path=? AND needle=?", (key, needle))
            if fresh:
                self.db.execute(
                    "INSERT INTO items(path, needle, offset, data) VALUES (?, ?, ?, ?)",
                    (key, needle, start, json.dumps(fresh)),
                )
            self.db.execute(
                "INSERT OR REPLACE INTO files(path, needle, size, mtime_ns, done, anchor) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (key, needle, info.st_size, info.st_mtime_ns, done, _anchor(file, done)),
            )

        self._write(store)
        return earlier + fresh


def _anchor(file: Path, done: int) -> bytes:
    try:
        with open_binary(file) as handle:
            handle.seek(max(0, done - ANCHOR))
            return handle.read(min(done, ANCHOR))
    except OSError:
        return b""
