"""Findings: everything about a store that Claude Code will get wrong or not see.

Severity rules (an error is what makes `memtui audit` exit 1):
- error: the model cannot see a memory it should (unindexed, beyond_cut, stranded_store,
  index_over_limit: links or the index's own text past the cut), or a file Claude Code
  cannot read or parse (unreadable, bad_frontmatter), or a store nothing can be saved in
  (read_only).
- warning: wasted or misleading context that still loads (dangling, long_index_line over
  150 or 200, outside_store: a link or symlink the user made out of the store, which
  Claude follows and memtui never writes through, duplicate, sync_conflict: both texts of
  a conflict `memtui sync` could not merge, between marker lines), metadata the selector
  relies on
  (missing_frontmatter, missing_description, unknown_type), recall limits
  (beyond_recall_scan), and a checked-in setting that tries to move memory
  (untrusted_setting).
- info: prompt guidance Claude Code does not enforce (missing_why, missing_how_to_apply,
  relative_date: a date of the memory's own prose that a later reader must work out, true
  but rarely worth acting on: most sit in notes whose name or headings date them),
  a memory Claude reaches only through other memories, by a chain of links starting inside
  a loaded cut (linked_from; any other memory no loaded cut links is an error), a
  stranded store whose every memory a rescue brought home (rescued_store: archive it), and a
  `[[name]]` link that names no memory yet (unmatched_wiki_link): Claude Code's prompt
  calls that a memory worth writing later, not an error, so it is never dangling. A store
  too uniform for an exact near-duplicate search in bounded time says so
  (duplicate_search_cut).

A store may have two indexes, MEMORY.md and team/MEMORY.md (team memory): each gets its own
index findings. Daily logs (`logs/`, `sessions/`) are never indexed: only reading problems
and relative dates are reported for them.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from tui.claude.memory_files import index_of
from tui.memory.conflicts import CONFLICT_OPEN, find_conflicts
from tui.memory.dates import relative_dates
from tui.memory.finding import SEVERITIES, Finding, standing_findings
from tui.memory.frontmatter import HEAD_LINES, MEMORY_TYPES
from tui.memory.index import LINE_ERROR, LINE_WARN, MAX_CHARS, MAX_LINES
from tui.memory.links import resolve_wiki, wiki_links
from tui.memory.rationale import HOW_TO_APPLY, WHY, rationale_labels
from tui.memory.reach import TextLinks, loaded_roots, reach
from tui.memory.store import RECALL_SCAN_LIMIT, IndexFile, Memory, Store, same_file_names
from tui.words import plural

if TYPE_CHECKING:  # the near-duplicate search is imported when it runs
    from tui.memory.duplicates import Duplicate


@dataclass(frozen=True)
class MemoryStatus:
    file: str
    indexed: bool
    visible: bool
    index_line: int | None
    index_file: str | None = None  # the index holding `index_line`
    # Not linked inside a loaded cut, but reached through this memory (a second-level index),
    # itself reached from a loaded cut.
    linked_from: str | None = None
    # Another name of the same file (a symlink in the store): its status is that name's,
    # and that name alone is relinked or reported as an orphan.
    same_file: str | None = None


def memory_statuses(store: Store) -> dict[str, MemoryStatus]:
    lines: dict[str, tuple[str, int]] = {}
    for index in store.indexes:
        for link in index.loaded.links:
            if link.file is not None:
                lines.setdefault(link.file, (index.file, link.line))
    roots = loaded_roots(index.loaded for index in store.indexes)
    visible = set(roots)
    reached: dict[str, str | None] = {}
    if any(memory.file not in visible for memory in store.memories):
        # Perhaps reached through another memory (a second-level index).
        texts = {m.file: m.text for m in store.memories}
        reached = reach(roots, TextLinks(texts, store.wiki_names))
    statuses: dict[str, MemoryStatus] = {}
    for memory in store.memories:
        file = memory.file
        index_file, line = lines.get(file, (None, None))
        statuses[file] = MemoryStatus(file, line is not None, file in visible, line, index_file,
                                      None if file in visible else reached.get(file))
    _share_statuses(statuses, same_file_names(store))
    return statuses


def _share_statuses(statuses: dict[str, MemoryStatus],
                    same_files: Mapping[str, tuple[str, ...]]) -> None:
    """Give every name of a file the status of its best-reached name: one index line
    reaches the file whatever name it links."""
    def rank(name: str) -> int:
        status = statuses[name]
        return (3 if status.visible else 2 if status.linked_from
                else 1 if status.indexed else 0)

    for names in {names for names in same_files.values()}:
        best = max(names, key=rank)  # ties: the file's own name, listed first
        for name in names:
            if name != best:
                statuses[name] = replace(statuses[best], file=name, same_file=best)


def orphan_files(store: Store, statuses: Mapping[str, MemoryStatus] | None = None) -> list[str]:
    """The memories Claude cannot reach, as the `unindexed` and `beyond_cut` findings name
    them: linked inside no loaded cut, nor by a chain of memories starting there (see
    `reach`); unreadable files, daily logs and second names of a file (a symlink to it)
    aside."""
    statuses = memory_statuses(store) if statuses is None else statuses
    return [memory.file for memory in store.memories
            if not (memory.error or memory.is_log or statuses[memory.file].linked_from
                    or statuses[memory.file].visible or statuses[memory.file].same_file)]


def index_findings(store: Store) -> list[Finding]:
    """The findings about the store's index files and their lines."""
    return [finding for index in store.indexes for finding in _index_findings(store, index)]


