"""The sync column on the projects screen, and the sync action with its preview."""

from __future__ import annotations

from pathlib import Path

from conftest import memory_text, settle
from sync_machines import fill_both_past_the_cut, make_machines

from tui.app.app import MemtuiApp
from tui.app.screens.confirm import ConfirmScreen
from tui.app.widgets.virtual_table import VirtualTable


def sync_column(app) -> list[str]:
    table = app.screen.query_one("#projects", VirtualTable)
    at = [key for key, _ in table.columns].index("sync")
    return [str(row.cells[at]) for row in table.rows]


async def test_the_sync_column_and_a_previewed_sync(tmp_path, capsys):
    remote, (a, b) = make_machines(tmp_path, capsys, count=2)
    b.write("MEMORY.md", "# Memory\n")
    b.sync("--remote", str(remote))
    a.write("deploy.md", memory_text(name="deploy", body="Deploy on Tuesdays.\n"))
    a.sync("--remote", str(remote))
    with b.active():
        app = MemtuiApp(b.home.home, {**b.env()})
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            assert sync_column(app) == ["1↓"]
            await pilot.press("y")
            await settle(app, pilot)
            assert isinstance(app.screen, ConfirmScreen)
            plan = app.screen.plan
            assert plan.summary == ["Pull 1: deploy.md"]
            assert app.screen.query_one("#confirm-preview")  # the incoming diff is on screen
            assert b.read("deploy.md") is None  # a preview writes nothing
            await pilot.press("y")
            await settle(app, pilot)
            assert "Deploy on Tuesdays." in b.read("deploy.md")
            assert sync_column(app) == ["in sync"]


async def test_a_previewed_sync_names_a_deletion_as_one(tmp_path, capsys):
    remote, (a, b) = make_machines(tmp_path, capsys, count=2)
    a.write("MEMORY.md", "# Memory\n")
    a.write("deploy.md", memory_text(name="deploy", body="Deploy on Tuesdays.\n"))
    a.write("old.md", memory_text(name="old", body="An old rule.\n"))
    a.sync("--remote", str(remote))
    b.sync("--remote", str(remote))
    a.store.joinpath("deploy.md").unlink()  # deleted on A: B's sync deletes it there too
    a.sync()
    b.store.joinpath("old.md").unlink()  # deleted on B: B's sync deletes it on the remote
    with b.active():
        app = MemtuiApp(b.home.home, {**b.env()})
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            await pilot.press("y")
            await settle(app, pilot)
            assert isinstance(app.screen, ConfirmScreen)
            assert app.screen.plan.summary == ["Delete here 1, as on the remote: deploy.md",
                                               "Delete on the remote 1: old.md"]
            await pilot.press("y")
            await settle(app, pilot)
            assert b.read("deploy.md") is None
            assert any("deleted 1 here, as on the remote, deleted 1 on the remote"
                       in str(n.message) for n in app._notifications)


async def test_without_a_remote_there_is_no_sync_column_and_y_says_how(tmp_path, capsys):
    _, (a,) = make_machines(tmp_path, capsys, count=1)
    a.write("MEMORY.md", "# Memory\n")
    with a.active():
        app = MemtuiApp(a.home.home, {**a.env()})
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            table = app.screen.query_one("#projects", VirtualTable)
            assert "sync" not in [key for key, _ in table.columns]
            await pilot.press("y")
            await pilot.pause()
            assert any("--remote URL" in str(n.message) for n in app._notifications)


async def test_a_sync_that_would_hide_memories_past_the_cut_asks_first(tmp_path, capsys):
    remote, (a, b) = make_machines(tmp_path, capsys, count=2)
    filler = "".join(f"- [Note {n}](note-{n}.md) — a note\n" for n in range(195))
    b.write("MEMORY.md", "# Memory\n" + filler)
    b.sync("--remote", str(remote))
    a.sync("--remote", str(remote))
    a.write("MEMORY.md", "# Memory\n" + "".join(
        f"- [A {n}](a-{n}.md) — from A\n" for n in range(8)) + filler)
    a.sync()
    b.write("MEMORY.md", "# Memory\n" + filler + "- [Last](last.md) — newest\n")
    with b.active():
        app = MemtuiApp(b.home.home, {**b.env()})
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            assert sync_column(app) == ["held"]  # it needs the user's word
            await pilot.press("y")
            await settle(app, pilot)
            assert isinstance(app.screen, ConfirmScreen)
            assert app.screen.plan.pushed_out == ("last.md", *(f"note-{n}.md" for n in range(191, 195)))
            await pilot.press("y")  # "apply anyway" needs the button, not the key
            await settle(app, pilot)
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.click("#apply")
            await settle(app, pilot)
            assert "- [A 0](a-0.md)" in b.read("MEMORY.md")
            assert "- [Last](last.md)" in b.read("MEMORY.md")


