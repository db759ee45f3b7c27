"""Save pictures of the real app on the demo data: `screenshots/<screen>.svg` and `.png`.

    python scripts/screenshots.py [--out screenshots]

The demo is built with a fixed clock under a temporary HOME, so paths read `~/code/...`
and the pictures only change when the app does. PNGs need Debian's `chromium` (and
`fonts-firacode`, `fonts-symbola` for the glyphs); without it only SVGs are written.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZE = (140, 42)
DEMO_NOW = 1_795_000_000.0  # 2026-11-18, the demo's fixed "now"


async def capture(out: Path, home: Path) -> list[Path]:
    from tui.app.app import MemtuiApp

    for variable in ("VISUAL", "EDITOR"):
        os.environ.pop(variable, None)
    app = MemtuiApp(home, {"CLAUDE_CONFIG_DIR": str(home)}, now=DEMO_NOW)
    saved: list[Path] = []

    async def settle(pilot) -> None:
        for _ in range(2):
            await pilot.pause(0.2)
            await app.settled()

    def shot(name: str) -> None:
        saved.append(Path(app.save_screenshot(filename=f"{name}.svg", path=str(out))))

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shot("projects")
        table = app.screen.query_one("#projects")
        webapp = next(i for i, row in enumerate(table.rows) if "webapp" in row.key
                      and "worktrees" not in row.key)
        table.move_cursor(webapp)
        await pilot.press("enter")
        await settle(pilot)
        shot("store")
        await pilot.press("2")
        await settle(pilot)
        shot("index")
        await pilot.press("3")
        await settle(pilot)
        shot("findings")
        await pilot.press("4")
        await settle(pilot)
        await pilot.click("#recall-query")
        await pilot.press(*"how do we run the tests")
        await settle(pilot)
        shot("recall")
        await pilot.press("escape")  # leave the query so 1-4 switch tabs again
        await pilot.press("1")
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        shot("relink")
        await pilot.press("escape")
        await pilot.press("f1")
        await settle(pilot)
        shot("help")
        await pilot.press("f1")
        await pilot.press("e")  # no $EDITOR here: the in-app editor, as under `memtui serve`
        await settle(pilot)
        shot("editor")
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+d")
        run = app.screen
        while not getattr(run, "finished", True):
            await pilot.pause(0.1)
        await settle(pilot)
        shot("dream")
        await pilot.press("enter")
        await settle(pilot)
        shot("review")
    return saved


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
    parser.add_argument("--out", type=Path, default=Path(__file__).parent.parent / "screenshots")
    args = parser.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)

    # A fixed place, so the store folder names in the pictures do not change between runs.
    temp = Path(tempfile.gettempdir()) / "memtui-screens"
    shutil.rmtree(temp, ignore_errors=True)
    try:
        fake_home = temp / "home"
        fake_home.mkdir(parents=True)
        os.environ["HOME"] = str(fake_home)
        for variable in ("MEMTUI_DATA_DIR", "MEMTUI_STATE_DIR", "MEMTUI_CACHE_DIR"):
            os.environ[variable] = str(temp / variable.lower())
        os.environ["TZ"] = "UTC"
        time.tzset()
        for variable in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
            os.environ.pop(variable, None)  # the offline engine: no network, same pictures
        from tui.demo import build_demo

        demo = build_demo(fake_home / "demo", now=DEMO_NOW)
        svgs = asyncio.run(capture(out, demo.home))
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    for svg in svgs:
        png = to_png(svg)
        print(f"{svg.name}: {'PNG too' if png else 'SVG only (no chromium)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
