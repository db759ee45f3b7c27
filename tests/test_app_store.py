"""The store screen: memories with their status, filter, preview, index view, findings, recall."""

from __future__ import annotations

import pytest
from app_home import build_app_home, demo_app
from conftest import (
    index_line,
    lines_in_style,
    memory_text,
    painted,
    settle,
    write_index,
    write_memory,
)
from textual.widgets import Input, Markdown, Static, TabbedContent
from waiting import pilot_until

from tui.app.app import MemtuiApp
from tui.app.screens.store import StoreScreen
from tui.app.widgets.findings import FindingsView, tally
from tui.app.widgets.index_view import IndexView
from tui.app.widgets.virtual_table import VirtualTable
from tui.claude.discovery import discover
from tui.memory.finding import Finding
from tui.memory.index import MAX_LINES


@pytest.fixture
def store_app(claude_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    project = discover(fixture.home, fixture.env).projects[0]
    return fixture, MemtuiApp(fixture.home, fixture.env), project


def statuses(table: VirtualTable) -> dict[str, str]:
    return {str(row.cells[2]): str(row.cells[3]) for row in table.rows}


def names(table: VirtualTable) -> list[str]:
    return [str(row.cells[2]) for row in table.rows]


def text_of(screen, selector: str) -> str:
    """What a Static shows, as plain text at the width of the screen."""
    return painted(screen.query_one(selector, Static).content, width=116, wrap=True)


async def open_store(app, pilot, project) -> StoreScreen:
    app.push_screen(StoreScreen(project))
    await settle(app, pilot)
    return app.screen

def test_the_findings_tally_counts_one_finding_as_one():
    one = Finding("unindexed", "error", "a.md", None, "a.md has no line in MEMORY.md")
    assert tally([one], False).plain == "1 finding: 1 error"
    two = [one, Finding("missing_why", "info", "a.md", None, "a.md should say **Why:**")]
    assert tally(two, False).plain == "2 findings: 1 error, 1 info"


async def test_memory_table_statuses(store_app):
    _, app, project = store_app
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project)
        table = app.screen.query_one("#memory-table", VirtualTable)
        assert statuses(table) == {
            "dashboards": "ok",
            "testing": "ok",
            "user role": "ok",
            "launch": "past cut",
            "payments": "unindexed",
            "gone.md": "dangling",
        }


async def test_filter_narrows_rows_by_body(store_app):
    _, app, project = store_app
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project)
        table = app.screen.query_one("#memory-table", VirtualTable)
        assert len(table.rows) == 6
        await pilot.press("slash", *"stripe client")  # only in the payments body
        assert app.screen.query_one("#memory-filter", Input).has_focus
        assert names(table) == ["payments"]
        await pilot.press("escape")
        assert len(table.rows) == 6


async def test_preview_renders_body_and_toggles_raw(store_app):
    _, app, project = store_app
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_store(app, pilot, project)
        table = screen.query_one("#memory-table", VirtualTable)
        table.move_cursor(names(table).index("user role"))
        await pilot.pause()
        markdown = screen.query_one("#preview-markdown", Markdown)
        assert "Prefers Go and Postgres." in markdown.source
        assert markdown.display and not screen.query_one("#preview-raw").display
        await pilot.press("v")
        assert "type: user" in text_of(screen, "#preview-raw")
        assert screen.query_one("#preview-raw").display and not markdown.display


async def test_click_and_keys_preview_the_row_under_the_cursor(store_app):
    _, app, project = store_app
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_store(app, pilot, project)
        table = screen.query_one("#memory-table", VirtualTable)
        markdown = screen.query_one("#preview-markdown", Markdown)
        line = names(table).index("user role") + 1  # under the header
        await pilot.click("#memory-table", offset=(10, line))
        assert table.highlighted.file == "user_role.md"
        assert "Prefers Go and Postgres." in markdown.source
        await pilot.press("space")  # marks it and moves down
        assert table.render_line(line).text.startswith(" ● ")
        await pilot.press("up", "up")
        assert markdown.source and "Prefers Go" not in markdown.source


