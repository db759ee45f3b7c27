"""Time the app where a heavy user feels it, against bare Textual doing the same work.

    python benchmarks/bench_app.py [--dir DIR] [--runs 3] [--check]

Generates the heavy config home first if needed (see generate.py), then measures, headless
(`App.run_test`, 120x40), each the best of N runs:
  first frame     memtui started on 1,000 project folders until its projects screen has been
                  painted, against an empty Textual app (Header, Static, Footer) painted the
                  same way; the discovery scan runs in a worker after that frame.
  projects listed the same start until the scan has filled the projects table (no target).
  filter key      on the biggest store (~5,300 memories), one keystroke in the filter Input
                  until the table shows the new rows and the screen has been repainted,
                  typed one letter at a time; against a bare DataTable cleared and refilled
                  with the same rows and repainted. The worst keystroke counts; the
                  slowest keystroke of any single run is printed too.
  projects key    the same for the projects filter (`c`, `co`, … `code`, ~1,000 rows each),
                  against a bare DataTable with the projects' columns (no target).
  50 MB index     a store whose MEMORY.md is 50 MB (generate.ensure_huge_index): seconds
                  from opening its screen until the memory table is painted, and until the
                  audit's findings are shown; then the Index tab, its end, the cut rule (c),
                  the Findings tab; the longest the UI thread was blocked through all of it
                  (an asyncio task that sleeps 5 ms and measures how late it wakes); and
                  seconds from quitting until the app's event loop has closed, its worker
                  threads included; and `memtui audit` on it (human and --json), each in a
                  process of its own.
`--check` exits 1 when a target is missed: first frame under 0.5 s, filter key under 50 ms,
and on the 50 MB index: open under 3 s, no block of 100 ms or more, quit under 1 s,
`memtui audit` under 5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.generate import DEFAULT_DIR, HUGE_FOLDER, ensure, ensure_huge_index  # noqa: E402

FIRST_FRAME_SECONDS = 0.5
FILTER_KEY_SECONDS = 0.050
HUGE_OPEN_SECONDS = 3.0
HUGE_BLOCK_SECONDS = 0.100
HUGE_QUIT_SECONDS = 1.0
HUGE_AUDIT_SECONDS = 5.0
SIZE = (120, 40)
TYPING_INTERVAL = 0.15  # seconds between keystrokes, as a quick typist
FILTER_KEYS = "deploy"  # a word of the generator's vocabulary: each letter narrows the rows
PROJECT_KEYS = "code"  # in every generated project's path: the projects filter keeps them all


async def repainted(app) -> None:
    """Return once the current screen has been refreshed (painted) after this call."""
    done = asyncio.Event()
    app.screen.call_after_refresh(done.set)
    await done.wait()


async def first_frame(make_app: Callable[[], object], screen_name: str,
                      listed: Callable[[object], bool] | None = None) -> tuple[float, float]:
    """Seconds from starting the app to its first painted `screen_name` (and to `listed`)."""
    start = time.perf_counter()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        while type(app.screen).__name__ != screen_name:
            await asyncio.sleep(0.001)
        await repainted(app)
        frame = time.perf_counter() - start
        if listed is None:
            return frame, 0.0
        while not listed(app):
            await pilot.pause(0.005)
        return frame, time.perf_counter() - start


def empty_app():
    from textual.app import App
    from textual.screen import Screen
    from textual.widgets import Footer, Header, Static

    class EmptyScreen(Screen[None]):
        def compose(self):
            yield Header(show_clock=False)
            yield Static("nothing here")
            yield Footer()

    class EmptyApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(EmptyScreen())

    return EmptyApp()


async def settle(app, pilot) -> None:
    await pilot.pause()
    await app.settled()
    await pilot.pause()


async def filter_keys(home: Path, store: Path) -> tuple[list[float], list[list]]:
    """Per keystroke: seconds until the memory table shows the new rows, painted, and its rows."""
    from textual.widgets import Input

    from tui.app.app import MemtuiApp
    from tui.app.memory_rows import filter_rows
    from tui.app.screens.store import StoreScreen
    from tui.app.widgets.virtual_table import VirtualTable
    from tui.claude.discovery import discover

    project = next(p for p in discover(home, {"CLAUDE_CONFIG_DIR": str(home)}).projects
                   if p.store == store)
    app = MemtuiApp(home, {"CLAUDE_CONFIG_DIR": str(home)})
    timings, row_sets = [], []
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = StoreScreen(project)
        app.push_screen(screen)
        await settle(app, pilot)
        await pilot.press("slash")
        field = screen.query_one("#memory-filter", Input)
        table = screen.query_one("#memory-table", VirtualTable)
        for typed in range(1, len(FILTER_KEYS) + 1):
            timings.append(await time_key(pilot, field, table, FILTER_KEYS[typed - 1]))
            wanted = filter_rows(screen.rows, FILTER_KEYS[:typed])
            assert table.rows[0].key == wanted[0].key and len(table.rows) == len(wanted), typed
            row_sets.append([row.cells for row in wanted])
    return timings, row_sets


async def time_key(pilot, field, table, key: str) -> float:
    """Seconds from one letter typed into `field` until `table` shows new rows, painted."""
    await pilot.pause(TYPING_INTERVAL)
    shown = table.rows
    # The keystroke as the Input handles it; pilot.press would also wait for the store's
    # preview, rendered once typing pauses, which the user does not wait for.
    start = time.perf_counter()
    field.insert_text_at_cursor(key)
    while table.rows is shown:
        await asyncio.sleep(0)
    await repainted(pilot.app)
    return time.perf_counter() - start


async def projects_filter_keys(home: Path) -> tuple[list[float], list[list]]:
    """Per keystroke in the projects filter: seconds until the new rows are painted."""
    from textual.widgets import Input

    from tui.app.app import MemtuiApp
    from tui.app.widgets.virtual_table import VirtualTable

    app = MemtuiApp(home, {"CLAUDE_CONFIG_DIR": str(home)})
    timings, row_sets = [], []
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        field = app.screen.query_one("#project-filter", Input)
        table = app.screen.query_one("#projects", VirtualTable)
        for key in PROJECT_KEYS:
            timings.append(await time_key(pilot, field, table, key))
            row_sets.append([row.cells for row in table.rows])
    return timings, row_sets


async def bare_table_updates(row_sets: list[list], columns) -> list[float]:
    """A bare DataTable with the same columns, cleared and refilled with each row set."""
    from textual.app import App
    from textual.widgets import DataTable

    class TableApp(App[None]):
        def compose(self):
            yield DataTable(cursor_type="row", zebra_stripes=True)

    app = TableApp()
    timings = []
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(DataTable)
        for column, width in columns:
            table.add_column(column, key=column, width=width)
        await pilot.pause()
        for rows in row_sets:
            start = time.perf_counter()
            table.clear()
            table.add_rows(rows)
            await repainted(app)
            timings.append(time.perf_counter() - start)
    return timings


class Stalls:
    """The longest time the event loop (the UI thread) did not run a ready task."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.task: asyncio.Task | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self.watch())

    async def watch(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.005)
            self.worst = max(self.worst, time.perf_counter() - before - 0.005)

    def stop(self) -> float:
        if self.task is not None:
            self.task.cancel()
        return self.worst


