"""Curation from the store screen: each action writes the expected bytes, undo restores them."""

from __future__ import annotations

import os
import stat
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from app_home import build_app_home, open_first_store
from conftest import (
    index_line,
    memory_text,
    painted,
    settle,
    snapshot,
    sync_conflicted_memory,
    write_index,
    write_memory,
)
from textual.widgets import Static
from waiting import pilot_until

from tui.app.app import MemtuiApp
from tui.app.disk import signature
from tui.app.screens.confirm import ConfirmScreen
from tui.app.screens.store import StoreScreen
from tui.app.widgets.virtual_table import VirtualTable
from tui.memory.index import parse_index


@pytest.fixture
def fixture(claude_home, tmp_path):
    return build_app_home(claude_home, tmp_path)


@asynccontextmanager
async def store_screen(fixture, notifications: bool = False):
    """The app, its pilot and the fixture's store screen, open; with `notifications`, the
    toasts on screen too."""
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40), notifications=notifications) as pilot:
        yield app, pilot, await open_first_store(app, pilot, fixture)


def highlight(screen: StoreScreen, name: str) -> None:
    screen.query_one("#memory-table", VirtualTable).move_cursor(names(screen).index(name))


def names(screen: StoreScreen) -> list[str]:
    return [str(row.cells[2]) for row in screen.query_one("#memory-table", VirtualTable).rows]


def use_editor(tmp_path, monkeypatch, script: str) -> None:
    """$EDITOR becomes a shell script doing `script` to the file it is given ($1)."""
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\n{script}")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)


@pytest.fixture
def no_editor(monkeypatch):
    """Neither $VISUAL nor $EDITOR: `e` edits inside the app."""
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)


async def edit_in_app(app, pilot, screen: StoreScreen, name: str):
    """Press e on the memory called `name`; returns the editor screen and its text area."""
    from textual.widgets import TextArea

    from tui.app.screens.editor import EditorScreen

    highlight(screen, name)
    await pilot.press("e")
    await pilot.pause()
    assert isinstance(app.screen, EditorScreen)
    return app.screen, app.screen.query_one(TextArea)


async def confirm(app, pilot) -> str:
    """Accept the confirmation on screen and return what it listed."""
    await pilot.pause()
    assert isinstance(app.screen, ConfirmScreen)
    listed = " ".join(painted(s.content) for s in app.screen.query(Static))
    await pilot.press("y")
    await settle(app, pilot)
    return listed


async def undo(app, pilot) -> None:
    await pilot.press("u")
    await settle(app, pilot)


async def test_relink_puts_the_orphan_inside_the_cut_and_undo_restores(fixture):
    before = snapshot(fixture.store)
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "payments")
        await pilot.press("r")
        listed = await confirm(app, pilot)
        assert "project_orphan.md" in listed
        index = parse_index((fixture.store / "MEMORY.md").read_text())
        assert any(link.file == "project_orphan.md" and link.visible for link in index.links)
        assert "payments" in names(screen)
        assert screen.rows and next(r for r in screen.rows if r.file == "project_orphan.md").status == "ok"
        await undo(app, pilot)
        assert snapshot(fixture.store) == before


async def test_remove_dangling_drops_the_line(fixture):
    before = snapshot(fixture.store)
    async with store_screen(fixture) as (app, pilot, screen):
        await pilot.press("d")
        await confirm(app, pilot)
        text = (fixture.store / "MEMORY.md").read_text()
        assert "gone.md" not in text
        assert before["MEMORY.md"].decode().replace(
            "- [Gone](gone.md) — a memory deleted by hand\n", "") == text
        assert "gone.md" not in names(screen)
        await undo(app, pilot)
        assert snapshot(fixture.store) == before


async def test_archive_and_delete_marked_memories(fixture):
    before = snapshot(fixture.store)
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "testing")
        await pilot.press("a")
        await confirm(app, pilot)
        assert not (fixture.store / "feedback_testing.md").exists()
        assert "feedback_testing.md" not in (fixture.store / "MEMORY.md").read_text()
        await undo(app, pilot)
        assert snapshot(fixture.store) == before

        highlight(screen, "dashboards")
        await pilot.press("space")
        highlight(screen, "user role")
        await pilot.press("space")
        await pilot.press("D")
        listed = await confirm(app, pilot)
        assert "reference_dashboards.md" in listed and "user_role.md" in listed
        assert not (fixture.store / "reference_dashboards.md").exists()
        assert not (fixture.store / "user_role.md").exists()
        assert (fixture.store / "feedback_testing.md").exists()
        await undo(app, pilot)
        assert snapshot(fixture.store) == before


async def test_archiving_the_highlighted_memory_leaves_the_cursor_on_the_next(fixture):
    async with store_screen(fixture) as (app, pilot, screen):
        listed = names(screen)
        assert listed.index("payments") > 0
        highlight(screen, "payments")
        await pilot.press("a")
        await confirm(app, pilot)
        table = screen.query_one("#memory-table", VirtualTable)
        assert str(table.highlighted.cells[2]) == listed[listed.index("payments") + 1]


