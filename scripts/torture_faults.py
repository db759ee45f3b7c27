#!/usr/bin/env python3
"""Faults a real machine has, injected from outside: a full disk, damaged state, deep folders.

    .venv/bin/python scripts/torture_faults.py            # every case (~10 min on 2 busy cores)
    .venv/bin/python scripts/torture_faults.py --quick    # fewer sizes and moments (~4 min)
    options: --only fsize,errors,in-the-way,read-only,damaged,deep,lock,double,huge --huge-mb 200
             --keep

    # The read-only faults bind only a user other than root, who needs a venv it can read:
    useradd -m tortureuser && /usr/bin/python3 -m venv /home/tortureuser/venv
    /home/tortureuser/venv/bin/pip install -e . && chown -R tortureuser: /home/tortureuser/venv
    su tortureuser -c '/home/tortureuser/venv/bin/python scripts/torture_faults.py --only read-only,double'

Every run is a subprocess of the real `memtui` command (the entry point beside this Python)
in a home of its own: a config home (CLAUDE_CONFIG_DIR), memtui's dirs (MEMTUI_*_DIR, or
the XDG_*_HOME variables when a case is about them) and TMPDIR in a temp dir, removed at the
end. This machine and CI run as root, where a read-only folder does not stop a write, and
no small tmpfs can be mounted; so the faults are made with what works for any user (and,
run as another user, with read-only folders too):

- fsize: RLIMIT_FSIZE (`ulimit -f`, set in the child before exec) at sizes around the size
  the undo log grows to, with SIGXFSZ at its default and ignored (Python ignores it for
  itself either way; git, run by memtui, gets it as set), for `fix delete`, `fix archive`,
  `dream --yes` and `undo`;
- errors: `MEMTUI_FAILPOINT=<point>:<N>:<ERRNO>` (tui/failpoints.py) raises ENOSPC, EROFS
  or EACCES at each moment of a change set (each file memtui writes of its own, after the
  log record, after staging, in each swap, before the commit) and of a dream and an undo;
- in-the-way: a file where memtui needs a folder (XDG_STATE_HOME, XDG_DATA_HOME,
  XDG_CACHE_HOME, TMPDIR, a store's backups and intents folders) and a folder where it
  needs a file (the undo log, the store's lock, the scan cache, the journal), under the
  commands that use them;
- read-only (not as root: root writes into read-only folders): memtui's state, data and
  cache dirs, TMPDIR, the store and the undo log made read-only (`chmod -R a-w`);
- damaged: memtui's own files damaged: the undo log (random bytes after its records, or
  nothing but random bytes), half the journal's git objects deleted, an intent record of
  random bytes, the caches overwritten with random bytes, the sync clone's objects deleted,
  the trim state of random bytes;
- deep: a store holding a folder 1,500 levels deep, under every command that walks one;
- lock: Claude Code's `.consolidate-lock` naming a live PID with an mtime three years ahead,
  and naming a process that started after the lock was written: `dream --yes` must run;
- double: one fault stopping two things: Claude Code wrote A.md since memtui last looked
  (the journal must snapshot it) and a file-size limit (or, not as root, memtui's data dir
  read-only) stops the journal and the write (`fix archive`, `fix delete`); and a dream refused up front (Claude Code's lock held by
  a live process): each says one sentence and nothing else;
- huge: a MEMORY.md of --huge-mb MB (200): `audit` and `fix relink --dry-run`, peak RSS
  (wait4's ru_maxrss), CPU seconds and wall time, against the file's size.

Each store holds A.md, B.md, C.md and notes a dream changes; the home's last change before
the fault is `fix delete C.md` (state S1, which the user saw applied). A write under a
fault must leave S1 (and say so, exit 2, one sentence) or the new state S2 (and say it was
applied); then `memtui undo`, with the fault gone, must take back the change the user last
saw applied. Counted, target 0 each: tracebacks; hangs (no answer in 180 s); half-applied
change sets (a state neither S1 nor S2); lost files (a memory file gone) and torn files
(bytes that are no version of the file); a false "nothing was changed" (exit 2 with the
store changed) or a false "applied" (exit 0 with the store as it was); undo taking back
the wrong change; unclear failures (an exit other than 0/1/2, or a stderr line that is not
one `memtui: ` sentence, or a dream that names an undo when nothing was applied); more
than one sentence for a refusal; copies (archive, backups) kept by a refused change; memtui
temp files or intent records left after the next command; damaged memtui files a command
could not get past (it exited 2). The exit status is 1 when any target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TRACEBACK = "Traceback (most recent call last)"
TIMEOUT = 180.0
STORE_KEY = "-work-faults"  # the store's folder under projects/: a key memtui keeps
DEEP_LEVELS = 1500
_CLEAN_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
              "CLAUDE_CODE_REMOTE_MEMORY_DIR", "CLAUDE_CODE_PROJECT_DIR_NAME",
              "CLAUDE_CODE_DISABLE_AUTO_MEMORY", "MEMTUI_FAILPOINT", "XDG_DATA_HOME",
              "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")
PROGRESS = ("▸ ", "  done in", "  failed in", "  cancelled in", "Dreaming over", "    ")

# What the undo log's damage looks like.
WRITES = {
    "delete": ["fix", "{store}", "delete", "A.md", "B.md", "--yes"],
    "archive": ["fix", "{store}", "archive", "A.md", "B.md", "--yes"],
    "dream": ["dream", "{store}", "--engine", "offline", "--yes"],
    "undo": ["undo", "{store}"],
}
READS = {
    "history": ["history", "{store}/A.md"],
    "undo --list": ["undo", "{store}", "--list"],
    "audit": ["audit", "{store}"],
    "audit --all": ["audit", "--all"],
    "index --loaded": ["index", "{store}", "--loaded"],
    "overwrites": ["overwrites", "{store}"],
    "doctor": ["doctor", "{store}"],
    "projects": ["projects"],
    "sync": ["sync", "{store}", "--remote", "{remote}"],
}


def memtui_command() -> list[str]:
    """The installed `memtui` entry point beside this Python, else `python -m tui`."""
    entry = Path(sys.executable).with_name("memtui")
    return [str(entry)] if entry.exists() else [sys.executable, "-m", "tui"]


def remove(path: Path) -> None:
    """`rm -rf`: Python 3.11's rmtree recurses, and a 1,500-level folder is the point here."""
    subprocess.run(["rm", "-rf", "--", str(path)], check=False)


