"""`memtui sync` under concurrency and on a user's first real day, measured from outside.

    python scripts/torture_sync.py [--machines 3] [--rounds 10] [--only rounds,first-contact,...]

Every scenario runs `memtui` as processes of their own, each machine in a fresh temp home
(Claude Code config home, memtui dirs, HOME), against a local bare remote:

- rounds: every round, each machine writes a memory of its own, adds its line to MEMORY.md
  and appends a line to a memory all of them share; then all machines sync at the same
  moment. At the end every machine syncs until nothing moves. Counted: what was written
  anywhere and is missing anywhere, conflicts (the shared memory is appended to at the
  same place by all: a conflict keeps both texts, and its lines must survive it).
- kills: the same rounds with one machine's sync SIGKILLed at a random moment each round.
  Counted: what is missing anywhere after the survivors' final syncs, and memtui's temp
  files still in a store then.
- first-contact: two machines each built with `memtui demo` (the same memories, saved in
  their own sessions: other session ids and times), their checkouts given one origin, a
  few memories then edited differently on each; each syncs twice. Counted: conflicts,
  files whose frontmatter Claude Code can no longer read (`memtui audit --json`), markers
  above a frontmatter's end, body lines lost, machines identical.
- hostile: every kind of entry no store can hold (tests/hostile_remotes.py, built with
  `hash-object`, raw trees and `commit-tree`) pushed into one store's folder; two machines
  with that store and a second one keep writing and syncing. Counted: failed runs, stores
  skipped, entries reported, clones put aside, files written outside the stores.
- secrets: a token as a file name, as a folder name, and in a memory's text in UTF-8 with
  a BOM, UTF-16 and UTF-32 (both byte orders) and BOM-less UTF-16. Counted: remote objects
  holding the token in any encoding, output printing it.
- delete-edit: rounds where one machine deletes a memory (and its index line) while
  another edits it, both syncing at the same moment. Counted: lost edits, orphans.
- black-hole: `memtui sync` against ssh://, git:// and http:// on a local port that
  accepts and never answers (no network needed). Counted: seconds, exit codes, stderr
  lines, processes left behind.
- second-lines: two machines in sync, each adding a second index line for a memory that
  already has one (a different memory on each, then the same one), synced 2, 1, 2 every
  round. Counted: added lines missing anywhere at the end, conflicts reported.
- outside-writer: a writer appending index lines (second entries for memories already
  indexed) to one machine's MEMORY.md every few tens of milliseconds, while both machines
  add lines of their own and sync at the same moment. Counted: writer lines and each
  machine's lines missing anywhere at the end, failed runs.

Exit 1 when anything was lost, leaked, left running, or a run crashed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import hostile_remotes  # noqa: E402

SHARED = "shared_notes.md"
SCENARIOS = ("rounds", "kills", "first-contact", "hostile", "secrets", "delete-edit",
             "black-hole", "second-lines", "outside-writer")
MARKERS = ("<<<<<<< ", "=======\n", ">>>>>>> ")


class Machine:
    def __init__(self, base: Path, name: str, remote: Path, claude: Path | None = None):
        self.name = name
        self.root = base / name
        self.root.mkdir(parents=True, exist_ok=True)
        self.claude = claude or self.root / "claude"
        self.store = self.claude / "projects" / f"-{name}-app" / "memory"
        self.notes = self.claude / "projects" / f"-{name}-notes" / "memory"  # a second store
        self.remote = remote
        self.marker = uuid.uuid4().hex  # in the environment of all it runs

    def env(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("CLAUDE_", "MEMTUI_", "XDG_", "GIT_SSH"))}
        env.update(CLAUDE_CONFIG_DIR=str(self.claude), HOME=str(self.root / "home"),
                   XDG_STATE_HOME=str(self.root / "state"), XDG_CACHE_HOME=str(self.root / "cache"),
                   XDG_CONFIG_HOME=str(self.root / "config"), XDG_DATA_HOME=str(self.root / "data"),
                   PYTHONPATH=str(ROOT), MEMTUI_TORTURE=self.marker)
        return env

    def start(self, *argv: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "tui", *argv], env=self.env(),
                                cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)

    def run(self, failures: list[str], label: str, *argv: str) -> str:
        return finished(self.start(*argv), failures, f"{self.name} {label}")

    def write_round(self, number: int) -> tuple[str, str, str]:
        """This round's memory, index line and shared line."""
        file = f"note_{self.name}_{number}.md"
        (self.store / file).write_text(
            f"---\nname: {self.name} round {number}\ndescription: what {self.name} learnt in "
            f"round {number}\ntype: project\n---\n{self.name} learnt something in round "
            f"{number}.\n")
        index_line = f"- [{self.name} round {number}]({file}) — round {number} on {self.name}"
        add_line(self.store / "MEMORY.md", index_line)
        shared_line = f"- {self.name} noted round {number}"
        shared = self.store / SHARED
        body = shared.read_text() if shared.exists() else (
            "---\nname: shared notes\ndescription: what every machine noted\ntype: project\n---\n")
        shared.write_text(body + ("" if body.endswith("\n") else "\n") + shared_line + "\n")
        return file, index_line, shared_line


