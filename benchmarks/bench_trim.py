"""What trimming the undo log costs, and what checking for it adds to a write.

    python benchmarks/bench_trim.py [--records 10000] [--size 2000] [--runs 5]

A store's undo log of `--records` changes, each of one memory file of `--size` bytes (its
old and new bytes in base64, as memtui logs them) with its folder of plain copies:
- `plan`: a dry run (`memtui gc --dry-run`): the log read and parsed, the folders listed;
- `trim, nothing to go`: every change younger than the policy's days, so only the plan
  and the bookkeeping: what an automatic trim costs when it finds nothing;
- `trim 10,000 -> 100`: every change old, the newest 100 kept: the log rewritten and
  9,900 folders removed;
- `write`: `apply_changes` of one file, best of `--runs`, with the log small, and with the
  big log just trimmed (so the check after the write finds it has not doubled), each
  against the same write with the check switched off, in the same run; and the check
  alone, averaged over 2,000 calls.
- `write that trims`: the first write on an old 10,000-change log (memtui upgraded on a
  heavy user's disk), which trims it.
An automatic trim removes at most 500 folders (`trim.AUTO_FOLDERS`); `memtui gc` all.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DAY = 86400.0


def _store(root: Path) -> Path:
    """A store of its own (its own key, so its own backups folder and log)."""
    store = root / "home" / "projects" / f"-bench-{root.name}" / "memory"
    store.mkdir(parents=True)
    (store / "memory_a.md").write_text("---\nname: a\ndescription: a memory\ntype: project\n---\n"
                                       "A fact worth keeping.\n")
    return store


def _fill_log(store: Path, records: int, size: int, age_days: float) -> int:
    """A log of `records` changes made `age_days` ago, and their folders; its size."""
    from tui.memory.undo_log import LOG_NAME, backups_dir

    folder = backups_dir(store)
    folder.mkdir(parents=True, exist_ok=True)
    body = (b"A fact worth keeping, with its why and how to apply.\n" * (size // 54 + 1))[:size]
    encoded = base64.b64encode(body).decode("ascii")
    start = time.time() - age_days * DAY - records
    with open(folder / LOG_NAME, "w", encoding="utf-8") as log:
        for number in range(records):
            stamp = start + number
            record_id = time.strftime("%Y%m%dT%H%M%S", time.localtime(stamp)) + f"-{number:06x}"
            log.write(json.dumps({
                "id": record_id, "store": str(store), "label": f"edit {number}", "time": stamp,
                "undoes": None,
                "changes": [{"file": f"memory_{number % 50}.md", "before": encoded,
                             "after": encoded, "before_mtime": stamp}],
            }) + "\n")
            copy = folder / record_id / f"memory_{number % 50}.md"
            copy.parent.mkdir()
            copy.write_bytes(body)
    os.sync()  # on disk, as an old log is: no write's fsync pays for flushing it
    return (folder / LOG_NAME).stat().st_size


def _timed(call) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def _writes(store: Path, runs: int) -> tuple[float, float]:
    """Best `apply_changes` of one file with the trim check, and with it switched off."""
    from tui.memory import trim, writes

    check = trim.after_write
    best = {True: [], False: []}
    for round_ in range(runs):
        for with_check in (True, False):
            trim.after_write = check if with_check else (lambda store: None)
            try:
                path = store / "memory_a.md"
                change = writes.FileChange("memory_a.md", path.read_bytes(),
                                           f"round {round_} {with_check}\n".encode())
                elapsed, _ = _timed(lambda change=change: writes.apply_changes(store, [change],
                                                                               "bench"))
            finally:
                trim.after_write = check
            best[with_check].append(elapsed)
    return min(best[True]), min(best[False])


def _check_alone(store: Path, rounds: int = 2000) -> float:
    """Seconds one trim check after a write takes, on average (it finds nothing to do)."""
    from tui.memory import trim

    started = time.perf_counter()
    for _ in range(rounds):
        trim.after_write(store)
    return (time.perf_counter() - started) / rounds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--size", type=int, default=2_000, help="bytes of each memory file")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memtui-bench-trim-") as folder:
        for name in ("DATA", "STATE", "CACHE", "CONFIG"):
            os.environ[f"MEMTUI_{name}_DIR"] = str(Path(folder) / name.lower())
        from tui.disk_use import human_bytes
        from tui.memory.retention import Retention
        from tui.memory.trim import trim_store

        policy = Retention(keep_changes=100, keep_days=30)
        small = _store(Path(folder) / "small")
        with_check, without = _writes(small, args.runs)
        print(f"write, small log:             {with_check * 1000:7.2f} ms "
              f"(without the trim check {without * 1000:.2f} ms; the check alone "
              f"{_check_alone(small) * 1e6:.1f} µs)")

        store = _store(Path(folder) / "big")
        young = _fill_log(store, args.records, args.size, age_days=0)
        print(f"log: {args.records:,} changes of {args.size:,}-byte files, "
              f"{human_bytes(young)}, {args.records:,} folders of copies")
        elapsed, _ = _timed(lambda: trim_store(store, policy, dry_run=True))
        print(f"plan (gc --dry-run):          {elapsed * 1000:7.0f} ms")
        elapsed, result = _timed(lambda: trim_store(store, policy))
        assert result.pruned == 0
        print(f"trim, nothing to go:          {elapsed * 1000:7.0f} ms")
        with_check, without = _writes(store, args.runs)
        print(f"write, big log not doubled:   {with_check * 1000:7.2f} ms "
              f"(without the trim check {without * 1000:.2f} ms; the check alone "
              f"{_check_alone(store) * 1e6:.1f} µs)")

        old = _store(Path(folder) / "old")
        _fill_log(old, args.records, args.size, age_days=40)
        elapsed, result = _timed(lambda: trim_store(old, policy))
        print(f"trim {args.records:,} -> {args.records - result.pruned:,}:          "
              f"{elapsed * 1000:7.0f} ms (freed {human_bytes(result.freed)}, "
              f"{result.folders:,} folders)")

        first = _store(Path(folder) / "first")
        _fill_log(first, args.records, args.size, age_days=40)
        from tui.memory.writes import FileChange, apply_changes, history

        path = first / "memory_a.md"
        change = FileChange("memory_a.md", path.read_bytes(), b"changed\n")
        elapsed, _ = _timed(lambda: apply_changes(first, [change], "the first write"))
        print(f"write that trims {args.records:,} -> {len(history(first)):,}:  "
              f"{elapsed * 1000:7.0f} ms (at most 500 folders removed by a write)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