def copy(source: Path, target: Path) -> None:
    remove(target)
    subprocess.run(["cp", "-a", "--", str(source), str(target)], check=True)


def memory_text(name: str, body: str, kind: str = "project") -> str:
    return f"---\nname: {name}\ndescription: {name} notes\ntype: {kind}\n---\n\n{body}\n"


def store_state(store: Path) -> dict[str, bytes]:
    """Every regular file of the store (its top two levels: the deep folder is left out)."""
    found: dict[str, bytes] = {}
    for folder in (store, *(p for p in store.iterdir() if p.is_dir() and not p.is_symlink())):
        for path in folder.iterdir():
            if path.is_file() and not path.is_symlink() and path.name != ".consolidate-lock":
                found[path.relative_to(store).as_posix()] = path.read_bytes()
    return found


def temp_files(store: Path) -> list[str]:
    return [p.name for p in store.iterdir() if ".memtui-" in p.name]


# --- running memtui --------------------------------------------------------------------------


@dataclass
class Outcome:
    code: int
    out: str
    err: str
    seconds: float
    hung: bool = False
    rss_kb: int = 0
    cpu: float = 0.0


def run(argv: list[str], env: dict[str, str], *, fsize: int | None = None,
        xfsz_default: bool = False, failpoint: str | None = None,
        timeout: float = TIMEOUT) -> Outcome:
    """One memtui command in its own process group; a file-size limit and a failpoint as
    asked. Its peak RSS and CPU time from wait4."""
    env = dict(env)
    if failpoint:
        env["MEMTUI_FAILPOINT"] = failpoint

    def limits() -> None:
        os.setsid()
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL if xfsz_default else signal.SIG_IGN)

    started = time.time()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen([*memtui_command(), *argv], env=env, stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=err, preexec_fn=limits)
        hung = False
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.time() > deadline:
                hung = True
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.02)
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Outcome(process.returncode, out.read().decode(errors="replace"),
                       err.read().decode(errors="replace"), time.time() - started, hung,
                       usage.ru_maxrss, usage.ru_utime + usage.ru_stime)


# --- the figures ----------------------------------------------------------------------------

FIGURES = ("runs", "tracebacks", "hangs", "half-applied change sets", "lost files",
           "torn files", "false 'nothing was changed'", "false 'applied'",
           "undo took back the wrong change", "unclear failures", "more than one sentence",
           "copies kept by a refused change", "temp files or intents left",
           "damaged files not got past")


@dataclass
class Tally:
    title: str
    counts: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)  # how runs ended, for the notes
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def problem(self, figure: str, where: str, detail: str = "") -> None:
        self.counts[figure] += 1
        if len(self.problems) < 40:
            self.problems.append(f"{figure}: {where}{': ' + detail if detail else ''}")

    @property
    def met(self) -> bool:
        return not any(self.counts[name] for name in FIGURES[1:])


def judge_output(tally: Tally, where: str, outcome: Outcome, dream: bool = False) -> None:
    """Tracebacks, hangs and unclear failures of one run."""
    tally.counts["runs"] += 1
    if outcome.hung:
        tally.problem("hangs", where)
        return
    if TRACEBACK in outcome.out or TRACEBACK in outcome.err:
        tally.problem("tracebacks", where, (outcome.err or outcome.out)[-600:])
        return
    if outcome.code not in (0, 1, 2):
        tally.problem("unclear failures", where, f"exit {outcome.code}")
        return
    stray = [line for line in outcome.err.splitlines()
             if line.strip() and not line.startswith(("memtui: ", *PROGRESS))]
    if stray:
        tally.problem("unclear failures", where, f"stderr line {stray[0][:200]!r}")
    sentences = [line for line in outcome.err.splitlines() if line.startswith("memtui: ")]
    if outcome.code == 2 and not sentences:
        tally.problem("unclear failures", where, "exit 2 without a sentence on stderr")
    if outcome.code in (1, 2) and len(sentences) > 1:
        tally.problem("more than one sentence", where, " / ".join(sentences)[:400])
    if dream and outcome.code == 2 and "undo with" in outcome.out:
        tally.problem("unclear failures", where, "a dream that applied nothing names an undo")