def _index_findings(store: Store, index_file: IndexFile) -> Iterable[Finding]:
    index, name = index_file.loaded, index_file.file
    if index_file.error:
        yield Finding("unreadable", "error", name, None, index_file.error)
    if index_file.not_text:
        return  # its "lines" are garbage: nothing more to say about them
    link = _readlink(store.path / name)
    if link is not None:
        yield _symlink_finding(store.path, name, link)
    if index.cut:
        limits = []
        if index.cut in ("lines", "both"):
            limits.append(f"{index.lines} lines (limit {MAX_LINES})")
        if index.cut in ("chars", "both"):
            limits.append(f"{index.chars:,} characters (limit {MAX_CHARS:,})")
        hidden = sum(1 for link in index.links if not link.visible)
        # Text past the cut is lost too: an index that holds facts itself loses them.
        lost = (f"{plural(hidden, 'link')} after that {'is' if hidden == 1 else 'are'} "
                "invisible" if hidden else "what the index says after that is invisible")
        yield Finding(
            "index_over_limit", "error", name, index.loaded_lines + 1,
            f"{name} has {' and '.join(limits)}; Claude loads only the first "
            f"{index.loaded_lines} lines, so {lost}",
        )
    for line in index.raw_lines.longer_than(LINE_WARN):
        if line.state == "stripped":
            continue
        # Still loaded whole: it costs context, it hides nothing.
        limit = LINE_ERROR if line.width > LINE_ERROR else LINE_WARN
        yield Finding(
            "long_index_line", "warning", name, line.number,
            f"index line is {line.width} characters (keep it under {limit}); "
            "move the detail into the memory file",
        )
    store_root = None  # resolved (a syscall per folder of its path) when a link needs it
    entries, plain_entries = _entries(store.path)
    # Unpacked, not read attribute by attribute: 300,000 links in a 50 MB index.
    for line, _, target, file, _, _, wiki in index.links:
        if wiki:
            if file is None:
                yield _unmatched_wiki_link(name, line, target)
            continue  # a resolved one names an existing memory
        if file in plain_entries:
            continue  # an existing entry of the store itself: inside, not dangling
        if file is None:
            yield Finding("outside_store", "warning", name, line,
                          f"link to {target} points outside the memory directory", target)
            continue
        if "/" not in file and file != "." and _loose(file) not in entries:
            real = None  # not in the folder's listing: no syscall needed to know it is gone
        else:
            path = os.path.join(store.path, file)
            real = os.path.realpath(path) if os.path.lexists(path) else None
        if real is not None and store_root is None:
            store_root = os.path.realpath(store.path)
        if real is not None and not real.startswith(store_root + os.sep):
            yield Finding("outside_store", "warning", name, line,
                          f"link to {target} resolves outside the memory directory ({real})",
                          target)
        elif real is None or not os.path.exists(real):
            yield Finding("dangling", "warning", name, line,
                          f"link to {target} points at a file that does not exist", target)


