"""Subagent runs recorded inline in a Claude Code 1.0.x session transcript.

1.0.x writes a subagent's records into its session's own transcript, marked
`isSidechain: true`, with the session's id and no agent id (later builds give each
subagent a file and an `agentId`). What tells one run from another is `parentUuid`, as
the 1.0.98 and 1.0.108 transcripts in ../shared/data/claude-transcripts/claude-code-viewer
show: each record of a run names the record before it, and a run's first record has
`parentUuid: null` and, as its user message, the `prompt` of the main agent's Task call
that started it. Neither the order of the lines nor time separates runs: the runs of one
Task batch run at once, and each is written as one block when it ends.

A run is named after that Task call: "subagent 2 (Task: Create data models)", its number
counting the session's Task calls that hold a prompt (a call without one never starts a
run), in the order they were made, so a name never changes as the session goes on.
A run whose prompt matches no call is named by the short id of its first record.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from tui.claude.transcripts import decode, iter_lines

RUN_PREFIX = "subagent "
_SIDECHAIN = (b'"isSidechain":true', b'"isSidechain": true')
_TASK = (b'"name":"Task"', b'"name": "Task"')
_LONGEST_DESCRIPTION = 60


def is_run_name(agent: str) -> bool:
    return agent.startswith(RUN_PREFIX)


def short_run_name(agent: str) -> str:
    """"subagent 2 (Task: Create data models)" -> "subagent 2"."""
    return agent.partition(" (")[0]


def run_names(path: str | os.PathLike[str], offsets: Iterable[int]) -> dict[int, str]:
    """The name of the run each sidechain line starting at one of `offsets` belongs to
    (a line that is not one is left out)."""
    wanted = set(offsets)
    parents: dict[str, str | None] = {}  # each sidechain record's uuid -> its parentUuid
    prompts: dict[str, str | None] = {}  # each first record of a run -> its prompt
    uuid_at: dict[int, str] = {}
    tasks: list[dict] = []  # the input of every Task call holding a prompt, in order
    offset = 0
    for line in iter_lines(path):
        start, offset = offset, offset + len(line)
        sidechain = any(marker in line for marker in _SIDECHAIN)
        if not sidechain and not any(marker in line for marker in _TASK):
            continue
        record = decode(line)
        if record is None:
            continue
        if record.get("isSidechain") is not True:
            tasks.extend(_task_inputs(record))
            continue
        uuid, parent = record.get("uuid"), record.get("parentUuid")
        if not isinstance(uuid, str):
            continue
        parents[uuid] = parent if isinstance(parent, str) else None
        if parents[uuid] is None:
            prompts[uuid] = _prompt(record)
        if start in wanted:
            uuid_at[start] = uuid
    names = _names(prompts, tasks)
    found: dict[int, str] = {}
    for start, uuid in uuid_at.items():
        first = _first(uuid, parents)
        found[start] = names.get(first) or f"{RUN_PREFIX}{first[:8]}"
    return found


def _first(uuid: str, parents: dict[str, str | None]) -> str:
    """The first record of the run holding `uuid`: up the chain until a record has no
    parent, or one that is no sidechain record (a run's chain never leaves it)."""
    seen = {uuid}
    while (parent := parents.get(uuid)) is not None and parent in parents and parent not in seen:
        seen.add(parent)
        uuid = parent
    return uuid


def _names(prompts: dict[str, str | None], tasks: list[dict]) -> dict[str, str]:
    """First record -> run name, for the runs a Task call started. Two calls with one
    prompt are told apart by order: the first run written gets the first call."""
    unclaimed: dict[str, list[int]] = {}
    for number, task in enumerate(tasks, start=1):
        unclaimed.setdefault(task["prompt"], []).append(number)
    names: dict[str, str] = {}
    for first, prompt in prompts.items():
        numbers = unclaimed.get(prompt) if prompt is not None else None
        if numbers:
            number = numbers.pop(0)
            names[first] = _run_name(number, tasks[number - 1].get("description"))
    return names


def _run_name(number: int, description: object) -> str:
    words = " ".join(description.split()) if isinstance(description, str) else ""
    if len(words) > _LONGEST_DESCRIPTION:
        words = words[:_LONGEST_DESCRIPTION - 1].rstrip() + "…"
    return f"{RUN_PREFIX}{number} (Task: {words})" if words else f"{RUN_PREFIX}{number}"


def _task_inputs(record: dict) -> list[dict]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [block["input"] for block in content
            if isinstance(block, dict) and block.get("type") == "tool_use"
            and block.get("name") == "Task" and isinstance(block.get("input"), dict)
            and isinstance(block["input"].get("prompt"), str)]


def _prompt(record: dict) -> str | None:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else None
