"""What syncing one store does, file by file, decided three-way against the last synced base.

For each file, with `local` (this machine now), `base` (the remote as this store last agreed
with it) and `remote` (the remote now), compared by git blob id:

- local == remote: nothing to do;
- local == base: only the remote changed: pull (create, change or delete here);
- remote == base: only this machine changed: push;
- both changed: a deletion on one side gives way to the change on the other (and the file
  keeps, or gets back, its index line: a sync never makes an orphan); two changes are
  merged (`merge`): `MEMORY.md` as an ordered set of index lines, a memory as frontmatter
  data and body lines. A real conflict keeps both texts in the body, between marker lines
  naming this machine and the remote's machine and date, in the file on both sides:
  nothing is dropped, and the file says so to whoever opens it.

Files the engine leaves alone (`left_alone`: a remote entry this machine cannot hold, a
name clash) are neither pulled nor pushed: what the remote holds there stays as it is.

Pure: no disk, no git. `engine` reads the inputs and carries the plan out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from tui.claude.lines import lines_with_endings
from tui.claude.memory_files import index_of, is_log
from tui.claude.paths import INDEX_NAME
from tui.history.journal import blob_id
from tui.memory.reach import memory_links
from tui.memory.writes import FileChange
from tui.sync.merge import Side, merge_index, merge_memory


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


def merge_file(file: str, base: bytes | None, ours: bytes, theirs: bytes, here: Side,
               there: Side) -> tuple[bytes, bool]:
    """(merged bytes, conflicted) for a file both sides changed, here and on the remote."""
    if is_index(file):
        merged = merge_index(None if base is None else _text(base), _text(ours), _text(theirs))
        return merged.encode("utf-8", "surrogateescape"), False
    return merge_memory(base, ours, theirs, here, there)


def plan_store(
    local: Mapping[str, bytes],
    base: Mapping[str, str] | None,
    remote: Mapping[str, str],
    read_blobs: Callable[[list[str]], Mapping[str, bytes]],
    machine: str = "this machine",
    *,
    remote_sides: Callable[[list[str]], Mapping[str, Side]] | None = None,
    local_time: Callable[[str], float | None] | None = None,
    left_alone: Collection[str] = (),
    local_ids: Mapping[str, str] | None = None,
) -> StorePlan:
    """The plan for one store. `local`: bytes by store-relative path; `base`, `remote`:
    blob ids by store-relative path (`base` None: never synced); `read_blobs` fetches the
    remote bytes the plan needs, in one call. For a merge: `machine` names this machine,
    `local_time` says when a file here was written, `remote_sides` who pushed the remote's
    versions of some files, and when (one call). `local_ids`: the blob ids of `local`, when
    the caller has them."""
    base = base or {}
    if local_ids is None:
        local_ids = {file: blob_id(data) for file, data in local.items()}
    decisions: list[tuple[str, str]] = []
    revived: list[tuple[str, str]] = []  # (file, the side that changed it) of delete vs edit
    for file in sorted(local_ids.keys() | remote.keys() | base.keys()):
        if file in left_alone:
            continue
        ours, was, theirs = local_ids.get(file), base.get(file), remote.get(file)
        if ours == theirs:
            continue
        if ours == was:
            decisions.append((file, "pull"))
        elif theirs == was:
            decisions.append((file, "push"))
        elif ours is None:
            decisions.append((file, "pull"))  # deleted here, changed there: the change wins
            revived.append((file, "theirs"))
        elif theirs is None:
            decisions.append((file, "push"))  # deleted there, changed here: the change wins
            revived.append((file, "ours"))
        else:
            decisions.append((file, "merge"))
    # The remote's bytes of every file both sides hold (a push's too: it is the base's), and
    # the base's of a merge.
    needed = [remote[f] for f, how in decisions if f in remote]
    needed += [base[f] for f, how in decisions if how == "merge" and f in base]
    blobs = read_blobs(needed)
    decisions = _by_text(decisions, local, remote, base, blobs)
    merging = [file for file, how in decisions if how == "merge" and not is_index(file)]
    sides = remote_sides(merging) if remote_sides and merging else {}
    results: dict[str, bytes | None] = {}
    conflicts = []
    for file, how in decisions:
        if how == "pull":
            results[file] = blobs[remote[file]] if file in remote else None
        elif how == "push":
            results[file] = local.get(file)
        else:
            here = Side(machine, local_time(file) if local_time else None)
            merged, conflicted = merge_file(
                file, blobs[base[file]] if file in base else None, local[file],
                blobs[remote[file]], here, sides.get(file, Side("the remote")))
            results[file] = merged
            if conflicted:
                conflicts.append(file)
    _keep_index_lines(revived, results, local, base, remote, read_blobs)
    plan = StorePlan(conflicts=conflicts)
    for file in sorted(results):
        after = results[file]
        if after != local.get(file):
            plan.local_changes.append(FileChange(file, local.get(file), after))
            plan.pulled.append(file)
        if (None if after is None else blob_id(after)) != remote.get(file):
            plan.outgoing[file] = after
    return plan


def _by_text(decisions: list[tuple[str, str]], local: Mapping[str, bytes],
             remote: Mapping[str, str], base: Mapping[str, str],
             blobs: Mapping[str, bytes]) -> list[tuple[str, str]]:
    """The decisions taken by text, not by bytes: two versions that differ only in line
    endings are one text to Claude Code (which drops each CR), so a CRLF copy meeting an LF
    one is neither a change to carry nor a conflict, and neither file is rewritten for it;
    in a merge, a side whose text is the base's has not changed. `remote` and `base` are
    blob ids, `blobs` their bytes."""
    decided = []
    for file, how in decisions:
        ours = local.get(file)
        theirs = blobs[remote[file]] if file in remote else None
        if ours is not None and theirs is not None and _same_text(ours, theirs):
            continue
        if how == "merge" and file in base:
            if _same_text(ours, blobs[base[file]]):
                how = "pull"
            elif _same_text(theirs, blobs[base[file]]):
                how = "push"
        decided.append((file, how))
    return decided


def _same_text(one: bytes, other: bytes) -> bool:
    return one.replace(b"\r\n", b"\n") == other.replace(b"\r\n", b"\n")


def _keep_index_lines(revived: list[tuple[str, str]], results: dict[str, bytes | None],
                      local: Mapping[str, bytes], base: Mapping[str, str],
                      remote: Mapping[str, str],
                      read_blobs: Callable[[list[str]], Mapping[str, bytes]]) -> None:
    """A memory deleted on one side and changed on the other survives; the deleting side
    took its index line away. Put the line back in the merged index, where the changing side
    (else the base) has it, so the sync makes no orphan."""
    for file, changer in revived:
        index = index_of(file)
        if is_log(file) or is_index(file) or index == file:
            continue
        merged = results[index] if index in results else local.get(index)
        if merged is None or file in memory_links(index, _text(merged), None):
            continue
        sources = [local.get(index)] if changer == "ours" else []
        ids = [blob for blob in (remote.get(index) if changer == "theirs" else None,
                                 base.get(index)) if blob]
        blobs = read_blobs(ids) if ids else {}
        sources += [blobs[blob] for blob in ids]
        for source in sources:
            if source is None:
                continue
            lines = lines_with_endings(_text(source))
            line = next((line for line in lines if file in memory_links(index, line, None)),
                        None)
            if line is not None:
                results[index] = _placed(merged, lines, line)
                break


def _placed(index: bytes, source: list[str], line: str) -> bytes:
    """`line` put into `index` after the line it follows in `source`, else at the end."""
    lines = lines_with_endings(_text(index))
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    line = line if line.endswith("\n") else line + "\n"
    at = source.index(line if line in source else line[:-1])
    anchor = next((source[n] for n in range(at - 1, -1, -1) if source[n] in lines
                   and source[n].strip()), None)
    position = lines.index(anchor) + 1 if anchor is not None else len(lines)
    lines.insert(position, line)
    return "".join(lines).encode("utf-8", "surrogateescape")
