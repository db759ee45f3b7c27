"""memtui's whole-tree commands on a heavy user's tree, against floors measured in the same run.

    python benchmarks/bench_tree.py [--scale 1] [--runs 3] [--compare] [--check]
                                    [--growth 0.25,0.5,1,2] [--overwrites-mb 165,1024] [--no-app]
                                    [--no-template]

The tree (`generate.py`, reused when its manifest matches): per 1x, 1,000 project folders,
~674 stores holding 20,000 memory files, ~205 MB of transcripts. Every memtui command runs
as its own process (`python -m tui`), with CLAUDE_CONFIG_DIR on the tree and HOME and the XDG
dirs in a temporary directory; "cold" means the transcript-evidence cache was removed first
(for `overwrites`, every memtui cache). The page cache is warm for everyone (an untimed pass
reads every file first): the floors and memtui read the same files, so the ratios compare
work, not disk. The measures take turns for `--runs` rounds; each keeps its fastest run.

Without `--compare`, only memtui's times. With it, the floors too, and every ratio next to
its target (issue 13):
  io floor      read every MEMORY.md, stat every memory file, read 4 KB of every transcript
  lines floor   read the first 30 lines of every memory file
  grep          `grep -rcF <store> <transcript folders>` (the overwrites corpus)
  start-up      `memtui --help`
  projects --json        cold <= 3x io floor; second run <= 1.27x io floor
  audit --all --json     --no-cache and cold <= 5x lines floor; cache warm <= 2x
  overwrites --json      (cold - start-up) <= 3x grep; (warm - start-up) <= 0.1x (cold -
                         start-up); peak RSS < 64 MB; at each `--overwrites-mb` size
  tree statistics        the tree's memory bodies against real ones (bodies.REAL), and the
                         share of files whose links go through markdown-it
  near-duplicates        the biggest store (5,000 memories per 1x), in this process, < 1 s CPU
  template store         `audit --all --json --no-cache` on 50,000 notes from one template
                         (generate.ensure_template_store), < 30 s CPU
  app rows on screen     `memtui` in tmux (120x40) until project rows are painted, < 0.8 s;
                         beside it, a bare Textual app (Header, a line, Footer) until painted
  growth                 projects and audit cold at each `--growth` scale, with a line fit
                         and each doubling's audit CPU <= 1.1x the doubling
`--check` exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))  # tmux_terminal
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

MEMTUI = [sys.executable, "-m", "tui"]
FLOORS = [sys.executable, "-I", str(HERE / "floors.py")]


@dataclass
class Run:
    seconds: float
    rss_mb: float
    output: bytes
    cpu: float = 0.0  # user + system seconds of the process and the children it waited for


@dataclass
class Sandbox:
    """HOME and memtui's XDG dirs in a temporary directory; `cold()` empties the caches."""

    home: Path
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="memtui-bench-")))

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMTUI_", "XDG_"))}
        env.update(CLAUDE_CONFIG_DIR=str(self.home), HOME=str(self.root / "home"),
                   XDG_CACHE_HOME=str(self.root / "cache"), XDG_STATE_HOME=str(self.root / "state"),
                   XDG_DATA_HOME=str(self.root / "data"), XDG_CONFIG_HOME=str(self.root / "config"))
        return env

    def cold(self) -> None:
        for name in ("cache", "state"):
            shutil.rmtree(self.root / name, ignore_errors=True)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


TIME = "/usr/bin/time"


