"""The offline engine: a dream on a big, overgrown store and extraction of instructions."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import re

import pytest
from conftest import (
    index_line,
    memory_saved_record,
    memory_text,
    snapshot,
    tool_use_record,
    user_record,
    write_index,
    write_memory,
)

from tui.agents.dream import run_dream
from tui.agents.extract import run_extract
from tui.agents.result import SKIPPED, SUCCEEDED, conclude
from tui.memory.audit import memory_statuses
from tui.memory.index import MAX_LINES, parse_index
from tui.memory.store import load_store

TOPICS = ["deploy", "testing", "database", "frontend", "auth", "billing", "search", "queue",
          "cache", "logging", "metrics", "email", "mobile", "payments", "exports", "imports",
          "reports", "alerts", "backups", "docs", "i18n", "pdf", "uploads"]
WORDS = ["".join(random.Random(seed).choices("abcdefghijklmnopqrstuvwxyz", k=7))
         for seed in range(400)]
TYPES = ["user", "feedback", "project", "reference"]


def body_lines(store) -> list[str]:
    lines = []
    for memory in load_store(store).memories:
        lines.extend(line.strip() for line in memory.body.splitlines() if line.strip())
    return lines


@pytest.fixture
def big_store(claude_home, tmp_path):
    """240 memories, 12 pairs of near-duplicates, a 500-line index with long and dangling
    lines, and a few relative dates."""
    store = claude_home.store(tmp_path / "project")
    base = dt.datetime(2026, 3, 10, 12).timestamp()
    index = []
    for number in range(240):
        topic = TOPICS[number % len(TOPICS)]
        file = f"{TYPES[number % 4]}_{topic}_{number}.md"
        words = " ".join(random.Random(number).sample(WORDS, 8))
        body = (f"Fact {number}: {words}.\n"
                f"**Why:** {' '.join(reversed(words.split()))} on the {topic} side.\n"
                f"**How to apply:** check port {8000 + number} first.\n")
        write_memory(store, file, memory_text(file[:-3], f"{topic} fact {number}",
                                              TYPES[number % 4], body),
                     mtime=base + number * 60)
        hook = f"{topic} detail {number} " + "with a very long explanation " * 6
        index.append(f"- [{topic} {number}]({file}) — {hook}")
    for pair in range(12):  # near-duplicates, one line apart
        file = f"project_dup_{pair}.md"
        words = random.Random(1000 + pair).sample(WORDS, 6)
        body = (f"The release train {words[0]} leaves every Tuesday at ten from {words[1]}.\n"
                f"**Why:** QA needs a stable build for {words[2]} and {words[3]}.\n"
                f"**How to apply:** merge before Monday night into {words[4]} {words[5]}.\n")
        write_memory(store, file, memory_text(f"release train {pair}", f"release train {pair}",
                                              "project", body), mtime=base)
        write_memory(store, f"project_dup_{pair}_again.md",
                     memory_text(f"release train {pair} again", f"release train {pair}",
                                 "project",
                                 body + f"Also: hotfixes for train {pair} skip the queue.\n"),
                     mtime=base)
        index.append(f"- [dup {pair}]({file}) — release train {pair}")
    write_memory(store, "project_dated_2026-03-10.md", memory_text(
        "dated", "the freeze", "project", "We froze the schema yesterday.\n"),
        mtime=dt.datetime(2026, 3, 10, 12).timestamp())
    index += [f"- [gone {n}](gone_{n}.md) — deleted long ago" for n in range(30)]
    index += ["# Old notes"] + [f"- note line {n}" for n in range(200)]
    write_index(store, index)
    return store


def test_offline_dream_fits_the_index_and_loses_no_fact(big_store):
    original_lines = body_lines(big_store)
    hooks = [line.split(") — ", 1)[1] for line in (big_store / "MEMORY.md").read_text().splitlines()
             if ") — " in line and "gone_" not in line]
    assert parse_index((big_store / "MEMORY.md").read_text()).cut == "both"

    result = run_dream(big_store, engine="offline")
    assert result.status == SUCCEEDED, result.error
    assert [p.status for p in result.phases] == ["done"] * 4
    outcome = conclude(result, apply=True)
    assert not outcome.refused

    store = load_store(big_store)
    index = parse_index(store.index_text)
    # Room is left for new entries: 70% of each limit, as Claude Code asks of a rewrite.
    assert index.cut is None and index.lines <= 140 and index.chars <= 17_500
    assert all(len(line) <= 150 for line in store.index_text.splitlines())
    files = {m.file for m in store.memories}
    assert all(link.file in files for link in index.links), "no dangling link is left"
    assert len(index.links) > 100
    notes = (big_store / "index_notes.md").read_text()
    assert all(f"- note line {n}\n" in notes for n in range(200))

    everything = "\n".join(m.path.read_text() for m in store.memories)
    expected = [line.replace("yesterday", "2026-03-09") for line in original_lines]
    missing = [line for line in expected if line not in everything]
    assert missing == []
    assert "yesterday" not in everything
    kept_anywhere = everything + store.index_text
    assert [hook for hook in hooks if hook.strip() not in kept_anywhere] == []

    # Each first copy says nothing its longer twin does not: it goes, its index line now
    # points at the twin.
    archived = {d.file for d in result.changeset.files if d.kind == "archived"}
    assert archived == {f"project_dup_{n}.md" for n in range(12)}
    # What MEMORY.md has no room for is listed in hubs it links: no memory is left out.
    statuses = memory_statuses(store)
    assert [file for file, status in statuses.items()
            if not (status.visible or status.linked_from)] == []
    assert any(status.linked_from for status in statuses.values())
    # A line pointing at a missing file keeps its words, its link taken out.
    dangling_note = next(n for n in result.changeset.notes if "missing files" in n)
    assert dangling_note.startswith("Took the links to missing files out of 30 index lines; "
                                    "their words are kept in the index: - [gone 0](gone_0.md)")
    assert all(f"- gone {n} — deleted long ago\n" in notes for n in range(30))


def crowded_store(claude_home, tmp_path, seen: int, past_cut: int, without_line: int):
    """`seen` memories indexed inside the cut, blank lines enough to push `past_cut` more
    entries past line 200, and `without_line` memories no line names."""
    store = claude_home.store(tmp_path / "project")
    names = ([f"seen_{n:03}" for n in range(seen)] + [f"late_{n:03}" for n in range(past_cut)]
             + [f"bare_{n:03}" for n in range(without_line)])
    for number, name in enumerate(names):
        words = " ".join(random.Random(number).sample(WORDS, 8))  # no two alike: none merged
        write_memory(store, f"{name}.md", memory_text(name, f"about {name}", "project",
                                                      f"Fact {number}: {words}.\n"),
                     mtime=1_767_225_600.0)  # all as new: kept in index order while room lasts
    lines = [index_line(f"seen_{n:03}.md", hook=f"about {n}") for n in range(seen)]
    lines += [""] * (MAX_LINES - len(lines))
    lines += [index_line(f"late_{n:03}.md", hook=f"about {n}") for n in range(past_cut)]
    write_index(store, lines)
    return store


def test_offline_dream_leaves_room_so_the_doctor_finds_the_index_ok(claude_home, tmp_path,
                                                                     capsys):
    """Issue: the dream filled the index to 200 lines and the doctor warned right after,
    suggesting a dream again. It leaves 70% of each limit, as Claude Code asks."""
    from tui import cli

    store = crowded_store(claude_home, tmp_path, seen=100, past_cut=90, without_line=10)
    outcome = conclude(run_dream(store, engine="offline"), apply=True)
    assert not outcome.refused

    index = parse_index((store / "MEMORY.md").read_text())
    assert (index.lines, index.cut) == (140, None)
    assert cli.main(["--config-dir", str(claude_home.home), "doctor", str(store), "--json"]) in (0, 1)
    checks = {check["id"]: check for check in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["index_size"]["status"] == "ok", checks["index_size"]["message"]


def test_the_note_says_the_lines_past_the_cut_and_the_memories_without_one_went_into_a_hub(
        claude_home, tmp_path):
    """Issue: the note said memories "stay unindexed" when the dream had removed their
    lines from past the cut. Those lines, and the memories that had none, now go into a
    hub MEMORY.md links, and the note says so: Claude reaches them, as it did not before."""
    store = crowded_store(claude_home, tmp_path, seen=100, past_cut=90, without_line=10)
    result = run_dream(store, engine="offline")
    # 100 seen + 39 newest past the cut + the hub's line = 140 lines.
    listed = [f"late_{n:03}.md" for n in range(39, 90)] + [f"bare_{n:03}.md" for n in range(10)]
    assert ("Listed 61 memories Claude did not reach (a line past the cut, or none) in "
            "index_project.md, which MEMORY.md links, as MEMORY.md has no room for them within "
            "140 lines / 17,500 characters, the 70% of the limits a dream leaves for new "
            "entries: " + ", ".join(listed[:5]) + " and 56 more") in result.changeset.notes
    assert not any("unindexed" in note for note in result.changeset.notes)
    conclude(result, apply=True)
    statuses = memory_statuses(load_store(store))
    assert {file for file, status in statuses.items()
            if status.linked_from == "index_project.md"} == set(listed)


def test_lines_claude_sees_move_into_a_hub_past_the_room_and_the_note_says_so(claude_home,
                                                                              tmp_path):
    store = crowded_store(claude_home, tmp_path, seen=170, past_cut=40, without_line=5)
    result = run_dream(store, engine="offline")
    assert result.changeset.hides == ()
    conclude(result, apply=True)
    after = parse_index((store / "MEMORY.md").read_text())
    # 139 lines and one for the hub: the last 31 (all equally new) moved, whole.
    assert [link.file for link in after.links] == \
        [f"seen_{n:03}.md" for n in range(139)] + ["index_project.md"]
    hub = (store / "index_project.md").read_text()
    assert all(f"{index_line(f'seen_{n:03}.md', hook=f'about {n}')}\n" in hub
               for n in range(139, 170))
    moved = ", ".join(f"seen_{n:03}.md" for n in range(139, 144)) + " and 26 more"
    assert ("Moved 31 index lines into index_project.md, which MEMORY.md links (Claude still "
            "reaches them), to keep MEMORY.md within 140 lines / 17,500 characters: "
            + moved) in result.changeset.notes
    assert not any("keeps" in note for note in result.changeset.notes)


def test_offline_dream_ranks_the_rest_user_and_feedback_first(big_store):
    """After what Claude already sees, the room left goes to user and feedback memories
    before project and reference ones."""
    before = parse_index((big_store / "MEMORY.md").read_text())
    seen = {link.file for link in before.links if link.visible}
    result = run_dream(big_store, engine="offline")
    conclude(result, apply=True)
    store = load_store(big_store)
    visible = {link.file for link in store.index.links if link.visible}
    # index_notes.md holds the notes that sat in the index: it ranks with what Claude saw.
    newcomers = [m for m in store.memories if m.file not in seen | {"index_notes.md"}
                 and not m.file.startswith("index_")]  # the hubs that list the rest
    ranks = {"user": 0, "feedback": 0, "project": 1, "reference": 1}
    got_in = [ranks.get(m.type, 2) for m in newcomers if m.file in visible]
    left_out = [ranks.get(m.type, 2) for m in newcomers if m.file not in visible]
    assert got_in and left_out
    assert max(got_in) <= min(left_out)


def test_daily_log_dates_use_the_logs_own_date(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "logs/2026/02/2026-02-03.md", "- 10:00 deploy failed yesterday\n")
    result = run_dream(store, engine="offline")
    conclude(result, apply=True)
    assert (store / "logs/2026/02/2026-02-03.md").read_text() == "- 10:00 deploy failed 2026-02-02\n"


def test_the_note_on_daily_logs_left_for_a_model_agrees_with_their_count(claude_home, tmp_path):
    one, two = (claude_home.store(tmp_path / name) for name in ("one", "two"))
    for store, days in ((one, ["03"]), (two, ["03", "04"])):
        for day in days:
            write_memory(store, f"logs/2026/02/2026-02-{day}.md", "- 10:00 deployed\n")
    assert "1 daily log needs a model to distill it: run with --engine anthropic." in \
        run_dream(one, engine="offline").notes
    assert "2 daily logs need a model to distill them: run with --engine anthropic." in \
        run_dream(two, engine="offline").notes


def test_dates_never_count_from_the_frontmatter_modified_date_nor_the_mtime(claude_home, tmp_path):
    """`modified` and the mtime say when the file was last touched, not when a sentence in
    it was written: a date with no other witness is left as written, and the run says so."""
    store = claude_home.store(tmp_path / "project")
    text = memory_text("freeze", "the freeze", "project", "The freeze was moved to tomorrow.\n",
                       form="nested")  # modified: 2026-01-02
    write_memory(store, "project_freeze.md", text, mtime=dt.datetime(2026, 5, 5).timestamp())
    result = run_dream(store, engine="offline")
    conclude(result, apply=True)
    assert (store / "project_freeze.md").read_text() == text
    assert any("project_freeze.md line 11: left 'tomorrow' as written: nothing says which day"
               in line.text for line in result.log)


def _session(claude_home, tmp_path, *records):
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    return claude_home.session(cwd, *records)


def test_offline_extract_turns_instructions_into_memories(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    cwd = str(tmp_path / "project")
    transcript = _session(
        claude_home, tmp_path,
        user_record(cwd, "Please fix the build."),
        user_record(cwd, "Never push to main directly because CI deploys from it."),
        user_record(cwd, "以后统一用 pnpm 安装依赖，因为锁文件是 pnpm 的。"),
        user_record(cwd, "What time is it?"),
    )
    result = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                         engine="offline")
    assert result.status == SUCCEEDED, result.error
    created = {d.file: d.after.decode() for d in result.changeset.files
               if d.kind == "created" and d.file != "MEMORY.md"}
    assert len(created) == 2
    english = next(t for t in created.values() if "Never push" in t)
    assert "type: feedback" in english
    assert "**Why:** CI deploys from it" in english and "**How to apply:**" in english
    chinese = next(t for t in created.values() if "pnpm" in t)
    assert "**Why:** 锁文件是 pnpm 的" in chinese
    index = next(d for d in result.changeset.files if d.file == "MEMORY.md").after.decode()
    assert all(f"({file})" in index for file in created)

    conclude(result, apply=True)
    again = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                        engine="offline")
    assert again.changeset.empty  # the cursor moved past what was applied
    assert os.path.exists(store / next(iter(created)))


def test_extract_skips_a_range_where_the_agent_wrote_memory_unless_forced(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    cwd = str(tmp_path / "project")
    transcript = _session(claude_home, tmp_path,
                          user_record(cwd, "Always write tests first."),
                          memory_saved_record([str(store / "feedback_tests.md")]))
    skipped = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                          engine="offline")
    assert skipped.status == SKIPPED and "feedback_tests.md" in skipped.error
    assert "--force" in skipped.error
    forced = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                         engine="offline", force=True)
    assert forced.status == SUCCEEDED
    assert any(re.search("Always write tests first", (d.after or b"").decode())
               for d in forced.changeset.files)


def test_an_offline_dream_never_hides_a_memory_claude_sees_now(claude_home, tmp_path):
    """Memories are ranked by type to fit, and what does not fit moves into a hub: every
    memory Claude could reach before is still reached, and every line left in MEMORY.md is
    still inside the loaded cut. The whole change set is applied: the rule holds of what
    the dream writes, not only thanks to the review leaving out an index that hides."""
    from tui.memory.audit import memory_statuses

    def reached(store):
        return {file for file, status in memory_statuses(load_store(store)).items()
                if status.visible or status.linked_from}

    store = crowded_store(claude_home, tmp_path, seen=170, past_cut=40, without_line=5)
    write_memory(store, "seen_001.md", memory_text(  # reached only through a memory
        "seen_001", "about seen_001", "project", "Fact: see [the other](linked_only.md).\n"))
    write_memory(store, "linked_only.md", memory_text("linked_only", "reached by a link"))
    before = parse_index((store / "MEMORY.md").read_text())
    reachable = reached(store)
    assert "linked_only.md" in reachable and len(reachable) == 171

    result = run_dream(store, engine="offline")
    conclude(result, apply=True, only={diff.file for diff in result.changeset.files})

    after = parse_index((store / "MEMORY.md").read_text())
    assert reachable <= reached(store)
    kept = {link.file for link in after.links} & {link.file for link in before.links}
    assert kept and all(link.visible for link in after.links if link.file in kept)


def test_extraction_updates_the_memory_already_on_the_topic(claude_home, tmp_path):
    """Two memories about pnpm exist: a third instruction about pnpm goes into one of them,
    not into a third file (issue: a near-copy was added past the cut)."""
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "feedback_pnpm.md", memory_text(
        "pnpm", "Use pnpm, never npm", "feedback", "Use pnpm for installs.\n"))
    write_memory(store, "project_ci.md", memory_text("ci", "CI runs on GitHub Actions", "project"))
    write_index(store, [index_line("feedback_pnpm.md"), index_line("project_ci.md")])
    cwd = str(tmp_path / "project")
    transcript = _session(claude_home, tmp_path,
                          user_record(cwd, "Always run pnpm install with --frozen-lockfile "
                                           "because CI checks the lock file."))

    result = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                         engine="offline")

    changed = {d.file: d for d in result.changeset.files}
    assert set(changed) == {"feedback_pnpm.md"}
    assert changed["feedback_pnpm.md"].kind == "modified"
    after = changed["feedback_pnpm.md"].after.decode()
    assert after.startswith((store / "feedback_pnpm.md").read_text())
    assert "--frozen-lockfile" in after and "**Why:** CI checks the lock file" in after


def _extracted(claude_home, tmp_path, store, text: str, *records, force: bool = False):
    cwd = str(tmp_path / "project")
    transcript = _session(claude_home, tmp_path, user_record(cwd, text), *records)
    result = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                         engine="offline", force=force)
    assert result.status == SUCCEEDED, result.error
    return {d.file: d for d in result.changeset.files}, result.changeset.notes


def test_a_rule_its_own_turn_saved_is_remembered_already(claude_home, tmp_path):
    """The agent wrote feedback_linter.md right after the user said the rule, in its own
    words: `memtui extract --force` (the doctor's fix) appended the rule to it again."""
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "feedback_linter.md", memory_text(
        "Run the linter before finishing", "Always run `pnpm lint` before saying a task is done",
        "feedback"))
    write_index(store, [index_line("feedback_linter.md")])
    cwd = str(tmp_path / "project")

    changed, notes = _extracted(
        claude_home, tmp_path, store, "remember to always run the linter before you tell me "
        "you're done", tool_use_record(cwd, "Write", str(store / "feedback_linter.md")),
        force=True)

    assert changed == {}
    assert ("Nothing new worth a memory: 1 rule in these messages is remembered already, so "
            "nothing is written.") in notes


