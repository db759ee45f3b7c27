"""Rebuilding MEMORY.md so that all of it loads: the deterministic index repair.

Every word of the index is kept. Kept in place: every line that links an existing memory
(merged files relinked to their keeper), its headings, its prose, and lines whose
`[[name]]` links name no memory yet (Claude Code's prompt calls those memories worth
writing later). A line whose links all point at missing files keeps its words with the
links taken out (reported). Added: a line for each memory no line reaches. Lines over 150
characters are shortened, never inside a link, their full text moved into the topic file.

The index is left with room for the entries Claude Code appends: within 70% of each limit
(140 lines, 17,500 characters), as Claude Code asks of a rewrite. When the entries do not
fit, the index is restructured: its prose moves into `index_notes.md` under the headings it
stood under, the lowest ranked entries (by type: user, feedback, project, reference, other;
then newest first) move whole into a hub per type that MEMORY.md links (see `hubs`), each
under the headings it stood under, and come back when there is room again. A heading stays
in MEMORY.md while a line under it does. Nothing is hidden: every memory is reached.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import count

from tui.claude.lines import line_count
from tui.claude.paths import utf16_len
from tui.memory.frontmatter import MEMORY_TYPES
from tui.memory.hubs import HUB_FILES, hub_for, hub_head, hub_intro, hub_line, hub_text, split_hub
from tui.memory.index import (
    HEADROOM,
    MAX_CHARS,
    MAX_LINES,
    IndexLink,
    LoadedIndex,
    parse_index,
)
from tui.memory.links import find_links, link_target, replace_links, wiki_names
from tui.words import listed, plural

LINE_LIMIT = 150
NOTES_NAME = "index_notes"
NOTES_FILE = f"{NOTES_NAME}.md"
TYPE_ORDER = MEMORY_TYPES  # user, feedback, project, reference
NOTE_FILES = 5  # files a note names; the change set's diff shows them all
ROOM_LINES, ROOM_CHARS = int(HEADROOM * MAX_LINES), int(HEADROOM * MAX_CHARS)
ROOM = (f"{ROOM_LINES} lines / {ROOM_CHARS:,} characters, the {HEADROOM:.0%} of the limits "
        "a dream leaves for new entries")
_LINK_END = re.compile(r"\]\([^)]*\)|\]\]")  # where an entry's link ends and its hook starts
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")
_LATER = 10**6  # the order of lines that were not in MEMORY.md: after all of its lines

Order = tuple[int, ...]


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
    unlinked: list[str] = field(default_factory=list)  # lines whose dead links were taken out,
    # as they were
    added: list[str] = field(default_factory=list)  # files that got a line
    shortened: list[str] = field(default_factory=list)  # files whose line was shortened
    details: dict[str, list[str]] = field(default_factory=dict)  # file -> text to append
    notes_file: MemoryInfo | None = None  # index prose moved out to make room
    hubs: dict[str, str | None] = field(default_factory=dict)  # hub -> new text; None: removed
    into_hubs: dict[str, list[str]] = field(default_factory=dict)  # hub -> lines moved in
    # hub -> memories Claude did not reach (lines past the cut, or none) that it lists now
    reached_by_hubs: dict[str, list[str]] = field(default_factory=dict)
    out_of_hubs: dict[str, list[str]] = field(default_factory=dict)  # hub -> lines moved back
    # lines written anew on purpose -> the lines that stand for them (a shortened line, the
    # words of a dead link, a hook given to its memory)
    rewrites: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    relinked: set[str] = field(default_factory=set)  # merged-away files whose lines now
    # link their keeper
    not_memories: list[str] = field(default_factory=list)  # files given no line: no memories

    def notes(self) -> list[str]:
        notes = []
        if self.unlinked:
            notes.append(f"Took the links to missing files out of "
                         f"{plural(len(self.unlinked), 'index line')}; their words are kept in the "
                         f"index: {listed(self.unlinked, NOTE_FILES)}")
        if self.notes_file is not None:
            notes.append(f"Moved the index's prose into {self.notes_file.file} under the "
                         "headings it stood under, which MEMORY.md links, to make room.")
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
        if self.not_memories:
            notes.append(f"Gave no index line to {listed(self.not_memories, NOTE_FILES)}: no "
                         "memory (no type or description in its frontmatter, and a "
                         "repository's document or an encrypted file).")
        return notes

    @property
    def companions(self) -> set[str]:
        """The files written with MEMORY.md that make sense only with it: the hubs and
        the notes file it links, the memories given the words of its shortened lines."""
        files = set(self.hubs) | set(self.details)
        if self.notes_file is not None:
            files.add(self.notes_file.file)
        return files


@dataclass
class _Entry:
    file: str | None  # None: a line that lists no memory (prose, a heading, a blank)
    line: str
    order: Order
    visible: bool = False  # inside the loaded cut before the rebuild
    title: str = ""  # the link's text
    hub: str | None = None  # the hub that listed it before the rebuild
    chain: tuple[str, ...] = ()  # the headings it stands under, outermost first
    heading: bool = False  # a heading of MEMORY.md: `chain` holds those above it
    hub_order: Order | None = None  # its place in the hub that listed it

    @property
    def key(self) -> tuple[str, ...]:
        """A heading's place among the headings: its chain and itself."""
        return (*self.chain, self.line.rstrip())


