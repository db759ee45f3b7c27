"""The offline dream makes room without hiding anything: hubs.

When the entries Claude sees outgrow the 70% a dream leaves, the lowest ranked move whole
into one hub per type, a memory MEMORY.md links in one line; Claude reaches them through
it. On the demo's store (191 entries inside the cut) the dream used to keep all 191 lines,
so the doctor warned and suggested another dream, which did the same.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import index_line, memory_text, snapshot, write_index, write_memory

from tui import cli
from tui.agents.changeset import undo_changeset
from tui.agents.dream import run_dream
from tui.agents.result import conclude
from tui.claude.paths import normalize_path, projects_dir, sanitize
from tui.memory.audit import audit_store, memory_statuses
from tui.memory.hubs import hub_line
from tui.memory.index import parse_index
from tui.memory.store import load_store

ROOM_LINES, ROOM_CHARS = 140, 17_500


@pytest.fixture
def demo_store(tmp_path) -> tuple[Path, Path]:
    """(the demo's config home, the webapp's store: 232 memories, 191 entries in the cut)."""
    from tui.demo import build_demo

    demo = build_demo(tmp_path / "demo")
    folder = sanitize(normalize_path(demo.audit_example))
    return demo.home, projects_dir(demo.home) / folder / "memory"


def reached(store: Path) -> set[str]:
    """The memories Claude reaches: inside the loaded cut or by a chain of links from it."""
    return {file for file, status in memory_statuses(load_store(store)).items()
            if status.visible or status.linked_from}


def dream(store: Path, *, everything: bool = False):
    """An offline dream applied: as the CLI's --yes does, or `everything` in it."""
    result = run_dream(store, engine="offline")
    files = {diff.file for diff in result.changeset.files} if everything else None
    outcome = conclude(result, apply=True, only=files)
    assert outcome is None or not outcome.refused, outcome.refused
    return result


def doctor_index_size(home: Path, store: Path, capsys) -> dict:
    cli.main(["--config-dir", str(home), "doctor", str(store), "--json"])
    report = json.loads(capsys.readouterr().out)
    return next(check for check in report["checks"] if check["id"] == "index_size")


def test_the_demo_store_gets_room_and_the_doctor_finds_its_index_ok(demo_store, capsys):
    home, store = demo_store
    before = parse_index((store / "MEMORY.md").read_text())
    seen = [link for link in before.links if link.visible and (store / link.file).is_file()]
    assert len(seen) > ROOM_LINES  # more entries inside the cut than the room holds
    lost_before = [f.kind for f in audit_store(load_store(store))
                   if f.kind in ("unindexed", "beyond_cut")]
    assert (lost_before.count("unindexed"), lost_before.count("beyond_cut")) == (12, 27)

    result = dream(store)

    index = parse_index((store / "MEMORY.md").read_text())
    assert index.cut is None and index.lines <= ROOM_LINES and index.chars <= ROOM_CHARS
    hubs = sorted(path.name for path in store.glob("index_*.md") if path.name != "index_notes.md")
    assert hubs and all(f"]({hub})" in index.raw_lines.raw for hub in hubs)
    assert all(len(line) <= 150 for line in index.raw_lines.raw.splitlines())
    # The demo's three lines pointing at missing files keep their words, in the notes
    # the index links.
    notes = (store / "index_notes.md").read_text()
    assert "- Old CDN migration — moved images from the old CDN to the new bucket\n" in notes
    assert "](index_notes.md)" in index.raw_lines.raw
    moved = [note for note in result.changeset.notes if note.startswith(("Moved ", "Listed "))]
    assert all(any(f" in {hub}, which MEMORY.md links" in note or f" into {hub}, which "
                   in note for note in moved) for hub in hubs)
    # Every memory has a way in, MEMORY.md's cut or a hub it links: the audit finds none
    # unindexed or past the cut (before: 12 and 27).
    lost = [f.file for f in audit_store(load_store(store))
            if f.kind in ("unindexed", "beyond_cut")]
    assert lost == []
    assert doctor_index_size(home, store, capsys)["status"] == "ok"


def test_every_memory_claude_reached_is_still_reached_after_the_dream(demo_store):
    """The rule behind "an offline dream never hides a memory Claude sees now", with hubs:
    what Claude could reach stays reachable, and a line left in MEMORY.md stays in the cut."""
    _, store = demo_store
    reachable = reached(store)

    result = dream(store, everything=True)  # the rule holds of what the dream writes

    archived = {diff.file for diff in result.changeset.files if diff.kind == "archived"}
    assert reachable - archived <= reached(store)
    after = parse_index((store / "MEMORY.md").read_text())
    assert all(link.visible for link in after.links)
    hub = (store / "index_reference.md").read_text()
    statuses = memory_statuses(load_store(store))
    listed = [file for file, status in statuses.items()
              if status.linked_from == "index_reference.md"]
    assert listed and all(f"]({file})" in hub for file in listed)