def add_line(index: Path, line: str) -> None:
    text = index.read_text() if index.exists() else ""
    index.write_text(text + ("" if not text or text.endswith("\n") else "\n") + line + "\n")


def finished(process: subprocess.Popen, failures: list[str], label: str) -> str:
    out, err = process.communicate(timeout=300)
    if "Traceback" in out + err:
        failures.append(f"{label}: traceback: {err.strip().splitlines()[-1]}")
    elif process.returncode != 0:
        failures.append(f"{label}: exit {process.returncode}: {err.strip()}")
    return out


def new_remote(base: Path) -> Path:
    remote = base / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(remote)],
                   check=True)
    return remote


def synced_alike(machines: list[Machine], failures: list[str], times: int = 2) -> None:
    for _ in range(times):  # until nothing moves: each machine in turn
        for machine in machines:
            machine.run(failures, "final", "sync", "--all")


def markers_above_frontmatter(text: str) -> bool:
    """A marker line before the end of the frontmatter block (or of the first 30 lines)."""
    lines = text.split("\n")
    if lines and lines[0].lstrip("\ufeff").rstrip() == "---":
        end = next((n for n in range(1, min(len(lines), 30)) if lines[n].startswith("---")), 0)
    else:
        end = 1  # no frontmatter: a marker on the first line is where one would be
    return any(line.startswith(MARKERS) for line in lines[:end])


# --- the scenarios -------------------------------------------------------------------------

def named_machines(base: Path, prefix: str, count: int, remote: Path,
                   failures: list[str]) -> list[Machine]:
    """Machines whose store is named `app`, the remote remembered: set up one at a time."""
    machines = [Machine(base, f"{prefix}{n}", remote) for n in range(1, count + 1)]
    for machine in machines:
        machine.store.mkdir(parents=True)
        machine.run(failures, "first sync", "sync", "--name", "app", "--remote", str(remote),
                    str(machine.store))
    return machines


def missing_anywhere(machines: list[Machine], written: list[tuple[str, str, str]]) -> list[str]:
    """Of each round's memory, index line and shared line, what a machine lacks."""
    missing = []
    for machine in machines:
        index = (machine.store / "MEMORY.md").read_text().splitlines()
        shared = (machine.store / SHARED).read_text().splitlines()
        for file, index_line, shared_line in written:
            if not (machine.store / file).is_file():
                missing.append(f"{machine.name} lacks {file}")
            if index_line not in index:
                missing.append(f"{machine.name}'s MEMORY.md lacks {index_line!r}")
            if shared_line not in shared:
                missing.append(f"{machine.name}'s {SHARED} lacks {shared_line!r}")
    return missing


