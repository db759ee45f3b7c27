"""No data drives the terminal: control characters in memory files, indexes and file names
are shown (␛), never written raw, by the CLI and by the app; `--json` stays exact."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import settle
from rich.segment import Segment
from textual.color import Color

from tui.app.app import DROP_CONTROLS, MemtuiApp
from tui.claude.discovery import discover
from tui.visible import json_visible, visible

ESC_NAME = "evil\x1b[2J"
ESC_DESCRIPTION = "looks fine \x1b]0;owned\x07 \x1b]8;;http://evil.invalid\x1b\\link\x1b]8;;\x1b\\"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def test_visible_shows_controls_and_keeps_lines():
    assert visible("a\x1b[31mb\tc\nd") == "a\u241b[31mb\tc\nd"
    assert visible("bell\x07 del\x7f csi\x9b rtl\u202e") == (
        "bell\u2407 del\u2421 csi<U+009B> rtl<U+202E>")
    assert visible("plain text, 中文") == "plain text, 中文"


def test_json_escapes_what_it_would_otherwise_write_raw():
    text = json.dumps({"d": "csi\x9b rtl\u202e esc\x1b"}, ensure_ascii=False)
    shown = json_visible(text)
    assert not any(char in shown for char in RAW)
    assert json.loads(shown) == {"d": "csi\x9b rtl\u202e esc\x1b"}


@pytest.fixture
def hostile_store(claude_home, tmp_path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    store = claude_home.store(project)
    body = "Run them all.\x1b[2J\x1b[H\n**Why:** \x9b31m red\n"
    (store / "evil\x1bname.md").write_text(
        f'---\nname: "{ESC_NAME}"\ndescription: "{ESC_DESCRIPTION}"\ntype: user\n---\n{body}')
    (store / "MEMORY.md").write_text(
        "# Memory\n- [Title\x1b[2J](evil\x1bname.md) — hook \x1b]0;t\x07\n"
        "- [Gone](gone\u202e.md) — x\n")
    return store


def run_cli(home, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
         *args], capture_output=True, text=True, env={**os.environ, **home.env}, timeout=60)


@pytest.mark.parametrize("command", [
    ["audit", "{store}"], ["index", "{store}", "--loaded"], ["index", "{store}"],
    ["projects"], ["audit", "--all"], ["dream", "{store}", "--engine", "offline", "--dry-run"],
    ["doctor", "{store}"],
])
def test_the_cli_never_writes_a_control_character_from_the_data(hostile_store, claude_home,
                                                                command):
    result = run_cli(claude_home, *(part.format(store=hostile_store) for part in command))

    assert result.returncode in (0, 1), result.stderr
    for raw in RAW:
        assert raw not in result.stdout and raw not in result.stderr
    if command[0] in ("audit", "index", "dream") and "--all" not in command:
        assert "\u241b" in result.stdout + result.stderr  # shown, not hidden


def test_json_keeps_the_exact_data(hostile_store, claude_home):
    result = run_cli(claude_home, "audit", str(hostile_store), "--json")

    for raw in RAW:
        assert raw not in result.stdout
    files = {finding["file"] for finding in json.loads(result.stdout)["findings"]}
    assert "evil\x1bname.md" in files


def test_the_apps_last_filter_drops_controls_without_moving_a_cell():
    segments = [Segment("ok "), Segment("a\x1b[2Jb\x9b"), Segment("", None, [(1,)])]

    filtered = DROP_CONTROLS.apply(segments, Color(0, 0, 0))

    assert [segment.text for segment in filtered] == ["ok ", "a[2Jb", ""]
    assert sum(segment.cell_length for segment in filtered) == sum(
        segment.cell_length for segment in segments)
    assert DROP_CONTROLS in MemtuiApp(Path("/nonexistent"), {}).get_line_filters()


async def test_the_app_shows_controls_in_the_preview_and_the_index(hostile_store, claude_home):
    from tui.app.screens.store import StoreScreen

    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        project = next(p for p in discover(claude_home.home, claude_home.env).projects
                       if p.store == hostile_store)
        app.push_screen(StoreScreen(project))
        await settle(app, pilot)
        title = str(app.screen.query_one("#preview-title").render())
        assert "\u241b" in title and "\x1b" not in title
        await pilot.press("2")
        view = app.screen.query_one("#index-view")
        index = "\n".join(view.render_row(row).text for row in range(view.virtual_size.height))
        assert "\x1b" not in index and "\u241b" in index