def run(command: list[str], env: dict[str, str] | None = None) -> Run:
    """One process, timed from spawn to exit, with its own peak RSS. The RSS comes from
    /usr/bin/time when there is one: a child spawned from this process counts this
    process's RSS too in its high-water mark (Linux keeps it across vfork and exec)."""
    timed = os.path.exists(TIME)
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as rss:
        measured = [TIME, "-f", "%M", "-o", rss.name, *command] if timed else command
        start = time.perf_counter()
        process = subprocess.Popen(measured, env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        output = out.read()
        reported = rss.read().split()
        rss_kb = int(reported[-1]) if timed and reported else usage.ru_maxrss
    if process.returncode not in (0, 1):  # audit exits 1 when it finds errors
        raise SystemExit(f"{' '.join(command)} exited {process.returncode}")
    return Run(seconds, rss_kb / 1024, output, usage.ru_utime + usage.ru_stime)


Measure = tuple[Callable[[], Run], Callable[[], None] | None]  # (run it, before each run)


def rounds(runs: int, measures: dict[str, Measure]) -> dict[str, Run]:
    """Each measure `runs` times, taking turns (a burst of load on this shared machine then
    falls on all of them), the fastest run of each kept, with the highest peak RSS."""
    results: dict[str, list[Run]] = {name: [] for name in measures}
    for _ in range(runs):
        for name, (measure, before) in measures.items():
            if before:
                before()
            results[name].append(measure())
    best = {}
    for name, measured in results.items():
        fastest = min(measured, key=lambda r: r.seconds)
        best[name] = Run(fastest.seconds, max(r.rss_mb for r in measured), fastest.output,
                         min(r.cpu for r in measured))
    return best


def warm_page_cache(root: Path) -> None:
    for folder, _, names in os.walk(root):
        for name in names:
            try:
                with open(os.path.join(folder, name), "rb") as handle:
                    while handle.read(1 << 24):
                        pass
            except OSError:
                pass


def tree(scale: float) -> Path:
    name = f"tree-{scale:g}x"
    return generate.ensure(HERE / ".data" / name, projects=round(1000 * scale),
                           memories=round(20000 * scale), transcript_mb=round(205 * scale))


class Report:
    def __init__(self) -> None:
        self.missed: list[str] = []

    def line(self, label: str, seconds: float, extra: str = "") -> None:
        print(f"  {label:<44} {seconds * 1000:9.0f} ms  {extra}", flush=True)

    def value(self, label: str, value: float, unit: str = "x") -> None:
        """A figure with no target of its own."""
        print(f"  {label:<44} {value:9.2f} {unit}", flush=True)

    def ratio(self, label: str, value: float, target: float, unit: str = "x") -> None:
        met = value <= target
        print(f"  {label:<44} {value:9.2f} {unit:<3} target <= {target:g}{unit}: "
              f"{'met' if met else 'MISSED'}", flush=True)
        if not met:
            self.missed.append(label)


def tree_figures(scale: float, runs: int, compare: bool, report: Report,
                 audits: bool = True) -> dict[str, float]:
    home = tree(scale)
    stats = json.loads((home.parent / generate.MANIFEST).read_text())["stats"]
    print(f"\ntree {scale:g}x: {home.parent} {stats}")
    warm_page_cache(home / "projects")
    box = Sandbox(home)
    env = box.env()
    projects_dir = str(home / "projects")
    try:
        if audits:
            run([*MEMTUI, "audit", "--all", "--json"], env)  # fills the audit cache

        def measure(*command: str) -> Callable[[], Run]:
            return lambda: run(list(command), env)

        def cold() -> None:  # the discovery cache only: the audit cache stays warm
            folder = box.root / "cache" / "memtui"
            for cache in [*folder.glob("discovery*.json"), folder / "transcript-evidence.json"]:
                cache.unlink(missing_ok=True)

        measures: dict[str, Measure] = {
            "startup": (measure(*MEMTUI, "--help"), None),
            "projects cold": (measure(*MEMTUI, "projects", "--json"), cold),
            "projects warm": (measure(*MEMTUI, "projects", "--json"), None),
        }
        if audits:
            measures["audit cold"] = (
                measure(*MEMTUI, "audit", "--all", "--json", "--no-cache"), cold)
            measures["audit cached"] = (measure(*MEMTUI, "audit", "--all", "--json"), None)
        if compare:
            measures["io"] = (measure(*FLOORS, "io", projects_dir), None)
            if audits:
                measures["lines"] = (measure(*FLOORS, "lines", projects_dir), None)
        got = rounds(runs, measures)
        if got["projects warm"].output != got["projects cold"].output:
            raise SystemExit("projects --json: the second run printed something else")
        report.line("memtui --help (start-up)", got["startup"].seconds)
        report.line("projects --json, cold", got["projects cold"].seconds,
                    f"peak RSS {got['projects cold'].rss_mb:.0f} MB")
        report.line("projects --json, second run", got["projects warm"].seconds)
        figures = {"projects": got["projects cold"].seconds,
                   "projects warm": got["projects warm"].seconds}
        if audits:
            report.line("audit --all --json --no-cache, cold", got["audit cold"].seconds,
                        f"CPU {got['audit cold'].cpu:.2f} s, peak RSS "
                        f"{got['audit cold'].rss_mb:.0f} MB (its largest process)")
            report.line("audit --all --json, cache warm", got["audit cached"].seconds,
                        f"CPU {got['audit cached'].cpu:.2f} s")
            figures["audit"] = got["audit cold"].seconds
            figures["audit cached"] = got["audit cached"].seconds
            figures["audit cpu"] = got["audit cold"].cpu
        if compare:
            io = got["io"]
            report.line("io floor", io.seconds, io.output.decode().strip())
            report.ratio("projects cold / io floor", got["projects cold"].seconds / io.seconds, 3)
            report.ratio("projects second run / io floor",
                         got["projects warm"].seconds / io.seconds, 1.27)
            figures.update(io=io.seconds)
        if compare and audits:
            lines = got["lines"]
            report.line("first-30-lines floor", lines.seconds,
                        f"CPU {lines.cpu:.2f} s; {lines.output.decode().strip()}")
            report.ratio("audit --no-cache / lines floor",
                         got["audit cold"].seconds / lines.seconds, 5)
            report.ratio("audit cached / lines floor",
                         got["audit cached"].seconds / lines.seconds, 2)
            # On a busy machine the wall times wait for CPUs others hold; the CPU-seconds do
            # not. The audit's CPU over the cores it uses, against the floor's, is what an
            # idle machine's wall ratio comes to (the audit keeps every core busy).
            cores = min(os.cpu_count() or 1, 2)
            report.value(f"  (audit --no-cache CPU / {cores} cores) / floor CPU",
                         got["audit cold"].cpu / cores / lines.cpu)
            report.value("  audit cached CPU / floor CPU (one process)",
                         got["audit cached"].cpu / lines.cpu)
            figures.update(lines=lines.seconds, lines_cpu=lines.cpu)
        return figures
    finally:
        box.close()


def overwrites_figures(size_mb: int, runs: int, report: Report) -> None:
    from bench_transcripts import DEFAULT_ROOT, Corpus

    corpus = Corpus(DEFAULT_ROOT / f"transcripts-{size_mb}mb", size_mb)
    corpus.ensure()
    folders = sorted(str(p) for p in (corpus.home / "projects").iterdir() if p.is_dir())
    warm_page_cache(corpus.home / "projects")
    box = Sandbox(corpus.home)
    env = box.env()
    try:
        command = [*MEMTUI, "overwrites", str(corpus.store), "--json"]
        got = rounds(runs, {
            "startup": (lambda: run([*MEMTUI, "--help"], env), None),
            "grep": (lambda: run(["grep", "-rcF", str(corpus.store), *folders]), None),
            "cold": (lambda: run(command, env), box.cold),
            "warm": (lambda: run(command, env), None),
        })
        startup, grep, cold, warm = got["startup"], got["grep"], got["cold"], got["warm"]
        if warm.output != cold.output:
            raise SystemExit("overwrites --json: the rescan printed something else")
        scan_cold, scan_warm = cold.seconds - startup.seconds, warm.seconds - startup.seconds
        print(f"\noverwrites on {size_mb} MB of transcripts ({corpus.root})")
        report.line("memtui --help (start-up)", startup.seconds)
        report.line("grep -rcF", grep.seconds)
        report.line("overwrites --json, cold", cold.seconds, f"peak RSS {cold.rss_mb:.0f} MB")
        report.line("overwrites --json, warm", warm.seconds, f"peak RSS {warm.rss_mb:.0f} MB")
        report.ratio(f"{size_mb} MB: (cold - start-up) / grep", scan_cold / grep.seconds, 3)
        report.ratio(f"{size_mb} MB: (warm - start-up) / (cold - start-up)",
                     scan_warm / scan_cold, 0.1)
        report.ratio(f"{size_mb} MB: peak RSS", max(cold.rss_mb, warm.rss_mb), 64, "MB")
    finally:
        box.close()


def tree_statistics(scale: float) -> None:
    """The tree's memory bodies against the real ones (bodies.REAL), and how memtui reads
    their links: the share of files that go through markdown-it."""
    import bodies

    from tui.memory import frontmatter
    from tui.memory.links import link_reading

    files, readings = [], {"none": 0, "scan": 0, "inline": 0, "markdown": 0}
    for store in (tree(scale) / "projects").glob("*/memory"):
        for folder, _, names in os.walk(store):
            for name in names:
                if not name.endswith(".md") or name == "MEMORY.md":
                    continue
                try:
                    with open(os.path.join(folder, name), encoding="utf-8") as handle:
                        text = handle.read()
                except (OSError, UnicodeDecodeError):
                    continue
                files.append((text, frontmatter.parse(text).body))
                readings[link_reading(text)] += 1
    generated = bodies.measure(files)
    print(f"\nmemory bodies, real (bodies.REAL: {bodies.REAL['files']} files of "
          f"{bodies.REAL['stores']} public stores) against this tree ({len(files):,} files)")
    for name, real in bodies.REAL.items():
        if name in ("files", "stores"):
            continue
        digits = 0 if name in ("chars p10", "chars median", "chars p90") else 2
        print(f"  {name:44} {real:9,.{digits}f} {generated[name]:9,.{digits}f}")
    print("  how memtui reads each file's links (share of files):")
    for reading, label in (("none", "no [ at all"), ("scan", "line by line"),
                           ("inline", "as paragraphs' inline content"),
                           ("markdown", "through markdown-it")):
        print(f"    {label:42} {readings[reading] / len(files):9.2f}")


def template_figure(runs: int, report: Report) -> Run:
    """`audit --all --json --no-cache` on one store of 50,000 notes over 100 words (the
    near-duplicate search's worst case): under 30 s."""
    from tui.memory.similarity import search_duplicates
    from tui.memory.store import load_store

    home = generate.ensure_template_store()
    warm_page_cache(home / "projects")
    box = Sandbox(home)
    try:
        env = box.env()
        got = rounds(runs, {"audit": (lambda: run([*MEMTUI, "audit", "--all", "--json",
                                                   "--no-cache"], env), box.cold)})["audit"]
        store = load_store(next((home / "projects").glob("*/memory")))
        start = time.process_time()
        search = search_duplicates(store.memories)
        cpu = time.process_time() - start
        print(f"\none store of {len(store.memories):,} notes over 100 words ({home.parent})")
        report.line("audit --all --json --no-cache", got.seconds,
                    f"CPU {got.cpu:.2f} s, peak RSS {got.rss_mb:.0f} MB")
        report.line("  near-duplicates alone, CPU in this process", cpu,
                    f"{search.cut:,} of {search.compared:,} memories searched within the budget")
        # One store is one worker's: an idle machine's wall time is at most the command's
        # CPU time, which a busy machine does not stretch as it stretches the wall time.
        report.ratio("50,000 notes from one template: audit CPU (s)", got.cpu, 30, "s")
        return got
    finally:
        box.close()


def near_duplicates_figure(scale: float, report: Report) -> None:
    from tui.memory.similarity import near_duplicates
    from tui.memory.store import load_store

    projects = tree(scale) / "projects"
    biggest = max((p / "memory" for p in projects.iterdir() if (p / "memory").is_dir()),
                  key=lambda m: len(os.listdir(m)))
    store = load_store(biggest)
    start, cpu = time.perf_counter(), time.process_time()
    pairs = near_duplicates(store.memories)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"\nnear-duplicates in the biggest store ({len(store.memories)} memories, "
          f"{len(pairs)} pairs), in this process: {seconds:.2f} s wall")
    # Judged by its CPU time: one thread, so an idle machine's wall time (a busy one's wall
    # time is mostly waiting for a CPU).
    report.ratio("near_duplicates, CPU (s)", cpu, 1, "s")