def judge_files(tally: Tally, where: str, state: dict[str, bytes],
                versions: list[dict[str, bytes]]) -> None:
    """Lost and torn files: each file of the known states is there with one of its versions."""
    names = {name for version in versions for name in version}
    for name in sorted(names):
        known = [version[name] for version in versions if name in version]
        if name not in state:
            if all(name in version for version in versions):
                tally.problem("lost files", where, name)
        elif state[name] not in known:
            tally.problem("torn files", where, name)


# --- a home ----------------------------------------------------------------------------------


class Home:
    """A config home, memtui's dirs and a temp dir at a fixed path, and a copy of their
    first state (S1) to put back before each run."""

    def __init__(self, root: Path, name: str):
        self.dir = root / name
        self.base = root / f"{name}.base"
        self.home = self.dir / "claude"
        self.store = self.home / "projects" / STORE_KEY / "memory"
        self.remote = self.dir / "remote.git"
        self.places = {"MEMTUI_DATA_DIR": self.dir / "data", "MEMTUI_STATE_DIR": self.dir / "state",
                       "MEMTUI_CACHE_DIR": self.dir / "cache",
                       "MEMTUI_CONFIG_DIR": self.dir / "config"}
        env = {k: v for k, v in os.environ.items() if k not in _CLEAN_ENV}
        env.update({name: str(path) for name, path in self.places.items()})
        env.update({
            "CLAUDE_CONFIG_DIR": str(self.home), "TMPDIR": str(self.dir / "tmp"),
            "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "faults", "GIT_AUTHOR_EMAIL": "faults@memtui.invalid",
            "GIT_COMMITTER_NAME": "faults", "GIT_COMMITTER_EMAIL": "faults@memtui.invalid",
            "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p),
            "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "120",
        })
        self.env = env
        self.states: dict[str, dict[str, bytes]] = {}
        self.copies_before: dict[str, bytes] = {}
        self.after_reset = None  # what each run adds to the base (cp -a of a deep tree is slow)

    def argv(self, words: list[str]) -> list[str]:
        return [word.format(store=self.store, remote=self.remote) for word in words]

    def build(self, tally: Tally) -> None:
        """S0, then `fix delete C.md` (S1), saved as the base; the journal, the log, a
        sync clone and the caches made on the way."""
        remove(self.dir)
        self.store.mkdir(parents=True)
        (self.dir / "tmp").mkdir()
        files = {name: memory_text(name[0], f"{name[0]} body " + "x" * 400)
                 for name in ("A.md", "B.md", "C.md")}
        for n in range(4):
            files[f"note{n}.md"] = memory_text(f"note {n}", f"We moved service {n} yesterday.")
        files["MEMORY.md"] = "".join(f"- [{n[:-3]}]({n}) — {n[:-3]} notes\n"
                                     for n in ("A.md", "B.md", "C.md"))
        for name, text in files.items():
            (self.store / name).write_text(text, encoding="utf-8")
        old = time.time() - 3 * 86400
        for path in self.store.iterdir():
            os.utime(path, (old, old))
        self.states["S0"] = store_state(self.store)
        subprocess.run(["git", "init", "-q", "--bare", str(self.remote)], check=True,
                       env=self.env)
        for words in (["fix", "{store}", "delete", "C.md", "--yes"], ["history", "{store}/A.md"],
                      ["sync", "{store}", "--remote", "{remote}"], ["overwrites", "{store}"],
                      ["audit", "--all"]):
            outcome = run(self.argv(words), self.env)
            judge_output(tally, f"setup: {' '.join(words)}", outcome)
        self.states["S1"] = store_state(self.store)
        copy(self.dir, self.base)

    def reset(self) -> None:
        copy(self.base, self.dir)
        if self.after_reset is not None:
            self.after_reset()
        self.copies_before = self.copies()

    def copies(self) -> dict[str, bytes]:
        """memtui's copies of the store's files: its backups and archive folders, the undo
        log left out (the undo after each run judges it)."""
        data = self.places["MEMTUI_DATA_DIR"]
        found = {}
        for folder in (data / "backups" / STORE_KEY, data / "archive" / STORE_KEY):
            for top, _, names in os.walk(folder):
                for name in names:
                    path = Path(top, name)
                    if name != "log.jsonl" and path.is_file():
                        found[str(path.relative_to(data))] = path.read_bytes()
        return found

    def log_size(self) -> int:
        try:
            return (self.places["MEMTUI_DATA_DIR"] / "backups" / STORE_KEY / "log.jsonl").stat().st_size
        except FileNotFoundError:
            return 0

    def intents(self) -> list[str]:
        folder = self.places["MEMTUI_STATE_DIR"] / "intents" / STORE_KEY
        return [p.name for p in folder.glob("*.json")] if folder.is_dir() else []


