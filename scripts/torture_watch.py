#!/usr/bin/env python3
"""Torture `memtui watch` with real processes: SIGKILLs, two watchers, hostile stores, idle cost.

    .venv/bin/python scripts/torture_watch.py            # the full run (~4-5 min)
    .venv/bin/python scripts/torture_watch.py --quick    # a smaller run (~1.5 min)
    options: --kills N --stores N --idle-stores N --idle-seconds S --memory-seconds S
             --two-seconds S --seed N
             --only kills,two,hostile,idle,memory --keep (leave the temp dirs for a look)

Every scenario builds its own sandbox: HOME, CLAUDE_CONFIG_DIR and the XDG_* dirs in one temp
dir, removed at the end; nothing reads or writes the user's. `memtui watch --all` runs as a
real subprocess (the installed entry point) in a session of its own. Outside writer
processes write memory files as Claude Code and its users do: whole-file writes (open with
O_TRUNC, write, as Node's writeFile), writes to a temp file renamed over the file, appends,
deletes, new subfolders, MEMORY.md edits and bursts of many files; `memtui restore`,
`undo`, `merge` and `dream --engine offline --yes` run in between. A table of figures is
printed at the end; the exit status is 1 when a target is missed.

1. SIGKILLs. watch is killed with SIGKILL at a random moment (half of the kills are aimed
   at a moment when it has a git child writing a journal; the process alone or its whole
   process group, as an OOM kill or a closed terminal would), while the writers go on.
   After each kill: `git fsck` on every journal (target 0 failing). Then the writers and
   memtui's commands pause, watch starts again, and once it has said its word on every
   store, the newest snapshot of every journal must hold exactly the files on disk, byte
   for byte (a file differing, missing or extra is a lost change; target 0). No journal
   may be moved aside and, once watch has started again, no half-built state may be left
   (lock files, temp packs, fast-import crash reports, half-built journals); consecutive
   snapshots with the same tree are duplicate history (target 0).
2. Two watchers. Two `memtui watch --all` run at once on the same stores under the same
   load, one of them killed and restarted now and then: 0 fsck failures, 0 lost changes,
   0 duplicate snapshots.
3. Hostile stores. While one store gets writes throughout: a store deleted and made again,
   a store (and a subfolder of another) that becomes unreadable (as root, watch runs without
   root's bypass of file permissions, so that they bite), a 64 MB file, a file that is not
   UTF-8, names that are not (or hold a newline and an escape), a named pipe named like a
   memory, a journal deleted, a journal made read-only, a ref lock a killed git left, a
   store made after watch started. watch must still be running, every message one line, no
   traceback, every store journalled to the end, and no snapshot may record files as
   deleted because they could not be read.
4. Idle cost: CPU time used by watch (children included) over a minute of no changes with
   50 stores of 12 files each.
5. Memory: watch's RSS while thousands of changes are committed, sampled as it goes; the
   second half of the run must not add more than a few MB.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "tests")]
import hostile_homes  # noqa: E402  (drop_root_bypass: unreadable files bite root too)

SCRIPT = str(Path(__file__).resolve())
TRACEBACK = "Traceback (most recent call last)"
LOCK_NAME = ".consolidate-lock"
IDLE_CPU_TARGET = 1.0  # percent of one core; see benchmarks/README.md for why
RSS_GROWTH_TARGET_MB = 8.0


def memtui_command() -> list[str]:
    entry = Path(sys.executable).with_name("memtui")
    return [str(entry)] if entry.exists() else [sys.executable, "-m", "tui"]


def memory_text(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: notes on {name}\ntype: project\n---\n\n{body}\n"


def blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def disk_files(store: Path) -> dict[str, str] | None:
    """Blob ids by relative path of what a journal must hold: regular files, Claude Code's
    lock, memtui's temp files and symlinks left out."""
    if not store.is_dir():
        return None
    files: dict[str, str] = {}
    for folder, dirs, names in os.walk(store):
        dirs[:] = [d for d in dirs if not d.startswith(".git")]
        for name in names:
            path = Path(folder, name)
            if name == LOCK_NAME or (name.startswith(".") and ".memtui-" in name):
                continue
            if path.is_symlink() or not path.is_file():
                continue
            with contextlib.suppress(OSError):
                files[path.relative_to(store).as_posix()] = blob_id(path.read_bytes())
    return files


# --- the sandbox ----------------------------------------------------------------------------


