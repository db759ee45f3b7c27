"""memtui's whole-store commands on one store of 5k to 50k memories, with the growth per doubling.

    python benchmarks/bench_scaling.py [--sizes 5000,10000,20000,50000] [--runs 1]
                                       [--commands relink,audit,...] [--timeout 600] [--check]

Each size is one store written by `generate.ensure_one_store` (the heavy tree's shape: 8% of
the memories unindexed, the rest indexed and most of them past the loaded cut, a few dangling
lines, half the indexes grouped under headings; reused when its manifest matches). Every
command runs as its own process (`python -m tui`) from a temporary directory, with
CLAUDE_CONFIG_DIR on the store's config home and HOME and the XDG dirs in that directory:

  audit      memtui audit STORE --no-cache
  relink     memtui fix STORE relink --dry-run      (every orphan: nearly every memory)
  dangling   memtui fix STORE dangling --dry-run
  shorten    memtui fix STORE shorten --dry-run
  repath     memtui fix STORE repath --dry-run
  dream      memtui dream STORE --dry-run --engine offline

The baseline, measured in the same run and its own process too, is `grep -rc '' STORE`:
it reads every byte of every file of the store. The page cache is warm for everyone. The
measures take turns for `--runs` rounds, and each keeps its fastest run. Printed per size:
seconds, the ratio to the baseline, and the growth per doubling from the size before
((t2 / t1) ** (1 / log2(n2 / n1)): 2.0 is linear, 4.0 quadratic). A command past `--timeout`
is stopped and shown as `>TIMEOUT`.

`--check` exits 1 when a command takes 30 s or more at 50,000 memories, or grows by more
than 2.5x per doubling between two sizes of 10,000 memories or more.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from bench_tree import Sandbox, warm_page_cache  # noqa: E402

MEMTUI = [sys.executable, "-m", "tui"]
COMMANDS = {  # name -> the words after `memtui`, STORE standing for the memory dir
    "audit": ["audit", "STORE", "--no-cache"],
    "relink": ["fix", "STORE", "relink", "--dry-run"],
    "dangling": ["fix", "STORE", "dangling", "--dry-run"],
    "shorten": ["fix", "STORE", "shorten", "--dry-run"],
    "repath": ["fix", "STORE", "repath", "--dry-run"],
    "dream": ["dream", "STORE", "--dry-run", "--engine", "offline"],
}
BASELINE = "grep -rc"
TARGET_SECONDS = 30.0  # at TARGET_SIZE memories (issue 44)
TARGET_SIZE = 50_000
TARGET_GROWTH = 2.5  # per doubling, from 10,000 memories up
TIMED_OUT = math.inf


def timed(command: list[str], env: dict[str, str], cwd: Path, timeout: float) -> float:
    """Seconds from spawn to exit (TIMED_OUT past `timeout`); a failure is fatal, with its
    last words: a figure of a refusal would time nothing."""
    start = time.perf_counter()
    try:
        done = subprocess.run(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return TIMED_OUT
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):  # audit exits 1 when it finds errors
        words = done.stderr.decode(errors="replace").strip().splitlines()[-1:]
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {' '.join(words)}")
    return seconds


def measure_size(size: int, names: list[str], runs: int, timeout: float) -> dict[str, float]:
    store = generate.ensure_one_store(size)
    warm_page_cache(store)
    box = Sandbox(store.parent.parent.parent)
    env = box.env()
    commands = {BASELINE: ["grep", "-rc", "", str(store)]}
    for name in names:
        commands[name] = [*MEMTUI, *(str(store) if word == "STORE" else word
                                     for word in COMMANDS[name])]
    best = dict.fromkeys(commands, TIMED_OUT)
    try:
        for _ in range(runs):  # in turns, so a burst of load falls on all of them
            for name, command in commands.items():
                if best[name] is TIMED_OUT and _ and name != BASELINE:
                    continue  # timed out once: another run would only time out again
                best[name] = min(best[name], timed(command, env, box.root, timeout))
    finally:
        box.close()
    return best


def growth(sizes: list[int], times: list[float], at: int) -> float | None:
    """The growth per doubling from the size before `at` to `at`."""
    if at == 0 or math.isinf(times[at]) or math.isinf(times[at - 1]):
        return None
    return (times[at] / times[at - 1]) ** (1 / math.log2(sizes[at] / sizes[at - 1]))


def show(seconds: float) -> str:
    return ">TIMEOUT" if math.isinf(seconds) else f"{seconds:.2f}"


def report(sizes: list[int], figures: dict[int, dict[str, float]]) -> list[str]:
    """Prints the table; returns the targets missed."""
    names = list(figures[sizes[0]])
    print(f"\n{'command':<10} " + " ".join(f"{size:>20,}" for size in sizes))
    missed = []
    for name in names:
        times = [figures[size][name] for size in sizes]
        cells = []
        for at, seconds in enumerate(times):
            ratio = seconds / figures[sizes[at]][BASELINE]
            step = growth(sizes, times, at)
            times_baseline = "" if math.isinf(ratio) else f"{ratio:.0f}x"
            cells.append(f"{show(seconds):>8} {times_baseline:>5} "
                         f"{'' if step is None else f'^{step:.2f}':>5}")
            if name == BASELINE:
                continue
            if sizes[at] >= TARGET_SIZE and seconds >= TARGET_SECONDS:
                missed.append(f"{name} at {sizes[at]:,}: {show(seconds)} s")
            if at and sizes[at - 1] >= 10_000 and (step is None or step > TARGET_GROWTH):
                missed.append(f"{name} {sizes[at - 1]:,} -> {sizes[at]:,}: growth "
                              f"{'unknown (timed out)' if step is None else f'{step:.2f}'}")
        print(f"{name:<10} " + " ".join(f"{cell:>20}" for cell in cells))
    print("\nseconds, x the baseline, ^growth per doubling from the size before "
          "(2.0 linear, 4.0 quadratic)")
    return missed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,10000,20000,50000",
                        help="memories per store, comma-separated, smallest first")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--commands", default=",".join(COMMANDS),
                        help=f"some of {', '.join(COMMANDS)}")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds before a command is stopped")
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when a command takes {TARGET_SECONDS:g} s or more at "
                             f"{TARGET_SIZE:,} memories or grows over {TARGET_GROWTH}x per doubling")
    args = parser.parse_args(argv)
    sizes = sorted(int(size) for size in args.sizes.split(","))
    names = [name.strip() for name in args.commands.split(",")]
    unknown = [name for name in names if name not in COMMANDS]
    if unknown:
        parser.error(f"no command {', '.join(unknown)}; there are {', '.join(COMMANDS)}")
    load = os.getloadavg()[0]
    figures = {}
    for size in sizes:
        figures[size] = measure_size(size, names, args.runs, args.timeout)
        print(f"{size:,} memories: " + ", ".join(
            f"{name} {show(seconds)} s" for name, seconds in figures[size].items()), flush=True)
    missed = report(sizes, figures)
    print(f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}")
    for line in missed:
        print(f"MISSED: {line}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
