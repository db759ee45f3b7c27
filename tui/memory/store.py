"""One memory directory read into plain values: its indexes (MEMORY.md, and team/MEMORY.md
for team memory) and every memory file, in every subfolder (see `claude.memory_files`).

Reading never writes. Unreadable files and folders, broken symlinks, non-UTF-8 bytes and
special files (a FIFO, socket or device is never opened, see `claude.files`) become values
with an `error`, never exceptions or a hang.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from tui.claude.files import (
    STEP,
    NotAFile,
    decode_utf8,
    not_text,
    open_binary,
    open_listed,
    read_regular,
)
from tui.claude.lock import LockState, read_lock
from tui.claude.memory_files import TEAM_FOLDER, TEAM_INDEX, is_log, memory_files
from tui.claude.paths import INDEX_NAME, utf16_len
from tui.disk_use import human_bytes
from tui.memory import frontmatter
from tui.memory.frontmatter import Frontmatter
from tui.memory.index import MAX_LINES, LoadedIndex, parse_index, with_rest
from tui.memory.links import wiki_names

RECALL_SCAN_LIMIT = 200
FULL_READ_LIMIT = 1 << 20  # a memory file bigger than this is read only this far
# An index bigger than this is parsed in its head only, cut at a line end (and said so):
# Claude Code loads its first 200 lines, and a 200 MB index parsed whole took 1.7 GB.
# The lines and length past the head are counted, a megabyte at a time.
INDEX_HEAD_LIMIT = 4 << 20


@dataclass(frozen=True, init=False)
class Memory:
    file: str  # store-relative path, e.g. "feedback_testing.md"
    location: str  # its full path; `path` makes the Path only when asked (20,000 add up)
    text: str  # the whole file, or only its first 30 lines when read for frontmatter
    frontmatter: Frontmatter
    mtime: float
    size: int
    error: str | None = None  # why it could not be read
    non_utf8: bool = False
    has_bom: bool = False
    outside_target: str | None = None  # a symlink resolving outside the store
    link_target: str | None = None  # where the file points, when it is a symlink

    def __init__(self, file: str, location: str, text: str, frontmatter: Frontmatter,
                 mtime: float, size: int, error: str | None = None, non_utf8: bool = False,
                 has_bom: bool = False, outside_target: str | None = None,
                 link_target: str | None = None) -> None:
        # The instance dict set whole, as Frontmatter does: one per memory file.
        object.__setattr__(self, "__dict__", {
            "file": file, "location": location, "text": text, "frontmatter": frontmatter,
            "mtime": mtime, "size": size, "error": error, "non_utf8": non_utf8,
            "has_bom": has_bom, "outside_target": outside_target, "link_target": link_target,
        })

    @property
    def path(self) -> Path:
        return Path(self.location)

    @property
    def name(self) -> str:
        return self.frontmatter.name or self.file.removesuffix(".md")

    @property
    def description(self) -> str:
        return self.frontmatter.description or ""

    @property
    def type(self) -> str | None:
        return self.frontmatter.type

    @property
    def body(self) -> str:
        return self.frontmatter.body

    @property
    def is_log(self) -> bool:
        """A daily log or session note (`logs/`, `sessions/`): never indexed."""
        return is_log(self.file)


@dataclass(frozen=True)
class IndexFile:
    """One index of a store: MEMORY.md, or team/MEMORY.md for team memory."""

    file: str  # store-relative
    text: str | None
    loaded: LoadedIndex
    error: str | None
    not_text: str | None = None  # why it is no text file (NUL bytes, mostly not UTF-8)


@dataclass(frozen=True)
class Store:
    path: Path
    index_text: str | None
    index: LoadedIndex
    index_error: str | None
    memories: tuple[Memory, ...]
    recall_scan: frozenset[str]  # the files the relevance scanner would read
    markdown_files: int  # every .md below the store except indexes
    lock: LockState
    wiki_names: Mapping[str, str] = field(default_factory=dict)  # what `[[name]]` links resolve to
    team_index: IndexFile | None = None  # when the store has a team/ folder
    index_not_text: str | None = None  # why MEMORY.md is no text file, when it is not
    unreadable_folders: tuple[tuple[str, str], ...] = ()  # (folder, why) for "" or "topics/"

    @property
    def indexes(self) -> tuple[IndexFile, ...]:
        main = IndexFile(INDEX_NAME, self.index_text, self.index, self.index_error,
                         self.index_not_text)
        return (main,) if self.team_index is None else (main, self.team_index)

    def memory(self, file: str) -> Memory | None:
        return self._memories_by_file.get(file)

    @cached_property
    def _memories_by_file(self) -> dict[str, Memory]:
        by_file: dict[str, Memory] = {}
        for memory in self.memories:
            by_file.setdefault(memory.file, memory)
        return by_file


def _read(entry: os.DirEntry[str], head_only: bool) -> tuple[bytes, os.stat_result]:
    """The file's bytes (all of them up to the limit, or its head) and its stat."""
    descriptor, status = open_listed(entry)
    try:
        if head_only:
            return frontmatter.read_head(descriptor), status
        chunks = []
        remaining = FULL_READ_LIMIT
        while remaining > 0:
            wanted = min(remaining, max(status.st_size + 1, 8192))
            chunk = os.read(descriptor, wanted)
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
            if len(chunk) < wanted and FULL_READ_LIMIT - remaining >= status.st_size:
                # Short, with every byte it had when opened: its end, with no read of
                # nothing to see it. (A short read before that size reads on.)
                break
        return b"".join(chunks), status
    finally:
        os.close(descriptor)