class Sandbox:
    """A config home with stores, and memtui's dirs, in one temp dir."""

    def __init__(self, label: str, keep: bool):
        self.root = Path(tempfile.mkdtemp(prefix=f"memtui-watch-{label}-"))
        self.keep = keep
        self.claude = self.root / "claude"
        for name in ("home", "data", "state", "cache", "config", "tmp"):
            (self.root / name).mkdir()
        self.stores: list[Path] = []

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("CLAUDE_", "MEMTUI_", "XDG_", "ANTHROPIC_", "GIT_"))}
        env.update(HOME=str(self.root / "home"), CLAUDE_CONFIG_DIR=str(self.claude),
                   XDG_DATA_HOME=str(self.root / "data"), XDG_STATE_HOME=str(self.root / "state"),
                   XDG_CACHE_HOME=str(self.root / "cache"), XDG_CONFIG_HOME=str(self.root / "config"),
                   TMPDIR=str(self.root / "tmp"), GIT_CONFIG_GLOBAL=os.devnull,
                   GIT_CONFIG_NOSYSTEM="1", PYTHONDONTWRITEBYTECODE="1")
        return env

    def add_store(self, name: str, files: int = 6) -> Path:
        store = self.claude / "projects" / f"-work-{name}" / "memory"
        store.mkdir(parents=True)
        lines = []
        for n in range(files):
            file = f"note_{n}.md"
            (store / file).write_text(memory_text(f"{name} {n}", f"First version of {n}."))
            lines.append(f"- [{name} {n}]({file}) — notes on {n}")
        (store / "MEMORY.md").write_text("\n".join(lines) + "\n")
        self.stores.append(store)
        return store

    def journal(self, store: Path) -> Path:
        return self.root / "data" / "memtui" / "journal" / store.parent.name

    def git(self, journal: Path, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-c", "safe.directory=*", *args], env={
            **self.env(), "GIT_DIR": str(journal)}, capture_output=True)

    def close(self) -> None:
        if self.keep:
            print(f"  kept {self.root}")
        else:
            for folder, dirs, _ in os.walk(self.root):  # a store made unreadable on purpose
                for name in dirs:
                    with contextlib.suppress(OSError):
                        os.chmod(os.path.join(folder, name), 0o755)
            shutil.rmtree(self.root, ignore_errors=True)


