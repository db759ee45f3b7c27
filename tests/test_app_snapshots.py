"""Snapshots of every screen at 80x24 and 120x40, on the demo config home with a fixed clock,
path and timezone.

Store keys (the sanitized project paths) show on screen, so the demo is built at one fixed
path; a lock file keeps two test runs on the same machine from building it at once. Time is
kept out: the app's clock, the journal's commit times, a dream's label and the run screen's
timer are all fixed, and cursors do not blink. Accept changed screens with
`pytest tests/test_app_snapshots.py --snapshot-update` after looking at the SVGs under
tests/__snapshots__/.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import inspect
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import isolate_git, settle
from textual.widgets import Input, TabbedContent, TextArea
from waiting import PATIENCE, pilot_until

from tui.agents import dream
from tui.agents.dream import PHASES, run_dream
from tui.agents.events import DONE, RUNNING, LogLine, ModelText, Phase, PhaseChanged
from tui.agents.result import CANCELLED, RunResult
from tui.app.app import MemtuiApp
from tui.app.runs import Engine
from tui.app.screens import run as run_screen
from tui.app.screens.review import ReviewScreen
from tui.app.screens.run import RunScreen
from tui.app.widgets.virtual_table import VirtualTable
from tui.claude import paths
from tui.demo import Demo, build_demo
from tui.history import journal

ROOT = Path("/tmp/memtui-snapshots")
LOCK = Path("/tmp/memtui-snapshots.lock")
NOW = 1_767_225_600.0  # 2026-01-01 00:00 UTC: the demo's and the app's clock
SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
WEBAPP = "~/code/webapp"
# One demo path for all: in one worker of a parallel run, not waiting on the lock in two.
pytestmark = pytest.mark.xdist_group("snapshots")


# The journal's `time`: every commit made during a snapshot is made at NOW.
FIXED_CLOCK = SimpleNamespace(time=lambda: NOW, strftime=time.strftime)


class FixedDatetime(dt.datetime):
    @classmethod
    def now(cls, tz=None):
        return cls.fromtimestamp(NOW, tz)


@pytest.fixture(params=list(SIZES), ids=list(SIZES))
def size(request) -> tuple[int, int]:
    return SIZES[request.param]


def fix_the_world(patch: pytest.MonkeyPatch) -> None:
    """What a screen shows besides the demo, the same on every run."""
    patch.setenv("TZ", "UTC")
    time.tzset()
    patch.setenv("HOME", str(ROOT))  # paths read `~/code/webapp`
    for variable in ("VISUAL", "EDITOR"):  # `e` edits in the app
        patch.delenv(variable, raising=False)
    patch.setattr(journal, "time", FIXED_CLOCK)
    patch.setattr(dream, "dt", SimpleNamespace(datetime=FixedDatetime, date=dt.date))
    patch.setattr(run_screen, "time", SimpleNamespace(monotonic=lambda: NOW))
    # A cursor blinks every half second: a screenshot taken late would catch it off.
    patch.setattr(Input, "_toggle_cursor", lambda self: None)
    patch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)


@contextmanager
def demo_place() -> Iterator[None]:
    """ROOT, empty, for this process alone until it is removed again (anything there when
    the lock is taken was left by a run that was killed)."""
    with LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(ROOT, ignore_errors=True)
        try:
            yield
        finally:
            shutil.rmtree(ROOT, ignore_errors=True)


@pytest.fixture(scope="module")
def demo_built(tmp_path_factory) -> tuple[Demo, Path]:
    """The demo as built at ROOT, and a copy of it: a build runs git a dozen times, a copy
    takes a tenth of its time."""
    kept = tmp_path_factory.mktemp("demo") / "as-built"
    with pytest.MonkeyPatch.context() as patch, demo_place():
        fix_the_world(patch)
        isolate_git(patch)
        built = build_demo(ROOT, now=NOW)
        shutil.copytree(ROOT, kept, symlinks=True)  # times kept
    time.tzset()
    return built, kept


@pytest.fixture
def demo(monkeypatch, demo_built):
    """The demo as built, at ROOT, whatever an earlier test did to it."""
    built, kept = demo_built
    fix_the_world(monkeypatch)
    with demo_place():
        shutil.copytree(kept, ROOT, symlinks=True)
        yield built
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def app(demo):
    return MemtuiApp(demo.home, {"CLAUDE_CONFIG_DIR": str(demo.home)}, now=NOW)


async def open_webapp(pilot) -> None:
    """From the projects screen, open the demo's big store (past the cut, with orphans)."""
    await settle(pilot.app, pilot)
    table = pilot.app.screen.query_one("#projects", VirtualTable)
    paths = [str(row.cells[0]) for row in table.rows]
    table.move_cursor(paths.index(WEBAPP))
    await pilot.press("enter")
    await settle(pilot.app, pilot)


def highlight_memory(pilot, name: str) -> None:
    table = pilot.app.screen.query_one("#memory-table", VirtualTable)
    table.move_cursor([str(row.cells[2]) for row in table.rows].index(name))