def _readlink(path: Path) -> str | None:
    try:
        return os.readlink(path)
    except OSError:  # not a link (or not there, or not ours to look at)
        return None


def _folder_findings(store: Store) -> Iterable[Finding]:
    for folder, why in store.unreadable_folders:
        if folder:
            yield Finding("unreadable", "error", folder, None,
                          f"{folder} cannot be listed ({why}): the memories in it are unseen")
        else:
            yield Finding("unreadable", "error", None, None,
                          f"the memory directory cannot be listed ({why})")


def _symlink_finding(store: Path, file: str, target: str) -> Finding:
    """A linked file: memtui reads through it but never writes through it."""
    real = os.path.realpath(store / file)
    outside = not real.startswith(os.path.realpath(store) + os.sep)
    where = f"{target}, outside the memory directory" if outside else target
    return Finding(
        "symlink", "warning" if outside else "info", file, None,
        f"{file} is a symlink to {where}; memtui does not write through links, "
        "so edit the file it points at",
        target=target,
    )


def _unmatched_wiki_link(file: str, line: int, name: str) -> Finding:
    return Finding(
        "unmatched_wiki_link", "info", file, line,
        f"[[{name}]] names no memory yet; Claude takes it as one worth writing later",
        target=name,
    )


def _entries(folder: Path) -> tuple[frozenset[str], frozenset[str]]:
    """(every name directly in `folder` as `_loose` has it, the names that are not
    symlinks: they resolve inside)."""
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return frozenset(), frozenset()
    return (frozenset(_loose(e.name) for e in entries),
            frozenset(e.name for e in entries if not _is_link(e)))


def _loose(name: str) -> str:
    """A name as a case- and normalisation-insensitive file system (macOS) compares it."""
    return name.lower() if name.isascii() else unicodedata.normalize("NFC", name).casefold()


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return True  # unknown: resolved like a link, with a syscall


def _memory_findings(
    store: Path, memory: Memory, status: MemoryStatus, in_recall: bool, names: Mapping[str, str]
) -> Iterable[Finding]:
    file = memory.file
    if memory.outside_target:
        yield Finding(
            "outside_store", "warning", file, None,
            f"{file} is a symlink to {memory.outside_target}, outside the memory directory",
            target=memory.outside_target,
        )
    elif memory.link_target is not None:
        yield _symlink_finding(store, file, memory.link_target)
    if memory.error:
        yield Finding("unreadable", "error", file, None, f"{file}: {memory.error}")
        return
    if memory.non_utf8:
        yield Finding(
            "unreadable", "error", file, None,
            f"{file} is not valid UTF-8; Claude Code reads it with replacement characters",
        )
    if CONFLICT_OPEN in memory.text:
        yield from _sync_conflict_findings(memory)
    if memory.is_log:
        yield from _date_findings(memory)
        return
    if not status.same_file:  # a second name is reached as the file's other name is
        yield from _reach_findings(file, status)
    if not in_recall:
        yield Finding(
            "beyond_recall_scan", "warning", file, None,
            f"{file} is not among the {RECALL_SCAN_LIMIT} newest files the recall scanner reads",
        )
    fm = memory.frontmatter
    if not fm.present:
        hint = (
            f" (its --- block does not close within the first {HEAD_LINES} lines, all that "
            "Claude Code's memory scanner reads)" if fm.unclosed else ""
        )
        yield Finding(
            "missing_frontmatter", "warning", file, 1,
            f"{file} has no frontmatter: no name, description or type{hint}",
        )
    elif fm.error:
        yield Finding(
            "bad_frontmatter", "error", file, 1,
            f"{file}: Claude Code cannot read its frontmatter, even after its quoting retry "
            f"({fm.error}), so it sees no name, description or type",
        )
    else:
        kind = fm.type
        if kind is not None and kind not in MEMORY_TYPES:
            yield Finding(
                "unknown_type", "warning", file, 1,
                f"{file}: type {kind!r} is not one of {', '.join(MEMORY_TYPES)}",
            )
        if not (fm.description or "").strip():
            yield Finding(
                "missing_description", "warning", file, 1,
                f"{file} has no description; the recall selector sees only descriptions",
            )
        if kind in ("feedback", "project"):
            labels = rationale_labels(fm.body)
            if WHY not in labels:
                yield Finding("missing_why", "info", file, None,
                              f"{file}: a {kind} memory should say **Why:**")
            if HOW_TO_APPLY not in labels:
                yield Finding("missing_how_to_apply", "info", file, None,
                              f"{file}: a {kind} memory should say **How to apply:**")
    yield from _date_findings(memory)
    for link in wiki_links(fm.body):
        if resolve_wiki(link.target, names) is None:
            yield _unmatched_wiki_link(file, fm.block_lines + link.line + 1, link.target)


