"""Rescue: a stranded store's memories brought into the store its project's sessions use
now, as one journalled, undoable change set on that store (reference §1: memory is keyed
by the canonical git root; a removed worktree's own store is loaded by no session)."""

from __future__ import annotations

import pytest
from conftest import index_line, memory_text, snapshot, write_index, write_memory
from rescue_home import (
    API,
    API_LINE,
    NOTES,
    STRANDED_MTIME,
    TABS,
    TABS_LINE,
    WORKTREE_TESTING,
    build_rescue_home,
)

from tui.claude.discovery import discover, live_store
from tui.history.recovery import apply_journalled, undo_journalled
from tui.memory.index import parse_index
from tui.memory.refusals import WriteRefused
from tui.memory.rescue import plan_rescue, prepare_rescue
from tui.memory.store import load_store

RENAMED = "feedback_testing-from-shop-wt.md"


@pytest.fixture
def rescue_home(claude_home, tmp_path):
    return build_rescue_home(claude_home, tmp_path)


def visible_files(store) -> set[str]:
    text = (store / "MEMORY.md").read_text(encoding="utf-8")
    return {link.file for link in parse_index(text).links if link.visible}


def stranded_project(home):
    return next(p for p in discover(home.home, home.env).projects if p.store == home.stranded)


# --- which store the memories belong in -----------------------------------------------------


def test_the_removed_worktrees_store_is_stranded_before_anything_else(rescue_home):
    project = stranded_project(rescue_home)
    assert project.stranded and "no longer exists" in project.stranded_reason


def test_a_removed_worktree_belongs_to_its_checkouts_store_by_its_worktree_state(rescue_home):
    found = live_store(rescue_home.stranded, rescue_home.home, rescue_home.env)
    assert found.store == rescue_home.live
    assert str(rescue_home.repo) in found.why


def test_a_worktree_removed_from_inside_the_checkout_belongs_to_the_checkouts_store(
        claude_home, tmp_path):
    """No worktree-state record: the dead path lies inside a checkout that still exists,
    and a session started there would use that checkout's store."""
    home = build_rescue_home(claude_home, tmp_path, worktree_state=False, inside=True)
    found = live_store(home.stranded, home.home, home.env)
    assert found.store == home.live


def test_a_store_keyed_by_a_worktree_that_still_exists_belongs_to_the_main_store(
        claude_home, tmp_path):
    home = build_rescue_home(claude_home, tmp_path, remove=False)
    assert "sessions there use the store of" in stranded_project(home).stranded_reason
    assert live_store(home.stranded, home.home, home.env).store == home.live


def test_no_evidence_of_the_checkout_means_no_live_store_in_one_sentence(claude_home, tmp_path):
    home = build_rescue_home(claude_home, tmp_path, worktree_state=False)
    found = live_store(home.stranded, home.home, home.env)
    assert found.store is None
    before = snapshot(home.live, recursive=True)
    with pytest.raises(WriteRefused) as refused:
        prepare_rescue(home.stranded, home.home, home.env)
    said = str(refused.value)
    assert said.startswith(f"No live store was found for {home.stranded}: {home.worktree} "
                           "no longer exists")
    assert said.count(". ") == 0 and said.endswith("nothing was written.")
    assert snapshot(home.live, recursive=True) == before


def test_a_store_that_is_not_stranded_is_refused(rescue_home):
    with pytest.raises(WriteRefused, match="is not stranded"):
        prepare_rescue(rescue_home.live, rescue_home.home, rescue_home.env)


# --- the plan -------------------------------------------------------------------------------


