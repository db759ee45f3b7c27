"""What the stale_path check costs `memtui audit --all`: the same memtui with the check on
and off (`without_stale_paths.py`), on a generated tree, in one run.

    python benchmarks/bench_stale_cost.py [--scale 0.25] [--runs 3]

The tree is bench_tree.py's (`generate.py`: its memories mention paths as real ones do, and
most of its projects are real git checkouts). Each variant has its own HOME and XDG dirs.
Three runs of `audit --all --json`, taking turns for `--runs` rounds, each keeping its
least CPU (user + system of the process and its workers):
  cold                 `--no-cache`, every memtui cache emptied first (git asked for every
                       checkout)
  no-cache, warm       `--no-cache`, the discovery caches emptied (the checkouts' cache kept)
  cached               the audit cache warm (what a second `audit --all` costs)
and the ratio on / off of each. The check's output is compared too: the cached run must
print what the uncached one does (but for each store's `cached`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_tree  # noqa: E402
from bench_tree import MEMTUI, Run, Sandbox, rounds, run  # noqa: E402

WITHOUT = [sys.executable, str(HERE / "without_stale_paths.py")]


def without_cached(output: bytes) -> list[dict]:
    audits = json.loads(output)
    for audit in audits:
        audit.pop("cached")
    return audits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.25, help="tree size (default 0.25x)")
    parser.add_argument("--runs", type=int, default=3, help="best of N (default 3)")
    args = parser.parse_args(argv)
    os.environ.setdefault("PYTHONPATH", str(HERE.parent))
    os.chdir("/")  # `python -m tui` imports the memtui of PYTHONPATH, not of the cwd
    bench_tree.compile_timed_package(Path(os.environ["PYTHONPATH"].split(os.pathsep)[0]))
    home = bench_tree.tree(args.scale)
    bench_tree.warm_page_cache(home / "projects")
    load = os.getloadavg()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}  tree {args.scale:g}x, {os.cpu_count()} cores, "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; best CPU of {args.runs}")
    boxes = {"on": Sandbox(home), "off": Sandbox(home)}
    commands = {"on": MEMTUI, "off": WITHOUT}
    try:
        measures = {}
        for variant, box in boxes.items():
            env = box.env()
            command = commands[variant]
            run([*command, "audit", "--all", "--json"], env)  # fills the audit cache

            def audit(*flags: str, command=command, env=env):
                return lambda: run([*command, "audit", "--all", "--json", *flags], env)

            def emptied(box=box):
                shutil.rmtree(box.root / "cache", ignore_errors=True)

            def discovery_emptied(box=box):
                folder = box.root / "cache" / "memtui"
                for cache in [*folder.glob("discovery*.json"),
                              folder / "transcript-evidence.json"]:
                    cache.unlink(missing_ok=True)

            measures[f"cold {variant}"] = (audit("--no-cache"), emptied)
            measures[f"no-cache, warm {variant}"] = (audit("--no-cache"), discovery_emptied)
            # After the cold run emptied the caches: one run to fill them again, untimed.
            measures[f"fill {variant}"] = (audit(), None)
            measures[f"cached {variant}"] = (audit(), None)
        got: dict[str, Run] = rounds(args.runs, measures)
    finally:
        for box in boxes.values():
            box.close()
    same = without_cached(got["cached on"].output) == without_cached(got["cold on"].output)
    stale = sum(1 for audit in json.loads(got["cold on"].output) for finding in audit["findings"]
                if finding["kind"] == "stale_path")
    print(f"  {'run':<16} {'on CPU':>8} {'off CPU':>8} {'ratio':>6}   (wall on / off)")
    for name in ("cold", "no-cache, warm", "cached"):
        on, off = got[f"{name} on"], got[f"{name} off"]
        print(f"  {name:<16} {on.cpu:7.2f}s {off.cpu:7.2f}s {on.cpu / off.cpu:5.2f}x"
              f"   ({on.seconds:.2f} s / {off.seconds:.2f} s)")
    print(f"  stale_path findings: {stale}; cached output "
          f"{'the same as' if same else 'DIFFERENT FROM'} the uncached output")
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