async def huge_index_session(home: Path, quit_started: list[float]) -> tuple[float, float, float]:
    """(seconds to the painted memory table, to the shown findings, longest UI block) on the
    50 MB store; the time quitting starts goes into `quit_started`."""
    from tui.app.app import MemtuiApp
    from tui.app.screens.store import StoreScreen
    from tui.claude.discovery import discover

    env = {"CLAUDE_CONFIG_DIR": str(home)}
    project = next(p for p in discover(home, env).projects if p.name == HUGE_FOLDER)
    app = MemtuiApp(home, env)
    stalls = Stalls()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        stalls.start()
        start = time.perf_counter()
        screen = StoreScreen(project)
        app.push_screen(screen)
        while not screen.rows:
            await asyncio.sleep(0.005)
        await repainted(app)
        opened = time.perf_counter() - start
        while not screen.findings_view.rows:
            await asyncio.sleep(0.005)
        await repainted(app)
        audited = time.perf_counter() - start
        for key in ("2", "end", "c", "3", "1"):
            await pilot.press(key)
            await repainted(app)
        worst = stalls.stop()
        quit_started.append(time.perf_counter())
        app.exit()
    return opened, audited, worst


def huge_index_run(home: Path) -> tuple[float, float, float, float]:
    """(open, audited, worst block, quit) seconds for one session, quitting measured until
    asyncio.run returns: the loop's default executor (the workers) is shut down by then."""
    quit_started: list[float] = []
    opened, audited, worst = asyncio.run(huge_index_session(home, quit_started))
    return opened, audited, worst, time.perf_counter() - quit_started[0]


