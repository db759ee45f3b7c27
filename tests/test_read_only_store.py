"""A store nothing can be written in (a read-only mount, its mode) says so before anything
is tried: in the projects list, the audit and the store screen, not first at Apply.

The tests run as root, whom a folder's mode does not stop: the immutable flag (`chattr +i`)
does, as a read-only mount would.
"""

from __future__ import annotations

import json
import subprocess
import time

import pytest
from app_home import build_app_home, open_first_store
from conftest import settle, snapshot
from textual.widgets import Static

from tui import cli
from tui.app.app import MemtuiApp
from tui.app.widgets.virtual_table import VirtualTable
from tui.memory.audit_cache import SETTLE_NS


@pytest.fixture
def fixture(claude_home, tmp_path):
    return build_app_home(claude_home, tmp_path)


@pytest.fixture
def read_only(fixture):
    """The fixture's store, made read-only for the test's length."""
    store = str(fixture.store)
    if subprocess.run(["chattr", "+i", store], capture_output=True).returncode != 0:
        pytest.skip("this file system has no immutable flag (chattr +i)")
    yield fixture
    subprocess.run(["chattr", "-i", store], check=True)


def run(capsys, fixture, *words: str) -> tuple[int, str]:
    code = cli.main(["--config-dir", str(fixture.home), *words])
    return code, capsys.readouterr().out


def test_the_projects_list_says_read_only_and_why(read_only, capsys):
    code, out = run(capsys, read_only, "projects")
    assert code == 0
    (row,) = [line for line in out.splitlines() if line.startswith(str(read_only.project))]
    assert row.split()[-1] == "read-only"
    assert (f"read-only: {read_only.store} cannot be written (you have no permission to write "
            "in it): Claude Code cannot save a memory there") in " ".join(out.split())


def test_the_audit_has_a_read_only_error_even_when_its_findings_are_cached(read_only, capsys):
    code, out = run(capsys, read_only, "audit", str(read_only.project), "--json")
    kinds = {f["kind"]: f for f in json.loads(out)["findings"]}
    assert code == 1 and kinds["read_only"]["severity"] == "error"
    assert "Claude Code cannot save a memory in it" in kinds["read_only"]["message"]
    time.sleep(SETTLE_NS / 1e9)  # only a store unchanged for this long is cached
    for cached in (False, True):  # the second run is answered from the cache
        code, out = run(capsys, read_only, "audit", "--all", "--json")
        (audit,) = json.loads(out)
        assert audit["cached"] is cached
        assert "read_only" in {f["kind"] for f in audit["findings"]}
    subprocess.run(["chattr", "-i", str(read_only.store)], check=True)
    code, out = run(capsys, read_only, "audit", "--all", "--json")
    (audit,) = json.loads(out)
    assert audit["cached"] and "read_only" not in {f["kind"] for f in audit["findings"]}


async def test_the_app_says_read_only_on_the_projects_screen_and_in_the_store_header(read_only):
    before = snapshot(read_only.store)
    app = MemtuiApp(read_only.home, read_only.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        (row,) = app.screen.query_one("#projects", VirtualTable).rows
        assert "read-only" in [str(cell) for cell in row.cells]
        screen = await open_first_store(app, pilot, read_only)
        banner = screen.query_one("#lock-banner", Static)
        assert banner.display and str(banner.content) == (
            "Read-only (you have no permission to write in it): Claude Code cannot save a "
            "memory here, and no change can be applied.")
        await pilot.press("3")
        await settle(app, pilot)
        kinds = [str(r.cells[1]) for r in screen.query_one("#findings-table", VirtualTable).rows]
        assert "read_only" in kinds
        await pilot.press("1", "r")  # relink the orphans: refused before any dialog
        await settle(app, pilot)
        assert app.screen is screen
        assert any(n.message.startswith("Read-only") for n in app._notifications)
    assert snapshot(read_only.store) == before