def test_a_word_a_description_happens_to_share_makes_no_topic(claude_home, tmp_path):
    """"Always run cargo clippy before committing" went into the snapshot-tests memory,
    whose description says "reviewed with cargo insta"."""
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "feedback_snapshots.md", memory_text(
        "Snapshot tests", "CLI output is tested with insta snapshots, reviewed with cargo insta",
        "feedback", "Run `cargo insta review` before committing the .snap files.\n"))
    write_index(store, [index_line("feedback_snapshots.md")])

    changed, _ = _extracted(claude_home, tmp_path, store,
                            "Always run cargo clippy before committing.")

    assert "feedback_snapshots.md" not in changed
    assert [d.kind for file, d in changed.items() if file != "MEMORY.md"] == ["created"]


def test_a_rule_on_a_topic_many_memories_mention_goes_into_the_memory_named_for_it(
        claude_home, tmp_path):
    """pnpm is in many memories' bodies, so it was no topic at all: a third pnpm memory."""
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "feedback_pnpm.md", memory_text(
        "Use pnpm", "Use pnpm, never npm or yarn, in this repository", "feedback",
        "The lockfile is pnpm's.\n"))
    for number in range(4):
        write_memory(store, f"feedback_step_{number}.md", memory_text(
            f"step {number}", f"how step {number} is checked", "feedback",
            f"Check step {number} with `pnpm test:{number}`.\n"))
    write_index(store, [index_line(f"feedback_step_{n}.md") for n in range(4)]
                + [index_line("feedback_pnpm.md")])

    changed, _ = _extracted(claude_home, tmp_path, store,
                            "Always run scripts through pnpm, never bare node.")

    assert set(changed) == {"feedback_pnpm.md"}
    assert ("\n\nAlways run scripts through pnpm, never bare node.\n\n"
            in changed["feedback_pnpm.md"].after.decode())