def test_a_hub_holds_the_whole_lines_in_the_shape_of_a_memory(demo_store):
    _, store = demo_store
    before = (store / "MEMORY.md").read_text().splitlines()
    dream(store)

    text = (store / "index_reference.md").read_text()
    head, body = text.split("---\n", 2)[1:]
    assert "name: index_reference\n" in head and "type: reference\n" in head
    assert "description: Index lines of reference memories" in head
    lines = [line for line in body.splitlines() if line.startswith("- [")]
    # Each moved exactly as MEMORY.md had it (a line over 150 characters, as shortened),
    # or written for a memory that had no line.
    indexed = "\n".join(before)
    assert lines and all(line in before or line.endswith("…")
                         or line.split("](")[1].split(")")[0] not in indexed for line in lines)
    assert any(line in before for line in lines)
    entry = next(line for line in (store / "MEMORY.md").read_text().splitlines()
                 if "](index_reference.md)" in line)
    assert entry.startswith(f"- [Reference memories, continued](index_reference.md) — {len(lines)} "
                            "more: ")


def stat_times(store: Path) -> dict[str, int]:
    return {path.relative_to(store).as_posix(): path.stat().st_mtime_ns
            for path in store.rglob("*") if path.is_file()}


def test_undo_puts_the_index_back_and_removes_the_hubs(demo_store):
    """Every file of the store, its bytes and its mtime (recall orders by it), as before."""
    _, store = demo_store
    before, times = snapshot(store, recursive=True), stat_times(store)

    result = dream(store)
    created = {diff.file for diff in result.changeset.files if diff.kind == "created"}
    assert {"index_reference.md"} <= created
    assert undo_changeset(store) is not None

    assert snapshot(store, recursive=True) == before
    assert stat_times(store) == times
    assert not list(store.glob("index_*.md"))


def test_a_second_dream_changes_nothing(demo_store):
    _, store = demo_store
    dream(store)
    files = snapshot(store)

    again = run_dream(store, engine="offline")
    assert again.changeset.empty, [diff.file for diff in again.changeset.files]
    assert not any(note.startswith(("Moved", "Removed")) for note in again.changeset.notes)
    conclude(again, apply=True)
    assert {name: data for name, data in snapshot(store).items() if name.endswith(".md")} == \
        {name: data for name, data in files.items() if name.endswith(".md")}


def crowded(claude_home, tmp_path, seen: int) -> Path:
    """`seen` project memories indexed inside the cut, all equally new: ranked in index
    order, so the last lines move first."""
    store = claude_home.store(tmp_path / "project")
    for number in range(seen):
        write_memory(store, f"seen_{number:03}.md",
                     memory_text(f"seen_{number:03}", f"fact {number}", "project",
                                 f"Fact {number}.\n"), mtime=1_767_225_600.0)
    write_index(store, [index_line(f"seen_{n:03}.md", hook=f"about {n}") for n in range(seen)])
    return store


def test_an_existing_hub_is_updated_not_duplicated(claude_home, tmp_path):
    store = crowded(claude_home, tmp_path, seen=170)
    dream(store)
    hub = store / "index_project.md"
    first = [line for line in hub.read_text().splitlines() if line.startswith("- [")]
    assert [line.split("](")[1].split(")")[0] for line in first] == \
        [f"seen_{n:03}.md" for n in range(139, 170)]
    # Claude Code's newer builds rewrite a file's frontmatter in the nested form: kept.
    nested = hub.read_text().replace("type: reference\n",
                                     "metadata:\n  type: reference\n  node_type: memory\n")
    hub.write_text(nested, encoding="utf-8")
    # Sessions add 20 memories; their lines land at the end, inside the cut.
    lines = (store / "MEMORY.md").read_text().splitlines()
    for number in range(170, 190):
        write_memory(store, f"seen_{number:03}.md",
                     memory_text(f"seen_{number:03}", f"fact {number}", "project",
                                 f"Fact {number}.\n"), mtime=1_767_225_600.0)
        lines.append(index_line(f"seen_{number:03}.md", hook=f"about {number}"))
    write_index(store, lines)

    result = dream(store)

    assert sorted(path.name for path in store.glob("index_*.md")) == ["index_project.md"]
    text = hub.read_text()
    assert text.startswith(nested.split("\n\n", 1)[0] + "\n\n")  # its frontmatter as it was
    listed = [line for line in text.splitlines() if line.startswith("- [")]
    assert listed[:len(first)] == first  # the lines it held stay, those moved now after them
    assert len(listed) == 51
    index = (store / "MEMORY.md").read_text()
    assert index.count("](index_project.md)") == 1
    assert "- [Project memories, continued](index_project.md) — 51 more: " in index
    assert parse_index(index).lines <= ROOM_LINES
    (note,) = [note for note in result.changeset.notes if note.startswith("Moved ")]
    assert note.startswith("Moved 20 index lines into index_project.md, which MEMORY.md "
                           "links (Claude still reaches them), to keep MEMORY.md within 140 "
                           "lines / 17,500 characters: seen_")
    assert len(reached(store)) == 190 + 1  # every memory, and the hub