class Watcher:
    """`memtui watch --all` as a process of its own, its output collected by threads."""

    def __init__(self, sandbox: Sandbox, interval: float | None = 0.5, deny: bool = False):
        """`interval` None: the default poll; `deny`: as root, without root's bypass of
        file permissions, so that a mode of 0 bites."""
        extra = [] if interval is None else ["--interval", str(interval)]
        self.process = subprocess.Popen(
            [*memtui_command(), "watch", "--all", *extra],
            env=sandbox.env(), cwd=sandbox.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, errors="replace", start_new_session=True,
            preexec_fn=hostile_homes.drop_root_bypass if deny and os.geteuid() == 0 else None)
        self.out: list[str] = []
        self.err: list[str] = []
        self.readers = [threading.Thread(target=self._read, args=(stream, lines), daemon=True)
                        for stream, lines in ((self.process.stdout, self.out),
                                              (self.process.stderr, self.err))]
        for reader in self.readers:
            reader.start()

    @staticmethod
    def _read(stream, lines: list[str]) -> None:
        for line in stream:
            lines.append(line.rstrip("\n"))

    @property
    def pid(self) -> int:
        return self.process.pid

    def started(self, stores: int, timeout: float = 60.0) -> bool:
        """Whether watch has said its first word on every store (its start is done)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            words = [line for line in self.out if line.endswith(
                (": snapshot taken", ": journal up to date", ": missing, waiting for it"))]
            if len(words) >= stores:
                return True
            if self.process.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def git_children(self) -> list[int]:
        return [pid for pid in descendants(self.pid) if command_of(pid)[:1] == ["git"]
                or command_of(pid)[:1] == ["/usr/bin/git"]]

    def kill(self, group: bool) -> None:
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(self.pid, signal.SIGKILL)
            else:
                os.kill(self.pid, signal.SIGKILL)
        self.process.wait()
        for reader in self.readers:
            reader.join(timeout=5)

    def stop(self) -> int:
        """Ctrl-C, as a user stops it; its exit code."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGINT)
        try:
            code = self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.kill(True)
            code = -9
        for reader in self.readers:
            reader.join(timeout=5)
        return code

    def tracebacks(self) -> int:
        return sum(TRACEBACK in line for line in self.out + self.err)

    def cpu_seconds(self) -> float:
        """User and system time of watch and the children it has waited for."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))
        return ticks / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0


def command_of(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def descendants(pid: int) -> list[int]:
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        try:
            children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            found.append(child)
            frontier.append(child)
    return found


def wait_for_git_to_finish(sandbox: Sandbox, timeout: float = 20.0) -> None:
    """An orphaned git (watch killed alone) goes on until it sees the end of its input."""
    deadline = time.monotonic() + timeout
    marker = str(sandbox.root).encode()
    while time.monotonic() < deadline:
        busy = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            with contextlib.suppress(OSError):
                if Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")[0].endswith(b"git") \
                        and marker in Path(f"/proc/{entry}/environ").read_bytes():
                    busy = True
                    break
        if not busy:
            return
        time.sleep(0.05)


# --- the writers: processes of their own, paused with SIGSTOP ------------------------------


def writer_main(stores: list[str], seed: int) -> None:
    """Write memory files the ways Claude Code and its users do, until killed."""
    rng = random.Random(seed)
    tag = f"w{seed}"
    while True:
        store = Path(rng.choice(stores))
        if not store.is_dir():
            time.sleep(0.01)
            continue
        try:
            write_once(store, rng, tag)
        except OSError:
            pass  # a folder removed by another writer under our feet
        time.sleep(rng.random() * 0.03)


def write_once(store: Path, rng: random.Random, tag: str) -> None:
    op = rng.choices(["whole", "rename", "append", "delete", "folder", "index", "burst"],
                     [30, 25, 15, 8, 8, 10, 4])[0]
    name = f"{tag}_{rng.randrange(12)}.md"
    token = uuid.uuid4().hex
    if op == "whole":
        with open(store / name, "w") as handle:
            handle.write(memory_text(name, f"Whole write {token}." + " pad" * rng.randrange(50)))
    elif op == "rename":
        temp = store / f"{name}.tmp.{os.getpid()}.{token[:8]}"
        temp.write_text(memory_text(name, f"Renamed over {token}."))
        os.replace(temp, store / name)
    elif op == "append":
        with open(store / name, "a") as handle:
            handle.write(f"- appended {token}\n")
    elif op == "delete":
        with contextlib.suppress(FileNotFoundError):
            (store / name).unlink()
    elif op == "folder":
        folder = store / f"topic_{tag}_{rng.randrange(3)}"
        if rng.random() < 0.2 and folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)
        else:
            folder.mkdir(exist_ok=True)
            (folder / f"sub_{rng.randrange(4)}.md").write_text(memory_text("sub", token))
    elif op == "index":
        index = store / "MEMORY.md"
        lines = index.read_text().splitlines() if index.exists() else []
        if lines and rng.random() < 0.4:
            lines.pop(rng.randrange(len(lines)))
        else:
            lines.append(f"- [{name}]({name}) — {token[:12]}")
        index.write_text("\n".join(lines) + "\n")
    else:
        for n in range(30):
            (store / f"{tag}_burst_{n}.md").write_text(memory_text(f"burst {n}", token))


class Writers:
    def __init__(self, sandbox: Sandbox, stores: list[Path], count: int, seed: int):
        arguments = json.dumps([str(s) for s in stores])
        self.processes = [subprocess.Popen([sys.executable, SCRIPT, "--writer", arguments,
                                            str(seed * 100 + n)], env=sandbox.env())
                          for n in range(count)]

    def pause(self) -> None:
        for process in self.processes:
            os.kill(process.pid, signal.SIGSTOP)
        time.sleep(0.02)  # a stop is delivered asynchronously

    def resume(self) -> None:
        for process in self.processes:
            os.kill(process.pid, signal.SIGCONT)

    def stop(self) -> None:
        for process in self.processes:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
            process.wait()


class MemtuiCommands:
    """memtui's own writes in a thread: restore, undo, merge, an offline dream."""

    def __init__(self, sandbox: Sandbox, stores: list[Path], seed: int):
        self.sandbox, self.stores = sandbox, stores
        self.rng = random.Random(seed)
        self.runs: Counter[str] = Counter()
        self.tracebacks: list[str] = []
        self.paused = threading.Event()
        self.idle = threading.Event()
        self.finished = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _run(self, *argv: str) -> subprocess.CompletedProcess:
        result = subprocess.run([*memtui_command(), *argv], env=self.sandbox.env(),
                                capture_output=True, text=True, errors="replace", timeout=120)
        if TRACEBACK in result.stdout + result.stderr:
            self.tracebacks.append(f"memtui {argv[0]}: {result.stderr.strip().splitlines()[-1]}")
        return result

    def _loop(self) -> None:
        while not self.finished.is_set():
            if self.paused.is_set():
                self.idle.set()
                time.sleep(0.02)
                continue
            self.idle.clear()
            store = self.rng.choice(self.stores)
            kind = self.rng.choices(["restore", "undo", "merge", "dream"], [5, 3, 2, 1])[0]
            if not store.is_dir():
                continue
            if kind == "restore":
                file = store / f"note_{self.rng.randrange(6)}.md"
                versions = self._run("history", str(file), "--json")
                with contextlib.suppress(ValueError):
                    revs = [v["rev"] for v in json.loads(versions.stdout) if v["exists"]]
                    if revs:
                        self._run("restore", str(file), "--version", self.rng.choice(revs)[:10])
                        self.runs[kind] += 1
            elif kind == "undo":
                self._run("undo", str(store))
                self.runs[kind] += 1
            elif kind == "merge":
                self._run("merge", str(store / f"note_{self.rng.randrange(6)}.md"))
                self.runs[kind] += 1
            else:
                self._run("dream", str(store), "--engine", "offline", "--yes")
                self.runs[kind] += 1
            time.sleep(self.rng.random() * 0.2)
        self.idle.set()

    def pause(self) -> None:
        self.idle.clear()
        self.paused.set()
        self.idle.wait(timeout=150)

    def resume(self) -> None:
        self.paused.clear()

    def stop(self) -> None:
        self.finished.set()
        self.thread.join(timeout=150)


