"""One repository whose every path is gone, laid out as Claude Code lays it out.

The spotter repository (the real transcripts in `../shared/data/claude-transcripts/spotter`):
the main checkout's folder holds three sessions and the `memory/` store; two worktree
folders hold one session each, with `<sessionId>/subagents/` transcripts, compaction agents
and a `compact_boundary`. No session wrote memory and no cwd exists on this machine.
`real_spotter` copies the real files into a config home; `synthetic_spotter` writes records
of the same shapes, so the tests that use it need nothing beside the repository.
"""

from __future__ import annotations

import json
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import (
    SHARED_TRANSCRIPTS,
    ClaudeHome,
    index_line,
    memory_text,
    write_index,
    write_jsonl,
    write_memory,
)

from tui.claude import paths, transcripts

SHARED_SPOTTER = SHARED_TRANSCRIPTS / "spotter"
MAIN_CWD = "/home/marco/projects/spotter"
WORKTREE_CWDS = (
    "/home/USER/projects/spotter-worktrees/spotter-4te",
    "/home/USER/projects/spotter-worktrees/spotter-gqc",
)
MAIN_SESSIONS = 3


@dataclass(frozen=True)
class Spotter:
    home: ClaudeHome
    store: Path
    main_session_ids: tuple[str, ...]

    @property
    def main_folder(self) -> Path:
        return self.store.parent

    def worktree_session(self, cwd: str) -> Path:
        """The one session file of a worktree's transcript folder."""
        (session,) = transcripts.session_files(self.home.projects / paths.sanitize(cwd))
        return session

    def append(self, cwd: str, record: dict) -> None:
        """A record at the end of the worktree session, as Claude Code appends them."""
        with open(self.worktree_session(cwd), "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")


def spotter_store(home: ClaudeHome) -> Path:
    """The store keyed by the main checkout (the transcripts hold none: we add a small one)."""
    store = home.store(MAIN_CWD)
    write_memory(store, "feedback_testing.md", memory_text())
    write_index(store, [index_line("feedback_testing.md", "Testing", "run the whole suite")])
    return store


def real_spotter(home: ClaudeHome) -> Spotter:
    """The real transcripts, each at `projects/<sanitize(cwd)>/<sessionId>.jsonl`."""
    main_ids = []
    for source in sorted(SHARED_SPOTTER.glob("*.jsonl")):
        cwd = transcripts.first_cwd(source)
        session_id = next(r["sessionId"] for r in transcripts.iter_records(source, b"sessionId"))
        folder = home.folder(paths.sanitize(cwd))
        shutil.copyfile(source, folder / f"{session_id}.jsonl")
        subagents = source.with_suffix("")
        if subagents.is_dir():
            shutil.copytree(subagents, folder / session_id)
        if cwd == MAIN_CWD:
            main_ids.append(session_id)
    return Spotter(home, spotter_store(home), tuple(sorted(main_ids)))


def synthetic_spotter(home: ClaudeHome) -> Spotter:
    """Sessions in the real shapes: the same fields, record types and folder layout."""
    main_ids = []
    for number in range(MAIN_SESSIONS):
        session = Session(MAIN_CWD, "master", "2.1.38")
        home.transcript(paths.sanitize(MAIN_CWD), session.records(f"question {number}"),
                        session_id=session.session_id)
        main_ids.append(session.session_id)
    for cwd in WORKTREE_CWDS:
        session = Session(cwd, Path(cwd).name, "2.1.39")
        folder = home.folder(paths.sanitize(cwd))
        home.transcript(folder.name, session.worktree_records(), session_id=session.session_id)
        subagents = folder / session.session_id / "subagents"
        subagents.mkdir(parents=True)
        write_jsonl(subagents / "agent-a881341.jsonl", session.subagent_records("a881341"))
        write_jsonl(subagents / "agent-acompact-fffbd0.jsonl",
                    session.subagent_records("acompact-fffbd0"))
    return Spotter(home, spotter_store(home), tuple(sorted(main_ids)))


