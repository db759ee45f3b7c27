"""Copy and move from the store screen (issue 43): mark memories, `c` or `M`, pick another
project's store, answer for each name it holds with other text, see the preview, apply;
checked on disk in both stores."""

from __future__ import annotations

import os
import subprocess

import pytest
from app_home import build_app_home
from conftest import (
    index_line,
    memory_text,
    painted,
    real,
    settle,
    snapshot,
    write_index,
    write_memory,
)
from textual.widgets import Input, Static
from waiting import pilot_until

from tui import failpoints
from tui.app.app import MemtuiApp
from tui.app.screens.confirm import ConfirmScreen
from tui.app.screens.store import StoreScreen
from tui.app.screens.transfer import CollisionDialog, TargetPicker
from tui.app.widgets.virtual_table import VirtualTable
from tui.claude.discovery import discover
from tui.memory.store import load_store

FILLER = 197  # the blog's index: two entries, then this many notes


@pytest.fixture
def homes(claude_home, tmp_path):
    """The app fixture's shop store, and a blog project's store whose index is nearly
    full: of two lines added at its end, the second would be past the cut. The blog holds its own
    feedback_testing.md, another text than the shop's."""
    home = build_app_home(claude_home, tmp_path)
    blog = tmp_path / "work" / "blog"
    blog.mkdir(parents=True)
    claude_home.session(real(blog))
    target = claude_home.store(real(blog))
    write_memory(target, "user_writer.md", memory_text("writer", "the user writes the blog",
                                                       "user"))
    write_memory(target, "project_rss.md", memory_text("rss", "the feed is built nightly",
                                                       "project"))
    write_memory(target, "feedback_testing.md",
                 memory_text("testing", "the blog has no tests", "feedback", "None yet.\n"))
    write_index(target, [index_line("user_writer.md", "Writer"),
                         index_line("project_rss.md", "RSS"),
                         *(f"- note {n}" for n in range(FILLER))])
    return home, target


async def open_shop(app, pilot, home) -> StoreScreen:
    project = next(p for p in discover(home.home, home.env).projects
                   if p.store == home.store)
    screen = StoreScreen(project)
    app.push_screen(screen)
    await settle(app, pilot)
    return screen


def names(screen) -> list[str]:
    return [str(row.cells[2]) for row in screen.query_one("#memory-table", VirtualTable).rows]


async def mark(pilot, screen, *wanted: str) -> None:
    table = screen.query_one("#memory-table", VirtualTable)
    for name in wanted:
        table.move_cursor(names(screen).index(name))
        await pilot.press("space")


async def pick_target(app, pilot, typed: str) -> TargetPicker:
    await pilot_until(pilot, lambda: isinstance(app.screen, TargetPicker)
                      and app.screen.query_one("#target-table", VirtualTable).rows)
    picker = app.screen
    await pilot.press(*typed)
    await pilot.pause()
    return picker


async def carry(app, pilot, home, key: str, *memories: str, to: str = "blog") -> StoreScreen:
    """On the shop's store screen: `memories` marked, `key` pressed, the project typed as
    `to` picked."""
    screen = await open_shop(app, pilot, home)
    await mark(pilot, screen, *memories)
    await pilot.press(key)
    await pick_target(app, pilot, to)
    await pilot.press("enter")
    return screen


async def shown(app, pilot, dialog):
    """The dialog of type `dialog` once it is on screen."""
    await pilot_until(pilot, lambda: isinstance(app.screen, dialog))
    return app.screen


def rows_of(picker) -> list[str]:
    return [str(row.cells[0]) for row in picker.query_one("#target-table", VirtualTable).rows]


def loaded_files(store) -> set[str]:
    return {link.file for link in load_store(store).indexes[0].loaded.links if link.visible}


def listed(screen) -> str:
    return " ".join(painted(static.content) for static in screen.query(Static))


def toasts(app) -> list[str]:
    return [notification.message for notification in app._notifications]


