"""Lost updates between two subagents of one Claude Code 1.0.x session.

1.0.x records its subagents inline in the session's transcript with `isSidechain: true`
and no agent id (see inline_sessions): each run is told apart by its `parentUuid` chain
and named after the Task that started it.
"""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import pytest
from conftest import SHARED_TRANSCRIPTS

from tests.inline_sessions import OldSession, compact
from tests.test_history_transcripts import BASE, START, run_cli
from tests.test_subagent_overwrites import overwrites_json

FIRST_LINE = "- Payments: the staging gateway takes test cards only."
SECOND_LINE = "- Billing: freeze the exchange rate in tests."
MAIN_LINE = "- The main agent: run the whole suite before a release."
FIRST_TASK = "Record the payment facts"
SECOND_TASK = "Record the billing facts"
FIRST = f"subagent 1 (Task: {FIRST_TASK})"
SECOND = f"subagent 2 (Task: {SECOND_TASK})"


def old_session(worktrees, interleaved: bool = False):
    """(claude, tree_a, store, the memory holding BASE, a 1.0.x session that read it)."""
    claude, tree_a, _, store = worktrees
    memory = store / "project_payments.md"
    memory.write_text(BASE, encoding="utf-8")
    session = OldSession(claude, tree_a, "feature-a", START, interleaved)
    session.read(memory, BASE)
    return claude, tree_a, store, memory, session


def one_task_batch(session: OldSession):
    """Two subagents of one Task batch, started together."""
    first = session.task(FIRST_TASK, "Add what we know about payments to the memory.")
    second = session.task(SECOND_TASK, "Add what we know about billing to the memory.")
    first.clock = second.clock = session.clock + timedelta(seconds=5)
    return first, second


@pytest.mark.parametrize("interleaved", [False, True], ids=["blocks", "interleaved"])
def test_a_subagent_overwriting_what_a_parallel_subagent_wrote_is_a_lost_update(
        worktrees, capsys, interleaved):
    claude, tree_a, store, memory, session = old_session(worktrees, interleaved)
    first, second = one_task_batch(session)
    first.read(memory, BASE)
    second.read(memory, BASE)
    first.write(memory, BASE + FIRST_LINE + "\n", BASE)
    second.clock = first.clock + timedelta(seconds=10)
    second.write(memory, BASE + SECOND_LINE + "\n", BASE + FIRST_LINE + "\n")
    session.finish(second)  # the second ends first: its block comes first in the file
    session.finish(first)
    session.save()

    [lost] = overwrites_json(claude, store, capsys)

    assert lost["lost_lines"] == [FIRST_LINE]
    assert (lost["session"], lost["agent"]) == (session.id, SECOND)
    assert (lost["previous_session"], lost["previous_agent"]) == (session.id, FIRST)
    code, out, _ = run_cli(["--config-dir", str(claude.home), "overwrites", str(store)], capsys)
    assert code == 0
    assert (f"{SECOND} of session {session.id[:8]} in {tree_a} overwrote "
            f"{FIRST} of session {session.id[:8]} in {tree_a};") in out


@pytest.mark.parametrize("interleaved", [False, True], ids=["blocks", "interleaved"])
def test_a_subagent_that_read_its_parallel_siblings_write_first_loses_nothing(
        worktrees, capsys, interleaved):
    claude, _, store, memory, session = old_session(worktrees, interleaved)
    first, second = one_task_batch(session)
    first.read(memory, BASE)
    second.read(memory, BASE)
    first.write(memory, BASE + FIRST_LINE + "\n", BASE)
    second.clock = first.clock + timedelta(seconds=10)
    second.read(memory, BASE + FIRST_LINE + "\n")
    second.write(memory, BASE + FIRST_LINE + "\n" + SECOND_LINE + "\n", BASE + FIRST_LINE + "\n")
    session.finish(first)
    session.finish(second)
    session.save()

    assert overwrites_json(claude, store, capsys) == []


def test_sequential_subagents_and_the_main_agent_are_told_apart(worktrees, capsys):
    """Two Task batches one after the other: the second subagent read the first one's
    version, so it lost nothing; the main agent, writing from what it read before both,
    overwrote the second (named by its Task, numbered in the session's Task order)."""
    claude, tree_a, store, memory, session = old_session(worktrees)
    first = session.task(FIRST_TASK, "Add what we know about payments to the memory.")
    first.read(memory, BASE)
    first.write(memory, BASE + FIRST_LINE + "\n", BASE)
    session.finish(first)
    second = session.task(SECOND_TASK, "Add what we know about billing to the memory.")
    both = BASE + FIRST_LINE + "\n" + SECOND_LINE + "\n"
    second.read(memory, BASE + FIRST_LINE + "\n")
    second.write(memory, both, BASE + FIRST_LINE + "\n")
    session.finish(second)
    session.write(memory, BASE + MAIN_LINE + "\n", both)
    session.save()

    [lost] = overwrites_json(claude, store, capsys)

    assert lost["lost_lines"] == [FIRST_LINE, SECOND_LINE]
    assert (lost["agent"], lost["previous_agent"]) == (None, SECOND)
    code, out, _ = run_cli(["--config-dir", str(claude.home), "overwrites", str(store)], capsys)
    assert (f"the main agent of session {session.id[:8]} in {tree_a} overwrote "
            f"{SECOND} of session {session.id[:8]} in {tree_a};") in out


