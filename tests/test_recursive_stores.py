"""Recursive stores: Claude Code's memory scan reads every `.md` in every subfolder except
`MEMORY.md` (reference sections 4 and 5). Daily logs (`logs/`, `sessions/`) are never
indexed (section 7); `team/` has its own `team/MEMORY.md`; index links are relative to the
file they sit in, so a memory listing others is a second-level index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import index_line as entry
from conftest import memory_text, real, settle, snapshot, write_index, write_memory
from textual.widgets import Static
from waiting import pilot_until

from tui import cli
from tui.app import curation
from tui.app.app import MemtuiApp
from tui.app.screens.confirm import ConfirmScreen
from tui.app.screens.store import StoreScreen
from tui.app.summaries import summarize
from tui.app.widgets.virtual_table import VirtualTable
from tui.claude.discovery import count_memories, discover
from tui.claude.memory_files import MAX_DEPTH, memory_files
from tui.memory import curate, recall
from tui.memory.audit import audit_store, memory_statuses
from tui.memory.index import parse_index
from tui.memory.store import load_store
from tui.memory.writes import apply_changes, list_archived, undo_last


@pytest.fixture
def store(claude_home) -> Path:
    return claude_home.store(folder="-home-me-proj")


def add(store: Path, *files: str) -> None:
    for file in files:
        stem = file.rsplit("/", 1)[-1].removesuffix(".md")
        write_memory(store, file, memory_text(stem, f"notes on {stem}", "user", f"All {stem}.\n"))


def files_of(store: Path) -> list[str]:
    return [file for file, _ in memory_files(store)]


def findings(store: Path, kind: str) -> list:
    return [f for f in audit_store(load_store(store)) if f.kind == kind]


def apply(store: Path, plan: curate.Plan) -> None:
    apply_changes(store, plan.changes, plan.label)


# --- the scan ------------------------------------------------------------------------------


def test_scan_reads_every_md_in_every_subfolder_except_indexes(store):
    add(store, "a.md", "topics/b.md", "skills/deploy/c.md", "team/d.md")
    write_index(store, [])
    write_memory(store, "topics/MEMORY.md", "- [B](b.md)\n")
    write_memory(store, "team/MEMORY.md", "- [D](d.md)\n")
    write_memory(store, "topics/usage.jsonl", "{}\n")
    expected = ["a.md", "skills/deploy/c.md", "team/d.md", "topics/b.md"]
    assert files_of(store) == expected
    assert [m.file for m in load_store(store).memories] == expected
    assert count_memories(store) == 4


def test_scan_never_follows_a_symlinked_folder(store, tmp_path):
    add(store, "a.md", "topics/b.md")
    elsewhere = tmp_path / "elsewhere"
    add(elsewhere, "z.md")
    (store / "linked").symlink_to(elsewhere, target_is_directory=True)
    (store / "topics" / "loop").symlink_to(store, target_is_directory=True)
    (store / "folder.md").symlink_to(elsewhere, target_is_directory=True)
    assert files_of(store) == ["a.md", "topics/b.md"]


def test_scan_skips_git_folders(store):
    add(store, "a.md")
    write_memory(store, ".git/info/notes.md", "not a memory\n")
    write_memory(store, "vendor/.git/x.md", "not a memory either\n")
    assert files_of(store) == ["a.md"]


def test_scan_stops_32_levels_down(store):
    at_limit = "/".join(["d"] * MAX_DEPTH) + "/deep.md"
    past_limit = "/".join(["d"] * (MAX_DEPTH + 1)) + "/deeper.md"
    add(store, at_limit, past_limit)
    assert files_of(store) == [at_limit]


def test_projects_counts_memories_in_subfolders(claude_home, tmp_path, capsys):
    project = real(tmp_path) / "notes"
    project.mkdir()
    claude_home.session(project)
    store = claude_home.store(project)
    add(store, "topics/a.md", "topics/b.md", "skills/c.md")
    write_index(store, [entry("topics/a.md"), entry("topics/b.md"), entry("skills/c.md")])
    cli.main(["--config-dir", str(claude_home.home), "projects", "--json"])
    assert json.loads(capsys.readouterr().out)[0]["memories"] == 3


def test_the_recall_scan_reads_subfolder_memories(store):
    for number in range(200):
        write_memory(store, f"m{number:03}.md", memory_text(f"m{number}", f"memory {number}"),
                     mtime=1_700_000_000 + number)
    write_memory(store, "topics/kafka.md",
                 memory_text("kafka", "kafka consumer lag alerts and their thresholds"),
                 mtime=1_800_000_000)
    loaded = load_store(store)
    assert "topics/kafka.md" in loaded.recall_scan and "m000.md" not in loaded.recall_scan
    [match] = recall.rank(loaded, "kafka consumer lag")
    assert match.file == "topics/kafka.md"
    assert match.manifest_line.startswith("- [feedback] topics/kafka.md (")


# --- links, logs, team ---------------------------------------------------------------------


def test_index_links_are_relative_to_the_file_they_sit_in(store):
    add(store, "top.md", "topics/index.md", "topics/x.md")
    write_memory(store, "topics/index.md", memory_text("index", "topic list", "reference",
                                                       "- [X](x.md)\n- [Top](../top.md)\n"))
    write_index(store, [entry("topics/index.md")])
    statuses = memory_statuses(load_store(store))
    assert statuses["topics/index.md"].visible
    assert statuses["topics/x.md"].linked_from == "topics/index.md"
    assert statuses["top.md"].linked_from == "topics/index.md"


def test_a_memory_linked_only_from_another_is_not_unindexed(store):
    add(store, "hub.md", "detail.md")
    write_memory(store, "hub.md", memory_text("hub", "the hub", "reference", "[Detail](detail.md)\n"))
    write_index(store, [entry("hub.md")])
    assert findings(store, "unindexed") == []
    [finding] = findings(store, "linked_from")
    assert (finding.severity, finding.file, finding.other) == ("info", "detail.md", "hub.md")
    assert "linked from hub.md" in finding.message


def test_a_wiki_link_in_a_memory_reaches_the_memory_it_names(store):
    add(store, "hub.md", "detail_notes.md")
    write_memory(store, "hub.md", memory_text("hub", "the hub", "reference", "See [[detail-notes]].\n"))
    write_index(store, [entry("hub.md")])
    [finding] = findings(store, "linked_from")
    assert (finding.file, finding.other) == ("detail_notes.md", "hub.md")


def test_daily_logs_and_session_notes_are_never_unindexed_nor_duplicates(store):
    add(store, "a.md")
    write_index(store, [entry("a.md")])
    for day in ("01", "02"):
        write_memory(store, f"logs/2026/01/2026-01-{day}.md", "- 09:00 planned the release train\n")
    write_memory(store, "sessions/2026-01-02.md", "- the deploy failed yesterday\n")
    kinds = {(f.kind, f.file) for f in audit_store(load_store(store))}
    assert kinds == {("relative_date", "sessions/2026-01-02.md")}


def test_team_memory_has_its_own_cut_and_findings(store):
    add(store, "user.md", "team/early.md", "team/late.md", "team/lost.md")
    filler = [f"- note {number}" for number in range(205)]
    write_memory(store, "team/MEMORY.md", "\n".join(
        [entry("early.md"), entry("gone.md"), "- [User](../user.md) — shared", *filler,
         entry("late.md")]) + "\n")
    write_index(store, [entry("user.md")])
    loaded = load_store(store)
    assert [index.file for index in loaded.indexes] == ["MEMORY.md", "team/MEMORY.md"]
    found = {(f.kind, f.file): f for f in audit_store(loaded)}
    assert set(found) == {
        ("index_over_limit", "team/MEMORY.md"), ("dangling", "team/MEMORY.md"),
        ("beyond_cut", "team/late.md"), ("unindexed", "team/lost.md"),
    }
    assert "team/MEMORY.md has 209 lines" in found["index_over_limit", "team/MEMORY.md"].message
    assert "(team/MEMORY.md line 209)" in found["beyond_cut", "team/late.md"].message
    assert "no line in team/MEMORY.md" in found["unindexed", "team/lost.md"].message


def test_a_secret_in_the_team_index_is_found_and_redacted(store):
    token = "ghp" + "_" + "A1b2C3d4" * 4 + "E5f6"  # a GitHub token's shape, made up
    add(store, "team/a.md")
    write_memory(store, "team/MEMORY.md", f"{entry('a.md')} {token}\n")
    [finding] = findings(store, "secret")
    assert (finding.file, finding.line) == ("team/MEMORY.md", 1)
    apply(store, curate.plan_redact_secrets(load_store(store)))
    assert token not in (store / "team/MEMORY.md").read_text()
    assert findings(store, "secret") == []


# --- curation on subfolder memories --------------------------------------------------------


def test_relink_gives_a_subfolder_memory_its_relative_path_and_undo_restores(store):
    add(store, "a.md", "topics/x.md")
    write_index(store, [entry("a.md")])
    before = snapshot(store, recursive=True)
    apply(store, curate.plan_relink(load_store(store), ["topics/x.md"]))
    assert "](topics/x.md) — notes on x" in (store / "MEMORY.md").read_text()
    assert memory_statuses(load_store(store))["topics/x.md"].visible
    undo_last(store)
    assert snapshot(store, recursive=True) == before


def test_relink_indexes_a_memory_only_another_memory_links(store):
    add(store, "hub.md", "detail.md")
    write_memory(store, "hub.md", memory_text("hub", "the hub", "reference", "[D](detail.md)\n"))
    write_index(store, [entry("hub.md")])
    plan = curate.plan_relink(load_store(store), ["detail.md"])
    assert plan.summary == ["Add an index line for detail.md as line 2."]
    apply(store, plan)
    status = memory_statuses(load_store(store))["detail.md"]
    assert status.visible and status.linked_from is None


def test_relink_puts_a_team_memory_in_the_team_index(store):
    add(store, "a.md", "team/release.md")
    write_index(store, [entry("a.md")])
    write_memory(store, "team/MEMORY.md", entry("oncall.md") + "\n")
    index_before = (store / "MEMORY.md").read_bytes()
    plan = curate.plan_relink(load_store(store), ["team/release.md"])
    assert plan.summary == ["Add an index line for team/release.md to team/MEMORY.md as line 2."]
    apply(store, plan)
    assert (store / "MEMORY.md").read_bytes() == index_before
    team = parse_index((store / "team/MEMORY.md").read_text(), folder="team/")
    assert [link.file for link in team.links] == ["team/oncall.md", "team/release.md"]
    assert "](release.md)" in (store / "team/MEMORY.md").read_text()


def test_archive_a_subfolder_memory_and_undo(store):
    add(store, "a.md", "topics/x.md")
    write_index(store, [entry("a.md"), entry("topics/x.md")])
    before = snapshot(store, recursive=True)
    apply(store, curate.plan_archive(load_store(store), ["topics/x.md"]))
    assert not (store / "topics/x.md").exists()
    assert (store / "MEMORY.md").read_text() == entry("a.md") + "\n"
    [archived] = list_archived(store)
    assert archived.as_posix().endswith("/topics/x.md")
    assert archived.read_bytes() == before["topics/x.md"]
    undo_last(store)
    assert snapshot(store, recursive=True) == before


def test_delete_a_team_memory_drops_its_team_index_line(store):
    add(store, "a.md", "team/a.md", "team/b.md")
    write_index(store, [entry("a.md")])
    write_memory(store, "team/MEMORY.md", f"{entry('a.md')}\n{entry('b.md')}\n")
    plan = curate.plan_delete(load_store(store), ["team/a.md"])
    assert plan.summary[-1] == "Remove team/MEMORY.md line 1."
    apply(store, plan)
    assert (store / "team/MEMORY.md").read_text() == entry("b.md") + "\n"
    assert (store / "a.md").exists() and (store / "MEMORY.md").read_text() == entry("a.md") + "\n"


def test_remove_dangling_cleans_the_team_index_too(store):
    add(store, "a.md", "team/b.md")
    write_index(store, [entry("a.md"), entry("gone.md")])
    write_memory(store, "team/MEMORY.md", f"{entry('b.md')}\n{entry('a.md')}\n")  # team/a.md
    plan = curate.plan_remove_dangling(load_store(store))
    assert plan.label == "remove 2 dangling index lines"
    apply(store, plan)
    assert (store / "MEMORY.md").read_text() == entry("a.md") + "\n"
    assert (store / "team/MEMORY.md").read_text() == entry("b.md") + "\n"


def test_edit_a_subfolder_memory_and_undo(store):
    add(store, "topics/x.md")
    before = (store / "topics/x.md").read_text()
    message, severity = curation.save_edit(store, "topics/x.md", before, before + "More.\n")
    assert severity == "information", message
    assert (store / "topics/x.md").read_text() == before + "More.\n"
    undo_last(store)
    assert (store / "topics/x.md").read_text() == before


def test_history_of_a_team_memory_is_the_store_journal(store, capsys):
    add(store, "team/x.md")
    write_memory(store, "team/MEMORY.md", entry("x.md") + "\n")
    write_index(store, [])
    before = (store / "team/x.md").read_text()
    curation.save_edit(store, "team/x.md", before, before + "More.\n")  # journalled by memtui
    code = cli.main(["history", str(store / "team" / "x.md"), "--json"])
    sources = [version["source"] for version in json.loads(capsys.readouterr().out)]
    assert code == 0 and "memtui" in sources


# --- the app -------------------------------------------------------------------------------


@pytest.fixture
def nested_project(claude_home, tmp_path):
    project = real(tmp_path) / "shop"
    project.mkdir()
    claude_home.session(project)
    store = claude_home.store(project)
    add(store, "a.md", "topics/b.md", "topics/c.md", "orphan.md")
    write_memory(store, "topics/b.md", memory_text("b", "the topic list", "reference",
                                                   "- [C](c.md) — detail\n"))
    write_memory(store, "logs/2026/01/2026-01-02.md", "- 09:00 shipped the cart\n")
    write_index(store, [entry("a.md"), entry("topics/b.md")])
    return claude_home, store


async def test_store_screen_shows_subfolder_memories_logs_and_linked_ones(nested_project):
    home, store = nested_project
    project = discover(home.home, home.env).projects[0]
    app = MemtuiApp(home.home, home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(StoreScreen(project))
        await settle(app, pilot)
        screen = app.screen
        rows = {row.file: row.status for row in screen.rows}
        assert rows == {"a.md": "ok", "topics/b.md": "ok", "topics/c.md": "linked",
                        "orphan.md": "unindexed", "logs/2026/01/2026-01-02.md": "log"}
        table = screen.query_one("#memory-table", VirtualTable)
        table.move_cursor([row.file for row in table.rows].index("topics/c.md"))
        screen.show_preview()
        title = str(screen.query_one("#preview-title", Static).content)
        assert title.startswith("topics/c.md  linked from topics/b.md")

        await pilot.press("r")  # on the linked memory: index it
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(app, pilot)
        assert "](topics/c.md)" in (store / "MEMORY.md").read_text()
        assert "orphan.md" not in (store / "MEMORY.md").read_text()
        assert {row.file: row.status for row in screen.rows}["topics/c.md"] == "ok"


async def test_live_refresh_sees_claude_rewrite_a_subfolder_memory(nested_project):
    home, store = nested_project
    project = discover(home.home, home.env).projects[0]
    app = MemtuiApp(home.home, home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(StoreScreen(project))
        await settle(app, pilot)
        # An edit in place: the folder's own listing does not change.
        write_memory(store, "topics/c.md", memory_text("c", "the cart rules, rewritten", "user"))
        assert await pilot_until(pilot, lambda: app.screen.store.memory("topics/c.md").description
                                 == "the cart rules, rewritten")


def test_projects_row_counts_orphans_as_the_store_screen_does(nested_project):
    _, store = nested_project
    statuses = memory_statuses(load_store(store))
    orphans = [s.file for s in statuses.values()
               if not s.visible and not s.linked_from and not s.file.startswith("logs/")]
    assert orphans == ["orphan.md"]
    assert summarize(store).orphans == 1