def test_rescue_copies_every_memory_and_carries_its_index_line(rescue_home):
    rescue = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env)
    assert rescue.live == rescue_home.live
    created = {c.file: c.after for c in rescue.plan.changes if c.before is None}
    assert created == {"feedback_tabs.md": TABS.encode(), "topics/api.md": API.encode(),
                       "project_notes.md": NOTES.encode(),
                       RENAMED: WORKTREE_TESTING.encode()}
    assert all(c.mtime == STRANDED_MTIME for c in rescue.plan.changes if c.before is None)
    index = next(c for c in rescue.plan.changes if c.file == "MEMORY.md")
    lines = index.after.decode().splitlines()
    # The stranded index's own lines, word for word; one made from the frontmatter.
    assert TABS_LINE in lines and API_LINE in lines
    assert ("- [release notes](project_notes.md) — release notes are written by hand before "
            "each tag") in lines
    # The old lines keep their bytes and their order.
    assert lines[:2] == (rescue_home.live / "MEMORY.md").read_text().splitlines()


def test_an_identical_memory_is_skipped_and_a_different_one_comes_in_renamed(rescue_home):
    plan = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env).plan
    said = "\n".join(plan.summary)
    assert "user_role.md is already in" in said and "identical" in said
    assert f"feedback_testing.md differs from the live store's; it comes in as {RENAMED}" in said
    assert all(c.file not in ("user_role.md", "feedback_testing.md") for c in plan.changes)
    index = next(c for c in plan.changes if c.file == "MEMORY.md").after.decode()
    # The carried line now links the new name; the live store's own line is untouched.
    assert f"- [Testing in the branch]({RENAMED}) — sqlite, not postgres" in index
    assert index.count("(feedback_testing.md)") == 1


def test_a_second_collision_gets_the_next_free_name(rescue_home):
    write_memory(rescue_home.live, RENAMED, "something else\n")
    plan = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env).plan
    assert "feedback_testing-from-shop-wt-2.md" in {c.file for c in plan.changes}


def test_new_lines_go_inside_the_loaded_cut_not_at_the_end(rescue_home):
    """A live index longer than 200 lines: appended at its end, no line would be seen."""
    lines = [index_line("user_role.md", "User role", "backend"),
             *(f"- note {n}" for n in range(150)),
             index_line("feedback_testing.md", "Testing", "a real database"),
             *(f"- later note {n}" for n in range(80))]
    write_index(rescue_home.live, lines)
    rescue = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env)
    assert rescue.plan.pushed_out == ()
    apply_journalled(rescue.live, rescue.plan.changes, rescue.plan.label)
    seen = visible_files(rescue_home.live)
    assert {"feedback_tabs.md", "topics/api.md", "project_notes.md", RENAMED} <= seen
    after = (rescue_home.live / "MEMORY.md").read_text().splitlines()
    assert after.index(TABS_LINE) == 152  # right after the last loaded link, line 152


def test_a_full_index_says_which_entries_the_rescue_would_push_out(rescue_home):
    write_index(rescue_home.live,
                [index_line("user_role.md", "User role", "backend"),
                 index_line("feedback_testing.md", "Testing", "a real database"),
                 *(index_line(f"n{n}.md", f"Note {n}") for n in range(198))])
    for n in range(198):
        write_memory(rescue_home.live, f"n{n}.md", memory_text(f"n{n}", f"note {n}"))
    plan = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env).plan
    assert len(plan.pushed_out) == 4
    assert "past the loaded cut" in plan.summary[-1]


def test_undo_on_the_live_store_restores_it_byte_for_byte(rescue_home):
    live_before = snapshot(rescue_home.live, recursive=True)
    stranded_before = snapshot(rescue_home.stranded, recursive=True)
    rescue = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env)
    apply_journalled(rescue.live, rescue.plan.changes, rescue.plan.label)
    assert snapshot(rescue_home.live, recursive=True) != live_before
    assert snapshot(rescue_home.stranded, recursive=True) == stranded_before  # left as it was
    undo_journalled(rescue_home.live)
    assert snapshot(rescue_home.live, recursive=True) == live_before


def test_a_rescue_done_once_has_nothing_left_to_do(rescue_home):
    rescue = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env)
    apply_journalled(rescue.live, rescue.plan.changes, rescue.plan.label)
    again = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env).plan
    assert again.changes == ()
    assert any(f"already in {rescue_home.live}" in sentence for sentence in again.summary)


