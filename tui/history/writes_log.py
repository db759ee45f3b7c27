"""What the transcripts say happened to a store's files: reads, writes, edits, saves.

Every transcript folder mapped to the store is read (main checkout, subdirectories,
worktrees, deleted worktrees, and the subagent files under `<sessionId>/subagents/`).
Only lines holding the store's path are decoded (see `scan_cache`). A tool's structured
result carries everything needed, so results are read, not the tool calls:
- Write: `{type: create|update, filePath, content, originalFile}`;
- Edit / MultiEdit: `{filePath, originalFile, oldString/newString | edits}` (1.0.x builds
  MultiEdit: `originalFileContents`): the new content is the edit applied to
  `originalFile` (what was on disk just before);
- Read: `{type: text, file: {filePath, content, startLine, numLines, totalLines}}`;
- `memory_saved` system records: paths only (extraction and dream leave no content).

A subagent's records carry its session's id; each event also names the agent that acted
(see `agent_of`), so a subagent and its main agent are two readers and writers, and so
are two subagents of one session.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from tui.claude import paths, sidechains, transcripts
from tui.claude.paths import as_written
from tui.history.scan_cache import ScanCache


class MemoryEvent(NamedTuple):
    """One thing a session did to one file of the store."""

    kind: str  # "write", "edit", "read" or "saved"
    file: str  # store-relative
    session: str
    agent: str  # "" for the session's main agent, else the subagent (see `agent_of`)
    cwd: str
    branch: str
    time: str  # ISO-8601 as recorded
    content: str | None  # the file after a write/edit, or as read; None when unknown
    original: str | None  # what was on disk just before a write/edit (None: created)
    transcript: str
    offset: int  # byte offset of the record in its transcript

    @property
    def when(self) -> float:
        return parse_time(self.time)

    @property
    def changes_file(self) -> bool:
        return self.kind in {"write", "edit", "saved"}


def parse_time(text: str) -> float:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except (ValueError, AttributeError):
        return 0.0


class StoreMatcher:
    """Recognises paths of one store's files, whichever config home wrote them."""

    def __init__(self, store: Path):
        store = Path(os.path.abspath(store))
        if store.name == paths.MEMORY_DIR_NAME and store.parent.parent.name == "projects":
            folder = store.parent.name
            self.needle = f"projects/{folder}/memory/".encode()
            self._pattern = re.compile(
                rf"[/\\]projects[/\\]{re.escape(folder)}[/\\]memory[/\\](.+)$"
            )
        else:
            self.needle = (str(store).rstrip("/") + "/").encode()
            self._pattern = re.compile(rf"^{re.escape(str(store).rstrip('/'))}[/\\](.+)$")

    def relative(self, file_path: object) -> str | None:
        if not isinstance(file_path, str):
            return None
        match = self._pattern.search(file_path)
        return match.group(1).replace("\\", "/") if match else None


def apply_edits(original: str, edits: Iterable[object]) -> str | None:
    """The file after Edit/MultiEdit replacements; None when an old string is not there, or
    an edit is not the object Claude Code records."""
    text = original
    for edit in edits:
        if not isinstance(edit, Mapping):
            return None
        old = edit.get("old_string", edit.get("oldString"))
        new = edit.get("new_string", edit.get("newString"))
        if not isinstance(old, str) or not isinstance(new, str):
            return None
        if old == "":  # creating a file with Edit
            if text:
                return None
            text = new
            continue
        if old not in text:
            return None
        replace_all = edit.get("replace_all", edit.get("replaceAll")) is True
        text = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    return text


def _result_event(result: dict, matcher: StoreMatcher) -> tuple[str, str, str | None, str | None] | None:
    """(kind, file, content, original) from a structured tool result, if it is about the store."""
    kind = result.get("type")
    if kind == "text" and isinstance(result.get("file"), dict):
        read = result["file"]
        file = matcher.relative(read.get("filePath"))
        content = read.get("content")
        if file is None or not isinstance(content, str):
            return None
        start, lines, total = (read.get(key) for key in ("startLine", "numLines", "totalLines"))
        whole = (start is None or _is_number(start, 0, 1)) and (
            total is None or (_is_number(lines) and lines == total)
        )
        return "read", file, content if whole else None, None
    file = matcher.relative(result.get("filePath"))
    if file is None:
        return None
    # MultiEdit results of 1.0.x builds name it originalFileContents.
    original = result.get("originalFile", result.get("originalFileContents"))
    original = original if isinstance(original, str) else None
    if kind in ("create", "update"):
        content = result.get("content")
        return "write", file, content if isinstance(content, str) else None, original
    if "edits" in result or "oldString" in result:
        edits = result.get("edits") if "edits" in result else [result]
        content = apply_edits(original, edits) if original is not None and isinstance(edits, list) else None
        return "edit", file, content, original
    return None


def _is_number(value: object, *choices: int) -> bool:
    """An integer from a record (JSON `true` is no line number), one of `choices` if given."""
    return type(value) is int and (not choices or value in choices)


SIDECHAIN = "sidechain"  # a subagent recorded inside its session's transcript (1.0.x),
# until `scan_events` names its run; it stays so when the transcript cannot be read again