async def test_cancel_writes_nothing(fixture):
    before = snapshot(fixture.store)
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "testing")
        await pilot.press("D")
        await pilot.pause()
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen
        assert snapshot(fixture.store) == before


async def on_findings_tab(pilot, screen: StoreScreen, *kinds: str) -> None:
    """Show the Findings tab with the finding of the first kind highlighted; with more kinds,
    mark the first finding of each."""
    await pilot.press("3")
    table = screen.query_one("#findings-table", VirtualTable)
    listed = [row.finding.kind for row in table.rows]
    for kind in kinds if len(kinds) > 1 else ():
        table.move_cursor(listed.index(kind))
        await pilot.press("space")
    table.move_cursor(listed.index(kinds[0]))
    await pilot.pause()


async def proposed(app, pilot):
    """The plan the confirmation on screen proposes; the confirmation is cancelled."""
    await pilot.pause()
    assert isinstance(app.screen, ConfirmScreen)
    plan = app.screen.plan
    await pilot.press("escape")
    await settle(app, pilot)
    return plan


async def test_r_on_the_findings_tab_relinks_the_highlighted_finding_not_every_orphan(fixture):
    before = snapshot(fixture.store)
    async with store_screen(fixture) as (app, pilot, screen):
        await on_findings_tab(pilot, screen, "beyond_cut")
        await pilot.press("r")
        plan = await proposed(app, pilot)
        assert plan.label == "relink 1 memory"
        assert plan.summary[0] == ("Move the index line for project_launch.md from line 201 up to "
                                   "line 5, inside the loaded cut.")
        assert not any("project_orphan.md" in line for line in plan.summary)
        await on_findings_tab(pilot, screen, "unindexed")
        await pilot.press("r")
        listed = await confirm(app, pilot)
        assert "Add an index line for project_orphan.md as line 5." in listed
        index = parse_index((fixture.store / "MEMORY.md").read_text())
        visible = {link.file for link in index.links if link.visible}
        assert "project_orphan.md" in visible and "project_launch.md" not in visible
        await undo(app, pilot)
        assert snapshot(fixture.store) == before


async def test_marked_findings_are_fixed_together(fixture):
    async with store_screen(fixture) as (app, pilot, screen):
        await on_findings_tab(pilot, screen, "unindexed", "beyond_cut")
        await pilot.press("r")
        plan = await proposed(app, pilot)
        assert plan.label == "relink 2 memories"
        await pilot.press("a")  # the marked findings' memory files
        plan = await proposed(app, pilot)
        assert plan.label == "archive 2 memories"
        assert {c.file for c in plan.changes} >= {"project_orphan.md", "project_launch.md"}


async def test_a_key_that_does_not_fix_the_highlighted_finding_says_so(fixture):
    before = snapshot(fixture.store)
    async with store_screen(fixture, notifications=True) as (app, pilot, screen):
        await on_findings_tab(pilot, screen, "dangling")
        await pilot.press("r")
        await settle(app, pilot)
        assert app.screen is screen
        [toast] = app._notifications
        assert toast.message.startswith("r fixes unindexed, beyond_cut and linked_from findings")
        await pilot.press("d")  # the key that fixes it: that line only
        plan = await proposed(app, pilot)
        assert plan.summary == ["Remove index line 4, which links the missing gone.md."]
    assert snapshot(fixture.store) == before


async def test_d_on_a_team_index_finding_removes_that_line_not_memory_md_s(fixture):
    """Both indexes have a dangling line 4: the finding chosen names which one goes."""
    (fixture.store / "team").mkdir()
    (fixture.store / "team" / "MEMORY.md").write_text(
        "# Team\n\nShared with the team.\n- [Lost](lost.md) — a memory deleted by hand\n")
    before = snapshot(fixture.store)
    async with store_screen(fixture) as (app, pilot, screen):
        await pilot.press("3")
        table = screen.query_one("#findings-table", VirtualTable)
        findings = [row.finding for row in table.rows]
        table.move_cursor(next(number for number, finding in enumerate(findings)
                               if finding.kind == "dangling"
                               and finding.file == "team/MEMORY.md"))
        await pilot.press("d")
        plan = await proposed(app, pilot)
        assert plan.summary == ["Remove team/MEMORY.md line 4, which links the missing lost.md."]
        assert [change.file for change in plan.changes] == ["team/MEMORY.md"]
    assert snapshot(fixture.store) == before


async def test_m_on_an_entry_already_past_the_cut_says_it_makes_no_room(fixture):
    """`m` moves a line past the cut to make room; on a line already there it would only
    shuffle lines Claude does not load."""
    before = snapshot(fixture.store)
    async with store_screen(fixture, notifications=True) as (app, pilot, screen):
        highlight(screen, "launch")  # indexed on line 201, past the cut
        await pilot.press("m")
        await settle(app, pilot)
        assert app.screen is screen
        [toast] = app._notifications
        assert toast.message == ("project_launch.md is already past the cut: moving its index "
                                 "line makes no room.")
    assert snapshot(fixture.store) == before


