"""Hostile input, measured from outside: fuzz the parsers, then run the CLI on malformed homes.

    python scripts/fuzz_homes.py                       # the full figures (about half an hour)
    python scripts/fuzz_homes.py --inputs 2000 --homes 40 --jobs 2

1. Parsers: `--inputs` mutated inputs spread over every parser entry point
   (`tests/hostile_inputs.py`); any exception other than an entry point's documented ones
   counts as uncaught.
2. Homes: `--homes` config homes (`tests/hostile_homes.py`: every single fault first, then
   random combinations of two to five), each run through every read command with a
   `--timeout`; a run that prints a traceback, exits with a code other than 0, 1 or 2, or
   outlives the timeout is a failure. Run by root, the CLI gives up root's permission
   bypass so that unreadable files are unreadable to it.

Everything happens in a temporary directory that is removed at the end; the exit code is
1 when anything failed. Stdlib and the project only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import hostile_homes  # noqa: E402
import hostile_inputs  # noqa: E402


def fuzz_parsers(count: int, seed: int) -> tuple[int, dict[str, int], list[str]]:
    """(inputs run, per entry point counts, the first failures) for `count` inputs."""
    rng = random.Random(seed)
    per_entry: dict[str, int] = {}
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="memtui-fuzz-") as scratch:
        points = hostile_inputs.entry_points(Path(scratch))
        for number in range(count):
            point = points[number % len(points)]
            data = hostile_inputs.mutated(rng, point.seeds)
            per_entry[point.name] = per_entry.get(point.name, 0) + 1
            error = hostile_inputs.run(point, data)
            if error is not None:
                failures.append(f"{point.name}: {error} on {data[:120]!r}")
    return count, per_entry, failures


def run_command(home: hostile_homes.HostileHome, command: list[str], timeout: float,
                deny: bool) -> tuple[str | None, float]:
    """(why it failed or None, seconds) for one CLI run."""
    started = time.monotonic()
    process = subprocess.Popen(
        hostile_homes.command_line(home, command), env=home.env, cwd=home.root,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=hostile_homes.drop_root_bypass if deny and os.geteuid() == 0 else None,
    )
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return "hang", time.monotonic() - started
    seconds = time.monotonic() - started
    if b"Traceback" in err or b"Traceback" in out:
        lines = err.decode("utf-8", "replace").strip().splitlines()
        return f"traceback: {lines[-1] if lines else ''}", seconds
    if process.returncode not in (0, 1, 2):
        return f"exit {process.returncode}", seconds
    return None, seconds


BUILDER = """
import json, sys
sys.path[:0] = sys.argv[4:]
import hostile_homes
home = hostile_homes.build(hostile_homes.Path(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3]))
print(json.dumps(home.faults))
"""


def build_home(root: Path, seed: int, faults: list[str]) -> hostile_homes.HostileHome:
    """The home, built in a process of its own: whatever a fault meets, the build ends."""
    result = subprocess.run(
        [sys.executable, "-c", BUILDER, str(root), str(seed), json.dumps(faults),
         str(ROOT), str(ROOT / "tests")],
        capture_output=True, timeout=120, check=True,
    )
    home = hostile_homes.HostileHome(root, random.Random(seed))
    home.faults = json.loads(result.stdout.decode().splitlines()[-1])
    return home


def run_home(plan: tuple[int, list[str]], timeout: float, deny: bool,
             commands: list[list[str]]) -> list[tuple[str, list[str], str, float]]:
    """(outcome, command, faults, seconds) of every command on one home."""
    seed, faults = plan
    scratch = Path(tempfile.mkdtemp(prefix="memtui-home-"))
    try:
        try:
            home = build_home(scratch / "h", seed, faults)
        except (OSError, subprocess.SubprocessError) as error:  # a fault this machine lacks
            return [(f"not built: {error}", [], " + ".join(faults), 0.0)]
        results = []
        for command in commands:
            why, seconds = run_command(home, command, timeout, deny)
            results.append((why or "ok", command, " + ".join(home.faults), seconds))
        return results
    finally:
        hostile_homes.make_writable(scratch)
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=100_000)
    parser.add_argument("--homes", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--only", metavar="FAULT", action="append", default=[],
                        help="run just these single faults (repeatable)")
    args = parser.parse_args()
    failed = False

    if args.inputs:
        started = time.monotonic()
        total, per_entry, failures = fuzz_parsers(args.inputs, args.seed)
        print(f"parsers: {total:,} inputs over {len(per_entry)} entry points in "
              f"{time.monotonic() - started:.0f} s: {len(failures)} uncaught")
        print("  " + ", ".join(f"{name} {count:,}" for name, count in per_entry.items()))
        for failure in failures[:30]:
            print(f"  {failure}")
        failed |= bool(failures)

    if args.homes or args.only:
        deny = hostile_homes.can_deny_permissions()
        if args.only:
            plans = [(args.seed + n, [name]) for n, name in enumerate(args.only)]
        else:
            plans = hostile_homes.homes(args.homes, args.seed, deny)
        commands = hostile_homes.READ_COMMANDS
        started = time.monotonic()
        outcomes: dict[str, int] = {}
        unbuilt = 0
        slowest = (0.0, "")
        with ThreadPoolExecutor(args.jobs) as pool:
            for results in pool.map(lambda p: run_home(p, args.timeout, deny, commands), plans):
                for outcome, command, faults, seconds in results:
                    kind = outcome.split(":")[0]
                    if kind == "not built":
                        print(f"  {outcome} on {faults}", flush=True)
                        unbuilt += 1
                        continue
                    outcomes[kind] = outcomes.get(kind, 0) + 1
                    if outcome != "ok":
                        print(f"  {outcome}  [{' '.join(command)}]  on  {faults}", flush=True)
                    elif seconds > slowest[0]:
                        slowest = (seconds, f"{' '.join(command)} on {faults}")
        runs = sum(outcomes.values())
        print(f"homes: {len(plans)} homes x {len(commands)} read commands = {runs:,} runs in "
              f"{time.monotonic() - started:.0f} s: {outcomes.get('traceback', 0)} tracebacks, "
              f"{outcomes.get('hang', 0)} hangs ({args.timeout:g} s), "
              f"{sum(v for k, v in outcomes.items() if k.startswith('exit'))} other exit codes"
              f"{'' if deny else ' (permission faults skipped: cannot drop root bypass)'}")
        print(f"  slowest passing run: {slowest[0]:.1f} s ({slowest[1]})")
        failed |= bool(unbuilt) or runs != outcomes.get("ok", 0)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