def rounds(base: Path, machines_wanted: int, rounds_wanted: int) -> tuple[str, list[str]]:
    remote = new_remote(base)
    failures: list[str] = []
    machines = named_machines(base, "m", machines_wanted, remote, failures)
    written: list[tuple[str, str, str]] = []
    conflicts = 0
    for number in range(1, rounds_wanted + 1):
        written += [machine.write_round(number) for machine in machines]
        runs = [(machine, machine.start("sync", "--all", "--json")) for machine in machines]
        for machine, process in runs:
            out = finished(process, failures, f"{machine.name} round {number}")
            conflicts += out.count('"conflicts": [\n')  # a non-empty list opens a line
    synced_alike(machines, failures, 3)
    missing = missing_anywhere(machines, written)
    same = len({(m.store / SHARED).read_bytes() for m in machines}) == 1 and len(
        {(m.store / "MEMORY.md").read_bytes() for m in machines}) == 1
    syncs = machines_wanted * (rounds_wanted + 4)
    if not same:
        missing.append("machines DIFFERENT at the end")
    return (f"{machines_wanted} machines x {rounds_wanted} rounds ({syncs} sync runs): "
            f"{len(written)} memories and as many index and shared lines written; "
            f"{len(missing)} missing anywhere; {len(failures)} failed runs; rounds with a "
            f"conflict reported: {conflicts}; machines {'identical' if same else 'DIFFERENT'}",
            failures + missing)


def kills(base: Path, machines_wanted: int, rounds_wanted: int) -> tuple[str, list[str]]:
    """Rounds of writes where one machine's sync is SIGKILLed at a random moment each time;
    the journalled write and the next sync must lose nothing."""
    remote = new_remote(base)
    failures: list[str] = []
    machines = named_machines(base, "k", max(2, machines_wanted), remote, failures)
    written: list[tuple[str, str, str]] = []
    killed = 0
    for number in range(1, rounds_wanted + 1):
        written += [machine.write_round(number) for machine in machines]
        runs = [(machine, machine.start("sync", "--all")) for machine in machines]
        victim = runs[number % len(runs)][1]
        time.sleep(random.uniform(0.05, 1.5))
        if victim.poll() is None:
            victim.kill()
            killed += 1
        for machine, process in runs:
            if process is victim:
                process.communicate()
            else:
                finished(process, failures, f"{machine.name} round {number}")
    synced_alike(machines, failures, 3)
    lost = missing_anywhere(machines, written)
    # What a killed memtui left in a store, after the survivors' `sync --all` runs.
    left = [f"{m.name}: {path.name}" for m in machines for path in m.store.rglob(".*")
            if ".memtui-" in path.name]
    return (f"{len(machines)} machines x {rounds_wanted} rounds, {killed} syncs SIGKILLed "
            f"mid-run: {len(written)} memories written; {len(lost)} lost anywhere at the end; "
            f"memtui files left in a store: {len(left)}; {len(failures)} failed runs after",
            failures + lost + [f"left {item}" for item in left])


def _audit_kinds(machine: Machine, checkout: Path) -> dict[str, int]:
    out = machine.run([], "audit", "audit", str(checkout), "--json")
    counts: dict[str, int] = {}
    for finding in json.loads(out)["findings"]:
        counts[finding["kind"]] = counts.get(finding["kind"], 0) + 1
    return counts