async def test_edit_in_editor_saves_and_undo_restores(fixture, tmp_path, monkeypatch):
    use_editor(tmp_path, monkeypatch, "printf 'Added in the editor.\\n' >> \"$1\"\n")
    before = snapshot(fixture.store)
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "user role")
        await pilot.press("e")
        await settle(app, pilot)
        assert (fixture.store / "user_role.md").read_bytes() == (
            before["user_role.md"] + b"Added in the editor.\n"
        )
        await undo(app, pilot)
        assert snapshot(fixture.store) == before


async def test_editor_edit_meeting_claudes_write_is_merged_as_the_in_app_edit_is(
        fixture, tmp_path, monkeypatch):
    """$EDITOR edits a copy while Claude Code changes other lines of the file: nothing is
    overwritten, the merge opens in the app's editor, and its save keeps both."""
    from tui.app.screens.editor import EditorScreen

    target = fixture.store / "user_role.md"
    use_editor(tmp_path, monkeypatch, "printf 'mine\\n' >> \"$1\"\n"
               f"sed -i 's/Prefers Go and Postgres./Prefers Go, Postgres and Redis./' '{target}'\n")
    claudes = target.read_bytes().replace(b"Prefers Go and Postgres.",
                                          b"Prefers Go, Postgres and Redis.")
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "user role")
        await pilot.press("e")
        await settle(app, pilot)
        assert target.read_bytes() == claudes  # nothing overwritten behind the user's back
        assert isinstance(app.screen, EditorScreen)
        area = app.screen.query_one("#editor-text")
        assert area.text == claudes.decode() + "mine\n"  # both changes, merged
        [merged] = [n.message for n in app._notifications if "merged" in n.message]
        # Until the merge is saved it is only on screen: the edit made in $EDITOR stays
        # on disk too, so quitting the app here loses nothing.
        copy = Path(merged.rpartition("kept at ")[2].rstrip("."))
        assert copy.read_bytes().endswith(b"mine\n")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is screen
        assert target.read_bytes() == claudes + b"mine\n"
        await undo(app, pilot)
        assert target.read_bytes() == claudes  # undo gives Claude's version back


async def test_editor_edit_of_the_line_claude_rewrote_shows_both_between_markers(
        fixture, tmp_path, monkeypatch):
    from tui.app.screens.editor import EditorScreen

    target = fixture.store / "user_role.md"
    use_editor(tmp_path, monkeypatch,
               "sed -i 's/Prefers Go and Postgres./Prefers Rust./' \"$1\"\n"
               f"sed -i 's/Prefers Go and Postgres./Prefers Zig./' '{target}'\n")
    claudes = target.read_bytes().replace(b"Prefers Go and Postgres.", b"Prefers Zig.")
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "user role")
        await pilot.press("e")
        await settle(app, pilot)
        assert target.read_bytes() == claudes
        assert isinstance(app.screen, EditorScreen)
        area = app.screen.query_one("#editor-text")
        lines = area.text.split("\n")
        start = lines.index("<<<<<<< your edit")
        assert lines[start:start + 5] == ["<<<<<<< your edit", "Prefers Rust.", "=======",
                                          "Prefers Zig.", ">>>>>>> on disk now"]
        assert area.cursor_location == (start, 0)
        await pilot.press("ctrl+s")  # markers left in: asked first, as in the app's editor
        await settle(app, pilot)
        assert isinstance(app.screen, EditorScreen) and target.read_bytes() == claudes


async def test_editor_edit_of_a_file_the_app_cannot_merge_keeps_the_users_copy(
        fixture, tmp_path, monkeypatch):
    target = fixture.store / "user_role.md"
    # Claude's write leaves bytes that are not UTF-8: no merge on screen, the copy is kept.
    use_editor(tmp_path, monkeypatch, "printf 'mine\\n' >> \"$1\"\n"
               f"printf 'caf\\351\\n' >> '{target}'\n")
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "user role")
        await pilot.press("e")
        await settle(app, pilot)
        assert app.screen is screen
        assert target.read_bytes().endswith(b"caf\xe9\n") and b"mine" not in target.read_bytes()
        [kept] = [n.message for n in app._notifications if "kept at" in n.message]
        copy = Path(kept.rpartition("kept at ")[2].rstrip("."))
        assert copy.read_bytes().endswith(b"mine\n")


async def test_without_an_editor_set_e_edits_in_the_app_and_undo_restores(fixture, no_editor):
    before = snapshot(fixture.store)
    async with store_screen(fixture) as (app, pilot, screen):
        _, area = await edit_in_app(app, pilot, screen, "user role")
        assert area.text == before["user_role.md"].decode()
        area.move_cursor(area.document.end)
        area.insert("Prefers short answers.\n")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is screen
        assert (fixture.store / "user_role.md").read_bytes() == (
            before["user_role.md"] + b"Prefers short answers.\n")
        await undo(app, pilot)
        assert snapshot(fixture.store) == before


