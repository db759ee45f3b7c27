"""End to end in a real terminal: the installed `memtui` in tmux, driven by keys, checked on disk."""

from __future__ import annotations

import os
import re
import shlex
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import GIT_IDENTITY, index_line, memory_text, real, write_index, write_memory
from tmux_terminal import TmuxTerminal
from waiting import PATIENCE

from tui.claude import paths
from tui.claude.discovery import discover
from tui.memory.index import parse_index
from tui.memory.store import load_store

pytestmark = pytest.mark.skipif(not TmuxTerminal.available(), reason="tmux is not installed")

MEMTUI = Path(sys.executable).parent / "memtui"
ORPHAN = "project_orphan.md"


@pytest.fixture
def terminal_env(tmp_path, claude_home) -> dict[str, str]:
    """Everything memtui reads or writes points into this test's tmp dir."""
    assert MEMTUI.is_file(), f"memtui is not installed next to {sys.executable}"
    user_home = tmp_path / "user-home"
    user_home.mkdir()
    env = {
        "HOME": str(user_home),
        "CLAUDE_CONFIG_DIR": str(claude_home.home),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        **GIT_IDENTITY,
    }
    for place in ("DATA", "STATE", "CACHE", "CONFIG"):
        env[f"MEMTUI_{place}_DIR"] = str(tmp_path / "memtui" / place.lower())
    return env


@pytest.fixture
def store_with_orphan(tmp_path, claude_home) -> Path:
    """One project whose store has two indexed memories and, between them, one orphan."""
    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    claude_home.session(real(project))
    store = claude_home.store(real(project))
    assert store == claude_home.home / "projects" / paths.sanitize(str(real(project))) / "memory"
    write_memory(store, "feedback_testing.md",
                 memory_text("testing", "integration tests hit a real database"))
    write_memory(store, ORPHAN, memory_text("payments", "payments move to stripe", "project"))
    write_memory(store, "user_role.md",
                 memory_text("user role", "the user is a backend engineer", "user"))
    write_index(store, [
        index_line("feedback_testing.md", "Testing", "real database"),
        index_line("user_role.md", "User role", "backend engineer"),
    ])
    return store


def visible_files(store: Path) -> set[str]:
    index = parse_index((store / paths.INDEX_NAME).read_text(encoding="utf-8"))
    return {link.file for link in index.links if link.visible}


def test_relinking_an_orphan_from_the_store_screen_writes_the_index(
    store_with_orphan, terminal_env
):
    assert ORPHAN not in visible_files(store_with_orphan)
    with TmuxTerminal(shlex.quote(str(MEMTUI)), terminal_env) as terminal:
        terminal.wait_for("1 project in")  # a cold start compiles Textual
        terminal.press("Enter")
        # The first row's preview, and the orphan's status in the table.
        screen = terminal.wait_for("feedback_testing.md", "unindexed")
        assert ORPHAN not in screen
        terminal.press("Down")
        terminal.wait_for(ORPHAN)
        terminal.press("r")
        terminal.wait_for("Apply (y)", f"Add an index line for {ORPHAN}")
        terminal.press("y")
        terminal.wait_for("1 file changed")
        terminal.wait_until_gone("unindexed")
        terminal.press("q")
        assert terminal.wait_for_exit() == 0

    assert visible_files(store_with_orphan) == {"feedback_testing.md", ORPHAN, "user_role.md"}


def test_demo_opens_the_app_on_the_demo_projects(tmp_path, terminal_env):
    demo = tmp_path / "demo"
    command = f"{shlex.quote(str(MEMTUI))} demo {shlex.quote(str(demo))}"
    with TmuxTerminal(command, terminal_env) as terminal:
        terminal.wait_for("projects in", "webapp", "cli-tool", "café notes")
        terminal.press("q")
        assert terminal.wait_for_exit() == 0
        assert f"Demo config home built at {demo / 'claude'}" in terminal.screen()


def test_demo_with_no_open_only_builds_it(tmp_path, terminal_env):
    demo = tmp_path / "demo"
    command = f"{shlex.quote(str(MEMTUI))} demo --no-open {shlex.quote(str(demo))}"
    with TmuxTerminal(command, terminal_env) as terminal:
        assert terminal.wait_for_exit() == 0
        screen = terminal.screen()
    assert f"Demo config home built at {demo / 'claude'}" in screen
    assert "projects in" not in screen
    assert (demo / "claude" / "projects").is_dir()


def highlighted_numbers(terminal: TmuxTerminal) -> list[int]:
    """The index lines (by their number) painted in a background no other line has: the
    cursor's."""
    numbered = []
    for text, backgrounds in terminal.backgrounds():
        match = re.match(r"\s*(\d+) ", text)
        if match and backgrounds:
            numbered.append((int(match.group(1)), backgrounds[match.start(1)]))
    counts = Counter(background for _, background in numbered)
    return [number for number, background in numbered if counts[background] == 1]