def first_contact(base: Path, *_: int) -> tuple[str, list[str]]:
    remote = new_remote(base)
    failures: list[str] = []
    machines = []
    for name in ("laptop", "desktop"):
        machine = Machine(base, name, remote, base / name / "demo" / "claude")
        machine.run(failures, "demo", "demo", "--no-open", str(base / name / "demo"))
        code = base / name / "demo" / "code"
        for repo, origin in (("webapp", "git@github.com:ana/webapp.git"),
                             ("cli-tool", "https://github.com/ana/cli-tool")):
            subprocess.run(["git", "-C", str(code / repo), "remote", "add", "origin", origin],
                           check=True, capture_output=True)
        machine.store = next(machine.claude.glob("projects/*-code-webapp/memory"))
        machine.run(failures, "machine name", "sync", "--machine", name)
        machines.append(machine)
    checkouts = {m.name: base / m.name / "demo" / "code" / "webapp" for m in machines}
    # The same memory said differently on each machine, in a few files.
    edited = sorted(p.name for p in machines[0].store.glob("feedback_*.md"))[:5]
    for machine in machines:
        for file in edited:
            path = machine.store / file
            path.write_text(path.read_text() + f"\nOn {machine.name}, also this.\n")
    before = {m.name: _audit_kinds(m, checkouts[m.name]) for m in machines}
    lines = {m.name: {p.name: set(p.read_text().split("\n")) for p in m.store.glob("*.md")}
             for m in machines}
    started = time.monotonic()
    outputs = [m.run(failures, "first sync", "sync", "--all", "--json", "--remote", str(remote))
               for m in machines]
    outputs += [m.run(failures, "second sync", "sync", "--all", "--json") for m in machines]
    seconds = time.monotonic() - started
    conflicts = sorted({file for out in outputs if out for project in json.loads(out)["projects"]
                        for file in project["conflicts"]})
    after = {m.name: _audit_kinds(m, checkouts[m.name]) for m in machines}
    problems = []
    for machine in machines:
        for kind in ("missing_frontmatter", "bad_frontmatter", "unindexed"):
            if after[machine.name].get(kind, 0) > before[machine.name].get(kind, 0):
                problems.append(f"{machine.name}: {kind} {before[machine.name].get(kind, 0)} "
                                f"-> {after[machine.name][kind]}")
        for path in machine.store.glob("*.md"):
            if markers_above_frontmatter(path.read_text()):
                problems.append(f"{machine.name}: markers above the frontmatter of {path.name}")
    lost = 0
    for origin in machines:
        for file, file_lines in lines[origin.name].items():
            for machine in machines:
                now = set((machine.store / file).read_text().split("\n")) \
                    if (machine.store / file).exists() else set()
                body = {line for line in file_lines if line.strip() and not line.startswith(
                    ("  originSessionId:", "  modified:"))}
                lost += len(body - now)
    if lost:
        problems.append(f"{lost} body lines lost")
    same = all((machines[0].store / p.name).read_bytes() == p.read_bytes()
               for p in machines[1].store.glob("*.md"))
    if not same:
        problems.append("machines DIFFERENT at the end")
    files = len(lines["laptop"])
    kinds = ", ".join(f"{kind} {before['laptop'].get(kind, 0)} -> {after['laptop'].get(kind, 0)}"
                      for kind in ("missing_frontmatter", "bad_frontmatter"))
    return (f"2 demo machines, {files} memories each ({len(edited)} edited differently), "
            f"4 sync runs in {seconds:.1f} s: {len(conflicts)} conflict(s) "
            f"({', '.join(conflicts) or 'none'}); laptop {kinds}; markers above a "
            f"frontmatter: {sum('markers above' in p for p in problems)}; body lines lost: "
            f"{lost}; machines {'identical' if same else 'DIFFERENT'}",
            failures + problems)


def _two_stores(base: Path, remote: Path) -> list[Machine]:
    machines = []
    for name in ("a", "b"):
        machine = Machine(base, name, remote)
        for store, identity in ((machine.store, "app"), (machine.notes, "notes")):
            store.mkdir(parents=True)
            machine.run([], "name", "sync", "--name", identity, str(store))
        machines.append(machine)
    return machines


