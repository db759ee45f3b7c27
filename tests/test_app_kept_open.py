"""The app kept open all day while Claude Code keeps writing: memory that does not grow,
banners that follow the lock, screens that learn of changes on their own."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest
from app_home import build_app_home, open_first_store
from conftest import memory_text, settle, write_memory
from textual.widgets import Static
from waiting import pilot_until

from tui.app.app import MemtuiApp
from tui.app.screens.store import StoreScreen
from tui.app.widgets.virtual_table import VirtualTable


@pytest.fixture
def fixture(claude_home, tmp_path):
    return build_app_home(claude_home, tmp_path)


async def reload_after_a_write(app, pilot, screen: StoreScreen, round_: int) -> None:
    """Claude Code appends to a memory; the screen reloads the store."""
    target = screen.path / "user_role.md"
    target.write_text(target.read_text() + f"Learned fact {round_}.\n")
    screen.load()
    await settle(app, pilot)


def objects_kept() -> int:
    """Objects the cycle collector cannot free: live ones and frozen ones."""
    gc.collect()
    return len(gc.get_objects()) + gc.get_freeze_count()


async def test_memory_does_not_grow_with_every_reload(fixture):
    """Each reload replaced the preview's and the tables' widgets, and the old ones (held
    in reference cycles) were frozen away from the collector: a store changing once a
    second grew the app by a megabyte a minute (3,000 memories: 1.2 MB a reload)."""
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_first_store(app, pilot, fixture)
        for round_ in range(3):
            await reload_after_a_write(app, pilot, screen, round_)
        settled = objects_kept()
        for round_ in range(3, 13):
            await reload_after_a_write(app, pilot, screen, round_)
        growth = objects_kept() - settled
        # One reload's discarded widgets (~5,000 objects here) may or may not be frozen yet
        # when either count is taken; the leak this guards against kept all ten.
        assert growth < 10_000, f"{growth} more objects kept after 10 reloads"


async def visit_first_store(app, pilot, fixture) -> None:
    """Open the first store, let it settle, go back to the projects screen."""
    await open_first_store(app, pilot, fixture)
    app.pop_screen()
    await settle(app, pilot)


def everything_alive() -> list:
    """Every object the collector tracks that is still reachable, frozen ones included."""
    gc.unfreeze()
    gc.collect()
    return gc.get_objects()


def orphaned_style_caches() -> int:
    """Textual's per-widget style caches whose widget is gone."""
    from textual._styles_cache import StylesCache
    from textual.widget import Widget

    things = everything_alive()
    owned = {id(thing._styles_cache) for thing in things if isinstance(thing, Widget)}
    return sum(isinstance(thing, StylesCache) and id(thing) not in owned for thing in things)


async def test_a_store_screen_left_leaves_no_rendered_lines_behind(fixture):
    """Textual's lru_cache on a StylesCache method kept every removed widget's style cache,
    with the lines it rendered (Textualize/textual#6665): each store opened and left added
    its widgets' for good, and every later collection walked them again."""
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        orphaned = []
        for _ in range(3):
            await visit_first_store(app, pilot, fixture)
            orphaned.append(orphaned_style_caches())
        assert max(orphaned) < 10, f"style caches of removed widgets after each visit: {orphaned}"


async def alive_after_three_visits(fixture, wanted) -> list:
    """What is still alive, and `wanted`, once the first store was opened and left three
    times (asked while the app runs: a widget of a closed app is attached to nothing)."""
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(3):
            await visit_first_store(app, pilot, fixture)
        return [thing for thing in everything_alive() if wanted(thing)]


async def test_a_store_screen_left_is_freed_with_the_store_it_loaded(fixture):
    """Textual's thread workers left their worker in the pool thread's context, and with it
    the worker's screen and its loaded store: up to six closed store screens lived on."""
    alive = await alive_after_three_visits(fixture, lambda thing: isinstance(thing, StoreScreen))
    assert alive == [], f"{len(alive)} closed store screens still alive"


async def test_footer_keys_of_earlier_compositions_are_freed(fixture):
    """Each footer key was data-bound to the footer's `compact`, a watcher on the footer
    that outlived the key: every recomposition (a screen shown again, a binding refreshed)
    left the old keys alive for as long as the footer lived."""
    from textual.widgets._footer import FooterKey

    detached = await alive_after_three_visits(
        fixture, lambda thing: isinstance(thing, FooterKey) and not thing.is_attached)
    assert detached == [], f"{len(detached)} footer keys of earlier footers still alive"


async def test_the_headers_of_closed_screens_are_freed(fixture):
    """Textual's Header watches the app's title, and Textual drops a closed widget's
    watchers only when the title changes, which memtui's never does: every screen left
    lived on through its header."""
    from textual.widgets import Header

    detached = await alive_after_three_visits(
        fixture, lambda thing: isinstance(thing, Header) and not thing.is_attached)
    assert detached == [], f"{len(detached)} headers of closed screens still alive"


