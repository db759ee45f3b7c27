"""The offline dream on stores built in the shapes where it lost or bent facts (issue 40):
it loses no line and bends none, a second dream changes nothing, and each shape's own trap
is left as it was."""

from __future__ import annotations

import re

import pytest
from dream_checks import texts, unaccounted
from dream_shapes import NOT_MEMORIES, SHAPES, build

from tui.agents.dream import run_dream
from tui.agents.result import conclude
from tui.memory.audit import audit_store
from tui.memory.index import parse_index
from tui.memory.store import load_store

HEADING = re.compile(r" {0,3}#{1,6}\s")


def dreamed(store):
    """(the texts before, the change set, the texts after) of an applied offline dream."""
    before = texts(store)
    result = run_dream(store, engine="offline")
    assert result.changeset.held == {}, result.changeset.held
    outcome = conclude(result, apply=True)
    assert outcome is None or not outcome.refused, outcome.refused
    return before, result.changeset, texts(store)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_dream_loses_no_line_and_a_second_one_changes_nothing(shape, tmp_path):
    store = tmp_path / shape / "memory"
    build(store, shape)
    before, changeset, after = dreamed(store)

    assert unaccounted(before, after, changeset) == []
    again = run_dream(store, engine="offline")
    assert again.changeset.empty, {d.file: d.diff for d in again.changeset.files}
    conclude(again, apply=True)
    assert texts(store) == after


def bodies(files: dict[str, str]) -> dict[str, str]:
    """Each memory's text past its frontmatter, but MEMORY.md and memtui's own files."""
    return {file: text.split("\n---\n", 1)[-1] for file, text in files.items()
            if file != "MEMORY.md" and not file.startswith("index_")}


@pytest.mark.parametrize("shape", ["date_lookalike_words", "slash_commands_and_date_named_files",
                                   "quoted_messages_and_templates"])
def test_words_that_only_look_like_dates_are_left_as_written(shape, tmp_path):
    """Durations, rules, labels, formulas, Dutch *hier*, slash commands, file names, quotes,
    templates, tables and code: no date of the memory's own prose, none rewritten."""
    store = tmp_path / "memory"
    build(store, shape)
    before, _, after = dreamed(store)
    memories = bodies(before)
    assert {file: bodies(after)[file].split("\n\nFrom the index: ")[0]
            for file in memories} == memories


def test_a_session_note_is_dated_by_its_name_and_heading_never_by_its_mtime(tmp_path):
    store = tmp_path / "memory"
    build(store, "dated_session_notes")
    _, changeset, after = dreamed(store)
    everything = "\n".join(after.values())
    # The files' mtimes (2026-08-05, 2026-05-29, 2026-06-20, 2026-07-10…21) date nothing.
    for day in ("2026-08-05", "2026-05-29", "2026-06-20", "2026-07-"):
        assert day not in everything
    session = after["project_session_20260507.md"]
    assert "2026-05-0" not in session or "2026-05-07" in session
    assert all(f"2026-05-{d:02}" not in session for d in range(8, 32))


def test_headings_that_hold_facts_stay_above_their_lines(tmp_path):
    store = tmp_path / "memory"
    build(store, "index_with_headings_over_the_cut")
    before, _, after = dreamed(store)
    index = parse_index(after["MEMORY.md"])
    assert index.cut is None and index.lines <= 140
    headings = [line for line in before["MEMORY.md"].splitlines() if HEADING.match(line)]
    written = [line for text in after.values() for line in text.splitlines()]
    assert all(heading in written for heading in headings)
    for text in after.values():  # wherever a project's stack line is, its heading is above
        lines = text.splitlines()
        for number, line in enumerate(lines):
            if line.startswith("- Python 3.12, talks to users"):
                above = next(h for h in reversed(lines[:number]) if HEADING.match(h))
                assert above.startswith("### ") and "agent-" in above


def test_a_dangling_line_keeps_the_only_copy_of_its_fact(tmp_path):
    store = tmp_path / "memory"
    build(store, "dangling_lines_holding_facts")
    _, changeset, after = dreamed(store)
    everything = "\n".join(after.values())
    assert ("Immediate: revoke the deploy token + rotate the database passwords + fix the SQL "
            "injection in /search + turn CSRF checks on") in everything
    assert "writes the changelog from merged PRs" in everything
    assert any(note.startswith("Took the links to missing files out of") for note in
               changeset.notes)


def test_a_vault_of_templates_merges_no_distinct_note(tmp_path):
    store = tmp_path / "memory"
    build(store, "obsidian_vault_with_templates")
    unmatched = len([f for f in audit_store(load_store(store)) if f.kind == "unmatched_wiki_link"])
    _, changeset, after = dreamed(store)

    assert [d.file for d in changeset.files if d.kind == "archived"] == []
    assert len([f for f in audit_store(load_store(store))
                if f.kind == "unmatched_wiki_link"]) == unmatched
    for text in after.values():  # every Dataview query still inside its fence
        lines = text.splitlines()
        for number, line in enumerate(lines):
            if line.startswith(("LIST FROM", "TABLE status")):
                assert sum(1 for above in lines[:number] if above.startswith("```")) % 2 == 1


def test_files_that_are_no_memories_get_no_line(tmp_path):
    store = tmp_path / "memory"
    build(store, "non_memories_in_the_store")
    _, _, after = dreamed(store)
    assert not any(f"]({name})" in after["MEMORY.md"] for name in NOT_MEMORIES)
