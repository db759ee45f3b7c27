"""How long a safe write takes, and how wide the window it cannot guard still is.

    python benchmarks/bench_writes.py [--runs 5] [--files 1 20 100]

For change sets of N files in a fresh store, each the best of `--runs`:
- `apply`: `apply_changes` end to end (lock, backups, intent, staged files, swaps, log);
- `baseline`: writing the same files with a temp file, fsync and `os.replace` each, what a
  plain atomic write costs, measured in the same run;
- `check -> replace`: how long before its replace memtui last compared a file's bytes.
  In the old write it was the whole apply (the check came first); now the bytes compared
  are the very file moved aside, so an outside write can no longer land in between;
- `window`: what is left: from the last look at a moved-aside file (its inode, size and
  nanosecond times) to its removal. Only a writer that opened the file before memtui moved
  it aside, and writes into it inside this window, is lost.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _store(root: Path, count: int) -> Path:
    store = root / "home" / "projects" / "-bench" / "memory"
    store.mkdir(parents=True)
    for number in range(count):
        (store / f"memory_{number:03}.md").write_text(
            f"---\nname: m{number}\ndescription: memory {number}\ntype: project\n---\n"
            + "A fact worth keeping.\n" * 20)
    return store


def _baseline(store: Path, names: list[str]) -> float:
    started = time.perf_counter()
    for name in names:
        temp = store / f".{name}.tmp"
        with open(temp, "wb") as out:
            out.write(b"plain write\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, store / name)
    return time.perf_counter() - started


def _apply(store: Path, names: list[str], round_: int) -> tuple[float, list[int]]:
    from tui.memory import swap
    from tui.memory.writes import FileChange, apply_changes

    looked: dict[str, int] = {}
    windows: list[int] = []
    verify, drop = swap.FileSwap.verify, swap.FileSwap.drop_aside

    def timed_verify(self):
        verify(self)
        looked[self.file] = time.perf_counter_ns()

    def timed_drop(self):
        drop(self)
        windows.append(time.perf_counter_ns() - looked[self.file])

    swap.FileSwap.verify, swap.FileSwap.drop_aside = timed_verify, timed_drop
    try:
        changes = [FileChange(name, (store / name).read_bytes(), f"round {round_}\n".encode())
                   for name in names]
        started = time.perf_counter()
        apply_changes(store, changes, f"bench {round_}")
        return time.perf_counter() - started, windows
    finally:
        swap.FileSwap.verify, swap.FileSwap.drop_aside = verify, drop


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, nargs="+", default=[1, 20, 100])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memtui-bench-writes-") as folder:
        for name in ("DATA", "STATE", "CACHE"):
            os.environ[f"MEMTUI_{name}_DIR"] = str(Path(folder) / name.lower())
        print(f"{'files':>5}  {'apply':>9}  {'baseline':>9}  {'ratio':>5}  "
              f"{'window median':>13}  {'window max':>10}")
        for count in args.files:
            root = Path(folder) / f"n{count}"
            store = _store(root, count)
            names = sorted(p.name for p in store.glob("*.md"))
            applies, baselines, windows = [], [], []
            for round_ in range(args.runs):
                elapsed, looked = _apply(store, names, round_)
                applies.append(elapsed)
                windows.extend(looked)
                baselines.append(_baseline(store, names))
            best, base = min(applies), min(baselines)
            print(f"{count:>5}  {best * 1000:>7.1f}ms  {base * 1000:>7.1f}ms  {best / base:>5.1f}  "
                  f"{statistics.median(windows) / 1000:>11.1f}µs  {max(windows) / 1000:>8.1f}µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
