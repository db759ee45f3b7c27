"""Near-duplicates that are real duplicates: what the audit reports and what a dream merges,
on an Obsidian-style vault made from templates (`real_shapes.template_vault`)."""

from __future__ import annotations

import pytest
from real_shapes import TAG_CODES, build

from tui.memory.audit import duplicate_findings
from tui.memory.store import load_store


@pytest.fixture
def vault(claude_home, tmp_path):
    project = tmp_path / "vault-project"
    project.mkdir()
    claude_home.session(project)
    store = claude_home.store(project)
    build(store, "template_vault")
    return store


def duplicate_pairs(store) -> set[tuple[str, str]]:
    return {(f.file, f.other) for f in duplicate_findings(load_store(store))
            if f.kind == "duplicate"}


def test_daily_notes_of_different_days_and_tag_pages_of_different_codes_are_no_duplicates(vault):
    """Issue 41: 3,127 warnings in one vault, all template pages for different codes and
    daily notes of different days. What a note says of its own is compared, and notes named
    by different numbers (a day, a code) are different records."""
    findings = duplicate_findings(load_store(vault))
    named = {file for f in findings for file in (f.file, f.other)}
    assert not {file for file in named if file and file.startswith(("Daily/", "Tags/"))}
    assert "duplicate_search_cut" not in {f.kind for f in findings}
    assert len(TAG_CODES) == 30 and (vault / "Tags" / "tag-A12.md").exists()
