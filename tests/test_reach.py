"""Which memories Claude reaches: a memory linked inside the loaded cut of an index, then the
memories it links, then theirs (Markdown and `[[name]]` links, read from each file's own
folder). Only those are `linked_from`; a memory that only unreachable memories link is
`unindexed` (or `beyond_cut`), in the audit, in relink's orphans, in the projects table's
orphan count and in the doctor's `index_size`.

The stores are tests/real_shapes.py's: a second-level index reached and one nothing links,
a ring of notes linking each other that nothing reaches, a hub past the cut, and an index
kept as a Markdown table whose `[[name\\|alias]]` links escape their pipe.
"""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import index_line, memory_text, real, write_index, write_memory
from doctor_home import build_project, checks_of, run_doctor
from real_shapes import (
    ARCHIVED_NOTES,
    CYCLE_NOTES,
    LOADED_NOTES,
    SECOND_LEVEL_TOPICS,
    build,
)

from tui import cli
from tui.app.summaries import summarize
from tui.memory import curate
from tui.memory.audit import audit_store, memory_statuses, orphan_files
from tui.memory.store import load_store


@pytest.fixture
def shaped(claude_home, tmp_path):
    """A project's store built in one of the real shapes: (store, its memory files)."""

    def make(shape: str):
        project = real(tmp_path) / "work" / shape
        project.mkdir(parents=True)
        claude_home.session(project)
        store = claude_home.store(project)
        return store, build(store, shape)

    return make


def kinds_by_file(store, kind: str) -> dict[str, object]:
    return {f.file: f for f in audit_store(load_store(store)) if f.kind == kind}


# --- the rule --------------------------------------------------------------------------------


def test_a_second_level_index_linked_inside_the_cut_reaches_its_memories(shaped):
    store, _ = shaped("second_level_index")
    linked = kinds_by_file(store, "linked_from")
    assert len(linked) == SECOND_LEVEL_TOPICS
    assert {f.other for f in linked.values()} == {"topics/index.md"}
    assert kinds_by_file(store, "unindexed") == {}


def test_memories_only_an_unlinked_second_level_index_lists_are_unindexed(shaped):
    store, _ = shaped("unlinked_archive_index")
    unindexed = kinds_by_file(store, "unindexed")
    # Nothing links MEMORY-archive.md: neither it nor what it lists is ever opened...
    assert set(unindexed) == {"MEMORY-archive.md",
                              *(f"archive_{n:02}.md" for n in range(1, ARCHIVED_NOTES))}
    assert all(f.severity == "error" for f in unindexed.values())
    # ...but the one note a loaded memory links is reached, through that memory.
    [(file, finding)] = kinds_by_file(store, "linked_from").items()
    assert (file, finding.other) == ("archive_00.md", "user_role.md")
    assert "Claude finds it only by opening user_role.md" in finding.message


def test_a_cycle_of_unreachable_memories_stays_unindexed(shaped):
    store, _ = shaped("cycle_of_unreachable_notes")
    assert kinds_by_file(store, "linked_from") == {}
    assert set(kinds_by_file(store, "unindexed")) == {
        f"notes/ring-{n}.md" for n in range(CYCLE_NOTES)}


def test_a_cycle_reached_once_is_reached_whole(shaped):
    store, _ = shaped("cycle_of_unreachable_notes")
    write_index(store, [index_line("user_role.md"), index_line("notes/ring-2.md")])
    linked = kinds_by_file(store, "linked_from")
    assert {file: f.other for file, f in linked.items()} == {
        "notes/ring-3.md": "notes/ring-2.md", "notes/ring-4.md": "notes/ring-3.md",
        "notes/ring-0.md": "notes/ring-4.md", "notes/ring-1.md": "notes/ring-0.md"}
    assert kinds_by_file(store, "unindexed") == {}


def test_an_entry_past_the_cut_a_loaded_memory_links_is_reached_not_beyond_cut(shaped):
    store, _ = shaped("second_level_index_past_the_cut")
    beyond = kinds_by_file(store, "beyond_cut")
    linked = kinds_by_file(store, "linked_from")
    assert "late_entry.md" not in beyond
    finding = linked["late_entry.md"]
    assert (finding.severity, finding.other, finding.line) == ("info", "note_000.md",
                                                               LOADED_NOTES + 1)
    assert "its line in MEMORY.md is past the loaded cut" in finding.message


def test_a_second_level_index_past_the_cut_reaches_nothing(shaped):
    store, _ = shaped("second_level_index_past_the_cut")
    assert "hubs/late_hub.md" in kinds_by_file(store, "beyond_cut")
    unindexed = kinds_by_file(store, "unindexed")
    assert set(unindexed) == {"hubs/restart.md", "hubs/failover.md"}
    assert not {"hubs/restart.md", "hubs/failover.md"} & set(kinds_by_file(store, "linked_from"))