@dataclass
class Write:
    """A write command, and the state it leaves without a fault (S2)."""

    name: str
    words: list[str]
    after: dict[str, bytes]
    log_growth: int

    @classmethod
    def measured(cls, home: Home, name: str, tally: Tally) -> Write:
        home.reset()
        before = home.log_size()
        outcome = run(home.argv(WRITES[name]), home.env)
        judge_output(tally, f"control: {name}", outcome, dream=name == "dream")
        after = store_state(home.store)
        if outcome.code != 0 or after == home.states["S1"]:
            tally.problems.append(f"note: the control run of {name} changed nothing "
                                  f"(exit {outcome.code})")
        return cls(name, WRITES[name], after, home.log_size() - before)


def check_write(tally: Tally, home: Home, write: Write, where: str, outcome: Outcome,
                cleanup=None) -> None:
    """The store after a write under a fault, then `memtui undo` with the fault gone."""
    judge_output(tally, where, outcome, dream=write.name == "dream")
    s0, s1, s2 = home.states["S0"], home.states["S1"], write.after
    state = store_state(home.store)
    applied = state == s2
    if applied:
        tally.outcomes["applied"] += 1
        if outcome.code == 2:
            tally.problem("false 'nothing was changed'", where, outcome.err[-300:])
    elif state == s1:
        tally.outcomes["refused, nothing changed"] += 1
        if outcome.code == 0:
            tally.problem("false 'applied'", where, outcome.out[-300:])
        left = sorted(set(home.copies().items()) - set(home.copies_before.items()))
        if left:
            tally.problem("copies kept by a refused change", where,
                          ", ".join(name for name, _ in left))
    else:
        tally.problem("half-applied change sets", where,
                      ", ".join(sorted(n for n in s1.keys() | s2.keys() | state.keys()
                                       if state.get(n) != s1.get(n))))
    judge_files(tally, where, state, [s1, s2])
    if cleanup is not None:
        cleanup()
    follow = run(home.argv(["undo", "{store}"]), home.env)
    judge_output(tally, f"{where}, then undo", follow)
    # The undo takes back what the user last saw applied: this change, or the one before.
    wanted = s0 if write.name == "undo" or not applied else s1
    final = store_state(home.store)
    if final != wanted:
        tally.problem("undo took back the wrong change", where,
                      ", ".join(sorted(n for n in final.keys() | wanted.keys()
                                       if final.get(n) != wanted.get(n))))
    judge_files(tally, f"{where}, then undo", final, [wanted])
    if temp_files(home.store) or home.intents():
        tally.problem("temp files or intents left", where,
                      f"{temp_files(home.store)} {home.intents()}")


def check_read(tally: Tally, home: Home, where: str, outcome: Outcome,
               damaged: bool = False) -> None:
    judge_output(tally, where, outcome)
    state = store_state(home.store)
    if state != home.states["S1"]:
        tally.problem("half-applied change sets", f"{where} (a read changed the store)")
    judge_files(tally, where, state, [home.states["S1"]])
    if damaged and outcome.code == 2:
        tally.problem("damaged files not got past", where, outcome.err[-300:])
    tally.outcomes[f"exit {outcome.code}"] += 1


# --- the cases -------------------------------------------------------------------------------


