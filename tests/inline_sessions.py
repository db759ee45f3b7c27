"""Claude Code 1.0.x sessions whose subagents are recorded inline, built in code.

The shape follows ../shared/data/claude-transcripts/claude-code-viewer (1.0.98, 1.0.108):
- the main agent calls `Task` with `{subagent_type, description, prompt}`;
- each subagent run is a chain of its own in the session's transcript: its first record is
  a user record holding the Task's prompt with `parentUuid: null`, every later one names
  the record before it; all have `isSidechain: true`, the session's id and no agent id;
- the runs of one Task batch run at once, but each is written as one block when it ends
  (the block's timestamps interleave with the other runs'), followed by the main agent's
  record of that Task's result. `interleaved` writes each record as it happens instead.
- lines are compact JSON, as Claude Code writes them.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime

from tests.test_history_transcripts import Session
from tui.claude import paths

VERSION = "1.0.98"


def compact(record: dict) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"


def task_call(session: Session, description: str | None, prompt: str) -> str:
    """The main agent of `session` calls Task (one tool_use of a batch); its tool_use id."""
    tool_id = f"toolu_{uuid.uuid4().hex[:24]}"
    task_input = {"subagent_type": "general-purpose", "prompt": prompt}
    if description is not None:
        task_input["description"] = description
    session._record("assistant", requestId=f"req_{uuid.uuid4().hex[:24]}", message={
        "id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-20250514",
        "content": [{"type": "tool_use", "id": tool_id, "name": "Task", "input": task_input}],
        "stop_reason": None, "usage": {"input_tokens": 4, "output_tokens": 1}})
    return tool_id


class OldSession(Session):
    """A 1.0.x session: its main agent's records, and its subagents' when they are written."""

    def __init__(self, claude, cwd, branch: str, start: datetime, interleaved: bool = False):
        super().__init__(claude, cwd, branch, start)
        self.interleaved = interleaved

    def _record(self, kind: str, **fields) -> dict:
        record = super()._record(kind, **fields)
        record["version"] = VERSION
        return record

    def task(self, description: str | None, prompt: str) -> InlineRun:
        """The main agent starts a subagent."""
        return InlineRun(self, task_call(self, description, prompt), prompt)

    def finish(self, run: InlineRun) -> None:
        """The run ends: its block (unless already written), then the Task's result."""
        if not self.interleaved:
            self.records.extend(run.records)
        self.clock = max(self.clock, run.clock)
        text = [{"type": "text", "text": "Done."}]
        self._record("user", message={"role": "user", "content": [
            {"tool_use_id": run.tool_id, "type": "tool_result", "content": text}]},
            toolUseResult={"content": text, "totalDurationMs": 1000, "totalTokens": 10,
                           "totalToolUseCount": len(run.records) // 2})

    def save(self):
        folder = self.claude.folder(paths.sanitize(self.cwd))
        path = folder / f"{self.id}.jsonl"
        path.write_text("".join(compact(record) for record in self.records), encoding="utf-8")
        return path


class InlineRun(Session):
    """One subagent run of an OldSession: a chain of sidechain records of its own."""

    def __init__(self, session: OldSession, tool_id: str, prompt: str):
        super().__init__(session.claude, session.cwd, session.branch, session.clock)
        self.id = session.id
        self.session = session
        self.tool_id = tool_id
        self._record("user", message={"role": "user", "content": prompt})

    def _record(self, kind: str, **fields) -> dict:
        record = super()._record(kind, **fields)
        record["isSidechain"] = True
        record["version"] = VERSION
        if self.session.interleaved:
            self.session.records.append(record)
        return record