def test_a_run_whose_task_names_no_description_is_named_by_its_number(worktrees, capsys):
    claude, _, store, memory, session = old_session(worktrees)
    first = session.task(None, "Add what we know about payments to the memory.")
    second = session.task(SECOND_TASK, "Add what we know about billing to the memory.")
    first.read(memory, BASE)
    second.read(memory, BASE)
    second.write(memory, BASE + SECOND_LINE + "\n", BASE)
    first.clock = second.clock + timedelta(seconds=10)
    first.write(memory, BASE + FIRST_LINE + "\n", BASE + SECOND_LINE + "\n")
    session.finish(first)
    session.finish(second)
    session.save()

    [lost] = overwrites_json(claude, store, capsys)

    assert (lost["agent"], lost["previous_agent"]) == ("subagent 1", SECOND)


def test_a_run_no_task_started_is_named_by_its_first_record(worktrees, capsys):
    """A run whose prompt matches no Task call of the transcript (the call was lost) is
    still a writer of its own, named by the short id of its first record."""
    claude, _, store, memory, session = old_session(worktrees)
    first, second = one_task_batch(session)
    first.read(memory, BASE)
    second.read(memory, BASE)
    first.write(memory, BASE + FIRST_LINE + "\n", BASE)
    second.clock = first.clock + timedelta(seconds=10)
    second.write(memory, BASE + SECOND_LINE + "\n", BASE + FIRST_LINE + "\n")
    session.finish(first)
    session.finish(second)
    second.records[0]["message"]["content"] = "A prompt no Task call holds."
    session.save()

    [lost] = overwrites_json(claude, store, capsys)

    assert (lost["agent"], lost["previous_agent"]) == (
        f"subagent {second.records[0]['uuid'][:8]}", FIRST)


def test_a_version_an_inline_subagent_wrote_names_its_run_in_the_files_history(worktrees, capsys):
    claude, _, store, memory, session = old_session(worktrees)
    first, second = one_task_batch(session)
    first.read(memory, BASE)
    first.write(memory, BASE + FIRST_LINE + "\n", BASE)
    second.clock = first.clock + timedelta(seconds=10)
    second.read(memory, BASE + FIRST_LINE + "\n")
    second.write(memory, BASE + SECOND_LINE + "\n", BASE + FIRST_LINE + "\n")
    session.finish(first)
    session.finish(second)
    session.save()
    home = ["--config-dir", str(claude.home)]
    assert run_cli([*home, "history", "backfill", str(store)], capsys)[0] == 0

    code, out, _ = run_cli([*home, "history", str(memory), "--json"], capsys)

    assert code == 0
    by_second, by_first, _ = (v for v in json.loads(out) if v["source"] == "backfill")
    assert [v["agent"] for v in (by_second, by_first)] == [SECOND, FIRST]
    assert by_second["message"] == (f"project_payments.md: Write in {SECOND} of session "
                                    f"{session.id[:8]}")


def test_a_chain_that_loops_ends_and_a_record_without_an_id_or_cut_short_has_no_name(tmp_path):
    from tui.claude.sidechains import run_names

    looped = [{"type": "user", "isSidechain": True, "uuid": "b" * 36, "parentUuid": "c" * 36},
              {"type": "user", "isSidechain": True, "uuid": "c" * 36, "parentUuid": "b" * 36},
              {"type": "user", "isSidechain": True, "parentUuid": None}]
    transcript = tmp_path / "looped.jsonl"
    lines = [compact(record) for record in looped]
    transcript.write_text("".join(lines) + '{"isSidechain":true,"uuid":', encoding="utf-8")
    offsets = [0, len(lines[0]), len(lines[0]) + len(lines[1]), len("".join(lines))]

    names = run_names(transcript, offsets)

    assert set(names) == {0, len(lines[0])}
    assert {name[:len("subagent ")] for name in names.values()} == {"subagent "}


def test_the_lost_updates_table_names_the_subagent_by_its_number(worktrees):
    from tui.app.screens.overwrites import writer
    from tui.history.writers import Writer

    session, cwd = "92b10f9f-0000-4000-8000-000000000000", "/home/me/shop"
    by, overwritten = Writer(session, SECOND, cwd), Writer(session, FIRST, cwd)

    assert (writer(by, overwritten), writer(overwritten, by)) == (
        "92b10f9f subagent 2 in shop", "92b10f9f subagent 1 in shop")


# --- the real 1.0.x transcripts -----------------------------------------------------------