def case_fsize(root: Path, quick: bool) -> Tally:
    tally = Tally("fsize: RLIMIT_FSIZE around the size the undo log grows to")
    home = Home(root, "fsize")
    home.build(tally)
    steps = 4 if quick else 10
    for name in ("delete", "archive", "dream", "undo"):
        write = Write.measured(home, name, tally)
        home.reset()
        start = home.log_size()
        growth = max(write.log_growth, 1)
        sizes = sorted({max(1, start - 200), start - 1, start + 1, start + growth - 1,
                        start + growth + 1,
                        *(start + growth * k // steps for k in range(1, steps))})
        for size in sizes:
            for default in (False, True):
                home.reset()
                where = f"{name} under ulimit -f {size} B (log {start} -> {start + growth} B), " \
                        f"SIGXFSZ {'default' if default else 'ignored'}"
                outcome = run(home.argv(write.words), home.env, fsize=size, xfsz_default=default)
                check_write(tally, home, write, where, outcome)
    return tally


POINTS = ("apply.logged", "apply.staged", "swap.aside:1", "swap.aside:2", "swap.installed:1",
          "swap.installed:2", "apply.swapped", "apply.before_commit")


def case_errors(root: Path, quick: bool) -> Tally:
    tally = Tally("errors: ENOSPC, EROFS, EACCES at each moment (failpoints)")
    home = Home(root, "errors")
    home.build(tally)
    errnos = ("ENOSPC",) if quick else ("ENOSPC", "EROFS", "EACCES")
    writes_seen = 4 if quick else 9
    for name in ("delete", "dream", "undo"):
        write = Write.measured(home, name, tally)
        moments = [f"io.write:{n}" for n in range(1, writes_seen + 1)]
        if name != "dream" or not quick:
            moments += list(POINTS)
        for moment in moments:
            for error in errnos:
                home.reset()
                point, _, nth = moment.partition(":")
                failpoint = f"{point}:{nth or 1}:{error}"
                outcome = run(home.argv(write.words), home.env, failpoint=failpoint)
                check_write(tally, home, write, f"{name} with {failpoint}", outcome)
    return tally


class Obstacle:
    """A file where memtui needs a folder, or a folder where it needs a file, at `path`;
    what was there before is kept aside and put back by `clear` unless memtui moved the
    obstacle aside itself (and made a new one)."""

    def __init__(self, path: Path, kind: str):
        self.path, self.kind = path, kind
        self.kept = path.with_name(f"{path.name}.kept-by-faults")

    def make(self) -> None:
        remove(self.kept)
        if os.path.lexists(self.path):
            os.rename(self.path, self.kept)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.kind == "file":
            self.path.write_text("a file where a folder should be\n")
        else:
            (self.path / "inside").mkdir(parents=True)

    def clear(self) -> None:
        still = (self.path.is_file() if self.kind == "file"
                 else (self.path / "inside").is_dir())
        if still:
            remove(self.path)
            if os.path.lexists(self.kept):
                os.rename(self.kept, self.path)
        remove(self.kept)


def case_in_the_way(root: Path, quick: bool) -> Tally:
    tally = Tally("in-the-way: a file where a folder should be, a folder where a file should be")
    home = Home(root, "way")
    home.build(tally)
    data, state, cache = (home.places[f"MEMTUI_{k}_DIR"] for k in ("DATA", "STATE", "CACHE"))
    xdg = home.dir / "xdg"
    # (what, where, which kind of thing is in the way, the environment, the commands)
    cases = [
        ("XDG_STATE_HOME a file", xdg / "state", "file",
         {"XDG_STATE_HOME": str(xdg / "state"), "MEMTUI_STATE_DIR": None},
         ["history", "sync", "doctor", "audit", "delete", "dream", "undo"]),
        ("XDG_DATA_HOME a file", xdg / "data", "file",
         {"XDG_DATA_HOME": str(xdg / "data"), "MEMTUI_DATA_DIR": None},
         ["history", "undo --list", "doctor", "delete", "dream"]),
        ("XDG_CACHE_HOME a file", xdg / "cache", "file",
         {"XDG_CACHE_HOME": str(xdg / "cache"), "MEMTUI_CACHE_DIR": None},
         ["projects", "audit --all", "overwrites", "doctor", "delete"]),
        ("TMPDIR a file", home.dir / "tmpfile", "file", {"TMPDIR": str(home.dir / "tmpfile")},
         ["dream", "delete", "doctor"]),
        ("the store's backups folder a file", data / "backups" / STORE_KEY, "file", {},
         ["delete", "undo --list"]),
        ("the store's intents folder a file", state / "intents" / STORE_KEY, "file", {},
         ["delete", "audit"]),
        ("the undo log a folder", data / "backups" / STORE_KEY / "log.jsonl", "folder", {},
         ["delete", "undo --list", "undo"]),
        ("the store lock a folder", state / "locks" / f"{STORE_KEY}.lock", "folder", {},
         ["history", "delete"]),
        ("the journal a file", data / "journal" / STORE_KEY, "file", {},
         ["history", "delete", "overwrites"]),
        ("the scan cache a folder", cache / "transcript-scan.sqlite", "folder", {},
         ["overwrites", "projects"]),
    ]
    if quick:
        cases = [(*case[:4], case[4][:2]) for case in cases]
    writes = {name: Write.measured(home, name, tally) for name in ("delete", "dream", "undo")}
    for label, path, kind, changes, commands in cases:
        obstacle = Obstacle(path, kind)
        env = {k: v for k, v in home.env.items() if changes.get(k, "") is not None}
        env.update({k: v for k, v in changes.items() if v is not None})
        for command in commands:
            home.reset()
            obstacle.make()
            where = f"{command} with {label}"
            if command in writes:
                outcome = run(home.argv(writes[command].words), env)
                check_write(tally, home, writes[command], where, outcome, obstacle.clear)
            else:
                check_read(tally, home, where, run(home.argv(READS[command]), env))
    return tally


ROOT_NOTE = ("note: skipped {case}: read-only permissions do not bind root, so the case "
             "would prove nothing; run this script as another user (see the docstring).")


class ReadOnly:
    """`path` (a file, or a folder and all it holds) made read-only, as a read-only mount or
    a folder of another user is; `clear` gives the owner back write access."""

    def __init__(self, path: Path):
        self.path = path

    def make(self) -> None:
        subprocess.run(["chmod", "-R", "a-w", "--", str(self.path)], check=True)

    def clear(self) -> None:
        subprocess.run(["chmod", "-R", "u+w", "--", str(self.path)], check=True)


def case_read_only(root: Path, quick: bool) -> Tally:
    tally = Tally("read-only: memtui's folders, the temp dir, the store and the log read-only")
    if os.geteuid() == 0:
        tally.problems.append(ROOT_NOTE.format(case="every read-only folder"))
        return tally
    home = Home(root, "read-only")
    home.build(tally)
    data, state, cache = (home.places[f"MEMTUI_{k}_DIR"] for k in ("DATA", "STATE", "CACHE"))
    cases = [
        ("memtui's state dir read-only", state,
         ["history", "sync", "doctor", "delete", "dream", "undo"]),
        ("memtui's data dir read-only", data,
         ["history", "undo --list", "doctor", "delete", "dream", "undo"]),
        ("memtui's cache dir read-only", cache, ["projects", "audit --all", "overwrites", "delete"]),
        ("TMPDIR read-only", home.dir / "tmp", ["dream", "delete", "doctor"]),
        ("the store read-only", home.store, ["audit", "history", "delete", "dream", "undo"]),
        ("the undo log read-only", data / "backups" / STORE_KEY / "log.jsonl",
         ["undo --list", "delete", "undo"]),
    ]
    if quick:
        cases = [(label, path, commands[:3]) for label, path, commands in cases]
    writes = {name: Write.measured(home, name, tally) for name in ("delete", "dream", "undo")}
    for label, path, commands in cases:
        blocked = ReadOnly(path)
        for command in commands:
            home.reset()
            blocked.make()
            where = f"{command} with {label}"
            try:
                if command in writes:
                    outcome = run(home.argv(writes[command].words), home.env)
                    check_write(tally, home, writes[command], where, outcome, blocked.clear)
                else:
                    check_read(tally, home, where, run(home.argv(READS[command]), home.env))
            finally:
                blocked.clear()
    return tally


def _random_bytes(path: Path, size: int, append: bool = False, seed: int = 29) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = random.Random(seed).randbytes(size)
    with open(path, "ab" if append else "wb") as out:
        out.write(data)


def _lose_half_the_objects(journal: Path, env: dict[str, str]) -> None:
    """Unpack the journal's packs and delete every other object, as a bad disk would."""
    git = ["git", "--git-dir", str(journal)]
    packs = sorted((journal / "objects" / "pack").glob("*.pack"))
    for pack in packs:
        data = pack.read_bytes()
        pack.unlink()
        pack.with_suffix(".idx").unlink()
        subprocess.run([*git, "unpack-objects", "-q"], input=data, env=env, check=True)
    loose = sorted(p for p in (journal / "objects").glob("??/*"))
    for path in loose[::2]:
        path.unlink()


def case_damaged(root: Path, quick: bool) -> Tally:
    tally = Tally("damaged: memtui's own files damaged")
    home = Home(root, "damaged")
    home.build(tally)
    data, state, cache = (home.places[f"MEMTUI_{k}_DIR"] for k in ("DATA", "STATE", "CACHE"))
    log = data / "backups" / STORE_KEY / "log.jsonl"
    clone = next((state / "sync").glob("*-*[0-9a-f]"), None)
    cases = [
        ("random bytes after the undo log's records", lambda: _random_bytes(log, 5000, True),
         ["undo --list", "delete", "undo"]),
        ("an undo log of nothing but random bytes", lambda: _random_bytes(log, 5000),
         ["undo --list", "delete"]),
        ("half the journal's objects lost",
         lambda: _lose_half_the_objects(data / "journal" / STORE_KEY, home.env),
         ["doctor", "history", "overwrites", "dream", "delete"]),
        ("an intent record of random bytes",
         lambda: _random_bytes(state / "intents" / STORE_KEY / "20990101T000000-abcdef.json", 300),
         ["audit", "delete"]),
        ("the caches of random bytes", lambda: [
            _random_bytes(path, 4096) for path in (cache / "transcript-scan.sqlite",
                                                   cache / "audits.sqlite")],
         ["projects", "audit --all", "overwrites"]),
        ("the trim state of random bytes",
         lambda: _random_bytes(state / "trim" / f"{STORE_KEY}.json", 200), ["delete"]),
    ]
    if clone is not None:
        cases.append(("the sync clone's objects lost",
                      lambda: _lose_half_the_objects(clone, home.env), ["sync"]))
    else:
        tally.problems.append("note: no sync clone was made; its case did not run")
    if quick:
        cases = [(n, make, commands[:2]) for n, make, commands in cases]
    writes = {name: Write.measured(home, name, tally) for name in ("delete", "dream", "undo")}
    for label, make, commands in cases:
        for command in commands:
            home.reset()
            make()
            where = f"{command} with {label}"
            if command in writes:
                write = writes[command]
                outcome = run(home.argv(write.words), home.env)
                check_write(tally, home, write, where, outcome)
                if outcome.code == 2:
                    tally.problem("damaged files not got past", where, outcome.err[-300:])
            else:
                check_read(tally, home, where, run(home.argv(READS[command]), home.env),
                           damaged=True)
    return tally


def _deep_folder(store: Path) -> None:
    """A folder DEEP_LEVELS levels down, made level by level (os.makedirs recurses)."""
    folder = os.open(store, os.O_RDONLY)
    try:
        for _ in range(DEEP_LEVELS):
            os.mkdir("d", dir_fd=folder)
            inner = os.open("d", os.O_RDONLY, dir_fd=folder)
            os.close(folder)
            folder = inner
        with open(os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder), "w") as out:
            out.write(memory_text("deep", "far down"))
    finally:
        os.close(folder)


def case_deep(root: Path, quick: bool) -> Tally:
    tally = Tally(f"deep: a folder {DEEP_LEVELS} levels deep in the store")
    home = Home(root, "deep")
    home.build(tally)
    home.after_reset = lambda: _deep_folder(home.store)  # every run has it
    reads = ["index --loaded", "overwrites", "audit", "doctor", "history", "projects",
             "undo --list", "audit --all"]
    if quick:
        reads = reads[:4]
    for command in reads:
        home.reset()
        check_read(tally, home, f"{command} with a deep folder",
                   run(home.argv(READS[command]), home.env))
    for name in ("delete", "dream"):
        write = Write.measured(home, name, tally)
        home.reset()
        where = f"{name} with a deep folder"
        outcome = run(home.argv(write.words), home.env)
        check_write(tally, home, write, where, outcome)
        if outcome.code != 0:
            tally.problem("unclear failures", where, f"exit {outcome.code}: "
                          f"{(outcome.err or outcome.out)[-300:]}")
    return tally


def _sleeper() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])


