"""The app's memory as a user opens and leaves the biggest store again and again, against
the same app with Textual's own behaviour put back (`tui.app.textual_leaks` switched off).

    python benchmarks/bench_app_visits.py [--dir DIR] [--visits 6]

Headless (`App.run_test`, 120x40) on the heavy home (generate.py; ~5,300 memories in its
biggest store). Each visit opens the store screen, waits until the audit's findings are
shown (every worker but the disk watcher has ended), and goes back to the projects screen.
After each visit: the objects the cycle collector tracks and the closed store screens among
them, the process's resident memory, and how long the full collection that frees the closed
screen takes. Each variant runs in a process of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from statistics import mean

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_app import SIZE, biggest_store, settle  # noqa: E402
from benchmarks.generate import DEFAULT_DIR, ensure  # noqa: E402

VARIANTS = ("Textual's behaviour", "memtui")


def resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


async def visits(home: Path, count: int) -> list[dict]:
    from tui.app.app import MemtuiApp
    from tui.app.screens.store import StoreScreen
    from tui.claude.discovery import discover

    env = {"CLAUDE_CONFIG_DIR": str(home)}
    store = biggest_store(home)
    project = next(p for p in discover(home, env).projects if p.store == store)
    app = MemtuiApp(home, env)
    measured = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for _ in range(count):
            screen = StoreScreen(project)
            app.push_screen(screen)
            await settle(app, pilot)  # read, audited, duplicates found, shown
            del screen
            app.pop_screen()
            await settle(app, pilot)
            gc.unfreeze()
            started = time.perf_counter()
            gc.collect()
            collection = time.perf_counter() - started
            things = gc.get_objects()
            alive = sum(isinstance(thing, StoreScreen) for thing in things)
            measured.append({"rss_mb": resident_mb(), "screens_alive": alive,
                             "objects": len(things), "collection_ms": 1000 * collection})
            del things
            gc.freeze()
    return measured


def child(variant: str, home: Path, count: int) -> None:
    if variant == VARIANTS[0]:
        from tui.app import app as app_module
        from tui.app import textual_leaks
        from tui.app.screens import store
        from tui.app.widgets import app_header

        # collect_discarded calls textual_leaks' own name; the store screen imported it.
        textual_leaks.release_styles_caches = store.release_styles_caches = lambda: None
        app_module.run_thread_workers_in_fresh_contexts = lambda: None
        app_header.forget_watchers = lambda watched, node: None
    print(json.dumps(asyncio.run(visits(home, count))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--visits", type=int, default=6)
    parser.add_argument("--child", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    home = ensure(args.dir, quiet=args.child is not None)  # the child finds it made
    if args.child:
        child(args.child, home, args.visits)
        return 0
    results = {}
    for variant in VARIANTS:
        output = subprocess.run(
            [sys.executable, __file__, "--dir", str(args.dir), "--visits", str(args.visits),
             "--child", variant], check=True, capture_output=True, text=True).stdout
        results[variant] = json.loads(output.splitlines()[-1])
    print(f"{args.visits} visits to {biggest_store(home)} and back, 120x40, headless")
    print(f"{'after visit':>12}" + "".join(
        f"{name + ': objects, screens alive, RSS, full collection':>66}" for name in VARIANTS))
    for visit in range(args.visits):
        print(f"{visit + 1:>12}" + "".join(
            f"{cell['objects']:>34,} {cell['screens_alive']:>5} {cell['rss_mb']:>9.0f} MB"
            f" {cell['collection_ms']:>8.0f} ms"
            for cell in (results[name][visit] for name in VARIANTS)))
    for name in VARIANTS:
        rows = results[name]
        print(f"{name}: {rows[-1]['objects'] - rows[0]['objects']:+,} objects and "
              f"{rows[-1]['rss_mb'] - rows[0]['rss_mb']:+.0f} MB from visit 1 to {args.visits}; "
              f"full collection {mean(r['collection_ms'] for r in rows):.0f} ms on average")
    last = [results[name][-1] for name in VARIANTS]
    print(f"after the last visit, memtui / Textual's behaviour: objects "
          f"{last[1]['objects'] / last[0]['objects']:.2f}x, RSS "
          f"{last[1]['rss_mb'] / last[0]['rss_mb']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
