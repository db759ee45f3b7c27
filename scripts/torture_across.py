#!/usr/bin/env python3
"""Kill and starve the commands that write two places at once: copy, move, import, promote.

    .venv/bin/python scripts/torture_across.py            # every moment, kill and ENOSPC
    .venv/bin/python scripts/torture_across.py --quick    # the first moments only
    options: --only copy,move,import,promote,demote --keep

Every run is a subprocess of the real `memtui` command in a home of its own (a config home
with two git projects, `app` and `site`, memtui's dirs and TMPDIR in a temp dir, removed at
the end). Each operation is first run clean, to learn its after-state; then, from the same
before-state each time, it is stopped at every moment memtui reaches while it writes
(`MEMTUI_FAILPOINT`: each of its own file writes, the undo-log record, the staging, each
swap, the commit; the Nth time, so a move's second store is reached too), once by SIGKILL
and once by ENOSPC (not after a change set's last write, where nothing is left to fail). After a kill, the next command (`memtui audit` on each store) runs
first, as a user's next command would.

Counted, target 0 each:
- lost: a line of a memory (or of CLAUDE.md) that the clean run kept is nowhere;
- torn: a store or CLAUDE.md that is neither its before nor its after state;
- half: one place changed and the other not (a move that copied and did not remove, or
  the reverse), once the next command has run;
- false: ENOSPC with exit 0 and a place unchanged, or exit 2 with a place changed;
- unclear: a traceback, an exit other than 0/1/2, or stderr that is not one sentence;
- leftovers: `*.memtui-*` files in a store or an intent record after the next command;
- undo: after the clean run, `memtui undo` (on each changed place, newest first) does not
  bring back the before-state byte for byte.
The exit status is 1 when any target is missed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

TIMEOUT = 120
MOMENTS = ("apply.logged", "apply.staged", "swap.aside", "swap.installed", "apply.swapped",
           "apply.before_commit", "apply.committed", "apply.intent_cleared")
AFTER_THE_WRITE = ("apply.intent_cleared", "apply.committed")
OPERATIONS = ("copy", "move", "import", "promote", "demote")


def memtui_command() -> list[str]:
    entry = Path(sys.executable).with_name("memtui")
    return [str(entry)] if entry.exists() else [sys.executable, "-m", "tui"]


def memory_text(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {name} notes\ntype: feedback\n---\n\n{body}\n"


@dataclass
class Outcome:
    code: int
    out: str
    err: str


@dataclass
class Tally:
    figures: Counter = field(default_factory=Counter)
    runs: int = 0
    examples: dict[str, list[str]] = field(default_factory=dict)

    def problem(self, figure: str, where: str, detail: str = "") -> None:
        self.figures[figure] += 1
        self.examples.setdefault(figure, [])
        if len(self.examples[figure]) < 4:
            self.examples[figure].append(f"{where}: {detail}"[:300])


class Home:
    """A config home with two projects' stores, memtui's own dirs, and a pristine copy of
    it all to go back to before each run."""

    def __init__(self, root: Path):
        self.root = root
        self.live = root / "live"
        self.pristine = root / "pristine"
        self.env = dict(os.environ)
        self.env.update({
            "CLAUDE_CONFIG_DIR": str(self.live / "claude"),
            "MEMTUI_DATA_DIR": str(self.live / "data"),
            "MEMTUI_STATE_DIR": str(self.live / "state"),
            "MEMTUI_CACHE_DIR": str(self.live / "cache"),
            "MEMTUI_CONFIG_DIR": str(self.live / "config"),
            "TMPDIR": str(self.live / "tmp"),
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
        })
        self.env.pop("MEMTUI_FAILPOINT", None)

    def store(self, project: str) -> Path:
        from tui.claude.paths import sanitize

        return self.live / "claude" / "projects" / sanitize(str(self.live / project)) / "memory"

    @property
    def claude_md(self) -> Path:
        return self.live / "claude" / "CLAUDE.md"

    def build(self) -> None:
        for name in ("claude", "data", "state", "cache", "config", "tmp"):
            (self.live / name).mkdir(parents=True)
        for project in ("app", "site", "old"):
            folder = self.live / project
            folder.mkdir()
            subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True,
                           env=self.env)
            (folder / "README.md").write_text("hello\n")
            subprocess.run(["git", "-C", str(folder), "add", "README.md"], check=True, env=self.env)
            subprocess.run(["git", "-C", str(folder), "commit", "-qm", "initial"], check=True,
                           env=self.env)
            self.store(project).mkdir(parents=True)
        app, site, old = self.store("app"), self.store("site"), self.store("old")
        files = {
            app: {"deploy.md": memory_text("deploy", "Ship with `make release`.\nSee [runbook](runbook.md)."),
                  "runbook.md": memory_text("runbook", "Step one, step two."),
                  "stays.md": memory_text("stays", "After [deploy](deploy.md), tag it.")},
            site: {"style.md": memory_text("style", "Tabs, not spaces."),
                   "runbook.md": memory_text("runbook", "The site's own runbook.")},
            old: {"legacy.md": memory_text("legacy", "The old API lives on port 8080."),
                  "style.md": memory_text("style", "Spaces, not tabs.")},
        }
        for store, memories in files.items():
            lines = ["# Memory"]
            for file, text in memories.items():
                (store / file).write_text(text)
                lines.append(f"- [{file[:-3].title()}]({file}) — {file[:-3]} notes")
            (store / "MEMORY.md").write_text("\n".join(lines) + "\n")
        self.claude_md.write_text("# My rules\n\nAlways answer in English.\n")
        archive = self.live / "old.zip"
        outcome = self.run(["export", str(old), "-o", str(archive)])
        if outcome.code != 0:
            raise SystemExit(f"export failed: {outcome.err}")
        outcome = self.run(["promote", str(site / "style.md"), "--yes"])
        if outcome.code != 0:
            raise SystemExit(f"promote failed: {outcome.err}")
        shutil.copytree(self.live, self.pristine, symlinks=True)

    def reset(self) -> None:
        shutil.rmtree(self.live)
        shutil.copytree(self.pristine, self.live, symlinks=True)

    def run(self, words: list[str], failpoint: str | None = None) -> Outcome:
        env = dict(self.env)
        if failpoint:
            env["MEMTUI_FAILPOINT"] = failpoint
        try:
            done = subprocess.run(memtui_command() + words, env=env, capture_output=True,
                                  text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return Outcome(-999, "", "hung")
        return Outcome(done.returncode, done.stdout, done.stderr)

    def places(self) -> dict[str, dict[str, bytes]]:
        """What the user has: each store's files, and CLAUDE.md."""
        found = {}
        for project in ("app", "site"):
            store = self.store(project)
            found[project] = {p.name: p.read_bytes() for p in sorted(store.iterdir())
                              if p.is_file() and ".memtui-" not in p.name} if store.exists() else {}
        found["CLAUDE.md"] = {"CLAUDE.md": self.claude_md.read_bytes()}
        return found

    def leftovers(self) -> list[str]:
        left = [p.name for project in ("app", "site") for p in self.store(project).iterdir()
                if ".memtui-" in p.name]
        intents = self.live / "state" / "intents"
        if intents.exists():
            left += [p.name for p in intents.rglob("*.json")]
        return left


