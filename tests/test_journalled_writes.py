"""Every memtui change to a store lands in its journal: what Claude Code wrote before it,
memtui's change, and memtui's undo, each as its own commit."""

from __future__ import annotations

from conftest import memory_text
from waiting import pilot_until

from tui.app.curation import apply_plan, undo
from tui.history.journal import Journal
from tui.memory import curate
from tui.memory.store import load_store


def test_a_relink_and_its_undo_are_journal_commits_after_claude_codes_own_write(
        claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    (store / "MEMORY.md").write_text("- [Testing](testing.md) — how we test\n")
    (store / "testing.md").write_text(memory_text())
    (store / "orphan.md").write_text(memory_text("orphan", "never indexed"))  # Claude Code's

    plan = curate.plan_relink(load_store(store), ["orphan.md"])
    message, severity = apply_plan(store, plan)
    assert severity == "information", message
    history = [v.subject for v in Journal(store).versions("MEMORY.md")]
    assert history[0] == plan.label  # newest first: our relink
    external = Journal(store).versions("orphan.md")
    assert [v.source for v in external] == ["external"]  # the orphan, as Claude Code left it

    message, severity = undo(store)
    assert severity == "information", message
    newest = Journal(store).versions("MEMORY.md")[0]
    assert newest.subject == f"undo {plan.label}" and newest.source == "memtui"
    assert "orphan.md" not in (store / "MEMORY.md").read_text()


async def test_opening_a_store_in_the_app_journals_what_claude_code_wrote(claude_home, tmp_path):
    from tui.app.app import MemtuiApp
    from tui.app.screens.store import StoreScreen
    from tui.claude.discovery import discover

    project_dir = tmp_path / "project"
    project_dir.mkdir()
    store = claude_home.store(project_dir)
    (store / "MEMORY.md").write_text("- [Testing](testing.md) — how we test\n")
    (store / "testing.md").write_text(memory_text())
    project = next(p for p in discover(claude_home.home, claude_home.env).projects
                   if p.store == store)
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(StoreScreen(project))
        assert await pilot_until(pilot, lambda: Journal(store).versions("testing.md"))
    versions = Journal(store).versions("testing.md")
    assert [v.source for v in versions] == ["external"]


def test_memtuis_own_changes_and_undos_are_never_lost_updates(claude_home, tmp_path, capsys):
    """Shorten, undo; archive, undo: the journal holds every step, and none of memtui's own
    steps is reported as having overwritten anything (issue: 2 lost updates shown)."""
    from tui.cli import main
    from tui.history.recovery import all_lost_updates

    store = claude_home.store(tmp_path / "project")
    long_hook = "how we test, " + "with a very long explanation " * 8
    (store / "MEMORY.md").write_text(f"- [Testing](testing.md) — {long_hook}\n"
                                     "- [Deploy](deploy.md) — how we deploy\n")
    (store / "testing.md").write_text(memory_text())
    (store / "deploy.md").write_text(memory_text("deploy", "how we deploy", "project"))

    for make in (lambda s: curate.plan_shorten_lines(s),
                 lambda s: curate.plan_archive(s, ["deploy.md"])):
        message, severity = apply_plan(store, make(load_store(store)))
        assert severity == "information", message
        message, severity = undo(store)
        assert severity == "information", message

    assert len(Journal(store).log()) >= 4
    assert all_lost_updates(store, []) == []
    main(["overwrites", str(store)])
    out = capsys.readouterr().out
    assert out.startswith("No lost updates found")
    assert "None" not in out


def test_claude_code_overwriting_memtuis_change_is_still_a_lost_update(claude_home, tmp_path):
    from tui.history.recovery import all_lost_updates, record_external

    store = claude_home.store(tmp_path / "project")
    (store / "MEMORY.md").write_text("- [Testing](testing.md) — how we test\n")
    (store / "testing.md").write_text(memory_text())
    (store / "orphan.md").write_text(memory_text("orphan", "never indexed"))
    apply_plan(store, curate.plan_relink(load_store(store), ["orphan.md"]))
    # Claude Code rewrites the index from what it had read before memtui's relink.
    (store / "MEMORY.md").write_text("- [Testing](testing.md) — how we test\n"
                                     "- [Deploy](deploy.md) — how we deploy\n")
    record_external(store)

    (lost,) = all_lost_updates(store, [])
    assert lost.file == "MEMORY.md"
    assert any("orphan.md" in line for line in lost.lost_lines)
