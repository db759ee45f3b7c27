"""Reading Claude Code transcripts (`.jsonl`) defensively and cheaply.

Lines are byte-filtered before JSON decoding; malformed, half-written and non-UTF-8
lines are skipped, never fatal. Files are streamed, never loaded whole.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from tui.claude import line_search
from tui.claude.files import is_gone, open_binary, open_regular, read_text, replace_cache_file
from tui.claude.paths import MEMORY_DIR_NAME

UUID_NAME = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$")
MEMORY_WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
_STORE_IN_PATH = re.compile(r"^(.*[/\\]projects[/\\][^/\\]+[/\\]memory)(?:[/\\]|$)")


def is_session_file(name: str) -> bool:
    """A top-level transcript of a session (not a subagent's)."""
    return name.endswith(".jsonl") and not name.startswith("agent-")


def session_files(folder: Path) -> list[Path]:
    return [Path(path) for path in listed_folder(folder)[0]]


def listed_folder(folder: str | os.PathLike[str]) -> tuple[list[str], os.DirEntry[str] | None]:
    """A transcript folder's session files, and its entry named `memory` (a store folder,
    or what stands in its name), from one listing."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return [], None
    memory = next((e for e in entries if e.name == MEMORY_DIR_NAME), None)
    return [e.path for e in entries if is_session_file(e.name) and _is_file(e)], memory


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def iter_lines(path: str | os.PathLike[str], needle: bytes | None = None,
               status: os.stat_result | None = None) -> Iterator[bytes]:
    """Stream raw lines; with `needle`, only the lines that contain it (`status`: the
    path's `os.stat`, just taken)."""
    try:
        handle = open_binary(path, status=status)
    except OSError:
        return
    with handle:
        try:
            for line in handle:
                if needle is None or needle in line:
                    yield line
        except OSError:
            return


def decode(line: bytes) -> dict | None:
    """One record, or None for a malformed, cut-short or non-object line."""
    try:
        record = json.loads(line.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):  # cut short, not JSON, or nested past any record
        return None
    return record if isinstance(record, dict) else None


def iter_records(path: str | os.PathLike[str], needle: bytes | None = None,
                 status: os.stat_result | None = None) -> Iterator[dict]:
    for line in iter_lines(path, needle, status):
        record = decode(line)
        if record is not None:
            yield record


CHILD_WAIT = 600.0  # seconds; a forked child slower than that leaves its share to this process
FIRST_BLOCK = 4 << 10  # a transcript's first cwd is in its first kilobytes (p99 of real ones: 9 KB)
NEXT_BLOCKS = 256 << 10


def first_cwd(path: str | os.PathLike[str], status: os.stat_result | None = None) -> str | None:
    """The `cwd` of the first record that has one (the first line often has none)."""
    try:
        descriptor = open_regular(path, status)
    except OSError:
        return None
    try:
        return _first_cwd(descriptor)
    except OSError:
        return None
    finally:
        os.close(descriptor)


FIRST_CWDS_SHARED = 400  # transcripts whose first cwds are read half in a forked child


def first_cwds(files: list[tuple[str, os.stat_result]]) -> list[str | None]:
    """`first_cwd` of each (path, stat), in order; many are shared with a forked child,
    which reads the second half on the other core."""
    if len(files) < FIRST_CWDS_SHARED:
        return [_first_cwd_of(file) for file in files]
    from tui.forked import map_shared

    half = len(files) // 2
    return map_shared(_first_cwd_of, files[:half], files[half:], CHILD_WAIT)


def _first_cwd_of(file: tuple[str, os.stat_result]) -> str | None:
    return first_cwd(*file)


def _first_cwd(descriptor: int) -> str | None:
    """`first_cwd` over an open file, read in blocks with no buffered reader around it: a
    cold discovery opens thousands of transcripts for a line or two each."""
    parts: list[bytes] = []  # the start of a line longer than what has been read of it
    block_size = FIRST_BLOCK
    while block := os.read(descriptor, block_size):
        block_size = NEXT_BLOCKS
        start = 0
        while (newline := block.find(b"\n", start)) >= 0:
            line = b"".join([*parts, block[start:newline]]) if parts else block[start:newline]
            parts = []
            if cwd := _cwd_of(line):
                return cwd
            start = newline + 1
        if start < len(block):
            parts.append(block[start:])
    return _cwd_of(b"".join(parts)) if parts else None


def _cwd_of(line: bytes) -> str | None:
    if b'"cwd"' not in line:
        return None
    record = decode(line)
    cwd = record.get("cwd") if record is not None else None
    return cwd if isinstance(cwd, str) and cwd else None


def store_of_memory_path(file_path: str) -> str | None:
    """`/x/projects/<F>/memory/a.md` -> `/x/projects/<F>/memory`; anything else -> None."""
    match = _STORE_IN_PATH.match(file_path)
    return match.group(1) if match else None


class MemoryEvidence:
    """What a transcript says about the memory store its session used."""

    def __init__(self, stores: set[str] | None = None,
                 original_cwds: set[str] | None = None) -> None:
        self.stores = set() if stores is None else stores  # memory dirs written to
        # from worktree-state records
        self.original_cwds = set() if original_cwds is None else original_cwds


def _one_of(value: object, options: frozenset[str] | set[str]) -> bool:
    """`value in options` for a value from a record, which may be of any JSON type."""
    return isinstance(value, str) and value in options


def written_paths(record: dict) -> list[str]:
    """Every file path a record says was written (tool inputs, tool results, memory_saved)."""
    found: list[str] = []
    kind = record.get("type")
    if kind == "system" and record.get("subtype") == "memory_saved":
        paths = record.get("writtenPaths")
        if isinstance(paths, list):
            found.extend(p for p in paths if isinstance(p, str))
    elif kind == "assistant":
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            for block in content:
                if (
                    isinstance(block, dict)
                    and block.get("type") == "tool_use"
                    and _one_of(block.get("name"), MEMORY_WRITE_TOOLS)
                    and isinstance(block.get("input"), dict)
                ):
                    file_path = block["input"].get("file_path")
                    if isinstance(file_path, str):
                        found.append(file_path)
    elif kind == "user":
        result = record.get("toolUseResult")
        # Write results say `type: create|update`; Edit/MultiEdit results have no type.
        if isinstance(result, dict) and (
            _one_of(result.get("type"), {"create", "update"}) or "structuredPatch" in result
        ):
            file_path = result.get("filePath")
            if isinstance(file_path, str):
                found.append(file_path)
    return found


# A memory write names `<projects>/<folder>/memory/…` (JSON escapes Windows' `\\`), a
# worktree record says `worktree-state`; lines with neither are never decoded. Blocks are
# searched for the end of such a path, each hit checked backwards for `/memory/` or
# `\\memory\\`. re is fastest at it with a one-byte prefix (`y/`, 1.5 GB/s: `y` is the
# rarest letter of `memory`); RE2 runs `memory/` at 2.1 GB/s but costs ~5 ms to load. So
# a process searches its first 32 MB with re (a `projects` needs no more on a heavy tree),
# the rest with RE2 (most of a cold `overwrites`). Worktree records are looked for only
# when no memory write says more (`EvidenceCache.folder_evidence`).
_MEMORY_DIR_END_RE = re.compile(rb"y(?:/|\\\\)")
_MEMORY_DIR_END_RE2 = rb"memory(?:/|\\\\)"
RE2_AFTER = 32 << 20  # bytes searched with re before RE2 takes over
_bytes_searched = 0
_WORKTREE_STATE = b"worktree-state"
_BLOCK = 1 << 20


@cache
def _memory_dir_end_re2():
    import re2

    return re2.compile(_MEMORY_DIR_END_RE2)


def _memory_dir_starts(data: bytes | bytearray, end: int) -> Iterator[int]:
    """Where `/memory/` or `\\\\memory\\\\` (the same separator on both sides) begin in `data[:end]`."""
    global _bytes_searched
    _bytes_searched += end
    finder = _MEMORY_DIR_END_RE if _bytes_searched <= RE2_AFTER else _memory_dir_end_re2()
    for match in finder.finditer(data, 0, end):
        close = match.end()  # just past the separator after `memory`
        separator = b"/" if data[close - 1] == 0x2F else b"\\\\"
        opening = close - len(b"memory") - 2 * len(separator)
        if opening >= 0 and data[opening:close] == separator + b"memory" + separator:
            yield opening


def names_memory_dir(text: bytes) -> bool:
    """Whether `text` holds `/memory/` or `\\\\memory\\\\`: every line holding it is one the
    evidence search finds."""
    return next(_memory_dir_starts(text, len(text)), None) is not None


def _lines(path: str | os.PathLike[str], starts: line_search.Starts,
           on_line: line_search.OnLine) -> int | None:
    """`line_search.search_lines` over a whole transcript, its last line included; None
    when it cannot be read (what was found until then stands)."""
    try:
        return line_search.search_lines(path, starts, on_line, unterminated=True, block=_BLOCK)
    except OSError:
        return None


class MemoryDirLines:
    """Where one search of a transcript found the lines naming a memory dir."""

    __slots__ = ("size", "mtime_ns", "complete", "spans")

    def __init__(self, size: int, mtime_ns: int, complete: int,
                 spans: tuple[tuple[int, int], ...]):
        self.size = size
        self.mtime_ns = mtime_ns
        self.complete = complete  # just past the last complete line
        self.spans = spans  # (offset, length) of each line


# The transcripts this process searched for memory-dir lines, with the size and mtime each
# had. A store under `projects/` is scanned for `projects/<folder>/memory/`, which occurs
# only on such lines: `scan_cache` then reads those lines, not the whole file again.
_searched: dict[str, MemoryDirLines] = {}


def _memory_dir_search(path: str | os.PathLike[str],
                       info: os.stat_result | None) -> tuple[list[str], MemoryDirLines | None]:
    """The stores a transcript's memory writes name, sorted, and where its memory-dir lines
    are (None without `info`, or when it could not be read to its end)."""
    stores: set[str] = set()
    spans: list[tuple[int, int]] = []

    def on_line(line: bytes, offset: int) -> None:
        spans.append((offset, len(line)))
        record = decode(line)
        if record is not None:
            for file_path in written_paths(record):
                store = store_of_memory_path(file_path)
                if store:
                    stores.add(store)

    complete = _lines(path, _memory_dir_starts, on_line)
    lines = (MemoryDirLines(info.st_size, info.st_mtime_ns, complete, tuple(spans))
             if info is not None and complete is not None else None)
    return sorted(stores), lines


PARALLEL_BYTES = 24 << 20  # transcripts to search past this are shared with a forked child

Search = tuple[list[str], MemoryDirLines | None]  # `_memory_dir_search`'s answer


def _memory_dir_searches(files: list[tuple[str, os.stat_result]]) -> list[Search]:
    """`_memory_dir_search` of each (path, stat), in order. Many megabytes are split by
    size between this process and a forked child, which searches on the other core."""
    if len(files) < 2 or sum(info.st_size for _, info in files) < PARALLEL_BYTES:
        return [_memory_dir_search_of(file) for file in files]
    from tui.forked import map_shared

    mine, theirs = _halves(files)
    answers = map_shared(_memory_dir_search_of, [files[i] for i in mine],
                         [files[i] for i in theirs], CHILD_WAIT)
    found = dict(zip(mine + theirs, answers, strict=True))
    return [found[i] for i in range(len(files))]


def _memory_dir_search_of(file: tuple[str, os.stat_result]) -> Search:
    return _memory_dir_search(*file)


def _halves(files: list[tuple[str, os.stat_result]]) -> tuple[list[int], list[int]]:
    """The files' places in two shares of about the same size, the biggest placed first."""
    shares: tuple[list[int], list[int]] = ([], [])
    totals = [0, 0]
    for place in sorted(range(len(files)), key=lambda i: -files[i][1].st_size):
        lighter = totals.index(min(totals))
        shares[lighter].append(place)
        totals[lighter] += files[place][1].st_size
    return shares


def _original_cwds(path: str | os.PathLike[str]) -> set[str]:
    """The checkouts a transcript's `worktree-state` records say its worktree was made from."""
    evidence = MemoryEvidence()

    def on_line(line: bytes, _offset: int) -> None:
        record = decode(line)
        if record is not None and record.get("type") == "worktree-state":
            add_evidence(evidence, record)

    _lines(path, line_search.needle_starts(_WORKTREE_STATE), on_line)
    return evidence.original_cwds


def read_memory_dir_lines(path: str | os.PathLike[str], info: os.stat_result, needle: bytes,
                          start: int, on_line: line_search.OnLine) -> int | None:
    """`line_search.search_lines(path, needle, start)` without reading the whole file, when
    this process already searched it for memory-dir lines, it still has the size and mtime
    it had then (`info`), and every line holding `needle` is one of those. None otherwise."""
    seen = _searched.get(os.path.abspath(path))
    if (seen is None or (seen.size, seen.mtime_ns) != (info.st_size, info.st_mtime_ns)
            or start > seen.complete or not names_memory_dir(needle)):
        return None
    with open_binary(path, buffering=0) as handle:
        for offset, length in seen.spans:
            if offset >= start and offset + length < seen.complete:
                line = os.pread(handle.fileno(), length, offset)
                if needle in line:
                    on_line(line, offset)
    return seen.complete


def add_evidence(evidence: MemoryEvidence, record: dict) -> None:
    """What one record says about the store its session used, added to `evidence`."""
    if record.get("type") == "worktree-state":
        session = record.get("worktreeSession")
        if isinstance(session, dict) and isinstance(session.get("originalCwd"), str):
            evidence.original_cwds.add(session["originalCwd"])
        return
    for file_path in written_paths(record):
        store = store_of_memory_path(file_path)
        if store:
            evidence.stores.add(store)


def memory_evidence(path: str | os.PathLike[str]) -> MemoryEvidence:
    return MemoryEvidence(set(_memory_dir_search(path, None)[0]), _original_cwds(path))


def _texts(value: object) -> bool:
    """A list of strings, as the cache writes it (a damaged entry is read again)."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def evidence_cache_path() -> Path:
    from tui import xdg

    return xdg.cache_dir() / "transcript-evidence.json"


class EvidenceCache:
    """Each transcript's memory evidence, kept between runs while the file's size and
    mtime stay the same (a JSON file in the cache dir; a damaged one is started again).

    An entry is `[size, mtime_ns, stores, original cwds]`; the cwds are null until some
    folder needed them (`folder_evidence`)."""

    def __init__(self, path: Path | None = None):
        self.path = path or evidence_cache_path()
        self.entries: dict[str, list] = {}
        self.changed = False
        try:
            loaded = json.loads(read_text(self.path))
            if isinstance(loaded, dict):
                self.entries = loaded
        except (OSError, ValueError, RecursionError):
            pass

    def folder_evidence(self, files: list[str]) -> MemoryEvidence:
        """What the transcripts of one folder say together. Worktree origins, a second
        search, are looked for only when no transcript names a store: a folder's store
        comes from its stores when it has any."""
        evidence = MemoryEvidence()
        entries = self._entries(files)
        for entry in entries:
            if entry is not None:
                evidence.stores.update(entry[2])
        if not evidence.stores:
            for file, entry in zip(files, entries, strict=True):
                if entry is not None:
                    evidence.original_cwds.update(self._original_cwds(file, entry))
        return evidence

    def _entries(self, files: list[str]) -> list[list | None]:
        """Each transcript's entry (None: it cannot be looked at), searched when the cache
        has none for its size and mtime."""
        entries: list[list | None] = []
        unknown: list[tuple[int, str, os.stat_result]] = []
        for path in files:
            try:
                info = os.stat(path)
            except OSError:
                entries.append(None)
                continue
            entry = self.entries.get(os.fsdecode(path))
            if not (isinstance(entry, list) and len(entry) == 4
                    and entry[:2] == [info.st_size, info.st_mtime_ns]
                    and _texts(entry[2]) and (entry[3] is None or _texts(entry[3]))):
                unknown.append((len(entries), path, info))
                entry = None
            entries.append(entry)
        searched = _memory_dir_searches([(path, info) for _, path, info in unknown])
        for (position, path, info), (stores, lines) in zip(unknown, searched, strict=True):
            if lines is not None:
                _searched[os.path.abspath(path)] = lines
            entries[position] = self.entries[os.fsdecode(path)] = [
                info.st_size, info.st_mtime_ns, stores, None]
            self.changed = True
        return entries

    def _original_cwds(self, path: str | os.PathLike[str], entry: list) -> list[str]:
        if entry[3] is None:
            entry[3] = sorted(_original_cwds(path))
            self.changed = True
        return entry[3]

    def forget_gone(self, projects_dir: str, listed: set[str]) -> None:
        """After a scan that listed every folder of `projects_dir` (`listed`: the session
        files it found), forget the transcripts under it that no listing named and that
        are gone from disk (Claude Code deletes old sessions). Other config homes' entries
        stay; a listed transcript costs no stat."""
        prefix = os.path.join(projects_dir, "")
        gone = [key for key in self.entries
                if key.startswith(prefix) and key not in listed and is_gone(key)]
        for key in gone:
            del self.entries[key]
        self.changed |= bool(gone)

    def save(self) -> None:
        if not self.changed:
            return
        try:
            data = json.dumps(self.entries, ensure_ascii=True, default=str).encode()
        except ValueError:
            return  # a cache that cannot be written only costs time
        replace_cache_file(os.fspath(self.path), data)
