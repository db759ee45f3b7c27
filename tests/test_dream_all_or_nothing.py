"""A dream's change set goes in whole or not at all, says so first, and leaves the mtime
of a memory whose meaning it did not change.

Issue 40: on a 436-memory store the safety check refused the new MEMORY.md, the command
exited 1, and the other 149 files were applied: hubs nothing linked, hook copies of lines
the refused index still held. And every touched file got today's mtime, though Claude Code
orders recall by it and tells the model how old a memory is from it.
"""

from __future__ import annotations

import json
import os
import re

import pytest
from conftest import index_line, memory_text, snapshot, write_index, write_memory

from tui import cli
from tui.agents import offline
from tui.agents.dream import run_dream
from tui.agents.guards import joined
from tui.agents.result import conclude

OLD = 1_767_225_600.0  # 2026-01-01


@pytest.fixture
def store(claude_home, tmp_path):
    """A memory whose index line is too long (its words go into the memory) and two
    duplicates, all written long ago."""
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "feedback_tests.md", memory_text(
        "tests", "run the whole suite", "feedback", "Run the whole suite before a push.\n"),
        mtime=OLD)
    body = ("The release train leaves every Tuesday at ten from the main branch, after the "
            "nightly build has passed on staging and the on-call engineer has signed it off "
            "in the release channel with a link to the build and its test report.\n")
    # The indexed one holds every line of the newer copy: the copy goes into it.
    write_memory(store, "project_train.md", memory_text(
        "train", "the release train", "project", body + "Hotfixes skip the queue.\n"), mtime=OLD)
    write_memory(store, "project_train_again.md", memory_text(
        "train again", "the release train", "project", body), mtime=OLD + 600)
    long_hook = "run everything, the slow browser tests too, " * 4
    write_index(store, [index_line("feedback_tests.md", hook=long_hook.strip()),
                        index_line("project_train.md")])
    return store


def md_files(store) -> dict[str, bytes]:
    return {name: data for name, data in snapshot(store).items() if name.endswith(".md")}


def test_a_memory_given_a_hook_keeps_its_mtime_and_a_merge_keeps_the_newest(store):
    result = run_dream(store, engine="offline")
    kinds = {diff.file: diff.kind for diff in result.changeset.files}
    assert kinds == {"MEMORY.md": "modified", "feedback_tests.md": "modified",
                     "project_train.md": "modified", "project_train_again.md": "archived"}

    assert not conclude(result, apply=True).refused

    assert "From the index: run everything" in (store / "feedback_tests.md").read_text()
    assert (store / "feedback_tests.md").stat().st_mtime == OLD
    assert "Hotfixes skip the queue." in (store / "project_train.md").read_text()
    assert (store / "project_train.md").stat().st_mtime == OLD + 600


def test_a_held_file_refuses_the_whole_change_set_from_the_command_line(
        store, claude_home, monkeypatch, capsys):
    """An injected loss: the index step drops a line of a memory. The guards hold that
    file; --yes writes nothing, says why in one sentence and exits 2."""
    prune = offline.prune_index

    def losing(staging, renamed, log):
        rebuild = prune(staging, renamed, log)
        path = staging.root / "feedback_tests.md"
        path.write_text(path.read_text().replace("Run the whole suite before a push.\n", ""))
        return rebuild

    monkeypatch.setattr(offline, "prune_index", losing)
    before = snapshot(store)

    code = cli.main(["--config-dir", str(claude_home.home), "dream", str(store),
                     "--engine", "offline", "--yes"])

    assert code == 2
    out, err = capsys.readouterr()
    assert snapshot(store) == before  # the lock too: there was none
    assert err.strip().splitlines()[-1] == (
        "memtui: The change set was refused whole, nothing was written: feedback_tests.md "
        "would lose 1 line of text: “Run the whole suite before a push.”. Review it in the "
        "app to apply part of it.")
    assert "Held: feedback_tests.md would lose 1 line of text" in out
    assert not re.search(r"^Applied \d", out, re.MULTILINE)


