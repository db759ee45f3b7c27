"""Memories promoted to the user's own CLAUDE.md, which Claude Code loads in every session.

A promoted memory is a short `##` section appended to `<config home>/CLAUDE.md`: its rule
(the body's first paragraph, else its description), then its Why and How to apply. Two
HTML comment lines, each a block of its own, mark where the section starts and ends, so
that `demote` finds exactly the bytes `promote` added. Claude Code strips block-level HTML
comments from CLAUDE.md before it injects the file (v2.1.72+, documented on the memory
page), so the markers cost no context at session start.

Promote only appends (a blank line, then the section); demote removes the section and the
blank line before it, and no other byte. Both are plans of `FileChange`s on the config home,
written through the safe write like any store's change. A CLAUDE.md kept as a symlink (into
a dotfiles repo) is written through it (`FileChange.follow`): the file it leads to is
replaced in its own folder and the link stays a link.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tui.memory.curate import Plan, index_line, place_inside_cut, read_index, title_of
from tui.memory.frontmatter import parse
from tui.memory.rationale import HOW_TO_APPLY, WHY, scanned_labels
from tui.memory.refusals import WriteRefused
from tui.memory.store import Memory, Store
from tui.memory.writes import FileChange, read_bytes

USER_MEMORY_NAME = "CLAUDE.md"
_START = re.compile(r"^<!-- memtui promoted: (?P<name>.+?)(?: (?P<kept>\{.*\}))? -->[ \t\r]*$",
                    re.MULTILINE)
KEPT_KEYS = ("name", "description", "type")  # of the frontmatter, kept in the marker for demote
_END = "<!-- memtui end: {name} -->"
_BLANK = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class Section:
    """One promoted section of CLAUDE.md: its bytes are text[start:end]."""

    name: str  # the memory's file name without .md, as the marker holds it
    kept: dict[str, str]  # its frontmatter's name, description and type, as promoted
    heading: str
    body: str  # what follows the heading, without the markers
    start: int  # where the blank line before the start marker begins (or the marker)
    end: int  # just past the end marker's line ending


def user_memory_file(home: Path) -> Path:
    return home / USER_MEMORY_NAME


def section_name(file: str) -> str:
    return file.removesuffix(".md")


def _paragraphs(body: str) -> list[str]:
    return [part.strip("\n") for part in _BLANK.split(body.strip()) if part.strip()]


def _opens_with_label(paragraph: str) -> set[str]:
    return scanned_labels(paragraph.split("\n", 1)[0]) & {WHY, HOW_TO_APPLY}


def carried_parts(body: str, description: str) -> tuple[str, list[str], int]:
    """(the rule, the Why and How to apply paragraphs, how many other paragraphs are left
    out) of a memory's body."""
    paragraphs = _paragraphs(body)
    rule = ""
    rationale: list[str] = []
    left_out = 0
    following_label = False
    for paragraph in paragraphs:
        labels = _opens_with_label(paragraph)
        if labels or following_label:
            rationale.append(paragraph)
            # A label alone on its line (`## Why`) heads the paragraph after it.
            following_label = bool(labels) and "\n" not in paragraph and len(paragraph) < 40
        elif not rule and not paragraph.startswith("#"):
            rule = paragraph
        else:
            left_out += 1
    if not rule:
        rule = " ".join(description.split())
    return rule, rationale, left_out


def _kept_json(kept: dict[str, str]) -> str:
    """The frontmatter kept in the start marker: JSON on one line, with no `>` (so never a
    `-->` that would end the comment early)."""
    import json

    return json.dumps(kept, ensure_ascii=False).replace(">", "\\u003e")


def _kept_of(text: str | None) -> dict[str, str]:
    import json

    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: value for key, value in data.items()
            if key in KEPT_KEYS and isinstance(value, str) and value.strip()}


def render_section(name: str, kept: dict[str, str], heading: str, rule: str,
                   rationale: list[str], eol: str = "\n") -> str:
    """The section as promote appends it (without the blank line before it)."""
    marker = f"<!-- memtui promoted: {name}{f' {_kept_json(kept)}' if kept else ''} -->"
    parts = [marker, f"## {heading}", "", *([rule, ""] if rule else [])]
    for paragraph in rationale:
        parts += [paragraph, ""]
    parts.append(_END.format(name=name))
    return eol.join(line for part in parts for line in part.split("\n")) + eol


