"""memtui's SQLite caches opened by several memtuis at once (the app's discovery and its
lost-updates screen, two `audit --all` in two terminals, a watcher)."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from tui.history.scan_cache import ScanCache
from tui.memory.audit_cache import AuditCache


def on_disk(cache) -> bool:
    """Whether the cache is its file: the scan cache falls back to memory, the audit cache
    to none, when its file cannot be opened."""
    if isinstance(cache, ScanCache):
        return cache.db.execute("PRAGMA database_list").fetchone()[2] != ""
    return cache.db is not None


def open_at(kind, path, start, answers) -> None:
    while time.time() < start:  # the openers set off together
        pass
    cache = kind(path)
    answers.put(on_disk(cache))


@pytest.mark.parametrize("kind", [ScanCache, AuditCache])
def test_processes_opening_a_new_cache_together_all_keep_it_on_disk(tmp_path, kind):
    """Switching a new cache to WAL needs the only lock on it, and SQLite says "database is
    locked" at once, with no wait, to all but one of the processes asking together: 1 in 9
    of four such openers went on without the cache and kept nothing."""
    fork = multiprocessing.get_context("fork")
    opened = []
    for round_ in range(10):
        answers = fork.Queue()
        start = time.time() + 0.2
        openers = [fork.Process(target=open_at,
                                args=(kind, tmp_path / f"cache-{round_}.sqlite", start, answers))
                   for _ in range(4)]
        for opener in openers:
            opener.start()
        for opener in openers:
            opener.join(30)
        opened += [answers.get(timeout=5) for _ in openers]
    assert opened == [True] * 40
