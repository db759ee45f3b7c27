"""What memtui's SQLite caches share: opening one in WAL mode while other memtuis open it,
and what is said when a damaged one is replaced."""

from __future__ import annotations

import sqlite3
import time


def write_ahead_log(db: sqlite3.Connection, wait_seconds: float) -> None:
    """WAL mode, tried again while the file is locked. Switching a new cache to WAL needs
    the only lock on it, and SQLite says "database is locked" at once, without waiting,
    to all but one of the processes asking together (four memtuis opening a new cache at
    once: 1 opener in 9 went on without a cache)."""
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.005)


def damaged_cache(path) -> str:
    """The sentence for a damaged cache file memtui replaced."""
    return (f"memtui's cache {path} was damaged; it was replaced by a new one (a cache holds "
            "nothing that is not on disk elsewhere).")