# --- checks on journals -----------------------------------------------------------------------


def journal_tree(sandbox: Sandbox, store: Path) -> dict[str, str] | None:
    result = sandbox.git(sandbox.journal(store), "ls-tree", "-r", "-z", "--full-tree", "refs/heads/main")
    if result.returncode != 0:
        return None
    tree = {}
    for entry in result.stdout.split(b"\0"):
        if entry:
            meta, _, path = entry.partition(b"\t")
            tree[path.decode("utf-8", "surrogateescape")] = meta.split()[2].decode()
    return tree


def lost_changes(sandbox: Sandbox, stores: list[Path]) -> list[str]:
    """Files whose bytes on disk differ from the journal's newest snapshot."""
    lost = []
    for store in stores:
        disk = disk_files(store)
        if disk is None:
            continue
        tree = journal_tree(sandbox, store) or {}
        for path in sorted(disk.keys() | tree.keys()):
            if disk.get(path) != tree.get(path):
                state = "missing from the journal" if path not in tree else (
                    "deleted on disk, still in the journal" if path not in disk else "differs")
                lost.append(f"{store.parent.name}/{path}: {state}")
    return lost


def fsck_failures(sandbox: Sandbox, stores: list[Path]) -> list[str]:
    failures = []
    for store in stores:
        journal = sandbox.journal(store)
        if not journal.exists():
            continue
        result = sandbox.git(journal, "fsck", "--no-progress", "--no-dangling")
        said = (result.stdout + result.stderr).decode(errors="replace").strip()
        if result.returncode != 0 or any(word in said for word in ("error", "missing", "broken")):
            failures.append(f"{store.parent.name}: {said.splitlines()[-1] if said else result.returncode}")
    return failures


def half_built(sandbox: Sandbox) -> list[str]:
    """Leftovers of an interrupted write, and journals moved aside."""
    found = []
    base = sandbox.root / "data" / "memtui" / "journal"
    if not base.is_dir():
        return found
    for entry in base.iterdir():
        if ".building-" in entry.name or ".broken-" in entry.name:
            found.append(entry.name)
    for folder, _dirs, names in os.walk(base):
        for name in names:
            if name.endswith(".lock") or name.startswith(("tmp_", "fast_import_crash_")):
                found.append(os.path.relpath(os.path.join(folder, name), base))
    return found


def duplicate_snapshots(sandbox: Sandbox, stores: list[Path]) -> int:
    """Commits on main whose tree is their parent's: the same snapshot twice."""
    duplicates = 0
    for store in stores:
        result = sandbox.git(sandbox.journal(store), "log", "--format=%H %T %P", "refs/heads/main")
        rows = [line.split() for line in result.stdout.decode().splitlines()]
        trees = {commit: tree for commit, tree, *_ in rows}
        duplicates += sum(1 for _, tree, *parents in rows if parents and trees.get(parents[0]) == tree)
    return duplicates


def commits_on_main(sandbox: Sandbox, stores: list[Path]) -> int:
    total = 0
    for store in stores:
        result = sandbox.git(sandbox.journal(store), "rev-list", "--count", "refs/heads/main")
        total += int(result.stdout or 0)
    return total


# --- scenarios ----------------------------------------------------------------------------------


@dataclass
class Figures:
    rows: list[tuple[str, str, str, bool]] = field(default_factory=list)  # what, figure, target, met
    notes: list[str] = field(default_factory=list)

    def add(self, what: str, figure, target: str, met: bool) -> None:
        self.rows.append((what, str(figure), target, met))


