"""Curation plans: relink, remove dangling, shorten, archive, delete, move; applied and undone."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import index_line as entry
from conftest import memory_text, snapshot, sync_conflicted_memory, write_index, write_memory

from tui.claude.paths import utf16_len
from tui.memory import curate
from tui.memory.audit import memory_statuses
from tui.memory.index import parse_index
from tui.memory.store import load_store
from tui.memory.writes import (
    ConflictError,
    WriteRefused,
    apply_changes,
    list_archived,
    undo_last,
)


@pytest.fixture
def store(claude_home) -> Path:
    return claude_home.store(folder="-home-me-proj")


def add_memories(store: Path, *files: str) -> None:
    for file in files:
        stem = file.removesuffix(".md")
        write_memory(store, file, memory_text(name=stem, description=f"about {stem}"))


def visible(store: Path, file: str) -> bool:
    return memory_statuses(load_store(store))[file].visible


def apply(store: Path, plan: curate.Plan) -> None:
    apply_changes(store, plan.changes, plan.label)


def full_index(store: Path, count: int) -> list[str]:
    files = [f"m{number:03}.md" for number in range(1, count + 1)]
    add_memories(store, *files)
    return [entry(file) for file in files]


# --- index lines --------------------------------------------------------------------------


def memory(store: Path, file: str, name: str, description: str):
    write_memory(store, file, memory_text(name=name, description=description))
    return load_store(store).memory(file)


def test_index_line_humanises_a_slug_and_uses_the_description(store):
    line = curate.index_line(memory(store, "feedback_testing.md", "testing-policy",
                                    "run the full suite before a push"))
    assert line == "- [Testing policy](feedback_testing.md) — run the full suite before a push"


def test_index_line_stays_under_150_utf16_units_and_marks_the_cut(store):
    line = curate.index_line(memory(store, "user notes.md", "User notes", "🚀" * 200))
    assert utf16_len(line) < 150
    assert line.endswith("…")
    assert "(user%20notes.md)" in line
    (link,) = parse_index(line).links
    assert link.file == "user notes.md"


# --- relink -------------------------------------------------------------------------------


def test_relink_puts_an_orphan_inside_the_cut_after_the_last_entry(store):
    add_memories(store, "a.md", "orphan.md")
    write_index(store, ["# Memory", entry("a.md"), "", "## Notes", "Keep it short."])
    original = snapshot(store)

    plan = curate.plan_relink(load_store(store), ["orphan.md"])
    assert plan.pushed_out == () and plan.options == ()
    assert snapshot(store) == original  # planning writes nothing
    apply(store, plan)

    lines = (store / "MEMORY.md").read_text().splitlines()
    assert lines == ["# Memory", entry("a.md"), curate.index_line(load_store(store).memory(
        "orphan.md")), "", "## Notes", "Keep it short."]
    assert visible(store, "orphan.md")
    undo_last(store)
    assert snapshot(store) == original


def test_relink_refuses_a_file_name_that_is_not_utf8_in_one_sentence(store):
    import os

    write_memory(store, "kept.md", memory_text(name="kept"))
    write_index(store, [entry("kept.md")])
    odd = os.fsdecode(os.fsencode(store) + b"/caf\xe9.md")
    Path(odd).write_text(memory_text(name="cafe"))
    name = Path(odd).name
    with pytest.raises(WriteRefused, match="is not valid UTF-8, so no index line can link it"):
        curate.plan_relink(load_store(store), [name])
    assert curate.plan_relink(load_store(store), ["kept.md"]).changes == ()


def test_relink_into_an_index_without_entries_goes_below_the_heading(store):
    add_memories(store, "orphan.md")
    write_index(store, "---\nnote: x\n---\n# Memory\n\nSome prose.\n")

    apply(store, curate.plan_relink(load_store(store), ["orphan.md"]))
    text = (store / "MEMORY.md").read_text()
    assert text.startswith("---\nnote: x\n---\n# Memory\n- [Orphan](orphan.md)")
    assert text.endswith("\n\nSome prose.\n")
    assert visible(store, "orphan.md")


def test_relink_into_an_index_cut_by_its_lines_offers_no_shortening(store):
    lines = full_index(store, 200)
    lines[0] += " — " + "a long hook that shortening would cut " * 5  # over 150 characters
    write_index(store, lines)
    add_memories(store, "orphan.md")
    plan = curate.plan_relink(load_store(store), ["orphan.md"])
    assert plan.pushed_out == ("m200.md",)
    assert curate.SHORTEN_LINES not in plan.options  # it frees characters, never a line
    assert curate.MOVE_OUT in plan.options


def test_relink_offers_shortening_only_when_characters_cut(store):
    hook = "why this matters and how to apply it in every review " * 4
    lines = [f"- [M{n}](m{n}.md) — {hook}" for n in range(107)]
    room = 24_990 - sum(len(line) + 1 for line in lines)  # the whole index just fits
    lines.append("- [Last](last.md) — " + "x" * (room - len("- [Last](last.md) — ") - 1))
    write_index(store, lines)
    add_memories(store, *(f"m{n}.md" for n in range(107)), "last.md", "orphan.md")
    plan = curate.plan_relink(load_store(store), ["orphan.md"])
    assert plan.pushed_out and curate.SHORTEN_LINES in plan.options


def test_shortening_is_no_way_to_make_room_when_the_long_lines_are_past_the_cut(store):
    """185 lines of 140 characters, then 6 of 400: the characters cut at line 178, before
    every long line, so shortening them brings nothing back."""
    lines = [f"- [M{n}](m{n}.md) — " + "a hook of medium length " * 5 for n in range(185)]
    long_lines = [f"- [L{n}](l{n}.md) — " + "a long hook past the cut " * 16 for n in range(6)]
    index = parse_index("\n".join(lines + long_lines) + "\n")
    assert (index.cut, index.loaded_lines) == ("chars", 178)
    assert curate.SHORTEN_LINES not in curate._room_options(load_store(store), index)
    index = parse_index("\n".join(long_lines + lines) + "\n")  # the long lines loaded
    assert curate.SHORTEN_LINES in curate._room_options(load_store(store), index)


def test_relink_creates_a_missing_index(store):
    add_memories(store, "orphan.md")
    plan = curate.plan_relink(load_store(store), ["orphan.md"])
    assert plan.changes[0].before is None
    apply(store, plan)
    assert (store / "MEMORY.md").read_text() == "- [Orphan](orphan.md) — about orphan\n"


def test_relink_into_a_full_index_reports_what_it_would_push_out(store):
    write_index(store, full_index(store, 200))
    add_memories(store, "orphan.md")
    original = snapshot(store)

    plan = curate.plan_relink(load_store(store), ["orphan.md"])

    assert plan.pushed_out == ("m200.md",)
    assert curate.MOVE_OUT in plan.options
    assert "This would leave m200.md past the loaded cut, where Claude does not see it." \
        in plan.summary
    assert snapshot(store) == original
    planned = parse_index(plan.changes[0].after.decode())
    assert {link.file for link in planned.links if link.visible} >= {"orphan.md", "m199.md"}


def test_relink_moves_an_entry_from_past_the_cut_up(store):
    lines = full_index(store, 205)
    write_index(store, lines)
    assert not visible(store, "m203.md")

    plan = curate.plan_relink(load_store(store), ["m203.md"])
    assert any("line 203" in sentence for sentence in plan.summary)
    apply(store, plan)

    new_lines = (store / "MEMORY.md").read_text().splitlines()
    assert visible(store, "m203.md")
    assert sorted(new_lines) == sorted(lines)  # moved as written, nothing added or lost
    assert new_lines.count(entry("m203.md")) == 1
    assert plan.pushed_out == ("m200.md",)


def test_relink_of_two_names_both_entries_it_would_push_out(store):
    write_index(store, full_index(store, 200))
    add_memories(store, "orphan_a.md", "orphan_b.md")

    plan = curate.plan_relink(load_store(store), ["orphan_a.md", "orphan_b.md"])

    assert plan.pushed_out == ("m199.md", "m200.md")
    assert ("This would leave m199.md, m200.md past the loaded cut, where Claude does not "
            "see them.") in plan.summary


def test_relink_keeps_crlf_and_a_missing_final_newline(store):
    add_memories(store, "a.md", "orphan.md")
    (store / "MEMORY.md").write_bytes(f"# Memory\r\n{entry('a.md')}".encode())

    apply(store, curate.plan_relink(load_store(store), ["orphan.md"]))
    data = (store / "MEMORY.md").read_bytes()
    assert data.startswith(f"# Memory\r\n{entry('a.md')}\r\n- [Orphan](orphan.md)".encode())
    assert not data.endswith(b"\n") and b"\n" not in data.replace(b"\r\n", b"")


# --- remove dangling, shorten ----------------------------------------------------------------


def test_remove_dangling_drops_only_lines_whose_links_are_all_missing(store):
    add_memories(store, "a.md")
    write_index(store, "<!-- was: [gone](gone.md) -->\r\n# Memory\r\n" + "\r\n".join([
        entry("a.md"), entry("gone.md"), "- [a](a.md) and [gone](gone.md)",
        "- [site](https://example.com) and [gone](gone.md)",
    ]) + "\r\n")

    plan = curate.plan_remove_dangling(load_store(store))
    apply(store, plan)

    assert (store / "MEMORY.md").read_bytes() == ("<!-- was: [gone](gone.md) -->\r\n# Memory\r\n" + "\r\n".join([
        entry("a.md"), "- [a](a.md) and [gone](gone.md)",
        "- [site](https://example.com) and [gone](gone.md)",
    ]) + "\r\n").encode()
    assert plan.label == "remove 1 dangling index line"


def test_remove_dangling_can_be_limited_to_chosen_lines(store):
    write_index(store, [entry("gone.md"), entry("lost.md")])
    apply(store, curate.plan_remove_dangling(load_store(store), lines={"MEMORY.md": [2]}))
    assert (store / "MEMORY.md").read_text() == entry("gone.md") + "\n"


def test_shorten_keeps_the_cut_detail_in_the_memory_file(store):
    add_memories(store, "a.md")
    detail = "the long story of why we test, " * 6
    write_index(store, ["# Memory", f"- [A](a.md) — {detail.strip()}"])
    memory_before = (store / "a.md").read_bytes()
    original = snapshot(store)

    apply(store, curate.plan_shorten_lines(load_store(store)))

    index_lines = (store / "MEMORY.md").read_text().splitlines()
    assert index_lines[1] == ("- [A](a.md) — the long story of why we test, the long story of why "
                              "we test, the long story of why we test, the long story of why we "
                              "test, the long…")
    memory_after = (store / "a.md").read_bytes()
    assert memory_after.startswith(memory_before)
    assert memory_after.endswith(f"\n## Index note\n\n{detail.strip()}\n".encode())
    undo_last(store)
    assert snapshot(store) == original


@pytest.mark.parametrize("title", [
    "Login and SSO incident", "Admin dashboard: a read replica for reports",
    "Checkout: server-side pagination", "登录与 SSO 事故",
])
def test_shorten_keeps_title_and_link_byte_for_byte_and_cuts_the_hook_at_a_word(store, title):
    add_memories(store, "a.md")
    hook = "cron-driven reconciliation of every invoice against the ledger, " * 3
    write_index(store, ["# Memory", f"- [{title}](a.md) — {hook.strip()}"])

    plan = curate.plan_shorten_lines(load_store(store))
    apply(store, plan)

    line = (store / "MEMORY.md").read_text().splitlines()[1]
    assert line.startswith(f"- [{title}](a.md) — cron-driven reconciliation")
    assert line.endswith("…") and len(line) <= 150
    cut_word = line.removesuffix("…").split()[-1]
    assert cut_word in hook.split() or cut_word.rstrip(",") in hook.split()  # a whole word
    assert f"before: - [{title}](a.md) — {hook.strip()}" in plan.summary[0]
    assert f"after:  {line}" in plan.summary[0]


def test_shorten_does_not_repeat_detail_the_file_already_holds(store):
    detail = "a detail that is already written down in the memory body itself " * 3
    write_memory(store, "a.md", memory_text(name="a", description="about a",
                                            body=detail.strip() + "\n"))
    write_index(store, [f"- [A](a.md) — {detail.strip()}"])

    plan = curate.plan_shorten_lines(load_store(store))
    assert [change.file for change in plan.changes] == ["MEMORY.md"]


def test_shorten_reaches_the_team_index_as_the_audit_does(store):
    """The audit names long lines of team/MEMORY.md too: shorten is their repair."""
    write_memory(store, "team/rota.md", memory_text(name="rota", description="the rota"))
    hook = "who is on call for the release train and who reviews the migrations, " * 3
    (store / "team").mkdir(exist_ok=True)
    (store / "team" / "MEMORY.md").write_text(f"- [Rota](rota.md) — {hook.strip()}\n")

    plan = curate.plan_shorten_lines(load_store(store))
    assert plan.summary[0].startswith("team/MEMORY.md line 1 (the whole hook is kept in "
                                      "team/rota.md")
    apply(store, plan)
    line = (store / "team" / "MEMORY.md").read_text().splitlines()[0]
    assert line.startswith("- [Rota](rota.md) — who is on call") and len(line) <= 150
    assert hook.strip() in (store / "team" / "rota.md").read_text()


# --- archive, delete, move ---------------------------------------------------------------


def test_archive_then_undo_restores_file_and_index_byte_for_byte(store):
    add_memories(store, "a.md", "old.md")
    write_index(store, ["# Memory", entry("a.md"), entry("old.md"), "<!-- end -->"])
    original = snapshot(store)

    plan = curate.plan_archive(load_store(store), ["old.md"])
    apply(store, plan)

    assert not (store / "old.md").exists()
    assert (store / "MEMORY.md").read_text() == f"# Memory\n{entry('a.md')}\n<!-- end -->\n"
    (archived,) = list_archived(store)
    assert archived.read_bytes() == original["old.md"]
    undo_last(store)
    assert snapshot(store) == original


def test_bulk_delete_then_undo(store):
    add_memories(store, "a.md", "b.md", "c.md")
    write_index(store, [entry("a.md"), entry("b.md"), entry("c.md")])
    original = snapshot(store)

    plan = curate.plan_delete(load_store(store), ["a.md", "c.md"])
    assert plan.label == "delete 2 memories"
    apply(store, plan)
    assert sorted(snapshot(store)) == ["MEMORY.md", "b.md"]
    assert (store / "MEMORY.md").read_text() == entry("b.md") + "\n"
    assert list_archived(store) == []

    undo_last(store)
    assert snapshot(store) == original


def test_a_file_changed_between_plan_and_apply_is_a_conflict(store):
    add_memories(store, "a.md", "b.md")
    write_index(store, [entry("a.md"), entry("b.md")])
    plan = curate.plan_delete(load_store(store), ["b.md"])
    (store / "MEMORY.md").write_text(entry("a.md") + "\n" + entry("b.md") + "\n- new line\n")
    changed = snapshot(store)

    with pytest.raises(ConflictError) as raised:
        apply(store, plan)
    assert raised.value.file == "MEMORY.md"
    assert snapshot(store) == changed


def test_move_entry_past_the_cut_says_so_and_brings_the_next_one_in(store):
    lines = full_index(store, 201)
    write_index(store, lines)

    plan = curate.plan_move_entry(load_store(store), "m005.md", 999)
    assert plan.pushed_out == ()  # the user asked for this one
    assert any("m005.md will then be past the loaded cut" in s for s in plan.summary)
    apply(store, plan)

    new_lines = (store / "MEMORY.md").read_text().splitlines()
    assert new_lines[-1] == entry("m005.md") and len(new_lines) == 201
    assert visible(store, "m201.md") and not visible(store, "m005.md")


def test_move_entry_to_the_top_keeps_frontmatter_and_comments(store):
    add_memories(store, "a.md", "b.md")
    write_index(store, "---\nx: 1\n---\n<!-- hi -->\n" + entry("a.md") + "\n" + entry("b.md"))

    apply(store, curate.plan_move_entry(load_store(store), "b.md", 1))
    assert (store / "MEMORY.md").read_text() == (
        "---\nx: 1\n---\n" + entry("b.md") + "\n<!-- hi -->\n" + entry("a.md")
    )


def test_a_plan_for_an_unknown_memory_is_refused_in_one_sentence(store):
    with pytest.raises(curate.WriteRefused, match="not a memory in this store"):
        curate.plan_relink(load_store(store), ["nope.md"])


def test_keeping_a_side_of_a_sync_conflict_offers_the_other_two(store):
    write_memory(store, "rule.md", sync_conflicted_memory())
    plan = curate.plan_keep_sync_side(load_store(store), ["rule.md"], "second")
    assert plan.label == "resolve 1 sync conflict: keep the second text"
    assert plan.options == ("keep the first text", "keep both texts")
    [summary] = plan.summary
    assert "drop: (first, from laptop)" in summary
    assert "keep: (second, from desktop, 2026-05-02 14:03 UTC)" in summary
    apply(store, plan)
    assert (store / "rule.md").read_text() == memory_text(name="rule",
                                                          body="Indent with four spaces.\n")


def test_keeping_a_side_of_a_frontmatter_conflict_sets_it_in_the_frontmatter(store):
    """Sync keeps the newer description in the frontmatter and shows both in the body."""
    from tui.sync.merge import Side, merge_memory

    base = memory_text(name="rule", description="how we indent")
    ours, theirs = (base.replace("how we indent", words) for words in ("tabs", "spaces"))
    merged, conflicted = merge_memory(base.encode(), ours.encode(), theirs.encode(),
                                      Side("laptop", 2.0), Side("desktop", 1.0))
    assert conflicted
    write_memory(store, "rule.md", merged)
    assert load_store(store).memory("rule.md").description == "tabs"
    plan = curate.plan_keep_sync_side(load_store(store), ["rule.md"], "second")
    assert "keep: description: spaces" in plan.summary[0]
    apply(store, plan)
    assert (store / "rule.md").read_text() == theirs


def test_keeping_both_texts_drops_only_the_marker_lines(store):
    write_memory(store, "rule.md", sync_conflicted_memory())
    apply(store, curate.plan_keep_sync_side(load_store(store), ["rule.md"], "both"))
    text = (store / "rule.md").read_text()
    assert "two spaces" in text and "four spaces" in text and "memtui sync" not in text


def test_keeping_a_side_where_there_is_no_conflict_changes_nothing(store):
    write_memory(store, "rule.md", memory_text(name="rule"))
    plan = curate.plan_keep_sync_side(load_store(store), ["rule.md"], "first")
    assert (plan.changes, plan.options) == ((), ())
    assert plan.summary == ["No conflict from memtui sync there."]


def test_a_conflict_an_editor_saved_with_crlf_is_still_one_to_resolve(store):
    """`memtui sync` calls a file with CRLF marker lines unresolved: K must find it too."""
    crlf = sync_conflicted_memory().replace("\n", "\r\n")
    write_memory(store, "rule.md", crlf.encode())
    plan = curate.plan_keep_sync_side(load_store(store), ["rule.md"], "second")
    assert plan.label == "resolve 1 sync conflict: keep the second text"
    [summary] = plan.summary  # a line's CR is its ending, not a character to show as ␍
    assert "  drop: Indent with two spaces.\n" in summary and "\r" not in summary
    apply(store, plan)
    assert (store / "rule.md").read_bytes() == memory_text(
        name="rule", body="Indent with four spaces.\n").replace("\n", "\r\n").encode()


@pytest.mark.parametrize("verb", ["delete", "archive"])
def test_removing_a_memory_another_memory_links_says_that_link_is_left(store, verb):
    import real_shapes

    real_shapes.build(store, "second_level_index")
    make = curate.plan_delete if verb == "delete" else curate.plan_archive
    plan = make(load_store(store), ["topics/topic_03.md"])
    assert any("topics/index.md links topics/topic_03.md" in line and "by hand" in line
               for line in plan.summary), plan.summary
    # the hub itself is not rewritten: its text is the user's
    assert {change.file for change in plan.changes} == {"topics/topic_03.md"}
    nothing = make(load_store(store), ["user_role.md"])
    assert not any("links" in line for line in nothing.summary)
