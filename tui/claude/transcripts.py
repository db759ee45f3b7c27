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

UUID_NAME = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$")
MEMORY_WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
_STORE_IN_PATH = re.compile(r"^(.*[/\\]projects[/\\][^/\\]+[/\\]memory)(?:[/\\]|$)")


def is_session_file(name: str) -> bool:
    """A top-level transcript of a session (not a subagent's)."""
    return name.endswith(".jsonl") and not name.startswith("agent-")


def session_files(folder: Path) -> list[Path]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return [Path(e.path) for e in entries if is_session_file(e.name) and _is_file(e)]


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def iter_lines(path: Path, needle: bytes | None = None) -> Iterator[bytes]:
    """Stream raw lines; with `needle`, only the lines that contain it."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, generator-owned
    except OSError:
        return
    with handle:
        for line in handle:
            if needle is None or needle in line:
                yield line


def decode(line: bytes) -> dict | None:
    """One record, or None for a malformed, cut-short or non-object line."""
    try:
        record = json.loads(line.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def iter_records(path: Path, needle: bytes | None = None) -> Iterator[dict]:
    for line in iter_lines(path, needle):
        record = decode(line)
        if record is not None:
            yield record


def first_cwd(path: Path) -> str | None:
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
                    and block.get("name") in MEMORY_WRITE_TOOLS
                    and isinstance(block.get("input"), dict)
                ):
                    file_path = block["input"].get("file_path")
                    if isinstance(file_path, str):
                        found.append(file_path)
    elif kind == "user":
        result = record.get("toolUseResult")
        # Write results say `type: create|update`; Edit/MultiEdit results have no type.
        if isinstance(result, dict) and (
            result.get("type") in {"create", "update"} or "structuredPatch" in result
        ):
            file_path = result.get("filePath")
            if isinstance(file_path, str):
                found.append(file_path)
    return found


def memory_evidence(path: Path) -> MemoryEvidence:
    evidence = MemoryEvidence()
    for line in iter_lines(path):
        if b"memory" not in line and b"worktree-state" not in line:
            continue
        record = decode(line)
        if record is None:
            continue
        if record.get("type") == "worktree-state":
            session = record.get("worktreeSession")
            if isinstance(session, dict) and isinstance(session.get("originalCwd"), str):
                evidence.original_cwds.add(session["originalCwd"])
            continue
        for file_path in written_paths(record):
            store = store_of_memory_path(file_path)
            if store:
                evidence.stores.add(store)
    return evidence
