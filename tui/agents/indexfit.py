"""Rebuilding MEMORY.md so that all of it loads: the deterministic index repair.

Kept: every line that links an existing memory (merged files relinked to their keeper),
headings and notes while there is room, and lines whose `[[name]]` links name no memory
yet (Claude Code's prompt calls those memories worth writing later). Dropped: lines
pointing at missing files (reported). Added: a line for each memory no line reaches.
Lines over 150 characters are shortened, their full text moved into the topic file.

The index is left with room for the entries Claude Code appends: within 70% of each limit
(140 lines, 17,500 characters), as Claude Code asks of a rewrite. Nothing Claude reaches
now is hidden to make that room: when the entries inside the loaded cut, with those the
hubs hold, do not fit, the lowest ranked (by type: user, feedback, project, reference; then
oldest first) move whole into a hub per type that MEMORY.md links (see `hubs`), and come
back when there is room again. Entries Claude does not see get the room left, by the same
rank; the rest are reported (their lines past the cut removed), never deleted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import count

from tui.agents.hubs import HUB_FILES, hub_for, hub_line, hub_text, split_hub
from tui.claude.lines import line_count
from tui.claude.paths import utf16_len
from tui.memory.frontmatter import MEMORY_TYPES
from tui.memory.index import (
    HEADROOM,
    MAX_CHARS,
    MAX_LINES,
    IndexLink,
    LoadedIndex,
    parse_index,
)
from tui.memory.links import wiki_names
from tui.words import listed, plural

LINE_LIMIT = 150
NOTES_NAME = "index_notes"
TYPE_ORDER = MEMORY_TYPES  # user, feedback, project, reference
NOTE_FILES = 5  # files a note names; the change set's diff shows them all
ROOM_LINES, ROOM_CHARS = int(HEADROOM * MAX_LINES), int(HEADROOM * MAX_CHARS)
ROOM = (f"{ROOM_LINES} lines / {ROOM_CHARS:,} characters, the {HEADROOM:.0%} of the limits "
        "a dream leaves for new entries")
_LINK_END = re.compile(r"\]\([^)]*\)|\]\]")  # where an entry's link ends and its hook starts
_LATER = 10**6  # the order of lines that were not in MEMORY.md: after all of its lines


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
    details: dict[str, list[str]] = field(default_factory=dict)  # file -> text to append
    notes_file: MemoryInfo | None = None  # index notes moved out to make room
    hubs: dict[str, str | None] = field(default_factory=dict)  # hub -> new text; None: removed
    into_hubs: dict[str, list[str]] = field(default_factory=dict)  # hub -> lines moved in
    # hub -> memories Claude did not reach (lines past the cut, or none) that it lists now
    reached_by_hubs: dict[str, list[str]] = field(default_factory=dict)
    out_of_hubs: dict[str, list[str]] = field(default_factory=dict)  # hub -> lines moved back

    def notes(self) -> list[str]:
        notes = []
        if self.dangling:
            notes.append(f"Dropped {plural(len(self.dangling), 'index line')} pointing at "
                         f"missing files: {listed(self.dangling, NOTE_FILES)}")
        for hub, files in self.into_hubs.items():
            notes.append(
                f"Moved {plural(len(files), 'index line')} into {hub}, which MEMORY.md links "
                f"(Claude still reaches them), to keep MEMORY.md within {ROOM_LINES} lines / "
                f"{ROOM_CHARS:,} characters: {listed(files, NOTE_FILES)}")
        for hub, files in self.reached_by_hubs.items():
            notes.append(
                f"Listed {plural(len(files), 'memory', 'memories')} Claude did not reach (a line "
                f"past the cut, or none) in {hub}, which MEMORY.md links, as MEMORY.md has no "
                f"room for them within {ROOM}: {listed(files, NOTE_FILES)}")
        for hub, files in self.out_of_hubs.items():
            notes.append(f"Moved {plural(len(files), 'index line')} from {hub} back into "
                         f"MEMORY.md, which has room for them again: {listed(files, NOTE_FILES)}")
        for hub, text in self.hubs.items():
            if text is None:
                notes.append(f"Removed {hub}: no index line is left in it.")
        return notes


@dataclass
class _Entry:
    file: str | None  # None: a heading, blank or note line
    line: str
    order: int
    visible: bool = False  # inside the loaded cut before the rebuild
    title: str = ""  # the link's text
    hub: str | None = None  # the hub that listed it before the rebuild


@dataclass
class _Hub:
    file: str
    before: str | None  # its text before the rebuild; None for a new hub
    own_lines: list[str] = field(default_factory=list)  # its lines that list no memory
    order: int = 0  # where its line stands in MEMORY.md


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


class _Reader:
    """Turns the lines of MEMORY.md and of the hubs into entries, each memory once."""

    def __init__(self, by_file: Mapping[str, MemoryInfo], hubs: Mapping[str, _Hub],
                 renamed: Mapping[str, str], exists: Callable[[str], bool],
                 result: IndexRebuild) -> None:
        self.by_file, self.hubs, self.renamed, self.exists = by_file, hubs, renamed, exists
        self.result = result
        self.seen: set[str] = set()

    def entries(self, loaded: LoadedIndex, orders: Iterator[int] | None = None,
                hub: _Hub | None = None) -> Iterator[_Entry]:
        """The entries of an index (MEMORY.md, or a hub's body), in order, with a line that
        is no entry as an entry of no file. A line linking a hub is not an entry: its hub
        gets its place. `orders` numbers lines of a hub, which come after MEMORY.md's."""
        links_by_line: dict[int, list[IndexLink]] = {}
        for link in loaded.links:
            links_by_line.setdefault(link.line, []).append(link)
        renamed = self.renamed
        for raw in loaded.raw_lines:
            order = raw.number if orders is None else next(orders)
            links = links_by_line.get(raw.number, [])
            files = [link.file for link in links]
            target = next((renamed.get(f, f) for f in files
                           if f and renamed.get(f, f) in self.by_file), None)
            if target is None:
                linked_hub = next((f for f in files if f in self.hubs), None)
                if linked_hub is not None and hub is None:
                    self.hubs[linked_hub].order = raw.number  # its line is written anew
                elif (not files or any(link.names_no_memory for link in links)
                      or any(f and self.exists(f) for f in files)):
                    yield _Entry(None, raw.text, order)
                else:
                    self.result.dangling.append(raw.text.strip())
                continue
            if target in self.seen:
                _move_detail(self.result, self.by_file[target], raw.text)
                continue
            self.seen.add(target)
            line = raw.text.replace(f"]({files[0]})", f"]({target})", 1) if files[0] != target \
                else raw.text
            if utf16_len(line) > LINE_LIMIT:
                _move_detail(self.result, self.by_file[target], line)
                self.result.shortened.append(target)
                line = _shorten(line)
            title = next(link.title for link in links if renamed.get(link.file, link.file) == target)
            yield _Entry(target, line, order, hub is None and any(link.visible for link in links),
                         title or target, hub.file if hub else None)


def rebuild_index(index_text: str | None, memories: Sequence[MemoryInfo],
                  renamed: Mapping[str, str] | None = None,
                  exists: Callable[[str], bool] = lambda file: False) -> IndexRebuild:
    """`exists(file)` says whether a linked file that is not among `memories` (a daily
    log, a team memory) is there all the same: its line is kept as it is, not dropped.
    The hubs among `memories` are read for the lines they hold and rewritten with them."""
    hubs = {m.file: _Hub(m.file, m.text) for m in memories if m.file in HUB_FILES}
    names = wiki_names((m.file, m.title) for m in memories)
    memories = [m for m in memories if m.file not in hubs]
    by_file = {m.file: m for m in memories}
    result = IndexRebuild("")
    reader = _Reader(by_file, hubs, renamed or {}, exists, result)
    entries = list(reader.entries(parse_index(index_text, names)))
    orders = count(_LATER)
    for hub in sorted(hubs.values(), key=lambda hub: HUB_FILES.index(hub.file)):
        for entry in reader.entries(parse_index(split_hub(hub.before)[1], names), orders, hub):
            if entry.file is not None:
                entries.append(entry)
            else:
                hub.own_lines.append(entry.line)
        hub.own_lines = "\n".join(hub.own_lines).strip("\n").split("\n") \
            if any(line.strip() for line in hub.own_lines) else []
    for memory in sorted(memories, key=lambda m: m.file):
        if memory.file not in reader.seen:
            entries.append(_Entry(memory.file, entry_line(memory), next(orders),
                                  title=memory.title))
            result.added.append(memory.file)

    lines = _fit(entries, by_file, result, hubs)
    result.text = "\n".join(lines).strip() + "\n"
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


def _fit(entries: list[_Entry], by_file: Mapping[str, MemoryInfo], result: IndexRebuild,
         hubs: Mapping[str, _Hub]) -> list[str]:
    """MEMORY.md's lines within ROOM, and the hubs' texts in `result`."""
    # Layout goes first (blank lines, then headings); memories are ranked after that.
    for drop in (None, _is_blank, _is_heading):
        entries = [e for e in entries if not (drop and drop(e))]
        if _fits([e.line for e in entries]):
            return _placed(entries, [], by_file, result, hubs)
    notes = [e.line for e in entries if e.file is None]
    entries = [e for e in entries if e.file is not None]
    if notes:
        # Notes that sat in the index move to a topic file of their own, never dropped.
        result.notes_file = info = notes_memory(notes)
        by_file = {**by_file, info.file: info}
        # Its line stands for text Claude saw: it ranks with the lines inside the cut.
        entries.insert(0, _Entry(info.file, entry_line(info), -1, visible=True,
                                 title=info.title))
        result.added.append(info.file)
    # What Claude reaches now ranks first: the lines it sees, by rank, then those the hubs
    # hold, in their order (the first of them comes back first); then the rest (past the
    # cut, or without a line) by rank. What MEMORY.md has no room for goes into the hubs,
    # so no memory is left without a way in.
    ranked = sorted((e for e in entries if e.visible), key=lambda e: _priority(by_file[e.file]))
    ranked += sorted((e for e in entries if e.hub), key=lambda e: e.order)
    ranked += sorted((e for e in entries if not e.visible and not e.hub),
                     key=lambda e: _priority(by_file[e.file]))
    kept, moved = _room_for(ranked, by_file)
    return _placed(kept, moved, by_file, result, hubs)


def _is_blank(entry: _Entry) -> bool:
    return entry.file is None and not entry.line.strip()


def _is_heading(entry: _Entry) -> bool:
    return entry.file is None and entry.line.lstrip().startswith("#")


def _room_for(ranked: list[_Entry],
              by_file: Mapping[str, MemoryInfo]) -> tuple[list[_Entry], list[_Entry]]:
    """(the entries MEMORY.md keeps, those moved into hubs): the longest head of `ranked`
    that fits ROOM beside a line for each hub the rest go into."""
    lines, chars, size = 0, 0, 0
    for entry in ranked:
        width = utf16_len(entry.line) + (1 if lines else 0)
        if lines + 1 > ROOM_LINES or chars + width > ROOM_CHARS:
            break
        lines, chars, size = lines + 1, chars + width, size + 1
    while size < len(ranked) and not _fits(
            [e.line for e in ranked[:size]]
            + [line for _, line in _hub_lines(ranked[size:], by_file)]):
        size -= 1  # a handful of times: the hub lines are few and short
    kept, moved = ranked[:size], ranked[size:]
    # A hub for one memory would take the line that memory's own line takes: keep it.
    for in_hub in _by_hub(moved, by_file).values():
        if len(in_hub) == 1:
            rest = [e for e in moved if e is not in_hub[0]]
            if _fits([e.line for e in [*kept, in_hub[0]]]
                     + [line for _, line in _hub_lines(rest, by_file)]):
                kept, moved = [*kept, in_hub[0]], rest
    return kept, moved


def _by_hub(moved: Sequence[_Entry], by_file: Mapping[str, MemoryInfo]) -> dict[str, list[_Entry]]:
    listed: dict[str, list[_Entry]] = {}
    for entry in moved:
        listed.setdefault(hub_for(by_file[entry.file].type), []).append(entry)
    return {hub: listed[hub] for hub in HUB_FILES if hub in listed}


def _hub_lines(moved: Sequence[_Entry], by_file: Mapping[str, MemoryInfo]) -> list[tuple[str, str]]:
    return [(hub, hub_line(hub, [e.title for e in listed]))
            for hub, listed in _by_hub(moved, by_file).items()]


def _placed(kept: list[_Entry], moved: list[_Entry], by_file: Mapping[str, MemoryInfo],
            result: IndexRebuild, hubs: Mapping[str, _Hub]) -> list[str]:
    """MEMORY.md's lines: those kept in their order, a line per hub where the hub's line
    stood (else at the end); the hubs' new texts, and what moved, go in `result`."""
    placed = [(e.order, e.line) for e in kept]
    for entry in kept:
        if entry.hub is not None:
            result.out_of_hubs.setdefault(entry.hub, []).append(entry.file)
    listed = _by_hub(moved, by_file)
    for position, (file, in_hub) in enumerate(listed.items()):
        hub = hubs.get(file) or _Hub(file, None)
        for entry in in_hub:
            if entry.hub == file:
                continue
            moved_in = result.into_hubs if entry.visible or entry.hub else result.reached_by_hubs
            moved_in.setdefault(file, []).append(entry.file)
        text = hub_text(file, hub.before, hub.own_lines, [e.line for e in in_hub])
        if text != hub.before:
            result.hubs[file] = text
        placed.append((hub.order or 2 * _LATER + position,
                       hub_line(file, [e.title for e in in_hub])))
    for file in hubs:
        if file not in listed:
            result.hubs[file] = None
    return [line for _, line in sorted(placed, key=lambda pair: pair[0])]
