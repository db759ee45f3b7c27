"""Near-duplicates that are real duplicates: what the audit reports and what a dream merges,
on an Obsidian-style vault made from templates (`real_shapes.template_vault`)."""

from __future__ import annotations

import re

import pytest
from conftest import letters
from real_shapes import TAG_CODES, build

from tui.agents.dream import run_dream
from tui.agents.merging import relinked_text, with_frontmatter_of
from tui.agents.result import SUCCEEDED, conclude
from tui.memory import frontmatter
from tui.memory.audit import audit_store, duplicate_findings
from tui.memory.links import wiki_names
from tui.memory.store import Memory, load_store


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


def memory(file: str, text: str) -> Memory:
    return Memory(file, file, text, frontmatter.parse(text), 0.0, len(text))


def duplicate_pairs(store) -> set[tuple[str, str]]:
    return {(f.file, f.other) for f in duplicate_findings(load_store(store))
            if f.kind == "duplicate"}


def test_daily_notes_of_different_days_and_tag_pages_of_different_codes_are_no_duplicates(vault):
    """Issue 41: 3,127 warnings in one vault, all template pages for different codes and
    daily notes of different days. What a note says of its own is compared, notes named by
    different numbers (a day, a code) are different records, and so are two notes whose
    lines differ only where each writes its own name (`# A | B | C39`, `# B | C39`)."""
    findings = duplicate_findings(load_store(vault))
    named = {file for f in findings for file in (f.file, f.other)}
    assert not {file for file in named if file and file.startswith(("Daily/", "Tags/", "Trades/"))}
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


# --- the dream's merge ----------------------------------------------------------------------

FENCE = re.compile(r"^[ \t>]*(```|~~~)")


def fenced_lines(text: str) -> set[str]:
    """The lines inside code fences (a fence in a quote or a callout counts)."""
    inside, found = False, set()
    for line in text.split("\n"):
        if FENCE.match(line):
            inside = not inside
        elif inside and line.strip():
            found.add(line.strip())
    return found


def store_texts(store) -> dict[str, str]:
    return {path.relative_to(store).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(store.rglob("*.md"))}


def unmatched_wiki_links(store) -> int:
    return sum(f.kind == "unmatched_wiki_link" for f in audit_store(load_store(store)))


def test_a_dream_on_a_template_vault_archives_only_the_provable_copy(vault):
    before = store_texts(vault)
    unmatched = unmatched_wiki_links(vault)
    result = run_dream(vault, engine="offline")
    assert result.status == SUCCEEDED, result.error
    assert not conclude(result, apply=True).refused
    after = store_texts(vault)

    archived = {d.file for d in result.changeset.files if d.kind == "archived"}
    assert archived == {"Archive/Kitchen remodel.md"}
    assert {f for f in before if f.startswith(("Daily/", "Tags/", "Contacts/"))} <= set(after)
    log = "\n".join(line.text for line in result.log)
    assert ("feedback_backups.md and feedback_vault_backup.md look like the same memory "
            "(92% similar), but each says something the other does not: left for you to merge"
            ) in log

    # Nothing of the archived copy is lost: every line, its tags, its place in code fences.
    everything = "\n".join(after.values())
    assert [line for line in before["Archive/Kitchen remodel.md"].split("\n")
            if line.strip() and line.strip() not in everything] == ["tags: [project, archive]"]
    kept = frontmatter.parse(after["Projects/Kitchen remodel.md"])
    assert kept.data["tags"] == ["project", "kitchen", "archive"]
    assert kept.body == frontmatter.parse(before["Projects/Kitchen remodel.md"]).body
    assert set().union(*map(fenced_lines, before.values())) \
        <= set().union(*map(fenced_lines, after.values()))

    # Links to the copy lead to the note kept, and no wiki link stopped finding its note.
    assert "- [Kitchen, first plan](Projects/Kitchen%20remodel.md) — as first agreed" \
        in after["MEMORY.md"].split("\n")
    assert "- Compared the quotes with [[Kitchen remodel|Archive/Kitchen remodel]]." \
        in after["Daily/2026-05-03.md"]
    assert "[[Kitchen remodel]]" in after["Daily/2026-05-02.md"]  # it finds the kept note
    assert unmatched_wiki_links(vault) <= unmatched
    assert not [f for f in audit_store(load_store(vault)) if f.kind == "dangling"]


def test_a_second_dream_on_the_vault_merges_nothing_more(vault):
    conclude(run_dream(vault, engine="offline"), apply=True)
    again = run_dream(vault, engine="offline")
    assert not [d for d in again.changeset.files if d.kind == "archived"]


