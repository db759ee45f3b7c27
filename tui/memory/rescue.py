"""Rescue: a stranded store's memories brought into the store its project's sessions use.

A store keyed by a removed worktree (issue #81833) or by a path that is gone is loaded by
no session, so what it holds is invisible to Claude. A rescue copies each of its memories
into the live store (subfolders and mtimes kept: recall orders memories by mtime), carries
each one's index line over from the stranded index (or makes one from the memory's
description), and puts those lines inside the live index's loaded cut the way relink does.
Nothing is overwritten: an identical file is skipped, a different one with the same name
comes in under a new name. The plan is one change set on the live store (one undo takes it
back); the stranded store is only read.

A rescue is done when planning it again changes nothing and leaves no text of the stranded
index behind: the stranded store is then no error, and retiring it archives its files (one
change set on it, undone like any other).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from tui.claude.memory_files import index_of
from tui.claude.paths import INDEX_NAME
from tui.memory.curate import (
    Plan,
    entry_links,
    index_line,
    is_utf8,
    place_inside_cut,
    read_index,
    visible_files,
)
from tui.memory.hubs import HUB_FILES
from tui.memory.index import IndexLink, parse_index
from tui.memory.links import link_target, wiki_names
from tui.memory.refusals import WriteRefused
from tui.memory.store import Memory, Store, load_store
from tui.memory.writes import FileChange, read_bytes
from tui.words import plural


@dataclass(frozen=True)
class Rescue:
    stranded: Path
    live: Path  # where the plan writes
    plan: Plan
    left: tuple[str, ...] = ()  # with nothing to copy: the stranded index text not carried
    memories: int = 0  # in the stranded store

    @property
    def done(self) -> bool:
        """Every memory of the stranded store is in the live one and no text of its index
        is left behind: nothing is lost if it goes."""
        return not self.plan.changes and not self.left


@dataclass(frozen=True)
class _Landing:
    """Where one stranded memory lands in the live store."""

    memory: Memory
    file: str  # its name in the live store
    data: bytes
    copied: bool  # False: the live store holds these bytes under `file` already


def prepare_rescue(stranded: Path, home: Path, env: Mapping[str, str] | None = None,
                   settings_file: Path | None = None) -> Rescue:
    """The rescue of the store at `stranded`, or `WriteRefused` (one sentence) when it is
    not stranded or no live store can be found for it."""
    from tui.claude.discovery import live_store

    found = live_store(Path(stranded), home, env, settings_file)
    if not found.stranded:
        raise WriteRefused(f"{stranded} is not stranded ({found.why}), so there is nothing "
                           "to rescue.")
    if found.store is None:
        raise WriteRefused(f"No live store was found for {stranded}: {found.why}; nothing "
                           "was written.")
    rescue = rescue_into(Path(stranded), found)
    where = f"The memories go to {found.store}: {found.why}."
    done = [f"The rescue is done: nothing of {stranded} is lost; `memtui fix {stranded} "
            "retire` archives it (undo brings it back)."] if rescue.done else []
    return replace(rescue, plan=replace(rescue.plan,
                                        summary=[where, *rescue.plan.summary, *done]))


def rescue_into(stranded: Path, found) -> Rescue:
    """The rescue of `stranded` into the live store `found` (a `discovery.LiveStore`
    that has one)."""
    store = load_store(stranded)
    plan = plan_rescue(store, load_store(found.store), rescue_tag(found.key_path, stranded))
    left = () if plan.changes else tuple(
        index_text_left(store, {memory.file for memory in store.memories}))
    return Rescue(stranded, found.store, plan, left, len(store.memories))


def finished_rescue(stranded: Path, home: Path, env: Mapping[str, str] | None = None,
                    settings_file: Path | None = None) -> Rescue | None:
    """The rescue of a stranded store when it is done (see `Rescue.done`), else None."""
    from tui.claude.discovery import live_store

    found = live_store(stranded, home, env, settings_file)
    if not found.stranded or found.store is None:
        return None
    rescue = rescue_into(stranded, found)
    return rescue if rescue.done else None


def rescued_stores(projects: Iterable, home: Path, env: Mapping[str, str] | None = None,
                   settings_file: Path | None = None) -> dict[Path, Path]:
    """The stranded stores among `projects` (discovery's) whose rescue is done, each with
    the live store that holds their memories."""
    done = {}
    for project in projects:
        if not (project.stranded and project.store and project.store_exists):
            continue
        try:
            rescue = finished_rescue(project.store, home, env, settings_file)
        except (OSError, WriteRefused):  # unreadable now: it stays "stranded"
            continue
        if rescue is not None:
            done[project.store] = rescue.live
    return done


def plan_retire(stranded: Store, rescue: Rescue) -> Plan:
    """A rescued stranded store's memories and indexes removed, each copied to memtui's
    archive first (the label starts with "archive"): `memtui undo` brings them back."""
    files = [memory.file for memory in stranded.memories if memory.link_target is None]
    files += [index.file for index in stranded.indexes if index.loaded.exists]
    changes = []
    for file in files:
        try:
            data = read_bytes(stranded.path, file)
        except WriteRefused:  # not a regular file: left where it is
            continue
        if data is not None:
            changes.append(FileChange(file, data, None))
    summary = [
        f"Every memory of {stranded.path} is in {rescue.live} already: the rescue is done.",
        f"Remove its {plural(len(changes), 'file')}, each copied to memtui's archive first; "
        f"memtui undo {stranded.path} brings them back.",
    ]
    if not changes:
        summary = [f"{stranded.path} holds nothing left to archive."]
    return Plan(f"archive the rescued store ({plural(len(changes), 'file')})", tuple(changes),
                summary)


def rescue_tag(key_path: str | None, stranded: Path) -> str:
    """What a renamed memory is marked with: the worktree's folder name (`-from-<tag>`)."""
    name = PurePosixPath(key_path.replace("\\", "/")).name if key_path else stranded.parent.name
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "stranded"


def plan_rescue(stranded: Store, live: Store, tag: str) -> Plan:
    """Every memory of `stranded` copied into `live`, linked inside its loaded cut."""
    summary: list[str] = []
    landings = _with_hubs_retargeted(stranded, _landings(stranded, live, tag, summary), summary)
    copies = [FileChange(land.file, None, land.data, mtime=land.memory.mtime)
              for land in landings if land.copied]
    # Memories copied by an earlier rescue whose lines the live index lost: only lines come.
    label = (f"rescue {plural(len(copies), 'memory', 'memories')} from {tag}" if copies
             else f"rescue index lines from {tag}")
    if copies:
        named = [land.memory.file for land in landings if land.copied]
        summary.insert(0, f"Copy {_listed(named)}, each with its mtime.")
    elif not landings:
        summary.append("The stranded store holds no memory to rescue.")
    summary += index_text_left(stranded, {land.memory.file for land in landings})
    names = wiki_names([*((m.file, m.frontmatter.name) for m in live.memories),
                        *((land.file, land.memory.frontmatter.name) for land in landings)])
    plans = [_link_in(live, index_file, group, stranded, names, label)
             for index_file, group in _by_index(landings).items()]
    changes = (*copies, *(change for plan in plans for change in plan.changes))
    if changes:
        summary.append(f"The stranded store {stranded.path} is only read: it stays as it is.")
    else:  # what `--json` says the plan does
        label = f"nothing to rescue from {tag}"
    summary += [sentence for plan in plans for sentence in plan.summary]
    return Plan(label, changes, summary,
                tuple(file for plan in plans for file in plan.pushed_out),
                tuple(dict.fromkeys(option for plan in plans for option in plan.options)))


def _landings(stranded: Store, live: Store, tag: str, summary: list[str]) -> list[_Landing]:
    """Each readable memory, with the live name it gets; what is skipped is said."""
    landings: list[_Landing] = []
    taken: set[str] = set()
    for memory in stranded.memories:
        file = memory.file
        if not is_utf8(file):
            summary.append(f"The name of {file} is not valid UTF-8, so no index line can link "
                           "it; it is left in the stranded store: rename it, then rescue again.")
            continue
        if memory.link_target is not None:
            summary.append(f"{file} is a symlink (to {memory.link_target}); it is left in the "
                           "stranded store: copy what it points at by hand.")
            continue
        try:
            data = read_bytes(stranded.path, file)
        except WriteRefused as refused:
            summary.append(f"{refused} It is left in the stranded store.")
            continue
        if data is None:
            continue  # deleted since the store was read
        name, copied = _landing_name(live.path, file, data, tag, taken)
        taken.add(name)
        landings.append(_Landing(memory, name, data, copied))
        if not copied:
            summary.append(f"{file} is already in {live.path}"
                           + ("" if name == file else f" as {name}") + " (identical); not copied.")
        elif name != file:
            summary.append(f"{file} differs from the live store's; it comes in as {name}.")
    return landings


def _landing_name(live: Path, file: str, data: bytes, tag: str,
                  taken: set[str]) -> tuple[str, bool]:
    """(the live name for `file`'s bytes, whether they need copying): its own name when
    free, else `<stem>-from-<tag>.md`, `-2`... ; a name holding the same bytes is taken as
    it is (a rescue done before)."""
    stem = file.removesuffix(".md")
    candidates = [file, f"{stem}-from-{tag}.md"]
    number = 2
    while True:
        for name in candidates:
            if name in taken:
                continue
            try:
                existing = read_bytes(live, name)
            except WriteRefused:  # a symlink, a pipe: not a name to write
                continue
            if existing is None:
                return name, True
            if existing == data:
                return name, False
        candidates = [f"{stem}-from-{tag}-{number}.md"]
        number += 1


def _with_hubs_retargeted(stranded: Store, landings: list[_Landing],
                          summary: list[str]) -> list[_Landing]:
    """The landings, each of memtui's hubs among them linking the memories it lists under
    the names they land with: a hub's lines are memtui's structure, so they follow a rename
    (a memory of the user's that links others keeps its text)."""
    live_name = {land.memory.file: land.file for land in landings}
    if all(new == old for old, new in live_name.items()):
        return landings
    out = []
    for land in landings:
        if land.copied and land.memory.file in HUB_FILES:
            try:
                hub = read_index(stranded, land.memory.file)
            except WriteRefused:  # not UTF-8: copied as it is
                hub = None
            if hub is not None and hub.before == land.data:
                land = replace(land, data=hub.after(hub.joined(
                    _hub_lines_retargeted(hub, live_name, summary))))
        out.append(land)
    return out


def _hub_lines_retargeted(hub, live_name: Mapping[str, str],
                          summary: list[str]) -> list[tuple[str, str]]:
    lines = list(hub.lines)
    by_line: dict[int, list[IndexLink]] = {}
    for link in entry_links(hub.parsed):
        if link.file in live_name:
            by_line.setdefault(link.line, []).append(link)
    for number, links in sorted(by_line.items()):
        renamed = [link.file for link in links if live_name[link.file] != link.file]
        if not renamed:
            continue
        text, ending = lines[number - 1]
        retargeted = _retargeted(text, links, live_name, hub.folder)
        if retargeted is None:
            summary.append(f"{hub.file} line {number} links {', '.join(renamed)} by name, "
                           "which a rename cannot follow: edit it by hand.")
            continue
        lines[number - 1] = (retargeted, ending)
        summary.append(f"{hub.file} line {number} links "
                       + ", ".join(f"{file} as {live_name[file]}" for file in renamed) + ".")
    return lines


def _by_index(landings: Sequence[_Landing]) -> dict[str, list[_Landing]]:
    """The landings that need an index line, by the index that holds it."""
    groups: dict[str, list[_Landing]] = {}
    for land in landings:
        if not land.memory.is_log:  # daily logs are never indexed
            groups.setdefault(index_of(land.file), []).append(land)
    return groups


def _link_in(live: Store, index_file: str, group: Sequence[_Landing], stranded: Store,
             names: Mapping[str, str], label: str) -> Plan:
    """The live index's change: each landing not yet visible gets a line inside the cut,
    its own line moved up when the index holds one past the cut, else the stranded index's
    line for it, else one made from its description."""
    index = replace(read_index(live, index_file), names=names)
    parsed = index.parsed
    visible = visible_files(parsed)
    old_lines: dict[str, int] = {}
    for link in entry_links(parsed):
        if link.file:
            old_lines.setdefault(link.file, link.line)
    carried = _carried_lines(stranded, index_file, group, index.folder, names)
    moving: list[str] = []
    origins: list[tuple[str, int | None]] = []
    summary: list[str] = []
    remove: set[int] = set()
    shown: list[str] = []
    # In the stranded index's order; memories it had no line for after them.
    for land in sorted(group, key=lambda land: carried[land.file][0] if land.file in carried
                       else float("inf")):
        if land.file in visible or land.file in shown:
            continue
        shown.append(land.file)
        line = old_lines.get(land.file)
        if line is not None:
            if line not in remove:
                remove.add(line)
                moving.append(index.lines[line - 1][0])
                origins.append((land.file, line))
            continue
        if land.file in carried:
            moving.append(carried[land.file][1])
            shown += [other for other, (number, _) in carried.items()
                      if number == carried[land.file][0] and other not in shown]
        else:
            moving.append(index_line(_renamed(land.memory, land.file), folder=index.folder))
            summary.append(f"No line for {land.memory.file} could be carried from the "
                           "stranded index: its line is made from its description.")
        origins.append((land.file, None))
    if not moving:
        return Plan(label, (), summary)
    kept = [line for number, line in enumerate(index.lines, start=1) if number not in remove]
    return place_inside_cut(live, index, kept, moving, origins, shown, summary, label)


def _carried_lines(stranded: Store, index_file: str, group: Sequence[_Landing], folder: str,
                   names: Mapping[str, str]) -> dict[str, tuple[int, str]]:
    """live name -> (line number, text) of the stranded index's line for it, its links
    moved to the live names; a line whose links cannot follow a rename is left out."""
    if not any(index.file == index_file for index in stranded.indexes):
        return {}
    try:
        source = read_index(stranded, index_file)
    except WriteRefused:  # not UTF-8: its lines are made from the memories instead
        return {}
    live_name = {land.memory.file: land.file for land in group}
    found: dict[str, tuple[int, str]] = {}
    lines: dict[int, list[IndexLink]] = {}
    for link in entry_links(source.parsed):
        if link.file in live_name:
            lines.setdefault(link.line, []).append(link)
    for number, links in sorted(lines.items()):
        text = _retargeted(source.lines[number - 1][0], links, live_name, folder)
        if text is None:
            continue
        now_linked = {link.file for link in parse_index(text, names, folder=folder).links}
        for link in links:
            if live_name[link.file] in now_linked and live_name[link.file] not in found:
                found[live_name[link.file]] = (number, text)
    return found


def _retargeted(text: str, links: Sequence[IndexLink], live_name: Mapping[str, str],
                folder: str) -> str | None:
    """The line with each renamed memory's link pointing at its new name; None when a
    renamed one is linked by `[[name]]`, which a rename cannot follow."""
    for link in sorted(links, key=lambda link: -link.end):
        new = live_name[link.file]
        if new == link.file:
            continue
        if link.wiki:
            return None
        opening = text.rfind("](", 0, link.end)
        at = text.find(link.target, opening, link.end)
        if opening < 0 or at < 0:
            return None
        text = text[:at] + link_target(new.removeprefix(folder)) + text[at + len(link.target):]
    return text


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _renamed(memory: Memory, file: str) -> Memory:
    if memory.file == file:
        return memory
    return Memory(file, memory.location, memory.text, memory.frontmatter, memory.mtime,
                  memory.size)


def index_text_left(stranded: Store, rescued: set[str]) -> list[str]:
    """The stranded index lines that link no rescued memory (an old index held the
    memories' text itself): said, not carried, since they would land as loose text. Every
    line counts, past the cut too: `loaded` is the whole index as Claude reads it."""
    notes = []
    for index in stranded.indexes:
        linked = {link.line for link in index.loaded.links if link.file in rescued}
        loose = [line.number for line in index.loaded.raw_lines
                 if line.state != "stripped" and line.text.strip()
                 and not line.text.lstrip().startswith("#") and line.number not in linked]
        if loose:
            where = "" if index.file == INDEX_NAME else f" ({index.file})"
            first = f"line {loose[0]}" if len(loose) == 1 else f"line {loose[0]} first"
            notes.append(f"{plural(len(loose), 'line')} of the stranded index{where} "
                         f"{'links' if len(loose) == 1 else 'link'} no memory ({first}); not "
                         "carried over: copy by hand what Claude should still see.")
    return notes