def test_the_preview_says_first_what_it_would_change_and_that_it_would_be_refused(
        store, claude_home, monkeypatch, capsys):
    monkeypatch.setattr(offline, "prune_index", _dropping_the_index_line_of("project_train"))

    code = cli.main(["--config-dir", str(claude_home.home), "dream", str(store),
                     "--engine", "offline", "--dry-run"])

    assert code == 0
    out = capsys.readouterr().out
    summary, diff = out.index("Change set: "), out.index("=== ")
    assert summary < out.index("Index: 2 lines, ") < diff  # the summary, then the diff
    assert ("Held: the run's MEMORY.md would hide project_train.md from Claude and lose 1 line "
            "of text: “- [project_train](project_train.md) — a memory”.") in out
    assert ("Applied whole or not at all, so this change set would be refused: the app's "
            "review can apply part of it.") in out
    assert out.rstrip().endswith("Dry run: nothing was applied.")


def test_the_app_review_rejects_what_goes_with_a_rejected_file(store):
    """In the review a user may reject a file; what needs it goes with it."""
    result = run_dream(store, engine="offline")
    changeset = result.changeset
    # The memory given the words of MEMORY.md's shortened line goes with it; a merge goes whole.
    assert changeset.rejecting("MEMORY.md") == {"MEMORY.md", "feedback_tests.md"}
    assert changeset.rejecting("project_train.md") == {"project_train.md",
                                                       "project_train_again.md"}
    before = md_files(store)
    outcome = conclude(result, apply=True, only=changeset.default_choice()
                       - changeset.rejecting("MEMORY.md"))
    assert set(outcome.applied) == {"project_train.md", "project_train_again.md"}
    after = md_files(store)
    assert {name: after[name] for name in ("MEMORY.md", "feedback_tests.md")} == \
        {name: before[name] for name in ("MEMORY.md", "feedback_tests.md")}


def test_undo_puts_back_the_mtimes_too(store):
    from tui.agents.changeset import undo_changeset

    times = {path.name: path.stat().st_mtime for path in store.glob("*.md")}
    conclude(run_dream(store, engine="offline"), apply=True)
    assert undo_changeset(store)
    assert {path.name: path.stat().st_mtime for path in store.glob("*.md")} == times


def _dropping_the_index_line_of(name: str):
    prune = offline.prune_index

    def dropping(staging, renamed, log):
        rebuild = prune(staging, renamed, log)
        path = staging.root / "MEMORY.md"
        path.write_text("".join(line for line in path.read_text().splitlines(keepends=True)
                                if f"]({name}.md)" not in line))
        return rebuild
    return dropping


def test_a_second_dream_after_the_first_changes_nothing(store):
    conclude(run_dream(store, engine="offline"), apply=True)
    files = md_files(store)
    again = run_dream(store, engine="offline")
    assert again.changeset.empty, [d.file for d in again.changeset.files]
    conclude(again, apply=True)
    assert md_files(store) == files
    assert os.path.getmtime(store / "feedback_tests.md") == OLD


def test_the_json_lists_each_group_applied_together_once(store, capsys):
    """Issue 44: every pair of the files applied together was printed (2,550 pairs at 1,000
    memories); each group is listed once, led by its first file in the change set's order."""
    assert cli.main(["dream", str(store), "--engine", "offline", "--dry-run", "--json"]) == 0
    changeset = json.loads(capsys.readouterr().out)["changeset"]
    assert changeset["applied_together"] == [["MEMORY.md", "feedback_tests.md"],
                                             ["project_train.md", "project_train_again.md"]]
    assert "requires" not in changeset


def test_groups_sharing_a_file_go_together_and_a_file_left_out_joins_nothing():
    """A merge's keeper that the new index also needs: the merge and the index go together.
    A declared file the change set does not hold links no two others."""
    groups = [frozenset({"keeper.md", "merged.md"}), frozenset({"MEMORY.md", "keeper.md"}),
              frozenset({"hub.md", "unchanged.md", "other_hub.md"}), frozenset({"alone.md"})]
    files = {"keeper.md", "merged.md", "MEMORY.md", "hub.md", "other_hub.md", "alone.md"}
    assert sorted(map(sorted, joined(groups, files))) == [
        ["MEMORY.md", "keeper.md", "merged.md"], ["hub.md", "other_hub.md"]]
    assert joined([frozenset({"a.md", "b.md"}), frozenset({"b.md", "c.md"})],
                  {"a.md", "c.md"}) == []