def test_the_offline_dream_keeps_links_to_memories_in_subfolders_and_logs(claude_home, tmp_path):
    """Claude Code's scan is recursive: `topics/x.md` is a memory, not a dangling link, and
    a line pointing at a daily log is kept as it is."""
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "topics/deploy.md", memory_text("deploy", "how we deploy", "project"))
    write_memory(store, "topics/billing.md", memory_text("billing", "invoices", "project"))
    write_memory(store, "logs/2026/03/2026-03-02.md", "- 10:00 deployed\n")
    write_index(store, [index_line("topics/deploy.md"), "- [Log](logs/2026/03/2026-03-02.md)"])

    result = run_dream(store, engine="offline")
    conclude(result, apply=True)

    index = (store / "MEMORY.md").read_text()
    assert "(topics/deploy.md)" in index and "(logs/2026/03/2026-03-02.md)" in index
    assert "(topics/billing.md)" in index  # the unindexed one gets its line
    assert not any("missing files" in note for note in result.changeset.notes)


def test_the_offline_dream_keeps_the_line_of_a_memory_linked_in_from_outside(claude_home,
                                                                            tmp_path):
    """A shared note symlinked into the store is read through its link: its index line is
    no dangling line, and the dream (which never writes through a link) keeps it; a link
    that leads nowhere is dangling."""
    store = claude_home.store(tmp_path / "project")
    shared = tmp_path / "shared" / "style.md"
    shared.parent.mkdir()
    shared.write_text(memory_text("style", "the house style", "feedback"))
    (store / "shared_style.md").symlink_to(shared)
    (store / "broken.md").symlink_to(tmp_path / "nowhere.md")
    write_memory(store, "user_role.md", memory_text("role", "backend", "user"))
    write_index(store, [index_line("user_role.md"), index_line("shared_style.md"),
                        index_line("broken.md")])

    result = run_dream(store, engine="offline")

    assert [link.file for link in result.changeset.index_after.links] == [
        "user_role.md", "shared_style.md"]
    assert result.changeset.notes == ("Took the links to missing files out of 1 index line; "
                                      "their words are kept in the index: "
                                      "- [broken](broken.md) — a memory",)
    assert result.changeset.index_after.raw_lines.raw.endswith("\n- broken — a memory\n")