def case_lock(root: Path, quick: bool) -> Tally:
    tally = Tally("lock: Claude Code's lock naming a live PID that cannot be holding it")
    home = Home(root, "lock")
    home.build(tally)
    dream = Write.measured(home, "dream", tally)
    lock = home.store / ".consolidate-lock"
    later = _sleeper()
    try:
        time.sleep(0.5)
        cases = [("a live PID with an mtime three years ahead", "1",
                  time.time() + 3 * 365 * 86400),
                 ("a PID whose process started after the lock was written", str(later.pid),
                  time.time() - 20 * 60)]
        for label, body, mtime in cases:
            home.reset()
            lock.write_text(body)
            os.utime(lock, (mtime, mtime))
            outcome = run(home.argv(dream.words), home.env)
            where = f"dream with {label}"
            check_write(tally, home, dream, where, outcome)
            tally.outcomes[f"{label}: exit {outcome.code}"] += 1
            if outcome.code != 0:
                tally.problem("unclear failures", where, f"the dream did not run: "
                              f"{(outcome.err or outcome.out)[-300:]}")
    finally:
        later.kill()
        later.wait()
    return tally


def case_double(root: Path, quick: bool) -> Tally:
    """Two faults of one cause, and a run refused before it starts: one sentence each."""
    tally = Tally("double: a memory Claude Code wrote since memtui looked, then a write memtui "
                  "cannot make; a dream refused up front")
    home = Home(root, "double")
    home.build(tally)
    start = home.log_size()
    # Not below 300 B: the limit caps the files the output is caught in too.
    sizes = [300, 2000, start + 200] if quick else [300, 1000, 2000, start + 1, start + 200,
                                                    start + 1000]
    faults: list[tuple[str, int | None, ReadOnly | None]] = [
        (f"under ulimit -f {size} B", size, None) for size in sizes]
    if os.geteuid() == 0:
        tally.problems.append(ROOT_NOTE.format(case="memtui's data dir read-only"))
    else:
        faults.append(("with memtui's data dir read-only", None,
                       ReadOnly(home.places["MEMTUI_DATA_DIR"])))
    for name in ("archive", "delete"):
        for fault, size, blocked in faults:
            home.reset()
            a_file = home.store / "A.md"
            a_file.write_text(memory_text("A", "A body rewritten by a session"), encoding="utf-8")
            before = store_state(home.store)
            where = f"{name} {fault} after Claude Code wrote A.md"
            if blocked:
                blocked.make()
            try:
                outcome = run(home.argv(WRITES[name]), home.env, fsize=size)
            finally:
                if blocked:
                    blocked.clear()
            judge_output(tally, where, outcome)
            sentences = sum(line.startswith("memtui: ") for line in outcome.err.splitlines())
            tally.outcomes[f"{name} {fault}: exit {outcome.code}, {sentences} sentence(s)"] += 1
            if outcome.code == 2:
                if store_state(home.store) != before:
                    tally.problem("false 'nothing was changed'", where, outcome.err[-300:])
                left = sorted(set(home.copies().items()) - set(home.copies_before.items()))
                if left:
                    tally.problem("copies kept by a refused change", where,
                                  ", ".join(name for name, _ in left))
            elif outcome.code == 0 and store_state(home.store) == before:
                tally.problem("false 'applied'", where, outcome.out[-300:])
    holder = _sleeper()
    try:
        home.reset()
        lock = home.store / ".consolidate-lock"
        lock.write_text(str(holder.pid))
        where = "dream --yes with Claude Code's lock held by a live process"
        outcome = run(home.argv(WRITES["dream"]), home.env)
        judge_output(tally, where, outcome, dream=True)
        said = [line for line in (outcome.out + outcome.err).splitlines() if line.strip()]
        tally.outcomes[f"dream refused up front: exit {outcome.code}, {len(said)} line(s)"] += 1
        if outcome.code != 2 or len(said) != 1:
            tally.problem("more than one sentence", where, " / ".join(said)[:400])
        if store_state(home.store) != home.states["S1"]:
            tally.problem("false 'nothing was changed'", where)
    finally:
        holder.kill()
        holder.wait()
    return tally


