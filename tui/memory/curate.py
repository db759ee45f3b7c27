"""Curation plans: what a repair would change, as FileChanges. Nothing here writes.

The UI shows a plan's summary, then hands its changes to `writes.apply_changes`. Plans
read MEMORY.md and the files they touch from disk when they are made, so applying a plan
after someone else changed one of those files raises `ConflictError`.

The index is edited line by line: every line a plan does not touch (headings, comments,
frontmatter) keeps its bytes, its line ending (CRLF stays CRLF) and the trailing newline.
A plan that would push existing entries past the loaded cut still holds its changes, but
lists those entries in `pushed_out` and the plans that would make room in `options`: the
UI asks before applying it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from tui.claude.lines import split_lines
from tui.claude.memory_files import index_of
from tui.claude.paths import INDEX_NAME, utf16_len
from tui.disk_use import human_bytes
from tui.memory.frontmatter import BLOCK
from tui.memory.hubs import HUB_FILES, hub_line, hub_title
from tui.memory.index import LINE_WARN, MAX_LINES, IndexLink, LoadedIndex, parse_index
from tui.memory.links import link_target
from tui.memory.reach import TextLinks, loaded_roots, memory_links, reach
from tui.memory.store import IndexFile, Memory, Store, head_end, same_file_names
from tui.memory.writes import FileChange, WriteRefused, archive_dir, read_bytes
from tui.words import plural

REMOVE_DANGLING = "remove dangling"
SHORTEN_LINES = "shorten long lines"
MOVE_OUT = "move an entry out"
GROUP_IN_HUBS = "hubs for the rest"  # relink what fits, the rest into hubs
INDEX_NOTE = "## Index note"

_SLUG = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)*")
_HOOK_SEPARATORS = " \t—–-:|"


@dataclass(frozen=True)
class Plan:
    label: str
    changes: tuple[FileChange, ...]
    summary: list[str]  # what will change, one sentence each
    pushed_out: tuple[str, ...] = ()  # entries this plan would leave past the loaded cut
    options: tuple[str, ...] = ()  # other plans to pick instead: ones making room, other sides

    @property
    def empty(self) -> bool:
        return not self.changes


# --- index lines --------------------------------------------------------------------------


def _clip(text: str, units: int) -> str:
    """`text` within `units` UTF-16 units, ending in "…" when it had to be cut."""
    if utf16_len(text) <= units:
        return text
    if units < 1:
        return ""
    out, used = [], 0
    for char in text:
        width = 2 if ord(char) > 0xFFFF else 1
        if used + width > units - 1:
            break
        out.append(char)
        used += width
    return "".join(out).rstrip() + "…"


def title_of(memory: Memory) -> str:
    """The memory's name for an index line; a slug like `testing-policy` is humanised."""
    name = " ".join((memory.frontmatter.name or "").split())
    if not name:
        name = memory.file.rsplit("/", 1)[-1].removesuffix(".md")
    if _SLUG.fullmatch(name):
        name = re.sub(r"[-_]", " ", name)
        name = name[:1].upper() + name[1:]
    return name.replace("[", "").replace("]", "")


def index_line(memory: Memory, limit: int = LINE_WARN, folder: str = "") -> str:
    """`- [Title](file.md) — hook`, under `limit` UTF-16 units, for an index in `folder`."""
    target = link_target(memory.file.removeprefix(folder))
    room = limit - 1
    title = _clip(title_of(memory), room - utf16_len(f"- []({target})"))
    head = f"- [{title}]({target})"
    hook = " ".join(memory.description.split())
    separator = " — "
    hook_room = room - utf16_len(head) - utf16_len(separator)
    if not hook or hook_room < 2:
        return head
    return f"{head}{separator}{_clip(hook, hook_room)}"


# --- the index as editable lines -----------------------------------------------------------


