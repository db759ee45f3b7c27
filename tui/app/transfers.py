"""The app's side of copying and moving memories to another project's store: which stores
are offered, the names to ask about, the plan and its preview, the write, and the sentence
that says what happened and how to take it back.

The plan and the write are the CLI's (`tui.memory.transfer`); nothing here writes a file.
Every function returns a value or one sentence: the screens only show them.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tui.disk_errors import unwritable
from tui.render import condense, condense_paths
from tui.words import plural

if TYPE_CHECKING:
    from tui.app.curation import Outcome
    from tui.app.screens.confirm import Confirmation
    from tui.claude.discovery import Project
    from tui.memory.transfer import Transfer


@dataclass(frozen=True)
class Targets:
    """The stores a copy may go to, and one sentence naming the ones left out and why."""

    offered: list[Project]
    left_out: str


@dataclass(frozen=True)
class Collision:
    """A name the target holds with other text: what is there, and what would be carried."""

    file: str
    theirs: str
    ours: str


def project_path(project: Project) -> str:
    """The project as the projects screen names it."""
    return condense(project.key_path or (project.paths[0] if project.paths else project.name))


def transfer_targets(projects: Iterable[Project], source: Path) -> Targets:
    """The machine's other stores: not the source, not a read-only one, not a stranded one
    (no session loads it); a project whose store is not made yet is offered (the copy
    makes it)."""
    offered, read_only, stranded = [], 0, 0
    source_real = os.path.realpath(source)
    for project in projects:
        store = project.store
        if store is None or os.path.realpath(store) == source_real:
            continue
        if project.stranded:
            stranded += 1
        elif unwritable(store):
            read_only += 1
        else:
            offered.append(project)
    offered.sort(key=lambda project: project_path(project).casefold())
    reasons = [text for count, text in (
        (read_only, f"{plural(read_only, 'read-only store')}"),
        (stranded, f"{plural(stranded, 'stranded store')} (no session loads "
                   f"{'it' if stranded == 1 else 'them'})"),
    ) if count]
    left_out = "Not offered: this store" + "".join(f", {reason}" for reason in reasons) + "."
    return Targets(offered, left_out)


def refusal_of(target: Path) -> str | None:
    """Why nothing can be written to `target` now, in one sentence; None when it can."""
    from tui.claude.lock import read_lock

    shown = condense(str(target))
    if why := unwritable(target):
        return f"{shown} is read-only ({why}); nothing was changed."
    lock = read_lock(target)
    if os.path.isdir(target) and lock.held():
        return (f"{shown} is read-only while a consolidation (PID {lock.pid}) holds its lock; "
                "nothing was changed.")
    return None


def find_collisions(source: Path, files: Sequence[str], target: Path) -> list[Collision] | str:
    """The names to ask about, with both texts; or why the stores cannot be read."""
    from tui.memory.store import load_store
    from tui.memory.transfer import collisions
    from tui.memory.writes import read_bytes

    try:
        clashing = collisions(load_store(source), files, load_store(target))
        return [Collision(file, _text(read_bytes(target, file)), _text(read_bytes(source, file)))
                for file in clashing]
    except OSError as error:
        return f"The stores could not be read ({error.strerror or error}); nothing was changed."


def plan(source: Path, files: Sequence[str], target: Path, choices: Mapping[str, str],
         move: bool, hubs: bool = False) -> Transfer | str:
    """The copy (or move) as it would be made from both stores as they are on disk now;
    `hubs`: the index lines that do not fit inside the target's cut go into its hubs."""
    from tui.memory.store import load_store
    from tui.memory.transfer import plan_transfer
    from tui.memory.writes import WriteRefused

    try:
        return plan_transfer(load_store(source), files, load_store(target), choices, move=move,
                             hubs=hubs)
    except (WriteRefused, ValueError, OSError) as error:
        return str(error)


def confirmation(transfer: Transfer, files: Sequence[str], target: Path, target_name: str,
                 move: bool) -> Confirmation:
    """The preview: what is carried where, the index lines and where they go (with the
    diff of each index and hub), what the lines would push past the target's cut, and the
    target's ways to make room."""
    from rich.console import Group
    from rich.text import Text

    from tui.app.screens.confirm import Confirmation
    from tui.app.widgets.diff_view import render_diff
    from tui.memory.curate import GROUP_IN_HUBS

    verb = "Move" if move else "Copy"
    summary = [f"Into its store, {condense(str(target))}."]
    summary += [condense_paths(sentence) for sentence in transfer.summary]
    if GROUP_IN_HUBS in transfer.options:
        summary.append(f"Hubs for the rest: the lines that fit inside {target_name}'s cut, "
                       "the rest in a hub its index links, all in this one change.")
    if set(transfer.options) - {GROUP_IN_HUBS}:
        summary.append(f"The ways to make room act on {target_name}'s index; the "
                       f"{verb.lower()} is shown again after.")
    diffs = []
    for changes, where in ((transfer.target_changes, target_name),
                           (transfer.source_changes, "this store")):
        for change in changes:
            if Path(change.file).name == "MEMORY.md" or (where == target_name
                                                         and change.file in transfer.hubs):
                diffs.append(Text(f"{change.file} of {where}:", style="bold"))
                diffs.append(render_diff(_text(change.before), _text(change.after),
                                         f"a/{change.file}", f"b/{change.file}"))
    carried = transfer.label.partition(" ")[2]
    label = f"{verb} {files[0] if len(files) == 1 and carried == '1 memory' else carried} " \
            f"to {target_name}"
    return Confirmation(label, summary, Group(*diffs) if diffs else None, transfer.pushed_out,
                        transfer.options, apply_label=f"{verb} (y)")


def apply(source: Path, target: Path, target_name: str, transfer: Transfer,
          move: bool) -> Outcome:
    """Write the copy (or move) through `apply_transfer`; what happened and how to undo it."""
    from tui.app.curation import changed_meanwhile
    from tui.memory.transfer import apply_transfer
    from tui.memory.writes import ConflictError, WriteRefused

    if (refused := refusal_of(target)) is not None:
        return refused, "error"
    try:
        apply_transfer(source, target, transfer)
    except ConflictError as conflict:
        return changed_meanwhile(conflict.file), "error"
    except WriteRefused as refused:
        return condense_paths(str(refused)), "error"
    what = transfer.label.partition(" ")[2]
    undo_there = f"u on its screen or `memtui undo {_shell_path(target)}`"
    placed = "their index lines inside its cut" + (
        f" or in {' and '.join(transfer.hubs)}, which its index links" if transfer.hubs else "")
    if move and transfer.target_changes and transfer.source_changes:
        return (f"Moved {what} to {target_name}, {placed}. One change "
                f"across both stores: u here puts them back and takes the copy back, both at "
                f"once (so does {undo_there}).", "information")
    if move:
        return (f"Moved {what} to {target_name}. u here puts them back.", "information")
    return (f"Copied {what} to {target_name}, {placed}. To undo: {undo_there}.",
            "information")


def _shell_path(path: Path) -> str:
    shown = condense(str(path))
    return shown if shlex.quote(shown) == shown or shown.startswith("~/") and \
        shlex.quote(shown[2:]) == shown[2:] else shlex.quote(str(path))


def _text(data: bytes | None) -> str:
    return "" if data is None else data.decode("utf-8", "replace")