HUGE_SHAPES = {  # a line of each kind of huge index
    "links to missing files": "- [Note {n}](note_{m}.md) — what we learned about service {k}, "
                              "kept short\n",
    "the same entries again and again": "- [Note {n}]({abc}.md) — what we learned about "
                                        "service {k}, kept short\n",
}


def case_huge(root: Path, megabytes: int) -> Tally:
    tally = Tally(f"huge: a MEMORY.md of {megabytes} MB")
    home = Home(root, "huge")
    home.build(tally)
    baseline = run(["--version"], home.env)
    for shape, template in HUGE_SHAPES.items():
        home.reset()
        index = home.store / "MEMORY.md"
        with open(index, "w", encoding="utf-8") as out:
            written = line = 0
            while written < megabytes << 20:
                text = template.format(n=line, m=line % 5000, k=line % 977, abc="ABC"[line % 3])
                out.write(text)
                written += len(text.encode())
                line += 1
        size = index.stat().st_size
        for label, words in (("audit", ["audit", "{store}"]),
                             ("relink --dry-run", ["fix", "{store}", "relink", "--dry-run"])):
            outcome = run(home.argv(words), home.env, timeout=1800)
            judge_output(tally, f"{label} ({shape})", outcome)
            peak = outcome.rss_kb * 1024
            tally.problems.append(
                f"note: {label}, {shape}: peak RSS {peak / 2**20:.0f} MB = {peak / size:.2f}x "
                f"the {size / 2**20:.0f} MB file (memtui --version: "
                f"{baseline.rss_kb / 1024:.0f} MB); CPU {outcome.cpu:.1f} s, wall "
                f"{outcome.seconds:.1f} s (--version: {baseline.cpu:.2f} s CPU); "
                f"exit {outcome.code}")
            if peak > 3 * size:
                tally.problem("unclear failures", f"{label} ({shape})",
                              f"peak RSS {peak / size:.2f}x the file (target: within 3x)")
    return tally