def _why_unreadable(error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return "it is a broken symlink or vanished while reading"
    if isinstance(error, NotAFile | IsADirectoryError):
        return error.strerror  # "it is a named pipe (FIFO), not a regular file"
    return f"it cannot be read ({error.strerror or error})"


def _decode(data: bytes) -> tuple[str, bool]:
    """The text, and whether bytes that are not UTF-8 were replaced."""
    try:
        return decode_utf8(data), False
    except UnicodeDecodeError:
        return decode_utf8(data, "replace"), True


def _read_memory(
    store_dir: Path, file: str, entry: os.DirEntry[str], head_only: bool
) -> tuple[Memory, float | None]:
    """The memory, and its mtime as the recall scanner sees it (None: it cannot be read, and
    the scanner drops what it cannot read before keeping the newest 200)."""
    outside = link = None
    if entry.is_symlink():
        link = _readlink(entry.path)
        real = os.path.realpath(entry.path)
        if not real.startswith(os.path.realpath(store_dir) + os.sep):
            outside = real
    try:
        data, status = _read(entry, head_only)
    except OSError as error:
        try:
            status = entry.stat()
            mtime, size = status.st_mtime, status.st_size
        except OSError:
            mtime, size = 0.0, 0
        memory = Memory(file, entry.path, "", Frontmatter(), mtime, size,
                        error=_why_unreadable(error), outside_target=outside, link_target=link)
        return memory, None
    text, non_utf8 = _decode(data)
    memory = Memory(
        file, entry.path, text, frontmatter.parse(text), status.st_mtime, status.st_size,
        non_utf8=non_utf8, has_bom=text.startswith("\ufeff"), outside_target=outside,
        link_target=link,
    )
    return memory, status.st_mtime


def _readlink(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def _recall_scan(dated: list[tuple[float, str]]) -> frozenset[str]:
    """The 200 newest `.md` files: what the relevance scanner reads."""
    dated.sort(key=lambda item: (-item[0], item[1]))
    return frozenset(name for _, name in dated[:RECALL_SCAN_LIMIT])


def _read_index(store_dir: Path, file: str, names: Mapping[str, str]) -> IndexFile:
    text: str | None = None
    error = reason = None
    rest = (0, 0)
    try:
        data = read_regular(store_dir / file, INDEX_HEAD_LIMIT + 1)
        if end := head_end(data):
            data = data[:end]
            rest = _count_rest(store_dir / file, len(data))
    except FileNotFoundError:
        data = None
    except OSError as failure:
        data = None
        error = f"{file} cannot be read ({failure.strerror or failure})"
    if data is not None:
        text, non_utf8 = _decode(data)
        reason = not_text(data)
        if reason:
            error = (f"{file} is not text ({reason}): Claude Code loads it as garbage; "
                     "put back a good copy (memtui undo, or the journal)")
        elif non_utf8:
            error = f"{file} is not valid UTF-8; Claude Code sees replacement characters"
    folder = file.rpartition("/")[0]
    loaded = parse_index(text, names, folder=folder and f"{folder}/")
    if rest != (0, 0):
        loaded = with_rest(loaded, *rest)
        error = error or (f"{file} has {loaded.lines:,} lines; memtui reads the links of its "
                          f"first {human_bytes(len(data))} only (Claude Code loads its first "
                          f"{MAX_LINES})")
    return IndexFile(file, text, loaded, error, reason)


def head_end(data: bytes) -> int:
    """Where the part of an index parsed ends, when it is too big to parse whole (a line
    end within `INDEX_HEAD_LIMIT`); 0 when it is parsed whole."""
    if len(data) <= INDEX_HEAD_LIMIT:
        return 0
    return data.rfind(b"\n", 0, INDEX_HEAD_LIMIT) + 1 or INDEX_HEAD_LIMIT


def _count_rest(path: Path, start: int) -> tuple[int, int]:
    """(lines, UTF-16 units) of a file from byte `start` on, as they add to a text that
    ended with a newline there; read a megabyte at a time, so a file of any size costs
    a megabyte."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    newlines = units = 0
    last = ""
    with open_binary(path) as source:
        source.seek(start)
        while chunk := source.read(STEP):
            part = decoder.decode(chunk)
            newlines += part.count("\n")
            units += utf16_len(part)
            last = part[-1:] or last
    units += utf16_len(decoder.decode(b"", final=True))
    # The head's trailing newline, trimmed from it, joins it to the rest; the rest's own
    # trailing newline is trimmed (as are the head's leading blanks: the rest's trailing
    # blanks beyond one newline are counted, an index this big is measured, not exact).
    ends = last == "\n"
    return newlines + (not ends), units + 1 - ends


def read_memories(store_dir: Path) -> tuple[list[Memory], list[tuple[str, str]]]:
    """Every memory file of a store read whole, and (folder, why) for each folder that
    cannot be listed; no index: what a search reads."""
    store_dir = Path(store_dir)
    unreadable: list[tuple[str, str]] = []
    memories = [_read_memory(store_dir, file, entry, False)[0]
                for file, entry in memory_files(store_dir, unreadable)]
    return memories, unreadable


def load_store(store_dir: Path, head_only: bool = False) -> Store:
    """Read a memory dir, every subfolder included. `head_only` reads the first 30 lines of
    each memory file."""
    store_dir = Path(store_dir)
    memories: list[Memory] = []
    dated: list[tuple[float, str]] = []  # every .md the recall scanner considers
    unreadable: list[tuple[str, str]] = []
    for file, entry in memory_files(store_dir, unreadable):
        memory, scanned = _read_memory(store_dir, file, entry, head_only)
        memories.append(memory)
        if scanned is not None:
            dated.append((scanned, file))
    names = wiki_names((m.file, m.frontmatter.name) for m in memories)
    index = _read_index(store_dir, INDEX_NAME, names)
    team = (_read_index(store_dir, TEAM_INDEX, names)
            if os.path.isdir(store_dir / TEAM_FOLDER) else None)
    return Store(
        store_dir, index.text, index.loaded, index.error, tuple(memories),
        _recall_scan(dated), len(dated), read_lock(store_dir), names, team, index.not_text,
        tuple(unreadable),
    )


def same_file_names(store: Store) -> dict[str, tuple[str, ...]]:
    """Memories that are one file under several names (a symlink in the store to another
    memory of it): {each such name: every name of that file, the file's own name first}.
    One index line reaches the file under any of its names."""
    links = [m for m in store.memories if m.link_target is not None
             and m.outside_target is None and not m.error]
    if not links:
        return {}
    root = os.path.realpath(store.path)
    by_file: dict[str, list[str]] = {}
    for memory in store.memories:
        if memory.error:
            continue
        real = (os.path.realpath(memory.location) if memory.link_target is not None
                else os.path.join(root, memory.file))
        names = by_file.setdefault(real, [])
        if memory.link_target is None:
            names.insert(0, memory.file)
        else:
            names.append(memory.file)
    return {name: tuple(names) for names in by_file.values() if len(names) > 1
            for name in names}