def settle(sandbox: Sandbox, stores: list[Path], timeout: float = 30.0) -> list[str]:
    """Wait for the journals to catch up with quiet stores; what is still different."""
    deadline = time.monotonic() + timeout
    while True:
        lost = lost_changes(sandbox, stores)
        if not lost or time.monotonic() > deadline:
            return lost
        time.sleep(0.25)


def scenario_kills(args, figures: Figures) -> None:
    sandbox = Sandbox("kills", args.keep)
    rng = random.Random(args.seed)
    stores = [sandbox.add_store(f"k{n}") for n in range(args.stores)]
    writers = Writers(sandbox, stores, 2, args.seed)
    commands = MemtuiCommands(sandbox, stores, args.seed)
    fsck, leftovers, moved, lost, tracebacks, stderr_lines = [], [], [], [], 0, []
    kills = Counter()
    files_compared = 0
    watcher = Watcher(sandbox)
    try:
        if not watcher.started(len(stores)):
            figures.notes.append(f"kills: watch did not start: {watcher.err[-3:]}")
        for round_ in range(args.kills):
            aimed = round_ % 2 == 0
            deadline = time.monotonic() + rng.uniform(0.3, 3.0)
            while time.monotonic() < deadline:
                if aimed and watcher.git_children():
                    break
                time.sleep(0.003 if aimed else 0.02)
            mid_commit = bool(watcher.git_children())
            group = rng.random() < 0.5
            watcher.kill(group)
            kills["mid-commit" if mid_commit else "between commits"] += 1
            kills["group" if group else "process alone"] += 1
            tracebacks += watcher.tracebacks()
            stderr_lines += watcher.err
            time.sleep(rng.uniform(0.0, 1.0))  # the writers go on while watch is down
            commands.pause()
            writers.pause()
            wait_for_git_to_finish(sandbox)
            fsck += [f"after kill {round_}: {f}" for f in fsck_failures(sandbox, stores)]
            watcher = Watcher(sandbox)
            if not watcher.started(len(stores)):
                figures.notes.append(f"kills: watch did not start again: {watcher.err[-3:]}")
            files_compared += sum(len(disk_files(s) or {}) for s in stores)
            lost += [f"after kill {round_}: {x}" for x in lost_changes(sandbox, stores)]
            # A kill may leave a temp pack or a ref lock; the next write to that journal
            # removes them (checked at the end). A journal moved aside is never right.
            moved += [f"after kill {round_}: {x}" for x in half_built(sandbox) if ".broken-" in x]
            writers.resume()
            commands.resume()
        writers.stop()
        commands.stop()
        lost += [f"at the end: {x}" for x in settle(sandbox, stores)]
        code = watcher.stop()
        tracebacks += watcher.tracebacks()
        stderr_lines += watcher.err
        if code != 0:
            figures.notes.append(f"kills: the last watch exited {code}")
        leftovers += [f"at the end: {x}" for x in half_built(sandbox)]
        fsck += [f"at the end: {f}" for f in fsck_failures(sandbox, stores)]
        duplicates = duplicate_snapshots(sandbox, stores)
        snapshots = commits_on_main(sandbox, stores)
    finally:
        writers.stop()
        commands.stop()
        if watcher.process.poll() is None:
            watcher.kill(True)
        sandbox.close()
    tracebacks += len(commands.tracebacks)
    load = (f"{args.kills} kills ({kills['mid-commit']} with a git child writing, "
            f"{kills['group']} of the whole group), {len(stores)} stores, 2 writers, "
            f"memtui {dict(commands.runs)}")
    figures.add("kills: load", load, "", True)
    figures.add("kills: lost changes (files compared after each restart and at the end)",
                f"{len(lost)} of {files_compared}", "0", not lost)
    figures.add("kills: journals failing git fsck", len(fsck), "0", not fsck)
    figures.add("kills: journals moved aside after a restart", len(moved), "0", not moved)
    figures.add("kills: half-built state left at the end", len(leftovers), "0", not leftovers)
    figures.add("kills: duplicate snapshots", f"{duplicates} of {snapshots}", "0", duplicates == 0)
    figures.add("kills: tracebacks (watch and memtui commands)", tracebacks, "0", tracebacks == 0)
    odd = [line for line in stderr_lines if line.strip()]
    figures.add("kills: lines watch wrote on stderr", len(odd), "-", True)
    figures.notes += [f"kills: {x}" for x in (lost + fsck + moved + leftovers + commands.tracebacks)[:12]]
    figures.notes += [f"kills stderr: {x}" for x in sorted(set(odd))[:8]]


