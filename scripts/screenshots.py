"""Save pictures of the real app on the demo data: `screenshots/<screen>.svg` and `.png`.

    python scripts/screenshots.py [--out screenshots]

The demo is built with a fixed clock under a temporary HOME, so every path reads `~/...` and
the pictures only change when the app does (the dream's elapsed times aside: they are real). The dream runs with the anthropic engine against
the tests' fake Messages API (tests/fake_anthropic.py, started here on 127.0.0.1), which
answers after short delays and streams its replies word by word: the dream is pictured
mid-run, its phases moving and the token counts as the API reported them.

PNGs need Debian's `chromium` (without it only SVGs are written). Code is drawn in DejaVu Sans
Mono (`fonts-dejavu-core`), which has no ligatures, so `---` stays three dashes; symbols come
from `fonts-symbola`:

    apt-get install -y chromium fonts-dejavu-core fonts-symbola
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the fake Messages API

SIZE = (140, 42)
SEARCH_SIZES = ((80, 24), (120, 40))  # the search screen, as the README shows it
DEMO_NOW = 1_795_000_000.0  # 2026-11-18, the demo's fixed "now"
CODE_FONT = "DejaVu Sans Mono"  # fonts-dejavu-core: no ligatures
API_KEY = "screenshots"
API_PORT = 41911


class DemoDatetime(dt.datetime):
    """The demo's clock, for the dream's label: the review picture does not change daily."""

    @classmethod
    def now(cls, tz=None):
        return cls.fromtimestamp(DEMO_NOW, tz)


def dream_script():
    """What the fake model answers, phase by phase: (reply, delay) steps in order."""
    from fake_anthropic import Scripted, text, tool

    def step(*blocks, usage, delay=0.4, stream_delay=0.0):
        return Scripted(list(blocks), delay=delay, stream_delay=stream_delay, usage=usage)

    return [
        # Orient
        step(text("Reading the index and the files first."), tool("list_files"),
             usage=(5_812, 96)),
        step(text("MEMORY.md is 221 lines: Claude loads 194, so 29 memories are past the cut."),
             usage=(7_305, 168)),
        # Gather
        step(tool("grep_transcripts", pattern="Playwright|pnpm"), usage=(8_010, 74)),
        step(text("Three sessions since the last dream: the Playwright pin, the pnpm rule and "
                  "the checkout pagination decision."), usage=(9_407, 211)),
        # Consolidate: read, then a reply that streams slowly enough to be pictured
        step(tool("read_file", path="project_flaky_e2e.md"), usage=(10_388, 58)),
        step(text("project_flaky_e2e.md says the suite started flaking yesterday, and a "
                  "session overwrote the line that Aiko pinned Playwright to 1.48 on main "
                  "until WEB-4211 lands. I will date the flake and bring the pin back into "
                  "the same memory, so both facts stay together."),
             tool("edit_file", path="project_flaky_e2e.md",
                  old_text="started flaking yesterday after the Playwright bump to 1.49;",
                  new_text="started flaking on 2026-11-17 after the Playwright bump to 1.49 "
                           "(Aiko pinned Playwright to 1.48 on main until WEB-4211 lands);"),
             usage=(12_930, 380), stream_delay=0.12),
        step(text("Merged: one memory for the flake and the pin."), usage=(13_540, 41)),
        # Prune and index, then the corrective turn memtui asks for while the index is over
        step(text("The index is over its limits; the entries past the cut are older notes."),
             usage=(14_102, 77)),
        step(text("Left as it is: memtui prunes it deterministically."), usage=(14_480, 35)),
        step(text("Done."), usage=(14_512, 8)),
    ]


async def capture(out: Path, home: Path, api_url: str) -> list[Path]:
    from textual.widgets import Static

    from tui.agents.events import RUNNING
    from tui.app.app import MemtuiApp

    for variable in ("VISUAL", "EDITOR"):
        os.environ.pop(variable, None)
    env = {"CLAUDE_CONFIG_DIR": str(home), "ANTHROPIC_API_KEY": API_KEY,
           "ANTHROPIC_BASE_URL": api_url}
    app = MemtuiApp(home, env, now=DEMO_NOW)
    saved: list[Path] = []

    async def settle(pilot) -> None:
        for _ in range(2):
            await pilot.pause(0.2)
            await app.settled()

    async def until(pilot, condition, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError("the app never got there")
            await pilot.pause(0.05)

    def shot(name: str) -> None:
        saved.append(Path(app.save_screenshot(filename=f"{name}.svg", path=str(out))))

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shot("projects")
        table = app.screen.query_one("#projects")
        labels = [str(row.cells[0]) for row in table.rows]
        table.move_cursor(labels.index("~/code/webapp-worktrees/feature-auth"))
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("R")  # bring the stranded worktree's memories home
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
        await settle(pilot)
        shot("rescue")
        await pilot.press("escape", "escape")
        await settle(pilot)
        table = app.screen.query_one("#projects")
        table.move_cursor(labels.index("~/code/webapp"))
        await pilot.press("enter")
        await settle(pilot)
        shot("store")
        await pilot.press("2")
        await settle(pilot)
        shot("index")
        await pilot.press("3")
        await settle(pilot)
        shot("findings")
        findings = app.screen.query_one("#findings-table")
        findings.move_cursor(next(number for number, row in enumerate(findings.rows)
                                  if row.finding.kind == "unindexed"))
        await pilot.press("r")  # the highlighted finding only
        await settle(pilot)
        shot("relink")
        await pilot.press("escape")
        await settle(pilot)
        findings.move_cursor(next(number for number, row in enumerate(findings.rows)
                                  if row.finding.kind == "stale_path"))
        await settle(pilot)
        shot("stale-path")
        await pilot.press("p")  # the renamed path written as it is now
        await until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
        await settle(pilot)
        shot("repath")
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("4", *"how do we run the tests")
        app.screen.query_one("#recall-query").cursor_blink = False  # the same picture each time
        await settle(pilot)
        shot("recall")
        await pilot.press("escape", "1", "f1")  # esc leaves the question: a digit is text
        await settle(pilot)
        shot("help")
        await pilot.press("f1", "e")  # no $EDITOR here: the in-app editor, as under `serve`
        await settle(pilot)
        shot("editor")
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("w")
        await until(pilot, lambda: getattr(app.screen, "report", None) is not None)
        await settle(pilot)
        shot("doctor")
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+d")
        run = app.screen
        live = run.query_one("#run-live", Static)
        await until(pilot, lambda: run.phases["Consolidate"].status == RUNNING
                    and len(run.streaming.split()) >= 24)
        await pilot.pause(0.1)
        shot("dream")
        await until(pilot, lambda: run.finished and not live.display)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        shot("review")
    return saved


async def capture_search(out: Path, home: Path, size: tuple[int, int]) -> Path:
    """The search screen at a terminal size of its own (`/` on the projects screen, a query
    typed, the second result highlighted): `search-<cols>x<rows>.svg`."""
    from tui.app.app import MemtuiApp

    app = MemtuiApp(home, {"CLAUDE_CONFIG_DIR": str(home)}, now=DEMO_NOW)
    async with app.run_test(size=size) as pilot:
        await app.settled()
        await pilot.press("slash", *"release train")
        app.screen.query_one("#search-query").cursor_blink = False
        deadline = time.monotonic() + 60
        while not app.screen.query_one("#search-results").rows:
            if time.monotonic() > deadline:
                raise TimeoutError("the search never answered")
            await pilot.pause(0.05)
        await pilot.press("down", "down")
        await pilot.pause(0.2)
        name = f"search-{size[0]}x{size[1]}.svg"
        return Path(app.save_screenshot(filename=name, path=str(out)))


def ligature_free(svg: Path) -> None:
    """Draw the picture's text in CODE_FONT, whatever the SVG asked for."""
    text = svg.read_text(encoding="utf-8")
    text = re.sub(r"\s*@font-face \{.*?\}", "", text, flags=re.S)
    text = text.replace("font-family: Fira Code, monospace;",
                        f'font-family: "{CODE_FONT}", monospace; font-variant-ligatures: none;')
    svg.write_text(text, encoding="utf-8")