def test_the_run_counts_new_messages_as_the_session_picker_does(claude_home, tmp_path):
    """The picker said 3 new messages and the run 9 on a real session: tool-only turns,
    which the model never reads, were counted by the run alone."""
    from tui.app.runs import project_sessions
    from tui.claude.discovery import discover

    claude_home.store(tmp_path / "project")
    cwd = str(tmp_path / "project")
    transcript = _session(claude_home, tmp_path, user_record(cwd, "Always write tests first."),
                          tool_use_record(cwd, "Read", str(tmp_path / "project" / "a.py")),
                          tool_use_record(cwd, "Read", str(tmp_path / "project" / "b.py")),
                          user_record(cwd, "And keep them fast."))
    [project] = discover(claude_home.home, claude_home.env).projects
    [listed] = project_sessions(project)
    assert listed.new_messages == 3  # the session's opening "hello" and the two above

    result = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                         engine="offline")
    assert result.status == SUCCEEDED, result.error
    said = [line.text for line in result.log if line.phase == "Read"]
    assert "3 messages since the last extraction" in said


def _extracted_rule(claude_home, tmp_path):
    """A session stating a rule, extracted offline and applied: (store, cwd, transcript,
    the run's result)."""
    store = claude_home.store(tmp_path / "project")
    cwd = str(tmp_path / "project")
    transcript = _session(claude_home, tmp_path,
                          user_record(cwd, "Never push to main directly because CI deploys from it."))
    result = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                         engine="offline")
    conclude(result, apply=True)
    return store, cwd, transcript, result


