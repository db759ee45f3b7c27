"""Time the core on a heavy user's config home, against the raw I/O floor.

    python benchmarks/bench_core.py [--dir DIR] [--runs 3] [--check]

Generates the data first if needed (see generate.py), then measures, in the same run and
with a warm page cache (one untimed pass reads every memory file first):
  floor        plain Python reading the bytes the audit reads: every memory file and every
               MEMORY.md, via os.scandir + open().read()
  discover     discover() over the config home (what `memtui projects` does)
  full audit   load_store + audit_store for every store, in one process and spread over
               all cores (`memtui audit --all --no-cache`)
  cached       `memtui audit --all` again with nothing changed: every store answered from
               the audit cache (in a temporary cache dir), and again after one write to the
               biggest store, which is then audited afresh
  biggest      load_store + audit_store for the biggest store
Each figure is the best of N runs. `--check` exits 1 when the full audit without the cache
misses its target: under 2 s and within 3x the floor.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.generate import DEFAULT_DIR, ensure  # noqa: E402
from tui.claude.discovery import discover  # noqa: E402
from tui.claude.paths import INDEX_NAME, MEMORY_DIR_NAME  # noqa: E402
from tui.memory.audit import audit_store  # noqa: E402
from tui.memory.audit_cache import AuditCache  # noqa: E402
from tui.memory.bulk import audit_many  # noqa: E402
from tui.memory.store import load_store  # noqa: E402

FULL_AUDIT_SECONDS = 2.0
FLOOR_RATIO = 3.0


def memory_dirs(home: Path) -> list[Path]:
    projects = home / "projects"
    return sorted(
        projects / name / MEMORY_DIR_NAME
        for name in os.listdir(projects)
        if (projects / name / MEMORY_DIR_NAME).is_dir()
    )


def read_floor(stores: list[Path]) -> int:
    """Every memory file's bytes and every MEMORY.md, the plainest way Python can."""
    total = 0
    for store in stores:
        with os.scandir(store) as entries:
            for entry in entries:
                if entry.name.endswith(".md") and entry.is_file():
                    with open(entry.path, "rb") as handle:
                        total += len(handle.read())
    return total


def audit_all(stores: list[Path]) -> int:
    return sum(len(audit_store(load_store(store))) for store in stores)


def audit_cached(stores: list[Path], cache_file: Path, touch: Path | None = None) -> None:
    """`audit --all` with its cache; `touch` is rewritten first (same bytes and mtime)."""
    if touch is not None:
        info = touch.stat()
        touch.write_bytes(touch.read_bytes())
        os.utime(touch, ns=(info.st_atime_ns, info.st_mtime_ns))
    with AuditCache(cache_file) as cache:
        audit_many([(store, None) for store in stores], cache=cache)


def best_of(runs: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--memories", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3, help="best of N (default 3)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)

    home = ensure(args.dir, args.projects, args.memories, args.seed)
    stores = memory_dirs(home)
    env = {"CLAUDE_CONFIG_DIR": str(home), "HOME": os.environ.get("HOME", "/")}
    biggest = max(stores, key=lambda s: sum(1 for _ in os.scandir(s)))

    memory_files = sum(
        1 for s in stores for e in os.scandir(s)
        if e.name.endswith(".md") and e.name != INDEX_NAME and e.is_file()
    )
    floor_bytes = read_floor(stores)  # warms the page cache
    print(f"{len(stores)} stores, {memory_files:,} memory files, {floor_bytes / 1e6:.1f} MB read; "
          f"biggest store {sum(1 for _ in os.scandir(biggest)):,} entries")
    print(f"warm page cache, best of {args.runs} runs, {os.cpu_count()} CPUs\n")

    floor = best_of(args.runs, lambda: read_floor(stores))
    rows = [
        ("floor (read the bytes)", floor),
        ("discover()", best_of(args.runs, lambda: discover(home, env))),
        ("full audit, 1 process", best_of(args.runs, lambda: audit_all(stores))),
        ("full audit, all cores", best_of(
            args.runs, lambda: audit_many([(store, None) for store in stores])
        )),
    ]
    with tempfile.TemporaryDirectory() as cache_dir:
        cache_file = Path(cache_dir) / "audits.sqlite"
        audit_cached(stores, cache_file)  # fills the cache
        one_memory = next(p for p in sorted(biggest.glob("*.md")) if p.name != INDEX_NAME)
        rows += [
            ("cached, nothing changed", best_of(
                args.runs, lambda: audit_cached(stores, cache_file))),
            ("cached, 1 store changed", best_of(
                args.runs, lambda: audit_cached(stores, cache_file, one_memory))),
        ]
    rows.append(("biggest store audit", best_of(args.runs, lambda: audit_all([biggest]))))
    print(f"{'measurement':<26}{'seconds':>10}{'x floor':>10}")
    for label, seconds in rows:
        print(f"{label:<26}{seconds:>10.3f}{seconds / floor:>10.1f}")

    full = min(rows[2][1], rows[3][1])
    missed = []
    if full >= FULL_AUDIT_SECONDS:
        missed.append(f"full audit took {full:.2f} s (target under {FULL_AUDIT_SECONDS:.0f} s)")
    if full > FLOOR_RATIO * floor:
        missed.append(f"full audit is {full / floor:.1f}x the floor (target {FLOOR_RATIO:.0f}x)")
    for line in missed:
        print(f"MISSED: {line}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
