"""Lost updates between a session's main agent and its subagents.

A subagent's records carry its session's id, so each agent is told apart as Claude Code
records it (the shapes seen in ../shared/data/claude-transcripts):
- 2.1.x: `<sessionId>/subagents/agent-<id>.jsonl`, every record `isSidechain: true` with
  `agentId: "<id>"`;
- 2.0.x: `agent-<id>.jsonl` beside the session's transcript, `isSidechain: true`, no
  `agentId`;
- 1.0.x: the subagent's records inline in the session's own transcript, `isSidechain: true`,
  no `agentId`, started by the main agent's Task call (see inline_sessions).
"""

from __future__ import annotations

import json
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from spotter_home import LAYOUTS as SPOTTER_LAYOUTS
from spotter_home import WORKTREE_CWDS

from tests.inline_sessions import task_call
from tests.test_history_transcripts import BASE, START, Session, run_cli
from tui.claude import paths, transcripts

MAIN_LINE = "- The main agent: payments go through the staging gateway."
SUB_LINE = "- A subagent: the billing tests need a frozen exchange rate."
LAYOUTS = ("subagents", "agent-file", "inline")
TASK = "Tidy the memory"


class Subagent(Session):
    """A subagent of `parent`, recorded in one of the layouts Claude Code used."""

    def __init__(self, parent: Session, agent_id: str, layout: str):
        super().__init__(parent.claude, parent.cwd, parent.branch, parent.clock)
        self.id = parent.id
        self.parent_session = parent
        self.agent_id = agent_id
        self.layout = layout
        if layout == "inline":  # the run starts from its prompt, with no parent
            prompt = "Tidy the project's memory files."
            task_call(parent, TASK, prompt)
            self._record("user", message={"role": "user", "content": prompt})

    def _record(self, kind: str, **fields) -> dict:
        extra = {"agentId": self.agent_id} if self.layout == "subagents" else {}
        record = super()._record(kind, **fields, **extra)
        record["isSidechain"] = True
        if self.layout == "inline":  # 1.0.x: in the session's own transcript
            self.parent_session.records.append(record)
        return record

    def save(self):
        folder = self.claude.folder(paths.sanitize(self.cwd))
        if self.layout == "inline":
            return None
        if self.layout == "subagents":
            path = folder / self.id / "subagents" / f"agent-{self.agent_id}.jsonl"
        else:
            path = folder / f"agent-{self.agent_id}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in self.records), encoding="utf-8")
        return path


def overwrites_json(claude, store, capsys) -> list[dict]:
    code, out, err = run_cli(["--config-dir", str(claude.home), "overwrites", str(store), "--json"],
                             capsys)
    assert (code, err) == (0, "")
    return json.loads(out)


def main_session_read_the_memory(worktrees):
    """(claude, tree_a, store, the memory file holding BASE, a session in tree_a that read it)."""
    claude, tree_a, _, store = worktrees
    memory = store / "project_payments.md"
    memory.write_text(BASE, encoding="utf-8")
    main = Session(claude, tree_a, "feature-a", START)
    main.read(memory, BASE)
    return claude, tree_a, store, memory, main


