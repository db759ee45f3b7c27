"""Relinking more orphans than MEMORY.md has room for (or copying in more memories than it
has room for, `transfer`): the ones that fit go inside the cut, the rest into hubs
(`tui.memory.hubs`, the files a dream writes) that MEMORY.md links.

Which fit is decided as the dream ranks entries (type: user, feedback, project, reference,
other; then newest first). A memory indexed past the cut moves its line, whole, into its
hub; an unindexed one gets a new line there. A hub that exists already keeps its text and
gets the new lines at its end, and its line in MEMORY.md says how many it lists now. Nothing
already inside the cut moves: when MEMORY.md has no room even for the hubs' lines, the plan
changes nothing and says that the dream makes room.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tui.claude.memory_files import index_of
from tui.claude.paths import INDEX_NAME
from tui.memory import curate
from tui.memory.frontmatter import MEMORY_TYPES
from tui.memory.hubs import hub_for, hub_line, hub_text
from tui.memory.store import Memory, Store
from tui.memory.writes import FileChange
from tui.words import plural


def _rank(memory: Memory) -> tuple[int, float]:
    kind = memory.type
    return (MEMORY_TYPES.index(kind) if kind in MEMORY_TYPES else len(MEMORY_TYPES),
            -memory.mtime)


def plan_relink_in_hubs(store: Store, files: Sequence[str]) -> curate.Plan:
    """Relink what fits inside MEMORY.md's loaded cut, group the rest of `files` under hubs
    that MEMORY.md links; team memories are relinked into their own index as usual."""
    memories = _outside_cut(store, files)
    team = [file for file in files if index_of(file) != INDEX_NAME]
    if not memories:
        return curate.plan_relink(store, files)
    best, fits = place_with_hubs(store, memories)
    if best.pushed_out:
        return curate.Plan("relink", (), [NO_ROOM])
    label = (f"relink {plural(fits, 'memory', 'memories')}, "
             f"group {len(memories) - fits} in hubs")
    if team:
        return curate.combined(label, [best, curate.plan_relink(store, team)])
    return curate.Plan(label, best.changes, best.summary, (), ())


NO_ROOM = (f"{INDEX_NAME} has no room inside its loaded cut even for a hub's line: the "
           "dream (D, or `memtui dream`) makes room by moving entries into hubs.")


def place_with_hubs(store: Store, memories: Sequence[Memory],
                    new_lines: Mapping[str, str] | None = None) -> tuple[curate.Plan, int]:
    """(MEMORY.md's lines for `memories`, none of them linked inside its cut: the most that
    fit inside the cut, as the dream ranks them, the rest in hubs; how many fit). The plan
    still pushes entries out when not even the hubs' lines fit. `memories` need not be in
    `store` yet (a copy's); `new_lines`: the line for one MEMORY.md does not link yet, by
    file (default: one made from the memory)."""
    index, ranked, past_cut = _placing(store, memories)
    lines = new_lines or {}
    fits, best = 0, _grouped(store, index, ranked, 0, dict(past_cut), lines)
    low, high = 1, len(ranked)
    while low <= high:  # the most that fit: each one more takes room from the hubs' lines
        middle = (low + high) // 2
        plan = _grouped(store, index, ranked, middle, dict(past_cut), lines)
        if plan.pushed_out:
            high = middle - 1
        else:
            fits, best, low = middle, plan, middle + 1
    return best, fits


def hubs_make_room(store: Store, files: Sequence[str]) -> bool:
    """Whether MEMORY.md has room for the hubs' lines, were every one of `files` put in a
    hub: then `plan_relink_in_hubs` relinks them all without pushing an entry out."""
    return hubs_fit(store, _outside_cut(store, files))


def _outside_cut(store: Store, files: Sequence[str]) -> list[Memory]:
    """The memories of `files` that MEMORY.md is to reach and does not link inside its cut."""
    visible = curate.visible_files(curate.read_index(store).parsed)
    return [curate.memory_of(store, file) for file in dict.fromkeys(files)
            if index_of(file) == INDEX_NAME and file not in visible]


def hubs_fit(store: Store, memories: Sequence[Memory],
             new_lines: Mapping[str, str] | None = None) -> bool:
    """Whether MEMORY.md has room for the hubs' lines, were every one of `memories` put in
    a hub: then `place_with_hubs` places them all without pushing an entry out."""
    index, ranked, past_cut = _placing(store, memories)
    return bool(ranked) and not _grouped(store, index, ranked, 0, past_cut,
                                         new_lines or {}).pushed_out


def _placing(store: Store, memories: Sequence[Memory]
             ) -> tuple[curate.EditableIndex, list[Memory], dict[str, int]]:
    """(MEMORY.md, `memories`, best first, the line each of its files has past the cut)."""
    index = curate.read_index(store)
    past_cut: dict[str, int] = {}
    for link in curate.entry_links(index.parsed):
        if link.file:
            past_cut.setdefault(link.file, link.line)
    return index, sorted(memories, key=_rank), past_cut


def _grouped(store: Store, index: curate.EditableIndex, ranked: Sequence[Memory], fits: int,
             past_cut: dict[str, int], new_lines: Mapping[str, str]) -> curate.Plan:
    """The plan that relinks the first `fits` of `ranked` and puts the rest in hubs."""
    inside, rest = ranked[:fits], ranked[fits:]
    by_hub: dict[str, list[Memory]] = {}
    for memory in rest:
        by_hub.setdefault(hub_for(memory.type), []).append(memory)
    moving_files = {memory.file for memory in ranked}
    lines = list(index.lines)
    moving: list[str] = []
    origins: list[tuple[str, int | None]] = []
    summary: list[str] = []
    for memory in inside:
        line = past_cut.get(memory.file)
        moving.append(index.lines[line - 1][0] if line else _new_line(memory, new_lines))
        origins.append((memory.file, line))
    hub_changes = []
    hub_lines = curate.links_by_line(index.parsed)
    for hub, members in by_hub.items():
        change, titles = _hub_change(store, hub, members, index, past_cut, new_lines)
        hub_changes.append(change)
        line = next((number for number, links in hub_lines.items()
                     if {link.file for link in links} == {hub}), None)
        if line is not None and hub in curate.visible_files(index.parsed):
            text, ending = lines[line - 1]
            lines[line - 1] = (curate._recounted(text, hub, titles), ending)
        else:
            moving.append(hub_line(hub, titles))
            origins.append((hub, line))
            if line is not None:
                moving_files.add(hub)
                past_cut[hub] = line
        verb = "Add" if change.before is None else "Add to"
        summary.append(f"{verb} {hub}, which {INDEX_NAME} links, the index lines of "
                       f"{plural(len(members), 'memory', 'memories')} that do not fit: "
                       f"{', '.join(memory.file for memory in members)}.")
    leaving = {past_cut[file] for file in moving_files if file in past_cut}
    lines = [line for number, line in enumerate(lines, start=1) if number not in leaving]
    shown = [*(memory.file for memory in inside), *by_hub]
    plan = curate.place_inside_cut(store, index, lines, moving, origins, shown, summary,
                                   "relink")
    return curate.Plan(plan.label, (*plan.changes, *hub_changes), plan.summary,
                       plan.pushed_out, plan.options)


def _new_line(memory: Memory, new_lines: Mapping[str, str]) -> str:
    return new_lines.get(memory.file) or curate.index_line(memory)


def _hub_change(store: Store, hub: str, members: Sequence[Memory], index: curate.EditableIndex,
                past_cut: dict[str, int], new_lines: Mapping[str, str]
                ) -> tuple[FileChange, list[str]]:
    """(the hub with the members' lines at its end, the titles of every memory it lists)."""
    entries = [index.lines[past_cut[memory.file] - 1][0] if memory.file in past_cut
               else _new_line(memory, new_lines) for memory in members]
    titles = [curate.title_of(memory) for memory in members]
    existing = store.memory(hub)
    if existing is None:
        oldest = min((memory.mtime for memory in store.memories), default=None)
        return FileChange(hub, None, hub_text(hub, None, [], entries).encode("utf-8"),
                          mtime=oldest), titles
    hub_index = curate.read_index(store, hub)
    listed = [link.title or link.target for link in curate.entry_links(hub_index.parsed)]
    lines = [*hub_index.lines, *((entry, "") for entry in entries)]
    after = hub_index.after(hub_index.joined(lines))
    return FileChange(hub, hub_index.before, after, mtime=existing.mtime), [*listed, *titles]
