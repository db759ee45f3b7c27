"""The search screen: `/` on the projects screen (or the palette) searches every store as the
query is typed, and Enter opens the memory in its store."""

from __future__ import annotations

from app_home import build_app_home
from conftest import HeldFirstCall, memory_text, settle, write_index, write_memory
from textual.command import CommandList
from textual.widgets import Input, Static
from waiting import pilot_until

from tui.app.app import MemtuiApp
from tui.app.screens.search import SearchScreen
from tui.app.screens.store import StoreScreen
from tui.app.widgets.virtual_table import VirtualTable


def with_second_project(claude_home, tmp_path):
    """The app fixture's shop, and a blog whose memory also mentions a client."""
    fixture = build_app_home(claude_home, tmp_path)
    blog = tmp_path / "work" / "blog"
    blog.mkdir(parents=True)
    claude_home.session(blog)
    store = claude_home.store(blog)
    write_memory(store, "reference_client.md",
                 memory_text("client", "the blog's http client", "reference", "Use httpx.\n"))
    write_index(store, [])
    return fixture


def results(app) -> list[tuple[str, str]]:
    table = app.screen.query_one("#search-results", VirtualTable)
    return [(str(row.cells[0]), row.hit.document.file) for row in table.rows]


async def test_slash_searches_every_store_and_enter_opens_the_memory_in_its_store(
        claude_home, tmp_path):
    fixture = with_second_project(claude_home, tmp_path)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        assert isinstance(app.screen, SearchScreen)
        await pilot.press(*"client")
        assert await pilot_until(pilot, lambda: len(results(app)) == 2)
        assert {file for _, file in results(app)} == {"project_orphan.md", "reference_client.md"}
        await pilot.press(*" stripe")  # the phrase is gone; both words are in one memory
        assert await pilot_until(pilot, lambda: [f for _, f in results(app)]
                                 == ["project_orphan.md"])
        project, _ = results(app)[0]
        assert project.endswith("work/shop")
        detail = str(app.screen.query_one("#search-detail", Static).render())
        assert "payments provider migration to stripe" in detail  # the description
        assert "new code uses the stripe client." in detail  # the matching line
        await pilot.press("enter", "enter")  # to the results, then open the highlighted one
        assert await pilot_until(pilot, lambda: isinstance(app.screen, StoreScreen)
                                 and app.screen.store is not None)
        table = app.screen.query_one("#memory-table", VirtualTable)
        assert table.highlighted.key == "project_orphan.md"
        assert app.screen.path == fixture.store
        await pilot.press("escape")  # back to the results, as they were
        assert isinstance(app.screen, SearchScreen)
        assert app.screen.query_one("#search-query", Input).value == "client stripe"


async def test_the_palette_opens_the_search_from_a_store(claude_home, tmp_path):
    fixture = with_second_project(claude_home, tmp_path)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        assert await pilot_until(pilot, lambda: isinstance(app.screen, StoreScreen))
        await pilot.press("ctrl+p", *"search every")
        palette_hits = app.screen.query_one(CommandList)
        assert await pilot_until(pilot, lambda: palette_hits.option_count >= 1)
        await pilot.press("enter")
        assert await pilot_until(pilot, lambda: isinstance(app.screen, SearchScreen))
        await pilot.press(*"httpx")
        assert await pilot_until(pilot, lambda: [f for _, f in results(app)]
                                 == ["reference_client.md"])


async def test_typing_before_the_memories_are_read_says_indexing_and_searches_once_they_are(
        claude_home, tmp_path, monkeypatch):
    fixture = with_second_project(claude_home, tmp_path)
    from tui.memory import search_stores

    held = HeldFirstCall(search_stores.load_corpus)
    monkeypatch.setattr(search_stores, "load_corpus", held)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        # The projects screen, done scanning, reads every memory for the search: held.
        assert await pilot_until(pilot, held.entered.is_set)
        await pilot.press("slash")
        assert isinstance(app.screen, SearchScreen)
        await pilot.press(*"grafana")  # while the read is held: the field takes every letter
        field = app.screen.query_one("#search-query", Input)
        assert field.value == "grafana"
        status = app.screen.query_one("#search-status", Static)
        assert await pilot_until(pilot, lambda: str(status.render()) == (
            "Indexing 2 stores… 0 read. Your search runs once they are."))
        assert results(app) == []
        held.release()
        assert await pilot_until(pilot, lambda: [f for _, f in results(app)]
                                 == ["reference_dashboards.md"])
        assert "1 memory matches" in str(status.render())


async def test_the_memories_read_while_the_projects_screen_was_idle_answer_the_first_letter(
        claude_home, tmp_path, monkeypatch):
    """The search screen searches the projects screen's read at once; it reads again only
    the stores changed since, and a memory changed since is found by its new words."""
    fixture = with_second_project(claude_home, tmp_path)
    from tui.memory import search_stores

    app = MemtuiApp(fixture.home, fixture.env)
    app.search_index.clock = lambda: 10**20  # every store written long ago
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.search_index.read is not None  # read before `/` was pressed
        reads = []
        read_store = search_stores.read_store_text
        monkeypatch.setattr(search_stores, "read_store_text",
                            lambda store: reads.append(store) or read_store(store))
        # The stores are read again at mount, held here: the first letter is answered from
        # the read already made, without waiting for it.
        held = HeldFirstCall(search_stores.load_corpus)
        monkeypatch.setattr(search_stores, "load_corpus", held)
        await pilot.press("slash", "s")
        assert await pilot_until(pilot, lambda: "project_orphan.md" in
                                 {f for _, f in results(app)})
        assert held.entered.is_set() and not held.answered.is_set()
        held.release()
        await settle(app, pilot)
        await pilot.press("escape")
        write_memory(fixture.store, "project_orphan.md",
                     memory_text("orphan", "now about kubernetes", "project", "Helm charts.\n"))
        await pilot.press("slash", *"kubernetes")
        assert await pilot_until(pilot, lambda: [f for _, f in results(app)]
                                 == ["project_orphan.md"])
        assert reads == [fixture.store]  # the other store came from the last read


async def test_an_empty_or_unmatched_query_says_so(claude_home, tmp_path):
    fixture = with_second_project(claude_home, tmp_path)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        status = app.screen.query_one("#search-status", Static)
        assert await pilot_until(pilot, lambda: "type to search" in str(status.render()))
        assert "6 memories in 2 stores" in str(status.render())
        await pilot.press(*'"zebra')
        assert await pilot_until(pilot, lambda: "No memory holds" in str(status.render()))
        assert results(app) == []