def expected_agent(sub: Subagent) -> str:
    return f"subagent 1 (Task: {TASK})" if sub.layout == "inline" else sub.agent_id


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_subagent_overwriting_what_the_main_agent_wrote_after_its_read_is_a_lost_update(
        worktrees, capsys, layout):
    claude, tree_a, store, memory, main = main_session_read_the_memory(worktrees)
    sub = Subagent(main, "a881341", layout)
    sub.read(memory, BASE)
    main.clock = sub.clock = START + timedelta(minutes=2)
    main.write(memory, BASE + MAIN_LINE + "\n", BASE)
    sub.clock = START + timedelta(minutes=3)
    sub.write(memory, BASE + SUB_LINE + "\n", BASE + MAIN_LINE + "\n")
    main.save()
    sub.save()

    [lost] = overwrites_json(claude, store, capsys)

    assert lost["lost_lines"] == [MAIN_LINE]
    assert (lost["session"], lost["agent"]) == (main.id, expected_agent(sub))
    assert (lost["previous_session"], lost["previous_agent"]) == (main.id, None)
    code, out, _ = run_cli(["--config-dir", str(claude.home), "overwrites", str(store)], capsys)
    assert code == 0
    who = f"subagent 1 (Task: {TASK})" if layout == "inline" else "a subagent (a881341)"
    assert (f"{who} of session {main.id[:8]} in {tree_a} overwrote "
            f"the main agent of session {main.id[:8]} in {tree_a};") in out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_main_agent_overwriting_what_its_subagent_wrote_is_a_lost_update(
        worktrees, capsys, layout):
    claude, tree_a, store, memory, main = main_session_read_the_memory(worktrees)
    sub = Subagent(main, "aac57f5", layout)
    sub.read(memory, BASE)
    sub.write(memory, BASE + SUB_LINE + "\n", BASE)
    main.clock = sub.clock + timedelta(minutes=1)
    main.write(memory, BASE + MAIN_LINE + "\n", BASE + SUB_LINE + "\n")
    main.save()
    sub.save()

    [lost] = overwrites_json(claude, store, capsys)

    assert lost["lost_lines"] == [SUB_LINE]
    assert (lost["session"], lost["agent"]) == (main.id, None)
    assert (lost["previous_session"], lost["previous_agent"]) == (main.id, expected_agent(sub))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_an_agent_reading_then_writing_its_own_text_loses_nothing(worktrees, capsys, layout):
    claude, tree_a, store, memory, main = main_session_read_the_memory(worktrees)
    main.write(memory, BASE + MAIN_LINE + "\n", BASE)
    sub = Subagent(main, "a881341", layout)
    sub.clock = main.clock + timedelta(minutes=1)
    sub.read(memory, BASE + MAIN_LINE + "\n")
    sub.write(memory, BASE + MAIN_LINE + "\n" + SUB_LINE + "\n", BASE + MAIN_LINE + "\n")
    sub.write(memory, BASE + SUB_LINE + "\n", BASE + MAIN_LINE + "\n" + SUB_LINE + "\n")
    main.save()
    sub.save()

    assert overwrites_json(claude, store, capsys) == []


def test_two_subagents_of_one_session_are_two_writers(worktrees, capsys):
    # The main session reads too: a session's transcript is never empty.
    claude, tree_a, store, memory, main = main_session_read_the_memory(worktrees)
    first = Subagent(main, "a881341", "subagents")
    second = Subagent(main, "aac57f5", "subagents")
    first.read(memory, BASE)
    second.read(memory, BASE)
    first.write(memory, BASE + MAIN_LINE + "\n", BASE)
    second.clock = first.clock + timedelta(minutes=1)
    second.write(memory, BASE + SUB_LINE + "\n", BASE + MAIN_LINE + "\n")
    main.save()
    first.save()
    second.save()

    [lost] = overwrites_json(claude, store, capsys)

    assert (lost["agent"], lost["previous_agent"]) == ("aac57f5", "a881341")
    assert lost["lost_lines"] == [MAIN_LINE]


def test_watch_names_the_subagent_and_its_lost_update_outlives_the_transcripts(worktrees, capsys):
    from tui.history.journal import Journal
    from tui.history.watch import transcript_attributor
    from tui.history.writes_log import parse_time

    claude, tree_a, _, store = worktrees
    memory = store / "project_payments.md"
    memory.write_text(BASE, encoding="utf-8")
    journal = Journal(store)
    journal.snapshot("changes found when watching started", source="watch")
    attribute = transcript_attributor(claude.home, {"CLAUDE_CONFIG_DIR": str(claude.home)})
    main = Session(claude, tree_a, "feature-a", START)
    main.read(memory, BASE)
    sub = Subagent(main, "a881341", "subagents")
    sub.read(memory, BASE)

    def watch_sees(writer: Session) -> None:  # what `memtui watch` commits after a write
        since = parse_time(writer.records[-1]["timestamp"]) - 1
        writer.save()
        journal.snapshot("change seen by memtui watch", source="watch",
                         trailers=attribute(store, ["project_payments.md"], since))

    main.clock = sub.clock = START + timedelta(minutes=2)
    main.write(memory, BASE + MAIN_LINE + "\n", BASE)
    watch_sees(main)
    sub.clock = START + timedelta(minutes=3)
    sub.write(memory, BASE + SUB_LINE + "\n", BASE + MAIN_LINE + "\n")
    watch_sees(sub)
    for transcript in claude.home.joinpath("projects").rglob("*.jsonl"):
        transcript.unlink()  # swept by Claude Code after cleanupPeriodDays

    [lost] = overwrites_json(claude, store, capsys)

    assert lost["found_in"] == "journal"
    assert (lost["session"], lost["agent"]) == (main.id, "a881341")
    assert (lost["previous_session"], lost["previous_agent"]) == (main.id, None)
    assert lost["lost_lines"] == [MAIN_LINE]