async def test_in_app_edit_refuses_to_overwrite_what_claude_wrote_meanwhile(fixture, no_editor):
    target = fixture.store / "user_role.md"
    async with store_screen(fixture) as (app, pilot, screen):
        editor, area = await edit_in_app(app, pilot, screen, "user role")
        area.insert("mine\n")
        target.write_bytes(target.read_bytes() + b"written by Claude meanwhile\n")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is editor  # the edited text is still on screen
        assert "mine" in area.text
        assert target.read_bytes().endswith(b"written by Claude meanwhile\n")
        assert b"mine" not in target.read_bytes()
        await pilot.press("escape")
        assert app.screen is editor  # unsaved: the first esc only warns
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen


async def test_discarding_an_in_app_edit_takes_its_unsaved_changes_warning_away(
        fixture, no_editor):
    before = snapshot(fixture.store)
    async with store_screen(fixture, notifications=True) as (app, pilot, screen):
        editor, area = await edit_in_app(app, pilot, screen, "user role")
        app.notify("Something else worth reading.")
        area.insert("a thought not worth keeping\n")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is editor
        assert [n.message for n in app._notifications] == [
            "Something else worth reading.",
            "Unsaved changes: ctrl+s saves them, esc again discards them."]
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen
        # The warning went with the changes it was about; the other toast stays.
        assert [n.message for n in app._notifications] == ["Something else worth reading."]
        await pilot.pause()
        shown = [str(toast.render()) for toast in app.screen.query("Toast")]
        assert len(shown) == 1 and "Something else" in shown[0]
    assert snapshot(fixture.store) == before


async def test_held_lock_makes_the_store_read_only(fixture):
    (fixture.store / ".consolidate-lock").write_text(str(os.getpid()))
    before = snapshot(fixture.store)
    async with store_screen(fixture) as (app, pilot, screen):
        banner = screen.query_one("#lock-banner", Static)
        assert banner.display and "Read-only" in str(banner.content)
        highlight(screen, "payments")
        await pilot.press("r")
        await pilot.pause()
        assert app.screen is screen  # no confirmation offered
        assert any("read-only" in n.message for n in app._notifications)
        assert snapshot(fixture.store) == before


async def test_live_refresh_shows_a_memory_claude_just_wrote(fixture):
    async with store_screen(fixture) as (app, pilot, screen):
        (fixture.store / "user_editor.md").write_text(
            "---\nname: editor\ndescription: the user edits in helix\ntype: user\n---\n\nHelix.\n"
        )
        assert await pilot_until(pilot, lambda: "editor" in names(screen))


async def test_live_refresh_waits_for_an_open_confirmation(fixture):
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "testing")
        await pilot.press("a")
        await pilot.pause()
        (fixture.store / "user_editor.md").write_text("---\nname: editor\n---\n\nHelix.\n")
        assert await pilot_until(pilot, lambda: any("changed on disk" in n.message
                                                    for n in app._notifications))
        assert "editor" not in names(screen)  # nothing reloaded under the dialog
        await pilot.press("escape")
        await settle(app, pilot)
        assert "editor" in names(screen)


@pytest.mark.parametrize("body", [b"one\r\ntwo\n", b"a\xe2\x80\xa8b\n", b"page\x0cbreak\n"])
async def test_in_app_edit_leaves_files_it_cannot_give_back_byte_for_byte(fixture, no_editor, body):
    target = fixture.store / "user_role.md"
    target.write_bytes(b"---\nname: user role\ntype: user\n---\n" + body)
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "user role")
        await pilot.press("e")
        await pilot.pause()
        assert app.screen is screen  # no editor opened
        assert any("edit it with $EDITOR" in n.message for n in app._notifications)


pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="editor scripts need a POSIX shell")


async def test_a_store_moved_away_while_open_says_so_and_offers_no_repair(fixture, tmp_path):
    async with store_screen(fixture) as (app, pilot, screen):
        moved = tmp_path / "moved-away"
        fixture.store.rename(moved)
        banner = screen.query_one("#lock-banner", Static)
        assert await pilot_until(pilot, lambda: banner.display
                              and "no longer exists" in painted(banner.content))
        await pilot.press("3")
        tally = painted(screen.query_one("#findings-tally", Static).content)
        assert "Claude sees every memory" not in tally
        assert "no longer exists" in tally
        for key in ("r", "u", "d"):
            app.clear_notifications()
            await pilot.press(key)
            await settle(app, pilot)
            assert app.screen is screen  # no confirmation for a store that is not there
            messages = [n.message for n in app._notifications]
            assert messages and all("no longer exists" in m for m in messages), messages
        assert not fixture.store.exists()  # nothing recreated it
        moved.rename(fixture.store)  # put back: the screen is a store again
        assert await pilot_until(pilot, lambda: not banner.display)
        assert "payments" in names(screen)


