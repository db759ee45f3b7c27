"""The app's projects rows on screen, for several memtui checkouts in turns.

    python benchmarks/bench_app_turns.py CHECKOUT [CHECKOUT ...] [--runs 20] [--scale 1]

A change to the app's start-up is often smaller than what this machine's speed moves between
two runs of `bench_tree.py`, so the checkouts take turns, run after run, each started as
`python -m tui` with its own PYTHONPATH in a fresh tmux (120x40) on the heavy tree until its
status line says "N projects in" (the discovery cache warm, as after any use). Prints each
checkout's best, median and every run, in seconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench_tree import (
    MEMTUI,
    Sandbox,
    app_env,
    compile_timed_package,
    on_screen,
    rows_listed,
    run,
    tree,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+", type=Path, help="memtui checkouts to compare")
    parser.add_argument("--runs", type=int, default=20, help="runs of each (default 20)")
    parser.add_argument("--scale", type=float, default=1.0, help="tree size (default 1x)")
    args = parser.parse_args(argv)
    checkouts = [checkout.resolve() for checkout in args.checkouts]
    for checkout in checkouts:
        compile_timed_package(checkout)
    os.chdir(tempfile.gettempdir())  # `python -m tui` must not import the working directory's
    box = Sandbox(tree(args.scale))
    try:
        env = box.env()
        run([*MEMTUI, "projects", "--json"], {**env, "PYTHONPATH": str(checkouts[0])})
        times: dict[Path, list[float]] = {checkout: [] for checkout in checkouts}
        for _ in range(args.runs):
            for checkout in checkouts:
                passed = app_env({**env, "PYTHONPATH": str(checkout)})
                times[checkout].append(on_screen(f"{sys.executable} -m tui", passed,
                                                 rows_listed)[0])
        load = os.getloadavg()
        print(f"rows on screen, {args.runs} runs each in turns (load at the end {load[0]:.2f})")
        for checkout, seconds in times.items():
            print(f"  {checkout}: best {min(seconds):.3f} s, median "
                  f"{statistics.median(seconds):.3f} s  "
                  f"({' '.join(f'{s:.2f}' for s in seconds)})")
    finally:
        box.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