def machine_with_a_conflict(tmp_path, capsys):
    """Machine b after a sync that could not merge rule.md: both texts kept in it (the
    remote's, a's, says "Use spaces.")."""
    remote, (a, b) = make_machines(tmp_path, capsys, count=2)
    a.write("MEMORY.md", "- [Rule](rule.md) — how to indent\n")
    a.write("rule.md", memory_text(name="rule", body="Use tabs.\n"))
    a.sync("--remote", str(remote))
    b.sync("--remote", str(remote))
    a.write("rule.md", memory_text(name="rule", body="Use spaces.\n"))
    b.write("rule.md", memory_text(name="rule", body="Use two spaces.\n"))
    a.sync()
    assert b.sync()["projects"][0]["conflicts"] == ["rule.md"]
    return b


async def test_a_store_holding_a_sync_conflict_says_so_in_the_column(tmp_path, capsys):
    b = machine_with_a_conflict(tmp_path, capsys)
    with b.active():
        app = MemtuiApp(b.home.home, {**b.env()})
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            assert sync_column(app) == ["conflict"]


async def test_a_sync_conflict_is_resolved_in_the_store_screen_and_undone(tmp_path, capsys):
    from textual.widgets import Button

    from tui.app.screens.store import StoreScreen
    from tui.app.widgets.findings import FindingsView

    b = machine_with_a_conflict(tmp_path, capsys)
    conflicted = b.read("rule.md")
    with b.active():
        app = MemtuiApp(b.home.home, {**b.env()})
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            await pilot.press("enter")
            await settle(app, pilot)
            assert isinstance(app.screen, StoreScreen)
            table = app.screen.query_one("#memory-table", VirtualTable)
            assert [str(row.cells[3]) for row in table.rows if row.file == "rule.md"] == \
                ["conflict"]
            await pilot.press("3")
            view = app.screen.query_one(FindingsView)
            kinds = [row.finding.kind for row in view.rows]
            view.table.move_cursor(kinds.index("sync_conflict"))
            await pilot.pause()
            await pilot.press("K")
            await settle(app, pilot)
            assert isinstance(app.screen, ConfirmScreen)
            assert app.screen.plan.label == "resolve 1 sync conflict: keep the first text"
            assert b.read("rule.md") == conflicted  # a preview writes nothing
            # The remote's text instead: its own preview, then applied.
            app.screen.query_one("#option-0", Button).press()
            await settle(app, pilot)
            assert app.screen.plan.label == "resolve 1 sync conflict: keep the second text"
            await pilot.press("y")
            await settle(app, pilot)
            assert b.read("rule.md") == memory_text(name="rule", body="Use spaces.\n")
            await pilot.press("u")
            await settle(app, pilot)
            assert b.read("rule.md") == conflicted


async def test_memories_a_sync_brings_in_past_the_cut_are_said_before_and_after(tmp_path, capsys):
    """The CLI named the other machine's memories landing past the loaded cut here; the
    app's sync said nothing of them, before or after."""
    remote, (a, b) = make_machines(tmp_path, capsys, count=2)
    fill_both_past_the_cut(a, b)
    a.sync("--remote", str(remote))
    b.write_settings({"remote": str(remote), "names": {}})
    with b.active():
        app = MemtuiApp(b.home.home, {**b.env()})
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            await pilot.press("y")
            await settle(app, pilot)
            assert isinstance(app.screen, ConfirmScreen)
            [said] = [line for line in app.screen.plan.summary if "past the loaded cut" in line]
            assert said.startswith("40 memories come in past the loaded cut, where Claude "
                                   "does not see them (alpha_100.md, alpha_101.md, ")
            assert "and 28 more" in said and "make room in the index" in said
            await pilot.press("y")
            await settle(app, pilot)
            [done] = [n for n in app._notifications if str(n.message).startswith("Synced")]
            assert "40 memories came in past the loaded cut" in str(done.message)
            assert done.severity == "warning"



def test_what_a_sync_leaves_out_is_named_for_what_it_is():
    """A secret kept here and a remote entry no store can hold: neither is called a push."""
    from types import SimpleNamespace

    from tui.app.screens.projects import sync_outcome, sync_plan
    from tui.sync.engine import ProjectSync

    result = ProjectSync("github.com/ana/app", Path("/work/app/memory"), pushed=["a.md"],
                         blocked=[{"file": "..", "reason": "not pulled: a `.` or `..` in its path"},
                                  {"file": "ci.md",
                                   "reason": "secret on line 3 (GitHub Token); not pushed"}])
    plan = sync_plan(SimpleNamespace(key_path="/work/app", store=result.store), result)
    assert "Not synced: ..: not pulled: a `.` or `..` in its path" in plan.summary
    assert "Not synced: ci.md: secret on line 3 (GitHub Token); not pushed" in plan.summary
    text, severity = sync_outcome(result)
    assert "2 left out (secrets, or entries no store can hold)" in text and severity == "warning"
