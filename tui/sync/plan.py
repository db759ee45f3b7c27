"""What syncing one store does, file by file, decided three-way against the last synced base.

For each file, with `local` (this machine now), `base` (the remote as this store last agreed
with it) and `remote` (the remote now), compared by git blob id:

- local == remote: nothing to do;
- local == base: only the remote changed: pull (create, change or delete here);
- remote == base: only this machine changed: push;
- both changed: a deletion on one side gives way to the change on the other; two changes
  are merged, `MEMORY.md` as an ordered set of index lines, any other file line by line
  (`history.merge.merge3`). A real conflict keeps both texts, between marker lines naming
  the machine that merged and the remote, in the file on both sides: nothing is dropped,
  and the file says so to whoever opens it.

Pure: no disk, no git. `engine` reads the inputs and carries the plan out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from tui.claude.lines import split_lines
from tui.claude.paths import INDEX_NAME
from tui.history.journal import blob_id
from tui.history.markers import MARK_OURS, MARK_SPLIT, MARK_THEIRS
from tui.history.merge import merge3
from tui.memory.conflicts import SYNC_LABEL
from tui.memory.writes import FileChange

REMOTE_LABEL = f"{SYNC_LABEL} from the remote"


def here_label(machine: str) -> str:
    """The label of the merging machine's text: its name, the same on every machine."""
    return f"{SYNC_LABEL} {machine}"


@dataclass
class StorePlan:
    local_changes: list[FileChange] = field(default_factory=list)  # to write here
    outgoing: dict[str, bytes | None] = field(default_factory=dict)  # to push (None: delete)
    pulled: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


def is_index(file: str) -> bool:
    return os.path.basename(file) == INDEX_NAME


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def merge_index(base: str | None, ours: str, theirs: str) -> str:
    """Index lines as an ordered set: ours in our order, without the lines the other side
    removed, with the other side's new lines placed after the line they follow there (after
    our own new lines at the same place).
    No line appears twice (blank lines excepted: they only shape the file)."""
    base_lines = set(split_lines(base or ""))
    our_lines = split_lines(ours.removesuffix("\n"))
    their_lines = split_lines(theirs.removesuffix("\n"))
    their_set = set(their_lines)
    result = [line for line in our_lines if line in their_set or line not in base_lines]
    present = {line for line in result if line.strip()}
    for number, line in enumerate(their_lines):
        if not line.strip() or line in base_lines or line in present:
            continue
        anchor = next((their_lines[n] for n in range(number - 1, -1, -1)
                       if their_lines[n] in present), None)
        position = result.index(anchor) + 1 if anchor is not None else 0
        if anchor is None and result and result[0].startswith("#"):
            position = 1  # under the title, not above it
        while position < len(result) and result[position] not in base_lines \
                and result[position] not in their_set:
            position += 1  # our own new lines at the same place stay first, as in merge3
        result.insert(position, line)
        present.add(line)
    seen: set[str] = set()
    unique = []
    for line in result:
        if line.strip() and line in seen:
            continue
        seen.add(line)
        unique.append(line)
    ending = "\n" if ours.endswith("\n") or theirs.endswith("\n") or not ours else ""
    return "\n".join(unique) + ending if unique else ""


def merge_file(file: str, base: bytes | None, ours: bytes, theirs: bytes,
               machine: str) -> tuple[bytes, bool]:
    """(merged bytes, conflicted) for a file both sides changed on `machine` and the remote."""
    labels = (here_label(machine), REMOTE_LABEL)
    if is_index(file):
        return _bytes(merge_index(None if base is None else _text(base), _text(ours), _text(theirs))), False
    if base is None:  # created on both sides, differently: no common line to trust
        marked = (f"{MARK_OURS} {labels[0]}\n{_text(ours).rstrip(chr(10))}\n{MARK_SPLIT}\n"
                  f"{_text(theirs).rstrip(chr(10))}\n{MARK_THEIRS} {labels[1]}\n")
        return _bytes(marked), True
    result = merge3(_text(base), _text(ours), _text(theirs), labels)
    return _bytes(result.text), not result.clean


def plan_store(
    local: Mapping[str, bytes],
    base: Mapping[str, str] | None,
    remote: Mapping[str, str],
    read_blobs: Callable[[list[str]], Mapping[str, bytes]],
    machine: str = "this machine",
) -> StorePlan:
    """The plan for one store. `local`: bytes by store-relative path; `base`, `remote`:
    blob ids by store-relative path (`base` None: never synced); `read_blobs` fetches the
    remote bytes the plan needs, in one call."""
    base = base or {}
    plan = StorePlan()
    local_ids = {file: blob_id(data) for file, data in local.items()}
    decisions: list[tuple[str, str]] = []
    for file in sorted(local_ids.keys() | remote.keys() | base.keys()):
        ours, was, theirs = local_ids.get(file), base.get(file), remote.get(file)
        if ours == theirs:
            continue
        if ours == was:
            decisions.append((file, "pull"))
        elif theirs == was:
            decisions.append((file, "push"))
        elif ours is None:
            decisions.append((file, "pull"))  # deleted here, changed there: the change wins
        elif theirs is None:
            decisions.append((file, "push"))  # deleted there, changed here: the change wins
        else:
            decisions.append((file, "merge"))
    needed = [remote[f] for f, how in decisions if how != "push" and f in remote]
    needed += [base[f] for f, how in decisions if how == "merge" and f in base]
    blobs = read_blobs(needed)
    for file, how in decisions:
        ours_bytes = local.get(file)
        theirs_bytes = blobs[remote[file]] if file in remote and how != "push" else None
        if how == "pull":
            plan.local_changes.append(FileChange(file, ours_bytes, theirs_bytes))
            plan.pulled.append(file)
        elif how == "push":
            plan.outgoing[file] = ours_bytes
        else:
            assert ours_bytes is not None and theirs_bytes is not None
            was_bytes = blobs[base[file]] if file in base else None
            merged, conflicted = merge_file(file, was_bytes, ours_bytes, theirs_bytes, machine)
            if conflicted:
                plan.conflicts.append(file)
            if merged != ours_bytes:
                plan.local_changes.append(FileChange(file, ours_bytes, merged))
                plan.pulled.append(file)
            if merged != theirs_bytes:
                plan.outgoing[file] = merged
    return plan