def hostile(base: Path, _machines: int, rounds_wanted: int) -> tuple[str, list[str]]:
    remote = new_remote(base)
    failures: list[str] = []
    a, b = _two_stores(base, remote)
    (a.store / "MEMORY.md").write_text("# Memory\n")
    a.run(failures, "first", "sync", "--all", "--remote", str(remote))
    b.run(failures, "first", "sync", "--all", "--remote", str(remote))
    kinds = hostile_remotes.hostile_entries(remote)
    hostile_remotes.push_entries(remote, "app/memory", [entry for entries, _, _ in kinds.values()
                                                         for entry in entries])
    skipped = reported = 0
    written = []
    started = time.monotonic()
    for number in range(rounds_wanted):
        for machine in (a, b):
            for store in (machine.store, machine.notes):
                file = f"{machine.name}_{store.parent.name}_{number}.md"
                (store / file).write_text(f"---\nname: {file}\ndescription: d\n---\nround "
                                          f"{number}\n")
                written.append((store.parent.name.rsplit("-", 1)[-1], file))
            out = machine.run(failures, f"round {number}", "sync", "--all", "--json")
            for project in json.loads(out)["projects"] if out else []:
                skipped += project["skipped"] is not None
                reported += sum(item["reason"].startswith("not pulled") for item in
                                project["blocked"])
    synced_alike([a, b], failures)
    seconds = time.monotonic() - started
    missing = [f"{m.name} lacks {file}" for m in (a, b) for store_name, file in written
               if not ((m.store if store_name == "app" else m.notes) / file).is_file()]
    broken = [p for m in (a, b) for p in (m.root / "state").rglob("*.broken-*")]
    outside = [p for m in (a, b) for p in m.root.rglob("*")
               if p.name in ("escape.md", "config.md", "passwd.md", "module.md")]
    problems = missing + [f"{len(broken)} clones put aside"] * bool(broken) + \
        [f"written outside a store: {p}" for p in outside]
    if skipped:
        problems.append(f"{skipped} store syncs skipped")
    runs = rounds_wanted * 2 + 4
    return (f"{len(kinds)} kinds of hostile entry in one store's folder, 2 machines x 2 stores, "
            f"{runs} sync runs in {seconds:.1f} s: {len(failures)} failed runs; stores skipped: "
            f"{skipped}; entries reported as left alone: {reported} ({len(kinds)} kinds x "
            f"{rounds_wanted * 2} runs); files missing: {len(missing)}; clones put aside: {len(broken)}; "
            f"files written outside a store: {len(outside)}", failures + problems)


def secrets(base: Path, *_: int) -> tuple[str, list[str]]:
    remote = new_remote(base)
    failures: list[str] = []
    machine = Machine(base, "s", remote)
    machine.store.mkdir(parents=True)
    machine.run(failures, "name", "sync", "--name", "app", str(machine.store))
    token = hostile_remotes.TOKEN
    (machine.store / f"{token}.md").write_text("---\nname: t\ndescription: d\n---\nx\n")
    (machine.store / token).mkdir()
    (machine.store / token / "inside.md").write_text("---\nname: t\ndescription: d\n---\nx\n")
    texts = hostile_remotes.secret_texts()
    for encoding, data in texts.items():
        (machine.store / f"ci-{encoding}.md").write_bytes(data)
    (machine.store / "clean.md").write_text("---\nname: clean\ndescription: d\n---\nx\n")
    out = machine.run(failures, "sync", "sync", "--all", "--json", "--remote", str(remote))
    shown = machine.run(failures, "sync again", "sync", "--all")
    [project] = json.loads(out)["projects"] if out else [{"blocked": [], "pushed": []}]
    leaked = sum(map(hostile_remotes.holds_token, hostile_remotes.remote_objects(remote)))
    printed = token in out + shown
    problems = [f"token on the remote ({leaked})"] * bool(leaked) + ["token printed"] * printed
    if project["pushed"] != ["clean.md"]:
        problems.append(f"pushed {project['pushed']}")
    return (f"a token in 2 names and in {len(texts)} encodings: blocked {len(project['blocked'])}"
            f", pushed {project['pushed']}; remote objects holding the token: {leaked}; "
            f"printed: {'yes' if printed else 'no'}", failures + problems)


def delete_edit(base: Path, _machines: int, rounds_wanted: int) -> tuple[str, list[str]]:
    remote = new_remote(base)
    failures: list[str] = []
    a, b = (Machine(base, name, remote) for name in ("del", "edit"))
    for machine in (a, b):
        machine.store.mkdir(parents=True)
        machine.run(failures, "name", "sync", "--name", "app", "--remote", str(remote),
                    str(machine.store))
    contested = []
    for number in range(rounds_wanted):
        file = f"contested_{number}.md"
        (a.store / file).write_text(f"---\nname: c{number}\ndescription: d\n---\nfirst\n")
        add_line(a.store / "MEMORY.md", f"- [C {number}]({file}) — contested")
        a.run(failures, "create", "sync", "--all")
        b.run(failures, "pull", "sync", "--all")
        (a.store / file).unlink()
        index = a.store / "MEMORY.md"
        index.write_text("".join(line for line in index.read_text().splitlines(keepends=True)
                                 if f"({file})" not in line))
        with (b.store / file).open("a") as handle:
            handle.write(f"edited on {b.name} in round {number}\n")
        for process in [machine.start("sync", "--all") for machine in (a, b)]:
            finished(process, failures, f"round {number}")
        contested.append((file, f"edited on {b.name} in round {number}"))
    synced_alike([a, b], failures)
    lost = [f"{m.name}: {file}" for m in (a, b) for file, line in contested
            if not (m.store / file).exists() or line not in (m.store / file).read_text()]
    orphans = [f"{m.name}: {file}" for m in (a, b) for file, _ in contested
               if f"({file})" not in (m.store / "MEMORY.md").read_text()]
    return (f"{rounds_wanted} rounds of delete-here/edit-there synced at the same moment: "
            f"edits lost {len(lost)}, orphans {len(orphans)}, failed runs {len(failures)}",
            failures + [f"lost {item}" for item in lost] + [f"orphan {item}" for item in orphans])


