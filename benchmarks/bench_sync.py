"""How long `memtui sync --all` takes on a heavy user's disk when one file changed.

    python benchmarks/bench_sync.py [--projects 860] [--memories 20000] [--runs 3]

Builds (once, under `benchmarks/.data/sync`, git-ignored) a config home with
`generate.py`'s shapes: ~600 stores holding 20,000 memories. Their checkouts get an
`origin` (`git@github.com:<org>/<repo>.git`); stores whose checkout is gone get a name
(`memtui sync --name`), so every store has an identity. The remote is a local bare
repository. Then, in fresh memtui dirs, it times `memtui sync --all --json` (in process,
discovery included):

- first sync: every store pushed (20,000 files, one commit);
- nothing changed: a sync with nothing to move;
- one changed here: one memory edited on this machine, pushed;
- one changed there: another machine (a plain git clone of the remote) commits a change
  to one memory, this machine pulls it through the journalled safe write;
- git floor: `git fetch` + `git ls-tree -r` of the remote, what any sync must pay;
- discovery: finding every store of the config home, part of each `--all` row.

Each timed row is the best of `--runs` (the edit is made again before each run).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402

DATA = Path(__file__).resolve().parent / ".data" / "sync"


def _git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def _give_origins(home: Path) -> tuple[int, dict[str, str]]:
    """An origin in every checkout's git config; a name for every store without one."""
    from tui.claude.discovery import discover
    from tui.sync.identity import identity_of

    for config in sorted((home.parent / "code").glob("*/*/.git")):
        repo = config.parent
        (config / "config").write_text(
            f'[remote "origin"]\n\turl = git@github.com:{repo.parent.name}/{repo.name}.git\n')
    names = {}
    stores = 0
    for project in discover(home).projects:
        if project.store is None or not project.store_exists:
            continue
        stores += 1
        if identity_of(project.key_path, None).key is None:
            names[str(project.store)] = f"bench-{project.store.parent.name[-60:].strip('-')}"
    return stores, names


def _sync() -> tuple[float, dict]:
    from tui.cli import main

    out = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(out):
        code = main(["sync", "--all", "--json"])
    elapsed = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"memtui sync failed with exit {code}")
    return elapsed, json.loads(out.getvalue())


def _moved(report: dict, key: str) -> int:
    return sum(len(project[key]) for project in report["projects"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=890)
    parser.add_argument("--memories", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)

    home = generate.ensure(DATA, args.projects, args.memories)
    work = Path(tempfile.mkdtemp(prefix="memtui-bench-sync-"))
    for name in ("DATA", "STATE", "CONFIG", "CACHE"):
        os.environ[f"MEMTUI_{name}_DIR"] = str(work / name.lower())
    os.environ["CLAUDE_CONFIG_DIR"] = str(home)
    for role in ("AUTHOR", "COMMITTER"):
        os.environ.setdefault(f"GIT_{role}_NAME", "memtui bench")
        os.environ.setdefault(f"GIT_{role}_EMAIL", "bench@memtui.invalid")
    stores, names = _give_origins(home)
    remote = work / "remote.git"
    _git("init", "--quiet", "--bare", "--initial-branch=main", str(remote))
    from tui.sync.settings import SyncSettings, save_settings

    save_settings(SyncSettings(str(remote), names))

    rows = []
    first, report = _sync()
    synced = sum(1 for p in report["projects"] if not p["skipped"])
    rows.append(("first sync (push everything)", first, f"{_moved(report, 'pushed')} files pushed"))

    best = min(_sync()[0] for _ in range(args.runs))
    rows.append(("nothing changed", best, "0 files"))

    # One memory of a mid-sized store, edited here and pushed.
    sizes = sorted((p for p in report["projects"] if len(p["pushed"]) > 20),
                   key=lambda p: len(p["pushed"]))
    project = sizes[len(sizes) // 2]
    target = Path(project["store"]) / next(f for f in project["pushed"] if f != "MEMORY.md")
    original = target.read_bytes()
    times = []
    for run in range(args.runs):
        target.write_bytes(original + f"\nEdited here, run {run}.\n".encode())
        elapsed, report = _sync()
        assert _moved(report, "pushed") == 1, report
        times.append(elapsed)
    rows.append(("one changed here (push 1)", min(times), f"{target.name} in a store of {len(project['pushed'])}"))

    # Another machine edits the same memory in its clone of the remote and pushes it.
    other = work / "other-machine"
    _git("clone", "--quiet", str(remote), str(other))
    remote_path = f"{project['identity']}/memory/{target.relative_to(project['store'])}"
    times = []
    for run in range(args.runs):
        _git("pull", "--quiet", "--ff-only", cwd=other)
        with open(other / remote_path, "a", encoding="utf-8") as out:
            out.write(f"Edited on the other machine, run {run}.\n")
        _git("commit", "--quiet", "-am", "other machine", cwd=other)
        _git("push", "--quiet", cwd=other)
        elapsed, report = _sync()
        assert _moved(report, "pulled") == 1, report
        times.append(elapsed)
    rows.append(("one changed there (pull 1)", min(times), "through the journalled write"))

    from tui.sync.remote import clone_dir

    floor = []
    for _ in range(args.runs):
        started = time.perf_counter()
        env = {**os.environ, "GIT_DIR": str(clone_dir(str(remote)))}
        subprocess.run(["git", "fetch", "--quiet", "origin"], env=env, check=True)
        subprocess.run(["git", "ls-tree", "-r", "-z", "refs/remotes/origin/main"], env=env,
                       check=True, capture_output=True)
        floor.append(time.perf_counter() - started)
    rows.append(("git floor: fetch + ls-tree", min(floor), ""))
    from tui.claude.discovery import discover

    found = []
    for _ in range(args.runs):
        started = time.perf_counter()
        discover(home)
        found.append(time.perf_counter() - started)
    rows.append(("of which discovery (--all)", min(found), "finding the stores, as `projects` does"))

    print(f"{synced} of {stores} stores synced; timings of `memtui sync --all --json`:")
    for label, seconds, note in rows:
        print(f"{label:32} {seconds:7.2f} s  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