def test_undoing_an_extraction_puts_its_messages_back_to_be_extracted(claude_home, tmp_path):
    """After `u`, the picker said "none" new messages: what the undone run had learned
    could never be extracted again."""
    from tui.agents.changeset import undo_changeset

    store, _, transcript, first = _extracted_rule(claude_home, tmp_path)
    applied = snapshot(store)
    assert undo_changeset(store) is not None
    assert snapshot(store) != applied

    again = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                        engine="offline")
    assert again.status == SUCCEEDED, again.error
    assert [d.after for d in again.changeset.files] == [d.after for d in first.changeset.files]


def test_undo_leaves_a_cursor_a_later_extraction_moved(claude_home, tmp_path):
    from tui.agents.changeset import undo_changeset
    from tui.agents.conversation import read_cursor

    store, cwd, transcript, _ = _extracted_rule(claude_home, tmp_path)
    with transcript.open("a") as log:  # the session went on; a run with nothing to save
        log.write(json.dumps(user_record(cwd, "What time is it?")) + "\n")
    conclude(run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                         engine="offline"), apply=True)
    moved = read_cursor(transcript.stem)
    undo_changeset(store)
    assert read_cursor(transcript.stem) == moved


def test_cursor_notes_stay_bounded_and_undo_still_restores_the_cursor(claude_home, tmp_path):
    """Each applied extraction leaves a note to move its cursor back on undo; without a
    bound they piled up in the state dir forever."""
    from tui import xdg
    from tui.agents.changeset import undo_changeset
    from tui.agents.conversation import read_cursor, remember_cursor_before
    from tui.agents.undo_notes import KEPT as CURSOR_NOTES_KEPT

    store, cwd, transcript, _ = _extracted_rule(claude_home, tmp_path)
    first_cursor = read_cursor(transcript.stem)
    assert first_cursor is not None
    # many extractions of other sessions applied since
    for n in range(2 * CURSOR_NOTES_KEPT):
        remember_cursor_before([f"older-{n}"], f"other-{n}", "x")
    notes = xdg.state_dir() / "cursor-before"
    assert len(list(notes.iterdir())) <= CURSOR_NOTES_KEPT

    with transcript.open("a") as log:
        log.write(json.dumps(user_record(
            cwd, "Always run the linter before committing because CI rejects lint errors.")) + "\n")
    second = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                         engine="offline")
    assert second.changeset and not second.changeset.empty
    conclude(second, apply=True)
    assert read_cursor(transcript.stem) != first_cursor
    assert len(list(notes.iterdir())) <= CURSOR_NOTES_KEPT

    assert undo_changeset(store) is not None
    assert read_cursor(transcript.stem) == first_cursor


def test_redoing_an_undone_extraction_moves_its_cursor_on_again(claude_home, tmp_path):
    """Redo puts back what the extraction wrote and where it had read to: the next run
    finds nothing new, as after the extraction itself."""
    from tui.agents.changeset import redo_changeset, undo_changeset
    from tui.agents.conversation import read_cursor

    store, _, transcript, _ = _extracted_rule(claude_home, tmp_path)
    applied, extracted_to = snapshot(store), read_cursor(transcript.stem)
    assert undo_changeset(store) is not None
    assert read_cursor(transcript.stem) != extracted_to

    assert redo_changeset(store).startswith("redo extract ")
    assert snapshot(store) == applied and read_cursor(transcript.stem) == extracted_to
    again = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                        engine="offline")
    assert again.changeset is None or again.changeset.empty

    assert undo_changeset(store) is not None  # the redo's undo moves it back once more
    assert read_cursor(transcript.stem) != extracted_to
