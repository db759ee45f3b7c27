#!/usr/bin/env python3
"""Torture memtui's safe writes with real processes: races, SIGKILLs, two writers, symlinks.

    .venv/bin/python scripts/torture_writes.py           # the full run (~8 min on 2 busy cores)
    .venv/bin/python scripts/torture_writes.py --quick   # a smaller run (~2 min)
    options: --races N --kills N --pipelines N --rounds N --dream-pairs N --link-rounds N
             --kill-ops apply,undo,... --seed N --only races,kills,two,links
             --keep (leave the temp dirs for a look)

Every scenario builds its own config home (CLAUDE_CONFIG_DIR), MEMTUI_DATA_DIR,
MEMTUI_STATE_DIR, MEMTUI_CACHE_DIR, MEMTUI_CONFIG_DIR and TMPDIR in one temp dir, removed at
the end; nothing reads or writes the user's. Processes run niced. No failpoint is used: the
moments are real timing, so two runs differ. A table of figures is printed at the end; the
exit status is 1 when a target is missed or any process printed a traceback.

1. Races. Outside writer processes (half write in place like Node's writeFile: open with
   O_TRUNC, write; half write a temp file and rename it over) rewrite memory files with
   unique contents (a UUID per write), in bursts, while two memtui worker processes apply
   change sets (one file or several, through `apply_journalled`; undo through
   `undo_journalled`; `memtui restore` from the command line) and `memtui dream --engine
   offline --yes` runs on a store built so the dream changes many files (near-duplicates,
   "yesterday", unindexed files). (`memtui merge` is left to scenario 2: it needs a lost
   update in the transcripts of a file nobody else rewrites.) Each outside writer owns its
   files, and reads a file just before rewriting it (as Claude Code's Edit does), so what
   happened to each outside write is observed: by that read, or by the final state for the
   last write of a file.

   An outside write W (content C, file F) is, when next observed:
   - intact: the observation is C;
   - replaced knowingly: a memtui record in the undo log (`writes.history`) changed F with
     `before == C`, so memtui compared against C, replaced it and can give it back;
   - kept aside: C is in a `kept/` copy memtui made when it gave way to an outside write;
   - superseded while aside: the writer found F missing (memtui had moved it aside), wrote
     again, and memtui had C as the `before` of an attempt (its backup holds C);
   - LOST: none of these. A lost write is *silently lost* when no memtui attempt that could
     have replaced it (one touching F whose time window meets [start of W, observation])
     reported a conflict or refusal naming F. It is *lost after completing* when every such
     attempt began after W had completed (the compare-and-swap must catch those), else
     *lost while being written* (W's writer still had F open across memtui's swap).
   Targets: 0 silently lost, 0 lost after completing. Also checked: along the undo log, each
   record's `before` of a file is the previous record's `after` unless an outside write to
   that file came between (so no memtui write lost another memtui write, and memtui never
   replaced bytes nobody wrote); and the last outside write to every file is on disk or was
   replaced knowingly. (With the compare-and-swap switched off in the workers, the same
   analysis finds dozens of silently lost writes per hundred attempts.)

2. SIGKILLs. apply and undo (`apply_journalled`/`undo_journalled`, as the app calls them),
   `memtui restore`, `memtui merge` and `memtui dream --engine offline --yes` (through
   `tui.cli.main`) are killed with SIGKILL after a random delay, uniform over the
   operation's measured duration, until the wanted number of kills landed mid-operation.
   Each victim is a fresh process forked from one that has done the imports, so the kill
   lands in the operation, not in Python's start-up. Then the next command runs: `memtui
   audit STORE` (every tenth through the installed entry point, the others as
   `main(["audit", STORE])` in a fresh forked process). Then: the store must equal either
   the state before (no new record) or that state with the new undo-log record applied
   whole; no `*.memtui-*` file in the store; no `memtui-run-*` store copy left in TMPDIR;
   no intent record left; a dream killed before its apply was recorded leaves
   `.consolidate-lock` with the same bytes and mtime; and undo (`undo_last`) brings back
   the exact state before. Two pipelines run at once, each on its own sandbox.

3. Two processes applying at once. Persistent racer processes apply conflicting, overlapping
   and disjoint change sets (and undo against apply) to one store, or to a fresh store whose
   journal they create together, at the same wall-clock instant. Never two winners on one
   file (the undo-log chain above), the loser changed nothing, no crash, no journal moved
   aside, `git fsck` clean on every journal, StoreBusy only after its full wait. Also two
   `memtui dream --yes` started at the same instant on one store.

4. Symlinks. Stores whose MEMORY.md, memory files, a subfolder and `.consolidate-lock` are
   symlinks (absolute and relative, to existing and missing files outside the store). Run
   `memtui dream`/`extract` (offline), `restore`, `merge`, and curation writes (relink,
   remove dangling, archive, edit, create through a dangling link, undo). Every file and
   link under the outside folder is compared before and after: target 0 written or created.
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
import traceback
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

TRACEBACK = "Traceback (most recent call last)"
TEMP_MARK = ".memtui-"
# What a dream or an extract says on stderr as it goes (tui/cli/runs.py's `_Printer`): a
# run that stops says its one sentence after them.
PROGRESS = ("Dreaming over ", "Extracting ", "▸ ", "  done in", "  failed in", "  cancelled in",
            "    ")
SCRIPT = str(Path(__file__).resolve())
_CLEAN_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
              "CLAUDE_CODE_REMOTE_MEMORY_DIR", "CLAUDE_CODE_PROJECT_DIR_NAME",
              "CLAUDE_CODE_DISABLE_AUTO_MEMORY", "MEMTUI_FAILPOINT")


# --- small helpers ----------------------------------------------------------------------------


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()[:24]


def read_or_none(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except (FileNotFoundError, IsADirectoryError):
        return None


def memory_text(name: str, description: str, body: str, kind: str = "project") -> str:
    return f"---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n\n{body}\n"


def memtui_command() -> list[str]:
    """The installed `memtui` entry point beside this Python, else `python -m tui`."""
    entry = Path(sys.executable).with_name("memtui")
    return [str(entry)] if entry.exists() else [sys.executable, "-m", "tui"]


def child_command(role: str, *args: str) -> list[str]:
    return [sys.executable, SCRIPT, role, *args]


def snapshot(store: Path) -> dict[str, bytes]:
    """Every regular file of the store, memtui temp files and the lock left out."""
    files: dict[str, bytes] = {}
    for folder, _dirs, names in os.walk(store):
        for name in names:
            path = Path(folder, name)
            if TEMP_MARK in name or name == ".consolidate-lock" or path.is_symlink():
                continue
            data = read_or_none(path)
            if data is not None:
                files[path.relative_to(store).as_posix()] = data
    return files


def temp_files(store: Path) -> list[str]:
    return [name for _f, _d, names in os.walk(store) for name in names if TEMP_MARK in name]


def lock_state(store: Path) -> tuple[bytes | None, int | None]:
    path = store / ".consolidate-lock"
    try:
        return read_or_none(path), os.lstat(path).st_mtime_ns
    except FileNotFoundError:
        return None, None


class Tracebacks:
    """Every traceback any process printed, with where it came from."""

    def __init__(self) -> None:
        self.found: list[tuple[str, str]] = []
        self.guard = threading.Lock()

    def scan(self, where: str, text: str | None) -> int:
        if not text or TRACEBACK not in text:
            return 0
        with self.guard:
            for part in text.split(TRACEBACK)[1:]:
                self.found.append((where, TRACEBACK + part[:1500]))
        return text.count(TRACEBACK)

    def add(self, where: str) -> None:
        with self.guard:
            self.found.append((where, traceback.format_exc()[-1500:]))


@dataclass
class Figure:
    name: str
    value: object
    target: object = None  # None: shown, not judged

    @property
    def met(self) -> bool:
        return self.target is None or self.value == self.target


@dataclass
class Result:
    title: str
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, name: str, value: object, target: object = None) -> None:
        self.figures.append(Figure(name, value, target))

    @property
    def met(self) -> bool:
        return all(f.met for f in self.figures)


class Sandbox:
    """A config home and memtui's own dirs in a temp dir, and the environment naming them."""

    def __init__(self, root: Path, name: str):
        self.root = root / name
        self.home = self.root / "claude"
        self.outside = self.root / "outside"
        self.code = self.root / "code"
        self.tmp = self.root / "tmp"
        for folder in (self.home / "projects", self.outside, self.code, self.tmp):
            folder.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k not in _CLEAN_ENV}
        env.update({
            "CLAUDE_CONFIG_DIR": str(self.home),
            "MEMTUI_DATA_DIR": str(self.root / "memtui-data"),
            "MEMTUI_STATE_DIR": str(self.root / "memtui-state"),
            "MEMTUI_CACHE_DIR": str(self.root / "memtui-cache"),
            "MEMTUI_CONFIG_DIR": str(self.root / "memtui-config"),
            "TMPDIR": str(self.tmp),
            "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "torture", "GIT_AUTHOR_EMAIL": "torture@memtui.invalid",
            "GIT_COMMITTER_NAME": "torture", "GIT_COMMITTER_EMAIL": "torture@memtui.invalid",
            "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p),
            "PYTHONDONTWRITEBYTECODE": "1",
        })
        self.env = env

    def store(self, folder: str) -> Path:
        store = self.home / "projects" / folder / "memory"
        store.mkdir(parents=True, exist_ok=True)
        return store

    def project_store(self, name: str) -> tuple[Path, Path]:
        """A project directory and its store, keyed as Claude Code keys it."""
        from tui.claude import paths

        project = self.code / name
        project.mkdir(parents=True, exist_ok=True)
        real = os.path.realpath(project)
        return Path(real), self.store(paths.sanitize(real))

    @contextlib.contextmanager
    def active(self):
        """Run in-process memtui code against this sandbox (its env, its temp dir)."""
        saved, saved_tmp = dict(os.environ), tempfile.tempdir
        os.environ.clear()
        os.environ.update(self.env)
        tempfile.tempdir = str(self.tmp)
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)
            tempfile.tempdir = saved_tmp

    def run_copies(self) -> list[str]:
        return [p.name for p in self.tmp.glob("memtui-run-*")]

    def journals(self) -> list[Path]:
        folder = self.root / "memtui-data" / "journal"
        return sorted(folder.iterdir()) if folder.is_dir() else []