def agent_of(record: Mapping[str, object], transcript: str) -> str:
    """Which agent of its session wrote a record: "" for the main agent, else the
    subagent's id, as Claude Code recorded it. 2.1.x: `agentId` in every record (in
    `<sessionId>/subagents/agent-<id>.jsonl`); 2.0.x: only the file name `agent-<id>.jsonl`;
    1.0.x: `isSidechain` in the session's own transcript, which names no agent: `SIDECHAIN`,
    which `scan_events` replaces with the name of the run (`sidechains.run_names`)."""
    agent = record.get("agentId")
    if isinstance(agent, str) and agent:
        return as_written(agent)
    name = os.path.basename(transcript)
    if name.startswith("agent-") and name.endswith(".jsonl") and len(name) > len("agent-.jsonl"):
        return as_written(name[len("agent-"):-len(".jsonl")])
    return SIDECHAIN if record.get("isSidechain") is True else ""


def parse_line(line: bytes, offset: int, matcher: StoreMatcher, transcript: str) -> list[dict]:
    """The events one transcript line records about the store, as cacheable dicts."""
    record = transcripts.decode(line)
    if record is None:
        return []
    base = {
        "session": _field(record.get("sessionId")),
        "agent": agent_of(record, transcript),
        "cwd": _field(record.get("cwd")),
        "branch": _field(record.get("gitBranch")),
        "time": _field(record.get("timestamp")),
        "transcript": transcript,
        "offset": offset,
    }
    found: list[dict] = []
    if record.get("type") == "system" and record.get("subtype") == "memory_saved":
        written = record.get("writtenPaths")
        for path in written if isinstance(written, list) else []:
            file = matcher.relative(path)
            if file:
                found.append({**base, "kind": "saved", "file": as_written(file), "content": None,
                              "original": None})
    elif record.get("type") == "user" and isinstance(record.get("toolUseResult"), dict):
        event = _result_event(record["toolUseResult"], matcher)
        if event:
            kind, file, content, original = event
            found.append({**base, "kind": kind, "file": as_written(file),
                          "content": content and as_written(content),
                          "original": original and as_written(original)})
    return found


def _field(value: object) -> str:
    """A record's session, cwd, branch or time as text; "" when it is no string."""
    return as_written(value) if isinstance(value, str) else ""


def transcript_files(folders: Iterable[Path]) -> list[Path]:
    """Every transcript in these folders: sessions, old-style and new-style subagents."""
    files: list[str] = []
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith(".jsonl"):
                files.append(entry.path)
            elif _is_folder(entry):
                files.extend(_jsonl_in(os.path.join(entry.path, "subagents")))
    return [Path(file) for file in sorted(files)]


def _jsonl_in(folder: str) -> list[str]:
    try:
        with os.scandir(folder) as entries:
            return [entry.path for entry in entries if entry.name.endswith(".jsonl")]
    except OSError:  # no subagents (most sessions), or not a folder
        return []


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def store_transcript_folders(store: Path, home: Path | None = None,
                             env: Mapping[str, str] | None = None) -> list[Path]:
    """The transcript folders discovery maps to `store`."""
    from tui.claude.discovery import discover

    wanted = os.path.realpath(store)
    folders: list[Path] = []
    for project in discover(home, env).projects:
        if project.store is not None and os.path.realpath(project.store) == wanted:
            folders.extend(project.transcript_dirs)
    return folders


def scan_events(store: Path, files: Iterable[Path], cache: ScanCache | None = None,
                listed: Iterable[Path] = ()) -> list[MemoryEvent]:
    """Every event about `store` in these transcripts, oldest first (`listed`: folders
    whose every transcript `files` names, see `ScanCache.scan`)."""
    matcher = StoreMatcher(store)
    owned = cache is None
    cache = cache or ScanCache()
    try:
        by_file = cache.scan(
            files, matcher.needle,
            lambda line, offset, path: parse_line(line, offset, matcher, path), listed,
        )
    finally:
        if owned:
            cache.close()
    events = _name_inline_runs([MemoryEvent(**item) for items in by_file.values() for item in items])
    events.sort(key=lambda e: (e.when, e.transcript, e.offset))
    return events


def _name_inline_runs(events: list[MemoryEvent]) -> list[MemoryEvent]:
    """`events` with each 1.0.x inline subagent's run named, so that two runs are two
    writers. Only the transcripts holding such events are read again (few, and small)."""
    inline: dict[str, set[int]] = {}
    for event in events:
        if event.agent == SIDECHAIN:
            inline.setdefault(event.transcript, set()).add(event.offset)
    if not inline:
        return events
    names = {transcript: sidechains.run_names(transcript, offsets)
             for transcript, offsets in inline.items()}
    return [event._replace(agent=as_written(names[event.transcript].get(event.offset, SIDECHAIN)))
            if event.agent == SIDECHAIN else event for event in events]


def folder_events(store: Path, folders: Iterable[Path],
                  cache: ScanCache | None = None) -> list[MemoryEvent]:
    """Every event about `store` in every transcript of these folders (the cache forgets
    the transcripts they no longer hold)."""
    folders = list(folders)
    return scan_events(store, transcript_files(folders), cache, folders)


def store_events(store: Path, home: Path | None = None, env: Mapping[str, str] | None = None,
                 cache: ScanCache | None = None) -> list[MemoryEvent]:
    """Every event about `store` in the transcripts of every folder mapped to it."""
    return folder_events(store, store_transcript_folders(store, home, env), cache)