def best_of(runs: int, measure: Callable[[], Awaitable]) -> list:
    """Run `measure` N times; keep, element-wise, the smallest of each timing it returns."""
    results = [asyncio.run(measure()) for _ in range(runs)]
    return [min(values) for values in zip(*results, strict=True)]


def biggest_store(home: Path) -> Path:
    stores = [d / "memory" for d in (home / "projects").iterdir() if (d / "memory").is_dir()]
    return max(stores, key=lambda s: sum(1 for _ in os.scandir(s)))


def cli_audit_seconds(home: Path, *extra: str) -> float:
    """Seconds for `memtui audit` on the 50 MB store, in a process of its own."""
    store = home / "projects" / HUGE_FOLDER / "memory"
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(home)}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tui", "audit", str(store), *extra], env=env,
                   stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def huge_index_report(huge: list[float], runs: int) -> list[str]:
    """Print the 50 MB index figures; the targets it misses."""
    opened, audited, worst, quit_seconds, audit_seconds, audit_json = huge
    print(f"50 MB MEMORY.md, best of {runs} runs:")
    print(f"  store open, table painted   {opened:7.2f} s   target {HUGE_OPEN_SECONDS:.0f} s")
    print(f"  findings shown              {audited:7.2f} s")
    print(f"  longest UI block            {worst * 1000:7.0f} ms  target "
          f"{HUGE_BLOCK_SECONDS * 1000:.0f} ms")
    print(f"  quit                        {quit_seconds:7.2f} s   target {HUGE_QUIT_SECONDS:.0f} s")
    print(f"  memtui audit                {audit_seconds:7.2f} s   target {HUGE_AUDIT_SECONDS:.0f} s")
    print(f"  memtui audit --json         {audit_json:7.2f} s")
    missed = []
    if opened >= HUGE_OPEN_SECONDS:
        missed.append(f"the 50 MB index store opened in {opened:.2f} s")
    if worst >= HUGE_BLOCK_SECONDS:
        missed.append(f"the UI was blocked {worst * 1000:.0f} ms on the 50 MB index")
    if quit_seconds >= HUGE_QUIT_SECONDS:
        missed.append(f"quitting took {quit_seconds:.2f} s on the 50 MB index")
    if audit_seconds >= HUGE_AUDIT_SECONDS:
        missed.append(f"memtui audit took {audit_seconds:.2f} s on the 50 MB index")
    return missed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--runs", type=int, default=3, help="best of N (default 3)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--huge-only", action="store_true",
                        help="measure only the store with a 50 MB MEMORY.md")
    args = parser.parse_args(argv)
    huge_home = ensure_huge_index()
    huge_runs = [(*huge_index_run(huge_home), cli_audit_seconds(huge_home),
                  cli_audit_seconds(huge_home, "--json")) for _ in range(args.runs)]
    huge = [min(values) for values in zip(*huge_runs, strict=True)]
    missed = huge_index_report(huge, args.runs)
    for number, run in enumerate(huge_runs, start=1):
        print(f"  run {number}: open {run[0]:.2f} s, findings {run[1]:.2f} s, longest block "
              f"{run[2] * 1000:.0f} ms, quit {run[3]:.2f} s, audit {run[4]:.2f} s, "
              f"--json {run[5]:.2f} s")
    print()
    if args.huge_only:
        for line in missed:
            print(f"MISSED: {line}")
        return 1 if args.check and missed else 0

    home = ensure(args.dir)
    folders = sum(1 for _ in (home / "projects").iterdir())
    store = biggest_store(home)


    from tui.app.app import MemtuiApp
    from tui.app.screens.projects import COLUMNS as PROJECT_COLUMNS
    from tui.app.screens.store import COLUMNS as STORE_COLUMNS

    def memtui():
        return MemtuiApp(home, {"CLAUDE_CONFIG_DIR": str(home)})

    def listed(app) -> bool:
        return bool(app.screen.query_one("#projects").rows)

    base_frame = best_of(args.runs, lambda: first_frame(empty_app, "EmptyScreen"))[0]
    app_frame, app_listed = best_of(args.runs, lambda: first_frame(memtui, "ProjectsScreen",
                                                                   listed))
    key_runs = [asyncio.run(filter_keys(home, store)) for _ in range(args.runs)]
    row_sets = key_runs[0][1]
    keys = [min(values) for values in zip(*(timings for timings, _ in key_runs), strict=True)]
    bare = best_of(args.runs, lambda: bare_table_updates(row_sets, STORE_COLUMNS))
    project_runs = [asyncio.run(projects_filter_keys(home)) for _ in range(args.runs)]
    project_rows = project_runs[0][1]
    project_keys = [min(values) for values in zip(*(t for t, _ in project_runs), strict=True)]
    project_bare = best_of(args.runs, lambda: bare_table_updates(project_rows, PROJECT_COLUMNS))

    print(f"{folders:,} project folders; biggest store {len(os.listdir(store)):,} entries")
    print(f"headless {SIZE[0]}x{SIZE[1]}, best of {args.runs} runs, {os.cpu_count()} CPUs\n")
    print(f"{'measurement':<34}{'memtui':>10}{'baseline':>10}{'ratio':>8}{'target':>10}")
    print(f"{'first frame (s)':<34}{app_frame:>10.3f}{base_frame:>10.3f}"
          f"{app_frame / base_frame:>8.1f}{FIRST_FRAME_SECONDS:>10.2f}")
    print(f"{'projects listed (s)':<34}{app_listed:>10.3f}{'':>10}{'':>8}{'':>10}")
    for typed, (key, table) in enumerate(zip(keys, bare, strict=True), start=1):
        label = f"filter key '{FILTER_KEYS[:typed]}' ({len(row_sets[typed - 1]):,} rows, ms)"
        print(f"{label:<34}{key * 1000:>10.1f}{table * 1000:>10.1f}{key / table:>8.1f}"
              f"{FILTER_KEY_SECONDS * 1000:>10.0f}")
    for typed, (key, table) in enumerate(zip(project_keys, project_bare, strict=True), start=1):
        label = f"projects key '{PROJECT_KEYS[:typed]}' ({len(project_rows[typed - 1]):,} rows, ms)"
        print(f"{label:<34}{key * 1000:>10.1f}{table * 1000:>10.1f}{key / table:>8.1f}{'':>10}")
    worst = max(max(timings) for timings, _ in key_runs)
    print(f"slowest filter key in any of the {args.runs} runs: {worst * 1000:.1f} ms")

    if app_frame >= FIRST_FRAME_SECONDS:
        missed.append(f"first frame took {app_frame:.2f} s (target under {FIRST_FRAME_SECONDS} s)")
    if max(keys) >= FILTER_KEY_SECONDS:
        missed.append(f"the slowest filter key took {max(keys) * 1000:.0f} ms "
                      f"(target under {FILTER_KEY_SECONDS * 1000:.0f} ms)")
    for line in missed:
        print(f"MISSED: {line}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