_children: set[subprocess.Popen] = set()
_children_guard = threading.Lock()


def spawn(command: list[str], env: dict[str, str], log: Path | None = None,
          **options) -> subprocess.Popen:
    """A child process; with `log`, its output goes to that file (long-running children
    must never block on a full pipe)."""
    if log is None:
        out = err = subprocess.PIPE
    else:
        out, err = subprocess.DEVNULL, open(log, "w")  # noqa: SIM115 - closed in finish()
    process = subprocess.Popen(command, env=env, stdout=out, stderr=err, text=True, **options)
    process.log = log
    with _children_guard:
        _children.add(process)
    return process


def finish(process: subprocess.Popen, timeout: float = 300) -> tuple[int, str, str]:
    """Wait for a child: its exit code, stdout and stderr (or its log)."""
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        err = (err or "") + f"\n[torture: killed after {timeout} s without an answer]"
    with _children_guard:
        _children.discard(process)
    if process.log is not None:
        err = process.log.read_text(errors="replace") + (err or "")
    return process.returncode, out or "", err or ""


def run(command: list[str], env: dict[str, str], timeout: float = 300) -> tuple[int, str, str, float]:
    started = time.time()
    code, out, err = finish(spawn(command, env), timeout)
    return code, out, err, time.time() - started


def kill_children() -> None:
    with _children_guard:
        for process in list(_children):
            if process.poll() is None:
                process.kill()
            with contextlib.suppress(Exception):
                process.wait(timeout=5)
        _children.clear()


def fsck(journal: Path, env: dict[str, str]) -> bool:
    code, _out, _err, _ = run(["git", "--git-dir", str(journal), "fsck", "--no-progress"], env, 120)
    return code == 0


# --- store builders ----------------------------------------------------------------------------

SHARED = ("Deploys go through the staging cluster first, the canary runs for thirty minutes, "
          "then the release manager promotes the build to production after checking the error "
          "budget dashboard, the payment smoke tests and the rollback runbook")
OLD = time.time() - 3 * 86400
TOPICS = ("payment", "search", "billing", "mailer", "gateway", "scheduler", "ledger", "exporter",
          "importer", "cache", "indexer", "notifier")


def dreamable_store(store: Path, pairs: int = 3, dated: int = 3, loose: int = 3,
                    plain: int = 3, mtime: float = OLD) -> None:
    """A store the offline dream changes many files of: near-duplicate pairs to merge,
    relative dates to make absolute, unindexed files to add, a dangling index line."""
    files: dict[str, str] = {}
    for n in range(pairs):
        for side, extra in (("a", "Written in the first session."), ("b", "Noted again later.")):
            files[f"dup{n}_{side}.md"] = memory_text(
                f"deploy rule {n}", f"how deploys work, part {n}",
                f"{SHARED} (rule {n}). {extra}")
    for n in range(dated):
        files[f"dated{n}.md"] = memory_text(
            f"incident {n}", f"the {TOPICS[n]} incident",
            f"The {TOPICS[n]} service failed yesterday; we rolled it back two days ago too.")
    for n in range(loose):
        files[f"loose{n}.md"] = memory_text(
            f"loose {n}", f"an unindexed note on {TOPICS[-1 - n]}",
            f"Keep {TOPICS[-1 - n]} settings in one place ({n}).", "feedback")
    for n in range(plain):
        files[f"plain{n}.md"] = memory_text(
            f"plain {n}", f"a settled fact {n}", f"The {TOPICS[n + 3]} service listens on port "
            f"80{n:02d}.", "reference")
    indexed = [f for f in sorted(files) if not f.startswith("loose")]
    index = ["# Memory", *(f"- [{f[:-3]}]({f}) — {f[:-3].replace('_', ' ')}" for f in indexed),
             "- [Gone](gone_note.md) — removed long ago"]
    files["MEMORY.md"] = "\n".join(index) + "\n"
    for name, text in files.items():
        (store / name).write_text(text, encoding="utf-8")
        os.utime(store / name, (mtime, mtime))


class Session:
    """A Claude Code transcript in the record shapes 2.1.x writes (tool_use + toolUseResult)."""

    def __init__(self, home: Path, cwd: Path, start: datetime):
        self.home, self.cwd, self.clock = home, str(cwd), start
        self.id = str(uuid.uuid4())
        self.records: list[dict] = []
        self.parent: str | None = None

    def record(self, kind: str, **fields) -> None:
        self.clock += timedelta(seconds=1)
        record = {"parentUuid": self.parent, "isSidechain": False, "userType": "external",
                  "cwd": self.cwd, "sessionId": self.id, "version": "2.1.39",
                  "gitBranch": "main", "type": kind, "uuid": str(uuid.uuid4()),
                  "timestamp": self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + "000Z", **fields}
        self.parent = record["uuid"]
        self.records.append(record)

    def user(self, text: str) -> None:
        self.record("user", message={"role": "user", "content": text})

    def tool(self, name: str, tool_input: dict, result: dict) -> None:
        tool_id = f"toolu_{uuid.uuid4().hex[:24]}"
        self.record("assistant", message={
            "model": "claude-opus-4-6", "id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message",
            "role": "assistant", "stop_reason": None,
            "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}],
            "usage": {"input_tokens": 1, "output_tokens": 1}})
        self.record("user", message={"role": "user", "content": [
            {"tool_use_id": tool_id, "type": "tool_result", "content": "ok"}]},
            toolUseResult=result)

    def read(self, path: Path, content: str) -> None:
        lines = content.count("\n")
        self.tool("Read", {"file_path": str(path)}, {"type": "text", "file": {
            "filePath": str(path), "content": content, "numLines": lines, "startLine": 1,
            "totalLines": lines}})

    def write(self, path: Path, content: str, original: str | None) -> None:
        self.tool("Write", {"file_path": str(path), "content": content}, {
            "type": "update" if original is not None else "create", "filePath": str(path),
            "content": content, "structuredPatch": [], "originalFile": original})

    def save(self) -> Path:
        from tui.claude import paths

        folder = self.home / "projects" / paths.sanitize(self.cwd)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.id}.jsonl"
        lines = [{"type": "file-history-snapshot", "messageId": "m", "snapshot": {},
                  "isSnapshotUpdate": False}, *self.records]
        path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
        return path


MERGE_BASE = memory_text("testing", "how we test", "Run the whole suite.\n**Why:** it caught bugs.",
                         "feedback")
A_LINE, B_LINE = "- Use the staging database for payment tests.", "- Never mock the clock in billing."


def blind_overwrite(home: Path, project: Path, memory: Path) -> None:
    """Two sessions read one memory; A adds a line, B overwrites it blindly with its own:
    `memtui merge` has A's line to bring back. The file on disk is B's version."""
    start = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    a, b = Session(home, project, start), Session(home, project, start + timedelta(seconds=30))
    a.read(memory, MERGE_BASE)
    b.read(memory, MERGE_BASE)
    a.clock = start + timedelta(minutes=5)
    a.write(memory, MERGE_BASE + A_LINE + "\n", MERGE_BASE)
    b.clock = start + timedelta(minutes=10)
    b.write(memory, MERGE_BASE + B_LINE + "\n", MERGE_BASE + A_LINE + "\n")
    a.save()
    b.save()
    memory.write_text(MERGE_BASE + B_LINE + "\n", encoding="utf-8")


# --- child processes ---------------------------------------------------------------------------


def outside_text(file: str, write_id: str) -> bytes:
    stem = file.removesuffix(".md")
    shared = SHARED + " (rule 0)." if stem.startswith("dup") else f"Notes about {stem}."
    return memory_text(stem, f"{stem} as Claude Code wrote it",
                       f"{shared}\nClaude Code wrote this yesterday; write outside-{write_id}."
                       ).encode()


def memtui_text(file: str, write_id: str) -> bytes:
    stem = file.removesuffix(".md")
    return memory_text(stem, f"{stem} as memtui wrote it",
                       f"Curated in memtui yesterday; write memtui-{write_id}.").encode()


def child_writer(config: dict) -> int:
    """An outside writer (Claude Code in another worktree): read, then rewrite, in bursts."""
    rng = random.Random(config["seed"])
    store, stop, parent = Path(config["store"]), Path(config["stop"]), os.getppid()
    files, in_place = config["files"], config["mode"] == "inplace"
    with open(config["log"], "a", buffering=1) as log:
        burst_end = time.time() + rng.uniform(0.3, 1.5)
        while not stop.exists() and os.getppid() == parent:
            if time.time() > burst_end:  # quiet for a while, then a burst of writes
                time.sleep(rng.uniform(0.3, 1.5))
                burst_end = time.time() + rng.uniform(0.3, 1.5)
                continue
            file = rng.choice(files)
            path = store / file
            p0 = time.time()
            seen = read_or_none(path)
            p1 = time.time()
            write_id = uuid.uuid4().hex
            data = outside_text(file, write_id)
            w0 = time.time()
            if in_place:  # Node's writeFile: open(O_TRUNC), write, close
                handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                try:
                    os.write(handle, data)
                finally:
                    os.close(handle)
            else:
                temp = path.with_name(f"{file}.{write_id[:8]}.tmp")
                temp.write_bytes(data)
                os.replace(temp, path)
            w1 = time.time()
            log.write(json.dumps({"file": file, "id": write_id, "hash": digest(data),
                                  "mode": config["mode"], "p0": p0, "p1": p1,
                                  "seen": digest(seen), "w0": w0, "w1": w1}) + "\n")
            time.sleep(rng.uniform(0, 0.06))
    return 0