def _reach_findings(file: str, status: MemoryStatus) -> Iterable[Finding]:
    """How Claude reaches the memory, when not through a line inside the loaded cut."""
    if status.linked_from:
        where = (f"its line in {status.index_file} is past the loaded cut" if status.indexed
                 else f"not from {index_of(file)}")
        yield Finding(
            "linked_from", "info", file, status.index_line,
            f"{file} is linked from {status.linked_from}, {where}: "
            f"Claude finds it only by opening {status.linked_from}",
            other=status.linked_from,
        )
    elif not status.indexed:
        yield Finding(
            "unindexed", "error", file, None,
            f"{file} has no line in {index_of(file)}, so Claude never sees it at start",
        )
    elif not status.visible:
        yield Finding(
            "beyond_cut", "error", file, status.index_line,
            f"{file} is indexed only past the loaded cut "
            f"({status.index_file} line {status.index_line})",
        )


def _sync_conflict_findings(memory: Memory) -> Iterable[Finding]:
    for conflict in find_conflicts(memory.text):
        yield Finding(
            "sync_conflict", "warning", memory.file, conflict.line,
            f"{memory.file} holds two texts memtui sync could not merge (from "
            f"{conflict.machine} and from {conflict.other}), "
            "marker lines included, and Claude reads them all; keep one (K in the app, or "
            "memtui merge --keep)",
        )


def _date_findings(memory: Memory) -> Iterable[Finding]:
    """A date in the memory's own prose that will be read on another day (see
    tui/memory/date_prose.py for what is not one). `info`: most such dates sit in notes their
    own name or headings date, where a reader can still work the day out."""
    found = relative_dates(memory.text)
    if not found:
        return
    from tui.memory.date_prose import date_references  # its rules load only when needed

    for reference in date_references(memory.text, memory.file, found):
        if reference.copied:
            continue  # memtui's copy of an index line: the line itself is where it was written
        found, written = reference.found, reference.written
        when = (f"{written.source} dates it {written.day}: `memtui dream` can write the day"
                if written else "nothing in the file says which day it was written")
        yield Finding(
            "relative_date", "info", memory.file, found.line,
            f"{memory.file} says {found.phrase!r}; {when}",
        )


def audit_store(
    store: Store,
    *,
    stranded_reason: str | None = None,
    untrusted_setting: tuple[str, Path] | None = None,
    duplicates: bool = True,
    standing: bool = True,
) -> list[Finding]:
    """`standing`: also the findings about the store as it stands (see `standing_findings`),
    which a cached audit must not keep."""
    return list(iter_findings(store, stranded_reason=stranded_reason,
                              untrusted_setting=untrusted_setting, duplicates=duplicates,
                              standing=standing))


