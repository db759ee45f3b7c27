"""Our prompts for runs, written from the rules of Claude Code's memory format.

Each phase gets one instruction; the system prompt states the format and the sandbox.
"""

from __future__ import annotations

FORMAT_RULES = """\
A memory store is a directory of Markdown files, one memory per file, plus an index,
MEMORY.md. Each memory file starts with a YAML block holding `name`, `description` (one
line that says when the memory is useful) and `type`: one of user (who the user is),
feedback (how the user wants the work done: corrections and approaches they confirmed),
project (goals, decisions, incidents that the code and git history do not show) or
reference (where outside information lives). Keep unknown frontmatter keys as they are.
For feedback and project memories the body states the rule or fact first, then a line
`**Why:** ...` and a line `**How to apply:** ...`.
The index holds one line per memory, `- [Title](file.md) — short hook`, under 150
characters, and no memory content. Only its first 200 lines and 25,000 characters are
ever read, so anything past that is invisible.
Do not store what the repository or git already records, step-by-step fix recipes, or
short-lived task state. Write dates as absolute dates (YYYY-MM-DD), never "yesterday".
"""

SANDBOX_RULES = """\
You work on a copy of the store through the tools given; paths are relative to the store.
You cannot run commands. Nothing you write is applied until a person reviews it, so say
plainly what you changed and why. Deleting a file archives it; prefer merging over
deleting, and never drop a fact unless a newer one contradicts it.
"""


def dream_system(today: str) -> str:
    return (
        "You tidy up a long-lived memory store that an AI coding assistant reads at the "
        f"start of every session. Today is {today}.\n\n{FORMAT_RULES}\n{SANDBOX_RULES}"
    )


ORIENT = """\
Phase 1 of 4, orient. Get to know the store: list it, read MEMORY.md and look over the
memory files (and any daily logs under logs/ or sessions/). Do not change anything yet.
Finish with a few lines on what the store holds and what looks wrong.
Facts measured by memtui:
{facts}"""

STALE_PATHS = """

Paths of the project's code that these memories mention and that are gone from the
checkout {checkout} (memtui checked them against git's files and history). In the
consolidate phase write each renamed path as its new path; a deleted path's fact is
probably outdated: keep it only if it still holds without the file.
{paths}"""

GATHER = """\
Phase 2 of 4, gather. Collect what is new since the last consolidation: daily logs first,
then memories that may no longer match the project, then at most a few narrow
transcript searches for specific facts you need to confirm (never broad ones). Do not
change anything yet. Finish with a short list of what should change.
Daily logs written since the last consolidation:
{logs}"""

CONSOLIDATE = """\
Phase 3 of 4, consolidate. Make the changes: fold near-duplicate memories into one file
(keeping every fact of both), replace relative dates with absolute ones, remove facts
that newer information contradicts, and add memories for important new facts. Finish
with one line per file you changed."""

PRUNE = """\
Phase 4 of 4, prune and index. Rewrite MEMORY.md so that every memory worth loading has
one line under 150 characters, no line points at a missing file, and the whole index
stays under 140 lines and 17,500 characters, leaving room for the entries added at its
end before the next tidy-up; move detail from long lines into their topic files. If
the lines still do not fit, keep the most useful in MEMORY.md and move the others, whole,
into a hub: a reference memory (say index_project.md) listing their lines, which MEMORY.md
links in one line saying what it holds. Never drop a memory the index names now without
such a link. Finish with a two-line summary of the run, or say that nothing needed
changing."""

CORRECT_INDEX = """\
MEMORY.md is still {lines} lines and {chars} characters (limits: 200 lines, 25,000
characters, 150 characters a line). Rewrite it under 140 lines and 17,500 characters now,
keeping a link to every memory it names, in it or in a hub it links."""


def extract_system(today: str, turns: int) -> str:
    return (
        "You read part of a conversation between a user and an AI coding assistant and "
        "save what is worth remembering for future sessions in the memory store. "
        f"Today is {today}.\n\n{FORMAT_RULES}\n{SANDBOX_RULES}\n"
        f"You have at most {turns} turns. First call plan_topics with every topic worth "
        "saving, then read the files you need in one turn, then write everything in the "
        "next, naming the topic of each write. Update an existing memory rather than "
        "adding a near-duplicate, and add an index line for each new file."
    )


EXTRACT = """\
Existing memory files (type, file, description):
{manifest}

The conversation since the last extraction:
{conversation}"""

EXTRACT_FOCUS = """

This pass is focused: save only the topics below from the conversation above (typically \
the ones an earlier pass ran out of turns for), name each write with its topic exactly as \
listed, and leave everything else in the conversation alone. Plan only these topics:
{topics}"""