def _outcome(error: BaseException) -> tuple[str, str | None]:
    from tui.memory.store_lock import StoreBusy
    from tui.memory.writes import ConflictError, StoreLocked

    if isinstance(error, ConflictError):
        return "conflict", error.file
    if isinstance(error, StoreBusy):
        return "busy", None
    if isinstance(error, StoreLocked):
        return "locked", None
    return "refused", None


def child_worker(config: dict) -> int:
    """A memtui process applying change sets, undoing, and running `memtui restore`."""
    from tui.agents.changeset import restore_lock_after_undo
    from tui.history.recovery import apply_journalled, undo_journalled
    from tui.memory.writes import FileChange, WriteRefused, read_bytes

    rng = random.Random(config["seed"])
    store, name = Path(config["store"]), config["name"]
    outside, mine = list(config["outside"]), list(config["memtui"])
    created: list[str] = []
    kinds, weights = zip(*config["weights"].items(), strict=True)
    parent = os.getppid()
    with open(config["log"], "a", buffering=1) as log:
        for attempt in range(config["attempts"]):
            if os.getppid() != parent:
                break  # the torture run is gone
            kind = rng.choices(kinds, weights)[0]
            entry: dict = {"worker": name, "kind": kind}
            try:
                if kind == "restore":
                    _restore_attempt(store, rng, outside + mine, entry, config["memtui_cmd"])
                elif kind == "undo":
                    entry["t0"] = time.time()
                    try:
                        record = undo_journalled(store)
                        if record is not None:
                            restore_lock_after_undo(store, record.undoes)
                        entry["outcome"] = "applied" if record else "nothing"
                        entry["record"] = record.id if record else None
                    except WriteRefused as error:
                        entry["outcome"], entry["conflict_file"] = _outcome(error)
                        entry["error"] = str(error)
                    entry["t1"] = time.time()
                else:
                    count = 1 if kind == "single" else rng.randint(2, 4)
                    pool = outside if rng.random() < 0.7 else mine + created
                    files = rng.sample(pool, min(count, len(pool)))
                    if kind == "multi":
                        files += rng.sample(mine, 1)
                        if rng.random() < 0.3:
                            files.append(f"new_{name}_{attempt}.md")
                        if created and rng.random() < 0.3:
                            files.append(created.pop(rng.randrange(len(created))))
                    files = list(dict.fromkeys(files))
                    entry["t_read"] = time.time()
                    befores = {f: read_bytes(store, f) for f in files}
                    time.sleep(rng.uniform(0, 0.08))  # the user looks at the change first
                    write_id = f"{name}-{attempt}-{uuid.uuid4().hex[:8]}"
                    changes = []
                    for f in files:
                        after = None if (f.startswith("new_") and befores[f] is not None) \
                            else memtui_text(f, write_id)
                        changes.append(FileChange(f, befores[f], after))
                    entry["files"] = files
                    entry["befores"] = {f: digest(b) for f, b in befores.items()}
                    entry["t0"] = time.time()
                    try:
                        record = apply_journalled(store, changes, f"torture {write_id}")
                        entry["outcome"], entry["record"] = "applied", record.id
                        created += [c.file for c in changes
                                    if c.file.startswith("new_") and c.after is not None]
                    except WriteRefused as error:
                        entry["outcome"], entry["conflict_file"] = _outcome(error)
                        entry["error"] = str(error)
                    entry["t1"] = time.time()
            except Exception:  # a crash is a finding: print it, keep going
                traceback.print_exc()
                entry["outcome"], entry["t1"] = "crash", time.time()
                entry.setdefault("t0", entry["t1"])
            log.write(json.dumps(entry) + "\n")
            time.sleep(rng.uniform(0, 0.05))
    return 0


def _restore_attempt(store: Path, rng: random.Random, files: list[str], entry: dict,
                     memtui: list[str]) -> None:
    from tui.history.journal import Journal

    file = rng.choice(files)
    versions = [v for v in Journal(store).versions(file) if v.blob is not None]
    entry["files"] = [file]
    entry["t0"] = time.time()
    choices = versions[1:12]  # not the newest: that one is probably on disk
    if not choices:
        entry["outcome"], entry["t1"] = "nothing", time.time()
        return
    version = rng.choice(choices)
    process = subprocess.run([*memtui, "restore", str(store / file), "--version", version.rev,
                              "--yes"],
                             capture_output=True, text=True, timeout=300)
    entry["t1"] = time.time()
    sys.stderr.write(process.stderr if TRACEBACK in process.stderr else "")
    entry["rc"] = process.returncode
    if process.returncode == 0 and "Restored" in process.stdout:
        entry["outcome"] = "applied"
    elif process.returncode == 0:
        entry["outcome"] = "nothing"
    elif "changed on disk" in process.stderr:
        entry["outcome"], entry["conflict_file"] = "conflict", file
    elif "Another memtui" in process.stderr:
        entry["outcome"] = "busy"
    elif "consolidation" in process.stderr:
        entry["outcome"] = "locked"
    else:
        entry["outcome"] = "refused"
        entry["conflict_file"] = file
    entry["error"] = process.stderr.strip()[-300:]


def child_cli(argv: list[str]) -> int:
    """`memtui ARGS` through `tui.cli.main`, after the imports (so a kill lands in the
    command's work, not in Python's start-up): prints "go" first; `--at T` waits till T."""
    import tui.agents.dream  # noqa: F401
    import tui.cli.history  # noqa: F401
    import tui.cli.runs  # noqa: F401
    import tui.history.journal  # noqa: F401
    import tui.history.recovery  # noqa: F401
    from tui.cli import main

    if argv[:1] == ["--at"]:
        at, argv = float(argv[1]), argv[2:]
        time.sleep(max(0.0, at - time.time()))
    print("go", flush=True)
    return main(argv)