async def then(pilot, *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot.app, pilot)


def test_projects_screen(snap_compare, app, size):
    assert snap_compare(app, terminal_size=size, run_before=lambda pilot: settle(app, pilot))


def test_projects_screen_while_a_filter_is_on(snap_compare, app, size):
    async def filtered(pilot):
        await settle(app, pilot)
        await then(pilot, "f", *"webapp")
        pilot.app.screen.query_one("#project-filter").cursor_blink = False
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=filtered)


def test_search_every_memory(snap_compare, app, size):
    async def searched(pilot):
        await settle(pilot.app, pilot)
        await then(pilot, "slash", *"release train")
        await pilot_until(pilot, lambda: pilot.app.screen.query_one("#search-results").rows)
        pilot.app.screen.query_one("#search-query").cursor_blink = False
        await then(pilot, "down", "down")  # the detail follows the highlighted result

    assert snap_compare(app, terminal_size=size, run_before=searched)


def test_store_memories_tab(snap_compare, app, size):
    assert snap_compare(app, terminal_size=size, run_before=open_webapp)


def test_store_index_tab_shows_the_cut_rule(snap_compare, app, size):
    assert snap_compare(app, press=["2"], terminal_size=size, run_before=open_webapp)


def test_store_memories_filtered_for_a_name_with_a_digit(snap_compare, app, size):
    async def filtered(pilot):
        await open_webapp(pilot)
        await then(pilot, "slash", *"note_1")
        pilot.app.screen.query_one("#memory-filter").cursor_blink = False
        await pilot.pause(0.3)  # the preview follows once typing pauses

    assert snap_compare(app, terminal_size=size, run_before=filtered)


def test_store_index_tab_cursor_on_its_first_line(snap_compare, app, size):
    assert snap_compare(app, press=["2", "home"], terminal_size=size, run_before=open_webapp)


def test_store_doctor_line_after_the_index_is_fixed_outside_the_screen(snap_compare, app,
                                                                        size):
    """The index cut back inside the limits by another writer (a dream, a merge): the
    line names only the check that still fails."""

    async def fixed(pilot):
        await open_webapp(pilot)
        index = pilot.app.screen.path / "MEMORY.md"
        lines = index.read_text(encoding="utf-8").splitlines(keepends=True)
        index.write_text("".join(lines[:150]), encoding="utf-8")
        banner = pilot.app.screen.query_one("#doctor-banner")
        await pilot_until(pilot, lambda: "index_size" not in str(banner.render()))
        await settle(pilot.app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=fixed)


def test_store_findings_tab(snap_compare, app, size):
    assert snap_compare(app, press=["3"], terminal_size=size, run_before=open_webapp)


def test_store_recall_tab_with_a_query(snap_compare, app, size):
    press = ["4", *"checkout latency dashboard"]
    assert snap_compare(app, press=press, terminal_size=size, run_before=open_webapp)


def test_help_panel(snap_compare, app, size):
    assert snap_compare(app, press=["f1"], terminal_size=size, run_before=open_webapp)


def test_relink_from_the_findings_tab_leads_with_what_it_pushes_out(snap_compare, app, size):
    async def relink_highlighted(pilot):
        await open_webapp(pilot)
        await then(pilot, "3", "down", "r")  # the first row is the index past its limits

    assert snap_compare(app, terminal_size=size, run_before=relink_highlighted)


def test_shorten_confirmation_shows_each_line_before_and_after(snap_compare, app, size):
    async def shorten(pilot):
        await open_webapp(pilot)
        await then(pilot, "S")

    assert snap_compare(app, terminal_size=size, run_before=shorten)


async def copy_user_role(pilot, typed: str = "") -> None:
    """On the webapp's store, `c` on its user role memory: the project picker, filtered by
    `typed`."""
    await open_webapp(pilot)
    highlight_memory(pilot, "User role")
    await then(pilot, "c")
    screen = pilot.app.screen
    await pilot_until(pilot, lambda: screen.query_one("#target-table").rows)
    screen.query_one("#target-filter").cursor_blink = False
    await then(pilot, *typed)


def test_copy_to_project_picker(snap_compare, app, size):
    assert snap_compare(app, terminal_size=size, run_before=copy_user_role)


def test_copy_to_project_asks_about_a_name_the_target_holds(snap_compare, app, size):
    async def collision(pilot):
        await copy_user_role(pilot, "cli")
        await then(pilot, "enter")

    assert snap_compare(app, terminal_size=size, run_before=collision)


def test_copy_to_project_preview(snap_compare, app, size):
    async def preview(pilot):
        await copy_user_role(pilot, "cli")
        await then(pilot, "enter", "k", "enter")

    assert snap_compare(app, terminal_size=size, run_before=preview)


def test_history_of_a_memory(snap_compare, app, size):
    async def history(pilot):
        await open_webapp(pilot)
        highlight_memory(pilot, "Flaky checkout e2e")
        await then(pilot, "h")

    assert snap_compare(app, terminal_size=size, run_before=history)