async def test_in_app_edit_meeting_claudes_write_keeps_both_texts_and_saves_them(fixture, no_editor):
    target = fixture.store / "user_role.md"
    async with store_screen(fixture) as (app, pilot, screen):
        editor, area = await edit_in_app(app, pilot, screen, "user role")
        area.move_cursor(area.document.end)
        area.insert("Prefers short answers.\n")
        claudes = target.read_bytes().replace(b"Prefers Go and Postgres.\n",
                                              b"Prefers Go, Postgres and Redis.\n")
        target.write_bytes(claudes)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert target.read_bytes() == claudes  # nothing overwritten behind the user's back
        assert app.screen is editor
        assert "Prefers Go, Postgres and Redis." in area.text  # Claude's change, shown
        assert "Prefers short answers." in area.text  # and the user's, kept
        assert any("merged" in n.message for n in app._notifications)
        await pilot.press("ctrl+s")  # the user has seen both: this save goes through
        await settle(app, pilot)
        assert app.screen is screen
        assert target.read_bytes() == claudes + b"Prefers short answers.\n"
        await undo(app, pilot)
        assert target.read_bytes() == claudes  # undo gives Claude's version back


async def test_in_app_edit_of_the_line_claude_rewrote_shows_both_between_markers(fixture, no_editor):
    target = fixture.store / "user_role.md"
    async with store_screen(fixture) as (app, pilot, screen):
        editor, area = await edit_in_app(app, pilot, screen, "user role")
        area.text = area.text.replace("Prefers Go and Postgres.", "Prefers Rust.")
        claudes = target.read_bytes().replace(b"Prefers Go and Postgres.", b"Prefers Zig.")
        target.write_bytes(claudes)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert target.read_bytes() == claudes
        assert app.screen is editor
        assert "Prefers Rust." in area.text and "Prefers Zig." in area.text
        assert "<<<<<<<" in area.text and ">>>>>>>" in area.text
        marker_row = area.text.split("\n").index("<<<<<<< your edit")
        assert area.cursor_location == (marker_row, 0)  # the cursor is where to choose
        assert any("both" in n.message and n.severity == "warning" for n in app._notifications)
        await pilot.press("ctrl+s")  # the markers are still there: asked first
        await settle(app, pilot)
        assert app.screen is editor and target.read_bytes() == claudes
        area.text = area.text.replace("Prefers Zig.\n", "").replace("=======\n", "")
        area.text = "".join(line for line in area.text.splitlines(keepends=True)
                            if not line.startswith(("<<<<<<<", ">>>>>>>")))
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is screen
        assert target.read_bytes() == claudes.replace(b"Prefers Zig.", b"Prefers Rust.")


async def test_in_app_edit_of_a_memory_deleted_meanwhile_writes_it_back_on_the_next_save(
        fixture, no_editor):
    target = fixture.store / "user_role.md"
    async with store_screen(fixture) as (app, pilot, screen):
        editor, area = await edit_in_app(app, pilot, screen, "user role")
        area.move_cursor(area.document.end)
        area.insert("mine\n")
        target.unlink()
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert not target.exists() and app.screen is editor
        assert any("deleted on disk" in n.message for n in app._notifications)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert target.read_text().endswith("mine\n")


async def test_redo_puts_back_an_undone_relink_even_after_a_restart(fixture):
    before = snapshot(fixture.store)
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "payments")
        await pilot.press("r")
        await confirm(app, pilot)
        relinked = snapshot(fixture.store)
        await undo(app, pilot)
        assert snapshot(fixture.store) == before
        assert any("U redoes it" in n.message for n in app._notifications)
        await pilot.press("U")
        await settle(app, pilot)
        assert snapshot(fixture.store) == relinked
        assert next(r for r in screen.rows if r.file == "project_orphan.md").status == "ok"
        await undo(app, pilot)
    async with store_screen(fixture) as (app, pilot, screen):  # quit and start again
        await pilot.press("U")
        await settle(app, pilot)
        assert snapshot(fixture.store) == relinked
        assert any(n.message.startswith("Redid relink 1 memory") for n in app._notifications)
        app.clear_notifications()
        await pilot.press("U")
        await settle(app, pilot)
        assert [n.message for n in app._notifications] == [
            "Nothing to redo: no undo since the last change."]
        assert snapshot(fixture.store) == relinked


async def test_escape_closes_the_help_panel_before_it_leaves_the_store(fixture):
    async with store_screen(fixture) as (app, pilot, screen):
        await pilot.press("f1")
        await pilot.pause()
        assert screen.query("HelpPanel")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and not screen.query("HelpPanel")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not screen  # the next esc goes back as always