@dataclass
class EditableIndex:
    file: str  # MEMORY.md or team/MEMORY.md
    before: bytes | None
    text: str
    lines: list[tuple[str, str]]  # (content, line ending) pairs that join back to `text`
    eol: str  # the ending new lines get
    trailing: bool  # end the file with a line ending
    names: Mapping[str, str]  # what `[[name]]` links resolve to
    rest: int = 0  # where the bytes kept as they are begin (an index too big: see `store`)

    def after(self, text: str) -> bytes:
        """The file's bytes with `text` in place of its (edited) head."""
        encoded = text.encode("utf-8")
        if not self.rest or self.before is None:
            return encoded
        with memoryview(self.before) as view:
            return encoded + view[self.rest:]

    @property
    def folder(self) -> str:
        """Where its links start from: its own folder ("", "team/")."""
        return self.file[:self.file.rfind("/") + 1]

    @property
    def parsed(self) -> LoadedIndex:
        return self.parse(self.text)

    def parse(self, text: str) -> LoadedIndex:
        return parse_index(text, self.names, folder=self.folder)

    def line_name(self, number: int) -> str:
        return f"index line {number}" if self.file == INDEX_NAME else f"{self.file} line {number}"

    def joined(self, lines: list[tuple[str, str]]) -> str:
        last = len(lines) - 1
        out = []
        for number, (content, ending) in enumerate(lines):
            if number < last:
                ending = ending or self.eol
            else:
                ending = (ending or self.eol) if self.trailing else ""
            out.append(content + ending)
        return "".join(out)


def _split(text: str) -> list[tuple[str, str]]:
    parts = split_lines(text)
    lines = []
    for number, part in enumerate(parts):
        if number == len(parts) - 1:
            if part:
                lines.append((part, ""))
        elif part.endswith("\r"):
            lines.append((part[:-1], "\r\n"))
        else:
            lines.append((part, "\n"))
    return lines