REAL_OLD_SESSIONS = ("fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
                     "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
real_data = pytest.mark.skipif(
    not (SHARED_TRANSCRIPTS / "claude-code-viewer").is_dir(),
    reason=f"real transcripts not available at {SHARED_TRANSCRIPTS}")


def real_lines(name: str) -> list[tuple[int, dict]]:
    """(offset, record) of every line of a real claude-code-viewer transcript."""
    found, offset = [], 0
    with open(SHARED_TRANSCRIPTS / "claude-code-viewer" / name, "rb") as handle:
        for line in handle:
            found.append((offset, json.loads(line)))
            offset += len(line)
    return found


def task_calls(lines) -> dict[str, tuple[int, dict]]:
    """Task tool_use id -> (its number among the calls that hold a prompt, its input)."""
    calls: dict[str, tuple[int, dict]] = {}
    for _, record in lines:
        content = record.get("message", {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("name") == "Task" and "prompt" in block["input"]:
                calls[block["id"]] = (len(calls) + 1, block["input"])
    return calls


def blocks_by_task(lines) -> dict[str, list[int]]:
    """Task id -> the offsets of the sidechain lines written just before its result: how
    1.0.x lays a finished run out (a check independent of the parentUuid chains)."""
    blocks: dict[str, list[int]] = {}
    block: list[int] = []
    for offset, record in lines:
        if record.get("isSidechain"):
            block.append(offset)
            continue
        content = record.get("message", {}).get("content")
        for item in content if isinstance(content, list) else []:
            if item.get("type") == "tool_result" and block:
                blocks[item["tool_use_id"]] = block
        block = []
    return blocks


@real_data
@pytest.mark.parametrize("name", REAL_OLD_SESSIONS)
def test_real_inline_runs_are_named_after_the_task_whose_result_follows_them(name):
    from tui.claude.sidechains import run_names

    lines = real_lines(name)
    calls, blocks = task_calls(lines), blocks_by_task(lines)
    assert len(blocks) >= 2  # more than one inline run in this file

    names = run_names(SHARED_TRANSCRIPTS / "claude-code-viewer" / name,
                      [offset for offset, record in lines if record.get("isSidechain")])

    for task, offsets in blocks.items():
        number, task_input = calls[task]
        assert {names[offset] for offset in offsets} == {
            f"subagent {number} (Task: {task_input['description']})"}


@real_data
def test_real_parallel_runs_one_overwriting_the_other_is_a_lost_update(claude_home, capsys):
    """Memory reads and writes appended to two runs of one real Task batch, each record
    chained to its run's last one: the second run overwrote the first's line unseen."""
    name = REAL_OLD_SESSIONS[0]
    lines = real_lines(name)
    calls, blocks = task_calls(lines), blocks_by_task(lines)
    by_description = {task_input["description"]: task for task, (_, task_input) in calls.items()}
    records = dict((offset, record) for offset, record in lines)
    setup, models = (records[blocks[by_description[d]][-1]]
                     for d in ("Setup Next.js project", "Create data models"))
    store = claude_home.store(folder="-path-to-Demo")
    memory = store / "project_demo.md"
    memory.write_text(BASE, encoding="utf-8")
    appended: list[dict] = []

    def act(run: dict, when: str, name: str, content: str, original: str | None = None):
        if name == "Read":
            result = {"type": "text", "file": {"filePath": str(memory), "content": content,
                                               "numLines": 5, "startLine": 1, "totalLines": 5}}
        else:
            result = {"type": "update", "filePath": str(memory), "content": content,
                      "structuredPatch": [], "originalFile": original}
        record = {**run, "uuid": str(uuid.uuid4()), "parentUuid": run["uuid"],
                  "timestamp": when, "type": "user", "toolUseResult": result,
                  "message": {"role": "user", "content": [
                      {"tool_use_id": "toolu_x", "type": "tool_result", "content": "ok"}]}}
        appended.append(record)
        return record

    setup = act(setup, "2025-09-03T00:55:49.000Z", "Read", BASE)
    models = act(models, "2025-09-03T00:55:50.000Z", "Read", BASE)
    setup = act(setup, "2025-09-03T00:55:51.000Z", "Write", BASE + FIRST_LINE + "\n", BASE)
    act(models, "2025-09-03T00:55:52.000Z", "Write", BASE + SECOND_LINE + "\n",
        BASE + FIRST_LINE + "\n")
    transcript = claude_home.folder("-path-to-Demo") / name
    transcript.write_bytes((SHARED_TRANSCRIPTS / "claude-code-viewer" / name).read_bytes()
                           + "".join(map(compact, appended)).encode())

    [lost] = overwrites_json(claude_home, store, capsys)

    assert lost["lost_lines"] == [FIRST_LINE]
    assert lost["session"] == "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
    assert (lost["agent"], lost["previous_agent"]) == (
        "subagent 2 (Task: Create data models)", "subagent 1 (Task: Setup Next.js project)")