def to_png(svg: Path) -> Path | None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return None
    view_box = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg.read_text(encoding="utf-8"))
    width, height = (math.ceil(float(v)) for v in view_box.groups())
    png = svg.with_suffix(".png")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}", "--hide-scrollbars",
             f"--window-size={width},{height}", f"--screenshot={png}", svg.as_uri()],
            capture_output=True, check=False, timeout=60,
        )
    return png if png.exists() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    args = parser.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)

    temp = Path(tempfile.gettempdir()) / "memtui-screens"
    shutil.rmtree(temp, ignore_errors=True)
    try:
        fake_home = temp / "home"
        fake_home.mkdir(parents=True)
        os.environ["HOME"] = str(fake_home)  # every path on screen reads ~/...
        for variable in ("MEMTUI_DATA_DIR", "MEMTUI_STATE_DIR", "MEMTUI_CACHE_DIR",
                         "XDG_CONFIG_HOME"):
            os.environ[variable] = str(temp / variable.lower())
        os.environ["TZ"] = "UTC"
        time.tzset()
        for variable in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_MODEL"):
            os.environ.pop(variable, None)

        from tui.agents import dream
        from tui.demo import build_demo

        dream.dt = SimpleNamespace(datetime=DemoDatetime, date=dt.date)

        demo = build_demo(fake_home, now=DEMO_NOW)
        with fake_api() as api:
            api.queue(*dream_script())
            svgs = asyncio.run(capture(out, demo.home, api.url))
        svgs += [asyncio.run(capture_search(out, demo.home, size)) for size in SEARCH_SIZES]
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    for svg in svgs:
        ligature_free(svg)
        png = to_png(svg)
        print(f"{svg.name}: {'PNG too' if png else 'SVG only (no chromium)'}")
    return 0


def fake_api():
    """The fake Messages API, on the same port each time when it is free: the doctor's
    screenshot shows the API's address."""
    from fake_anthropic import FakeAnthropic

    try:
        return FakeAnthropic(API_KEY, port=API_PORT)
    except OSError:
        return FakeAnthropic(API_KEY)


if __name__ == "__main__":
    sys.exit(main())