async def test_undo_keeps_an_index_line_claude_appended_after_the_change(fixture):
    before = snapshot(fixture.store)
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "payments")
        await pilot.press("r")
        await confirm(app, pilot)
        appended = b"- [Editor](user_editor.md) \xe2\x80\x94 Claude wrote this after the relink\n"
        index = fixture.store / "MEMORY.md"
        index.write_bytes(index.read_bytes() + appended)
        await undo(app, pilot)
        assert index.read_bytes() == before["MEMORY.md"] + appended
        assert any(n.message.startswith("Undid relink 1 memory") for n in app._notifications)
        await pilot.press("U")  # and redo puts the relink back, Claude's line still there
        await settle(app, pilot)
        assert b"](project_orphan.md)" in index.read_bytes()
        assert index.read_bytes().endswith(appended)


async def test_a_store_moved_away_after_a_slow_read_says_so_without_a_rest(fixture, tmp_path):
    """A reread rests as long as the last read took, so that a store rewritten faster than
    it is read takes at most half the app's time; a store that is gone costs nothing to
    read, and its banner waits for no rest. (The last read's time counts its journal
    commit, seconds on a big store or a loaded machine: the banner came that much later.)"""
    async with store_screen(fixture) as (app, pilot, screen):
        screen.read_seconds = 3600.0  # as if the last read had taken an hour
        fixture.store.rename(tmp_path / "moved-away")
        banner = screen.query_one("#lock-banner", Static)
        assert await pilot_until(pilot, lambda: banner.display
                                 and "no longer exists" in painted(banner.content))


async def test_undo_that_would_lose_text_written_since_says_why_it_refuses(fixture):
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "payments")
        await pilot.press("r")
        await confirm(app, pilot)
        index = fixture.store / "MEMORY.md"
        claudes = index.read_bytes().replace(b"](project_orphan.md)", b"](project_payments.md)")
        index.write_bytes(claudes)  # Claude rewrote the very line the relink added
        # The screen shows Claude's write before u is pressed, as it does for a user (who
        # reads it first); on a loaded machine the watcher could notice it mid-undo instead.
        assert await pilot_until(pilot, lambda: screen.loaded_signature == signature(fixture.store))
        await settle(app, pilot)
        app.clear_notifications()
        await undo(app, pilot)
        assert index.read_bytes() == claudes
        [message] = [n.message for n in app._notifications]
        assert "reload" not in message
        assert "MEMORY.md" in message and "since" in message and "same lines" in message


async def test_a_change_refused_because_claude_wrote_meanwhile_says_what_to_do_next(fixture):
    index = fixture.store / "MEMORY.md"
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "payments")
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        claudes = index.read_bytes() + b"- [Editor](user_editor.md) \xe2\x80\x94 new\n"
        index.write_bytes(claudes)
        app.clear_notifications()
        await pilot.press("y")
        await settle(app, pilot)
        assert index.read_bytes() == claudes
        [message] = [n.message for n in app._notifications if n.severity == "error"]
        assert "nothing was written" in message and "reload and review" not in message
        assert "again" in message and "reloaded" in message
        await pilot.press("r")  # and again it is: the new plan keeps Claude's line
        await confirm(app, pilot)
        assert index.read_bytes().startswith(claudes[:20])
        assert b"](user_editor.md)" in index.read_bytes()
        assert b"](project_orphan.md)" in index.read_bytes()


def cursor_colour(view, line: int):
    """The background the view paints `line` (0-based) with, as on screen."""
    strip = view.render_line(view.row_of(line) - round(view.scroll_y))
    return {segment.style.bgcolor for segment in strip if segment.text.strip()}


async def test_m_on_the_index_tab_moves_the_line_under_the_visible_cursor(fixture):
    """`m` on the Index tab moved the memory highlighted on the Memories tab, a line nobody
    could see. The Index tab has a cursor line of its own, painted, and keys act on it."""
    from tui.app.widgets.index_view import IndexView

    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "payments")  # on the Memories tab: not what m acts on below
        await pilot.press("2")
        await pilot.pause()
        view = screen.query_one("#index-view", IndexView)
        assert view.highlighted.number == 201  # opened at the cut: the first line past it
        assert cursor_colour(view, 200) != cursor_colour(view, 199)
        await pilot.press("home")
        await pilot.pause()
        assert view.scroll_y == 0 and view.highlighted.number == 1
        assert cursor_colour(view, 0) != cursor_colour(view, 1)
        await pilot.press("m")
        listed = await confirm(app, pilot)
        assert "Move the index line for user_role.md from line 1 to line 201." in listed
        lines = (fixture.store / "MEMORY.md").read_text().splitlines()
        assert "(user_role.md)" in lines[-1] and "(feedback_testing.md)" in lines[0]


async def test_m_on_an_index_line_that_is_no_entry_says_so(fixture):
    before = snapshot(fixture.store)
    async with store_screen(fixture, notifications=True) as (app, pilot, screen):
        await pilot.press("2", "home", "down", "down", "down", "down", "m")
        await settle(app, pilot)
        assert app.screen is screen
        [toast] = app._notifications
        assert toast.message == ("Line 5 is no memory's entry: put the cursor on the entry to "
                                 "move past the cut.")
    assert snapshot(fixture.store) == before