# --- the report ------------------------------------------------------------------------------


def print_report(tallies: list[Tally], total: float) -> None:
    width = max(len(name) for name in FIGURES) + 2
    for tally in tallies:
        print(f"\n{tally.title}  ({tally.seconds:.0f} s)")
        for name in FIGURES:
            value = tally.counts[name]
            mark = "" if name == "runs" else ("  target 0: " + ("met" if not value else "MISSED"))
            print(f"  {name:<{width}} {value}{mark}")
        if tally.outcomes:
            print("  outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.outcomes.items())))
        for problem in tally.problems[:25]:
            print(f"    {problem}")
    runs = sum(t.counts["runs"] for t in tallies)
    print(f"\nAll cases: {runs} memtui runs; " + ", ".join(
        f"{name} {sum(t.counts[name] for t in tallies)}" for name in FIGURES[1:]))
    print(f"Wall time: {total:.0f} s")


CASES = {"fsize": case_fsize, "errors": case_errors, "in-the-way": case_in_the_way,
         "read-only": case_read_only, "damaged": case_damaged, "deep": case_deep,
         "lock": case_lock, "double": case_double}


def main() -> int:
    parser = argparse.ArgumentParser(description="Inject the faults a real machine has into "
                                                 "memtui, from outside.")
    parser.add_argument("--quick", action="store_true", help="fewer sizes and moments")
    parser.add_argument("--only", default=",".join([*CASES, "huge"]),
                        help=f"cases to run ({','.join([*CASES, 'huge'])})")
    parser.add_argument("--huge-mb", type=int, default=200, help="the huge index's size (200)")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    args = parser.parse_args()
    wanted = args.only.split(",")
    with contextlib.suppress(OSError):
        os.nice(10)
    root = Path(tempfile.mkdtemp(prefix="memtui-faults-"))
    tallies: list[Tally] = []
    started = time.time()
    try:
        for name in wanted:
            began = time.time()
            if name == "huge":
                tally = case_huge(root, args.huge_mb)
            else:
                tally = CASES[name](root, args.quick)
            tally.seconds = time.time() - began
            tallies.append(tally)
            print(f"{name}: {tally.counts['runs']} runs, {tally.seconds:.0f} s", file=sys.stderr)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        if args.keep:
            print(f"temp dir kept: {root}", file=sys.stderr)
        else:
            remove(root)
    print_report(tallies, time.time() - started)
    return 0 if all(t.met for t in tallies) else 1


if __name__ == "__main__":
    sys.exit(main())