def scenario_two(args, figures: Figures) -> None:
    sandbox = Sandbox("two", args.keep)
    rng = random.Random(args.seed + 1)
    stores = [sandbox.add_store(f"t{n}") for n in range(max(2, args.stores // 2))]
    writers = Writers(sandbox, stores, 2, args.seed + 1)
    commands = MemtuiCommands(sandbox, stores, args.seed + 1)
    pair = [Watcher(sandbox), Watcher(sandbox)]
    tracebacks, restarts = 0, 0
    try:
        ended = time.monotonic() + args.two_seconds
        while time.monotonic() < ended:
            time.sleep(rng.uniform(1.0, 3.0))
            if rng.random() < 0.4:
                victim = rng.randrange(2)
                pair[victim].kill(rng.random() < 0.5)
                tracebacks += pair[victim].tracebacks()
                pair[victim] = Watcher(sandbox)
                restarts += 1
        writers.stop()
        commands.stop()
        lost = settle(sandbox, stores)
        for watcher in pair:
            watcher.stop()
            tracebacks += watcher.tracebacks()
        wait_for_git_to_finish(sandbox)
        fsck = fsck_failures(sandbox, stores)
        leftovers = half_built(sandbox)
        duplicates = duplicate_snapshots(sandbox, stores)
        snapshots = commits_on_main(sandbox, stores)
        stderr = sorted({line for w in pair for line in w.err if line.strip()})
    finally:
        writers.stop()
        commands.stop()
        for watcher in pair:
            if watcher.process.poll() is None:
                watcher.kill(True)
        sandbox.close()
    tracebacks += len(commands.tracebacks)
    figures.add("two watchers: load", f"{args.two_seconds:.0f} s, {len(stores)} stores, "
                f"{restarts} restarts of one of them, memtui {dict(commands.runs)}", "", True)
    figures.add("two watchers: lost changes at the end", len(lost), "0", not lost)
    figures.add("two watchers: journals failing git fsck", len(fsck), "0", not fsck)
    figures.add("two watchers: half-built state or journals moved aside", len(leftovers), "0",
                not leftovers)
    figures.add("two watchers: duplicate snapshots", f"{duplicates} of {snapshots}", "0",
                duplicates == 0)
    figures.add("two watchers: tracebacks", tracebacks, "0", tracebacks == 0)
    figures.notes += [f"two: {x}" for x in (lost + fsck + leftovers)[:8]]
    figures.notes += [f"two stderr: {x}" for x in stderr[:6]]


def scenario_hostile(args, figures: Figures) -> None:
    sandbox = Sandbox("hostile", args.keep)
    deny = hostile_homes.can_deny_permissions()
    busy = sandbox.add_store("busy")
    recreated = sandbox.add_store("recreated")
    unreadable = sandbox.add_store("unreadable")
    subfolder = sandbox.add_store("subfolder")
    (subfolder / "topic").mkdir()
    (subfolder / "topic" / "deep.md").write_text(memory_text("deep", "In a subfolder."))
    huge = sandbox.add_store("huge")
    odd = sandbox.add_store("odd")
    pipe = sandbox.add_store("pipe")
    locked_journal = sandbox.add_store("stale-ref-lock")
    read_only_journal = sandbox.add_store("read-only-journal")
    journal_deleted = sandbox.add_store("journal-deleted")
    watcher = Watcher(sandbox, deny=deny)
    stores = list(sandbox.stores)
    busy_writes = 0
    false_deletions: list[str] = []
    peak_rss = 0.0
    try:
        started = watcher.started(len(stores))

        def write_busy(n: int = 10) -> None:
            nonlocal busy_writes, peak_rss
            for _ in range(n):
                (busy / f"busy_{busy_writes % 7}.md").write_text(memory_text("busy", uuid.uuid4().hex))
                busy_writes += 1
                time.sleep(0.05)
                with contextlib.suppress(OSError):
                    peak_rss = max(peak_rss, watcher.rss_mb())

        write_busy()
        shutil.rmtree(recreated)
        write_busy()
        recreated.mkdir()
        (recreated / "MEMORY.md").write_text("- [again](again.md) — made again\n")
        (recreated / "again.md").write_text(memory_text("again", "The store came back."))
        write_busy()
        # A git killed between taking a ref lock and renaming it leaves the lock behind.
        (sandbox.journal(locked_journal) / "refs" / "heads" / "main.lock").write_text("")
        (locked_journal / "after_lock.md").write_text(memory_text("after", "Written after the kill."))
        shutil.rmtree(sandbox.journal(journal_deleted))  # a user cleaning up ~/.local/share
        (journal_deleted / "after_rm.md").write_text(memory_text("after", "Journal deleted."))
        read_only = [sandbox.journal(read_only_journal) / part for part in ("objects/pack", "refs/heads")]
        if deny:
            for folder in read_only:
                os.chmod(folder, 0o555)
            (read_only_journal / "while_read_only.md").write_text(memory_text("ro", "Journal read-only."))
            os.chmod(unreadable, 0o000)
            os.chmod(subfolder / "topic", 0o000)
        write_busy(40)  # several polls while they cannot be read or written
        if deny:
            os.chmod(unreadable, 0o755)
            os.chmod(subfolder / "topic", 0o755)
            for folder in read_only:
                os.chmod(folder, 0o755)
        (unreadable / "later.md").write_text(memory_text("later", "Written once readable again."))
        with open(huge / "huge.md", "wb") as handle:
            chunk = (b"A line of a huge memory file that nobody should ever write.\n" * 1024)
            for _ in range(64 * 1024 * 1024 // len(chunk)):
                handle.write(chunk)
        write_busy()
        (odd / "latin1.md").write_bytes("---\nname: caf\xe9\n---\nna\xefve caf\xe9\n".encode("latin-1"))
        (odd / b"na\xefve.md".decode("utf-8", "surrogateescape")).write_bytes(b"a name that is not UTF-8\n")
        (odd / "bell\x07and\nnewline.md").write_text("a name with control characters\n")
        os.mkfifo(pipe / "pipe.md")
        write_busy()
        (pipe / "after_pipe.md").write_text(memory_text("after", "Written after the pipe."))
        sandbox.add_store("new-project")  # a project started while watch runs
        stores = sandbox.stores
        write_busy(100)  # past the retry pause of the store whose journal was read-only
        alive = watcher.process.poll() is None
        lost = settle(sandbox, stores, timeout=60)
        for store in (unreadable, subfolder):
            false_deletions += deletions_of(sandbox, store, {"note_0.md", "topic/deep.md"})
        code = watcher.stop()
        wait_for_git_to_finish(sandbox)
        fsck = fsck_failures(sandbox, stores)
        leftovers = half_built(sandbox)
    finally:
        if watcher.process.poll() is None:
            watcher.kill(True)
        sandbox.close()
    said = watcher.out + watcher.err
    long_messages = [line for line in said if len(line) > 500]
    broken = [line for line in said if any(ord(c) < 32 for c in line)
              or not line.startswith((str(sandbox.claude), "memtui: "))]
    figures.add("hostile: load", f"{len(stores)} stores (file modes {'bite' if deny else 'do NOT bite: root'}),"
                f" {busy_writes} writes to the busy one", "", True)
    figures.add("hostile: watch running to the end", "yes" if alive and started else "NO", "yes",
                alive and started)
    figures.add("hostile: lost changes (busy store and every other one)", len(lost), "0", not lost)
    figures.add("hostile: snapshots recording unreadable files as deleted", len(false_deletions),
                "0", not false_deletions)
    figures.add("hostile: tracebacks", watcher.tracebacks(), "0", watcher.tracebacks() == 0)
    figures.add("hostile: messages over 500 chars, split, or with control characters",
                len(long_messages) + len(broken), "0", not long_messages and not broken)
    figures.add("hostile: journals failing git fsck", len(fsck), "0", not fsck)
    figures.add("hostile: half-built state or journals moved aside", len(leftovers), "0", not leftovers)
    figures.add("hostile: watch's peak RSS with a 64 MB file", f"{peak_rss:.0f} MB", "-", True)
    figures.add("hostile: exit code after Ctrl-C", code, "0", code == 0)
    figures.notes += [f"hostile: {x}" for x in (lost + false_deletions + fsck + leftovers)[:8]]
    figures.notes += [f"hostile said: {x[:240]}" for x in said if not x.endswith(
        (": snapshot taken", ": journal up to date")) and " committed " not in x][:12]


def deletions_of(sandbox: Sandbox, store: Path, files: set[str]) -> list[str]:
    """Snapshots on main in which one of these files (never deleted) is absent."""
    journal = sandbox.journal(store)
    result = sandbox.git(journal, "log", "--format=%H", "refs/heads/main")
    found = []
    for commit in result.stdout.decode().split():
        listing = sandbox.git(journal, "ls-tree", "-r", "--name-only", commit).stdout.decode().split()
        for file in files:
            if file in listing or not (store / file).exists():
                continue
            found.append(f"{store.parent.name}: {commit[:8]} has no {file}")
    return found


def scenario_idle(args, figures: Figures) -> None:
    sandbox = Sandbox("idle", args.keep)
    stores = [sandbox.add_store(f"i{n}", files=11) for n in range(args.idle_stores)]
    watcher = Watcher(sandbox, interval=None)  # the default poll, as users run it
    try:
        started = watcher.started(len(stores), timeout=120)
        time.sleep(3)  # the first polls after the start
        before, at = watcher.cpu_seconds(), time.monotonic()
        time.sleep(args.idle_seconds)
        used, spent = watcher.cpu_seconds() - before, time.monotonic() - at
        rss = watcher.rss_mb()
        watcher.stop()
    finally:
        if watcher.process.poll() is None:
            watcher.kill(True)
        sandbox.close()
    percent = 100 * used / spent
    figures.add(f"idle: CPU over {spent:.0f} s of no changes, {len(stores)} stores of 12 files",
                f"{used:.2f} s = {percent:.2f}% of a core (RSS {rss:.0f} MB)",
                f"< {IDLE_CPU_TARGET}%", started and percent < IDLE_CPU_TARGET)


def scenario_memory(args, figures: Figures) -> None:
    """Rounds of one change in every store, each let settle into a commit."""
    sandbox = Sandbox("memory", args.keep)
    stores = [sandbox.add_store(f"m{n}") for n in range(4)]
    watcher = Watcher(sandbox, interval=0.05)
    samples: list[tuple[int, float]] = []
    rng = random.Random(args.seed + 2)
    written = 0
    try:
        watcher.started(len(stores))
        ended = time.monotonic() + args.memory_seconds
        next_sample = 0.0
        while time.monotonic() < ended:
            for store in stores:
                write_once(store, rng, "mem")
                written += 1
            time.sleep(0.2)
            if time.monotonic() >= next_sample:
                samples.append((sum(" committed " in line for line in watcher.out), watcher.rss_mb()))
                next_sample = time.monotonic() + args.memory_seconds / 10
        lost = settle(sandbox, stores)
        samples.append((sum(" committed " in line for line in watcher.out), watcher.rss_mb()))
        watcher.stop()
    finally:
        if watcher.process.poll() is None:
            watcher.kill(True)
        sandbox.close()
    half = samples[len(samples) // 2][1]
    growth = samples[-1][1] - half
    curve = ", ".join(f"{c}: {r:.0f}" for c, r in samples)
    figures.add(f"memory: RSS MB after N commits ({written} writes)", curve, "", True)
    figures.add("memory: RSS growth over the second half", f"{growth:+.1f} MB",
                f"< {RSS_GROWTH_TARGET_MB:.0f} MB", growth < RSS_GROWTH_TARGET_MB)
    figures.add("memory: lost changes at the end", len(lost), "0", not lost)
    figures.add("memory: tracebacks", watcher.tracebacks(), "0", watcher.tracebacks() == 0)


SCENARIOS = {"kills": scenario_kills, "two": scenario_two, "hostile": scenario_hostile,
             "idle": scenario_idle, "memory": scenario_memory}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--writer"]:
        writer_main(json.loads(argv[1]), int(argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--kills", type=int)
    parser.add_argument("--stores", type=int, default=4)
    parser.add_argument("--idle-stores", type=int, default=50)
    parser.add_argument("--idle-seconds", type=float)
    parser.add_argument("--memory-seconds", type=float)
    parser.add_argument("--two-seconds", type=float)
    parser.add_argument("--seed", type=int, default=int(time.time()) % 10_000)
    parser.add_argument("--only", default=",".join(SCENARIOS))
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(argv)
    args.kills = args.kills or (10 if args.quick else 40)
    args.idle_seconds = args.idle_seconds or (15.0 if args.quick else 60.0)
    args.memory_seconds = args.memory_seconds or (20.0 if args.quick else 45.0)
    args.two_seconds = args.two_seconds or (10.0 if args.quick else 30.0)
    os.nice(5)
    figures = Figures()
    started = time.monotonic()
    for name in args.only.split(","):
        at = time.monotonic()
        SCENARIOS[name](args, figures)
        print(f"[{name} done in {time.monotonic() - at:.0f} s]", flush=True)
    print(f"\nmemtui watch torture, seed {args.seed}, {time.monotonic() - started:.0f} s\n")
    width = max(len(what) for what, *_ in figures.rows)
    for what, figure, target, met in figures.rows:
        mark = "" if not target or target == "-" else ("  ok" if met else "  MISSED")
        print(f"{what:{width}}  {figure}{f'  (target {target})' if target else ''}{mark}")
    if figures.notes:
        print()
        for note in figures.notes:
            print(f"  {note}")
    return 0 if all(met for *_, met in figures.rows) else 1


if __name__ == "__main__":
    sys.exit(main())