def black_hole(base: Path, *_: int) -> tuple[str, list[str]]:
    machine = Machine(base, "bh", base / "unused")
    machine.store.mkdir(parents=True)
    (machine.store / "x.md").write_text("---\nname: x\ndescription: d\n---\nx\n")
    problems: list[str] = []
    figures = []
    with hostile_remotes.BlackHole() as hole:
        for scheme, url in hole.urls().items():
            started = time.monotonic()
            process = machine.start("sync", str(machine.store), "--name", "app", "--remote", url)
            try:
                out, err = process.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()  # memtui itself, as a hook's timeout would: not its children
                out, err = process.communicate()
            seconds = time.monotonic() - started
            time.sleep(0.5)
            left = hostile_remotes.processes_with(machine.marker)
            figures.append(f"{scheme} {seconds:.1f} s exit {process.returncode}, "
                           f"{err.count(chr(10))} line(s), {len(left)} process(es) left")
            if seconds >= 30 or process.returncode != 1 or err.count("\n") != 1 or left:
                problems.append(f"{scheme}: {seconds:.1f} s, exit {process.returncode}, "
                                f"{err.strip()!r}, left {left}")
    return "a remote that never answers: " + "; ".join(figures), problems


def indexed_pair(base: Path, prefix: str, remote: Path, failures: list[str],
                 memories: int = 8) -> tuple[list[Machine], list[str]]:
    """Two machines in sync, holding `memories` memories, each with its index line."""
    machines = named_machines(base, prefix, 2, remote, failures)
    first = machines[0]
    files = [f"topic_{n}.md" for n in range(memories)]
    for number, file in enumerate(files):
        (first.store / file).write_text(f"---\nname: topic {number}\ndescription: what we know "
                                        f"of topic {number}\ntype: project\n---\nTopic "
                                        f"{number} notes.\n")
        add_line(first.store / "MEMORY.md", f"- [Topic {number}]({file}) — topic {number}")
    synced_alike(machines, failures, 1)
    return machines, files


def lines_missing(machines: list[Machine], wanted: dict[str, list[str]]
                  ) -> tuple[dict[str, int], list[str], bool]:
    """Of each writer's index lines, how many some machine lacks; the problems to print;
    whether the machines' indexes are identical."""
    indexes = [set((m.store / "MEMORY.md").read_text().splitlines()) for m in machines]
    missing = {who: sum(any(line not in index for index in indexes) for line in lines)
               for who, lines in wanted.items()}
    problems = [f"{count} of {len(wanted[who])} lines of {who} missing somewhere"
                for who, count in missing.items() if count]
    same = len({(m.store / "MEMORY.md").read_bytes() for m in machines}) == 1
    if not same:
        problems.append("machines DIFFERENT at the end")
    return missing, problems, same