# The least a Textual app costs before it shows anything: Header, one line of text, Footer.
BARE_TEXTUAL_APP = """
from textual.app import App
from textual.widgets import Footer, Header, Static

class Bare(App):
    def compose(self):
        yield Header()
        yield Static("bare app ready")
        yield Footer()

Bare().run()
"""


def app_env(env: dict[str, str]) -> dict[str, str]:
    """What the app in tmux gets of a sandbox's environment (PYTHONPATH: another memtui)."""
    return {k: env[k] for k in ("CLAUDE_CONFIG_DIR", "HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
                                "XDG_DATA_HOME", "XDG_CONFIG_HOME", "PYTHONPATH") if k in env}


def rows_listed(screen: str) -> bool:
    """The projects table is filled: the status line says "N projects in", set in the same
    frame as the rows."""
    return bool(re.search(r"\d projects? in ", screen))


def on_screen(command: str, env: dict[str, str], done: Callable[[str], bool],
              first: str | None = None) -> tuple[float, float]:
    """Seconds from starting `command` in a fresh tmux (120x40) until `done(screen)`, and
    until `first` was on screen."""
    from tmux_terminal import TmuxTerminal

    start = time.perf_counter()
    first_frame = None
    screen = ""
    with TmuxTerminal(command, env) as terminal:
        while time.perf_counter() < start + 30:
            screen = terminal.screen()
            if first and first_frame is None and first in screen:
                first_frame = time.perf_counter() - start
            if done(screen):
                seconds = time.perf_counter() - start
                return seconds, first_frame or seconds
            time.sleep(0.01)
    raise SystemExit(f"{command}: not done on screen after 30 s:\n{screen}")