def operation_words(home: Home, name: str) -> list[str]:
    app, site = str(home.store("app")), str(home.store("site"))
    return {
        "copy": ["copy", "deploy.md", "runbook.md", "--from", app, "--to", site, "--yes",
                 "--on-collision", "keep-both"],
        "move": ["move", "deploy.md", "runbook.md", "--from", app, "--to", site, "--yes",
                 "--on-collision", "keep-both"],
        "import": ["import", str(home.live / "old.zip"), site],
        "promote": ["promote", str(home.store("app") / "runbook.md"), "--remove", "--yes"],
        "demote": ["demote", "style", "--to", app, "--yes"],
    }[name]


def bodies(places: dict[str, dict[str, bytes]]) -> set[str]:
    """Every memory's body text and every promoted line: what must never vanish."""
    found = set()
    for files in places.values():
        for name, data in files.items():
            if name == "MEMORY.md":
                continue
            text = data.decode("utf-8", "replace")
            found |= {line.strip() for line in text.split("---", 2)[-1].splitlines()
                      if len(line.strip()) > 12 and not line.startswith(("name:", "description:"))}
    return found


def judge_clear(tally: Tally, where: str, outcome: Outcome) -> None:
    if "Traceback" in outcome.err or "Traceback" in outcome.out:
        tally.problem("unclear", where, "traceback: " + outcome.err[-200:])
    elif outcome.code not in (0, 1, 2):
        tally.problem("unclear", where, f"exit {outcome.code}: {outcome.err[-200:]}")
    elif outcome.code == 2:
        lines = [line for line in outcome.err.splitlines() if line.strip()]
        if len(lines) != 1 or not lines[0].startswith("memtui: "):
            tally.problem("unclear", where, " | ".join(lines)[:300])