def test_the_checkouts_store_is_made_when_it_does_not_exist_yet(claude_home, tmp_path):
    home = build_rescue_home(claude_home, tmp_path, live_store=False)
    rescue = prepare_rescue(home.stranded, home.home, home.env)
    assert rescue.live == home.live
    apply_journalled(rescue.live, rescue.plan.changes, rescue.plan.label)
    assert {"feedback_tabs.md", "topics/api.md", "user_role.md",
            "feedback_testing.md"} <= visible_files(home.live)
    undo_journalled(home.live)
    assert [p for p in home.live.rglob("*") if p.is_file()] == []


def test_a_memory_the_stranded_index_does_not_link_gets_a_line_from_its_description(
        rescue_home):
    (rescue_home.stranded / "MEMORY.md").unlink()
    live = load_store(rescue_home.live)
    plan = plan_rescue(load_store(rescue_home.stranded), live, "shop-wt")
    index = next(c for c in plan.changes if c.file == "MEMORY.md").after.decode()
    assert "- [Tabs](feedback_tabs.md) — indent with tabs in this repository" in index


def test_an_index_that_holds_text_of_its_own_says_it_is_not_carried(rescue_home):
    write_index(rescue_home.stranded, [TABS_LINE, "Deploys go out on Tuesdays only."])
    plan = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env).plan
    assert any("links no memory" in sentence and "by hand" in sentence
               for sentence in plan.summary)


def test_team_memory_goes_to_the_team_index_and_daily_logs_come_without_a_line(rescue_home):
    write_memory(rescue_home.stranded, "team/release.md",
                 memory_text("release", "the release train leaves on Thursdays", "project"))
    write_index(rescue_home.stranded / "team", ["- [Release](release.md) — Thursday train"])
    write_memory(rescue_home.stranded, "logs/2026/01/2026-01-02.md", "worked on tabs\n")
    rescue = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env)
    apply_journalled(rescue.live, rescue.plan.changes, rescue.plan.label)
    team = (rescue_home.live / "team" / "MEMORY.md").read_text()
    assert team == "- [Release](release.md) — Thursday train\n"
    assert (rescue_home.live / "logs/2026/01/2026-01-02.md").read_text() == "worked on tabs\n"
    assert "2026-01-02" not in (rescue_home.live / "MEMORY.md").read_text()


def test_a_symlinked_memory_is_left_where_it_is_and_said(rescue_home, tmp_path):
    elsewhere = tmp_path / "shared-notes.md"
    elsewhere.write_text(memory_text("shared", "notes kept outside the store"))
    (rescue_home.stranded / "shared.md").symlink_to(elsewhere)
    plan = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env).plan
    assert "shared.md" not in {c.file for c in plan.changes}
    assert any(s.startswith("shared.md is a symlink") for s in plan.summary)


def test_a_stranded_index_that_is_not_utf8_still_rescues_with_made_lines(rescue_home):
    (rescue_home.stranded / "MEMORY.md").write_bytes(b"- [Tabs](feedback_tabs.md) \xff\n")
    rescue = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env)
    index = next(c for c in rescue.plan.changes if c.file == "MEMORY.md").after.decode()
    assert "- [Tabs](feedback_tabs.md) — indent with tabs in this repository" in index



def test_index_text_past_the_stranded_cut_is_said_too(rescue_home):
    # `index.loaded` is the whole index read as Claude reads it: its lines past the cut
    # are there, marked "cut", so text there that links no memory is named as well.
    headings = [f"## Section {n}" for n in range(205)]
    write_index(rescue_home.stranded, [TABS_LINE, *headings, "Deploys go out on Tuesdays only."])
    plan = prepare_rescue(rescue_home.stranded, rescue_home.home, rescue_home.env).plan
    assert "1 line of the stranded index links no memory (line 207); not carried " \
           "over: copy by hand what Claude should still see." in plan.summary