async def test_the_read_only_banner_goes_when_the_dreaming_process_ends(fixture):
    """A dream's process that ends (or a lock that ages past the hour) frees the store
    without writing anything: the banner said "Read-only" until some other file changed,
    while the keys already worked."""
    dreamer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    try:
        (fixture.store / ".consolidate-lock").write_text(str(dreamer.pid))
        app = MemtuiApp(fixture.home, fixture.env)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_first_store(app, pilot, fixture)
            banner = screen.query_one("#lock-banner", Static)
            assert banner.display and "Read-only" in str(banner.content)
            dreamer.kill()
            dreamer.wait()
            assert await pilot_until(pilot, lambda: not banner.display), str(banner.content)
    finally:
        dreamer.kill()
        dreamer.wait()


def project_cells(app) -> dict[str, list[str]]:
    table = app.screen.query_one("#projects", VirtualTable)
    return {str(row.cells[0]): [str(cell) for cell in row.cells] for row in table.rows}


async def test_the_projects_screen_shows_a_memory_claude_just_wrote(fixture):
    """Claude Code wrote a memory and did not index it: the row kept saying 5 memories and
    2 orphans until the user pressed f5."""
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        [(path, cells)] = project_cells(app).items()
        assert cells[1:4:2] == ["5", "2"]  # memories, orphans
        write_memory(fixture.store, "user_editor.md",
                     memory_text("editor", "the user edits in helix", "user"))
        assert await pilot_until(pilot, lambda: project_cells(app)[path][1:4:2] == ["6", "3"]), \
            project_cells(app)


async def test_the_projects_screen_learns_of_a_new_project_and_says_so(fixture, claude_home,
                                                                        tmp_path):
    """A first session in another repository: the projects screen never listed it until
    f5, and f5 did not say what was new."""
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert len(project_cells(app)) == 1
        table = app.screen.query_one("#projects", VirtualTable)
        on_shop = table.highlighted.key
        fresh = tmp_path / "work" / "api"
        fresh.mkdir()
        claude_home.session(fresh)
        write_memory(claude_home.store(fresh), "user_role.md", memory_text("role", "api owner"))
        assert await pilot_until(pilot, lambda: len(project_cells(app)) == 2)
        assert table.highlighted.key == on_shop  # the cursor stays where the user left it
        assert any("New project" in n.message and "work/api" in n.message
                   for n in app._notifications), [n.message for n in app._notifications]


async def test_a_confirmation_made_stale_by_claude_writes_nothing(fixture):
    """The relink dialog was open when Claude Code deleted the orphan it offered to link:
    y still applied it (the index was unchanged, so no conflict was found), and memtui
    itself wrote a dangling line to a file that no longer existed."""
    from tui.app.screens.confirm import ConfirmScreen

    index = fixture.store / "MEMORY.md"
    before = index.read_bytes()
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_first_store(app, pilot, fixture)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "project_orphan.md" in str(app.screen.plan.summary)
        (fixture.store / "project_orphan.md").unlink()
        assert await pilot_until(pilot, lambda: screen.reload_pending)
        await pilot.press("y")
        await settle(app, pilot)
        assert index.read_bytes() == before  # no line to a deleted file
        assert any("changed on disk" in n.message for n in app._notifications
                   if n.severity == "error"), [n.message for n in app._notifications]
        assert app.screen is screen and "payments" not in [
            str(row.cells[2]) for row in screen.query_one("#memory-table", VirtualTable).rows]


async def test_a_confirmation_still_true_applies_despite_other_writes(fixture):
    """Claude Code writing another memory while the dialog is open leaves the change as
    shown: y applies it."""
    from tui.app.screens.confirm import ConfirmScreen

    index = fixture.store / "MEMORY.md"
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_first_store(app, pilot, fixture)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        write_memory(fixture.store, "user_editor.md",
                     memory_text("editor", "the user edits in helix", "user"))
        assert await pilot_until(pilot, lambda: screen.reload_pending)
        await pilot.press("y")
        await settle(app, pilot)
        assert "(project_orphan.md)" in index.read_text()
        assert "user_editor.md" not in index.read_text()  # not offered, not linked


async def test_a_store_written_faster_than_it_loads_is_read_once_at_a_time(fixture,
                                                                          monkeypatch):
    """A store that takes longer to read than Claude Code takes between writes (10,000
    memories: 2 s) was read again on every write, each read started before the last one
    ended: the app used a whole core for as long as the writes went on. Now one read runs
    at a time, with a rest as long as the read between reads, and the last write shows."""
    import threading
    import time

    from tui.app.screens import store as store_module

    reading, most = 0, 0
    count = threading.Lock()
    load_store = store_module.load_store

    def slow_load_store(path):
        nonlocal reading, most
        with count:
            reading += 1
            most = max(most, reading)
        time.sleep(1.5)
        try:
            return load_store(path)
        finally:
            with count:
                reading -= 1

    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_first_store(app, pilot, fixture)
        monkeypatch.setattr(store_module, "load_store", slow_load_store)
        for n in range(12):
            write_memory(fixture.store, f"user_fact_{n}.md",
                         memory_text(f"fact {n}", f"fact number {n}", "user"))
            await pilot.pause(0.3)
        assert await pilot_until(pilot, lambda: "fact 11" in [
            str(row.cells[2]) for row in screen.query_one("#memory-table", VirtualTable).rows])
        assert most == 1, f"{most} reads of the store at once"