def judge_state(tally: Tally, where: str, before: dict, after: dict, now: dict,
                outcome: Outcome | None) -> None:
    lost = (bodies(before) & bodies(after)) - bodies(now)
    if lost:
        tally.problem("lost", where, sorted(lost)[0])
    changed = {place for place in now if now[place] != before[place]}
    for place in now:
        if now[place] not in (before[place], after[place]):
            differing = sorted(f for f in set(now[place]) | set(before[place]) | set(after[place])
                               if now[place].get(f) not in (before[place].get(f), after[place].get(f)))
            tally.problem("torn", where, f"{place}: {differing}")
    meant = {place for place in after if after[place] != before[place]}
    if changed and changed != meant:
        tally.problem("half", where, f"changed {sorted(changed)} of {sorted(meant)}")
    if outcome is not None:
        if outcome.code == 0 and changed != meant:
            tally.problem("false", where, "exit 0 but not applied")
        if outcome.code == 2 and changed:
            tally.problem("false", where, f"exit 2 but changed {sorted(changed)}")


def torture(home: Home, name: str, quick: bool, tally: Tally) -> None:
    home.reset()
    before = home.places()
    words = operation_words(home, name)
    clean = home.run(words)
    if clean.code != 0:
        tally.problem("unclear", f"{name} clean", clean.err[-300:])
        return
    after = home.places()
    if after == before:
        tally.problem("unclear", f"{name} clean", "the clean run changed nothing")
        return
    meant = [place for place in after if after[place] != before[place]]
    undo_targets = {"app": str(home.store("app")), "site": str(home.store("site")),
                    "CLAUDE.md": str(home.live / "claude")}
    for place in reversed(meant):
        done = home.run(["undo", undo_targets[place]])
        judge_clear(tally, f"{name} undo {place}", done)
        if home.places() == before:
            break
    if home.places() != before:
        now = home.places()
        tally.problem("undo", name, f"after undo: {[p for p in now if now[p] != before[p]]} differ")
    tally.runs += 1

    counts = 2 if quick else 4
    moments = [f"io.write:{n}" for n in range(1, (6 if quick else 16))]
    moments += [f"{point}:{n}" for point in MOMENTS for n in range(1, counts + 1)]
    for moment in moments:
        point, _, nth = moment.partition(":")
        for fault in ("kill", "ENOSPC"):
            if fault == "ENOSPC" and point in AFTER_THE_WRITE:
                continue  # nothing that could fail is left to do there
            home.reset()
            failpoint = f"{point}:{nth}" if fault == "kill" else f"{point}:{nth}:ENOSPC"
            where = f"{name} {fault}@{moment}"
            outcome = home.run(words, failpoint)
            tally.runs += 1
            if fault == "ENOSPC":
                judge_clear(tally, where, outcome)
                judge_state(tally, where, before, after, home.places(), outcome)
            else:
                if outcome.code not in (-9, 0):
                    judge_clear(tally, where, outcome)
                for project in ("app", "site"):
                    judge_clear(tally, f"{where} next audit",
                                home.run(["audit", str(home.store(project))]))
                judge_state(tally, where, before, after, home.places(),
                            outcome if outcome.code != -9 else None)
            left = home.leftovers()
            if left:
                tally.problem("leftovers", where, ", ".join(left[:5]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default=",".join(OPERATIONS))
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="torture-across-"))
    started = time.monotonic()
    tally = Tally()
    try:
        home = Home(root)
        home.build()
        for name in args.only.split(","):
            torture(home, name.strip(), args.quick, tally)
            print(f"{name}: {tally.runs} runs so far, {sum(tally.figures.values())} problems",
                  flush=True)
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    print(f"\n{tally.runs} runs in {time.monotonic() - started:.0f} s")
    for figure in ("lost", "torn", "half", "false", "unclear", "leftovers", "undo"):
        print(f"  {figure:<10} {tally.figures[figure]:>4}  (target 0)")
        for example in tally.examples.get(figure, []):
            print(f"      {example}")
    return 1 if sum(tally.figures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