def test_linked_from_names_the_first_memory_on_the_shortest_chain(store_dir):
    write_memory(store_dir, "hub.md", memory_text("hub", "hub", "reference",
                                                  "[[deep]] and [Mid](mid.md)\n"))
    write_memory(store_dir, "mid.md", memory_text("mid", "mid", "reference", "[[deep]]\n"))
    write_memory(store_dir, "deep.md", memory_text("deep", "deep", "reference", "Deep.\n"))
    write_index(store_dir, [index_line("hub.md")])
    statuses = memory_statuses(load_store(store_dir))
    assert (statuses["mid.md"].linked_from, statuses["deep.md"].linked_from) == ("hub.md",
                                                                                 "hub.md")


def test_an_escaped_pipe_in_a_table_wiki_link_resolves(shaped):
    store, _ = shaped("escaped_pipes_in_tables")
    findings = audit_store(load_store(store))
    assert not [f for f in findings if f.kind in ("unmatched_wiki_link", "unindexed")]
    loaded = load_store(store)
    assert [link.file for link in loaded.index.links] == ["on_call_rotation.md",
                                                          "pager_policy.md"]
    assert [link.title for link in loaded.index.links] == ["On call", "Paging"]
    linked = kinds_by_file(store, "linked_from")
    assert linked["deploy_checklist.md"].other == "on_call_rotation.md"


def test_a_placeholder_target_stays_a_naming_template(shaped):
    store, _ = shaped("template_placeholder")
    assert audit_store(load_store(store)) == []


def test_the_audit_reach_reads_no_file_the_store_did_not(shaped):
    """The walk runs on the texts the store holds: with the files gone, it answers the same."""
    store, _ = shaped("unlinked_archive_index")
    loaded = load_store(store)
    shutil.rmtree(store)
    statuses = memory_statuses(loaded)
    assert statuses["archive_00.md"].linked_from == "user_role.md"
    assert statuses["archive_01.md"].linked_from is None


# --- everything that counts orphans follows it ---------------------------------------------


@pytest.mark.parametrize("shape", ["unlinked_archive_index", "cycle_of_unreachable_notes",
                                   "second_level_index_past_the_cut", "second_level_index",
                                   "escaped_pipes_in_tables"])
def test_relink_and_the_projects_orphan_count_follow_the_audit(shaped, shape):
    store, _ = shaped(shape)
    loaded = load_store(store)
    errors = {f.file for f in audit_store(loaded) if f.kind in ("unindexed", "beyond_cut")}
    assert set(orphan_files(loaded)) == errors
    assert summarize(store).orphans == len(errors)


def test_relink_gives_lines_to_what_only_unreachable_notes_link(shaped, capsys, claude_home):
    store, _ = shaped("unlinked_archive_index")
    code = cli.main(["--config-dir", str(claude_home.home), "fix", str(store), "relink",
                     "--yes", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["applied"]
    relinked = {sentence.split()[5] for sentence in result["summary"]
                if sentence.startswith("Add an index line for")}
    assert relinked == {"MEMORY-archive.md",
                        *(f"archive_{n:02}.md" for n in range(1, ARCHIVED_NOTES))}
    assert orphan_files(load_store(store)) == []


def test_pushing_an_entry_a_chain_still_reaches_past_the_cut_is_no_loss(store_dir):
    """The cut is full; relinking one orphan pushes the last loaded entry out. That entry is
    linked by a loaded hub as well, so nothing is lost and no confirmation is asked."""
    write_memory(store_dir, "hub.md", memory_text("hub", "hub", "reference",
                                                  "[Last](m198.md)\n"))
    lines = [index_line("hub.md")]
    for number in range(199):
        write_memory(store_dir, f"m{number:03}.md", memory_text(f"m{number}", "note", "user"))
        lines.append(index_line(f"m{number:03}.md"))
    write_memory(store_dir, "orphan.md", memory_text("orphan", "an orphan", "user"))
    write_index(store_dir, lines)
    plan = curate.plan_relink(load_store(store_dir), ["orphan.md"])
    assert plan.changes and plan.pushed_out == ()

    write_memory(store_dir, "hub.md", memory_text("hub", "hub", "reference", "No links.\n"))
    plan = curate.plan_relink(load_store(store_dir), ["orphan.md"])
    assert plan.pushed_out == ("m198.md",)


def test_the_doctor_counts_only_entries_past_the_cut_nothing_reaches(fake_home, claude_home,
                                                                    capsys):
    claude, root, store = build_project(fake_home, claude_home)
    for file in list(store.iterdir()):
        file.unlink()
    build(store, "second_level_index_past_the_cut")
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["index_size"]
    assert check["status"] == "fail"
    assert ": 1 entries the model never sees (hubs/late_hub.md)" in check["message"]
    assert "(1 more past it are reached through memories the loaded part links)" in \
        check["message"]


@pytest.fixture
def store_dir(claude_home):
    return claude_home.store(folder="-home-me-proj")