async def test_index_view_shows_cut_rule_and_warning(store_app):
    _, app, project = store_app
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project)
        await pilot.press("2")
        screen = app.screen
        assert screen.query_one("#store-tabs", TabbedContent).active == "index"
        view = screen.query_one("#index-view", IndexView)
        lines = [view.render_row(row).text for row in range(view.virtual_size.height)]
        rendered = "\n".join(lines)
        rule = next(i for i, line in enumerate(lines) if "Claude's cut" in line)
        assert "Launch" in lines[rule + 1]  # the entry past the 200th line sits under the rule
        assert f"{MAX_LINES + 1} lines (limit: {MAX_LINES})" in rendered
        assert "Only part of it was loaded" in rendered


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_index_cursor_is_painted_on_the_line_the_keys_act_on(tmp_path, size):
    """The Index tab opens scrolled to the cut; Up then moved the cursor but repainted
    lines outside the view, so the highlight stayed on the first line past the cut while
    `m` offered to move the line two above it."""
    app, webapp = demo_app(tmp_path / "demo")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        screen = await open_store(app, pilot, webapp)
        await pilot.press("2")
        await settle(app, pilot)
        view = screen.query_one("#index-view", IndexView)
        assert view.scroll_y > 0 and view.highlighted.number == view.first_cut + 1
        for key in ("up", "up"):
            await pilot.press(key)
            await pilot.pause()
        line = view.highlighted
        assert line.number == view.first_cut - 1
        [shown] = lines_in_style(view, "index-view--cursor")
        assert shown.split()[0] == str(line.number)
        await pilot.press("m")
        await settle(app, pilot)
        asked = " ".join(app.screen.plan.summary)
        file = screen.index_entry()
        assert file and f"{file} from line {line.number} " in asked


def rendered_rows(view: IndexView) -> list[str]:
    return [view.render_row(row).text for row in range(view.virtual_size.height)]


async def test_index_tab_shows_team_memory_index_under_its_own_name_and_cut(store_app):
    fixture, app, project = store_app
    team = fixture.store / "team"
    team.mkdir()
    write_memory(team, "conventions.md", memory_text("conventions", "review rules", "feedback"))
    write_index(team, [index_line("conventions.md", "Conventions", "review rules"),
                       *(f"- team note {n}" for n in range(MAX_LINES - 1)),
                       index_line("late.md", "Late", "past the team cut")])
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project)
        await pilot.press("2")
        main_view = app.screen.query_one("#index-view", IndexView)
        team_view = app.screen.query_one("#team-index-view", IndexView)
        assert team_view.display and team_view.region.height > 0
        assert (main_view.border_title, team_view.border_title) == ("MEMORY.md", "team/MEMORY.md")
        team_rows = rendered_rows(team_view)
        assert "Conventions" in "\n".join(team_rows)
        rule = next(i for i, line in enumerate(team_rows) if "Claude's cut" in line)
        assert "Late" in team_rows[rule + 1]
        assert not any("Conventions" in line for line in rendered_rows(main_view))
        await pilot.press("tab")
        assert team_view.has_focus


async def test_index_tab_of_a_store_without_team_memory_shows_one_index(store_app):
    _, app, project = store_app
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project)
        await pilot.press("2")
        assert not app.screen.query_one("#team-index-view", IndexView).display


async def test_a_team_folder_without_its_index_says_so(store_app):
    fixture, app, project = store_app
    (fixture.store / "team").mkdir()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project)
        await pilot.press("2")
        rows = rendered_rows(app.screen.query_one("#team-index-view", IndexView))
        assert "This store has no team/MEMORY.md" in rows[0]


async def test_findings_one_per_row_worst_first_with_the_keys_that_fix_the_highlighted(store_app):
    _, app, project = store_app
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project)
        await pilot.press("3")
        view = app.screen.query_one(FindingsView)
        assert view.query_one("#findings-table").has_focus
        severities = [row.finding.severity for row in view.rows]
        assert severities == sorted(severities, key=["error", "warning", "info"].index)
        kinds = [row.finding.kind for row in view.rows]
        view.table.move_cursor(kinds.index("unindexed"))
        await pilot.pause()
        detail = text_of(app.screen, "#findings-detail")
        assert "project_orphan.md has no line in MEMORY.md" in detail
        assert "fix: r relink · e edit · a archive · D delete" in detail
        view.table.move_cursor(kinds.index("dangling"))
        await pilot.pause()
        assert "fix: d remove dangling" in text_of(app.screen, "#findings-detail")