async def test_r_on_the_index_tab_relinks_the_entry_under_the_cursor(fixture):
    """The cursor opens on the first line past the cut; r brings that entry inside."""
    async with store_screen(fixture) as (app, pilot, screen):
        await pilot.press("2")
        await pilot.pause()
        await pilot.press("r")
        listed = await confirm(app, pilot)
        assert "project_launch.md" in listed and "project_orphan.md" not in listed


GITHUB_TOKEN = "ghp_" + "R8kLq2Vn7TzX4mWp9Hs3Jd6Fb1Yc5Ng0Ue2A"


def footer_first_key(screen) -> str:
    """The first key the footer shows, as painted ("K Keep a side")."""
    from textual.widgets._footer import FooterKey

    keys = sorted(screen.query(FooterKey), key=lambda key: key.region.x)
    return keys[0].render().plain.strip()


async def keeps_its_place(app, pilot, screen, before: list[str], fixed: str) -> str:
    """After the finding `fixed` (a row key of `before`, the rows as they were) went away:
    the row after it is highlighted and the footer leads with its fix. Returns that row."""
    from tui.app.widgets.findings import fixes

    for _ in range(3):  # the footer recomposes after the refresh that follows new keys
        await pilot.pause()
    table = screen.query_one("#findings-table", VirtualTable)
    now = {row.key for row in table.rows}
    assert fixed not in now
    following = next(key for key in before[before.index(fixed) + 1:] if key in now)
    assert table.highlighted.key == following
    binding = next(b for _, b, _, _ in screen.active_bindings.values()
                   if b.id == fixes(table.highlighted.finding)[0])
    assert footer_first_key(screen) == f"{app.get_key_display(binding)} {binding.description}"
    return following


async def test_the_findings_tab_keeps_its_place_after_a_fix(fixture):
    """After an apply the cursor jumped to the first finding while the footer still showed
    the fixed finding's keys, and the key it showed answered "highlight one": the finding
    after the fixed one is highlighted, and the footer shows its keys, which act on it."""
    write_memory(fixture.store, "project_keys.md", memory_text(
        "keys", "where the deploy token lives", "project", f"token {GITHUB_TOKEN}\n"))
    write_memory(fixture.store, "rule.md", sync_conflicted_memory())
    async with store_screen(fixture, notifications=True) as (app, pilot, screen):
        await on_findings_tab(pilot, screen, "secret")
        table = screen.query_one("#findings-table", VirtualTable)
        before = [row.key for row in table.rows]
        assert table.cursor_row > 0
        secret = table.highlighted.key
        await pilot.press("X")
        await confirm(app, pilot)
        await keeps_its_place(app, pilot, screen, before, secret)
        await on_findings_tab(pilot, screen, "sync_conflict")
        before = [row.key for row in table.rows]
        conflict = table.highlighted.key
        await pilot.press("K")
        await confirm(app, pilot)
        await keeps_its_place(app, pilot, screen, before, conflict)
        await pilot.press(footer_first_key(screen).split()[0])  # it acts on what is shown
        await pilot.pause()
        assert not any("highlight one" in toast.message for toast in app._notifications)
        assert app.screen.file == table.highlighted.finding.file  # here: e, the editor


async def test_the_findings_tab_keeps_the_finding_edited_in_the_editor(fixture, no_editor):
    """Saving in the editor reloads the store: the finding it was opened from stays
    highlighted (it is still there), its keys in the footer."""
    from textual.widgets import TextArea

    write_memory(fixture.store, "project_keys.md", memory_text(
        "keys", "where the deploy token lives", "project", f"token {GITHUB_TOKEN}\n"))
    async with store_screen(fixture) as (app, pilot, screen):
        await on_findings_tab(pilot, screen, "secret")
        table = screen.query_one("#findings-table", VirtualTable)
        edited = table.highlighted.key
        assert table.cursor_row > 0
        await pilot.press("e")
        await pilot.pause()
        editor = app.screen.query_one(TextArea)
        editor.insert("An added line.\n", (editor.document.line_count - 1, 0))
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is screen
        for _ in range(3):
            await pilot.pause()
        assert table.highlighted.key == edited
        assert footer_first_key(screen).endswith("Redact")


async def test_u_redoes_an_undone_dream_as_its_undo_promised(fixture):
    """The undo of a dream said "U redoes it", and U refused it: now it comes back with
    the consolidate lock the dream had set."""
    from tui.agents.dream import run_dream
    from tui.agents.result import conclude

    before = snapshot(fixture.store)
    result = run_dream(fixture.store, engine="offline")
    assert conclude(result, apply=True).applied
    dreamt, lock = snapshot(fixture.store), fixture.store / ".consolidate-lock"
    dreamt_at = lock.stat().st_mtime
    async with store_screen(fixture) as (app, pilot, screen):
        await undo(app, pilot)
        assert snapshot(fixture.store) == before and not lock.exists()
        said = [n.message for n in app._notifications]
        assert any(m.startswith("Undid dream ") and m.endswith("U redoes it.") for m in said)
        app.clear_notifications()
        await pilot.press("U")
        await settle(app, pilot)
        # (another toast may stand beside the answer; none may be a warning or an error)
        assert any(n.message.startswith("Redid dream ") for n in app._notifications)
        assert not [n.message for n in app._notifications if n.severity != "information"]
        assert snapshot(fixture.store) == dreamt and lock.stat().st_mtime == dreamt_at