def test_lost_updates(snap_compare, app, size):
    async def overwrites(pilot):
        await open_webapp(pilot)
        await then(pilot, "o")

    assert snap_compare(app, terminal_size=size, run_before=overwrites)


def test_session_picker(snap_compare, app, size):
    async def picker(pilot):
        await open_webapp(pilot)
        await then(pilot, "x")

    assert snap_compare(app, terminal_size=size, run_before=picker)


def test_editor(snap_compare, app, size):
    async def editor(pilot):
        await open_webapp(pilot)
        await then(pilot, "e")
        pilot.app.screen.query_one(TextArea).cursor_blink = False

    assert snap_compare(app, terminal_size=size, run_before=editor)


def scripted_dream(listener, cancel: threading.Event) -> RunResult:
    """Two phases done, the third mid-reply, with token counts as a model reports them;
    then it waits to be cancelled (the app closing cancels it)."""
    done = [Phase("Orient", DONE, 3.4, 5_812, 264, 2), Phase("Gather", DONE, 6.1, 9_407, 511, 3)]
    for phase in done:
        listener(LogLine(phase.name, "tool", f"{phase.name.lower()}: read MEMORY.md"))
        listener(PhaseChanged(phase))
    listener(LogLine("Gather", "model", "Three sessions since the last dream: the Playwright "
                     "pin, the pnpm rule and the checkout pagination decision; the flaky "
                     "checkout suite is the one worth a memory of its own."))
    listener(PhaseChanged(Phase("Consolidate", RUNNING, 0.0, 12_930, 380, 1)))
    listener(LogLine("Consolidate", "tool", "read_file project_flaky_e2e.md"))
    listener(ModelText("Consolidate", "project_flaky_e2e.md and feedback_use_pnpm.md both "
                       "say to pin Playwright; merging them into one memory and"))
    cancel.wait(PATIENCE)
    return RunResult("dream", "anthropic", CANCELLED, (), ())


def test_dream_mid_run(snap_compare, app, size):
    engine = Engine("anthropic", None, "claude-sonnet-4-5")

    async def start(pilot):
        await open_webapp(pilot)
        store = pilot.app.screen.path
        run = RunScreen("dream", WEBAPP, engine, scripted_dream, PHASES, store)
        pilot.app.push_screen(run)
        # The script's events reach the screen in order: the last one shown means all are.
        assert await pilot_until(pilot, lambda: run.streaming.endswith("one memory and"))

    assert snap_compare(app, terminal_size=size, run_before=start)


def reviewing_a_dream(demo, *keys: str):
    """A run_before that shows the review of an offline dream of the webapp store, then
    presses `keys`."""
    store = paths.projects_dir(demo.home) / paths.sanitize(str(ROOT / "code" / "webapp")) / "memory"
    result = run_dream(store, engine="offline")

    async def review(pilot):
        await settle(pilot.app, pilot)
        pilot.app.push_screen(ReviewScreen(result, WEBAPP))
        await settle(pilot.app, pilot)
        await then(pilot, *keys)

    return review


def test_review_of_a_dream(snap_compare, app, demo, size):
    assert snap_compare(app, terminal_size=size, run_before=reviewing_a_dream(demo))


def test_review_of_a_dream_once_applied(snap_compare, app, demo, size, monkeypatch):
    """Undo and back are offered, nothing else; the toast saying so has rows of its own."""
    monkeypatch.setattr(MemtuiApp, "NOTIFICATION_TIMEOUT", 120)
    assert snap_compare(app, terminal_size=size, run_before=reviewing_a_dream(demo, "a"))


async def test_escape_leaves_the_recall_query_so_it_can_be_read(app):
    async with app.run_test(size=SIZES["120x40"]) as pilot:
        await open_webapp(pilot)
        await pilot.press("4", *"deploy", "escape", "2")
        assert app.screen.query_one("#store-tabs", TabbedContent).active == "index"
        assert app.screen.query_one("#recall-query").value == "deploy"


async def test_c_scrolls_the_index_back_to_the_cut_rule(app):
    async with app.run_test(size=SIZES["120x40"]) as pilot:
        await open_webapp(pilot)
        await pilot.press("2")
        await pilot.pause()
        view = app.screen.query_one("#index-view")
        at_cut = view.scroll_y
        assert at_cut > 0  # a cut index opens at the rule, not at line 1
        await pilot.press("home")
        assert view.scroll_y == 0
        await pilot.press("c")
        await pilot.pause()
        assert view.scroll_y == at_cut


def test_every_snapshot_on_disk_belongs_to_a_test():
    """syrupy fails a run that leaves a snapshot unused, but not when the tests run in
    parallel (as the suite does): a snapshot no test takes any more is found here."""
    taking = [name for name, test in globals().items()
              if name.startswith("test_") and "snap_compare" in inspect.signature(test).parameters]
    folder = Path(__file__).parent / "__snapshots__" / Path(__file__).stem
    assert sorted(path.name for path in folder.iterdir()) == sorted(
        f"{name}[{size}].svg" for name in taking for size in SIZES)
