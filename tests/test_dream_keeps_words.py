"""The offline dream restructures the index without losing a word of it.

Issue 40: wherever the index had to be rebuilt every heading went (61 -> 0), the bullets
under project headings went unlabelled into one notes file, a line pointing at a missing
file was dropped with the only copy of its fact, the shortener cut inside a link (and the
index that hid a memory was refused), and room went to an old untyped note before the
newest feedback memory.
"""

from __future__ import annotations

import random
import re

from conftest import index_line, memory_text, snapshot, write_index, write_memory

from tui.agents.dream import run_dream
from tui.agents.guards import _Sayings, lost_lines
from tui.agents.indexfit import LINE_LIMIT, MemoryInfo, _shorten, rebuild_index
from tui.agents.result import conclude
from tui.memory.index import parse_index
from tui.memory.links import find_links

TYPES = ("user", "feedback", "project", "reference")
HEADING = re.compile(r" {0,3}#{1,6}\s")
WORDS = ["".join(random.Random(seed).choices("abcdefghijklmnopqrstuvwxyz", k=7))
         for seed in range(400)]


def sectioned_store(store, projects: int = 8, per_project: int = 25) -> list[str]:
    """An index of project sections over the room a dream leaves, each heading holding a
    fact (a path, a date) and a prose line under it that says which project it is about."""
    lines = ["# Memory index", ""]
    for project in range(projects):
        lines.append(f"### {project}. agent-{project} (`~/code/agent-{project}`) — "
                     f"fase {project} completa (2026-05-1{project})")
        lines.append(f"Python 3.1{project}, via Telegram Bot API")
        for number in range(per_project):
            file = f"p{project}_{number:02}.md"
            kind = TYPES[number % 4]
            words = " ".join(random.Random(file).sample(WORDS, 6))  # no two alike
            write_memory(store, file, memory_text(file[:-3], f"{words} in agent-{project}",
                                                  kind, f"Fact {number}: {words}.\n"),
                         mtime=1_767_225_600.0 + number)
            lines.append(index_line(file, title=f"agent-{project} #{number}",
                                    hook=f"fact {number} of agent-{project}"))
        lines.append("")
    write_index(store, lines)
    return lines


def heading_above(lines: list[str], position: int) -> str | None:
    return next((line for line in reversed(lines[:position]) if HEADING.match(line)), None)