def crowded_home(claude_home, tmp_path, loaded: int = 185, orphans: int = 31):
    """A store whose index links `loaded` memories and a missing one, with `orphans` more
    memories it does not link: relinking them all would push entries past the cut."""
    home = build_app_home(claude_home, tmp_path)
    kinds = ("user", "feedback", "project", "reference")
    linked = [f"{kinds[n % 4]}_kept{n}.md" for n in range(loaded)]
    for number, file in enumerate([*linked, *(f"{kinds[n % 4]}_new{n}.md"
                                              for n in range(orphans))]):
        write_memory(home.store, file, memory_text(file[:-3], f"about {file[:-3]}",
                                                   file.split("_")[0]),
                     mtime=1_767_225_600.0 + number)
    write_index(home.store, [index_line(file) for file in linked] + [index_line("gone.md")])
    for file in ("user_role.md", "feedback_testing.md", "reference_dashboards.md",
                 "project_launch.md", "project_orphan.md"):
        (home.store / file).unlink()
    return home


async def test_relinking_more_orphans_than_fit_offers_hubs_in_the_dialog_and_undo_restores(
        claude_home, tmp_path):
    """Issue 42: 31 orphans that would push entries past the cut were a dead end (remove a
    dangling line, or move entries out one by one on the Index tab)."""
    from tui.memory.audit import orphan_files
    from tui.memory.store import load_store

    home = crowded_home(claude_home, tmp_path)
    before = snapshot(home.store)
    app = MemtuiApp(home.home, home.env)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_first_store(app, pilot, home)
        await pilot.press("r")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        option = dialog.query_one("#option-0")
        assert str(option.label) == "Hubs for the rest (1)"
        assert option.region.right <= 80 and option.region.bottom < 24  # on screen
        await pilot.press("1")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert not app.screen.plan.pushed_out  # applies with y: nothing leaves the cut
        listed = await confirm(app, pilot)
        assert "group 20 in hubs" in listed
        store = load_store(home.store)
        assert orphan_files(store) == []
        index = parse_index((home.store / "MEMORY.md").read_text())
        visible = {link.file for link in index.links if link.visible}
        assert {f"user_kept{n}.md" for n in range(0, 185, 4)} <= visible
        assert {"index_feedback.md", "index_project.md", "index_reference.md"} <= visible
        await undo(app, pilot)
        assert snapshot(home.store) == before


async def test_a_key_acts_on_the_lock_as_it_is_now_not_as_the_store_was_read(fixture):
    """The store screen read the store while a dream held its lock (a live holder); the
    dream has let go since: a repair key acts at once instead of saying the store is
    read-only until the screen happens to read the store again."""
    lock = fixture.store / ".consolidate-lock"
    lock.write_text(str(os.getpid()))
    async with store_screen(fixture) as (app, pilot, screen):
        assert screen.store.lock.held()
        lock.unlink()
        highlight(screen, "payments")
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen), [n.message for n in app._notifications]


async def test_memtuis_own_write_seen_by_the_watcher_is_no_news(fixture, monkeypatch):
    """The watcher polls the store while an undo is still under way (here: until it has
    seen the undo's change): no "Store changed on disk" warning for memtui's own write,
    only the undo's answer."""
    import threading

    from tui.app.screens import store as store_screen_module

    before = snapshot(fixture.store)
    async with store_screen(fixture) as (app, pilot, screen):
        highlight(screen, "payments")
        await pilot.press("r")
        await pilot_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await settle(app, pilot)
        assert snapshot(fixture.store) != before
        app.clear_notifications()

        seen = threading.Event()
        watched = store_screen_module.StoreChangedOnDisk

        def seen_by_watcher(*args, **kwargs):
            seen.set()
            return watched(*args, **kwargs)

        monkeypatch.setattr(store_screen_module, "StoreChangedOnDisk", seen_by_watcher)
        undone = store_screen_module.curation.undo

        def slow_undo(path):
            outcome = undone(path)
            seen.wait(10)  # until the watcher has seen the store change, before the answer
            return outcome

        monkeypatch.setattr(store_screen_module.curation, "undo", slow_undo)
        await undo(app, pilot)
        await pilot_until(pilot, lambda: any(n.message.startswith("Undid ")
                                             for n in app._notifications))
        assert snapshot(fixture.store) == before
        assert not [n.message for n in app._notifications if n.severity != "information"]