def child_zygote() -> int:
    """Forks each victim from a process that has done its imports, so a kill pipeline does
    not pay Python's start-up per kill. Orders on stdin: {"role": "cli"|"apply"|"undo",
    "args": [...], "output": path}; answers {"pid", "ready"} once the victim is ready, then
    {"status"} when it is gone. The victim is a real process, killed with a real SIGKILL."""
    import tui.agents.dream  # noqa: F401
    import tui.cli.history  # noqa: F401
    import tui.cli.runs  # noqa: F401
    import tui.history.journal  # noqa: F401
    import tui.memory.audit  # noqa: F401
    import tui.memory.report  # noqa: F401
    import tui.render  # noqa: F401
    from tui.agents.changeset import restore_lock_after_undo
    from tui.cli import main
    from tui.history.recovery import apply_journalled, undo_journalled
    from tui.memory.writes import FileChange, read_bytes

    for line in sys.stdin:
        order = json.loads(line)
        ready_r, ready_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the victim
            os.close(ready_r)
            code = 1
            try:
                output = os.open(order["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(output, 1)
                os.dup2(output, 2)
                os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
                sys.stdin = open(os.devnull)  # noqa: SIM115 - the victim's stdin, for its life
                args = order["args"]
                if order["role"] == "apply":
                    store = Path(args[0])
                    changes = [FileChange(f, read_bytes(store, f), None if a is None else a.encode())
                               for f, a in json.loads(args[1]).items()]
                    os.write(ready_w, b"go")
                    apply_journalled(store, changes, "torture apply", archive=True)
                    code = 0
                elif order["role"] == "undo":
                    os.write(ready_w, b"go")
                    record = undo_journalled(Path(args[0]))
                    if record is not None:
                        restore_lock_after_undo(Path(args[0]), record.undoes)
                    code = 0
                else:
                    os.write(ready_w, b"go")
                    code = main(args)
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        os.close(ready_w)
        ready = os.read(ready_r, 2) == b"go"
        os.close(ready_r)
        print(json.dumps({"pid": pid, "ready": ready}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"status": os.waitstatus_to_exitcode(status)}), flush=True)
    return 0


def child_racer() -> int:
    """A memtui process taking orders on stdin: read now, apply at the given instant."""
    from tui.history.recovery import apply_journalled, undo_journalled
    from tui.memory.writes import FileChange, WriteRefused, read_bytes

    for line in sys.stdin:
        order = json.loads(line)
        if order["op"] == "quit":
            break
        store = Path(order["store"])
        changes = []
        if order["op"] == "apply":
            changes = [FileChange(f, read_bytes(store, f), None if a is None else a.encode())
                       for f, a in order["changes"]]
        print(json.dumps({"ready": time.time()}), flush=True)
        time.sleep(max(0.0, order["at"] - time.time()))
        answer: dict = {"t0": time.time()}
        try:
            if order["op"] == "apply":
                record = apply_journalled(store, changes, order["label"])
            else:
                record = undo_journalled(store)
            answer.update(outcome="applied" if record else "nothing",
                          record=record.id if record else None)
        except WriteRefused as error:
            answer["outcome"], answer["conflict_file"] = _outcome(error)
            answer["error"] = str(error)
        except Exception:
            traceback.print_exc()
            sys.stderr.flush()
            answer["outcome"] = "crash"
        answer["t1"] = time.time()
        print(json.dumps(answer), flush=True)
    return 0


# --- 1. races ----------------------------------------------------------------------------------


def scenario_races(root: Path, races: int, seed: int, tracebacks: Tracebacks) -> Result:
    result = Result("1. Outside writers racing memtui writes")
    started = time.time()
    box = Sandbox(root, "races")
    store = box.store("-work-races")
    dreamable_store(store, pairs=2, dated=2, loose=2, plain=2)
    writers = [("inplace", ["o0.md", "o4.md", "dup0_a.md"]), ("rename", ["o1.md", "o5.md", "dup0_b.md"]),
               ("inplace", ["o2.md", "o6.md", "dated0.md"]), ("rename", ["o3.md", "o7.md", "loose0.md"])]
    owner = {f: mode for mode, files in writers for f in files}
    for file in owner:
        (store / file).write_bytes(outside_text(file, f"initial-{file}"))
    memtui_only = ["MEMORY.md", "plain0.md", "plain1.md", "dated1.md", "loose1.md"]
    initial = snapshot(store)
    logs = box.root / "logs"
    logs.mkdir()
    stop = box.root / "stop-writers"

    dreams = max(2, races // 40)
    restores = max(1, races // 25)
    worker_attempts = races - dreams
    per_worker = [worker_attempts // 2, worker_attempts - worker_attempts // 2]
    restore_share = restores / max(1, worker_attempts)
    weights = {"single": 0.47 - restore_share / 2, "multi": 0.43 - restore_share / 2,
               "undo": 0.10, "restore": restore_share}
    # the journal and its first versions exist before the race starts
    with box.active():
        from tui.history.journal import Journal

        Journal(store).snapshot("start", source="external")

    writer_procs = []
    for n, (mode, files) in enumerate(writers):
        config = {"store": str(store), "files": files, "mode": mode, "seed": seed * 100 + n,
                  "log": str(logs / f"writer{n}.jsonl"), "stop": str(stop)}
        writer_procs.append((f"writer{n}", spawn(child_command("_writer", json.dumps(config)),
                                                 box.env, logs / f"writer{n}.err")))
    worker_procs = []
    for n, attempts in enumerate(per_worker):
        config = {"store": str(store), "name": f"w{n}", "outside": list(owner),
                  "memtui": memtui_only, "attempts": attempts, "seed": seed * 100 + 50 + n,
                  "weights": weights, "log": str(logs / f"worker{n}.jsonl"),
                  "memtui_cmd": memtui_command()}
        worker_procs.append((f"worker{n}", spawn(child_command("_worker", json.dumps(config)),
                                                 box.env, logs / f"worker{n}.err")))

    dream_log: list[dict] = []
    rng = random.Random(seed)

    def dream_loop() -> None:
        pause = max(1.0, 0.18 * races / max(1, dreams))  # spread over the race
        for _ in range(dreams):
            time.sleep(rng.uniform(0.5, 1.5) * pause)
            entry: dict = {"worker": "dream", "kind": "dream", "t0": time.time()}
            code, out, err, _ = run([*memtui_command(), "dream", str(store), "--engine",
                                     "offline", "--yes", "--json"], box.env)
            entry["t1"], entry["rc"] = time.time(), code
            tracebacks.scan("races: memtui dream", err)
            try:
                data = json.loads(out)
            except ValueError:
                data = {}
            entry["applied"] = data.get("applied", [])
            entry["refused"] = [r["file"] for r in data.get("apply_refused", [])]
            entry["error"] = data.get("error")
            entry["outcome"] = ("applied" if entry["applied"] else
                                "refused" if entry["refused"] else
                                "locked" if data.get("error") else "nothing")
            dream_log.append(entry)

    dreamer = threading.Thread(target=dream_loop)
    dreamer.start()
    for where, process in worker_procs:
        _code, _out, err = finish(process, timeout=3600)
        tracebacks.scan(f"races: {where}", err)
    dreamer.join()
    stop.touch()
    for where, process in writer_procs:
        _code, _out, err = finish(process, timeout=120)
        tracebacks.scan(f"races: {where}", err)
    final = {f: read_or_none(store / f) for f in owner}
    t_final = time.time()

    writes: dict[str, list[dict]] = defaultdict(list)
    for n in range(len(writers)):
        for line in (logs / f"writer{n}.jsonl").read_text().splitlines():
            entry = json.loads(line)
            writes[entry["file"]].append(entry)
    attempts = [json.loads(line) for n in range(len(per_worker))
                for line in (logs / f"worker{n}.jsonl").read_text().splitlines()] + dream_log
    with box.active():
        _analyse_races(result, store, writes, owner, attempts, final, t_final, initial)
    result.seconds = time.time() - started
    return result


def _analyse_races(result: Result, store: Path, writes: dict[str, list[dict]],
                   owner: dict[str, str], attempts: list[dict], final: dict[str, bytes | None],
                   t_final: float, initial: dict[str, bytes]) -> None:
    from tui.memory.undo_log import backups_dir
    from tui.memory.writes import history

    records = list(reversed(history(store)))  # in the order they were applied
    by_id = {r.id: r for r in records}
    # Which attempt made each record: in-process ones know their id; CLI ones by label and time.
    made_by: dict[str, dict] = {}
    for attempt in attempts:
        if attempt.get("record") in by_id:
            made_by[attempt["record"]] = attempt
    for record in records:
        if record.id in made_by:
            continue
        kind = "dream" if record.label.startswith("dream") else "restore"
        for attempt in attempts:
            if attempt["kind"] == kind and attempt["t0"] <= record.time <= attempt["t1"] \
                    and attempt.get("outcome") == "applied" and not attempt.get("matched") \
                    and (kind == "dream" or record.changes[0].file in attempt["files"]):
                attempt["matched"] = record.id
                made_by[record.id] = attempt
                break
    unmatched = [r.id for r in records if r.id not in made_by]

    # The files each attempt may have touched, and its time window.
    for attempt in attempts:
        record = by_id.get(attempt.get("record") or attempt.get("matched") or "")
        if record is not None:
            attempt["touch"] = {c.file for c in record.changes}
            attempt["start"] = record.time  # its swaps came after this moment
        else:
            attempt["start"] = attempt["t0"]
            if attempt["kind"] in ("dream", "undo"):
                attempt["touch"] = None  # any file
            else:
                attempt["touch"] = set(attempt.get("files") or [])

    kept_hashes: set[str] = set()
    copy_hashes: set[str] = set()
    for path in backups_dir(store).rglob("*"):
        if path.is_file() and path.name != "log.jsonl":
            (kept_hashes if "kept" in path.relative_to(backups_dir(store)).parts
             else copy_hashes).add(digest(path.read_bytes()))

    replaced_knowingly: dict[tuple[str, str | None], float] = {}
    for record in records:
        for change in record.changes:
            key = (change.file, digest(change.before))
            replaced_knowingly.setdefault(key, record.time)

    fates: Counter = Counter()
    lost_examples: list[str] = []
    last_fates: Counter = Counter()
    for file, entries in writes.items():
        entries.sort(key=lambda e: e["w0"])
        for k, write in enumerate(entries):
            if k + 1 < len(entries):
                seen, observed = entries[k + 1]["seen"], entries[k + 1]["p1"]
            else:
                seen, observed = digest(final[file]), t_final
            if seen == write["hash"]:
                fate = "intact"
            elif replaced_knowingly.get((file, write["hash"]), float("inf")) < observed:
                fate = "replaced knowingly"
            elif write["hash"] in kept_hashes:
                fate = "kept aside"
            elif seen is None and write["hash"] in copy_hashes:
                fate = "superseded while aside"
            else:
                culprits = [a for a in attempts
                            if (a["touch"] is None or file in a["touch"])
                            and a["start"] <= observed and a["t1"] >= write["w0"]]
                reported = any(a.get("conflict_file") == file or file in a.get("refused", ())
                               for a in culprits)
                overlapping = any(a["start"] <= write["w1"] for a in culprits)
                fate = "lost"
                fates["lost, silently" if not reported else "lost, reported"] += 1
                fates["lost while being written" if overlapping else "lost after completing"] += 1
                if not culprits:
                    fates["lost, no memtui write could have"] += 1
                if len(lost_examples) < 5:
                    lost_examples.append(
                        f"{file} write {write['id'][:8]} ({write['mode']}, "
                        f"{write['w0']:.3f}-{write['w1']:.3f}), observed {observed:.3f} as "
                        f"{seen}; candidates: " + "; ".join(
                            f"{a['kind']} {a.get('outcome')} {a['start']:.3f}-{a['t1']:.3f}"
                            f" rec={a.get('record') or a.get('matched')}" for a in culprits[:4]))
            fates[fate] += 1
            if k + 1 == len(entries):
                last_fates[fate] += 1

    # Along the undo log: each before is the previous after, unless an outside write came between.
    outside_hashes = {f: {w["hash"] for w in ws} | {digest(initial.get(f))} for f, ws in writes.items()}
    previous = {f: digest(data) for f, data in initial.items()}
    nobody_wrote, memtui_lost, over_truncated, chain_examples = 0, 0, 0, []
    for record in records:
        for change in record.changes:
            before = digest(change.before)
            if before != previous.get(change.file):
                if change.file in owner and before in outside_hashes[change.file]:
                    pass
                elif change.file in owner and change.before == b"" and owner[change.file] == "inplace":
                    over_truncated += 1
                elif change.file in owner:
                    nobody_wrote += 1
                    chain_examples.append(f"{record.label}: {change.file}")
                else:
                    memtui_lost += 1
                    chain_examples.append(f"{record.label}: {change.file} before != previous after")
            previous[change.file] = digest(change.after)

    outcomes = Counter(a.get("outcome") for a in attempts)
    kinds = Counter(a["kind"] for a in attempts)
    raced = sum(1 for a in attempts if any(
        (a["touch"] is None or f in a["touch"]) and w["w0"] <= a["t1"] and w["w1"] >= a["t0"]
        for f, ws in writes.items() for w in ws))
    close_calls = sum(1 for a in attempts if a.get("outcome") == "applied" and any(
        (a["touch"] is None or f in a["touch"]) and a["start"] - 0.2 <= w["w1"] <= a["start"]
        for f, ws in writes.items() for w in ws))
    total_writes = sum(len(ws) for ws in writes.values())
    modes = Counter(w["mode"] for ws in writes.values() for w in ws)

    result.add("memtui attempts (races)", len(attempts))
    result.add("  by kind", ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    result.add("  outcomes", ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items(), key=str)))
    result.add("  overlapping an outside write to a file they touched", raced)
    result.add("  applied within 200 ms after an outside write to one of their files",
               close_calls)
    dreams = [a for a in attempts if a["kind"] == "dream"]
    result.add("  dreams applied / files they applied / files they refused",
               f"{sum(1 for d in dreams if d.get('applied'))} of {len(dreams)} / "
               f"{sum(len(d.get('applied', ())) for d in dreams)} / "
               f"{sum(len(d.get('refused', ())) for d in dreams)}")
    result.add("outside writes", f"{total_writes} (in place {modes['inplace']}, "
                                 f"by rename {modes['rename']})")
    for fate in ("intact", "replaced knowingly", "kept aside", "superseded while aside", "lost"):
        result.add(f"  {fate}", fates[fate])
    result.add("silently lost outside writes", fates["lost, silently"], 0)
    result.add("lost after completing (before memtui's attempt began)", fates["lost after completing"], 0)
    result.add("lost while being written (writer had the file open across the swap)",
               fates["lost while being written"])
    result.add("lost although a conflict was reported", fates["lost, reported"])
    result.add("last write of each file: on disk / replaced knowingly / lost",
               f"{last_fates['intact']} / {last_fates['replaced knowingly']} / {last_fates['lost']}")
    result.add("records replacing bytes nobody wrote", nobody_wrote, 0)
    result.add("memtui writes lost to another memtui write", memtui_lost, 0)
    result.add("records applied over a file an in-place writer had just emptied", over_truncated)
    result.add("records not traced to an attempt", len(unmatched))
    result.add("memtui temp files left in the store", len(temp_files(store)), 0)
    result.notes += lost_examples + chain_examples[:5]
    for record_id in unmatched[:5]:
        record = by_id[record_id]
        near = [f"{a['kind']} {a.get('outcome')} {a['t0']:.3f}-{a['t1']:.3f}" for a in attempts
                if abs(a["t0"] - record.time) < 2]
        result.notes.append(f"untraced record {record.label!r} at {record.time:.3f} "
                            f"({', '.join(c.file for c in record.changes)}); near: {near[:4]}")


# --- 2. SIGKILLs -------------------------------------------------------------------------------

KILL_OPS = ("apply", "undo", "restore", "merge", "dream")


def scenario_kills(root: Path, kills: int, seed: int, pipelines: int,
                   tracebacks: Tracebacks, ops: tuple[str, ...] = KILL_OPS) -> Result:
    result = Result("2. SIGKILL at random moments, then the next command")
    started = time.time()
    shares = [kills // pipelines + (1 if n < kills % pipelines else 0) for n in range(pipelines)]
    procs = []
    for n, share in enumerate(shares):
        out = root / f"kills-{n}.json"
        config = {"root": str(root), "name": f"kills{n}", "kills": share, "seed": seed * 10 + n,
                  "out": str(out), "ops": list(ops)}
        procs.append((out, spawn(child_command("_killer", json.dumps(config)), dict(os.environ),
                                 root / f"kills-{n}.err")))
    totals: Counter = Counter()
    notes: list[str] = []
    for out, process in procs:
        code, _o, err = finish(process, timeout=3600)
        tracebacks.scan("kills: pipeline", err)
        if code != 0 or not out.exists():
            notes.append(f"a kill pipeline failed (exit {code}): {err.strip()[-500:]}")
            totals["pipeline failures"] += 1
            continue
        data = json.loads(out.read_text())
        totals.update(data["counts"])
        notes += data["notes"]
        for where, text in data["tracebacks"]:
            tracebacks.found.append((where, text))
    result.add("SIGKILLs delivered mid-operation", totals["killed"])
    result.add("  by operation", ", ".join(f"{op} {totals['killed ' + op]}" for op in KILL_OPS))
    result.add("  change absent after the next command", totals["absent"])
    result.add("  change applied whole", totals["applied"])
    result.add("  rolled back by the next command (it said so)", totals["said rolled back"])
    result.add("  operations that finished before the kill", totals["finished first"])
    result.add("half-applied stores after the next command", totals["half-applied"], 0)
    result.add("memtui temp files left after the next command", totals["temp files"], 0)
    result.add("memtui-run-* store copies left after the next command", totals["run copies"], 0)
    result.add("empty memtui-run-* dirs left (no owner file yet when killed)",
               totals["empty run dirs"])
    result.add("intent records left after the next command", totals["intents"], 0)
    result.add("killed dreams (apply not recorded) with the lock changed", totals["lock changed"], 0)
    result.add("undo afterwards not giving the exact state before", totals["undo failed"], 0)
    result.add("next command failing (exit 2 or a traceback)", totals["next failed"], 0)
    result.add("journals moved aside (.broken-*)", totals["broken journals"])
    result.add("stores rebuilt after a failure", totals["stores rebuilt"])
    result.add("kill pipelines that failed", totals["pipeline failures"], 0)
    result.notes += notes[:20]
    result.seconds = time.time() - started
    return result


def child_killer(config: dict) -> int:
    """One kill pipeline in its own sandbox (a process of its own, so two run at once)."""
    box = Sandbox(Path(config["root"]), config["name"])
    tracebacks = Tracebacks()
    counts: Counter = Counter()
    notes: list[str] = []
    with box.active():
        try:
            _kill_pipeline(box, config, counts, notes, tracebacks)
        except Exception:
            tracebacks.add(f"kills: pipeline {config['name']}")
            counts["pipeline failures"] += 1
    Path(config["out"]).write_text(json.dumps({"counts": counts, "notes": notes,
                                               "tracebacks": tracebacks.found}))
    return 0


class KillTarget:
    """A store for kill pipelines: dreamable, with a lost update to merge, a journal
    version to restore and an old `.consolidate-lock`; its base state, and the way back."""

    def __init__(self, box: Sandbox, name: str, rng: random.Random):
        from tui.history.journal import Journal

        self.box, self.rng = box, rng
        project, self.store = box.project_store(name)
        dreamable_store(self.store)
        blind_overwrite(box.home, project, self.store / "feedback_testing.md")
        restore_me = self.store / "restore_me.md"
        restore_me.write_text(memory_text("restore me", "an older version", "Version one."))
        Journal(self.store).snapshot("v1", source="external")
        old = restore_me.read_bytes()
        restore_me.write_text(memory_text("restore me", "a newer version", "Version two."))
        Journal(self.store).snapshot("v2", source="external")
        self.old_rev = next(v.rev for v in Journal(self.store).versions("restore_me.md")
                            if Journal(self.store).read(v.rev, "restore_me.md") == old)
        self.lock = self.store / ".consolidate-lock"
        self.lock.write_bytes(b"4242")
        os.utime(self.lock, ns=(1_700_000_000_250_000_000, 1_700_000_000_250_000_000))
        self.base, self.base_lock = snapshot(self.store), lock_state(self.store)
        self.files = sorted(f for f in self.base if f.endswith(".md"))

    def plan(self) -> dict[str, str | None]:
        """A change set: several files changed, one created, sometimes one deleted."""
        chosen = self.rng.sample(self.files, self.rng.randint(3, 7))
        changes: dict[str, str | None] = {f: memtui_text(f, uuid.uuid4().hex).decode()
                                          for f in chosen}
        changes[f"created_{uuid.uuid4().hex[:6]}.md"] = memory_text("new", "created", "A new one.")
        if self.rng.random() < 0.5:
            changes[self.rng.choice([f for f in self.files
                                     if f not in chosen and f != "MEMORY.md"])] = None
        return changes

    def order(self, op: str, plan: dict) -> dict:
        """What the victim runs: apply/undo as the app does, the rest as `memtui ARGS`."""
        store = str(self.store)
        if op in ("apply", "undo"):
            return {"role": op, "args": [store, json.dumps(plan)]}
        return {"role": "cli", "args": {
            "restore": ["restore", str(self.store / "restore_me.md"), "--version", self.old_rev,
                        "--yes"],
            "merge": ["merge", str(self.store / "feedback_testing.md"), "--yes"],
            "dream": ["dream", store, "--engine", "offline", "--yes"],
        }[op]}

    def undo(self) -> str | None:
        """Undo the newest change; the refusal's sentence if it was refused."""
        from tui.agents.changeset import restore_lock_after_undo
        from tui.memory.writes import WriteRefused, undo_last

        try:
            record = undo_last(self.store)
        except WriteRefused as refused:
            return str(refused)
        if record is not None:
            restore_lock_after_undo(self.store, record.undoes)
        return None

    def back_to_base(self) -> bool:
        """Undo until the store is its base state again; the lock put back as it was."""
        for _ in range(3):
            if snapshot(self.store) == self.base or self.undo() is not None:
                break
        if lock_state(self.store) != self.base_lock:
            self.lock.write_bytes(self.base_lock[0])
            os.utime(self.lock, ns=(self.base_lock[1], self.base_lock[1]))
        return snapshot(self.store) == self.base


def _kill_pipeline(box: Sandbox, config: dict, counts: Counter, notes: list[str],
                   tracebacks: Tracebacks) -> None:
    from tui.memory.intents import intents_dir
    from tui.memory.writes import FileChange, apply_changes, history

    rng = random.Random(config["seed"])
    name = config["name"]
    target = KillTarget(box, f"{name}-store0", rng)
    memtui = memtui_command()
    zygote = spawn(child_command("_zygote"), box.env, stdin=subprocess.PIPE, bufsize=1)
    output = box.root / "victim-output.txt"

    def victim(order: dict) -> dict:
        zygote.stdin.write(json.dumps({**order, "output": str(output)}) + "\n")
        zygote.stdin.flush()
        return json.loads(zygote.stdout.readline())

    def attempt(op: str, delay: float | None) -> dict:
        plan: dict = {}
        if op == "undo":  # something to undo first
            changes = [FileChange(f, read_or_none(target.store / f),
                                  None if a is None else a.encode())
                       for f, a in target.plan().items()]
            apply_changes(target.store, changes, "torture before undo", archive=True)
        elif op == "apply":
            plan = target.plan()
        state = {"before": snapshot(target.store), "before_lock": lock_state(target.store),
                 "before_ids": {r.id for r in history(target.store)}}
        started = victim(target.order(op, plan))
        went = time.time()
        sent = False
        if started["ready"] and delay is not None:
            time.sleep(delay)
            with contextlib.suppress(ProcessLookupError):
                os.kill(started["pid"], signal.SIGKILL)  # our own victim, by its id
                sent = True
        code = json.loads(zygote.stdout.readline())["status"]
        tracebacks.scan(f"kills: {op} victim", output.read_text(errors="replace"))
        state.update(killed=sent and code == -signal.SIGKILL, seconds=time.time() - went,
                     ready=started["ready"], code=code)
        return state

    # How long each operation runs after its "go", unkilled; then back to the base state.
    durations: dict[str, float] = {}
    for op in KILL_OPS:
        outcome = attempt(op, None)
        durations[op] = outcome["seconds"]
        if not outcome["ready"] or outcome["code"] not in (0, 1):
            notes.append(f"{name}: calibrating {op} exited {outcome['code']}")
        if op == "undo":
            target.undo()
        if not target.back_to_base():
            notes.append(f"{name}: calibrating {op} did not get back to the base state")
    notes.append(f"{name}: operation durations after start-up: " + ", ".join(
        f"{op} {seconds:.2f} s" for op, seconds in durations.items()))

    # Until the wanted number of kills landed mid-operation (an operation that finished
    # before its kill does not count, and the next one gets a kill of its own).
    chosen = config.get("ops") or KILL_OPS
    parent = os.getppid()
    for n in range(2 * config["kills"]):
        if counts["killed"] >= config["kills"] or os.getppid() != parent:
            break
        op = chosen[n % len(chosen)]
        where = f"{name} kill {n} ({op})"
        delay = rng.uniform(0, durations[op] * 1.05)
        outcome = attempt(op, delay)
        counts["killed" if outcome["killed"] else "finished first"] += 1
        if outcome["killed"]:
            counts[f"killed {op}"] += 1
        store = target.store
        if n % 10 == 0:  # now and then through the installed entry point itself
            code, out, err, _ = run([*memtui, "audit", str(store)], box.env)
            err += out
        else:  # `main(["audit", STORE])` in a fresh process forked after the imports
            victim({"role": "cli", "args": ["audit", str(store)]})
            code = json.loads(zygote.stdout.readline())["status"]
            err = output.read_text(errors="replace")
        if code not in (0, 1) or tracebacks.scan(f"kills: audit after {op}", err):
            counts["next failed"] += 1
            notes.append(f"{where}: the next command exited {code}: {err.strip()[-300:]}")
        counts["said rolled back"] += "rolled back" in err
        counts["temp files"] += len(temp_files(store))
        for copy in box.run_copies():
            inside = sorted(os.listdir(box.tmp / copy))
            if inside:
                counts["run copies"] += 1
                notes.append(f"{where}, killed after {delay:.3f} s: {copy} left holding {inside}")
            else:  # killed between creating it and writing its owner file
                counts["empty run dirs"] += 1
            shutil.rmtree(box.tmp / copy, ignore_errors=True)  # counted once
        intents = intents_dir(store)
        counts["intents"] += len(list(intents.glob("*.json"))) if intents.is_dir() else 0

        # Whole or nothing: the state before, or the state before with the new record(s).
        now = snapshot(store)
        new = [r for r in history(store) if r.id not in outcome["before_ids"]]
        applied = dict(outcome["before"])
        for record in reversed(new):
            for change in record.changes:
                if change.after is None:
                    applied.pop(change.file, None)
                else:
                    applied[change.file] = change.after
        if not new and now == outcome["before"]:
            counts["absent"] += 1
        elif new and now == applied:
            counts["applied"] += 1
        else:
            counts["half-applied"] += 1
            differing = sorted(f for f in set(now) | set(outcome["before"])
                               if now.get(f) != outcome["before"].get(f))
            notes.append(f"{where}, killed after {delay:.3f} s: {len(new)} new record(s); "
                         f"files differing from before: {differing[:8]}")
        if op == "dream" and not new and lock_state(store) != outcome["before_lock"]:
            counts["lock changed"] += 1
            notes.append(f"{where}, killed after {delay:.3f} s: lock {outcome['before_lock']}"
                         f" -> {lock_state(store)}")

        # Undo still works: it brings back the exact state before the operation.
        undo_wanted = (op != "undo" and new) or (op == "undo" and not new)
        if undo_wanted:
            refused = target.undo()
            expected = target.base if op == "undo" else outcome["before"]
            if refused or snapshot(store) != expected:
                counts["undo failed"] += 1
                notes.append(f"{where}: the undo afterwards " +
                             (f"was refused: {refused}" if refused else
                              "did not bring back the state before"))
        if not target.back_to_base():
            counts["stores rebuilt"] += 1
            notes.append(f"{where}: the store could not be brought back; a fresh one is used")
            target = KillTarget(box, f"{name}-store{n + 1}", rng)
    finish(zygote, 60)
    counts["broken journals"] += sum(1 for j in box.journals() if ".broken-" in j.name)


# --- 3. two processes at once ------------------------------------------------------------------


class Racer:
    def __init__(self, env: dict[str, str]):
        self.process = spawn(child_command("_racer"), env, stdin=subprocess.PIPE, bufsize=1)

    def send(self, order: dict) -> None:
        self.process.stdin.write(json.dumps(order) + "\n")
        self.process.stdin.flush()

    def answer(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            return {"outcome": "died"}
        return json.loads(line)


def scenario_two(root: Path, rounds: int, dream_pairs: int, seed: int,
                 tracebacks: Tracebacks) -> Result:
    from tui.memory.store_lock import WAIT_SECONDS

    result = Result("3. Two (or three) memtui processes applying at the same instant")
    started = time.time()
    rng = random.Random(seed)
    box = Sandbox(root, "two")
    racers = [Racer(box.env) for _ in range(3)]
    counts: Counter = Counter()
    notes: list[str] = []
    stores: list[Path] = []

    def new_store(n: int) -> Path:
        store = box.store(f"-work-two-{n}")
        for i in range(6):
            (store / f"f{i}.md").write_bytes(memory_text(f"f{i}", "a file", f"first {i}").encode())
        (store / "MEMORY.md").write_text("# Memory\n" + "".join(
            f"- [f{i}](f{i}.md) — a file\n" for i in range(6)))
        stores.append(store)
        return store

    shared = new_store(0)
    with box.active():
        from tui.memory.writes import history

        for n in range(rounds):
            kind = rng.choice(["same", "same", "overlap", "disjoint", "undo", "fresh"])
            store = new_store(n + 1) if kind == "fresh" else shared
            before = snapshot(store)
            files = [f"f{i}.md" for i in range(6)]
            rng.shuffle(files)
            orders: list[dict] = []
            at = time.time() + (2.0 if n == 0 else 0.4)  # the first read imports memtui
            if kind in ("same", "fresh"):
                how_many = rng.choice([2, 2, 3])
                for r in range(how_many):
                    orders.append({"op": "apply", "changes": [[files[0], f"racer {r} {uuid.uuid4()}\n"]]})
            elif kind == "overlap":
                orders = [{"op": "apply", "changes": [[files[0], f"A {uuid.uuid4()}\n"],
                                                       [files[1], f"A {uuid.uuid4()}\n"]]},
                          {"op": "apply", "changes": [[files[1], f"B {uuid.uuid4()}\n"],
                                                       [files[2], f"B {uuid.uuid4()}\n"]]}]
            elif kind == "disjoint":
                orders = [{"op": "apply", "changes": [[files[0], f"A {uuid.uuid4()}\n"]]},
                          {"op": "apply", "changes": [[files[1], f"B {uuid.uuid4()}\n"]]}]
            else:  # undo against an apply to a file the newest record changed
                newest = next((r for r in history(store) if not r.undone and r.undoes is None), None)
                if newest is None:
                    continue
                target = newest.changes[0].file
                orders = [{"op": "undo"},
                          {"op": "apply", "changes": [[target, f"U {uuid.uuid4()}\n"]]}]
            for r, order in enumerate(orders):
                order.update(store=str(store), at=at, label=f"race {n} {r}")
                racers[r].send(order)
            readies = [racers[r].answer() for r in range(len(orders))]
            # A racer that read the store after the instant may have read a winner's bytes:
            # its apply then comes after, not at the same time, and may rightly win too.
            late = any(ready.get("ready", at + 1) > at for ready in readies)
            if late:
                counts["rounds whose barrier came late"] += 1
                notes.append(f"round {n} ({kind}): a racer read the store after the instant")
            answers = [racers[r].answer() for r in range(len(orders))]
            counts["rounds"] += 1
            counts[f"rounds {kind}"] += 1
            outcome = Counter(a["outcome"] for a in answers)
            counts["applied"] += outcome["applied"]
            counts["refused (conflict)"] += outcome["conflict"]
            counts["crashes"] += outcome["crash"] + outcome["died"]
            for answer in answers:
                if answer["outcome"] == "busy":
                    counts["StoreBusy"] += 1
                    if answer["t1"] - answer["t0"] < WAIT_SECONDS - 0.5:
                        counts["StoreBusy before its wait"] += 1
                if answer["outcome"] in ("refused", "locked"):
                    counts["other refusals"] += 1
                    notes.append(f"round {n} ({kind}): {answer.get('error')}")
            ids = [a["record"] for a in answers if a.get("record")]
            records = [r for r in reversed(history(store)) if r.id in ids]  # as applied
            expected = 2 if kind == "disjoint" else 1
            # An apply that goes first becomes the newest change: the undo then reverts it.
            undid_the_apply = kind == "undo" and len(records) == 2 and \
                records[1].undoes == records[0].id
            if outcome["applied"] != expected and not undid_the_apply and not late:
                counts["rounds with the wrong number of winners"] += 1
                notes.append(f"round {n} ({kind}): {outcome['applied']} applied, {dict(outcome)}")
            # The losers changed nothing: the store is the state before plus the winners.
            expected_state = dict(before)
            for record in records:
                for change in record.changes:
                    if change.after is None:
                        expected_state.pop(change.file, None)
                    else:
                        expected_state[change.file] = change.after
            if snapshot(store) != expected_state:
                counts["rounds where a loser changed a file"] += 1
                notes.append(f"round {n} ({kind}): the store is not the state before plus the winner")
        for racer in racers:
            racer.send({"op": "quit"})
        for n, racer in enumerate(racers):
            _code, _out, err = finish(racer.process, 120)
            tracebacks.scan(f"two: racer {n}", err)

        # Two `memtui dream --yes` at the same instant on one store.
        for n in range(dream_pairs):
            store = box.store(f"-work-two-dream-{n}")
            dreamable_store(store, pairs=4, dated=4, loose=4, plain=3)
            stores.append(store)
            at = time.time() + 1.0
            procs = [spawn(child_command("_cli", "--at", str(at), "dream", str(store), "--engine",
                                         "offline", "--yes", "--json"), box.env) for _ in range(2)]
            said = []
            for process in procs:
                code, out, err = finish(process, 600)
                tracebacks.scan("two: dream pair", err)
                try:
                    said.append(json.loads(out.split("\n", 1)[1]))
                except (ValueError, IndexError):  # no JSON: it crashed
                    said.append({"failed": True})
                    notes.append(f"dream pair {n}: exit {code}: {err.strip()[-200:]}")
            applied = [s for s in said if s.get("applied")]
            counts["dream pairs"] += 1
            for dream in said:
                changes = (dream.get("changeset") or {}).get("files")
                counts["dreams " + (
                    "failed" if dream.get("failed") else
                    "applied" if dream.get("applied") else
                    "refused by the lock" if "lock" in (dream.get("error") or "").lower() else
                    "with nothing to change" if changes == [] else
                    "whose apply was refused" if dream.get("apply_refused") else "failed")] += 1
            if len(applied) == 2:
                notes.append(f"dream pair {n}: both applied ({len(applied[0]['applied'])} and "
                             f"{len(applied[1]['applied'])} files)")
            from tui.claude.lock import read_lock

            if read_lock(store).held():
                counts["dream pairs leaving the lock held"] += 1

        # Along every store's undo log, each record's before is the previous record's after.
        for store in stores:
            previous: dict[str, str | None] = {}
            for record in reversed(history(store)):
                for change in record.changes:
                    if change.file in previous and digest(change.before) != previous[change.file]:
                        counts["records whose before was not the previous after"] += 1
                        notes.append(f"{store.parent.name}: {record.label} {change.file}")
                    previous[change.file] = digest(change.after)
        journals = box.journals()
        counts["journals"] = sum(1 for j in journals if not j.name.startswith("."))
        counts["journals moved aside"] = sum(1 for j in journals if ".broken-" in j.name)
        counts["journals left half-built"] = sum(1 for j in journals if ".building-" in j.name)
        counts["journals failing git fsck"] = sum(
            1 for j in journals if ".broken-" not in j.name and not j.name.startswith(".")
            and not fsck(j, box.env))
        counts["temp files left"] = sum(len(temp_files(s)) for s in stores)

    result.add("rounds", counts["rounds"])
    result.add("  same file / fresh store / overlapping sets / disjoint / undo vs apply",
               " / ".join(str(counts[f"rounds {k}"]) for k in ("same", "fresh", "overlap",
                                                               "disjoint", "undo")))
    result.add("  applied / refused with a conflict", f"{counts['applied']} / {counts['refused (conflict)']}")
    result.add("  rounds whose start barrier came late", counts["rounds whose barrier came late"])
    result.add("rounds with the wrong number of winners", counts["rounds with the wrong number of winners"], 0)
    result.add("two winners on one file with one before (undo-log chain)",
               counts["records whose before was not the previous after"], 0)
    result.add("rounds where a loser changed a file", counts["rounds where a loser changed a file"], 0)
    result.add("racer crashes", counts["crashes"], 0)
    result.add("StoreBusy / before its wait", f"{counts['StoreBusy']} / {counts['StoreBusy before its wait']}")
    result.add("StoreBusy before its full wait", counts["StoreBusy before its wait"], 0)
    result.add("other refusals", counts["other refusals"], 0)
    result.add("journals created / moved aside", f"{counts['journals']} / {counts['journals moved aside']}")
    result.add("journals moved aside or left half-built",
               counts["journals moved aside"] + counts["journals left half-built"], 0)
    result.add("journals failing git fsck", counts["journals failing git fsck"], 0)
    result.add("memtui temp files left", counts["temp files left"], 0)
    result.add("dream pairs", counts["dream pairs"])
    result.add("  dreams applied / refused by the lock / nothing to change / apply refused",
               " / ".join(str(counts[f"dreams {k}"]) for k in (
                   "applied", "refused by the lock", "with nothing to change",
                   "whose apply was refused")))
    result.add("dreams that failed otherwise", counts["dreams failed"], 0)
    result.add("dream pairs leaving the lock held", counts["dream pairs leaving the lock held"], 0)
    result.notes += notes[:10]
    result.seconds = time.time() - started
    return result


# --- 4. symlinks -------------------------------------------------------------------------------


def outside_state(folder: Path) -> dict[str, tuple]:
    """Every entry under `folder`: kind, and bytes + mtime for files, target for links."""
    state: dict[str, tuple] = {}
    for path in [folder, *folder.rglob("*")]:
        info = os.lstat(path)
        name = path.relative_to(folder).as_posix()
        if path.is_symlink():
            state[name] = ("link", os.readlink(path))
        elif path.is_dir():
            state[name] = ("dir",)
        else:
            state[name] = ("file", digest(path.read_bytes()), info.st_mtime_ns, info.st_size)
    return state


def store_links(store: Path) -> dict[str, str]:
    return {p.relative_to(store).as_posix(): os.readlink(p) for p in store.rglob("*")
            if p.is_symlink()}


def scenario_links(root: Path, rounds: int, seed: int, tracebacks: Tracebacks) -> Result:
    result = Result("4. Symlinks in the store")
    started = time.time()
    rng = random.Random(seed)
    box = Sandbox(root, "links")
    counts: Counter = Counter()
    notes: list[str] = []
    with box.active():
        for n in range(rounds):
            LinkRound(box, n, rng, counts, notes, tracebacks).run()

    result.add("rounds", counts["rounds"])
    result.add("  MEMORY.md regular / abs / rel / abs dangling / rel dangling", " / ".join(
        str(counts[f"index {k}"]) for k in ("regular", "abs", "rel", "abs-dangling", "rel-dangling")))
    result.add("memtui commands run (dream, extract, restore, merge) / refused",
               f"{counts['commands']} / {counts['commands refused']}")
    result.add("refusals that were not one sentence", counts["refusals not one sentence"], 0)
    result.add("curation writes tried / refused", f"{counts['curation writes']} / "
                                                   f"{counts['curation refusals']}")
    result.add("outside files written or created",
               counts["outside written"] + counts["outside created"], 0)
    result.add("outside files removed", counts["outside removed"], 0)
    result.add("links in the store replaced or removed", counts["links replaced or removed"])
    result.add("commands failing (traceback or odd exit)", counts["commands failing"], 0)
    result.add("memtui temp files left", counts["temp files"], 0)
    result.notes += notes[:10]
    result.seconds = time.time() - started
    return result


class LinkRound:
    """One store with links out of it (a random layout), and every kind of write at it."""

    LINKED = ("note.md", "dated_link.md", "dup_link.md", "gone.md", "alias.md",
              "sub/inside_dir.md", "MEMORY.md")

    def __init__(self, box: Sandbox, n: int, rng: random.Random, counts: Counter,
                 notes: list[str], tracebacks: Tracebacks):
        self.box, self.n, self.rng = box, n, rng
        self.counts, self.notes, self.tracebacks = counts, notes, tracebacks
        self.outside = box.outside / f"round{n}"
        self.project, self.store = box.project_store(f"linkproj{n}")
        self.memtui = memtui_command()

    def build(self) -> Path:
        """The store (with journal versions of its files taken while they were regular),
        the files outside it, the links; returns a transcript to extract."""
        from tui.history.journal import Journal

        store, outside = self.store, self.outside
        (outside / "dir").mkdir(parents=True)
        dreamable_store(store, pairs=2, dated=2, loose=2, plain=2)
        blind_overwrite(self.box.home, self.project, store / "note.md")
        (store / "sub").mkdir()
        (store / "sub" / "inside_dir.md").write_text(memory_text("in dir", "a file", "One."))
        Journal(store).snapshot("regular files", source="external")  # versions to restore
        shutil.rmtree(store / "sub")
        # The outside files say "yesterday" and near-duplicate the store's: a run that
        # followed a link would want to change them.
        targets = {
            "MEMORY.md": "# Memory\n- [dup0_a](dup0_a.md) — deploy rule\n",
            "note.md": MERGE_BASE + B_LINE + "\n",
            "dated_out.md": memory_text("outage", "an outage", "The API failed yesterday."),
            "dup_out.md": memory_text("deploy rule 0", "how deploys work, part 0",
                                      f"{SHARED} (rule 0). Kept outside."),
            "dir/inside_dir.md": memory_text("in dir", "a file in a linked dir",
                                             "We moved offices last week."),
            "lock-target": "precious\n",
        }
        old = time.time() - 5 * 86400
        for name, text in targets.items():
            (outside / name).write_text(text)
            os.utime(outside / name, (old, old))

        self.index_kind = self.rng.choice(["abs", "rel", "abs-dangling", "rel-dangling", "regular"])
        if self.index_kind != "regular":
            self.link("MEMORY.md", "new-index.md" if "dangling" in self.index_kind else "MEMORY.md",
                      self.index_kind.startswith("rel"))
        self.link("note.md", "note.md", self.rng.random() < 0.5)
        self.link("dated_link.md", "dated_out.md", self.rng.random() < 0.5)
        self.link("dup_link.md", "dup_out.md", self.rng.random() < 0.5)
        self.link("gone.md", "gone.md", False)
        self.link("gone_rel.md", "gone_rel.md", True)
        (store / "sub").symlink_to(outside / "dir", target_is_directory=True)
        if self.rng.random() < 0.3:
            (store / ".consolidate-lock").symlink_to(outside / "lock-target")
        (store / "alias.md").symlink_to("plain0.md")  # a link inside the store
        session = Session(self.box.home, self.project, datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
        session.user(f"Never push to main directly because CI deploys round {self.n}.")
        session.user("Always run the linter before committing.")
        return session.save()

    def link(self, name: str, target: str, relative: bool) -> None:
        path = self.store / name
        if path.exists() or path.is_symlink():
            path.unlink()
        destination = self.outside / target
        path.symlink_to(os.path.relpath(destination, path.parent) if relative else destination)

    def cli(self, *argv: str) -> int:
        code, _out, err, _ = run([*self.memtui, *argv], self.box.env)
        if self.tracebacks.scan(f"links: memtui {argv[0]}", err) or code not in (0, 1, 2):
            self.counts["commands failing"] += 1
            self.notes.append(f"round {self.n}: memtui {' '.join(argv[:2])} exited {code}")
        self.counts["commands"] += 1
        if code == 2:  # refused: one sentence, after a run's progress lines at most
            self.counts["commands refused"] += 1
            lines = err.strip().splitlines()
            said = [line for line in lines if line.startswith("memtui: ")]
            chatter = [line for line in lines if not line.startswith(("memtui: ", *PROGRESS))]
            if len(said) != 1 or chatter or not lines[-1].startswith("memtui: "):
                self.counts["refusals not one sentence"] += 1
                self.notes.append(f"round {self.n}: memtui {argv[0]} refused with {err.strip()!r}")
        return code

    def curation(self, what: str, write) -> None:
        """One curation write as the app makes it; a refusal is a string or WriteRefused."""
        from tui.memory.writes import WriteRefused

        self.counts["curation writes"] += 1
        try:
            outcome = write()
        except WriteRefused:
            self.counts["curation refusals"] += 1
            return
        except Exception:
            self.tracebacks.add(f"links: curation {what}")
            return
        if isinstance(outcome, str) or (isinstance(outcome, tuple) and outcome[1] == "error"):
            self.counts["curation refusals"] += 1

    def plan(self, maker):
        from tui.app import curation
        from tui.memory.store import load_store

        made = curation.make_plan(maker, load_store(self.store))
        if isinstance(made, str) or made.empty:
            return made if isinstance(made, str) else "nothing to do"
        return curation.apply_plan(self.store, made)

    def run(self) -> None:
        from tui.app import curation
        from tui.history.journal import Journal
        from tui.history.recovery import apply_journalled
        from tui.memory.writes import FileChange

        transcript = self.build()
        store = self.store
        state, links = outside_state(self.outside), store_links(store)

        self.cli("dream", str(store), "--engine", "offline", "--yes")
        self.cli("extract", transcript.stem, "--engine", "offline", "--yes")
        rev = Journal(store).versions("note.md")[-1].rev
        for file in ("note.md", "MEMORY.md", "sub/inside_dir.md", "dated0.md"):
            self.cli("restore", str(store / file), "--version", rev, "--yes")
        self.cli("merge", str(store / "note.md"), "--yes")
        self.cli("dream", str(store), "--engine", "offline", "--yes")

        self.curation("relink", lambda: self.plan(
            lambda c, s: c.plan_relink(s, list(self.LINKED[:-1]))))
        self.curation("remove dangling", lambda: self.plan(lambda c, s: c.plan_remove_dangling(s)))
        self.curation("shorten", lambda: self.plan(lambda c, s: c.plan_shorten_lines(s)))
        for file in self.LINKED:
            self.curation("archive", lambda f=file: self.plan(lambda c, s: c.plan_archive(s, [f])))
            self.curation("edit", lambda f=file: curation.save_edit(
                store, f, (read_or_none(store / f) or b"").decode(), "edited\n"))
        for file in ("gone.md", "gone_rel.md", "sub/new.md", "sub/inside_dir.md", "MEMORY.md"):
            self.curation("create", lambda f=file: apply_journalled(
                store, [FileChange(f, read_or_none(store / f), b"created\n")], "create"))
        for _ in range(3):
            self.curation("undo", lambda: curation.undo(store))
        self.cli("dream", str(store), "--engine", "offline", "--yes")

        after = outside_state(self.outside)
        written = [k for k in state if k in after and after[k] != state[k]]
        created = [k for k in after if k not in state]
        removed = [k for k in state if k not in after]
        self.counts["outside written"] += len(written)
        self.counts["outside created"] += len(created)
        self.counts["outside removed"] += len(removed)
        if written or created or removed:
            self.notes.append(f"round {self.n} (index {self.index_kind}): outside entries "
                              f"written {written}, created {created}, removed {removed}")
        now_links = store_links(store)
        self.counts["links replaced or removed"] += sum(1 for k, v in links.items()
                                                       if now_links.get(k) != v)
        self.counts["temp files"] += len(temp_files(store))
        self.counts["rounds"] += 1
        self.counts[f"index {self.index_kind}"] += 1


# --- main --------------------------------------------------------------------------------------


def print_results(results: list[Result], tracebacks: Tracebacks, total: float) -> None:
    width = max(len(f.name) for r in results for f in r.figures) + 2
    for res in results:
        print(f"\n{res.title}  ({res.seconds:.0f} s)")
        for figure in res.figures:
            mark = "" if figure.target is None else (
                f"  target {figure.target}: " + ("met" if figure.met else "MISSED"))
            print(f"  {figure.name:<{width}} {figure.value}{mark}")
        for note in res.notes:
            print(f"    note: {note}")
    print(f"\nTracebacks in any process: {len(tracebacks.found)}  target 0: "
          + ("met" if not tracebacks.found else "MISSED"))
    for where, text in tracebacks.found[:5]:
        print(f"  -- {where}\n" + "\n".join("     " + line for line in text.splitlines()[-30:]))
    print(f"Wall time: {total:.0f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description="Torture memtui's safe writes.")
    parser.add_argument("--quick", action="store_true", help="a smaller run (~2 min)")
    parser.add_argument("--races", type=int, help="memtui attempts racing outside writers (1000)")
    parser.add_argument("--kills", type=int, help="SIGKILLs (300)")
    parser.add_argument("--pipelines", type=int, default=2, help="kill pipelines at once (2)")
    parser.add_argument("--rounds", type=int, help="two-process rounds (150)")
    parser.add_argument("--dream-pairs", type=int, help="two dreams at once (6)")
    parser.add_argument("--link-rounds", type=int, help="symlink rounds (12)")
    parser.add_argument("--kill-ops", default=",".join(KILL_OPS),
                        help="operations to kill (apply,undo,restore,merge,dream)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="races,kills,two,links")
    parser.add_argument("--keep", action="store_true", help="keep the temp dirs")
    args = parser.parse_args()
    quick = args.quick
    races = args.races or (120 if quick else 1000)
    kills = args.kills if args.kills is not None else (30 if quick else 300)
    rounds = args.rounds or (30 if quick else 150)
    dream_pairs = args.dream_pairs if args.dream_pairs is not None else (2 if quick else 6)
    link_rounds = args.link_rounds or (3 if quick else 12)
    wanted = set(args.only.split(","))

    with contextlib.suppress(OSError):
        os.nice(10)
    root = Path(tempfile.mkdtemp(prefix="memtui-torture-"))
    tracebacks = Tracebacks()
    results: list[Result] = []
    started = time.time()
    try:
        if "races" in wanted:
            results.append(scenario_races(root, races, args.seed, tracebacks))
        if "kills" in wanted:
            results.append(scenario_kills(root, kills, args.seed, args.pipelines, tracebacks,
                                          tuple(args.kill_ops.split(","))))
        if "two" in wanted:
            results.append(scenario_two(root, rounds, dream_pairs, args.seed, tracebacks))
        if "links" in wanted:
            results.append(scenario_links(root, link_rounds, args.seed, tracebacks))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        kill_children()
        if args.keep:
            print(f"temp dirs kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    print_results(results, tracebacks, time.time() - started)
    return 0 if all(r.met for r in results) and not tracebacks.found else 1


ROLES = {
    "_writer": lambda argv: child_writer(json.loads(argv[0])),
    "_worker": lambda argv: child_worker(json.loads(argv[0])),
    "_killer": lambda argv: child_killer(json.loads(argv[0])),
    "_racer": lambda argv: child_racer(),
    "_zygote": lambda argv: child_zygote(),
    "_cli": child_cli,
}

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ROLES:
        sys.exit(ROLES[sys.argv[1]](sys.argv[2:]))
    sys.exit(main())