async def test_the_first_finding_is_the_costliest_in_the_order_memtui_audit_tells_them(
        claude_home, tmp_path, capsys):
    """A feedback rule Claude cannot see costs more than a project note it cannot see, and
    both more than a frontmatter it can still half read: the Findings tab opens on the rule,
    and its kinds come in the order of `memtui audit`'s text."""
    from tui import cli

    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    claude_home.session(project)
    store = claude_home.store(project)
    write_memory(store, "a_broken.md", "---\nname: x\n[unclosed\n---\nbody\n")
    write_memory(store, "a_project.md", memory_text("api", "the api moved", "project"))
    write_memory(store, "feedback_tabs.md", memory_text("tabs", "tabs, not spaces", "feedback"))
    write_memory(store, "user_role.md", memory_text("role", "a backend engineer", "user"))
    write_index(store, [index_line("a_broken.md", "Broken", "half read"),
                        index_line("user_role.md", "Role", "backend engineer")])
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, discover(claude_home.home, claude_home.env).projects[0])
        await pilot.press("3")
        view = app.screen.query_one(FindingsView)
        rows = [(row.finding.kind, row.finding.file) for row in view.rows]
        assert view.table.cursor_row == 0
    assert rows[:3] == [("unindexed", "feedback_tabs.md"), ("unindexed", "a_project.md"),
                        ("bad_frontmatter", "a_broken.md")]
    cli.main(["audit", str(store)])
    told = capsys.readouterr().out
    kinds = list(dict.fromkeys(kind for kind, _ in rows))
    assert sorted(kinds, key=lambda kind: told.index(kind)) == kinds

async def test_recall_ranks_the_matching_memory_first(store_app):
    _, app, project = store_app
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project)
        await pilot.press("4")
        assert app.screen.query_one("#recall-query", Input).has_focus
        await pilot.press(*"how is checkout latency dashboard")
        text = text_of(app.screen, "#recall-results")
        first = next(line for line in text.splitlines() if ".md" in line)
        assert "reference_dashboards.md" in first
        assert "every memory is among" in text_of(app.screen, "#recall-never").lower()


async def test_escape_returns_to_projects(store_app):
    _, app, project = store_app
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await open_store(app, pilot, project)
        await pilot.press("escape")
        assert type(app.screen).__name__ == "ProjectsScreen"


@pytest.mark.parametrize(("make", "said"), [
    (lambda team: (team / "MEMORY.md").write_bytes(b"\x89PNG\r\n\x00\x00" * 50),
     "team/MEMORY.md is not text (it holds NUL bytes)"),
    (lambda team: (team / "MEMORY.md").mkdir(),
     "team/MEMORY.md cannot be read (it is a directory"),
], ids=["binary", "a directory"])
async def test_a_team_index_that_is_no_text_file_says_why_above_its_lines(store_app, make, said):
    """As `memtui index --team` and the audit say it, not as garbage or as a missing index."""
    fixture, app, project = store_app
    (fixture.store / "team").mkdir()
    make(fixture.store / "team")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_store(app, pilot, project)
        await pilot.press("2")
        rows = rendered_rows(app.screen.query_one("#team-index-view", IndexView))
        assert said in " ".join(rows[:3])
        assert "no team/MEMORY.md" not in "\n".join(rows)


async def test_a_store_removed_while_open_says_it_is_gone(store_app):
    """Moved or deleted behind the app's back: the table says so, not "no memories yet"."""
    fixture, app, project = store_app
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_store(app, pilot, project)
        table = screen.query_one("#memory-table", VirtualTable)
        fixture.store.rename(fixture.store.with_name("memory.moved"))
        # the screen's own watcher notices (it polls every second)
        assert await pilot_until(pilot, lambda: not table.rows)
        await settle(app, pilot)
        assert table.rows == []
        assert "no longer exists" in table.empty_text


async def test_a_finding_past_the_cut_is_placed_at_its_file_not_at_its_index_line(store_app):
    """Its line number is MEMORY.md's, which the message names: `project_launch.md:201`
    points at a line the memory does not have (memtui audit prints no place for it)."""
    _, app, project = store_app
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project)
        await pilot.press("3")
        view = app.screen.query_one(FindingsView)
        (row,) = [row for row in view.rows if row.finding.kind == "beyond_cut"]
        assert str(row.cells[2]) == "project_launch.md"
        assert "MEMORY.md line 201" in str(row.cells[3])


async def test_a_memory_that_cannot_be_read_says_so_and_is_no_orphan_to_relink(store_app):
    """As `audit` reports it (unreadable, not unindexed) and as `memtui fix relink` leaves
    it: an index line for a file nobody can read would only point at its name."""
    import os

    from tui.app.screens.confirm import ConfirmScreen

    fixture, app, project = store_app
    os.mkfifo(project.store / "stuck.md")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_store(app, pilot, project)
        table = app.screen.query_one("#memory-table", VirtualTable)
        assert statuses(table)["stuck"] == "unreadable"
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        summary = " ".join(app.screen.plan.summary)
        assert "project_orphan.md" in summary and "stuck.md" not in summary
