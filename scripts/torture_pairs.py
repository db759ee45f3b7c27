#!/usr/bin/env python3
"""Kill memtui with SIGKILL at random moments of changes spanning two stores.

    .venv/bin/python scripts/torture_pairs.py            # 300 rounds (~3 min on 2 busy cores)
    .venv/bin/python scripts/torture_pairs.py --rounds 60 --seed 7

A sandbox config home (and MEMTUI_*_DIR, TMPDIR) in a temp dir holds two stores. Each
round runs one command that changes both: `memtui move` (from the state where the memories
are home), `memtui undo` of either store (from the moved state) or `memtui undo --redo`,
in a process forked from this one once its imports are done, killed with SIGKILL a random
time after it wrote its pair mark (it says so on a pipe and goes on): uniform over 1.5
times the measured time from writing the mark to removing it, where a kill can split the
pair (kills before the mark are those of one store, `torture_writes.py`'s). Then the next command (`memtui audit`) runs
in another forked process, and the two stores must be, byte for byte and mtime for mtime,
either as before the command or as after it whole (never one store moved and not the
other), each undo log's newest record must name the other store's newest as its other
half, and no intent record, pair mark or temp file may be left. No failpoint is used: the
moments are real timing. Exit status 1 when any round breaks a rule.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

MOVED = ("deploy.md", "runbook.md")


def sandbox(root: Path) -> tuple[Path, Path, Path]:
    """The config home and its two stores, in `root`; the environment pointed at them."""
    for name in ("DATA", "STATE", "CACHE", "CONFIG"):
        os.environ[f"MEMTUI_{name}_DIR"] = str(root / name.lower())
    os.environ["TMPDIR"] = str(root / "tmp")
    (root / "tmp").mkdir()
    home = root / "claude"
    os.environ["CLAUDE_CONFIG_DIR"] = str(home)
    for variable in ("MEMTUI_FAILPOINT", "CLAUDE_CODE_PROJECT_DIR_NAME"):
        os.environ.pop(variable, None)
    source, target = home / "projects" / "-src-app" / "memory", home / "projects" / "-src-site" / "memory"
    for store in (source, target):
        store.mkdir(parents=True)
    lines = []
    for number, name in enumerate((*MOVED, "stays.md", "style.md")):
        store = target if name == "style.md" else source
        body = f"---\nname: {name[:-3]}\ndescription: the {name[:-3]} memory\ntype: project\n---\n\n"
        (store / name).write_text(body + f"Line {number} of {name}.\n" * 20)
        if store == source:
            lines.append(f"- [{name[:-3].title()}]({name}) — the {name[:-3]} memory")
    (source / "MEMORY.md").write_text("\n".join(lines) + "\n")
    (target / "MEMORY.md").write_text("# Memory\n- [Style](style.md) — code style\n")
    return home, source, target


def state(*stores: Path) -> dict:
    return {str(store): {path.relative_to(store).as_posix(): (path.read_bytes(),
                                                               path.stat().st_mtime_ns)
                         for path in sorted(store.rglob("*")) if path.is_file()}
            for store in stores}


def forked(argv: list[str], kill_after: float | None,
           window: list[float] | None = None) -> bool:
    """`memtui ARGV` in a forked child; whether it was still running when killed.
    `kill_after`: seconds after the child wrote its pair mark (as soon as it says so on a
    pipe: it is timed, never stopped) to kill it with SIGKILL. `window`: filled with the
    seconds from the mark to its removal, the moment the pair is made."""
    from tui import cli, failpoints

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)

        def note(detail: str) -> None:
            if detail == "" or "/pairs/" in detail:
                os.write(write_end, f"{time.monotonic()}\n".encode())

        failpoints.on("io.write", note)
        failpoints.on("pair.made", lambda _: note(""))
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        try:
            code = cli.main(argv)
        except BaseException:
            code = 3
        os._exit(code if isinstance(code, int) else 0)
    os.close(write_end)
    with os.fdopen(read_end) as times:
        marked = times.readline()  # "" when it ends without making a pair
        if marked and kill_after is not None:
            time.sleep(max(0.0, float(marked) + kill_after - time.monotonic()))
            os.kill(pid, signal.SIGKILL)
        moments = [float(marked)] + [float(line) for line in times.read().split()] if marked else []
    _, status = os.waitpid(pid, 0)
    if window is not None and moments:
        window[:] = [0.0, moments[-1] - moments[0]]
    return os.WIFSIGNALED(status)


def leftovers(*stores: Path) -> list[str]:
    from tui import xdg

    found = [path.name for folder in (xdg.intents_dir(), xdg.pairs_dir()) if folder.exists()
             for path in folder.rglob("*") if path.is_file()]
    return found + [path.name for store in stores for path in store.rglob("*")
                    if ".memtui-" in path.name]


def logs_agree(source: Path, target: Path) -> bool:
    """Both logs as long, and each newest record naming the other's newest as its half."""
    from tui.memory.writes import history

    mine, theirs = history(source), history(target)
    if len(mine) != len(theirs):
        return False
    if not mine:
        return True
    newest, other = mine[0], theirs[0]
    return (newest.pair is not None and other.pair is not None
            and newest.pair.id == other.id and other.pair.id == newest.id
            and newest.undone == other.undone)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--seed", type=int, default=43)
    args = parser.parse_args()
    chance = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="torture-pairs-") as folder:
        home, source, target = sandbox(Path(folder))
        config = ["--config-dir", str(home)]
        commands = {
            "move": [*config, "move", *MOVED, "--from", str(source), "--to", str(target),
                     "--yes"],
            "undo source": [*config, "undo", str(source)],
            "undo target": [*config, "undo", str(target)],
            "redo": [*config, "undo", str(target), "--redo"],
        }
        windows: dict[str, list[float]] = {}
        counts = {"rounds": 0, "killed mid-way": 0, "half or other state": 0,
                  "logs disagree": 0, "left behind": 0}
        home_state = state(source, target)
        moved_state: dict | None = None
        for _ in range(args.rounds):
            at_home = (source / MOVED[0]).exists()
            if at_home:
                redoable = moved_state is not None and chance.random() < 0.5
                name = "redo" if redoable else "move"
            else:
                name = chance.choice(["undo source", "undo target"])
            before = state(source, target)
            if name not in windows:  # measured once, unkilled, then put back
                windows[name] = []
                forked(commands[name], None, windows[name])
                after = state(source, target)
                forked(commands["redo" if name.startswith("undo") else "undo target"], None)
                if state(source, target) != before:
                    print(f"{name}: its undo did not give back the state before it")
                    return 1
            else:
                after = None
            # Past the measured window too: two busy cores make one run's timing vary.
            killed = forked(commands[name], chance.uniform(0, 1.5 * windows[name][1]))
            counts["rounds"] += 1
            if killed and leftovers(source, target):
                counts["killed mid-way"] += 1
            forked([*config, "audit", str(source)], None)  # the next command recovers
            now = state(source, target)
            expected = [before]
            if after is not None:
                expected.append(after)
            elif name == "move":
                expected.append(None)  # any whole move: checked by its bytes below
            else:
                expected.append(moved_state if name == "redo" else home_state)
            whole = now in expected or (name == "move" and _moved_whole(now, home_state))
            if not whole:
                counts["half or other state"] += 1
                print(f"round {counts['rounds']} ({name}): the stores are neither as before "
                      "nor as after it")
            if not logs_agree(source, target):
                counts["logs disagree"] += 1
                print(f"round {counts['rounds']} ({name}): the two undo logs disagree")
            if leftovers(source, target):
                counts["left behind"] += 1
                print(f"round {counts['rounds']} ({name}): left behind {leftovers(source, target)}")
            if not (source / MOVED[0]).exists():
                moved_state = now
        for figure, count in counts.items():
            print(f"{figure:>22}: {count}")
        print("mark to made, measured: " + ", ".join(
            f"{name} {end * 1000:.0f} ms" for name, (_, end) in windows.items()))
        broken = counts["half or other state"] + counts["logs disagree"] + counts["left behind"]
        return 1 if broken else 0


def _moved_whole(now: dict, home_state: dict) -> bool:
    """The memories are in the target, byte for byte, and no longer in the source."""
    source, target = list(home_state)
    return all(name not in now[source] and now[target].get(name, (None,))[0]
               == home_state[source][name][0] for name in MOVED)


if __name__ == "__main__":
    sys.exit(main())
