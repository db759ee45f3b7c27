"""Audit many stores at once, spread over the machine's cores.

Auditing is CPU-bound Python (parsing, fuzzy matching), so stores go to worker
processes; a single store, or a single core, stays in this process.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tui.memory.audit import Finding, audit_store
from tui.memory.store import load_store


@dataclass(frozen=True)
class StoreAudit:
    store: Path
    memories: int
    findings: tuple[Finding, ...]

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")


def audit_one(store: Path, stranded_reason: str | None = None) -> StoreAudit:
    loaded = load_store(store)
    findings = audit_store(loaded, stranded_reason=stranded_reason)
    return StoreAudit(store, len(loaded.memories), tuple(findings))


def audit_many(
    stores: Sequence[tuple[Path, str | None]], workers: int | None = None
) -> list[StoreAudit]:
    """(store, stranded reason) pairs -> audits, in the order given."""
    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(stores) < 2:
        return [audit_one(store, reason) for store, reason in stores]
    # Big stores first, so one giant store does not finish last on its own.
    order = sorted(range(len(stores)), key=lambda i: -_size(stores[i][0]))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {i: pool.submit(audit_one, *stores[i]) for i in order}
        return [futures[i].result() for i in range(len(stores))]


def _size(store: Path) -> int:
    try:
        return len(os.listdir(store))
    except OSError:
        return 0