LAYOUTS = [
    pytest.param(synthetic_spotter, id="synthetic"),
    pytest.param(real_spotter, id="real", marks=pytest.mark.skipif(
        not SHARED_SPOTTER.is_dir(), reason=f"real transcripts not available at {SHARED_SPOTTER}")),
]


class Session:
    """Records of one session, chained by uuid, with the fields Claude Code writes."""

    def __init__(self, cwd: str, branch: str, version: str) -> None:
        self.cwd, self.branch, self.version = cwd, branch, version
        self.session_id = str(uuid.uuid4())
        self.parent: str | None = None

    def message(self, kind: str, body: dict, **extra) -> dict:
        record = {
            "parentUuid": self.parent, "isSidechain": False, "userType": "external",
            "cwd": self.cwd, "sessionId": self.session_id, "version": self.version,
            "gitBranch": self.branch, "type": kind, **body, "uuid": str(uuid.uuid4()),
            "timestamp": "2026-02-11T20:36:45.618Z", **extra,
        }
        self.parent = record["uuid"]
        return record

    def user(self, content, **extra) -> dict:
        return self.message("user", {"message": {"role": "user", "content": content}}, **extra)

    def assistant(self, *blocks: dict) -> dict:
        return self.message("assistant", {"message": {
            "model": "claude-opus-4-6", "id": "msg_01EEiRWuVvwAmenNJXZcerPY", "type": "message",
            "role": "assistant", "content": list(blocks), "stop_reason": None,
            "usage": {"input_tokens": 3, "output_tokens": 10}}})

    def records(self, question: str) -> list[dict]:
        """A short session: a snapshot without cwd first, a hook's progress, one exchange."""
        progress = self.message("progress", {"data": {"type": "hook_progress",
                                                       "hookEvent": "SessionStart"}})
        first = self.user(question)
        return [
            {"type": "file-history-snapshot", "messageId": first["uuid"],
             "snapshot": {"messageId": first["uuid"], "trackedFileBackups": {},
                          "timestamp": "2026-02-11T20:36:45.693Z"}, "isSnapshotUpdate": False},
            progress,
            first,
            self.assistant({"type": "text", "text": "Looking at the code."}),
            self.assistant({"type": "text", "text": "Done."}),
        ]

    def worktree_records(self) -> list[dict]:
        """A long worktree session: edits its checkout, queues a task, gets compacted."""
        edited = f"{self.cwd}/lib/spotter/transcripts/annotation.ex"
        return [
            *self.records(f"Implement {self.branch}"),
            self.assistant({"type": "tool_use", "id": "toolu_01", "name": "Edit",
                            "input": {"file_path": edited, "old_string": "a", "new_string": "b"}}),
            self.user([{"tool_use_id": "toolu_01", "type": "tool_result",
                        "content": f"The file {edited} has been updated successfully."}],
                      toolUseResult={"filePath": edited, "oldString": "a", "newString": "b",
                                     "originalFile": "a", "structuredPatch": [],
                                     "userModified": False, "replaceAll": False}),
            {"type": "queue-operation", "operation": "enqueue", "sessionId": self.session_id,
             "timestamp": "2026-02-11T20:40:51.230Z", "content": "<task-notification/>"},
            self.compact_boundary(),
            self.user("This session is being continued from a previous conversation.",
                      isCompactSummary=True),
            self.message("system", {"subtype": "stop_hook_summary", "hookCount": 1}),
        ]

    def compact_boundary(self) -> dict:
        self.parent = None
        return self.message("system", {"subtype": "compact_boundary",
                                       "content": "Conversation compacted", "level": "info",
                                       "compactMetadata": {"trigger": "auto", "preTokens": 167094}})

    def subagent_records(self, agent_id: str) -> list[dict]:
        agent = Session(self.cwd, self.branch, self.version)
        agent.session_id = self.session_id
        return [agent.user("What is the output contract of a SessionStart hook?",
                           isSidechain=True, agentId=agent_id),
                {**agent.assistant({"type": "text", "text": "Let me look."}),
                 "isSidechain": True, "agentId": agent_id}]