def wait_for_highlight(terminal: TmuxTerminal, wanted: list[int]) -> None:
    deadline = time.monotonic() + PATIENCE
    while (shown := highlighted_numbers(terminal)) != wanted:
        if time.monotonic() > deadline:
            raise AssertionError(f"highlighted {shown}, not {wanted}:\n{terminal.screen()}")
        time.sleep(0.1)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_the_index_tab_highlights_the_line_its_keys_act_on(tmp_path, terminal_env, size):
    """The Index tab opens scrolled to the cut; Up twice left the highlight on the first
    line past the cut while `m` offered to move the line two above it."""
    from tui.demo import build_demo

    demo = build_demo(tmp_path / "demo")
    env = {**terminal_env, "CLAUDE_CONFIG_DIR": str(demo.home)}
    webapp = max(discover(demo.home, env).projects, key=lambda project: project.memories)
    index = load_store(webapp.store).index
    past_cut = index.first_cut_line + 1  # the first line Claude does not load, 1-based
    link_at = {link.line: link.file for link in index.links}
    with TmuxTerminal(shlex.quote(str(MEMTUI)), env, size) as terminal:
        terminal.wait_for("projects in")
        terminal.press("f")
        terminal.wait_for("filter")
        terminal.type("code/webapp")
        terminal.wait_for(" of ", "projects in")  # "3 of 8 projects in": the filter is on
        terminal.press("Enter", "Enter")
        terminal.wait_for("1 Memories", "past cut", "Doctor: ")  # the last thing drawn
        terminal.press("2")
        terminal.wait_for("Claude's cut")
        wait_for_highlight(terminal, [past_cut])
        terminal.press("Up", "Up")
        wait_for_highlight(terminal, [past_cut - 2])
        terminal.press("m")
        terminal.wait_for("Apply (y)", f"move index line for {link_at[past_cut - 2]}")
        terminal.press("Escape")
        terminal.wait_until_gone("Apply (y)")
        terminal.press("Down")
        wait_for_highlight(terminal, [past_cut - 1])
        terminal.press("q")
        assert terminal.wait_for_exit() == 0


def test_a_dream_on_a_terminal_says_its_summary_first_and_shows_the_diff_when_asked(
        tmp_path, claude_home, terminal_env):
    """Issue 40: `memtui dream` on a terminal printed ~950 lines of diff and asked "Apply?"
    before the summary. Now the summary, then the question; `d` opens the diff in a pager."""
    store = claude_home.store(tmp_path / "project")
    long_hook = "every step of the release written out, " * 5
    write_memory(store, "feedback_release.md",
                 memory_text("release", "how a release goes", "feedback", "Tag, then ship.\n"))
    write_index(store, [index_line("feedback_release.md", hook=long_hook.strip())])
    before = (store / "MEMORY.md").read_bytes()
    env = {**terminal_env, "PAGER": "cat"}
    command = shlex.join([str(MEMTUI), "dream", str(store), "--engine", "offline"])
    with TmuxTerminal(command, env) as terminal:
        screen = terminal.wait_for("Apply these changes? [y/N, d: show the diff]")
        assert "Change set: 0 created, 2 modified, 0 archived" in screen
        assert "Index: 1 line, " in screen and "=== modified" not in screen
        terminal.press("d", "Enter")
        screen = terminal.wait_for("=== modified: MEMORY.md", "+From the index: every step")
        assert screen.rstrip().endswith("Apply these changes? [y/N, d: show the diff]")
        terminal.press("n", "Enter")
        terminal.wait_for("Not applied: run again with --yes to apply.")
        assert terminal.wait_for_exit() == 0
    assert (store / "MEMORY.md").read_bytes() == before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_slash_searches_every_store_and_enter_opens_the_memory(
        store_with_orphan, tmp_path, claude_home, terminal_env, size):
    blog = tmp_path / "work" / "blog"
    blog.mkdir(parents=True)
    claude_home.session(real(blog))
    write_memory(claude_home.store(real(blog)), "reference_fees.md",
                 memory_text("fees", "card fees by provider", "reference", "Stripe: 2.9%.\n"))
    with TmuxTerminal(shlex.quote(str(MEMTUI)), terminal_env, size) as terminal:
        terminal.wait_for("2 projects in")
        terminal.press("/")
        terminal.wait_for("4 memories in 2 stores")
        terminal.type("stripe")
        screen = terminal.wait_for("2 memories match", ORPHAN[:12], "reference_fees")
        assert "payments move to stripe" in screen  # the highlighted one's description
        terminal.type(" move")
        terminal.wait_for("1 memory matches")
        terminal.press("Enter", "Enter")  # to the results; open the memory in its store
        screen = terminal.wait_for("1 Memories", ORPHAN, "unindexed")
        assert "feedback_testing.md" not in screen  # the preview is the orphan's
        terminal.press("Escape")
        terminal.wait_for("1 memory matches")
        terminal.press("q")
        assert terminal.wait_for_exit() == 0


def test_two_marked_memories_moved_to_another_project_from_the_store_screen(
        store_with_orphan, tmp_path, claude_home, terminal_env):
    blog = tmp_path / "work" / "blog"
    blog.mkdir(parents=True)
    claude_home.session(real(blog))
    target = claude_home.store(real(blog))
    write_memory(target, "user_writer.md", memory_text("writer", "writes the blog", "user"))
    write_index(target, [index_line("user_writer.md", "Writer")])
    with TmuxTerminal(shlex.quote(str(MEMTUI)), terminal_env, (80, 24)) as terminal:
        terminal.wait_for("2 projects in")
        terminal.press("Down", "Enter")  # the shop, after the blog
        terminal.wait_for("1 Memories", "feedback_testing.md")
        terminal.press("Space", "Space")  # the first two rows: the testing memory, the orphan
        terminal.press("M")
        terminal.wait_for("Move 2 memories to which project?", "work/blog")
        terminal.type("blog")
        terminal.press("Enter")
        terminal.wait_for("Move (y)", f"Copy {ORPHAN}.")
        terminal.press("y")
        terminal.wait_for("Moved 2 memories to")
        terminal.press("q")
        assert terminal.wait_for_exit() == 0

    assert sorted(path.name for path in store_with_orphan.glob("*.md")) == [
        "MEMORY.md", "user_role.md"]
    assert visible_files(store_with_orphan) == {"user_role.md"}
    assert visible_files(target) == {"user_writer.md", "feedback_testing.md", ORPHAN}