def app_figure(scale: float, runs: int, report: Report) -> None:
    """From starting `memtui` in a fresh tmux until the projects table holds its rows (the
    status line says "N projects in", set in the same frame as the rows); in turns with a
    bare Textual app until its one line is painted, what Textual alone costs here."""
    home = tree(scale)
    box = Sandbox(home)
    try:
        env = box.env()
        run([*MEMTUI, "projects", "--json"], env)  # the discovery cache, as after any use
        passed = app_env(env)
        bare_script = box.root / "bare_textual_app.py"
        bare_script.write_text(BARE_TEXTUAL_APP)

        times, first_frames, bare = [], [], []
        for _ in range(runs):
            rows, first_frame = on_screen(f"{sys.executable} -m tui", passed, rows_listed,
                                          "memtui")
            times.append(rows)
            first_frames.append(first_frame)
            bare.append(on_screen(f"{sys.executable} {bare_script}", passed,
                                  lambda screen: "bare app ready" in screen)[0])
        print(f"\napp: `python -m tui` in tmux (120x40) until the projects table is filled "
              f"(discovery cache warm); rows at {', '.join(f'{t:.2f}' for t in times)} s, "
              f"first frame at {', '.join(f'{t:.2f}' for t in first_frames)} s; a bare "
              f"Textual app painted at {', '.join(f'{t:.2f}' for t in bare)} s")
        report.line("bare Textual app painted", min(bare))
        report.line("app first frame (header painted)", min(first_frames))
        report.value("app rows on screen / bare Textual app", min(times) / min(bare))
        report.ratio("app rows on screen (s)", min(times), 0.8, "s")
    finally:
        box.close()


def fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares (intercept, slope)."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else 0.0
    return mean_y - slope * mean_x, slope


def compile_timed_package(checkout: Path) -> None:
    """Bytecode for the memtui being timed, as an install has (pip compiles it). Without
    it, a shell with PYTHONDONTWRITEBYTECODE set compiles every changed module in every
    timed run: ~10 ms of each command that is not memtui's."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "tui")],
                   check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="tree size (default 1x)")
    parser.add_argument("--runs", type=int, default=3, help="best of N (default 3)")
    parser.add_argument("--compare", action="store_true", help="floors and ratios too")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--growth", default="", help="scales to measure, e.g. 0.25,0.5,1,2")
    parser.add_argument("--overwrites-mb", default="", help="corpus sizes, e.g. 165,1024")
    parser.add_argument("--no-app", action="store_true", help="skip the tmux measurement")
    parser.add_argument("--no-template", action="store_true",
                        help="skip the 50,000-note template store (minutes to make and audit)")
    parser.add_argument("--projects-only", action="store_true",
                        help="only `projects` and the app (no audit, near-duplicates, growth)")
    args = parser.parse_args(argv)
    # `python -m tui` imports the memtui of its working directory first: the commands run
    # elsewhere, so that PYTHONPATH (another checkout) or else this checkout is what is timed.
    os.environ.setdefault("PYTHONPATH", str(HERE.parent))
    os.chdir(tempfile.gettempdir())
    compile_timed_package(Path(os.environ["PYTHONPATH"].split(os.pathsep)[0]))

    load = os.getloadavg()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}  {os.cpu_count()} cores, load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; warm page cache; best of {args.runs}")
    report = Report()
    template = None
    tree_figures(args.scale, args.runs, args.compare, report, audits=not args.projects_only)
    if args.compare:
        if not args.projects_only:
            tree_statistics(args.scale)
            near_duplicates_figure(args.scale, report)
            if not args.no_template:
                template = template_figure(args.runs, report)
        if not args.no_app:
            app_figure(args.scale, args.runs, report)
        for size in filter(None, args.overwrites_mb.split(",")):
            overwrites_figures(int(size), args.runs, report)
    if args.growth:
        scales = [float(s) for s in args.growth.split(",")]
        curve = {s: tree_figures(s, args.runs, args.compare, Report()) for s in scales}
        print("\ngrowth (cold; ms, CPU-seconds, CPU-ms per 1,000 memories)")
        print(f"  {'scale':>6} {'projects':>9} {'audit':>9} {'audit CPU':>10} {'CPU/1k':>7}" +
              (f" {'io floor':>9} {'lines':>9} {'proj/io':>8} {'audit/lines':>12}"
               if args.compare else ""))
        for s, f in curve.items():
            row = (f"  {s:6g} {f['projects'] * 1000:9.0f} {f['audit'] * 1000:9.0f}"
                   f" {f['audit cpu']:10.2f} {f['audit cpu'] / (20 * s) * 1000:7.0f}")
            if args.compare:
                row += (f" {f['io'] * 1000:9.0f} {f['lines'] * 1000:9.0f}"
                        f" {f['projects'] / f['io']:8.2f} {f['audit'] / f['lines']:12.2f}")
            print(row)
        if template is not None:
            print(f"  one store of 50,000 notes from a template: audit {template.seconds * 1000:.0f}"
                  f" ms, CPU {template.cpu:.2f} s, {template.cpu / 50 * 1000:.0f} CPU-ms per "
                  "1,000 memories")
        for key in ("projects", "audit", "audit cpu"):
            intercept, slope = fit([(s, f[key]) for s, f in curve.items()])
            print(f"  {key}: {intercept * 1000:.0f} ms + {slope * 1000:.0f} ms per 1x tree")
        ordered = sorted(curve)
        for small, large in zip(ordered, ordered[1:], strict=False):
            report.ratio(f"audit CPU, {large:g}x tree / {small:g}x tree",
                         curve[large]["audit cpu"] / curve[small]["audit cpu"],
                         round(1.1 * large / small, 2))
    load = os.getloadavg()
    print(f"\nload average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if report.missed:
        print("MISSED: " + "; ".join(report.missed))
    return 1 if args.check and report.missed else 0


if __name__ == "__main__":
    sys.exit(main())