@dataclass
class _Hub:
    file: str
    before: str | None  # its text before the rebuild; None for a new hub
    own_lines: list[str] = field(default_factory=list)  # its lines that list no memory
    order: Order = ()  # where its line stands in MEMORY.md
    chain: tuple[str, ...] = ()  # the headings its line stands under


def _shorten(line: str, limit: int = LINE_LIMIT) -> str:
    """`line` within `limit` UTF-16 units, cut at a word and ending in "…", never inside
    a link: a line whose links end past the limit is cut just after them."""
    if utf16_len(line) <= limit:
        return line
    links_end = max((link.end for link in find_links(line) if link.line == 0), default=0)
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space > max(limit // 2, links_end):
        cut = cut[:space]
    if len(cut) < links_end:
        cut = line[:links_end]
    return cut.rstrip(" ,;:—-") + "…"


def entry_line(memory: MemoryInfo) -> str:
    hook = " ".join((memory.description or memory.type or "memory").split())
    title = memory.title.replace("[", "").replace("]", "")  # no bracket ends its link early
    return _shorten(f"- [{title}]({link_target(memory.file)}) — {hook}")


def unlinked(line: str, dead: Iterable[str] | None = None) -> str:
    """`line` with each link to one of the `dead` targets (every link: None) replaced by
    its words: its title, else its target in a code span."""
    dead = None if dead is None else set(dead)
    return replace_links(line, lambda link: (link.title.strip() or f"`{link.target}`")
                         if dead is None or link.target in dead else link.source)


def notes_memory(body_lines: Sequence[str]) -> MemoryInfo:
    body = "\n".join(line.rstrip() for line in body_lines)
    description = "Notes that used to sit in MEMORY.md, moved here to make room"
    text = (f"---\nname: {NOTES_NAME}\ndescription: {description}\ntype: reference\n---\n\n"
            f"{body}\n")
    return MemoryInfo(NOTES_FILE, "Index notes", description, "reference", 0.0, text)


def _priority(memory: MemoryInfo) -> tuple[int, float]:
    """Type first (user, feedback, project, reference, other), then newest first. A sort by
    it keeps the order the index reads in among equals (files cloned or committed together
    share an mtime): MEMORY.md's lines, then each hub's; a dream keeps that order, so the
    next dream ranks them the same."""
    if memory.file == NOTES_FILE:  # the index's own words come first
        return -1, 0.0
    rank = TYPE_ORDER.index(memory.type) if memory.type in TYPE_ORDER else len(TYPE_ORDER)
    return rank, -memory.mtime


def _size(lines: Sequence[str]) -> tuple[int, int]:
    text = "\n".join(lines).strip()
    return (line_count(text) if text else 0), utf16_len(text)


def _fits(lines: Sequence[str]) -> bool:
    """Within the room a rewrite leaves (see ROOM)."""
    count, chars = _size(lines)
    return count <= ROOM_LINES and chars <= ROOM_CHARS


def _render(entries: Iterable[_Entry]) -> list[str]:
    """The lines of `entries` in their order, each under the headings it stood under: a
    heading of MEMORY.md is a line of its own, the others' are written where their lines
    come under headings not written yet."""
    lines: list[str] = []
    open_chain: tuple[str, ...] = ()
    for entry in sorted(entries, key=lambda e: e.order):
        if entry.heading:
            lines.append(entry.line)
            open_chain = entry.key
            continue
        if entry.chain and entry.chain != open_chain:
            shared = 0
            while (shared < min(len(entry.chain), len(open_chain))
                   and entry.chain[shared] == open_chain[shared]):
                shared += 1
            # Under a heading of its chain that a deeper one followed: say its own again.
            lines.extend(entry.chain[shared:] or entry.chain[-1:])
            open_chain = entry.chain
        lines.append(entry.line)
    return lines


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
        lists no memory as an entry of no file. A line linking a hub is not an entry: its
        hub gets its place. `orders` numbers lines of a hub, which come after MEMORY.md's.
        A hub's headings are no entries: they label the entries under them."""
        links_by_line: dict[int, list[IndexLink]] = {}
        for link in loaded.links:
            links_by_line.setdefault(link.line, []).append(link)
        renamed = self.renamed
        headings: list[tuple[int, str]] = []  # (level, text) of the headings in force
        for raw in loaded.raw_lines:
            order = (raw.number,) if orders is None else (next(orders),)
            chain = tuple(text for _, text in headings)
            heading = _HEADING.match(raw.text)
            if heading:
                level = len(heading.group(1))
                while headings and headings[-1][0] >= level:
                    headings.pop()
                if hub is None:
                    yield _Entry(None, raw.text, order, chain=tuple(t for _, t in headings),
                                 heading=True)
                headings.append((level, raw.text.rstrip()))
                continue
            links = links_by_line.get(raw.number, [])
            files = [link.file for link in links]
            target = next((renamed.get(f, f) for f in files
                           if f and renamed.get(f, f) in self.by_file), None)
            if target is None:
                linked_hub = next((f for f in files if f in self.hubs), None)
                if linked_hub is not None and hub is None:
                    self.hubs[linked_hub].order = order  # its line is written anew
                    self.hubs[linked_hub].chain = chain
                    self.result.rewrites.append((raw.text, ()))  # memtui's own words
                    continue
                text = raw.text
                if (files and not any(link.names_no_memory for link in links)
                        and not any(f and self.exists(f) for f in files)):
                    self.result.unlinked.append(text.strip())
                    text = unlinked(text, (link.target for link in links))
                    self.result.rewrites.append((raw.text, (text,)))
                yield _Entry(None, text, order, chain=chain)
                continue
            if target in self.seen:
                # A second line of the memory gives it all its words; the line of a memory
                # merged into it, its hook (its title is the merged memory's name).
                hook = _move_detail(self.result, self.by_file[target], raw.text,
                                    whole=target in files)
                self.result.rewrites.append((raw.text, (hook,) if hook else ()))
                continue
            self.seen.add(target)
            line = raw.text
            if files[0] != target:
                line = line.replace(f"]({files[0]})", f"]({target})", 1)
                self.result.relinked.add(files[0])
            short = _shorten(line)
            if short != line:  # (a line cut already, after its links, is as short as it gets)
                hook = _move_detail(self.result, self.by_file[target], line)
                self.result.shortened.append(target)
                self.result.rewrites.append((raw.text, (short, hook) if hook else (short,)))
                line = short
            elif line != raw.text:
                self.result.rewrites.append((raw.text, (line,)))
            title = next(link.title for link in links if renamed.get(link.file, link.file) == target)
            yield _Entry(target, line, order, hub is None and any(link.visible for link in links),
                         title or target, hub.file if hub else None, chain,
                         hub_order=order if hub else None)


def rebuild_index(index_text: str | None, memories: Sequence[MemoryInfo],
                  renamed: Mapping[str, str] | None = None,
                  exists: Callable[[str], bool] = lambda file: False) -> IndexRebuild:
    """`exists(file)` says whether a linked file that is not among `memories` (a daily
    log, a team memory, a file that is no memory) is there all the same: its line is kept
    as it is. The hubs among `memories` are read for the lines they hold and rewritten
    with them."""
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
            entries.append(_Entry(memory.file, entry_line(memory), (next(orders),),
                                  title=memory.title))
            result.added.append(memory.file)

    lines = _fit(_settled(entries), by_file, result, hubs)
    result.text = "\n".join(lines).strip() + "\n"
    return result


def _settled(entries: list[_Entry]) -> list[_Entry]:
    """A line that comes back from a hub under headings MEMORY.md has goes at the end of
    their section there, not at the end of the index; a line appended at the end stands
    under the last heading, as it will be read back (so a second dream ranks it the same)."""
    ends: dict[tuple[str, ...], Order] = {}
    last_heading = None
    for entry in entries:
        if entry.order[0] < _LATER:
            for chain in (entry.chain, entry.key) if entry.heading else (entry.chain,):
                ends[chain] = max(ends.get(chain, entry.order), entry.order)
            if entry.heading and (last_heading is None or entry.order > last_heading.order):
                last_heading = entry
    for entry in entries:
        if entry.hub is not None and entry.chain in ends:
            entry.order = (*ends[entry.chain], 1, *entry.order)
        elif entry.order[0] >= _LATER and not entry.chain and last_heading is not None:
            entry.chain = last_heading.key
    return entries


DETAIL = "From the index: "  # how a memory's file holds the words of its index line


def _move_detail(result: IndexRebuild, memory: MemoryInfo, line: str, whole: bool = False
                 ) -> str | None:
    """Keep an index line's words in the topic file when they are not there already: what
    follows its link, or (`whole`, a second line for the memory) all of them. The line
    that will hold them, or None when the file holds them already."""
    if whole:
        words = unlinked(line).strip().lstrip("-*+ ")
    else:
        link = _LINK_END.search(line)
        words = line[link.end() if link else 0:]
    hook = words.strip(" —-–:")
    if hook.endswith("…") and hook[:-1].rstrip() in memory.text:
        hook = ""  # cut by a dream before, whose words the memory holds whole
    moved = result.details.setdefault(memory.file, [])
    if hook and hook not in memory.text and hook not in memory.description and hook not in moved:
        moved.append(hook)
    if not moved:
        del result.details[memory.file]
    return DETAIL + hook if hook and hook in moved else None


def _fit(entries: list[_Entry], by_file: Mapping[str, MemoryInfo], result: IndexRebuild,
         hubs: Mapping[str, _Hub]) -> list[str]:
    """MEMORY.md's lines within ROOM, and the hubs' texts in `result`."""
    for drop_blanks in (False, True):  # blank lines are layout: the first thing to go
        if drop_blanks:
            entries = [e for e in entries if e.file is not None or e.line.strip()]
        if _fits(_render(entries)):
            return _placed(_Layout(entries, [], set(), None), [], by_file, result, hubs)
    headings = [e for e in entries if e.heading]
    # The lines of what moved out: in an index of sections, at the top (under its title,
    # if it has one), never at the end of its last section; in a flat index, the notes'
    # line first, the hubs' last.
    first = min((e for e in entries if e.line.strip()), key=lambda e: e.order, default=None)
    titled = first is not None and first.heading and first.line.startswith("# ")
    top = (*first.order, 0) if titled else (0,) if headings else None
    notes = [e for e in entries if e.file is None and not e.heading]
    # A heading with no line under it (a title, an empty section) loses nothing by staying.
    under = {e.chain[:depth] for e in entries if not e.heading
             for depth in range(1, len(e.chain) + 1)}
    empty = {h.key for h in headings if h.key not in under}
    entries = [e for e in entries if e.file is not None]
    if notes:
        # The index's prose moves to a topic file of its own, under its headings.
        result.notes_file = info = notes_memory(_render(notes))
        by_file = {**by_file, info.file: info}
        # Its line stands for text Claude saw: it ranks first.
        entries.insert(0, _Entry(info.file, entry_line(info), (-1,) if top is None else (*top, 0),
                                 visible=True, title=info.title,
                                 chain=first.key if titled else ()))
        result.added.append(info.file)
    ranked = sorted(entries, key=lambda e: _priority(by_file[e.file]))
    size = _room_for(ranked, _Layout([], headings, empty, top), by_file)
    return _placed(_Layout(ranked[:size], headings, empty, top), ranked[size:], by_file, result,
                   hubs)


@dataclass
class _Layout:
    """What MEMORY.md keeps: entries, and the headings among which they stand."""

    kept: list[_Entry]
    headings: list[_Entry]
    empty: set[tuple[str, ...]]  # the headings no line stood under
    top: Order | None  # where the lines of new hubs go (None: at the end)

    def lines(self, hub_lines: Sequence[tuple[str, str]], hubs: Mapping[str, _Hub]) -> list[str]:
        hub_entries = [_Entry(file, line, hubs[file].order if file in hubs and hubs[file].order
                              else (2 * _LATER + position,) if self.top is None
                              else (*self.top, 1 + position),
                              chain=hubs[file].chain if file in hubs else ())
                       for position, (file, line) in enumerate(hub_lines)]
        return _render([*self.kept, *self.kept_headings(), *hub_entries])

    def kept_headings(self) -> list[_Entry]:
        """The headings a kept line stands under, the empty ones, and those above them."""
        wanted = {chain[:depth] for chain in [*(e.chain for e in self.kept), *self.empty]
                  for depth in range(1, len(chain) + 1)}
        return [h for h in self.headings if h.key in wanted]


def _room_for(ranked: list[_Entry], empty_layout: _Layout, by_file: Mapping[str, MemoryInfo]
              ) -> int:
    """How many of `ranked` MEMORY.md keeps: the longest head that fits ROOM with its
    headings, beside a line for each hub the rest go into."""
    width = {h.key: utf16_len(h.line) for h in empty_layout.headings}
    counted = {h.key for h in empty_layout.kept_headings()}
    lines, chars = len(counted), sum(width[key] + 1 for key in counted)
    size = 0
    for entry in ranked:
        new = [entry.chain[:depth] for depth in range(1, len(entry.chain) + 1)
               if entry.chain[:depth] not in counted]
        added = utf16_len(entry.line) + 1 + sum(width.get(key, utf16_len(key[-1])) + 1
                                                for key in new)
        if lines + 1 + len(new) > ROOM_LINES or chars + added > ROOM_CHARS + 1:
            break
        counted.update(new)
        lines, chars, size = lines + 1 + len(new), chars + added, size + 1
    while size < len(ranked) and not _fits(replace(empty_layout, kept=ranked[:size]).lines(
            _hub_lines(ranked[size:], by_file), {})):
        size -= 1  # a handful of times: the hub lines are few and short
    return size


def _by_hub(moved: Sequence[_Entry], by_file: Mapping[str, MemoryInfo]) -> dict[str, list[_Entry]]:
    listed: dict[str, list[_Entry]] = {}
    for entry in moved:
        listed.setdefault(hub_for(by_file[entry.file].type), []).append(entry)
    return {hub: listed[hub] for hub in HUB_FILES if hub in listed}


def _hub_lines(moved: Sequence[_Entry], by_file: Mapping[str, MemoryInfo]) -> list[tuple[str, str]]:
    return [(hub, hub_line(hub, [e.title for e in _hub_order(hub, listed)]))
            for hub, listed in _by_hub(moved, by_file).items()]


def _hub_order(hub: str, entries: Sequence[_Entry]) -> list[_Entry]:
    """A hub's lines section by section, each section where its first line stands: the
    lines it held first, as it held them, then those moving in, in their order."""
    def place(entry: _Entry) -> tuple:
        return (0, *entry.hub_order) if entry.hub == hub and entry.hub_order else (1, *entry.order)

    first: dict[tuple[str, ...], tuple] = {}
    for entry in entries:
        first[entry.chain] = min(first.get(entry.chain, place(entry)), place(entry))
    return sorted(entries, key=lambda e: (first[e.chain], place(e)))


def _placed(layout: _Layout, moved: list[_Entry], by_file: Mapping[str, MemoryInfo],
            result: IndexRebuild, hubs: Mapping[str, _Hub]) -> list[str]:
    """MEMORY.md's lines: those kept in their order under their headings, a line per hub
    where the hub's line stood (else at the end); the hubs' new texts, and what moved, go
    in `result`."""
    for entry in layout.kept:
        if entry.hub is not None:
            result.out_of_hubs.setdefault(entry.hub, []).append(entry.file)
    listed = _by_hub(moved, by_file)
    for file, in_hub in listed.items():
        hub = hubs.get(file) or _Hub(file, None)
        for entry in in_hub:
            if entry.hub == file:
                continue
            moved_in = result.into_hubs if entry.visible or entry.hub else result.reached_by_hubs
            moved_in.setdefault(file, []).append(entry.file)
        body = [replace(entry, order=(position,))  # written in the hub's order
                for position, entry in enumerate(_hub_order(file, in_hub))]
        text = hub_text(file, hub.before, hub.own_lines, _render(body))
        if text != hub.before:
            result.hubs[file] = text
    for file in hubs:
        if file not in listed:
            result.hubs[file] = None
            # The words memtui opens a hub with go with it; what it listed is back in
            # MEMORY.md (anything else written in it stays held by the guards).
            result.rewrites.extend((line, ()) for line in
                                   [*hub_head(file).split("\n"), hub_intro(file)])
    return layout.lines(_hub_lines(moved, by_file), hubs)
