"""A session overwriting a version memtui wrote (a merge, a restore) names memtui as the
writer whose lines were lost, with what memtui did: the journal records memtui's writes."""

from __future__ import annotations

import json
from datetime import timedelta

from tests.test_history_transcripts import A_LINE, B_LINE, START, Session, blind_overwrite, run_cli

C_LINE = "- Tag flaky tests instead of retrying them."


def session_overwrites_memtuis_merge(worktrees, capsys):
    """B blindly overwrote A's line; memtui merged it back; C, which read the file before
    the merge, then wrote over memtui's merge, dropping A's line again."""
    claude, tree_a, _, store = worktrees
    _, _, memory = blind_overwrite(worktrees)
    seen = memory.read_text(encoding="utf-8")
    c = Session(claude, tree_a, "feature-a", START + timedelta(hours=1))
    c.read(memory, seen)
    home = ["--config-dir", str(claude.home)]
    assert run_cli([*home, "merge", str(memory), "--yes"], capsys)[0] == 0
    merged = memory.read_text(encoding="utf-8")
    assert A_LINE in merged
    c.write(memory, seen + C_LINE + "\n", merged)
    c.save()
    assert run_cli([*home, "history", str(memory)], capsys)[0] == 0  # snapshots C's write
    return c, memory


MERGE = "merge lines of feedback_testing.md lost on 2026-03-01T09:10:02.000Z"


def test_a_session_overwriting_memtuis_merge_names_memtui_and_the_merge(worktrees, capsys):
    claude, tree_a, _, store = worktrees
    c, _ = session_overwrites_memtuis_merge(worktrees, capsys)
    home = ["--config-dir", str(claude.home)]

    code, out, _ = run_cli([*home, "overwrites", str(store), "--json"], capsys)

    assert code == 0
    first, second = json.loads(out)
    assert first["previous_memtui"] is None and first["lost_lines"] == [A_LINE]
    assert (second["session"], second["lost_lines"]) == (c.id, [A_LINE])
    assert (second["previous_session"], second["previous_memtui"]) == (None, MERGE)
    code, out, _ = run_cli([*home, "overwrites", str(store)], capsys)
    assert f"session {c.id[:8]} in {tree_a} overwrote memtui ({MERGE});" in out
    assert "untracked" not in out


def test_once_the_transcripts_are_gone_the_journal_still_names_memtui(worktrees, capsys):
    claude, _, _, store = worktrees
    session_overwrites_memtuis_merge(worktrees, capsys)
    for transcript in claude.home.joinpath("projects").rglob("*.jsonl"):
        transcript.unlink()  # swept by Claude Code after cleanupPeriodDays

    code, out, _ = run_cli(["--config-dir", str(claude.home), "overwrites", str(store), "--json"],
                           capsys)

    assert code == 0
    [lost] = json.loads(out)
    assert (lost["found_in"], lost["lost_lines"]) == ("journal", [A_LINE])
    assert (lost["previous_session"], lost["previous_memtui"]) == (None, MERGE)
    assert B_LINE not in lost["lost_lines"]


async def test_the_app_says_the_session_wrote_over_memtuis_merge(worktrees, capsys):
    from conftest import painted, settle
    from textual.widgets import Static

    from tests.test_app_history import project_of
    from tui.app.app import MemtuiApp
    from tui.app.screens.overwrites import OverwritesScreen

    claude, _, _, store = worktrees
    c, _ = session_overwrites_memtuis_merge(worktrees, capsys)
    app = MemtuiApp(claude.home, claude.env)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(OverwritesScreen(project_of(claude, store)))
        await settle(app, pilot)
        await pilot.press("down")
        await settle(app, pilot)
        detail = " ".join(painted(app.screen.query_one("#overwrite-text", Static).content).split())
    assert f"by session {c.id[:8]} in" in detail
    assert f"over the version of memtui ({MERGE})" in detail