def _decode(file: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise WriteRefused(
            f"{file} is not valid UTF-8; fix it by hand before curating it."
        ) from None


def read_index(store: Store, file: str = INDEX_NAME) -> EditableIndex:
    """An index of the store as editable lines (empty when the file is not there). Of an
    index too big to parse whole, its head only, as `load_store` reads it: the rest is
    written back as it is."""
    data = read_bytes(store.path, file)
    rest = 0 if data is None else head_end(data)
    head = data
    if rest:
        with memoryview(data) as view:
            head = bytes(view[:rest])
    text = "" if head is None else _decode(file, head)
    crlf = text.count("\r\n")
    eol = "\r\n" if crlf > text.count("\n") - crlf else "\n"
    return EditableIndex(file, data, text, _split(text), eol, text == "" or text.endswith("\n"),
                  store.wiki_names, rest)


def memory_of(store: Store, file: str) -> Memory:
    memory = store.memory(file)
    if memory is None:
        raise WriteRefused(f"{file} is not a memory in this store.")
    return memory


def entry_links(index: LoadedIndex) -> list[IndexLink]:
    """Links on index lines proper: not inside frontmatter or an HTML comment. Each line's
    state is made once: one line of a hostile index holds 100,000 links, and making it
    scans the line."""
    stripped: dict[int, bool] = {}
    entries = []
    for link in index.links:
        if link.line not in stripped:
            stripped[link.line] = index.raw_lines[link.line - 1].state == "stripped"
        if not stripped[link.line]:
            entries.append(link)
    return entries


def links_by_line(index: LoadedIndex) -> dict[int, list[IndexLink]]:
    lines: dict[int, list[IndexLink]] = {}
    for link in entry_links(index):
        lines.setdefault(link.line, []).append(link)
    return lines


def visible_files(index: LoadedIndex) -> set[str]:
    return {link.file for link in index.links if link.visible and link.file}


class _Reached:
    """What Claude reaches in the store with one of its indexes edited: an entry pushed
    past the cut that a chain of memories still reaches is not lost, and one a pushed-out
    second-level index alone reached is."""

    def __init__(self, store: Store, index: EditableIndex) -> None:
        self.others = [other.loaded for other in store.indexes if other.file != index.file]
        self.links = TextLinks({m.file: m.text for m in store.memories}, store.wiki_names)

    def __call__(self, edited: LoadedIndex) -> dict[str, str | None]:
        return reach(loaded_roots([edited, *self.others]), self.links)


def _is_dangling(store: Store, file: str | None) -> bool:
    return file is not None and not os.path.exists(store.path / file)


def _room_options(store: Store, index: LoadedIndex) -> tuple[str, ...]:
    options = []
    if any(_is_dangling(store, link.file) for link in entry_links(index)):
        options.append(REMOVE_DANGLING)
    # Shortening frees characters, never a line: it makes room only where the characters
    # cut before the 200th line does, and only by the long lines Claude loads.
    chars_cut = index.cut is not None and index.loaded_lines < MAX_LINES
    if chars_cut and any(line.state == "loaded" and line.width > LINE_WARN
                         for line in index.raw_lines):
        options.append(SHORTEN_LINES)
    options.append(MOVE_OUT)
    return tuple(options)


def _finish(
    store: Store, index: EditableIndex, lines: list[tuple[str, str]], label: str, summary: list[str],
    *, other_changes: Sequence[FileChange] = (), must_show: Sequence[str] = (),
    may_hide: Iterable[str] = (),
) -> Plan:
    """A plan from the edited index lines, with what it pushes past the cut."""
    new_text = index.joined(lines)
    after = index.parse(new_text)
    shown = visible_files(after)
    pushed: list[str] = []
    if visible_files(index.parsed) - shown:  # else all it reached, it still does
        still_linked = {link.file for link in after.links if link.file}
        reached = _Reached(store, index)
        pushed = sorted((reached(index.parsed).keys() & still_linked) - reached(after).keys()
                        - set(may_hide))
    pushed += [file for file in must_show if file not in shown]
    if pushed:
        summary = [*summary,
                   f"This would leave {', '.join(pushed)} past the loaded cut, "
                   f"where Claude does not see {'it' if len(pushed) == 1 else 'them'}."]
    changes = list(other_changes)
    if new_text != index.text:
        changes.append(FileChange(index.file, index.before, index.after(new_text)))
        if index.rest:
            summary = [*summary, f"{index.file} is too big to read whole: memtui edits its "
                                 f"first {human_bytes(index.rest)} and keeps the rest as it is."]
    options = _room_options(store, after) if pushed else ()
    return Plan(label, tuple(changes), summary, tuple(pushed), options)


# --- plans --------------------------------------------------------------------------------


def _top(index: LoadedIndex, count: int) -> int:
    """Where entries go when none is loaded: below frontmatter, comments and headings."""
    position = 0
    for line in index.raw_lines:
        if line.state != "stripped" and not line.text.startswith("#"):
            break
        position = line.number
    return min(position, count)


def combined(label: str, plans: Sequence[Plan]) -> Plan:
    """One plan from plans on different files of the store (memories and both indexes)."""
    return Plan(
        label,
        tuple(change for plan in plans for change in plan.changes),
        [sentence for plan in plans for sentence in plan.summary],
        tuple(file for plan in plans for file in plan.pushed_out),
        tuple(dict.fromkeys(option for plan in plans for option in plan.options)),
    )


def plan_relink(store: Store, files: Sequence[str]) -> Plan:
    """Put unindexed memories, those indexed only past the cut, and those only another
    memory links, inside the loaded cut of their index (team/MEMORY.md for team memory)."""
    for file in files:
        memory_of(store, file)
    index_files = dict.fromkeys([*(index.file for index in store.indexes),
                                 *(index_of(file) for file in files)])
    indexes = {file: read_index(store, file) for file in index_files}
    visible = {file for index in indexes.values() for file in visible_files(index.parsed)}
    one_file_notes, files = _one_name_per_file(store, files, indexes, visible)
    by_index: dict[str, list[str]] = {}
    for file in dict.fromkeys(files):
        if not file.isascii() and not is_utf8(file):
            raise WriteRefused(f"The name of {file} is not valid UTF-8, so no index line can "
                               "link it; rename it, then relink it.")
        by_index.setdefault(index_of(file), []).append(file)
    plans = [Plan("relink", (), one_file_notes),
             *(_relink_in(store, indexes[file], group, visible) for file, group in by_index.items())]
    if not any(plan.changes for plan in plans):
        return Plan("relink", (), [sentence for plan in plans for sentence in plan.summary])
    relinked = [file for group in by_index.values() for file in group if file not in visible]
    plan = combined(f"relink {plural(len(relinked), 'memory', 'memories')}", plans)
    if plan.pushed_out and INDEX_NAME in by_index:
        from tui.memory.relink_hubs import hubs_make_room

        if hubs_make_room(store, by_index[INDEX_NAME]):
            # Instead of moving entries out one by one (and the buttons stay in 80 columns).
            plan = replace(plan, options=(GROUP_IN_HUBS, *(option for option in plan.options
                                                           if option != MOVE_OUT)))
    return plan


def _one_name_per_file(store: Store, files: Sequence[str], indexes: Mapping[str, EditableIndex],
                       visible: set[str]) -> tuple[list[str], list[str]]:
    """(sentences, files to relink): a file with several names in the store (a symlink to
    it) needs one index line: under the name a line links already, else its own name."""
    same_files = same_file_names(store)
    if not same_files:
        return [], list(files)
    linked = {link.file for index in indexes.values() for link in entry_links(index.parsed)}
    notes: list[str] = []
    chosen: list[str] = []
    for file in files:
        names = same_files.get(file, (file,))
        seen = next((name for name in names if name in visible), None)
        if file == seen or len(names) == 1:
            chosen.append(file)  # `_relink_in` says what there is to do
            continue
        name = seen or next((name for name in names if name in linked), names[0])
        if name != file:
            reach = ("which the loaded index links already" if seen
                     else "and one index line reaches it under either name")
            notes.append(f"{file} is the same file as {name} (a symlink), {reach}.")
        if not seen:
            chosen.append(name)
    return notes, chosen


def is_utf8(name: str) -> bool:
    """Whether a file name decoded from bytes (undecodable ones kept as lone surrogates)
    can be written into an index."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _relink_in(store: Store, index: EditableIndex, files: Sequence[str], visible: set[str]) -> Plan:
    parsed = index.parsed
    lines = list(index.lines)
    moving: list[str] = []
    summary: list[str] = []
    remove: set[int] = set()
    relinked: list[str] = []
    origins: list[tuple[str, int | None]] = []  # per moving line: whose, and the line
    # it leaves (None: a new line)
    first_line: dict[str, int] = {}
    for link in entry_links(parsed):
        if link.file:
            first_line.setdefault(link.file, link.line)
    for file in files:
        memory = memory_of(store, file)
        if file in visible:
            summary.append(f"{file} is already visible in the loaded index; nothing to do.")
            continue
        past_cut = first_line.get(file)
        if past_cut is not None and past_cut not in remove:
            remove.add(past_cut)
            moving.append(index.lines[past_cut - 1][0])
            origins.append((file, past_cut))
        elif past_cut is None:
            moving.append(index_line(memory, folder=index.folder))
            origins.append((file, None))
        relinked.append(file)
    lines = [line for number, line in enumerate(lines, start=1) if number not in remove]
    if not moving:
        return Plan("relink", (), summary)
    return place_inside_cut(store, index, lines, moving, origins, relinked, summary,
                            f"relink {plural(len(relinked), 'memory', 'memories')}")


def place_inside_cut(
    store: Store, index: EditableIndex, lines: list[tuple[str, str]], moving: Sequence[str],
    origins: Sequence[tuple[str, int | None]], shown: Sequence[str], summary: list[str],
    label: str,
) -> Plan:
    """`moving` index lines (per line: whose, and the line it leaves, None for a new one)
    put into `lines` where Claude loads them: after the last loaded entry, walked up while
    that leaves any of the `shown` files past the cut."""
    kept = index.parse(index.joined(lines))
    loaded_links = [link.line for link in kept.links if link.visible]
    position = max(loaded_links) if loaded_links else _top(kept, len(lines))
    block = [(text, index.eol) for text in moving]
    # Entries inserted right after the last loaded line would land past the cut: walk up.
    for _ in range(len(lines) + 1):
        candidate = lines[:position] + block + lines[position:]
        result = index.parse(index.joined(candidate))
        now_visible = visible_files(result)
        hidden = [file for file in shown if file not in now_visible]
        last_loaded = max((line.number for line in result.raw_lines if line.state == "loaded"),
                          default=0)
        if not hidden or position == 0:
            break
        position = max(0, min(position - 1, last_loaded - len(block)))
    in_index = "" if index.file == INDEX_NAME else f" to {index.file}"
    for offset, (file, origin) in enumerate(origins):
        target = position + offset + 1
        loaded = result.raw_lines[target - 1].state == "loaded"
        if origin is None:
            summary.append(f"Add an index line for {file}{in_index} as line {target}.")
        else:
            summary.append(f"Move the index line for {file} from line {origin} up to line "
                           f"{target}" + (", inside the loaded cut." if loaded else "."))
    return _finish(store, index, candidate, label, summary, must_show=shown)


def plan_remove_dangling(store: Store, lines: Mapping[str, Iterable[int]] | None = None) -> Plan:
    """Drop index lines whose only links point at files that do not exist: in every index
    of the store, or only on these {index file: line numbers}."""
    index_files = [index.file for index in store.indexes] if lines is None else list(lines)
    dropped, plans = zip(*(_remove_dangling_in(store, read_index(store, file),
                                               None if lines is None else lines[file])
                           for file in index_files), strict=True)
    return combined(f"remove {plural(sum(dropped), 'dangling index line')}", plans)


def _remove_dangling_in(
    store: Store, index: EditableIndex, lines: Iterable[int] | None
) -> tuple[int, Plan]:
    wanted = None if lines is None else set(lines)
    drop: list[int] = []
    summary: list[str] = []
    for number, links in sorted(links_by_line(index.parsed).items()):
        if wanted is not None and number not in wanted:
            continue
        text = index.lines[number - 1][0]
        if all(_is_dangling(store, link.file) for link in links) and "://" not in text:
            drop.append(number)
            targets = ", ".join(link.target for link in links)
            summary.append(f"Remove {index.line_name(number)}, which links the missing {targets}.")
        elif wanted is not None and any(_is_dangling(store, link.file) for link in links):
            summary.append(f"{_capitalised(index.line_name(number))} also links what exists; "
                           "it is kept: edit it by hand.")
    kept = [line for number, line in enumerate(index.lines, start=1) if number not in drop]
    return len(drop), _finish(store, index, kept, "remove dangling", summary)


def _append_note(text: str, detail: str) -> str:
    crlf = text.count("\r\n")
    eol = "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"
    if text and not text.endswith("\n"):
        text += eol
    headings = [line.strip() for line in split_lines(text) if line.startswith("## ")]
    if headings and headings[-1] == INDEX_NOTE:
        return f"{text}{eol}{detail}{eol}"
    return f"{text}{eol}{INDEX_NOTE}{eol}{eol}{detail}{eol}"


def _contains(text: str, detail: str) -> bool:
    return " ".join(detail.split()) in " ".join(text.split())


def clip_at_word(text: str, units: int) -> str:
    """`text` within `units` UTF-16 units, cut at a word boundary and ending in "…"."""
    if utf16_len(text) <= units:
        return text
    clipped = _clip(text, units).removesuffix("…")
    cut = clipped.rstrip()
    if len(cut) < len(text) and not text[len(cut)].isspace():
        space = cut.rfind(" ")
        if space > len(cut) // 2:  # a word boundary not too far back; else cut the long word
            cut = cut[:space]
    return cut.rstrip(" ,;:—–-") + "…"


def plan_shorten_lines(store: Store, limit: int = LINE_WARN,
                       lines: Mapping[str, Iterable[int]] | None = None) -> Plan:
    """Shorten index lines over `limit` (in every index of the store, or only these
    {index file: line numbers}) by cutting their hook (the text after the link) at a word
    boundary; the title and link stay byte for byte, and the whole hook moves into the
    memory file so nothing is lost."""
    index_files = [index.file for index in store.indexes] if lines is None else list(lines)
    notes: dict[str, tuple[bytes, str]] = {}  # file -> (bytes before, new text)
    plans = []
    shortened = 0
    for file in index_files:
        index = read_index(store, file)
        edited, summary = _shorten_in(store, index, limit,
                                      None if lines is None else set(lines[file]), notes)
        shortened += sum(1 for old, new in zip(index.lines, edited, strict=True) if old != new)
        plans.append(_finish(store, index, edited, "", summary))
    changes = [FileChange(file, before, text.encode("utf-8"))
               for file, (before, text) in notes.items() if text.encode("utf-8") != before]
    label = f"shorten {plural(shortened, 'index line')}"
    return combined(label, [Plan(label, tuple(changes), []), *plans])


def _shorten_in(store: Store, index: EditableIndex, limit: int, wanted: set[int] | None,
                notes: dict[str, tuple[bytes, str]]) -> tuple[list[tuple[str, str]], list[str]]:
    """(the index's lines with the long ones shortened, what was done); each cut hook is
    added to its memory's text in `notes`."""
    lines = list(index.lines)
    summary: list[str] = []
    links = links_by_line(index.parsed)
    for line in index.parsed.raw_lines:
        if line.state == "stripped" or line.width <= limit:
            continue
        if wanted is not None and line.number not in wanted:
            continue
        where = _capitalised(index.line_name(line.number))
        link = next((link for link in links.get(line.number, [])
                     if link.file and store.memory(link.file)), None)
        if link is None:
            summary.append(f"{where} links no memory file; left as it is.")
            continue
        end = link.end
        head, hook = line.text[:end], line.text[end:]
        room = limit - 1 - utf16_len(head)
        detail = hook.strip(_HOOK_SEPARATORS)
        separator = hook[:len(hook) - len(hook.lstrip(_HOOK_SEPARATORS))]
        if not detail:
            summary.append(f"{where} says what it says before its link, and memtui shortens "
                           "only the words after a link; left as it is (edit it by hand).")
            continue
        if room <= utf16_len(separator) + 1:
            summary.append(f"{where}: its title and link alone are too long "
                           "to shorten without renaming; left as it is.")
            continue
        short = head + separator + clip_at_word(detail, room - utf16_len(separator))
        if link.file not in notes:
            data = read_bytes(store.path, link.file)
            if data is None:
                continue
            notes[link.file] = (data, _decode(link.file, data))
        before, text = notes[link.file]
        if not _contains(text, detail):
            notes[link.file] = (before, _append_note(text, detail))
            kept = f"the whole hook is kept in {link.file} under \"{INDEX_NOTE}\""
        else:
            kept = f"{link.file} already holds the whole hook"
        summary.append(f"{where} ({kept}):\n  before: {line.text}\n"
                       f"  after:  {short}")
        lines[line.number - 1] = (short, lines[line.number - 1][1])
    return lines, summary


def _capitalised(where: str) -> str:
    """"index line 3" begins a sentence as "Index line 3"; a file name keeps its case."""
    return "I" + where[1:] if where.startswith("index ") else where


def _plan_removal(store: Store, files: Sequence[str], verb: str) -> Plan:
    removed = set(files)
    changes: list[FileChange] = []
    summary: list[str] = []
    for file in files:
        memory_of(store, file)
        data = read_bytes(store.path, file)
        if data is None:
            raise WriteRefused(f"{file} no longer exists.")
        changes.append(FileChange(file, data, None))
        if verb == "archive":
            summary.append(f"Move {file} to the archive ({archive_dir(store.path)}).")
        else:
            summary.append(f"Delete {file} (a backup is kept, so undo brings it back).")
    label = f"{verb} {plural(len(files), 'memory', 'memories')}"
    hubs = [_hub_without(store, hub, removed) for hub in _hubs_linking(store, removed)]
    emptied = {hub.file for hub in hubs if hub.after is None}
    listing = {hub.file: hub.titles for hub in hubs if hub.after is not None}
    plans = [Plan(label, tuple(changes), summary),
             *(Plan(label, (hub.change,), hub.summary) for hub in hubs)]
    for index in (read_index(store, index.file) for index in store.indexes):
        drop: set[int] = set()
        lines = list(index.lines)
        notes: list[str] = []
        for number, links in links_by_line(index.parsed).items():
            linked = {link.file for link in links}
            if linked & (removed | emptied):
                if linked <= removed | emptied:
                    drop.add(number)
                    notes.append(f"Remove {index.line_name(number)}.")
                else:
                    where = index.line_name(number)
                    notes.append(f"{_capitalised(where)} also links other files; "
                                 "it is kept, edit it by hand.")
            elif len(linked) == 1 and (hub := next(iter(linked))) in listing:
                text, ending = lines[number - 1]
                recounted = _recounted(text, hub, listing[hub])
                if recounted != text:
                    lines[number - 1] = (recounted, ending)
                    notes.append(f"Update {index.line_name(number)}, the line for {hub}: it "
                                 f"lists {plural(len(listing[hub]), 'memory', 'memories')} now.")
        kept = [line for number, line in enumerate(lines, start=1) if number not in drop]
        plans.append(_finish(store, index, kept, label, notes))
    plans.append(Plan(label, (), _links_left(store, removed, {hub.file for hub in hubs})))
    return combined(label, plans)


@dataclass(frozen=True)
class _HubEdit:
    """A hub of memtui's with the lines of removed memories taken out."""

    file: str
    before: bytes
    after: bytes | None  # None: no line is left, so the hub goes too
    mtime: float  # kept: what the hub says is its memories', and recall orders by mtime
    titles: tuple[str, ...]  # of the memories it still lists, in its order
    summary: list[str]

    @property
    def change(self) -> FileChange:
        return FileChange(self.file, self.before, self.after,
                          mtime=None if self.after is None else self.mtime)


def _hubs_linking(store: Store, removed: set[str]) -> list[str]:
    """memtui's own hubs (the index files a dream writes) that link a removed memory."""
    hubs = []
    for file in HUB_FILES:
        memory = store.memory(file)
        if memory is None or file in removed or memory.link_target is not None or memory.error:
            continue
        if set(memory_links(file, memory.text, store.wiki_names)) & removed:
            hubs.append(file)
    return hubs


def _hub_without(store: Store, hub: str, removed: set[str]) -> _HubEdit:
    """The hub without its lines that link only removed memories: its lines are memtui's
    structure, so they follow the memories (a user's own index keeps its text)."""
    index = read_index(store, hub)
    if index.before is None:
        raise WriteRefused(f"{hub} no longer exists.")
    drop: set[int] = set()
    summary: list[str] = []
    titles: list[str] = []
    for number, links in sorted(links_by_line(index.parsed).items()):
        linked = {link.file for link in links}
        if linked <= removed:
            drop.add(number)
            summary.append(f"Remove the line for {', '.join(sorted(linked))} from {hub}.")
            continue
        titles.append(links[0].title or links[0].target)
        if linked & removed:
            summary.append(f"{hub} line {number} also links other files; it is kept, "
                           "edit it by hand.")
    mtime = memory_of(store, hub).mtime
    if not titles:
        summary.append(f"Remove {hub}, which lists no memory now, and its line in "
                       f"{INDEX_NAME}.")
        return _HubEdit(hub, index.before, None, mtime, (), summary)
    kept = [line for number, line in enumerate(index.lines, start=1) if number not in drop]
    return _HubEdit(hub, index.before, index.after(index.joined(kept)), mtime, tuple(titles),
                    summary)


_STATED_COUNT = re.compile(r"\b\d[\d,]* more\b")


def _recounted(line: str, hub: str, titles: Sequence[str]) -> str:
    """MEMORY.md's line for a hub that lists `titles` now: the dream's line written anew,
    or in a line of the user's wording, only the count it states made true."""
    if line.startswith(f"- [{hub_title(hub)}]({hub}) — "):
        return hub_line(hub, titles)
    return _STATED_COUNT.sub(f"{len(titles)} more", line, count=1)


def _links_left(store: Store, removed: set[str], hubs: Collection[str]) -> list[str]:
    """Which remaining memories link the removed ones (a second-level index, a `[[name]]`):
    their text is theirs, so the links stay, and the user is told where they are. memtui's
    own `hubs` follow the removal instead."""
    notes = []
    for memory in store.memories:
        if memory.file in removed or memory.file in hubs or "[" not in memory.text:
            continue
        hits = set(memory_links(memory.file, memory.text, store.wiki_names))
        if hits & removed:
            notes.append(f"{memory.file} links {', '.join(sorted(hits & removed))}; that link "
                         f"is left as it is and will point at nothing: edit {memory.file} by "
                         "hand.")
    return notes


def plan_archive(store: Store, files: Sequence[str]) -> Plan:
    """Remove memories and their index lines, keeping a copy in the archive.

    The label starts with "archive", which makes `apply_changes` copy the files there.
    """
    return _plan_removal(store, files, "archive")


def plan_delete(store: Store, files: Sequence[str]) -> Plan:
    """Remove memories and their index lines (the backups still allow an undo)."""
    return _plan_removal(store, files, "delete")


def plan_move_entry(store: Store, file: str, position: int) -> Plan:
    """Move the index line of `file` so that it becomes line `position` (1-based).

    A position inside the leading frontmatter block means the first line after it.
    """
    index = read_index(store)
    origin = next((link.line for link in entry_links(index.parsed) if link.file == file), None)
    if origin is None:
        raise WriteRefused(f"{file} has no line in MEMORY.md to move.")
    lines = list(index.lines)
    content, _ = lines.pop(origin - 1)
    frontmatter = BLOCK.match(index.text)
    first = frontmatter.group(0).count("\n") + 1 if frontmatter else 1
    at = min(max(position, first), len(lines) + 1)
    lines.insert(at - 1, (content, index.eol))
    summary = [f"Move the index line for {file} from line {origin} to line {at}."]
    if file not in visible_files(index.parse(index.joined(lines))):
        summary.append(f"{file} will then be past the loaded cut, where Claude does not see it.")
    return _finish(store, index, lines, f"move index line for {file}", summary,
                   may_hide=[file])



def texts_on_disk(store: Store, names: Sequence[str], only: Collection[str] | None = None,
                  ) -> Iterator[tuple[str, bytes | None, str | None]]:
    """(file, its bytes now, its text, None when it is not UTF-8) for each of `names` (of
    those in `only`, when given) still on disk: what a rewrite plan edits.

    memtui writes only regular files. Over the whole store (no `only`), a memory or index
    that is a symlink comes with its text as read through the link and no bytes, so the plan
    can say what it leaves there rather than refuse every other file's repair; named in
    `only`, it is refused like any write to a link. A second name of another memory of the
    store is left out: that memory comes under its own name."""
    linked: dict[str, Memory | IndexFile] = {}  # the symlinks among `names`
    if only is None:
        linked = {m.file: m for m in store.memories if m.link_target is not None}
        linked.update({index.file: index for index in store.indexes
                       if os.path.islink(store.path / index.file)})
    same_files = same_file_names(store) if linked else {}
    for file in names if only is None else [name for name in names if name in only]:
        if (link := linked.get(file)) is not None:
            if isinstance(link, IndexFile):
                if link.text is not None and not link.not_text:
                    yield file, None, link.text
            elif not link.error and same_files.get(file, (file,))[0] == file:
                yield file, None, None if link.non_utf8 else link.text
            continue
        before = read_bytes(store.path, file)
        if before is None:
            continue
        try:
            yield file, before, before.decode("utf-8")
        except UnicodeDecodeError:
            yield file, before, None


def plan_redact_secrets(store: Store, files: Sequence[str] | None = None) -> Plan:
    """Replace every credential in the index and the memories (or in `files`) with
    `[REDACTED]`; the rest of each line, and of each file, keeps its bytes."""
    from tui.memory.secrets import find_secrets, redact

    names = [index.file for index in store.indexes]
    names += [m.file for m in store.memories if not m.error]
    changes: list[FileChange] = []
    summary: list[str] = []
    redacted = 0
    for file, before, text in texts_on_disk(store, names, files):
        if text is None:
            continue  # not text memtui can rewrite byte for byte
        hits = list(find_secrets(text))
        if not hits:
            continue
        if before is None:
            summary.append(f"{file} is a symlink, and memtui writes only regular files: "
                           f"redact its {plural(len(hits), 'secret')} in the file it points to.")
            continue
        lines = split_lines(text)
        for hit in sorted(hits, key=lambda h: (h.line, -h.start)):
            lines[hit.line - 1] = redact(lines[hit.line - 1], hit)
            summary.append(f"Redact the {hit.kind} on line {hit.line} of {file}.")
            redacted += 1
        changes.append(FileChange(file, before, "\n".join(lines).encode("utf-8")))
    label = f"redact {plural(redacted, 'secret')}"
    return Plan(label, tuple(changes), summary or ["No secret found."])


# --- sync conflicts ------------------------------------------------------------------------

KEEP_PHRASES = {"first": "keep the first text", "second": "keep the second text",
                "both": "keep both texts"}
SHOWN_CONFLICT_LINES = 4  # of each text, in the summary


def plan_keep_sync_side(store: Store, files: Sequence[str], keep: str) -> Plan:
    """Each conflict `memtui sync` left in `files` replaced by the text(s) `keep` names:
    "first" (the machine that merged), "second" (the remote's) or "both"; the other two
    choices are the plan's options. What `memtui merge FILE --keep` does."""
    from tui.memory.conflicts import find_conflicts, resolve

    changes: list[FileChange] = []
    summary: list[str] = []
    for file in files:
        before = read_bytes(store.path, file)
        if before is None:
            continue
        text = before.decode("utf-8", "surrogateescape")  # bytes kept, whatever they are
        conflicts = find_conflicts(text)
        for conflict in conflicts:
            summary.append(f"Line {conflict.line} of {file}:" + "".join(
                _conflict_side("keep:" if keep in (side, "both") else "drop:", where, lines)
                for side, where, lines in (("first", f"first, from {conflict.machine}",
                                            conflict.first),
                                           ("second", f"second, from {conflict.other}",
                                            conflict.second))))
        if conflicts:
            changes.append(FileChange(file, before,
                                      resolve(text, keep).encode("utf-8", "surrogateescape")))
    label = f"resolve {plural(len(summary), 'sync conflict')}: {KEEP_PHRASES[keep]}"
    others = tuple(phrase for choice, phrase in KEEP_PHRASES.items() if choice != keep)
    return Plan(label, tuple(changes), summary or ["No conflict from memtui sync there."],
                options=others if changes else ())


def _conflict_side(verb: str, where: str, lines: tuple[str, ...]) -> str:
    """One text of a conflict as summary lines: `keep:` or `drop:`, its origin, its lines."""
    shown = [line.rstrip("\r\n") for line in lines[:SHOWN_CONFLICT_LINES]]
    if len(lines) > SHOWN_CONFLICT_LINES:
        shown.append(f"… {plural(len(lines) - SHOWN_CONFLICT_LINES, 'more line')}")
    return "".join(f"\n  {verb} {line}" for line in [f"({where})", *shown])
