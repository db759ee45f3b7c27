"""80x24 first: whole columns by priority, readable statuses, footers that never cut a label,
number keys that switch tabs on the store screen, digits that are text in a text field."""

from __future__ import annotations

import pytest
from app_home import build_app_home
from conftest import settle
from textual.widgets import Input, TabbedContent
from textual.widgets._footer import FooterKey

from tui.app.app import MemtuiApp
from tui.app.screens.store import StoreScreen
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.virtual_table import VirtualTable
from tui.claude.discovery import discover

SMALL, LARGE = (80, 24), (120, 40)


@pytest.fixture
def fixture(claude_home, tmp_path):
    return build_app_home(claude_home, tmp_path)


async def open_store(app, pilot, fixture) -> StoreScreen:
    await settle(app, pilot)
    app.push_screen(StoreScreen(discover(fixture.home, fixture.env).projects[0]))
    await settle(app, pilot)
    return app.screen


def footer_labels(screen) -> list[str]:
    """The footer's keys as painted; fails if one is cut or lies over another."""
    footer = screen.query_one(KeyFooter)
    keys = sorted(footer.query(FooterKey), key=lambda key: key.region.x)
    assert keys, "an empty footer"
    for key, after in zip(keys, [*keys[1:], None], strict=True):
        assert footer.region.x <= key.region.x and key.region.right <= footer.region.right
        assert after is None or key.region.right <= after.region.x
        painted = key.render().plain.strip()
        assert painted == f"{key.key_display} {key.description}"
        assert key.region.width >= len(painted)
    return [key.render().plain.strip() for key in keys]


async def repainted(pilot) -> None:
    """The footer recomposes after the refresh that follows a change of keys."""
    for _ in range(3):
        await pilot.pause()


def keys_of(labels: list[str]) -> set[str]:
    return {label.split()[0] for label in labels}


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_the_projects_table_keeps_its_first_columns_whole(fixture, size):
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#projects", VirtualTable)
        first = ["path", "memories", "index", "orphans", "lost"]
        assert table.shown_columns[:5] == first
        header = table.render_line(0).text
        assert all(label in header for label in ["project", *first[1:]])
        if size == LARGE:  # the rest join them when there is room
            assert table.shown_columns == [key for key, _ in table.columns]
            assert "last dream" in header and "status" in header
        assert {"Open", "Filter", "Sort", "Rescan", "Demo", "Help"} <= {
            label.split(maxsplit=1)[1] for label in footer_labels(app.screen)}


async def test_at_80_columns_memory_statuses_are_words_not_letters(fixture):
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_store(app, pilot, fixture)
        table = screen.query_one("#memory-table", VirtualTable)
        assert {"name", "status"} <= set(table.shown_columns)
        painted = [table.render_line(y).text for y in range(1, len(table.rows) + 1)]
        assert any(line.rstrip().endswith("past cut") for line in painted)
        assert any(line.rstrip().endswith("unindexed") for line in painted)
        assert all(len(line) <= table.size.width for line in painted)


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_store_footers_show_the_most_used_keys_whole(fixture, size):
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=size) as pilot:
        screen = await open_store(app, pilot, fixture)
        memories = keys_of(footer_labels(screen))
        assert {"D", "e", "u", "h", "o", "^d", "f1"} <= memories
        if size == LARGE:
            assert {"a", "r", "x", "/"} <= memories
        await pilot.press("3")  # the footer follows the tab and the highlighted finding
        await repainted(pilot)
        assert {"space", "f1"} <= keys_of(footer_labels(screen))
        findings = screen.query_one("#findings-table", VirtualTable)
        kinds = [row.finding.kind for row in findings.rows]
        findings.move_cursor(kinds.index("dangling"))
        await repainted(pilot)
        assert "d Remove dangling" in footer_labels(screen)
        findings.move_cursor(kinds.index("unindexed"))
        await repainted(pilot)
        assert footer_labels(screen)[0] == "r Relink"
        for tab in "24":
            await pilot.press(tab)
            await repainted(pilot)
            footer_labels(screen)


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_every_other_screen_footer_fits(fixture, size, monkeypatch):
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=size) as pilot:
        await open_store(app, pilot, fixture)
        for key, wanted in (("h", {"r", "b", "s", "u", "esc"}), ("o", {"m", "h", "u", "esc"}),
                            ("e", {"^s", "esc"}), ("x", {"⏎", "esc"})):
            await pilot.press(key)
            await settle(app, pilot)
            assert wanted | {"f1"} <= keys_of(footer_labels(app.screen)), key
            await pilot.press("escape")
            await settle(app, pilot)
        await pilot.press("ctrl+d")
        run = app.screen
        await settle(app, pilot)
        assert run.finished
        assert {"⏎", "esc", "f1"} <= keys_of(footer_labels(run))
        await pilot.press("enter")
        await settle(app, pilot)
        assert {"a", "space", "esc", "f1"} <= keys_of(footer_labels(app.screen))


async def test_a_digit_typed_in_the_filter_or_the_question_is_text(fixture):
    """Nobody could filter for note_1 or ask about v2 while digits switched tabs: in a text
    field a digit is text, and esc leaves the field so that 1-4 switch tabs again."""
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_store(app, pilot, fixture)
        tabs = screen.query_one("#store-tabs", TabbedContent)
        query = screen.query_one("#recall-query", Input)
        await pilot.press("4")
        assert tabs.active == "recall" and query.has_focus
        await pilot.press(*"deploy v2")
        assert tabs.active == "recall" and query.value == "deploy v2"
        await pilot.press("escape", "1")
        assert tabs.active == "memories"
        assert query.value == "deploy v2"
        await pilot.press("slash", *"note_1")
        field = screen.query_one("#memory-filter", Input)
        assert tabs.active == "memories" and field.value == "note_1"
        await pilot.press("enter", "3")  # enter keeps the filter and leaves the field
        assert tabs.active == "findings"
        assert field.value == "note_1"
        await pilot.press("2")
        assert tabs.active == "index"


async def test_at_160_columns_the_findings_where_column_shows_whole_paths(tmp_path):
    from tui.app.widgets.findings import where
    from tui.demo import build_demo

    demo = build_demo(tmp_path / "demo")
    env = {"CLAUDE_CONFIG_DIR": str(demo.home)}
    webapp = max(discover(demo.home, env).projects, key=lambda project: project.memories)
    app = MemtuiApp(demo.home, env)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        app.push_screen(StoreScreen(webapp))
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        table = app.screen.query_one("#findings-table", VirtualTable)
        places = [where(row.finding) for row in table.rows]
        assert max(map(len, places[:table.page_height])) > 24  # its width at 80 columns
        x, widths = 0, {}
        for _, key, width in table.layout():
            widths[key] = (x + 1, width)
            x += width + 2
        start, width = widths["where"]
        for y, place in enumerate(places[:table.page_height], start=1):
            assert table.render_line(y).text[start:start + width].rstrip() == place
        assert widths["message"][1] >= 50  # the message keeps most of the room
