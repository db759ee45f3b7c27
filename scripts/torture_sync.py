"""`memtui sync` under concurrency, measured from outside.

    python scripts/torture_sync.py [--machines 3] [--rounds 10]

Each machine is a config home and memtui dirs of its own, with one store named `app` on a
local bare remote. Every round, each machine writes a memory of its own, adds its line to
MEMORY.md and appends a line to a memory all of them share; then all machines sync at the
same moment, each `memtui sync --all` a process of its own. At the end every machine syncs
until nothing moves. Counted: what was written anywhere and is missing anywhere (files,
index lines, shared lines), tracebacks, exit codes other than 0, and conflicts (the shared
memory is appended to at the same place by all: a conflict keeps both texts, and its lines
must survive it). Exit 1 when anything was lost or a run crashed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = "shared_notes.md"


class Machine:
    def __init__(self, base: Path, number: int, remote: Path):
        self.name = f"m{number}"
        self.root = base / self.name
        self.store = self.root / "claude" / "projects" / f"-{self.name}-app" / "memory"
        self.store.mkdir(parents=True)
        self.remote = remote

    def env(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("CLAUDE_", "MEMTUI_", "XDG_"))}
        env.update(CLAUDE_CONFIG_DIR=str(self.root / "claude"), HOME=str(self.root / "home"),
                   XDG_STATE_HOME=str(self.root / "state"), XDG_CACHE_HOME=str(self.root / "cache"),
                   XDG_CONFIG_HOME=str(self.root / "config"), XDG_DATA_HOME=str(self.root / "data"),
                   PYTHONPATH=str(ROOT))
        return env

    def start(self, *argv: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "tui", *argv], env=self.env(),
                                cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)

    def write_round(self, number: int) -> tuple[str, str, str]:
        """This round's memory, index line and shared line."""
        file = f"note_{self.name}_{number}.md"
        (self.store / file).write_text(
            f"---\nname: {self.name} round {number}\ndescription: what {self.name} learnt in "
            f"round {number}\ntype: project\n---\n{self.name} learnt something in round "
            f"{number}.\n")
        index_line = f"- [{self.name} round {number}]({file}) — round {number} on {self.name}"
        index = self.store / "MEMORY.md"
        text = index.read_text() if index.exists() else ""
        index.write_text(text + ("" if not text or text.endswith("\n") else "\n") + index_line + "\n")
        shared_line = f"- {self.name} noted round {number}"
        shared = self.store / SHARED
        body = shared.read_text() if shared.exists() else (
            "---\nname: shared notes\ndescription: what every machine noted\ntype: project\n---\n")
        shared.write_text(body + ("" if body.endswith("\n") else "\n") + shared_line + "\n")
        return file, index_line, shared_line


def finished(process: subprocess.Popen, failures: list[str], label: str) -> str:
    out, err = process.communicate(timeout=300)
    if "Traceback" in out + err:
        failures.append(f"{label}: traceback: {err.strip().splitlines()[-1]}")
    elif process.returncode != 0:
        failures.append(f"{label}: exit {process.returncode}: {err.strip()}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machines", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="memtui-sync-torture-") as scratch:
        base = Path(scratch)
        remote = base / "remote.git"
        subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
        machines = [Machine(base, number, remote) for number in range(1, args.machines + 1)]
        failures: list[str] = []
        for machine in machines:  # name the store and remember the remote, one at a time
            finished(machine.start("sync", "--name", "app", "--remote", str(remote),
                                   str(machine.store)), failures, f"{machine.name} first sync")
        written: list[tuple[str, str, str]] = []
        conflicts = 0
        for number in range(1, args.rounds + 1):
            written += [machine.write_round(number) for machine in machines]
            runs = [(machine, machine.start("sync", "--all", "--json")) for machine in machines]
            for machine, process in runs:
                out = finished(process, failures, f"{machine.name} round {number}")
                conflicts += out.count('"conflicts": [\n')  # a non-empty list opens a line
        for _ in range(3):  # until nothing moves: each machine in turn, three times over
            for machine in machines:
                finished(machine.start("sync", "--all"), failures, f"{machine.name} final")
        missing = []
        for machine in machines:
            index = (machine.store / "MEMORY.md").read_text()
            shared = (machine.store / SHARED).read_text()
            for file, index_line, shared_line in written:
                if not (machine.store / file).is_file():
                    missing.append(f"{machine.name} lacks {file}")
                if index_line not in index.splitlines():
                    missing.append(f"{machine.name}'s MEMORY.md lacks {index_line!r}")
                if shared_line not in shared.splitlines():
                    missing.append(f"{machine.name}'s {SHARED} lacks {shared_line!r}")
        same = len({(m.store / SHARED).read_bytes() for m in machines}) == 1 and len(
            {(m.store / "MEMORY.md").read_bytes() for m in machines}) == 1
    seconds = time.monotonic() - started
    syncs = args.machines * (args.rounds + 4)
    print(f"{args.machines} machines x {args.rounds} rounds of concurrent syncs "
          f"({syncs} sync runs) in {seconds:.0f} s: {len(written)} memories and as many index "
          f"and shared lines written; {len(missing)} missing anywhere at the end; "
          f"{len(failures)} failed runs; rounds with a conflict reported: {conflicts}; "
          f"machines {'identical' if same else 'DIFFERENT'} at the end")
    for line in (failures + missing)[:20]:
        print(f"  {line}")
    return 1 if missing or failures or not same else 0


if __name__ == "__main__":
    sys.exit(main())
