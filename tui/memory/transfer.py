"""Copy and move memories between stores: plans, then two safe writes. Nothing here asks.

A copy writes the memories into the target store and puts an index line for each inside
the target's loaded cut (`curate.place_inside_cut`, as a relink does): the source index's
own line when it has one, else one made from the memory; asked to (`hubs`), those that do
not fit go into the target's hubs, in the same change, as `relink_hubs` puts orphans. A
name the target already holds with other bytes is a collision, resolved by the caller's
choice per file (`KEEP_BOTH`: a new free name, `REPLACE`, `SKIP`), never silently. A
memory renamed so keeps the links the other memories copied with it have to it: they are
rewritten to the new name.

A move is that copy, then the source's own change (`curate.plan_delete`: the files and
their index lines removed), made as one change spanning both stores (`pairs`): a move
that fails, or is killed, half-way changes nothing, and one undo of either store
(`memtui undo TARGET` or `memtui undo SOURCE`) takes back both.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from tui.claude.memory_files import index_of, is_log
from tui.claude.paths import INDEX_NAME
from tui.memory import curate
from tui.memory.curate import GROUP_IN_HUBS, MOVE_OUT, REMOVE_DANGLING
from tui.memory.links import WikiNames, link_target, wiki_names
from tui.memory.refusals import WriteRefused
from tui.memory.relink_hubs import NO_ROOM, hubs_fit, place_with_hubs
from tui.memory.store import Memory, Store
from tui.memory.writes import FileChange, read_bytes
from tui.words import plural

KEEP_BOTH, REPLACE, SKIP = "keep-both", "replace", "skip"
CHOICES = (KEEP_BOTH, REPLACE, SKIP)


@dataclass
class Transfer:
    """What a copy or move changes in each store."""
    label: str
    target_changes: tuple[FileChange, ...]
    source_changes: tuple[FileChange, ...]  # none for a copy
    summary: list[str] = field(default_factory=list)
    pushed_out: tuple[str, ...] = ()  # target entries the new lines leave past the cut
    renamed: dict[str, str] = field(default_factory=dict)  # source name -> target name
    options: tuple[str, ...] = ()  # the target's ways to make room (`curate` options)
    hubs: tuple[str, ...] = ()  # the target's hubs given the lines that do not fit

    @property
    def empty(self) -> bool:
        return not self.target_changes and not self.source_changes


def collisions(source: Store, files: Sequence[str], target: Store) -> list[str]:
    """The files whose name the target holds with other bytes: the ones to ask about."""
    clashing = []
    for file in files:
        theirs = read_bytes(target.path, file)
        if theirs is not None and theirs != read_bytes(source.path, file):
            clashing.append(file)
    return clashing


def _free_name(file: str, taken: set[str], target: Store) -> str:
    path = PurePosixPath(file)
    for number in range(2, 10_000):
        name = str(path.with_name(f"{path.stem}-{number}{path.suffix}"))
        if name.casefold() not in taken and read_bytes(target.path, name) is None:
            return name
    raise WriteRefused(f"No free name is left for a copy of {file}; rename it first.")


def _renamed_links(text: str, renamed: Mapping[str, str], folder: str) -> str:
    """Markdown links to a renamed memory, written to its new name (relative to `folder`,
    the linking file's own)."""
    for old, new in renamed.items():
        old_rel, new_rel = _relative(old, folder), _relative(new, folder)
        pattern = re.compile(r"(\]\(\s*(?:\./)?)" + re.escape(link_target(old_rel))
                             + r"(\s*(?:#[^)]*)?\))")
        text = pattern.sub(lambda m, new=new_rel: m.group(1) + link_target(new) + m.group(2),
                           text)
    return text


def _relative(file: str, folder: str) -> str:
    return file[len(folder):] if folder and file.startswith(folder) else file


def plan_transfer(source: Store, files: Sequence[str], target: Store,
                  choices: Mapping[str, str], *, move: bool, hubs: bool = False) -> Transfer:
    """The changes copying (or moving) `files` from `source` to `target`; `choices`: for
    each file of `collisions`, one of CHOICES (WriteRefused when one is missing); `hubs`:
    the index lines that do not fit inside the target's cut go into its hubs."""
    if source.path.resolve() == target.path.resolve():
        raise WriteRefused("The source and the target are the same store; nothing to do.")
    verb = "move" if move else "copy"
    taken = set()
    renamed: dict[str, str] = {}
    carried: dict[str, tuple[str, bytes, bytes | None]] = {}  # file -> (name there, data, before)
    summary: list[str] = []
    for file in dict.fromkeys(files):
        if PurePosixPath(file).name == "MEMORY.md":
            raise WriteRefused(f"{file} is an index, not a memory: copy the memories it links.")
        curate.memory_of(source, file)
        data = read_bytes(source.path, file)
        if data is None:
            raise WriteRefused(f"{file} no longer exists.")
        theirs = read_bytes(target.path, file)
        name, before = file, theirs
        if theirs is not None and theirs != data:
            choice = choices.get(file)
            if choice not in CHOICES:
                raise WriteRefused(f"{file} exists in the target with other text; say whether "
                                   "to keep both, replace it or skip it.")
            if choice == SKIP:
                summary.append(f"Skip {file}: the target holds another {file}.")
                continue
            if choice == KEEP_BOTH:
                name, before = _free_name(file, taken, target), None
                renamed[file] = name
                summary.append(f"Copy {file} as {name}: the target holds another {file}.")
            else:
                summary.append(f"Replace the target's {file} (a backup is kept, so undo "
                               "brings it back).")
        elif theirs == data:
            summary.append(f"{file} is in the target already, byte for byte.")
        else:
            summary.append(f"Copy {file}.")
        taken.add(name.casefold())
        carried[file] = (name, data, before)
    changes: list[FileChange] = []
    for file, (name, data, before) in carried.items():
        folder = name[:name.rfind("/") + 1]
        after = _bytes(_renamed_links(_text(data), renamed, folder)) if renamed else data
        if after != before:
            mtime = _mtime_ns(source.path / file) if after == data else None
            changes.append(FileChange(name, before, after, mtime))
    summary += _links_left_behind(source, target, carried)
    label = f"{verb} {plural(len(carried), 'memory', 'memories')}"
    index_plans = _index_plans(source, target, carried, renamed, label, hubs)
    target_changes = (*changes, *(c for plan in index_plans for c in plan.changes))
    summary += [sentence for plan in index_plans for sentence in plan.summary]
    source_changes: tuple[FileChange, ...] = ()
    if move and carried:
        removal = curate.plan_delete(source, list(carried))
        source_changes = removal.changes
        summary += [f"Remove {file} from the source and its index line." for file in carried]
        summary += [s for s in removal.summary if not s.startswith(("Delete ", "Remove "))]
    return Transfer(label, target_changes, source_changes, summary,
                    tuple(file for plan in index_plans for file in plan.pushed_out), renamed,
                    tuple(dict.fromkeys(o for plan in index_plans for o in plan.options)),
                    tuple(change.file for plan in index_plans for change in plan.changes
                          if PurePosixPath(change.file).name != INDEX_NAME))


def _links_left_behind(source: Store, target: Store,
                       carried: Mapping[str, tuple[str, bytes, bytes | None]]) -> list[str]:
    """Which carried memories link a memory of the source that neither travels with them
    nor is in the target: there, that link points at nothing (their text is theirs: it is
    said, not rewritten). A link to code or to nothing in the source too is no news."""
    from tui.memory.reach import memory_links

    notes = []
    for file, (name, data, _) in carried.items():
        text = _text(data)
        missing = sorted(linked for linked in set(memory_links(file, text, source.wiki_names))
                         if linked not in carried and linked != file
                         and source.memory(linked) is not None
                         and read_bytes(target.path, linked) is None)
        if missing:
            notes.append(f"{name} links {', '.join(missing)}, which the target does not "
                         "hold: there that link points at nothing.")
    return notes


def _index_plans(source: Store, target: Store,
                 carried: Mapping[str, tuple[str, bytes, bytes | None]],
                 renamed: Mapping[str, str], label: str, hubs: bool) -> list[curate.Plan]:
    """Per index of the target: the lines for the carried memories, inside its cut; with
    `hubs`, MEMORY.md's that do not fit in the hubs it links (`relink_hubs`)."""
    source_lines = _source_lines(source)
    by_index: dict[str, list[tuple[str, str]]] = {}
    for file, (name, _, _) in carried.items():
        if not is_log(name):  # a daily log or session note is never indexed
            by_index.setdefault(index_of(name), []).append((file, name))
    plans = []
    names = _names_after(source, target, carried)
    for index_file, pairs in by_index.items():
        # Read with the names the target will have: a `[[name]]` line leads to its memory.
        index = replace(curate.read_index(target, index_file), names=names)
        parsed = index.parsed
        visible = curate.visible_files(parsed)
        outside = [(file, name) for file, name in pairs if name not in visible]
        if not outside:
            continue
        if index_file == INDEX_NAME:
            new_lines = {name: _line_for(source, file, name, source_lines, renamed, "")
                         for file, name in outside}
            memories = [replace(curate.memory_of(source, file), file=name)
                        for file, name in outside]
            if hubs:
                plans.append(_in_hubs(target, memories, new_lines, carried))
                continue
        linked = {link.file: link.line for link in curate.entry_links(parsed)}
        lines = list(index.lines)
        moving, origins, shown = [], [], []
        remove: set[int] = set()
        for file, name in outside:
            past_cut = linked.get(name)
            if past_cut is not None:
                if past_cut not in remove:
                    remove.add(past_cut)
                    moving.append(index.lines[past_cut - 1][0])
                    origins.append((name, past_cut))
            else:
                moving.append(_line_for(source, file, name, source_lines, renamed, index.folder))
                origins.append((name, None))
            shown.append(name)
        kept = [line for number, line in enumerate(lines, start=1) if number not in remove]
        plan = curate.place_inside_cut(target, index, kept, moving, origins, shown, [], label)
        if plan.pushed_out:
            hubs_fit_there = index_file == INDEX_NAME and hubs_fit(target, memories, new_lines)
            plan = replace(plan, options=_room_options(target, plan.options, hubs_fit_there))
        plans.append(plan)
    return plans


def _room_options(target: Store, options: Sequence[str], hubs: bool) -> tuple[str, ...]:
    """The target's ways to make room: hubs instead of moving entries out one by one, when
    they fit; removing dangling lines only when the target has some (the carried memories'
    own lines link files not written yet)."""
    if REMOVE_DANGLING in options and not curate.plan_remove_dangling(target).changes:
        options = [option for option in options if option != REMOVE_DANGLING]
    if hubs:
        options = [GROUP_IN_HUBS, *(option for option in options if option != MOVE_OUT)]
    return tuple(options)


def _in_hubs(target: Store, memories: Sequence[Memory], new_lines: Mapping[str, str],
             carried: Mapping[str, tuple[str, bytes, bytes | None]]) -> curate.Plan:
    """MEMORY.md's lines for the carried `memories`: those that fit inside its cut, the
    rest in hubs; refused when not even a hub's line fits, or a hub is among them."""
    plan, _ = place_with_hubs(target, memories, new_lines)
    if plan.pushed_out:
        raise WriteRefused(f"The target's {NO_ROOM}")
    names = {name for name, _, _ in carried.values()}
    if clash := sorted(names & {change.file for change in plan.changes}):
        raise WriteRefused(f"{clash[0]} is carried and is also the hub the lines that do not "
                           "fit would go to; carry it without putting lines in hubs.")
    return plan


def _names_after(source: Store, target: Store,
                 carried: Mapping[str, tuple[str, bytes, bytes | None]]) -> WikiNames:
    """What a `[[name]]` leads to in the target once the carried memories are in it."""
    names = {memory.file: memory.frontmatter.name for memory in target.memories}
    for file, (name, _, _) in carried.items():
        names[name] = curate.memory_of(source, file).frontmatter.name
    return wiki_names(sorted(names.items()))


def _source_lines(source: Store) -> dict[str, str]:
    """Each memory's own index line in the source (a line linking that file alone)."""
    lines: dict[str, str] = {}
    for index_file in {index.file for index in source.indexes}:
        index = curate.read_index(source, index_file)
        for number, links in curate.links_by_line(index.parsed).items():
            if len({link.file for link in links}) == 1 and links[0].file:
                lines.setdefault(links[0].file, index.lines[number - 1][0])
    return lines


def _line_for(source: Store, file: str, name: str, source_lines: Mapping[str, str],
              renamed: Mapping[str, str], folder: str) -> str:
    """The index line for a carried memory: the source's own, links renamed, else new."""
    line = source_lines.get(file)
    if line is None:
        memory = curate.memory_of(source, file)
        return curate.index_line(memory, folder=folder).replace(
            f"({link_target(_relative(file, folder))})", f"({link_target(_relative(name, folder))})")
    return _renamed_links(line, renamed, folder)


def _mtime_ns(path) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def apply_transfer(source_dir, target_dir, transfer: Transfer) -> None:
    """Write the target's change and the source's; WriteRefused having changed nothing. A
    move changing both stores is one change (`pairs`): one undo takes both back."""
    from tui.history.recovery import apply_journalled, apply_journalled_pair
    from tui.memory.pairs import Half

    into = Half(target_dir, transfer.target_changes, f"{transfer.label} from {source_dir}")
    out_of = Half(source_dir, transfer.source_changes, f"{transfer.label} to {target_dir}")
    if into.changes and out_of.changes:
        apply_journalled_pair(into, out_of)
        return
    for half in (into, out_of):
        if half.changes:
            apply_journalled(half.store, half.changes, half.label)
