"""Audit many stores at once, spread over the machine's cores.

Auditing is CPU-bound Python (parsing, fuzzy matching), so stores go to worker
processes; a single store, or a single core, stays in this process.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tui.memory.audit import Finding, audit_store, stranded_findings
from tui.memory.audit_cache import AuditCache, fingerprint
from tui.memory.store import load_store

BATCH_ENTRIES = 500  # store entries per worker task


@dataclass(frozen=True)
class StoreAudit:
    store: Path
    memories: int
    findings: tuple[Finding, ...]
    cached: bool = False  # answered from the audit cache

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")


def audit_one(store: Path) -> StoreAudit:
    loaded = load_store(store)
    return StoreAudit(store, len(loaded.memories), tuple(audit_store(loaded)))


def audit_many(
    stores: Sequence[tuple[Path, str | None]],
    workers: int | None = None,
    cache: AuditCache | None = None,
) -> list[StoreAudit]:
    """(store, stranded reason) pairs -> audits, in the order given.

    With a `cache`, unchanged stores are answered from it and fresh audits are kept in it.
    """
    audits, listings = _from_cache(stores, cache) if cache is not None else ({}, {})
    todo = [i for i in range(len(stores)) if i not in audits]
    for i, audit in zip(todo, _audit_fresh([stores[i][0] for i in todo], workers), strict=True):
        store, reason = stores[i]
        if i in listings:
            cache.put(store, listings[i], audit.memories, audit.findings)
        audits[i] = StoreAudit(store, audit.memories, stranded_findings(reason) + audit.findings)
    return [audits[i] for i in range(len(stores))]


def _from_cache(
    stores: Sequence[tuple[Path, str | None]], cache: AuditCache
) -> tuple[dict[int, StoreAudit], dict[int, str]]:
    """Audits of the unchanged stores, and the fingerprints of the others worth caching."""
    audits: dict[int, StoreAudit] = {}
    listings: dict[int, str] = {}
    for i, (store, reason) in enumerate(stores):
        taken = fingerprint(store)
        if taken is None:
            continue
        listing, newest_change = taken
        hit = cache.get(store, listing)
        if hit is not None:
            memories, findings = hit
            audits[i] = StoreAudit(store, memories, stranded_findings(reason) + findings,
                                   cached=True)
        elif cache.settled(newest_change):
            listings[i] = listing
    return audits, listings


def _audit_fresh(stores: list[Path], workers: int | None) -> list[StoreAudit]:
    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(stores) < 2:
        return [audit_one(store) for store in stores]
    # Big stores first, so one giant store does not finish last on its own; small ones go
    # in batches, so hundreds of tiny stores do not cost a round trip each.
    sizes = [_size(store) for store in stores]
    batches: list[list[int]] = []
    batch_size = 0
    for i in sorted(range(len(stores)), key=lambda i: -sizes[i]):
        if not batches or batch_size + sizes[i] > BATCH_ENTRIES:
            batches.append([])
            batch_size = 0
        batches[-1].append(i)
        batch_size += sizes[i]
    # The workers only audit: what they build dies with each store (reference counting
    # frees it), so the cycle collector's passes over the heap are pure cost there (~5%).
    with ProcessPoolExecutor(max_workers=workers, initializer=gc.disable) as pool:
        futures = [pool.submit(_audit_batch, [stores[i] for i in batch]) for batch in batches]
        audits: dict[int, StoreAudit] = {}
        for batch, future in zip(batches, futures, strict=True):
            audits.update(zip(batch, future.result(), strict=True))
    return [audits[i] for i in range(len(stores))]


def _audit_batch(stores: list[Path]) -> list[StoreAudit]:
    return [audit_one(store) for store in stores]


def _size(store: Path) -> int:
    try:
        return len(os.listdir(store))
    except OSError:
        return 0
