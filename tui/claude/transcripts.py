"""Reading Claude Code transcripts (`.jsonl`) defensively and cheaply.

Lines are byte-filtered before JSON decoding; malformed, half-written and non-UTF-8
lines are skipped, never fatal. Files are streamed, never loaded whole.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tui.claude.files import open_binary, read_text

UUID_NAME = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$")
MEMORY_WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
_STORE_IN_PATH = re.compile(r"^(.*[/\\]projects[/\\][^/\\]+[/\\]memory)(?:[/\\]|$)")


def is_session_file(name: str) -> bool:
    """A top-level transcript of a session (not a subagent's)."""
    return name.endswith(".jsonl") and not name.startswith("agent-")


def session_files(folder: Path) -> list[Path]:
    return [Path(path) for path in session_paths(folder)]


def session_paths(folder: str | os.PathLike[str]) -> list[str]:
    """`session_files` as strings (discovery lists thousands of folders)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return [e.path for e in entries if is_session_file(e.name) and _is_file(e)]


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def iter_lines(path: str | os.PathLike[str], needle: bytes | None = None) -> Iterator[bytes]:
    """Stream raw lines; with `needle`, only the lines that contain it."""
    try:
        handle = open_binary(path)
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


def iter_records(path: str | os.PathLike[str], needle: bytes | None = None) -> Iterator[dict]:
    for line in iter_lines(path, needle):
        record = decode(line)
        if record is not None:
            yield record


def first_cwd(path: str | os.PathLike[str]) -> str | None:
    """The `cwd` of the first record that has one (the first line often has none)."""
    for record in iter_records(path, b'"cwd"'):
        cwd = record.get("cwd")
        if isinstance(cwd, str) and cwd:
            return cwd
    return None


def store_of_memory_path(file_path: str) -> str | None:
    """`/x/projects/<F>/memory/a.md` -> `/x/projects/<F>/memory`; anything else -> None."""
    match = _STORE_IN_PATH.match(file_path)
    return match.group(1) if match else None


@dataclass
class MemoryEvidence:
    """What a transcript says about the memory store its session used."""

    stores: set[str] = field(default_factory=set)  # memory dirs written to
    original_cwds: set[str] = field(default_factory=set)  # from worktree-state records


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


# A memory write names `<projects>/<folder>/memory/…` (JSON escapes Windows' `\\`);
# a worktree record says so. Lines with neither are never decoded. The search starts at
# the literal `memory` (re skips ahead to a literal prefix quickly; an alternation of
# `/memory/`, `\\memory\\` and `worktree-state` is tried at every byte, 4x slower).
_MEMORY_DIR = re.compile(rb"memory(?:/|\\\\)")
_WORKTREE_STATE = b"worktree-state"
_BLOCK = 1 << 20


def _evidence_starts(data: bytes, end: int) -> list[int]:
    """Where `/memory/`, `\\\\memory\\\\` or `worktree-state` begin in `data[:end]`."""
    starts = []
    for match in _MEMORY_DIR.finditer(data, 0, end):
        closing = match.group()[len(b"memory"):]  # `/` or `\\\\`: the opening must match
        if data.endswith(closing, 0, match.start()):
            starts.append(match.start() - len(closing))
    position = data.find(_WORKTREE_STATE, 0, end)
    while position != -1:
        starts.append(position)
        position = data.find(_WORKTREE_STATE, position + 1, end)
    return sorted(starts)


def evidence_lines(path: str | os.PathLike[str]) -> Iterator[bytes]:
    """The lines of a transcript that may hold memory evidence, found by searching whole
    blocks (most transcripts are megabytes of tool output with none)."""
    try:
        handle = open_binary(path, buffering=0)
    except OSError:
        return
    with handle:
        pending = b""
        while True:
            try:
                block = handle.read(_BLOCK)
            except OSError:
                return
            data = pending + block if pending else block
            complete = data.rfind(b"\n") + 1 if block else len(data)
            after_last = 0
            for start in _evidence_starts(data, complete):
                if start < after_last:
                    continue  # on a line already given
                line_start = data.rfind(b"\n", 0, start) + 1
                end = data.find(b"\n", start, complete)
                end = complete if end == -1 else end
                yield data[line_start:end]
                after_last = end + 1
            if not block:
                return
            pending = data[complete:]


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
    evidence = MemoryEvidence()
    for line in evidence_lines(path):
        record = decode(line)
        if record is not None:
            add_evidence(evidence, record)
    return evidence


def _texts(value: object) -> bool:
    """A list of strings, as the cache writes it (a damaged entry is read again)."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


class EvidenceCache:
    """Each transcript's memory evidence, kept between runs while the file's size and
    mtime stay the same (a JSON file in the cache dir; a damaged one is started again)."""

    def __init__(self, path: Path | None = None):
        from tui import xdg

        self.path = path or xdg.cache_dir() / "transcript-evidence.json"
        self.entries: dict[str, list] = {}
        self.changed = False
        try:
            loaded = json.loads(read_text(self.path))
            if isinstance(loaded, dict):
                self.entries = loaded
        except (OSError, ValueError, RecursionError):
            pass

    def evidence(self, path: str | os.PathLike[str]) -> MemoryEvidence:
        try:
            info = os.stat(path)
        except OSError:
            return MemoryEvidence()
        key = os.fsdecode(path)
        entry = self.entries.get(key)
        if (isinstance(entry, list) and len(entry) == 4
                and entry[:2] == [info.st_size, info.st_mtime_ns]
                and _texts(entry[2]) and _texts(entry[3])):
            return MemoryEvidence(set(entry[2]), set(entry[3]))
        found = memory_evidence(path)
        self.entries[key] = [info.st_size, info.st_mtime_ns, sorted(found.stores),
                             sorted(found.original_cwds)]
        self.changed = True
        return found

    def save(self) -> None:
        if not self.changed:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_name(f".{self.path.name}.{os.getpid()}.partial")
            partial.write_text(json.dumps(self.entries, ensure_ascii=True,
                                          default=str), encoding="utf-8", errors="surrogateescape")
            os.replace(partial, self.path)
        except (OSError, ValueError):
            pass  # a cache that cannot be written only costs time
