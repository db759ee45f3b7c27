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


@pytest.fixture
def store_dir(tmp_path):
    store = tmp_path / "projects" / "-p" / "memory"
    store.mkdir(parents=True)
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


def test_contact_cards_alike_but_for_their_license_numbers_are_no_duplicates(vault):
    """Issue 40: two contact cards with different license numbers were merged. A key both
    notes set to different values says they are two records."""
    pairs = duplicate_pairs(vault)
    assert not {pair for pair in pairs if any(f.startswith("Contacts/") for f in pair)}


def test_an_archived_copy_whose_every_line_is_in_the_current_note_is_named_to_archive(vault):
    findings = [f for f in duplicate_findings(load_store(vault)) if f.kind == "duplicate"]
    kitchen = next(f for f in findings if "Kitchen" in f.file)
    assert (kitchen.severity, kitchen.file, kitchen.other) == (
        "warning", "Archive/Kitchen remodel.md", "Projects/Kitchen remodel.md")
    assert kitchen.message.startswith(
        "Archive/Kitchen remodel.md says nothing Projects/Kitchen remodel.md does not")


def test_reworded_memories_on_one_topic_are_left_for_a_person_to_merge(vault):
    findings = [f for f in duplicate_findings(load_store(vault)) if f.kind == "duplicate"]
    backups = next(f for f in findings if f.file.startswith("feedback_"))
    assert (backups.file, backups.other) == ("feedback_backups.md", "feedback_vault_backup.md")
    assert backups.message.endswith("each with lines the other lacks: merge them by hand")


def test_a_copy_stamped_by_another_session_is_still_a_duplicate(store_dir):
    """Claude Code's nested frontmatter stamps every write (originSessionId, modified): a
    copy written in another session differs there and nowhere else."""
    body = ("Deploys go out from the release branch only, never from main.\n"
            "**Why:** main carries unreviewed merges.\n"
            "**How to apply:** cut the release branch, then deploy.\n")
    for file, session, modified in (("feedback_deploys.md", "a1", "2026-05-01T09:00:00Z"),
                                    ("feedback_deploy_branch.md", "b2", "2026-05-09T17:30:00Z")):
        (store_dir / file).write_text(
            f"---\nname: {file[:-3]}\ndescription: deploy from the release branch\nmetadata:\n"
            f"  type: feedback\n  originSessionId: {session}\n  modified: {modified}\n---\n\n"
            + body)
    [finding] = [f for f in duplicate_findings(load_store(store_dir)) if f.kind == "duplicate"]
    assert "says nothing" in finding.message


def test_memories_of_different_types_are_no_duplicates(store_dir):
    body = "The staging database is reset every night at two.\n"
    for file, kind in (("project_staging.md", "project"), ("reference_staging.md", "reference")):
        (store_dir / file).write_text(
            f"---\nname: staging\ndescription: staging is reset nightly\ntype: {kind}\n---\n\n"
            + body)
    assert duplicate_pairs(store_dir) == set()