def iter_findings(
    store: Store,
    *,
    stranded_reason: str | None = None,
    untrusted_setting: tuple[str, Path] | None = None,
    duplicates: bool = True,
    standing: bool = True,
) -> Iterator[Finding]:
    """`audit_store`'s findings in its order, each kind worked out when it is reached: who
    shows only the first few (a dream's log) pays for no more."""
    if standing:
        yield from standing_findings(store.path, stranded_reason)
    if untrusted_setting:
        value, source = untrusted_setting
        yield Finding(
            "untrusted_setting", "warning", str(source), None,
            f"the checked-in {source} sets autoMemoryDirectory to {value!r}; "
            "memtui does not follow it (a repository must not choose where memory goes)",
            target=value,
        )
    yield from _folder_findings(store)
    yield from index_findings(store)
    yield from secret_findings(store)
    statuses = memory_statuses(store)
    for memory in store.memories:
        yield from _memory_findings(
            store.path, memory, statuses[memory.file], memory.file in store.recall_scan,
            store.wiki_names,
        )
    if duplicates:
        yield from duplicate_findings(store)


def secret_findings(store: Store) -> list[Finding]:
    """A `secret` error per credential in the index or a memory, naming its kind and line,
    never the secret itself."""
    from tui.memory.secrets import find_secrets, screened

    found: list[Finding] = []
    texts = [(index.file, index.text or "") for index in store.indexes if not index.not_text]
    texts += [(memory.file, memory.text) for memory in store.memories if not memory.error]
    for file, text in screened(texts):
        for hit in find_secrets(text):
            found.append(Finding(
                "secret", "error", file, hit.line,
                f"{hit.kind} on line {hit.line} of {file}: memory is loaded into every "
                "session and copied with the store; remove it (X in the app redacts it)",
            ))
    return found


def duplicate_findings(store: Store) -> list[Finding]:
    """The `duplicate` findings alone: the costly part of an audit, so it can come later.
    A pair the dream would merge names the note to archive; one it leaves to a person says
    so (see `duplicates`)."""
    from tui.memory.duplicates import find_duplicates, keeper_rank

    same_files = same_file_names(store)  # one file under two names is no duplicate
    search = find_duplicates(store.memories, keeper_rank(store))
    findings = [
        _duplicate_finding(duplicate)
        for duplicate in search.duplicates
        if duplicate.second.file not in same_files.get(duplicate.first.file, ())
    ]
    if search.cut:
        findings.append(Finding(
            "duplicate_search_cut", "info", None, None,
            f"the search for near-duplicates compared {search.cut:,} of {search.compared:,} "
            "memories only with those nearest in size: their rarest words are each in "
            "thousands of others (notes made from one template?), so some duplicates may "
            "not be listed",
        ))
    return findings


def _duplicate_finding(duplicate: Duplicate) -> Finding:
    score = round(duplicate.score, 1)
    repeated, holder = duplicate.repeated, duplicate.holder
    if repeated is not None and holder is not None:
        return Finding(
            "duplicate", "warning", repeated.file, None,
            f"{repeated.file} says nothing {holder.file} does not (every line of it is there, "
            f"{duplicate.score:.0f}% similar): archive it, as a dream does",
            other=holder.file, score=score,
        )
    first, second = duplicate.first, duplicate.second
    return Finding(
        "duplicate", "warning", first.file, None,
        f"{first.file} and {second.file} look like the same memory ({duplicate.score:.0f}% "
        "similar), each with lines the other lacks: merge them by hand",
        other=second.file, score=score,
    )


def worst_severity(findings: Iterable[Finding]) -> str | None:
    ranks = {s: i for i, s in enumerate(SEVERITIES)}
    worst = min((ranks[f.severity] for f in findings), default=None)
    return None if worst is None else SEVERITIES[worst]