def test_lines_come_back_when_there_is_room_and_an_emptied_hub_is_removed(claude_home,
                                                                          tmp_path):
    store = crowded(claude_home, tmp_path, seen=150)
    dream(store)
    assert (store / "index_project.md").is_file()
    for number in range(20):  # the user archives 20 memories and their lines
        (store / f"seen_{number:03}.md").unlink()
    lines = [line for line in (store / "MEMORY.md").read_text().splitlines()
             if not any(f"seen_{n:03}.md" in line for n in range(20))]
    write_index(store, lines)

    result = dream(store)

    assert not (store / "index_project.md").exists()
    assert [d.kind for d in result.changeset.files if d.file == "index_project.md"] == ["archived"]
    index = parse_index((store / "MEMORY.md").read_text())
    assert {link.file for link in index.links} == {f"seen_{n:03}.md" for n in range(20, 150)}
    assert "Removed index_project.md: no index line is left in it." in result.changeset.notes
    assert any(note.startswith("Moved 11 index lines from index_project.md back into MEMORY.md")
               for note in result.changeset.notes)
    assert undo_changeset(store) is not None
    assert (store / "index_project.md").is_file()


def test_accepting_the_index_without_its_hub_would_hide_the_lines_moved_there(claude_home,
                                                                              tmp_path):
    store = crowded(claude_home, tmp_path, seen=170)
    changeset = run_dream(store, engine="offline").changeset
    assert changeset.hides == ()  # the whole change set hides nothing
    without_hub = {diff.file for diff in changeset.files} - {"index_project.md"}
    assert changeset.hidden_by(without_hub) == tuple(f"seen_{n:03}.md" for n in range(139, 170))


def test_a_hub_line_stays_one_short_line_and_keeps_acronyms():
    titles = ["A11y reviews", "API reviews", "GraphQL schema dashboard"] + [
        f"Topic number {n}" for n in range(40)]
    line = hub_line("index_feedback.md", titles)
    assert line.startswith("- [Feedback memories, continued](index_feedback.md) — 43 more: "
                           "a11y reviews, API reviews, GraphQL schema dashboard, topic number 0")
    assert len(line) <= 150 and line.endswith(", …")
    assert hub_line("index_user.md", ["Role"]) == "- [User memories, continued](index_user.md) — 1 more: role"


def test_the_doctor_says_what_makes_room_when_the_last_dream_left_the_index_full(claude_home,
                                                                                  tmp_path,
                                                                                  capsys):
    """A dream that ran since the index last changed left it so: another would not help."""
    store = crowded(claude_home, tmp_path, seen=185)
    lock = store / ".consolidate-lock"
    lock.write_text("", encoding="utf-8")
    written = (store / "MEMORY.md").stat().st_mtime
    os.utime(lock, (written - 60, written - 60))  # the dream began a minute before it wrote

    check = doctor_index_size(claude_home.home, store, capsys)
    assert check["status"] == "warn"
    assert "let a dream prune" not in check["fix"]
    assert "left the index as it is, so another of the same will not make room" in check["fix"]
    assert "archive" in check["fix"] and "hubs" in check["fix"]
    assert "dream " + str(store) + " --engine offline" in check["fix"]

    os.utime(lock, (written - 7200, written - 7200))  # sessions wrote it after that dream
    check = doctor_index_size(claude_home.home, store, capsys)
    assert check["fix"].startswith("let a dream prune the index: ")


async def test_rejecting_the_hub_in_the_review_rejects_the_index_that_links_it(claude_home,
                                                                              tmp_path):
    """A MEMORY.md whose lines moved into a hub hides them without it: the two go together,
    the review says so before anything is applied, and rejecting one rejects the other."""
    from conftest import painted, settle

    from tui.app.app import MemtuiApp
    from tui.app.screens.review import ReviewScreen
    from tui.app.widgets.virtual_table import VirtualTable

    store = crowded(claude_home, tmp_path, seen=170)
    before = snapshot(store)
    result = run_dream(store, engine="offline")

    def summary(screen) -> str:
        return painted(screen.query_one("#review-summary").content, width=400, wrap=True)

    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = ReviewScreen(result)
        app.push_screen(screen)
        await settle(app, pilot)
        assert "MEMORY.md goes with index_project.md: rejecting one rejects the others." \
            in summary(screen)
        files = screen.query_one("#review-files", VirtualTable)
        files.move_cursor([row.key for row in files.rows].index("index_project.md"))
        await pilot.press("space")  # reject the hub
        await settle(app, pilot)
        assert screen.accepted == set()
        files.move_cursor([row.key for row in files.rows].index("index_project.md"))
        await pilot.press("space")  # and accept it again: MEMORY.md comes with it
        await settle(app, pilot)
        assert screen.accepted == {"MEMORY.md", "index_project.md"}
        files.move_cursor([row.key for row in files.rows].index("MEMORY.md"))
        await pilot.press("space")
        await settle(app, pilot)
        assert screen.accepted == set()
        assert "would hide" not in summary(screen)
        await pilot.press("escape")
        await settle(app, pilot)
    assert {n: d for n, d in snapshot(store).items() if n.endswith(".md")} == \
        {n: d for n, d in before.items() if n.endswith(".md")}
