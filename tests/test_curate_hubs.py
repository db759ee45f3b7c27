"""memtui's own hubs stay true when a memory they list is archived, deleted or renamed.

A dream moves the index lines MEMORY.md has no room for into hubs (`index_project.md`, …),
memory files MEMORY.md links in one line that says how many they list. Archiving a memory a
hub listed left a dead link in the hub, a count that was no longer true, and the sentence
"edit index_project.md by hand"; a rescue that brought a memory in under a new name copied
the hub linking the old name, which in the live store is another memory. The hubs are
memtui's structure, so their lines follow in the same change set; a user's own
second-level index keeps its text (see test_curate).
"""

from __future__ import annotations

import os

import pytest
from conftest import index_line, memory_text, real, snapshot, write_index, write_memory

from tui import cli
from tui.agents.dream import run_dream
from tui.agents.result import conclude
from tui.memory.audit import memory_statuses
from tui.memory.hubs import hub_line
from tui.memory.reach import memory_links
from tui.memory.store import load_store

HUB = "index_project.md"
MOVED = [f"seen_{n:03}.md" for n in range(139, 170)]  # the lines a dream moves into the hub


def dreamed_store(claude_home, tmp_path):
    """170 project memories inside the cut, dreamed: the last 31 lines went into the hub."""
    project = real(tmp_path) / "project"
    project.mkdir()
    claude_home.session(project)
    store = claude_home.store(project)
    for number in range(170):
        write_memory(store, f"seen_{number:03}.md",
                     memory_text(f"seen_{number:03}", f"fact {number}", "project",
                                 f"Fact {number}.\n"), mtime=1_767_225_600.0)
    write_index(store, [index_line(f"seen_{n:03}.md", hook=f"about {n}") for n in range(170)])
    conclude(run_dream(store, engine="offline"), apply=True)
    assert hub_listed(store) == MOVED
    return store


def hub_listed(store) -> list[str]:
    text = (store / HUB).read_text(encoding="utf-8")
    return memory_links(HUB, text, None)


def hub_lines_in_index(store) -> list[str]:
    return [line for line in (store / "MEMORY.md").read_text(encoding="utf-8").splitlines()
            if f"]({HUB})" in line]


def dead_links(store) -> list[tuple[str, str]]:
    loaded = load_store(store)
    return [(memory.file, file) for memory in loaded.memories
            for file in memory_links(memory.file, memory.text, loaded.wiki_names)
            if not (store / file).exists()]


def memtui(claude_home, capsys, *args: str) -> str:
    code = cli.main(["--config-dir", str(claude_home.home), *args])
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), out + err
    return out


@pytest.mark.parametrize("verb", ["archive", "delete"])
def test_removing_a_memory_a_hub_lists_takes_its_line_out_of_the_hub(claude_home, tmp_path,
                                                                     capsys, verb):
    store = dreamed_store(claude_home, tmp_path)
    before = snapshot(store)
    hub_mtime = os.stat(store / HUB).st_mtime

    out = memtui(claude_home, capsys, "fix", str(store), verb, "seen_150.md", "--yes")

    assert "by hand" not in out
    assert f"Remove the line for seen_150.md from {HUB}." in out
    assert hub_listed(store) == [file for file in MOVED if file != "seen_150.md"]
    titles = [file.removesuffix(".md") for file in MOVED if file != "seen_150.md"]
    assert hub_lines_in_index(store) == [hub_line(HUB, titles)]  # "30 more: seen_139, …"
    assert "— 30 more: " in hub_lines_in_index(store)[0]
    assert dead_links(store) == []
    # The hub's meaning is its memories': recall orders by mtime, so it keeps its own.
    assert os.stat(store / HUB).st_mtime == pytest.approx(hub_mtime, abs=1e-6)
    # What the dream itself would write: a dream now finds nothing to change.
    assert run_dream(store, engine="offline", dry_run=True).changeset.empty

    memtui(claude_home, capsys, "undo", str(store))
    assert snapshot(store) == before


def test_a_hub_left_with_no_line_goes_with_its_line_in_the_index(claude_home, tmp_path, capsys):
    store = dreamed_store(claude_home, tmp_path)
    before = snapshot(store)

    out = memtui(claude_home, capsys, "fix", str(store), "archive", *MOVED, "--yes")

    assert f"Remove {HUB}, which lists no memory now, and its line in MEMORY.md." in out
    assert not (store / HUB).exists()
    assert hub_lines_in_index(store) == []
    statuses = memory_statuses(load_store(store))
    assert all(status.visible for status in statuses.values())  # nothing left unreached
    assert dead_links(store) == []

    memtui(claude_home, capsys, "undo", str(store))
    assert snapshot(store) == before