def test_restructuring_keeps_every_heading_above_its_lines(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    before = sectioned_store(store)
    under = {}  # an index line, or a prose line -> the heading it stood under
    for position, line in enumerate(before):
        if line.strip() and not HEADING.match(line):
            under[line] = heading_above(before, position)

    result = run_dream(store, engine="offline")
    assert not conclude(result, apply=True).refused

    index = (store / "MEMORY.md").read_text().splitlines()
    assert parse_index("\n".join(index)).lines <= 140
    written = {path.name: path.read_text().splitlines() for path in store.glob("*.md")}
    assert {"index_notes.md", "index_project.md", "index_reference.md"} <= set(written)
    for line, heading in under.items():
        places = [(name, lines.index(line)) for name, lines in written.items() if line in lines]
        assert places, f"lost: {line}"
        for name, position in places:  # wherever it is, under the heading it stood under
            assert heading_above(written[name], position) == heading, (name, line)
    assert "# Memory index" in index
    assert all(any(h in lines for lines in written.values())
               for h in before if HEADING.match(h))


def test_a_second_dream_over_a_restructured_sectioned_index_changes_nothing(claude_home,
                                                                           tmp_path):
    store = claude_home.store(tmp_path / "project")
    sectioned_store(store)
    conclude(run_dream(store, engine="offline"), apply=True)
    files = snapshot(store)

    again = run_dream(store, engine="offline")

    assert again.changeset.empty, [diff.file for diff in again.changeset.files]
    conclude(again, apply=True)
    assert {n: d for n, d in snapshot(store).items() if n.endswith(".md")} == \
        {n: d for n, d in files.items() if n.endswith(".md")}


def test_a_line_pointing_at_a_missing_file_keeps_its_words_in_place(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "user_role.md", memory_text("role", "backend engineer", "user"))
    fact = ("- [Security backlog](security_todo.md) — Immediate: revoke GitHub PAT + rotate "
            "passwords + fix SQL injection")
    write_index(store, ["## Security", fact, index_line("user_role.md")])

    result = run_dream(store, engine="offline")

    index = result.changeset.index_after.raw_lines.raw
    assert index == ("## Security\n- Security backlog — Immediate: revoke GitHub PAT + rotate "
                     "passwords + fix SQL injection\n- [user_role](user_role.md) — a memory\n")
    assert result.changeset.notes == (
        "Took the links to missing files out of 1 index line; their words are kept in the index: "
        + fact,)
    done = next(p for p in result.phases if p.name == "Prune and index")
    assert "1 dead link taken out" in done.note


def test_the_shortener_never_cuts_inside_a_link():
    title = "A title long enough to reach far along the line, " * 3
    line = f"- [{title.strip()}](project_long.md) — and a hook after it"
    assert LINE_LIMIT - 10 < len(line.split("](")[0]) < LINE_LIMIT
    short = _shorten(line)
    assert [link.target for link in find_links(short)] == ["project_long.md"]
    assert short.endswith("(project_long.md)…")

    two = "- [First](first.md) and " + "words " * 20 + "then [Second](second.md) — " + "x " * 40
    assert [link.target for link in find_links(_shorten(two))] == ["first.md", "second.md"]
    assert _shorten(two).endswith("then [Second](second.md)…")  # its links end past 150


def test_room_goes_to_the_newest_feedback_before_an_old_untyped_note():
    """README: user and feedback memories first, newest first, whatever was in the cut."""
    memories = [MemoryInfo(f"project_{n:03}.md", f"project {n}", f"fact {n}", "project",
                           1000.0 + n, "x") for n in range(139)]
    memories.append(MemoryInfo("scratch.md", "scratch", "an old note", None, 10.0, "x"))
    memories.append(MemoryInfo("feedback_newest.md", "newest", "tests first", "feedback",
                               9_000.0, "x"))
    index = "\n".join([index_line(m.file) for m in memories[:140]])  # the note in the cut
    rebuild = rebuild_index(index + "\n", memories)

    lines = rebuild.text.splitlines()
    assert "- [newest](feedback_newest.md) — tests first" in lines
    assert not any("](scratch.md)" in line for line in lines)
    assert rebuild.into_hubs == {"index_other.md": ["scratch.md"]} or \
        "scratch.md" in (rebuild.hubs.get("index_other.md") or "")


def test_only_memories_get_a_line_never_a_readme_a_claude_md_or_an_encrypted_file(
        claude_home, tmp_path):
    """Seen on a store that is a git repository: its README.md, a CLAUDE.md copy and an
    OpenSSL-encrypted `*.secret.md` were indexed inside the loaded cut with the hook
    "memory"."""
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "user_role.md", memory_text("role", "backend engineer", "user"))
    write_memory(store, "README.md", "# My memory\n\nSynced with a script.\n")
    write_memory(store, "CLAUDE.md", "# Project rules\n\nUse pnpm.\n")
    write_memory(store, "tokens.secret.md", "U2FsdGVkX19" + "A" * 300 + "\n")
    write_memory(store, "debugging.md", "# Debugging\n\nAttach to port 9229.\n")  # an old topic
    write_index(store, [index_line("user_role.md")])

    result = run_dream(store, engine="offline")

    links = [link.file for link in result.changeset.index_after.links]
    assert links == ["user_role.md", "debugging.md"]
    assert ("Gave no index line to CLAUDE.md, README.md, tokens.secret.md: no memory (no type "
            "or description in its frontmatter, and a repository's document or an encrypted "
            "file).") in result.changeset.notes


def test_a_line_linking_a_folder_of_the_store_is_no_dead_link(claude_home, tmp_path):
    """Seen on a real store: `- [Agent Reference Docs](agents/) — …` was taken for a line
    pointing at a missing file, and the index without its link refused as hiding "agents"."""
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "agents/emmie.md", memory_text("emmie", "the email agent", "reference"))
    write_memory(store, "user_role.md", memory_text("role", "backend engineer", "user"))
    line = "- [Agent Reference Docs](agents/) — Full details for all 12 agents"
    write_index(store, [index_line("user_role.md"), line])

    result = run_dream(store, engine="offline")

    assert line in result.changeset.index_after.raw_lines.raw.splitlines()
    assert result.changeset.held == {}
    assert not any("missing files" in note for note in result.changeset.notes)


