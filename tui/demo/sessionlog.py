"""Write Claude Code transcripts (`.jsonl`) in their real record shapes.

One `SessionLog` is one session (or one subagent): it keeps the uuid chain, a clock and the
records, and writes them with a fixed mtime. Ids come from `uuid.uuid5`, so builds repeat.
"""

from __future__ import annotations

import difflib
import json
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path

VERSION = "2.1.88"
MODEL = "claude-opus-4-5"
NAMESPACE = uuid.UUID("6f1c3a52-3f0e-4d5e-9a57-2b1d0c7e8a41")


def demo_uuid(*parts: object) -> str:
    return str(uuid.uuid5(NAMESPACE, "/".join(str(p) for p in parts)))


def iso(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def structured_patch(old: str, new: str) -> list[dict]:
    """Hunks in the shape of a Write/Edit `structuredPatch`."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    hunks = []
    for group in matcher.get_grouped_opcodes(3):
        first, last = group[0], group[-1]
        lines: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines += [" " + line for line in old_lines[a1:a2]]
                continue
            lines += ["-" + line for line in old_lines[a1:a2]]
            lines += ["+" + line for line in new_lines[b1:b2]]
        hunks.append({
            "oldStart": first[1] + 1, "oldLines": last[2] - first[1],
            "newStart": first[3] + 1, "newLines": last[4] - first[3], "lines": lines,
        })
    return hunks


class SessionLog:
    def __init__(self, session_id: str, cwd: str, branch: str, start: float,
                 agent_id: str | None = None) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.branch = branch
        self.clock = start
        self.agent_id = agent_id
        self.records: list[dict] = []
        self.touched: dict[str, float] = {}  # file path -> when this session wrote it
        self.parent: str | None = None
        self._count = 0

    def _next_id(self, kind: str) -> str:
        self._count += 1
        return demo_uuid(self.session_id, self.agent_id, kind, self._count)

    def _tick(self, seconds: float) -> str:
        self.clock += seconds
        return iso(self.clock)

    def _chained(self, kind: str, seconds: float, **fields: object) -> str:
        record_id = self._next_id("record")
        record: dict = {
            "parentUuid": self.parent, "isSidechain": self.agent_id is not None,
            "userType": "external", "cwd": self.cwd, "sessionId": self.session_id,
            "version": VERSION, "gitBranch": self.branch,
        }
        if self.agent_id:
            record["agentId"] = self.agent_id
        record.update(type=kind, **fields)
        record.update(uuid=record_id, timestamp=self._tick(seconds))
        self.records.append(record)
        self.parent = record_id
        return record_id

    # --- records ------------------------------------------------------------------------

    def snapshot(self) -> None:
        """The `file-history-snapshot` line that opens a session (it has no cwd)."""
        message_id = demo_uuid(self.session_id, "snapshot")
        self.records.append({
            "type": "file-history-snapshot", "messageId": message_id,
            "snapshot": {"messageId": message_id, "trackedFileBackups": {},
                         "timestamp": iso(self.clock)},
            "isSnapshotUpdate": False,
        })

    def user(self, text: str) -> str:
        return self._chained("user", 20, message={"role": "user", "content": text})

    def assistant(self, *blocks: dict) -> str:
        message = {
            "model": MODEL, "id": "msg_" + self._next_id("message").replace("-", "")[:24],
            "type": "message", "role": "assistant", "content": list(blocks),
            "stop_reason": "tool_use" if blocks[-1]["type"] == "tool_use" else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 6, "cache_read_input_tokens": 18_400, "output_tokens": 310},
        }
        return self._chained("assistant", 8, message=message)

    def say(self, text: str) -> str:
        return self.assistant({"type": "text", "text": text})

    def tool(self, name: str, tool_input: dict, result: str, structured: dict | None) -> None:
        """An assistant tool_use and the user record carrying its tool_result."""
        tool_id = "toolu_" + self._next_id("tool").replace("-", "")[:24]
        self.assistant({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
        fields: dict = {"message": {"role": "user", "content": [
            {"tool_use_id": tool_id, "type": "tool_result", "content": result}]}}
        if structured is not None:
            fields["toolUseResult"] = structured
        self._chained("user", 2, **fields)

    def read(self, path: str, content: str) -> None:
        lines = content.count("\n") + (not content.endswith("\n"))
        numbered = "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(content.split("\n"), 1))
        self.tool("Read", {"file_path": path}, numbered, {"type": "text", "file": {
            "filePath": path, "content": content, "numLines": lines, "startLine": 1,
            "totalLines": lines}})

    def write(self, path: str, content: str, original: str | None) -> None:
        """A Write; `original` is what was on disk just before (None: a new file)."""
        verb = "created" if original is None else "updated"
        self.touched[path] = self.clock + 10
        self.tool("Write", {"file_path": path, "content": content},
                  f"File {verb} successfully at: {path}", {
                      "type": "create" if original is None else "update", "filePath": path,
                      "content": content,
                      "structuredPatch": [] if original is None else structured_patch(original, content),
                      "originalFile": original,
                  })

    def edit(self, path: str, original: str, old: str, new: str) -> None:
        self.touched[path] = self.clock + 10
        self.tool("Edit", {"file_path": path, "old_string": old, "new_string": new},
                  f"The file {path} has been updated.", {
                      "filePath": path, "oldString": old, "newString": new,
                      "originalFile": original, "replaceAll": False, "userModified": False,
                      "structuredPatch": structured_patch(original, original.replace(old, new, 1)),
                  })

    def memory_saved(self, *paths: str) -> None:
        self.touched.update((path, self.clock + 5) for path in paths)
        self._chained("system", 5, subtype="memory_saved", writtenPaths=list(paths),
                      content=f"Saved {len(paths)} memor{'y' if len(paths) == 1 else 'ies'}",
                      level="info", isMeta=False)

    def compact(self, summary: str) -> None:
        """A compact boundary (the chain restarts) and the summary that continues it."""
        logical_parent, self.parent = self.parent, None
        self._chained("system", 30, subtype="compact_boundary", content="Conversation compacted",
                      isMeta=False, level="info", logicalParentUuid=logical_parent,
                      compactMetadata={"trigger": "auto", "preTokens": 167_000})
        self._chained("user", 1, isCompactSummary=True, isVisibleInTranscriptOnly=True,
                      message={"role": "user", "content": summary})

    def worktree_state(self, original_cwd: str, name: str) -> None:
        self.records.append({
            "type": "worktree-state", "sessionId": self.session_id,
            "worktreeSession": {"originalCwd": original_cwd, "worktreePath": self.cwd,
                                "worktreeName": name, "worktreeBranch": self.branch},
        })

    def title(self, text: str) -> None:
        self.records.append({"type": "ai-title", "aiTitle": text, "sessionId": self.session_id})

    def summary(self, text: str) -> None:
        self.records.append({"type": "summary", "summary": text, "leafUuid": self.parent})

    def dump(self, path: Path, *, cut_short: bool = False) -> Path:
        """Write the records; `cut_short` leaves the last line half-written (a live session)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in self.records]
        text = "\n".join(lines) + "\n"
        if cut_short:
            text = text[: len(text) - len(lines[-1]) // 2 - 1]
        path.write_text(text, encoding="utf-8")
        os.utime(path, (self.clock, self.clock))
        return path
