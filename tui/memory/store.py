"""One memory directory read into plain values: the index and every memory file.

Reading never writes. Unreadable files, broken symlinks and non-UTF-8 bytes become
values with an `error`, never exceptions.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tui.claude.lock import LockState, read_lock
from tui.claude.paths import INDEX_NAME
from tui.memory import frontmatter
from tui.memory.frontmatter import Frontmatter
from tui.memory.index import LoadedIndex, parse_index

RECALL_SCAN_LIMIT = 200
FULL_READ_LIMIT = 1 << 20  # a memory file bigger than this is read only this far


@dataclass(frozen=True)
class Memory:
    file: str  # store-relative path, e.g. "feedback_testing.md"
    path: Path
    text: str  # the whole file, or only its first 30 lines when read for frontmatter
    frontmatter: Frontmatter
    mtime: float
    size: int
    error: str | None = None  # why it could not be read
    non_utf8: bool = False
    has_bom: bool = False
    outside_target: str | None = None  # a symlink resolving outside the store

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

    def memory(self, file: str) -> Memory | None:
        return next((m for m in self.memories if m.file == file), None)


def _read(path: Path, head_only: bool) -> tuple[bytes | None, str | None]:
    try:
        if head_only:
            return frontmatter.read_head(path), None
        with open(path, "rb") as handle:
            return handle.read(FULL_READ_LIMIT), None
    except FileNotFoundError:
        return None, "it is a broken symlink or vanished while reading"
    except IsADirectoryError:
        return None, "it is a directory"
    except OSError as error:
        return None, f"it cannot be read ({error.strerror or error})"


def _decode(data: bytes) -> tuple[str, bool]:
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), True


def read_memory(store_dir: Path, entry: os.DirEntry[str], head_only: bool) -> Memory:
    path = Path(entry.path)
    outside = None
    try:
        stat = entry.stat()
        mtime, size = stat.st_mtime, stat.st_size
    except OSError:
        mtime, size = 0.0, 0
    if entry.is_symlink():
        real = os.path.realpath(path)
        if not real.startswith(os.path.realpath(store_dir) + os.sep):
            outside = real
    data, error = _read(path, head_only)
    if data is None:
        return Memory(entry.name, path, "", Frontmatter(), mtime, size, error=error,
                      outside_target=outside)
    text, non_utf8 = _decode(data)
    return Memory(
        entry.name, path, text, frontmatter.parse(text), mtime, size,
        non_utf8=non_utf8, has_bom=text.startswith("\ufeff"), outside_target=outside,
    )


def recall_scan_files(store_dir: Path) -> tuple[frozenset[str], int]:
    """The 200 newest `.md` files (recursively, indexes excluded) and how many exist."""
    dated: list[tuple[float, str]] = []
    stack = [(store_dir, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir():
                    stack.append((Path(entry.path), f"{prefix}{entry.name}/"))
                elif entry.name.endswith(".md") and entry.name != INDEX_NAME:
                    dated.append((entry.stat().st_mtime, prefix + entry.name))
            except OSError:
                continue
    dated.sort(key=lambda item: (-item[0], item[1]))
    return frozenset(name for _, name in dated[:RECALL_SCAN_LIMIT]), len(dated)


def load_store(store_dir: Path, head_only: bool = False) -> Store:
    """Read a memory dir. `head_only` reads the first 30 lines of each memory file."""
    store_dir = Path(store_dir)
    index_path = store_dir / INDEX_NAME
    index_text: str | None = None
    index_error = None
    try:
        index_text, non_utf8 = _decode(index_path.read_bytes())
        if non_utf8:
            index_error = "MEMORY.md is not valid UTF-8; Claude Code sees replacement characters"
    except FileNotFoundError:
        pass
    except OSError as error:
        index_error = f"MEMORY.md cannot be read ({error.strerror or error})"

    memories: list[Memory] = []
    try:
        entries = sorted(os.scandir(store_dir), key=lambda e: e.name)
    except OSError:
        entries = []
    for entry in entries:
        if not entry.name.endswith(".md") or entry.name == INDEX_NAME:
            continue
        try:
            if entry.is_dir():
                continue
        except OSError:
            pass
        memories.append(read_memory(store_dir, entry, head_only))
    recall, markdown_files = recall_scan_files(store_dir)
    return Store(
        store_dir, index_text, parse_index(index_text), index_error, tuple(memories),
        recall, markdown_files, read_lock(store_dir),
    )