async def test_two_marked_memories_moved_with_a_collision_asked(homes):
    home, target = homes
    shop, blog_before = snapshot(home.store), snapshot(target)
    app = MemtuiApp(home.home, home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_shop(app, pilot, home)
        await mark(pilot, screen, "user role", "testing")
        await pilot.press("M")
        picker = await pick_target(app, pilot, "blog")
        assert len(rows_of(picker)) == 1 and rows_of(picker)[0].endswith("work/blog")
        await pilot.press("enter")
        await pilot_until(pilot, lambda: isinstance(app.screen, CollisionDialog))
        dialog = app.screen
        assert "feedback_testing.md" in str(dialog.query_one("#collision-table",
                                                             VirtualTable).rows[0].cells[0])
        await pilot.press("enter")  # nothing chosen yet: it asks again
        await pilot.pause()
        assert app.screen is dialog and "Choose for feedback_testing.md" in toasts(app)[-1]
        await pilot.press("k", "enter")
        await pilot_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        preview = listed(app.screen)
        assert "Move 2 memories to" in preview
        assert "Copy feedback_testing.md as feedback_testing-2.md" in preview
        assert "Remove user_role.md from the source" in preview
        assert snapshot(target) == blog_before  # nothing written before the answer
        await pilot.press("y")
        await settle(app, pilot)
        assert any(t.startswith("Moved 2 memories to") and "u here puts them back" in t
                   for t in toasts(app)), toasts(app)
        assert not screen.marked and "user role" not in names(screen)

    # In the target: both files, the blog's own testing memory kept, the lines inside the cut.
    assert (target / "user_role.md").read_bytes() == shop["user_role.md"]
    assert (target / "feedback_testing-2.md").read_bytes() == shop["feedback_testing.md"]
    assert (target / "feedback_testing.md").read_bytes() == blog_before["feedback_testing.md"]
    assert {"user_role.md", "feedback_testing-2.md", "user_writer.md",
            "project_rss.md"} <= loaded_files(target)
    # Gone from the source, files and index lines.
    assert not (home.store / "user_role.md").exists()
    assert not (home.store / "feedback_testing.md").exists()
    index = (home.store / "MEMORY.md").read_text()
    assert "user_role.md" not in index and "feedback_testing.md" not in index


@pytest.mark.parametrize("key", ["r", "s"])
async def test_a_copy_replaces_or_skips_as_answered_never_silently(homes, key):
    home, target = homes
    shop, blog_before = snapshot(home.store), snapshot(target)
    app = MemtuiApp(home.home, home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        await carry(app, pilot, home, "c", "testing", "dashboards")
        await shown(app, pilot, CollisionDialog)
        await pilot.press(key, "enter")
        await shown(app, pilot, ConfirmScreen)
        await pilot.press("y")
        await settle(app, pilot)
        assert any(t.startswith("Copied ") and "memtui undo" in t for t in toasts(app))
    assert snapshot(home.store) == shop  # a copy leaves the source as it was
    assert (target / "reference_dashboards.md").read_bytes() == shop["reference_dashboards.md"]
    expected = shop if key == "r" else blog_before
    assert (target / "feedback_testing.md").read_bytes() == expected["feedback_testing.md"]
    assert not (target / "feedback_testing-2.md").exists()


async def test_the_picker_offers_neither_this_store_nor_a_read_only_one(homes, claude_home,
                                                                         tmp_path):
    """Offered: the blog, and docs, whose sessions have saved no memory yet (the copy
    makes its store); not the shop (the source) nor the archive (read-only)."""
    home, target = homes
    docs = tmp_path / "work" / "docs"
    docs.mkdir(parents=True)
    claude_home.session(real(docs))
    locked = tmp_path / "work" / "archive"
    locked.mkdir(parents=True)
    claude_home.session(real(locked))
    read_only = claude_home.store(real(locked))
    write_memory(read_only, "old.md", memory_text("old", "old notes"))
    if subprocess.run(["chattr", "+i", str(read_only)], capture_output=True).returncode:
        pytest.skip("this file system has no immutable flag (chattr +i)")
    try:
        app = MemtuiApp(home.home, home.env)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_shop(app, pilot, home)
            await pilot.press("c")
            picker = await pick_target(app, pilot, "")
            assert [row.split("/")[-1] for row in rows_of(picker)] == ["blog", "docs"]
            status = painted(picker.query_one("#target-status", Static).content)
            assert "Not offered: this store, 1 read-only store." in status
            table = picker.query_one("#target-table", VirtualTable)
            await pilot.press("down")  # the filter keeps the focus; the arrows move the rows
            assert str(table.highlighted.cells[0]).endswith("docs")
            assert str(table.highlighted.cells[2]) == "no memory yet"
            await pilot.press(*"zzzq")
            assert rows_of(picker) == []
            await pilot.press(*["backspace"] * 4, *"blo")
            assert [row.split("/")[-1] for row in rows_of(picker)] == ["blog"]
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen and not screen.busy
    finally:
        subprocess.run(["chattr", "-i", str(read_only)], check=True)


async def test_a_copy_into_a_project_with_no_memory_yet_makes_its_store(homes, claude_home,
                                                                          tmp_path):
    home, _ = homes
    docs = tmp_path / "work" / "docs"
    docs.mkdir(parents=True)
    claude_home.session(real(docs))
    app = MemtuiApp(home.home, home.env)
    async with app.run_test(size=(80, 24)) as pilot:
        await carry(app, pilot, home, "c", "payments", to="docs")
        await shown(app, pilot, ConfirmScreen)
        await pilot.press("y")
        await settle(app, pilot)
    store = claude_home.store(real(docs))
    assert (store / "project_orphan.md").read_bytes() == (home.store / "project_orphan.md").read_bytes()
    assert loaded_files(store) == {"project_orphan.md"}


async def test_a_target_whose_lock_is_held_is_refused_in_one_sentence(homes):
    home, target = homes
    shop, blog_before = snapshot(home.store), snapshot(target)
    app = MemtuiApp(home.home, home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_shop(app, pilot, home)
        await mark(pilot, screen, "user role")
        await pilot.press("M")
        await pick_target(app, pilot, "blog")
        (target / ".consolidate-lock").write_text(str(os.getpid()))  # a dream starts there
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is screen
        assert toasts(app)[-1].endswith("holds its lock; nothing was changed.")
    assert snapshot(home.store) == shop
    assert {k: v for k, v in snapshot(target).items() if k != ".consolidate-lock"} == blog_before


async def test_a_target_made_read_only_after_the_preview_is_refused_in_one_sentence(homes):
    home, target = homes
    shop, blog_before = snapshot(home.store), snapshot(target)
    app = MemtuiApp(home.home, home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await carry(app, pilot, home, "M", "dashboards")
        await shown(app, pilot, ConfirmScreen)
        if subprocess.run(["chattr", "+i", str(target)], capture_output=True).returncode:
            pytest.skip("this file system has no immutable flag (chattr +i)")
        try:
            await pilot.press("y")
            await settle(app, pilot)
        finally:
            subprocess.run(["chattr", "-i", str(target)], check=True)
        said = [n.message for n in app._notifications if n.severity == "error"]
        assert len(said) == 1 and said[0].endswith("nothing was changed.")
        assert "is read-only" in said[0] and "dashboards" in names(screen)
    assert snapshot(home.store) == shop and snapshot(target) == blog_before


async def test_a_full_disk_in_the_target_changes_nothing_and_says_so(homes):
    home, target = homes
    shop, blog_before = snapshot(home.store), snapshot(target)

    def full_disk_in_target(path: str) -> None:
        if str(target) in path:
            raise OSError(28, "No space left on device", path)

    app = MemtuiApp(home.home, home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await carry(app, pilot, home, "M", "user role", "dashboards")
        await shown(app, pilot, ConfirmScreen)
        failpoints.on("io.write", full_disk_in_target)
        try:
            await pilot.press("y")
            await settle(app, pilot)
        finally:
            failpoints.on("io.write", None)
        said = [n for n in app._notifications if n.severity == "error"]
        assert len(said) == 1 and "the disk is full" in said[0].message
        assert "nothing was changed" in said[0].message and "Traceback" not in said[0].message
        assert "user role" in names(screen)
    assert snapshot(home.store) == shop and snapshot(target) == blog_before


def crowd(target) -> None:
    """The blog's index full of entries up to its cut, and a line to a missing file: a
    line added inside the cut pushes the last entry out, and removing the dangling one
    makes room."""
    entries = [f"project_n{n}.md" for n in range(199)]
    for file in entries:
        write_memory(target, file, memory_text(file[:-3], "filler", "project"))
    write_index(target, [index_line("gone.md", "Gone"), *(index_line(f) for f in entries)])


async def test_lines_that_would_push_entries_out_offer_the_relink_dialogs_choices(homes):
    home, target = homes
    crowd(target)
    app = MemtuiApp(home.home, home.env)
    async with app.run_test(size=(80, 24)) as pilot:
        await carry(app, pilot, home, "c", "dashboards")
        dialog = await shown(app, pilot, ConfirmScreen)
        assert dialog.plan.pushed_out == ("project_n198.md",)
        assert str(dialog.query_one("#apply").label) == "Apply anyway"
        assert str(dialog.query_one("#option-0").label) == "Remove dangling (1)"
        await pilot.press("y")  # a stray y never pushes entries out
        await pilot.pause()
        assert app.screen is dialog
        await pilot.press("1")  # remove the dangling line in the blog's index first
        await pilot_until(pilot, lambda: isinstance(app.screen, ConfirmScreen)
                          and app.screen is not dialog)
        assert str(app.screen.plan.label).startswith("remove 1 dangling index line in ")
        assert str(app.screen.plan.label).endswith("work/blog")
        assert "gone.md" in listed(app.screen)
        await pilot.press("y")
        await pilot_until(pilot, lambda: isinstance(app.screen, ConfirmScreen)
                          and "Copy" in str(app.screen.plan.label))
        assert not app.screen.plan.pushed_out  # shown again: now it fits
        await pilot.press("y")
        await settle(app, pilot)
    assert "gone.md" not in (target / "MEMORY.md").read_text()
    assert {"reference_dashboards.md", "project_n198.md"} <= loaded_files(target)


async def test_hubs_for_the_rest_keeps_the_targets_entries_and_one_undo_restores_both(homes):
    """Issue 43: a move into a full index offered apply anyway or making room by hand;
    relink's "Hubs for the rest" is offered now: every entry of the blog stays inside its
    cut, the moved memories are reached through a hub linked there, one u takes it back."""
    from tui.memory.audit import memory_statuses

    home, target = homes
    entries = [f"project_n{n}.md" for n in range(197)]
    for file in entries:
        write_memory(target, file, memory_text(file[:-3], "filler", "project"))
    old_entries = ["user_writer.md", "project_rss.md", *entries]
    write_index(target, [index_line(file) for file in old_entries])  # 199 lines: one more fits
    before = (snapshot(home.store), snapshot(target))
    app = MemtuiApp(home.home, home.env)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await carry(app, pilot, home, "M", "launch", "payments")
        dialog = await shown(app, pilot, ConfirmScreen)
        assert dialog.plan.pushed_out == ("project_n196.md",)
        option = dialog.query_one("#option-0")
        assert str(option.label) == "Hubs for the rest (1)"
        assert option.region.right <= 80 and option.region.bottom < 24  # on screen
        await pilot.press("1")
        await pilot_until(pilot, lambda: isinstance(app.screen, ConfirmScreen)
                          and app.screen is not dialog)
        hubbed = app.screen
        assert not hubbed.plan.pushed_out  # y applies it: nothing leaves the cut
        assert "Add index_project.md, which MEMORY.md links" in listed(hubbed)
        assert "index_project.md of" in listed(hubbed)  # its diff, beside the index's
        await pilot.press("y")
        await settle(app, pilot)
        assert any(t.startswith("Moved 2 memories to") and "index_project.md" in t
                   for t in toasts(app)), toasts(app)
        moved = load_store(target)
        assert set(old_entries) | {"index_project.md"} <= loaded_files(target)
        statuses = memory_statuses(moved)
        assert statuses["project_launch.md"].linked_from == "index_project.md"
        assert statuses["project_orphan.md"].linked_from == "index_project.md"
        assert not (home.store / "project_launch.md").exists()
        await pilot.press("u")  # on the shop's screen: both stores back
        await settle(app, pilot)
        assert "launch" in names(screen)
    assert (snapshot(home.store), snapshot(target)) == before


async def test_the_keys_are_in_the_palette_and_the_footer(homes):
    home, _ = homes
    app = MemtuiApp(home.home, home.env)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_shop(app, pilot, home)
        commands = {command.title for command in screen.palette_commands()}
        assert {"memory: copy to project", "memory: move to project"} <= commands
        assert {"store.copy_to", "store.move_to"} <= set(screen.footer_keys())
        screen.query_one("#memory-filter", Input).focus()
        await pilot.press("c", "M")  # in the filter they are letters
        assert not isinstance(app.screen, TargetPicker)