def test_a_merge_keeps_the_copys_differing_values_under_merged_from():
    keeper = ("---\nname: deploys\ndescription: deploy from the release branch\nmetadata:\n"
              "  type: feedback\n  originSessionId: a1\n---\n\nDeploy from release.\n")
    copy = memory("feedback_deploy_branch.md",
                  "---\nname: deploy-branch\ndescription: release branch only\nmetadata:\n"
                  "  type: feedback\n  originSessionId: b2\n---\n\nDeploy from release.\n")
    merged = with_frontmatter_of(keeper, copy)
    fm = frontmatter.parse(merged)
    assert (fm.name, fm.description, fm.type) == ("deploys", "deploy from the release branch",
                                                  "feedback")
    assert fm.data["merged_from"] == {"feedback_deploy_branch.md": {
        "name": "deploy-branch", "description": "release branch only",
        "metadata": {"originSessionId": "b2"}}}
    assert merged.endswith("---\n\nDeploy from release.\n")


def test_a_merge_that_would_push_the_frontmatter_past_claude_codes_30_lines_is_not_made(
        store_dir):
    """Claude Code reads a memory's first 30 lines: a block closing later has no type and no
    description for it. The copy stays, and the dream says why."""
    keys = "".join(f"key{n}: value {letters(n)}\n" for n in range(27))
    body = ("Deploys go out from the release branch only, never from main or a fork.\n"
            "**Why:** main carries merges nobody has reviewed yet.\n"
            "**How to apply:** cut the release branch, tag it, then run the deploy job.\n")
    (store_dir / "feedback_deploys.md").write_text(
        f"---\nname: deploys\n{keys}---\n\n{body}Cut the branch first.\n")
    (store_dir / "feedback_deploys_copy.md").write_text(
        f"---\nname: deploys copy\ntags: [ops]\n---\n\n{body}")
    result = run_dream(store_dir, engine="offline")
    assert not [d for d in result.changeset.files if d.kind == "archived"]
    assert any("its frontmatter could not be kept" in line.text for line in result.log)


@pytest.mark.parametrize(("file", "line", "relinked"), [
    ("notes/a.md", "See [[old copy|the plan]].", "See [[keep|the plan]]."),
    ("notes/a.md", "See [[old copy#Budget]].", "See [[keep#Budget|old copy#Budget]]."),
    ("notes/a.md", "| plan | [[old copy]] |", "| plan | [[keep\\|old copy]] |"),
    ("notes/a.md", "See [the plan](../old%20copy.md#budget).",
     "See [the plan](../topics/keep.md#budget)."),
    ("a.md", "See [the plan](<old copy.md>) and [x](./old%20copy.md).",
     "See [the plan](<topics/keep.md>) and [x](./topics/keep.md)."),
    ("a.md", "```\n[[old copy]]\n```", "```\n[[old copy]]\n```"),  # code: no link
])
def test_links_to_a_merged_away_note_lead_to_the_note_kept(file, line, relinked):
    names = {"old copy.md": None, "topics/keep.md": "keep", file: None}
    before = wiki_names(names.items())
    after = wiki_names((f, n) for f, n in names.items() if f != "old copy.md")
    text, _ = relinked_text(file, line, {"old copy.md": "topics/keep.md"}, before, after, names)
    assert text == relinked


def test_copies_synced_at_different_times_are_one_memory_but_a_different_date_is_not(store_dir):
    """Seen in a public store: copies of one reference memory in several folders, each with
    its own `last_synced:`. A stamp of when a file was synced names no record; a note's
    `date:` does."""
    docs = ("All twelve agent docs live in three places: Desktop, the brain repo and Drive.\n"
            "Edit the Drive copy first, then sync the others the same day.\n")
    standup = ("Standup notes: the release train slipped, QA owns the smoke tests now.\n"
               "Ask the platform team about the staging database before Friday.\n")
    for file, stamp, body in (("reference_agent_docs.md", "last_synced: 2026-04-05", docs),
                              ("backup/reference_agent_docs.md", "last_synced: 2026-04-21", docs),
                              ("notes/standup.md", "date: 2026-04-05", standup),
                              ("notes/archive/standup.md", "date: 2026-04-21", standup)):
        (store_dir / file).parent.mkdir(parents=True, exist_ok=True)
        (store_dir / file).write_text(f"---\nname: {file.rpartition('/')[2][:-3]}\n{stamp}\n"
                                      f"---\n\n{body}")
    assert {frozenset(pair) for pair in duplicate_pairs(store_dir)} == {
        frozenset(("reference_agent_docs.md", "backup/reference_agent_docs.md"))}


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_a_merge_into_a_keeper_without_frontmatter_writes_one_in_its_line_endings(ending):
    keeper = "Deploy from release.\nNever from main.\n".replace("\n", ending)
    copy = memory("deploys.md", "---\ntags: [ops, deploy]\n---\n\nDeploy from release.\n")
    merged = with_frontmatter_of(keeper, copy)
    assert merged == f"---{ending}tags: [ops, deploy]{ending}---{ending}" + keeper


def test_a_keepers_own_merged_from_that_is_no_mapping_is_left_and_the_merge_not_made():
    keeper = "---\nname: deploys\nmerged_from: the old wiki\n---\n\nDeploy from release.\n"
    copy = memory("deploys_copy.md", "---\nname: deploy copy\n---\n\nDeploy from release.\n")
    assert with_frontmatter_of(keeper, copy) is None
