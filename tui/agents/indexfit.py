"""Rebuilding MEMORY.md so that all of it loads: the deterministic index repair.

Kept: every line that links an existing memory (merged files relinked to their keeper),
headings and notes while there is room, and lines whose `[[name]]` links name no memory
yet (Claude Code's prompt calls those memories worth writing later). Dropped: lines
pointing at missing files (reported). Added: a line for each memory no line reaches.
Lines over 150 characters are shortened, their full text moved into the topic file.

The index is left with room for the entries Claude Code appends: within 70% of each limit
(140 lines, 17,500 characters), as Claude Code asks of a rewrite. What Claude sees now stays
seen, even past that: entries inside the loaded cut come first (they fit: the cut is what
fits), then the others by type (user, feedback, project, reference) and newest first while
there is room; the rest are reported (their lines past the cut removed), never deleted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from tui.claude.lines import line_count
from tui.claude.paths import utf16_len
from tui.memory.index import HEADROOM, MAX_CHARS, MAX_LINES, parse_index
from tui.memory.links import wiki_names

LINE_LIMIT = 150
NOTES_NAME = "index_notes"
TYPE_ORDER = ("user", "feedback", "project", "reference")
ROOM_LINES, ROOM_CHARS = int(HEADROOM * MAX_LINES), int(HEADROOM * MAX_CHARS)
ROOM = (f"{ROOM_LINES} lines / {ROOM_CHARS:,} characters, the {HEADROOM:.0%} of the limits "
        "a dream leaves for new entries")
_LINK_END = re.compile(r"\]\([^)]*\)|\]\]")  # where an entry's link ends and its hook starts


@dataclass(frozen=True)
class MemoryInfo:
    file: str
    title: str
    description: str
    type: str | None
    mtime: float
    text: str  # the whole file, to know whether a detail is already in it


@dataclass
class IndexRebuild:
    text: str
    dangling: list[str] = field(default_factory=list)  # dropped lines
    added: list[str] = field(default_factory=list)  # files that got a line
    shortened: list[str] = field(default_factory=list)  # files whose line was shortened
    unfit: list[str] = field(default_factory=list)  # files left out for lack of room
    past_cut: list[str] = field(default_factory=list)  # ... whose lines were past the cut
    seen: list[str] = field(default_factory=list)  # ... whose lines were inside it
    details: dict[str, list[str]] = field(default_factory=dict)  # file -> text to append
    notes_file: MemoryInfo | None = None  # index notes moved out to make room
    over_room: tuple[int, int] | None = None  # (lines, chars) kept past ROOM: Claude sees them

    def notes(self) -> list[str]:
        notes = []
        if self.dangling:
            notes.append(f"Dropped {len(self.dangling)} index line(s) pointing at missing files: "
                         + "; ".join(self.dangling))
        if self.past_cut:
            notes.append(
                f"Removed the lines of {len(self.past_cut)} memories from past the cut (Claude "
                f"never saw them): no room within {ROOM}; their files are kept, unindexed: "
                + ", ".join(self.past_cut))
        if self.seen:
            notes.append(
                f"Removed the index lines of {len(self.seen)} memories Claude saw: with them "
                f"the index would pass {MAX_LINES} lines or {MAX_CHARS:,} characters; their "
                "files are kept, unindexed: " + ", ".join(self.seen))
        unindexed = [file for file in self.unfit
                     if file not in self.past_cut and file not in self.seen]
        if unindexed:
            notes.append(
                f"{len(unindexed)} memories without an index line stay unindexed: no room "
                f"within {ROOM_LINES} lines / {ROOM_CHARS:,} characters; their files are kept: "
                + ", ".join(unindexed))
        if self.over_room:
            lines, chars = self.over_room
            notes.append(
                f"MEMORY.md keeps {lines} lines and {chars:,} characters, over the "
                f"{HEADROOM:.0%} a dream leaves for new entries, because the offline dream "
                "never removes a line Claude sees: archive what is no longer true, or let "
                "--engine anthropic condense the index.")
        return notes


@dataclass
class _Entry:
    file: str | None  # None: a heading, blank or note line
    line: str
    order: int
    visible: bool = False  # inside the loaded cut before the rebuild
    said: str | None = None  # the index's own line, whole; None for a line written here


def _shorten(line: str, limit: int = LINE_LIMIT) -> str:
    if utf16_len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:—-") + "…"


def entry_line(memory: MemoryInfo) -> str:
    hook = " ".join((memory.description or memory.type or "memory").split())
    return _shorten(f"- [{memory.title}]({memory.file}) — {hook}")


def notes_memory(lines: Sequence[str]) -> MemoryInfo:
    body = "\n".join(line.rstrip() for line in lines)
    description = "Notes that used to sit in MEMORY.md, moved here to make room"
    text = (f"---\nname: {NOTES_NAME}\ndescription: {description}\ntype: reference\n---\n\n"
            f"{body}\n")
    return MemoryInfo(f"{NOTES_NAME}.md", "Index notes", description, "reference", 0.0, text)


def _priority(memory: MemoryInfo) -> tuple[int, float]:
    rank = TYPE_ORDER.index(memory.type) if memory.type in TYPE_ORDER else len(TYPE_ORDER)
    return rank, -memory.mtime


def _size(lines: Sequence[str]) -> tuple[int, int]:
    text = "\n".join(lines).strip()
    return (line_count(text) if text else 0), utf16_len(text)


def _fits(lines: Sequence[str]) -> bool:
    """Within the room a rewrite leaves (see ROOM)."""
    count, chars = _size(lines)
    return count <= ROOM_LINES and chars <= ROOM_CHARS


def rebuild_index(index_text: str | None, memories: Sequence[MemoryInfo],
                  renamed: Mapping[str, str] | None = None,
                  exists: Callable[[str], bool] = lambda file: False) -> IndexRebuild:
    """`exists(file)` says whether a linked file that is not among `memories` (a daily
    log, a team memory) is there all the same: its line is kept as it is, not dropped."""
    renamed = renamed or {}
    by_file = {m.file: m for m in memories}
    result = IndexRebuild("")
    loaded = parse_index(index_text, wiki_names((m.file, m.title) for m in memories))
    links_by_line: dict[int, list[str | None]] = {}
    for link in loaded.links:
        links_by_line.setdefault(link.line, []).append(link.file)
    visible_lines = {link.line for link in loaded.links if link.visible}
    unwritten = {link.line for link in loaded.links if link.names_no_memory}

    entries: list[_Entry] = []
    seen: set[str] = set()
    for raw in loaded.raw_lines:
        files = links_by_line.get(raw.number)
        target = next((renamed.get(f, f) for f in files or ()
                       if f and renamed.get(f, f) in by_file), None)
        if target is None and (not files or raw.number in unwritten):
            entries.append(_Entry(None, raw.text, raw.number))
            continue
        if target is None:
            if any(f and exists(f) for f in files):
                entries.append(_Entry(None, raw.text, raw.number))
            else:
                result.dangling.append(raw.text.strip())
            continue
        if target in seen:
            _move_detail(result, by_file[target], raw.text)
            continue
        seen.add(target)
        line = raw.text.replace(f"]({files[0]})", f"]({target})", 1) if files[0] != target \
            else raw.text
        said = line
        if utf16_len(line) > LINE_LIMIT:
            _move_detail(result, by_file[target], line)
            result.shortened.append(target)
            line = _shorten(line)
        entries.append(_Entry(target, line, raw.number, raw.number in visible_lines, said))
    for memory in sorted(memories, key=lambda m: m.file):
        if memory.file not in seen:
            entries.append(_Entry(memory.file, entry_line(memory), len(entries) + 10**6))
            result.added.append(memory.file)

    entries = _fit(entries, by_file, result)
    result.text = "\n".join(e.line for e in entries).strip() + "\n"
    return result


def _move_detail(result: IndexRebuild, memory: MemoryInfo, line: str) -> None:
    """Keep an index line's words (what follows its link) in the topic file when they are
    not there already."""
    link = _LINK_END.search(line)
    hook = line[link.end() if link else 0:].strip(" —-–:")
    moved = result.details.setdefault(memory.file, [])
    if hook and hook not in memory.text and hook not in memory.description and hook not in moved:
        moved.append(hook)
    if not moved:
        del result.details[memory.file]


def _fit(entries: list[_Entry], by_file: Mapping[str, MemoryInfo],
         result: IndexRebuild) -> list[_Entry]:
    if _fits([e.line for e in entries]):
        return entries
    # Layout goes first (blank lines, then headings); memories are ranked after that.
    entries = [e for e in entries if e.file is not None or e.line.strip()]
    if _fits([e.line for e in entries]):
        return entries
    entries = [e for e in entries if e.file is not None or not e.line.lstrip().startswith("#")]
    if _fits([e.line for e in entries]):
        return entries
    notes = [e.line for e in entries if e.file is None]
    entries = [e for e in entries if e.file is not None]
    if notes:
        # Notes that sat in the index move to a topic file of their own, never dropped.
        result.notes_file = notes_memory(notes)
        info = result.notes_file
        by_file = {**by_file, info.file: info}
        # Its line stands for text Claude saw: it ranks with the lines inside the cut.
        entries.insert(0, _Entry(info.file, entry_line(info), -1, visible=True))
        result.added.append(info.file)
    ranked = sorted(entries, key=lambda e: (not e.visible, _priority(by_file[e.file])))
    kept: list[_Entry] = []
    lines, chars = 0, 0
    full = False  # no room for an entry Claude does not see: none ranked below it goes in
    for entry in ranked:
        width = utf16_len(entry.line) + (1 if lines else 0)
        # A line Claude sees stays while the limits hold; any other only within ROOM.
        most_lines, most_chars = ((MAX_LINES, MAX_CHARS) if entry.visible
                                  else (ROOM_LINES, ROOM_CHARS))
        full = full or not entry.visible and not (
            lines + 1 <= most_lines and chars + width <= most_chars)
        if not full and lines + 1 <= most_lines and chars + width <= most_chars:
            kept.append(entry)
            lines, chars = lines + 1, chars + width
            continue
        result.unfit.append(entry.file)
        if entry.said is not None:
            (result.seen if entry.visible else result.past_cut).append(entry.file)
            _move_detail(result, by_file[entry.file], entry.said)
    if lines > ROOM_LINES or chars > ROOM_CHARS:
        result.over_room = lines, chars
    kept.sort(key=lambda e: e.order)
    return kept
