"""The offline recall matcher sees what Claude's selector sees: type and description only."""

from __future__ import annotations

import os

from conftest import memory_text, write_memory

from tui.memory.recall import manifest_line, never_recalled, rank
from tui.memory.store import RECALL_SCAN_LIMIT, load_store

MTIME = 1_767_225_600.0  # 2026-01-01T00:00:00.000Z


def test_manifest_line_has_the_selector_shape(tmp_path):
    write_memory(tmp_path, "feedback_testing.md",
                 memory_text("testing", "integration tests hit a real database", "feedback"),
                 mtime=MTIME)
    store = load_store(tmp_path)
    assert manifest_line(store.memories[0]) == (
        "- [feedback] feedback_testing.md (2026-01-01T00:00:00.000Z): "
        "integration tests hit a real database"
    )


def test_manifest_line_tags_only_the_four_types_and_needs_a_description_for_its_colon(tmp_path):
    """Reference §4 and §5: the selector reads `- [type] file (mtime): description`; a
    missing or unknown type (legal, as in legacy files) has no tag, and a file without a
    description ends at its date (as v2.1.88's formatMemoryManifest writes them)."""
    write_memory(tmp_path, "pattern_retry.md",
                 memory_text("retry", "retry flaky calls twice", "pattern"), mtime=MTIME)
    write_memory(tmp_path, "topics/legacy.md", "Old notes, no frontmatter.\n", mtime=MTIME)
    lines = sorted(manifest_line(m) for m in load_store(tmp_path).memories)
    assert lines == [
        "- pattern_retry.md (2026-01-01T00:00:00.000Z): retry flaky calls twice",
        "- topics/legacy.md (2026-01-01T00:00:00.000Z)",
    ]


def test_manifest_date_drops_the_fraction_of_a_millisecond_like_javascript(tmp_path):
    """Reference §5: the manifest line's date is the mtime as JavaScript's toISOString()
    writes it: a file changed at 00:00:00.9999996 is at .999, not rounded to the next
    second."""
    path = write_memory(tmp_path, "user_role.md", memory_text("role", "backend", "user"))
    os.utime(path, ns=(1_767_225_600_999_999_600,) * 2)
    assert manifest_line(load_store(tmp_path).memories[0]) == (
        "- [user] user_role.md (2026-01-01T00:00:00.999Z): backend")


def test_rank_uses_descriptions_not_bodies(tmp_path):
    write_memory(tmp_path, "reference_grafana.md",
                 memory_text("grafana", "grafana dashboards for checkout latency", "reference"))
    write_memory(tmp_path, "project_hidden.md",
                 memory_text("misc", "notes from a meeting", "project",
                             "checkout latency checkout latency dashboards\n"))
    write_memory(tmp_path, "user_role.md",
                 memory_text("role", "the user is a backend engineer", "user"))
    store = load_store(tmp_path)
    ranked = rank(store, "where are the checkout latency dashboards?")
    assert [match.file for match in ranked] == ["reference_grafana.md"]
    assert rank(store, "what does the user do as an engineer")[0].file == "user_role.md"
    assert rank(store, "kubernetes helm charts") == []


def test_files_outside_the_newest_200_are_never_recalled(tmp_path):
    for number in range(RECALL_SCAN_LIMIT + 2):
        write_memory(tmp_path, f"m{number:03}.md",
                     memory_text(f"m{number}", f"memory number {number} about caching", "project"),
                     mtime=MTIME + number)
    os.utime(tmp_path / "m000.md", (MTIME - 10, MTIME - 10))
    store = load_store(tmp_path)
    assert [m.file for m in never_recalled(store)] == ["m000.md", "m001.md"]
    picked = rank(store, "caching", limit=500)
    assert "m000.md" not in {match.file for match in picked}
    assert len(rank(store, "caching")) == 5


def test_forms_of_a_word_count_as_one_and_a_shared_start_does_not(tmp_path):
    """Four shared letters made "checkout" match "checked": on the demo, "checkout latency
    dashboard" ranked five admin memories ("what the user wants checked") first."""
    write_memory(tmp_path, "feedback_admin_reviews.md", memory_text(
        "admin reviews", "What the user wants checked before any admin change lands", "feedback"))
    write_memory(tmp_path, "project_deploys.md", memory_text(
        "deploys", "Deployments freeze on Fridays; configuration lives in helm", "project"))
    store = load_store(tmp_path)
    assert rank(store, "checkout latency") == []
    assert [m.file for m in rank(store, "when do we deploy")] == ["project_deploys.md"]
    assert [m.file for m in rank(store, "where is the config")] == ["project_deploys.md"]


def test_the_estimate_names_the_words_only_a_model_could_match(tmp_path):
    from tui.memory.recall import estimate

    write_memory(tmp_path, "feedback_pnpm.md",
                 memory_text("pnpm", "Use pnpm, never npm or yarn", "feedback"))
    write_memory(tmp_path, "feedback_lockfile.md", memory_text(
        "lockfile", "Commit pnpm-lock.yaml with every bump", "feedback",
        "The package manager writes it.\n"))
    store = load_store(tmp_path)

    guess = estimate(store, "which package manager?")
    assert guess.matches == [] and guess.needs_model
    assert guess.unshared == ("manager", "package")
    assert guess.in_text_only == (("feedback_lockfile.md", ("manager", "package")),)
    sure = estimate(store, "pnpm or yarn")
    assert [m.file for m in sure.matches][:1] == ["feedback_pnpm.md"] and not sure.needs_model