def test_a_hub_line_in_the_users_words_gets_only_its_count_made_true(claude_home, tmp_path,
                                                                     capsys):
    store = dreamed_store(claude_home, tmp_path)
    index = (store / "MEMORY.md").read_text(encoding="utf-8")
    (ours,) = hub_lines_in_index(store)
    mine = f"- [Older project notes]({HUB}) — 31 more, the oldest first"
    (store / "MEMORY.md").write_text(index.replace(ours, mine), encoding="utf-8")

    memtui(claude_home, capsys, "fix", str(store), "delete", "seen_140.md", "seen_141.md",
           "--yes")

    assert hub_lines_in_index(store) == [f"- [Older project notes]({HUB}) — 29 more, the "
                                         "oldest first"]


def test_a_users_own_index_keeps_its_text_while_the_hub_follows(claude_home, tmp_path, capsys):
    """The same removal, through a second-level index the user wrote: their text, their
    link, said to be left; only memtui's hubs are rewritten."""
    store = dreamed_store(claude_home, tmp_path)
    write_memory(store, "topics_index.md", memory_text(
        "topics index", "my own list", "reference", "- [Fact 150](seen_150.md) — mine\n"))

    out = memtui(claude_home, capsys, "fix", str(store), "archive", "seen_150.md", "--yes")

    assert "topics_index.md links seen_150.md; that link is left as it is" in out
    assert "(seen_150.md)" in (store / "topics_index.md").read_text(encoding="utf-8")
    assert "seen_150.md" not in hub_listed(store)


async def test_archiving_in_the_app_keeps_the_hub_true_and_undo_takes_it_all_back(
        claude_home, tmp_path):
    from conftest import settle
    from test_app_curation import confirm, highlight, undo

    from tui.app.app import MemtuiApp
    from tui.app.screens.store import StoreScreen
    from tui.claude.discovery import discover

    store = dreamed_store(claude_home, tmp_path)
    before = snapshot(store)
    [project] = [p for p in discover(claude_home.home, claude_home.env).projects
                 if p.store == store]
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = StoreScreen(project)
        app.push_screen(screen)
        await settle(app, pilot)
        highlight(screen, "seen_150")
        await pilot.press("a")
        listed = await confirm(app, pilot)
        assert f"Remove the line for seen_150.md from {HUB}." in listed
        assert "by hand" not in listed
        assert not (store / "seen_150.md").exists()
        assert "seen_150.md" not in hub_listed(store)
        assert "— 30 more: " in hub_lines_in_index(store)[0]
        await undo(app, pilot)
        assert snapshot(store) == before


def test_a_rescued_hub_links_the_memories_it_lists_under_their_new_names(claude_home,
                                                                         tmp_path, capsys):
    """The worktree's store was dreamed: its hub lists feedback_testing.md, which the live
    store also has, with other words. The rescue brings it in renamed: the copied hub
    linked the live store's memory of that name."""
    from rescue_home import STRANDED_MTIME, build_rescue_home

    home = build_rescue_home(claude_home, tmp_path)
    renamed = "feedback_testing-from-shop-wt.md"
    hub = "index_feedback.md"
    lines = [index_line("feedback_tabs.md", "Tabs rule", "indent with tabs"),
             index_line("feedback_testing.md", "Testing in the branch", "sqlite, not postgres")]
    write_memory(home.stranded, hub, memory_text(
        "index_feedback", "Index lines of feedback memories that MEMORY.md has no room for",
        "reference", "Feedback memories that MEMORY.md has no room for, one line each.\n\n"
        + "\n".join(lines) + "\n"), mtime=STRANDED_MTIME)
    index = (home.stranded / "MEMORY.md").read_text(encoding="utf-8")
    write_index(home.stranded, [line for line in index.splitlines()
                                if "feedback_t" not in line]
                + [hub_line(hub, ["Tabs rule", "Testing in the branch"])])
    before = snapshot(home.live)

    out = memtui(claude_home, capsys, "fix", str(home.stranded), "rescue", "--yes")

    assert f"{hub} line 10 links feedback_testing.md as {renamed}." in out
    copied = (home.live / hub).read_text(encoding="utf-8")
    assert memory_links(hub, copied, None) == ["feedback_tabs.md", renamed]
    assert f"- [Testing in the branch]({renamed}) — sqlite, not postgres" in copied
    assert os.stat(home.live / hub).st_mtime == STRANDED_MTIME
    assert dead_links(home.live) == []

    memtui(claude_home, capsys, "undo", str(home.live))
    assert snapshot(home.live) == before