def test_the_index_ranks_a_memory_by_the_mtime_it_keeps_not_its_copy_s(claude_home, tmp_path):
    """Found on a real store: a step before the index's (a date, a link rewritten) gave
    the run's copy of a memory the time of the run, so the index ranked it as the newest;
    applied, it kept its old mtime, and the next dream ranked it again and moved lines."""
    from tui.agents import offline
    from tui.agents.staging import Staging

    store = claude_home.store(tmp_path / "project")
    write_memory(store, "note.md", memory_text("note", "a note", None, "Old words.\n"),
                 mtime=1_767_225_600.0)
    staging = Staging.create(store)
    try:
        with staging.step(in_place=True):
            (staging.root / "note.md").write_text(memory_text("note", "a note", None,
                                                              "Old words, written anew.\n"))
        (info,) = offline.memory_infos(staging)
    finally:
        staging.discard()
    assert info.mtime == 1_767_225_600.0


def test_a_line_whose_links_run_past_150_characters_is_cut_once(claude_home, tmp_path):
    """A line whose last link ends past the limit is cut just after it; a second dream found
    it long again and gave its memory a second "From the index: …"."""
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "day.md", memory_text("2026-06-24", "the day", "project", "A day.\n"))
    write_memory(store, "wb-search.md", memory_text("wb-search", "a skill", "reference"))
    line = ("[[2026-06-24]] Goldapple.by blocks direct requests: " + "a plain curl gets an "
            "empty shell, " * 6 + "see [[wb-search]] skill, and the long tail after it.")
    write_index(store, [line, index_line("wb-search.md")])
    conclude(run_dream(store, engine="offline"), apply=True)
    first = snapshot(store)
    assert (store / "day.md").read_text().count("From the index: ") == 1

    again = run_dream(store, engine="offline")

    assert again.changeset.empty, [d.file for d in again.changeset.files]
    conclude(again, apply=True)
    assert {n: d for n, d in snapshot(store).items() if n.endswith(".md")} == \
        {n: d for n, d in first.items() if n.endswith(".md")}


def test_a_line_the_dream_writes_links_a_name_with_spaces_and_an_apostrophe(claude_home,
                                                                           tmp_path):
    """Seen on a vault: `[1001029 - JAVI'S ROOFING INC](Contacts/…/1001029 - JAVI'S ROOFING
    INC.md)` reads as no link (the rest of the name taken for a title), so the next dream
    listed those 153 memories again and kept the old lines as prose."""
    store = claude_home.store(tmp_path / "project")
    name = "Contacts/Contractors/1001029 - JAVI'S ROOFING (INC) #6 100%.md"
    write_memory(store, name, memory_text("javis", "[roofing] contractor", "reference"))
    write_index(store, [])
    conclude(run_dream(store, engine="offline"), apply=True)

    index = (store / "MEMORY.md").read_text()
    assert ("](Contacts/Contractors/1001029%20-%20JAVI'S%20ROOFING%20%28INC%29%20%236%20100%25.md)"
            in index)
    assert [link.file for link in parse_index(index).links] == [name]
    assert run_dream(store, engine="offline").changeset.empty


def test_lines_kept_in_other_words_are_found_past_the_guards_first_questions():
    """The guards answer their first questions by a scan of the text and the rest through
    an index of words: either way a line whose words stand in order in one line is kept,
    and one whose words are split over two lines, or out of order, is lost."""
    asked = _Sayings.SCANS * 2
    lines = {n: f"- the {WORDS[n]} deploy waits for {WORDS[n + 1]}" for n in range(asked)}
    before = {f"note_{n:03}.md": lines[n] + "\n" for n in range(asked)}  # asked in this order
    lost = {0: "split", 1: "swapped", asked - 2: "split", asked - 1: "swapped"}
    said = []
    for n in range(asked):
        if lost.get(n) == "split":
            said.append(f"the {WORDS[n]} deploy\nwaits for {WORDS[n + 1]}")
        elif lost.get(n) == "swapped":
            said.append(f"{WORDS[n + 1]} waits for the {WORDS[n]} deploy")
        else:
            said.append(f"Since May the {WORDS[n]} deploy still waits, as ever, for "
                        f"{WORDS[n + 1]}.")
    before["summary.md"] = "# summary\n"
    after: dict[str, str | None] = dict.fromkeys(before)
    after["summary.md"] = "# summary\n" + "\n".join(said) + "\n"
    assert lost_lines(before, after, {}) == {f"note_{n:03}.md": [lines[n]] for n in lost}
