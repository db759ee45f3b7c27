"""`python -m tui` with the stale_path check switched off: `bench_stale_cost.py`'s baseline.

    python benchmarks/without_stale_paths.py audit --all --json

Every other rule runs as in memtui; no mention is looked for and no checkout is read. The
worker processes are forked from this one, so they audit without mentions too.
"""

from __future__ import annotations

import sys

import tui.memory.bulk as bulk
from tui.cli import main


def audit_without_mentions(store):
    from tui.memory.audit import audit_store
    from tui.memory.store import load_store

    loaded = load_store(store)
    return bulk.StoreAudit(store, len(loaded.memories), tuple(audit_store(loaded)))


bulk.audit_one = audit_without_mentions
bulk.checked_against_code = lambda audits, checkouts, cache=None: list(audits)

if __name__ == "__main__":
    sys.exit(main())