def second_lines(base: Path, _machines: int, rounds_wanted: int) -> tuple[str, list[str]]:
    """Each machine adds a second index line for a memory that already has one; sync 2, 1,
    2. Every added line must be on both machines at the end (or a conflict said)."""
    remote = new_remote(base)
    failures: list[str] = []
    machines, files = indexed_pair(base, "l", remote, failures)
    added: dict[str, list[str]] = {m.name: [] for m in machines}
    conflicts = 0
    for number in range(rounds_wanted):
        one_memory = number % 2 == 1  # every other round both add a line for the same memory
        for side, machine in enumerate(machines):
            file = files[number % len(files)] if one_memory else files[(2 * number + side) % len(files)]
            line = f"- [Also, from {machine.name}]({file}) — second entry, round {number}"
            add_line(machine.store / "MEMORY.md", line)
            added[machine.name].append(line)
        for machine in (machines[1], machines[0], machines[1]):
            out = machine.run(failures, f"round {number}", "sync", "--all", "--json")
            conflicts += out.count('"conflicts": [\n')
    synced_alike(machines, failures)
    missing, problems, same = lines_missing(machines, added)
    lost = sum(missing.values())
    return (f"{rounds_wanted} rounds of a second index line added on each machine, synced "
            f"2, 1, 2: {sum(map(len, added.values()))} lines added, {lost} missing anywhere "
            f"({', '.join(f'{who} {count}' for who, count in missing.items())}); conflicts "
            f"reported: {conflicts}; {len(failures)} failed runs; machines "
            f"{'identical' if same else 'DIFFERENT'}", failures + problems)


def outside_writer(base: Path, _machines: int, rounds_wanted: int) -> tuple[str, list[str]]:
    """An outside writer appends index lines to machine 1's MEMORY.md all the time, while
    both machines add lines and sync at the same moment."""
    remote = new_remote(base)
    failures: list[str] = []
    machines, files = indexed_pair(base, "w", remote, failures)
    index = machines[0].store / "MEMORY.md"
    written: list[str] = []
    stop = threading.Event()

    def writer() -> None:
        chooser = random.Random(44)
        while not stop.is_set():
            file = chooser.choice(files)
            line = f"- [Noted by a session]({file}) — writer line {len(written)}"
            with open(index, "a", encoding="utf-8") as out:  # as an editor appends a line
                out.write(line + "\n")
            written.append(line)
            stop.wait(chooser.uniform(0.01, 0.06))

    thread = threading.Thread(target=writer)
    added: dict[str, list[str]] = {m.name: [] for m in machines}
    thread.start()
    try:
        for number in range(rounds_wanted):
            machine = machines[1]
            line = f"- [From {machine.name}]({files[number % len(files)]}) — round {number}"
            add_line(machine.store / "MEMORY.md", line)
            added[machine.name].append(line)
            runs = [(m, m.start("sync", "--all")) for m in machines]
            for m, process in runs:
                finished(process, failures, f"{m.name} round {number}")
    finally:
        stop.set()
        thread.join()
    synced_alike(machines, failures, 3)
    added["the writer"] = written
    missing, problems, same = lines_missing(machines, added)
    return (f"a writer appending index lines to {machines[0].name}'s MEMORY.md during "
            f"{rounds_wanted} rounds of both machines syncing at once: writer lines missing "
            f"anywhere {missing['the writer']} of {len(written)}, {machines[1].name}'s lines "
            f"missing {missing[machines[1].name]} of {len(added[machines[1].name])}; "
            f"{len(failures)} failed runs; machines {'identical' if same else 'DIFFERENT'}",
            failures + problems)


RUNNERS: dict[str, Callable[[Path, int, int], tuple[str, list[str]]]] = {
    "rounds": rounds, "kills": kills, "first-contact": first_contact, "hostile": hostile, "secrets": secrets,
    "delete-edit": delete_edit, "black-hole": black_hole, "second-lines": second_lines,
    "outside-writer": outside_writer}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machines", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--only", default=",".join(SCENARIOS),
                        help=f"scenarios to run, of {', '.join(SCENARIOS)}")
    args = parser.parse_args(argv)
    wanted = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in RUNNERS]
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(unknown)}")
    bad = False
    for name in wanted:
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix=f"memtui-sync-torture-{name}-") as scratch:
            summary, problems = RUNNERS[name](Path(scratch), args.machines, args.rounds)
        print(f"{name} ({time.monotonic() - started:.0f} s): {summary}", flush=True)
        for line in problems[:20]:
            print(f"  {line}")
        bad = bad or bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
