"""Audit many stores at once, spread over the machine's cores.

Auditing is CPU-bound Python (parsing, fuzzy matching), so stores go to worker
processes; a single store, or a single core, stays in this process.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from tui.cores import usable_cores
from tui.memory.audit_cache import AuditCache, CachedAudit, fingerprint
from tui.memory.finding import Finding, standing_findings

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from tui.memory.path_mentions import PathMention

BATCH_ENTRIES = 500  # store entries per worker task


@dataclass(frozen=True)
class StoreAudit:
    store: Path
    memories: int
    findings: tuple[Finding, ...]
    cached: bool = False  # answered from the audit cache
    mentions: Sequence[PathMention] = ()  # paths of the code, checked after discovery
    listing: str | None = None  # the store's fingerprint, when its findings may be cached

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")


def audit_one(store: Path) -> StoreAudit:
    # Imported here: a run the cache answers whole never loads the audit's rules.
    from tui.memory.audit import audit_store
    from tui.memory.stale_paths import store_mentions
    from tui.memory.store import load_store

    loaded = load_store(store)
    return StoreAudit(store, len(loaded.memories), tuple(audit_store(loaded, standing=False)),
                      mentions=tuple(store_mentions(loaded)))


def audit_many(
    stores: Sequence[tuple[Path, str | None]],
    workers: int | None = None,
    cache: AuditCache | None = None,
) -> list[StoreAudit]:
    """(store, stranded reason) pairs -> audits, in the order given.

    With a `cache`, unchanged stores are answered from it and fresh audits are kept in it.
    """
    with AuditRun(workers, cache) as run:
        return run.finish(stores)


class AuditRun:
    """Audits that may start before the list of stores is known: `start` the likely ones
    (every store under the projects folder) while discovery runs, then `finish` with the
    stores discovery found. Audits of stores it did not find are dropped."""

    def __init__(self, workers: int | None = None, cache: AuditCache | None = None):
        self.workers = workers or usable_cores()
        self.cache = cache
        self.pool: ProcessPoolExecutor | None = None
        self.cached: dict[Path, CachedAudit] = {}
        self.listings: dict[Path, str] = {}  # fingerprints of the fresh audits worth caching
        self.cacheable: dict[Path, str] = {}  # fingerprints of every store worth caching
        # Each fresh audit: in a worker (future, place in its batch), done, or None when it
        # is made in this process as `finish` reaches it.
        self.pending: dict[Path, tuple[Future, int] | StoreAudit | None] = {}

    def __enter__(self) -> AuditRun:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)

    def start(self, stores: Sequence[Path]) -> None:
        fresh = [store for store in dict.fromkeys(stores)
                 if store not in self.cached and store not in self.pending
                 and not self._from_cache(store)]
        if self.workers == 1 or (len(fresh) < 2 and self.pool is None):
            self.pending.update(dict.fromkeys(fresh))
            return
        if self.pool is None:
            from concurrent.futures import ProcessPoolExecutor

            import tui.memory.audit  # noqa: F401 - loaded once here, not in every worker
            import tui.memory.similarity  # noqa: F401
            import tui.memory.stale_paths  # noqa: F401 - the mentions: path_mentions' patterns

            # The workers only audit: what they build dies with each store (reference
            # counting frees it), so the cycle collector's passes are pure cost there (~5%).
            self.pool = ProcessPoolExecutor(max_workers=self.workers, initializer=gc.disable)
        for batch in _batches(fresh):
            future = self.pool.submit(_audit_batch, batch)
            for position, store in enumerate(batch):
                self.pending[store] = (future, position)

    def finish(self, stores: Sequence[tuple[Path, str | None]]) -> list[StoreAudit]:
        self.start([store for store, _ in stores])
        audits = []
        for store, reason in stores:
            if store in self.cached:
                memories, findings, mentions = self.cached[store]
                audits.append(StoreAudit(store, memories,
                                         standing_findings(store, reason) + findings,
                                         cached=True, mentions=mentions,
                                         listing=self.cacheable.get(store)))
                continue
            audit = self._fresh(store)
            audits.append(StoreAudit(store, audit.memories,
                                     standing_findings(store, reason) + audit.findings,
                                     mentions=audit.mentions,
                                     listing=self.cacheable.get(store)))
        return audits

    def _fresh(self, store: Path) -> StoreAudit:
        waiting = self.pending[store]
        if isinstance(waiting, StoreAudit):
            return waiting
        if waiting is None:
            audit = audit_one(store)
        else:
            future, position = waiting
            audit = future.result()[position]
        self.pending[store] = audit
        if store in self.listings:
            self.cache.put(store, self.listings.pop(store), audit.memories, audit.findings,
                           audit.mentions)
        return audit

    def _from_cache(self, store: Path) -> bool:
        """Whether the cache answered for `store`; notes its fingerprint when not."""
        if self.cache is None:
            return False
        taken = fingerprint(store)
        if taken is None:
            return False
        listing, newest_change = taken
        hit = self.cache.get(store, listing)
        if hit is not None:
            self.cached[store] = hit
            self.cacheable[store] = listing
            return True
        if self.cache.settled(newest_change):
            self.listings[store] = self.cacheable[store] = listing
        return False


def _batches(stores: list[Path]) -> list[list[Path]]:
    """Big stores first, so one giant store does not finish last on its own; small ones in
    batches, so hundreds of tiny stores do not cost a round trip each."""
    sizes = {store: _size(store) for store in stores}
    batches: list[list[Path]] = []
    batch_size = 0
    for store in sorted(stores, key=lambda store: -sizes[store]):
        if not batches or batch_size + sizes[store] > BATCH_ENTRIES:
            batches.append([])
            batch_size = 0
        batches[-1].append(store)
        batch_size += sizes[store]
    return batches


def _audit_batch(stores: list[Path]) -> list[StoreAudit]:
    return [audit_one(store) for store in stores]


def _size(store: Path) -> int:
    try:
        return len(os.listdir(store))
    except OSError:
        return 0


def checked_against_code(audits: Sequence[StoreAudit], checkouts: Mapping[Path, str | None],
                         cache: AuditCache | None = None) -> list[StoreAudit]:
    """Each audit with its `stale_path` findings: its mentions against the checkout of its
    project (`checkouts`: store -> project path), each checkout read once. With a `cache`,
    a store whose listing, checkout state and file-system answers are unchanged keeps its
    findings without its mentions being judged (or even read back)."""
    from tui.claude.checkout import checkout_state

    states = {path: checkout_state(path)
              for path in {checkouts.get(audit.store) for audit in audits if audit.mentions}}
    found: dict[Path, tuple[Finding, ...]] = {}
    judge: list[tuple[StoreAudit, str | None]] = []  # (audit, its cache key) to judge
    for audit in audits:
        if not audit.mentions:
            continue
        project = checkouts.get(audit.store)
        key = _code_key(audit, project, states[project]) if cache is not None else None
        hit = cache.get_code(audit.store, key) if key is not None else None
        if hit is not None and _probes_hold(hit.probes, states[project]):
            found[audit.store] = hit.findings
        else:
            judge.append((audit, key))
    if judge:
        found.update(_judged(judge, checkouts, states, cache))
    return [replace(audit, findings=audit.findings + found[audit.store])
            if found.get(audit.store) else audit for audit in audits]


def _code_key(audit: StoreAudit, project: str | None, state) -> str | None:
    """What a store's findings against its checkout depend on: the store, the checkout,
    and its HEAD and index (or why it cannot be checked)."""
    from tui.claude.checkout import Unchecked

    if audit.listing is None:
        return None
    if isinstance(state, Unchecked):
        return f"{audit.listing}\0{project}\0unchecked\0{state.reason}"
    return f"{audit.listing}\0{project}\0{state.key}" if state.key else None


def _probes_hold(probes: list, state) -> bool:
    if not any(probes):
        return True  # nothing asked of the file system: no need to load the judge
    from tui.memory.stale_paths import Probes, probes_hold

    return probes_hold(Probes(*probes), state)


def _judged(judge: list[tuple[StoreAudit, str | None]], checkouts: Mapping[Path, str | None],
            states: Mapping, cache: AuditCache | None) -> dict[Path, tuple[Finding, ...]]:
    from concurrent.futures import ThreadPoolExecutor

    from tui.claude.checkout import Unchecked, read_checkout
    from tui.memory.audit_cache import CodeFindings
    from tui.memory.stale_paths import judged_findings, texts_on_disk

    # git runs in its own processes: several checkouts asked at once, their answers cached.
    wanted = {checkouts.get(audit.store) for audit, _ in judge}
    wanted = [path for path in wanted if not isinstance(states[path], Unchecked)]
    if len(wanted) > 1:
        with ThreadPoolExecutor(max_workers=min(len(wanted), 2 * usable_cores())) as pool:
            list(pool.map(lambda path: read_checkout(path, state=states[path]), wanted))
    found = {}
    for audit, key in judge:
        project = checkouts.get(audit.store)
        findings, probes = judged_findings(audit.mentions, project, state=states[project],
                                           text_of=texts_on_disk(audit.store))
        found[audit.store] = tuple(findings)
        if key is not None and probes is not None:
            cache.put_code(audit.store, key, CodeFindings(tuple(findings), list(probes)))
    return found