def find_sections(text: str) -> list[Section]:
    """Every promoted section in CLAUDE.md's text whose end marker follows its start."""
    found = []
    for match in _START.finditer(text):
        name = match.group("name")
        end_marker = _END.format(name=name)
        end_at = text.find(end_marker, match.end())
        if end_at < 0:
            continue
        end = end_at + len(end_marker)
        if text.startswith("\r\n", end):
            end += 2
        elif text.startswith("\n", end):
            end += 1
        start = match.start()
        for blank in ("\r\n", "\n"):  # the blank line promote put before it
            before = text[:start]
            if before.endswith(blank + blank) or before == blank:
                start -= len(blank)
                break
        inner = text[match.end():end_at].strip("\r\n")
        heading, _, body = inner.partition("\n")
        found.append(Section(name, _kept_of(match.group("kept")),
                             heading.removeprefix("## ").strip(),
                             body.replace("\r\n", "\n").strip("\n"), start, end))
    return found


def _eol(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _decoded(data: bytes | None, what: str) -> str:
    if data is None:
        return ""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise WriteRefused(f"{what} is not UTF-8 text; memtui leaves it as it is.") from None


@dataclass(frozen=True)
class Promotion:
    claude_md: Plan  # the change of the config home
    removal: Plan | None  # the change of the project store (promote --remove)


def plan_promote(home: Path, store: Store, file: str, remove: bool) -> Promotion:
    """Append `file`'s rule, Why and How to apply to CLAUDE.md; with `remove`, also take
    the memory and its index line out of the store as `fix archive` does."""
    from tui.memory.curate import plan_archive

    memory = store.memory(file)
    if memory is None:
        raise WriteRefused(f"{file} is not a memory in {store.path}.")
    name = section_name(file)
    if "-->" in name or "\n" in name:
        raise WriteRefused(f"{file}'s name cannot go in an HTML comment; rename it first.")
    text = _decoded(read_bytes(store.path, file), file)
    if not text.strip():
        raise WriteRefused(f"{file} is empty: there is nothing to promote.")
    front = parse(text)
    rule, rationale, left_out = carried_parts(front.body, memory.description)
    if not rule and not rationale:
        raise WriteRefused(f"{file} has neither a body nor a description to promote.")
    claude_bytes = read_bytes(home, USER_MEMORY_NAME, follow=True)
    claude_text = _decoded(claude_bytes, str(user_memory_file(home)))
    if any(section.name == name for section in find_sections(claude_text)):
        raise WriteRefused(f"{file} is already promoted to {user_memory_file(home)} "
                           f"(`memtui demote {name} --to PROJECT` takes it back).")
    eol = _eol(claude_text)
    kept = {key: " ".join(value.split()) for key in KEPT_KEYS
            if (value := front.text(key)) and value.strip()}
    section = render_section(name, kept, title_of(memory), rule, rationale, eol)
    ending = "" if not claude_text or claude_text.endswith(("\n", "\r")) else eol
    blank = eol if claude_text else ""
    after = claude_text + ending + blank + section
    summary = [f"Append a section \"## {title_of(memory)}\" ({len(section.splitlines())} lines) "
               f"to the end of {user_memory_file(home)}, which Claude Code loads in every "
               "session of every project."]
    if left_out:
        kept = ("the archive keeps the whole memory" if remove
                else f"{file} keeps the whole memory")
        summary.append(f"{left_out} other paragraph{'s' if left_out != 1 else ''} of {file} "
                       f"{'are' if left_out != 1 else 'is'} not carried over ({kept}).")
    claude_plan = Plan(f"promote {file}", (FileChange(USER_MEMORY_NAME, claude_bytes,
                                                      after.encode("utf-8"), follow=True),),
                       summary)
    removal = plan_archive(store, [file]) if remove else None
    return Promotion(claude_plan, removal)


@dataclass(frozen=True)
class Demotion:
    claude_md: Plan
    store: Plan
    file: str  # the memory file it becomes


def plan_demote(home: Path, name: str, store: Store) -> Demotion:
    """Take the promoted section `name` out of CLAUDE.md (its bytes only) and into `store`
    as a memory file with frontmatter and an index line inside the loaded cut."""
    claude_bytes = read_bytes(home, USER_MEMORY_NAME, follow=True)
    claude_text = _decoded(claude_bytes, str(user_memory_file(home)))
    sections = find_sections(claude_text)
    wanted = section_name(name)
    section = next((s for s in sections if s.name == wanted), None)
    if section is None:
        promoted = ", ".join(s.name for s in sections) or "none"
        raise WriteRefused(f"{user_memory_file(home)} has no section promoted as {wanted!r} "
                           f"(promoted there: {promoted}).")
    file = f"{wanted}.md"
    if read_bytes(store.path, file) is not None or store.memory(file) is not None:
        raise WriteRefused(f"{store.path / file} already exists; nothing was written (demote it "
                           "into another project, or rename that memory first).")
    memory_text = _memory_text(section)
    memory = Memory(file, str(store.path / file), memory_text, parse(memory_text), 0.0,
                    len(memory_text.encode("utf-8")))
    index = read_index(store)
    placed = place_inside_cut(store, index, list(index.lines), [index_line(memory)],
                              [(file, None)], [file], [f"Create {file} from the section."],
                              f"demote {wanted}")
    store_plan = Plan(placed.label, (FileChange(file, None, memory_text.encode("utf-8")),
                                     *placed.changes),
                      placed.summary, placed.pushed_out, placed.options)
    after = claude_text[:section.start] + claude_text[section.end:]
    claude_plan = Plan(f"demote {wanted}", (FileChange(USER_MEMORY_NAME, claude_bytes,
                                                       after.encode("utf-8"), follow=True),),
                       [f"Remove the section \"## {section.heading}\" from "
                        f"{user_memory_file(home)} (lines around it are left as they are)."])
    return Demotion(claude_plan, store_plan, file)


def _yaml_text(value: str) -> str:
    """A one-line YAML scalar, quoted when plain would not read back as the same text."""
    import json

    plain = re.fullmatch(r"[A-Za-z0-9][\w .,()/'-]*", value) and not value.endswith(" ")
    return value if plain else json.dumps(value, ensure_ascii=False)


def _memory_text(section: Section) -> str:
    """The memory file a section becomes: the frontmatter it was promoted with (a section
    written by hand under the markers: its name, and its first line as description)."""
    paragraphs = _paragraphs(section.body)
    first = " ".join((paragraphs[0] if paragraphs else section.heading).split())
    if len(first) > 150:
        first = first[:149].rsplit(" ", 1)[0] + "…"
    description = section.kept.get("description", first)
    lines = ["---", f"name: {_yaml_text(section.kept.get('name', section.name))}",
             f"description: {_yaml_text(description)}"]
    if "type" in section.kept:
        lines.append(f"type: {_yaml_text(section.kept['type'])}")
    lines += ["---", "", section.body.strip("\n"), ""]
    return "\n".join(lines)


@dataclass(frozen=True)
class UserMemorySize:
    lines: int
    characters: int
    tokens: int  # estimated: characters / 4, as for English prose
    promoted: int  # sections memtui promoted


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def without_block_comments(text: str) -> str:
    """`text` without its block-level HTML comments (a comment that starts a line and ends
    one), outside fenced code: what Claude Code strips from CLAUDE.md before loading it."""
    kept: list[str] = []
    lines = text.splitlines(keepends=True)
    fence: str | None = None
    number = 0
    while number < len(lines):
        line = lines[number]
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
        elif opened:
            fence = opened.group(1)
        elif line.lstrip(" ").startswith("<!--"):
            end = number
            while end < len(lines) and "-->" not in lines[end]:
                end += 1
            if end < len(lines) and not lines[end].split("-->")[-1].strip():
                number = end + 1
                continue
        kept.append(line)
        number += 1
    return "".join(kept)


def user_memory_size(text: str) -> UserMemorySize:
    """How much of every session's context CLAUDE.md takes: its text without the block
    comments Claude Code strips (its `@` imports are not followed: a lower bound there)."""
    loaded = without_block_comments(text).strip()
    return UserMemorySize(len(loaded.splitlines()), len(loaded), (len(loaded) + 3) // 4,
                          len(find_sections(text)))