def _tool_records(template: dict, name: str, tool_input: dict, result: dict, when: str) -> list[dict]:
    """A tool call and its result, carrying the fields of `template` (a record of the
    transcript they are appended to: its session, cwd, sidechain flag and agent id)."""
    keep = ("sessionId", "cwd", "version", "gitBranch", "userType", "isSidechain", "agentId", "slug")
    common = {key: template[key] for key in keep if key in template}
    tool_id = f"toolu_{uuid.uuid4().hex[:24]}"
    call = {**common, "type": "assistant", "uuid": str(uuid.uuid4()), "parentUuid": template["uuid"],
            "timestamp": when, "message": {
                "model": "claude-opus-4-6", "id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message",
                "role": "assistant", "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1},
                "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]}}
    answer = {**common, "type": "user", "uuid": str(uuid.uuid4()), "parentUuid": call["uuid"],
              "timestamp": when, "sourceToolAssistantUUID": call["uuid"], "toolUseResult": result,
              "message": {"role": "user", "content": [
                  {"tool_use_id": tool_id, "type": "tool_result", "content": "ok"}]}}
    return [call, answer]


def _append_tool(transcript: Path, name: str, memory: Path, content: str, original: str | None,
                 when: str) -> None:
    *_, template = (r for r in transcripts.iter_records(transcript) if "uuid" in r)
    if name == "Read":
        lines = content.count("\n")
        result = {"type": "text", "file": {"filePath": str(memory), "content": content,
                                           "numLines": lines, "startLine": 1, "totalLines": lines}}
        tool_input = {"file_path": str(memory)}
    else:
        result = {"type": "update", "filePath": str(memory), "content": content,
                  "structuredPatch": [], "originalFile": original}
        tool_input = {"file_path": str(memory), "content": content}
    with open(transcript, "a", encoding="utf-8") as handle:
        for record in _tool_records(template, name, tool_input, result, when):
            handle.write(json.dumps(record) + "\n")


@pytest.mark.parametrize("layout", SPOTTER_LAYOUTS)
def test_a_subagent_in_a_worktree_session_as_recorded_by_2_1_overwrites_its_main_agent(
        layout, claude_home, capsys):
    spotter = layout(claude_home)
    worktree = WORKTREE_CWDS[1]
    session_file = spotter.worktree_session(worktree)
    [subagent_file] = session_file.with_suffix("").glob("subagents/agent-a881341.jsonl")
    memory = spotter.store / "feedback_testing.md"
    base = memory.read_text(encoding="utf-8")
    _append_tool(session_file, "Read", memory, base, None, "2026-03-01T09:00:01.000Z")
    _append_tool(subagent_file, "Read", memory, base, None, "2026-03-01T09:00:02.000Z")
    _append_tool(session_file, "Write", memory, base + MAIN_LINE + "\n", base, "2026-03-01T09:01:00.000Z")
    _append_tool(subagent_file, "Write", memory, base + SUB_LINE + "\n", base + MAIN_LINE + "\n",
                 "2026-03-01T09:02:00.000Z")

    [lost] = overwrites_json(spotter.home, spotter.store, capsys)

    session_id = session_file.stem
    assert (lost["session"], lost["agent"], lost["cwd"]) == (session_id, "a881341", worktree)
    assert (lost["previous_session"], lost["previous_agent"]) == (session_id, None)
    assert lost["lost_lines"] == [MAIN_LINE]


def test_a_version_a_subagent_wrote_says_so_in_the_files_history(worktrees, capsys):
    claude, tree_a, store, memory, main = main_session_read_the_memory(worktrees)
    main.write(memory, BASE + MAIN_LINE + "\n", BASE)
    sub = Subagent(main, "a881341", "subagents")
    sub.clock = main.clock + timedelta(minutes=1)
    sub.read(memory, BASE + MAIN_LINE + "\n")
    sub.write(memory, BASE + MAIN_LINE + "\n" + SUB_LINE + "\n", BASE + MAIN_LINE + "\n")
    main.save()
    sub.save()
    home = ["--config-dir", str(claude.home)]
    assert run_cli([*home, "history", "backfill", str(store)], capsys)[0] == 0

    code, out, _ = run_cli([*home, "history", str(memory), "--json"], capsys)

    assert code == 0
    newest, by_main, _ = (v for v in json.loads(out) if v["source"] == "backfill")
    assert (newest["session"], newest["agent"]) == (main.id, "a881341")
    assert newest["message"] == (f"project_payments.md: Write in a subagent (a881341) of session "
                                 f"{main.id[:8]}")
    assert (by_main["session"], by_main["agent"]) == (main.id, None)
    assert by_main["message"] == f"project_payments.md: Write in session {main.id[:8]}"
