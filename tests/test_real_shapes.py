"""memtui on stores shaped like real users' stores (tests/real_shapes.py), through the
commands a new user runs first: `audit --json`, `projects --json`, `index --loaded`.

Every shape is read whole, without a crash, with every memory file counted; each also gets
the findings a user of such a store should see, and no others.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ClaudeHome, real
from real_shapes import (
    BOM,
    FAKE_TOKEN,
    SECOND_LEVEL_TOPICS,
    SHAPES,
    VAULT_AREAS,
    VAULT_NOTES,
    build,
    long_lines,
)

from tui import cli


@dataclass
class ShapeStore:
    home: ClaudeHome
    store: Path
    files: list[str]  # the memory files the builder wrote

    def run(self, capsys, *args: str) -> tuple[int, str, str]:
        code = cli.main(["--config-dir", str(self.home.home), *args])
        out, err = capsys.readouterr()
        return code, out, err

    def audit(self, capsys) -> dict:
        code, out, err = self.run(capsys, "audit", str(self.store), "--json")
        assert err == "" and code in (0, 1)
        return {"exit": code, **json.loads(out)}

    def findings(self, capsys, kind: str) -> list[dict]:
        return [f for f in self.audit(capsys)["findings"] if f["kind"] == kind]


@pytest.fixture
def shape_store(claude_home, tmp_path):
    """A project whose checkout exists and whose store has the given shape."""

    def make(shape: str) -> ShapeStore:
        project = real(tmp_path) / "work" / shape
        project.mkdir(parents=True)
        claude_home.session(project)
        store = claude_home.store(project)
        return ShapeStore(claude_home, store, build(store, shape))

    return make


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_real_shape_is_read_whole_by_audit_projects_and_index(shape, shape_store, capsys):
    shaped = shape_store(shape)
    report = shaped.audit(capsys)
    assert sorted(m["file"] for m in report["memories"]) == shaped.files
    assert not any(f["kind"] == "stranded_store" for f in report["findings"])

    code, out, err = shaped.run(capsys, "projects", "--json")
    assert (code, err) == (0, "")
    [project] = json.loads(out)
    assert project["memories"] == len(shaped.files)

    code, out, err = shaped.run(capsys, "index", str(shaped.store), "--loaded")
    assert (code, err) == (0, "")
    assert out.strip() and not out.startswith(BOM)  # Claude Code trims the mark away

    code, out, err = shaped.run(capsys, "audit", str(shaped.store))
    files = len(shaped.files)
    assert code in (0, 1) and err == ""
    assert f"\n{files:,} {'memory' if files == 1 else 'memories'}" in out


def test_audit_all_json_keeps_its_shape_with_subfolder_paths(claude_home, tmp_path, capsys):
    stores = {}
    for shape in ("topics_and_skills_subfolders", "second_level_index", "team_memory"):
        project = real(tmp_path) / shape
        project.mkdir()
        claude_home.session(project)
        stores[str(claude_home.store(project))] = build(claude_home.store(project), shape)
    cli.main(["--config-dir", str(claude_home.home), "audit", "--all", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert {entry["store"]: entry["memories"] for entry in report} == {
        store: len(files) for store, files in stores.items()}
    for entry in report:
        assert set(entry) == {"store", "memories", "errors", "cached", "cost", "findings"}
        files = {f["file"] for f in entry["findings"] if f["file"] != "MEMORY.md"}
        assert files <= set(stores[entry["store"]]) | {"team/MEMORY.md"}
    subfolders = next(e for e in report if e["store"].endswith("subfolders/memory"))
    assert [(f["kind"], f["file"]) for f in subfolders["findings"]] == [
        ("unindexed", "skills/deploy/steps.md")]


# --- layouts (item 3) ----------------------------------------------------------------------


def test_a_store_of_topic_folders_is_not_empty(shape_store, capsys):
    """The reported bug: an index linking topics/*.md showed 0 memories in `projects`."""
    shaped = shape_store("topics_and_skills_subfolders")
    code, out, _ = shaped.run(capsys, "projects", "--json")
    assert json.loads(out)[0]["memories"] == 4
    report = shaped.audit(capsys)
    visible = {m["file"] for m in report["memories"] if m["visible"]}
    assert visible == {"topics/api.md", "topics/database.md", "skills/review.md"}
    [unindexed] = [f for f in report["findings"] if f["kind"] == "unindexed"]
    assert unindexed["file"] == "skills/deploy/steps.md"
    assert "no line in MEMORY.md" in unindexed["message"]


def test_a_second_level_index_reaches_its_topics(shape_store, capsys):
    shaped = shape_store("second_level_index")
    report = shaped.audit(capsys)
    assert report["exit"] == 0  # nothing is lost: each topic is one link away
    linked = [f for f in report["findings"] if f["kind"] == "linked_from"]
    assert len(linked) == SECOND_LEVEL_TOPICS
    assert {(f["severity"], f["other"]) for f in linked} == {("info", "topics/index.md")}
    assert {f["file"] for f in linked} == {f"topics/topic_{n:02}.md"
                                           for n in range(SECOND_LEVEL_TOPICS)}


def test_a_memory_folder_that_is_a_git_repository(shape_store, capsys):
    shaped = shape_store("memory_folder_is_a_git_repository")
    report = shaped.audit(capsys)
    files = {m["file"] for m in report["memories"]}
    assert files == {"user_role.md", "README.md", "CLAUDE.md"}  # nothing under .git/
    # Claude Code's scan reads README.md and CLAUDE.md as memories too: they show as such.
    assert {f["file"] for f in report["findings"] if f["kind"] == "unindexed"} == {
        "README.md", "CLAUDE.md"}


def test_an_obsidian_vault_of_thousands_of_notes(shape_store, capsys):
    shaped = shape_store("obsidian_vault")
    report = shaped.audit(capsys)
    assert len(report["memories"]) == VAULT_NOTES + len(VAULT_AREAS)
    kinds = Counter(f["kind"] for f in report["findings"])
    # Area notes list every other note; the rest are reached by the notes' [[wiki]] links.
    assert kinds["linked_from"] == VAULT_NOTES and kinds["unindexed"] == 0
    linked = {f["file"]: f["other"] for f in report["findings"] if f["kind"] == "linked_from"}
    assert linked["notes/infra/infra-note-0000.md"] == "notes/infra/_area.md"
    assert linked["notes/infra/infra-note-0001.md"] == "notes/infra/infra-note-0000.md"
    assert not any(f["file"].startswith(".obsidian/") for f in report["findings"] if f["file"])


def test_jsonl_metrics_beside_memories_are_not_memories(shape_store, capsys):
    shaped = shape_store("metrics_beside_memories")
    report = shaped.audit(capsys)
    assert [m["file"] for m in report["memories"]] == ["user_role.md"]
    assert report["findings"] == [] and report["exit"] == 0
    code, out, _ = shaped.run(capsys, "audit", str(shaped.store))
    assert "1 memory, 0 findings" in out


def test_daily_logs_are_logs_not_orphans(shape_store, capsys):
    shaped = shape_store("assistant_mode_logs")
    report = shaped.audit(capsys)
    assert len(report["memories"]) == 5
    assert report["findings"] == [] and report["exit"] == 0
    code, out, _ = shaped.run(capsys, "audit", str(shaped.store))
    assert "5 memories (4 daily logs)" in out


def test_team_memory_is_audited_against_its_own_index(shape_store, capsys):
    shaped = shape_store("team_memory")
    report = shaped.audit(capsys)
    visible = {m["file"] for m in report["memories"] if m["visible"]}
    assert visible == {"user_role.md", "team/conventions.md", "team/oncall.md"}
    [unindexed] = [f for f in report["findings"] if f["kind"] == "unindexed"]
    assert unindexed["file"] == "team/release.md"
    assert "no line in team/MEMORY.md" in unindexed["message"]
    code, out, _ = shaped.run(capsys, "audit", str(shaped.store))
    assert "team index 2/200 lines" in out


# --- index styles --------------------------------------------------------------------------


def test_an_index_under_type_headings_links_every_memory(shape_store, capsys):
    report = shape_store("index_under_type_headings").audit(capsys)
    assert len(report["memories"]) == 12 and all(m["visible"] for m in report["memories"])
    assert report["findings"] == []


def test_long_index_lines_are_measured_in_utf16(shape_store, capsys):
    shaped = shape_store("long_index_lines")
    long = shaped.findings(capsys, "long_index_line")
    assert sorted(f["line"] for f in long) == long_lines(shaped.store)
    assert len(long) == 10  # a third of the 30 lines


def test_links_leaving_the_store_are_warnings(shape_store, capsys):
    [finding] = shape_store("links_leaving_the_store").findings(capsys, "outside_store")
    assert (finding["severity"], finding["target"]) == ("warning", "../.agent/x.md")


def test_targets_with_spaces_are_links_in_every_form(shape_store, capsys):
    report = shape_store("targets_with_spaces").audit(capsys)
    assert all(m["visible"] for m in report["memories"]) and report["findings"] == []


def test_kebab_wiki_links_name_snake_case_files(shape_store, capsys):
    report = shape_store("wiki_links_to_snake_case").audit(capsys)
    assert all(m["visible"] for m in report["memories"])
    assert [(f["kind"], f["target"]) for f in report["findings"]] == [
        ("unmatched_wiki_link", "capacity-plan")]


def test_a_template_placeholder_is_no_dangling_link(shape_store, capsys):
    assert shape_store("template_placeholder").audit(capsys)["findings"] == []


def test_a_link_in_a_code_span_is_no_link(shape_store, capsys):
    report = shape_store("link_in_a_code_span").audit(capsys)
    assert report["findings"] == [] and report["memories"][0]["visible"]


def test_an_old_store_without_frontmatter(shape_store, capsys):
    shaped = shape_store("old_store_without_frontmatter")
    report = shaped.audit(capsys)
    sizes = {m["file"]: m["size"] for m in report["memories"]}
    assert sizes["architecture_notes.md"] >= 60_000
    assert [f["file"] for f in report["findings"] if f["kind"] == "unindexed"] == [
        "architecture_notes.md"]
    assert {f["file"] for f in report["findings"] if f["kind"] == "missing_frontmatter"} == {
        "architecture_notes.md", "deploy.md"}
    code, out, _ = shaped.run(capsys, "index", str(shaped.store), "--loaded")
    assert out.startswith("# Project memory\n") and "Tests need Docker running." in out


# --- frontmatter shapes --------------------------------------------------------------------


def test_mixed_frontmatter_forms_in_one_store(shape_store, capsys):
    report = shape_store("mixed_frontmatter").audit(capsys)
    read = {m["file"]: (m["name"], m["type"], m["form"]) for m in report["memories"]}
    assert read == {
        "user_role.md": ("user_role", "user", "flat"),
        "feedback_testing.md": ("feedback-testing", "feedback", "nested"),
        "project_launch.md": ("project-launch", "project", "nested"),  # `metadata: `
        "reference_grafana.md": ("reference_grafana", "reference", "flat"),
        "project_blank.md": ("project_blank", None, "nested"),  # `name: ""`: the file names it
    }
    kinds = {(f["kind"], f["file"]) for f in report["findings"]}
    assert kinds == {("missing_description", "project_blank.md")}


def test_types_outside_the_four_and_cjk_names(shape_store, capsys):
    report = shape_store("foreign_types_and_cjk_names").audit(capsys)
    unknown = {f["file"] for f in report["findings"] if f["kind"] == "unknown_type"}
    assert unknown == {"pattern_notes.md", "technique_notes.md", "state_notes.md",
                       "handoff_notes.md"}
    names = {m["file"]: m["name"] for m in report["memories"]}
    assert names["project_deploy.md"] == "部署流程"
    assert names["feedback_tests.md"] == "테스트 정책"


def test_a_byte_order_mark_on_every_file(shape_store, capsys):
    shaped = shape_store("bom_on_every_file")
    report = shaped.audit(capsys)
    assert all(m["visible"] for m in report["memories"])
    # The scanner drops the mark before reading frontmatter (reference section 4).
    assert {m["file"]: m["type"] for m in report["memories"]} == {
        "user_role.md": "user", "feedback_style.md": "feedback"}
    assert report["findings"] == []
    code, out, _ = shaped.run(capsys, "index", str(shaped.store), "--loaded")
    assert out == ("- [User role](user_role.md) — who the user is\n"
                   "- [Style](feedback_style.md) — how to answer\n")


def test_crlf_files_keep_their_frontmatter_and_index_links(shape_store, capsys):
    report = shape_store("crlf_files").audit(capsys)
    assert {m["file"]: m["type"] for m in report["memories"]} == {
        "user_role.md": "user", "project_port.md": "project"}
    assert all(m["visible"] for m in report["memories"])


def test_a_quoted_phrase_then_more_text_is_broken_frontmatter(shape_store, capsys):
    report = shape_store("negative_signal_description").audit(capsys)
    [memory] = report["memories"]
    assert (memory["type"], memory["description"]) == (None, "")
    assert [f["kind"] for f in report["findings"]] == ["bad_frontmatter"]


def test_a_token_pasted_into_the_index_is_found_and_never_printed(shape_store, capsys):
    shaped = shape_store("plaintext_token_in_the_index")
    code, out, _ = shaped.run(capsys, "audit", str(shaped.store), "--json")
    findings = json.loads(out)["findings"]
    assert [(f["kind"], f["file"], f["line"]) for f in findings] == [("secret", "MEMORY.md", 1)]
    assert FAKE_TOKEN not in out
