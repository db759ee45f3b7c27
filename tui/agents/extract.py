"""`memtui extract SESSION`: what a session taught, turned into memories.

Reads the messages after our cursor, skips (with the reason) when the session's own agent
already wrote memory in that range, gives the model at most five turns, and reports the
topics left when the budget runs out instead of dropping them: the cursor then stays put,
so a second pass focused on those topics reads the same messages.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from tui.agents import instructions, offline, prompts
from tui.agents.changeset import build_changeset
from tui.agents.client import ClientConfig, EngineError, ModelClient
from tui.agents.conversation import (
    Message,
    after_cursor,
    read_cursor,
    read_messages,
    read_pending_end,
    render,
    up_to,
)
from tui.agents.events import CANCELLED, FAILED, Listener, Progress, RunCancelled
from tui.agents.indexfit import entry_line
from tui.agents.loop import check, client_for, run_turns
from tui.agents.result import CANCELLED as RUN_CANCELLED
from tui.agents.result import FAILED as RUN_FAILED
from tui.agents.result import SKIPPED, SUCCEEDED, RunResult, unexpected_error
from tui.agents.staging import LimitReached, Staging, Toolbox, ToolResult
from tui.claude import paths
from tui.claude.lines import read_store_text
from tui.claude.paths import INDEX_NAME
from tui.memory.index import MAX_CHARS, MAX_LINES, parse_index
from tui.memory.links import wiki_names
from tui.words import plural

PHASES = ("Read", "Extract", "Index")
MAX_TURNS = 5
UNNAMED_TOPICS = "(the model did not say which topics were left)"
LEFT_OUT_SHOWN = 3  # sentences a note quotes


def matching_sessions(prefix: str, home: Path) -> list[str]:
    """The session ids under the config home that start with `prefix` (the short id the
    app shows is enough when only one session has it)."""
    prefix = prefix.removesuffix(".jsonl")
    found: set[str] = set()
    try:
        folders = [entry.path for entry in os.scandir(paths.projects_dir(home)) if entry.is_dir()]
    except OSError:
        return []
    for folder in folders:
        try:
            names = [entry.name for entry in os.scandir(folder)]
        except OSError:
            continue
        found.update(name.removesuffix(".jsonl") for name in names
                     if name.startswith(prefix) and name.endswith(".jsonl"))
    return sorted(found)


def find_transcript(session_id: str, home: Path) -> Path:
    projects = paths.projects_dir(home)
    name = f"{session_id.removesuffix('.jsonl')}.jsonl"
    try:
        folders = sorted(os.scandir(projects), key=lambda e: e.name)
    except OSError:
        folders = []
    for folder in folders:
        candidate = Path(folder.path) / name
        if candidate.is_file():
            return candidate
    raise EngineError(f"No session {session_id} under {projects}.")


def store_of(transcript: Path, home: Path, env: Mapping[str, str],
             settings_file: Path | None) -> tuple[Path, tuple[Path, ...]]:
    """The memory store a session used, and every transcript folder of that store."""
    from tui.claude.discovery import discover

    for project in discover(home, env, settings_file).projects:
        if project.store is not None and transcript.parent in project.transcript_dirs:
            return project.store, project.transcript_dirs
    raise EngineError(f"Cannot tell which memory store session {transcript.stem} used.")


def _wrote_memory(messages: list[Message], store: Path) -> list[str]:
    root = os.path.realpath(store)
    return [p for m in messages for p in m.wrote
            if os.path.realpath(p).startswith(root + os.sep)]


def run_extract(session_id: str, *, home: Path, env: Mapping[str, str],
                settings_file: Path | None = None, engine: str,
                config: ClientConfig | None = None, force: bool = False,
                listener: Listener | None = None,
                cancel: threading.Event | None = None,
                focus: Sequence[str] = ()) -> RunResult:
    """Extract the messages after the cursor; with `focus`, only those topics of them."""
    focus = tuple(t.strip() for t in focus if t.strip())
    cancel = cancel or threading.Event()
    progress = Progress(PHASES, listener)
    result = RunResult("extract", engine, RUN_FAILED, progress.snapshot(), ())
    try:
        client = client_for(engine, config, progress, cancel)
        transcript = find_transcript(session_id, home)
        store, transcript_dirs = store_of(transcript, home, env, settings_file)
    except EngineError as error:
        result.error = str(error)
        return result

    progress.start("Read")
    messages, found = after_cursor(read_messages(transcript), read_cursor(session_id))
    if focus:  # a second pass covers the unfinished range only, not what came after it
        messages = up_to(messages, read_pending_end(session_id))
    if not found:
        progress.say("info", "the cursor is not in the transcript any more; reading all of it")
    # Counted as the session picker counts them: the messages with text, all the model reads.
    readable = sum(1 for message in messages if message.text.strip())
    progress.say("info", f"{plural(readable, 'message')} since the last extraction")
    written = _wrote_memory(messages, store)
    if written and not force:
        progress.finish(note="skipped")
        result.status = SKIPPED
        result.error = (f"The session already wrote memory itself in this range "
                        f"({', '.join(sorted({Path(p).name for p in written}))}); "
                        "use --force to extract anyway.")
        result.phases, result.log = progress.snapshot(), tuple(progress.log)
        return result
    progress.finish()
    last_uuid = messages[-1].uuid if messages else None

    staging: Staging | None = None
    toolbox: Toolbox | None = None
    topics_left: list[str] = []
    nothing_worth = ""  # why the offline engine wrote nothing, said in the notes
    try:
        staging = Staging.create(store)
        toolbox = Toolbox(staging, transcript_dirs, progress.say, cancel)
        check(cancel)
        progress.start("Extract")
        if not readable:
            progress.say("info", "no new messages since the last extraction; nothing to read")
        elif client is None:
            if focus:
                progress.say("info", "the offline engine has no topics to focus on; "
                             "it reads every instruction")
            candidates, left_out = instructions.find_instructions(messages)
            for sentence in left_out:
                progress.say("info", f"left out {sentence}")
            if not offline.write_candidates(staging, candidates, progress.say):
                nothing_worth = _nothing_worth(len(candidates), readable, left_out)
                progress.say("info", nothing_worth)
        else:
            topics_left = _model_extract(client, staging, toolbox, messages, progress, cancel,
                                         focus)
        progress.finish(note=f"topics left: {len(topics_left)}" if topics_left else "")
        check(cancel)
        progress.start("Index")
        notes = _index_new_files(staging, progress)
        progress.finish()
        label = f"extract {session_id[:8]} {dt.datetime.now():%Y-%m-%d %H:%M} ({engine})"
        staged, link_notes = staging.staged()
        if topics_left:
            # Advancing the cursor now would lose these topics: the next run would start
            # after the messages that hold them.
            notes.append("The turn budget ran out with topics left: " + "; ".join(topics_left)
                         + ". The cursor stays where it was, so a second pass reads the same "
                         "messages for those topics.")
        notes.extend(toolbox.limits_hit + link_notes)
        if not readable:
            notes.append("No new messages since the last extraction: the model was not asked.")
        if nothing_worth:
            notes.append(nothing_worth)
        result.changeset = build_changeset(staging.originals, staged, staging.deleted, store,
                                           label, notes)
        result.status = SUCCEEDED
        if last_uuid and not topics_left:
            result.cursor = (session_id, transcript, last_uuid)
        elif last_uuid:
            result.pending = (session_id, transcript, last_uuid)
    except RunCancelled:
        progress.fail_running(CANCELLED)
        result.status, result.error = RUN_CANCELLED, "The run was cancelled; nothing was applied."
    except EngineError as error:
        progress.fail_running(FAILED)
        progress.say("error", str(error))
        result.error = str(error)
    except Exception as error:  # whatever it was, the run ends in one sentence
        progress.fail_running(FAILED)
        result.error = unexpected_error(error, staging and staging.root, store)
        progress.say("error", result.error)
    finally:
        if staging is not None:
            staging.discard()
    result.phases, result.log = progress.snapshot(), tuple(progress.log)
    result.tokens_in, result.tokens_out = progress.tokens
    result.refusals = tuple(toolbox.refusals) if toolbox else ()
    result.topics_left = tuple(topics_left)
    return result


def _nothing_worth(candidates: int, messages: int,
                   left_out: Sequence[instructions.LeftOut]) -> str:
    """Why an offline extraction writes nothing, in one sentence."""
    if candidates:
        return (f"Nothing new worth a memory: {plural(candidates, 'rule')} in these messages "
                f"{'is' if candidates == 1 else 'are'} remembered already, so nothing is written.")
    why = (f"; left out: {'; '.join(map(str, left_out[:LEFT_OUT_SHOWN]))}"
           + (f" and {len(left_out) - LEFT_OUT_SHOWN} more" if len(left_out) > LEFT_OUT_SHOWN
              else "")) if left_out else ""
    return (f"Nothing worth a memory in {plural(messages, 'message')}: no rule or fact the user "
            f"asked to keep{why}. Nothing is written.")


def _model_extract(client: ModelClient, staging: Staging, toolbox: Toolbox,
                   messages: list[Message], progress: Progress,
                   cancel: threading.Event, focus: tuple[str, ...]) -> list[str]:
    """Run the model; the planned topics no write covered when the budget ran out."""
    planned: list[str] = list(focus)

    def plan_topics(arguments: dict) -> ToolResult:
        topics = arguments.get("topics")
        if isinstance(topics, list):
            named = (str(t).strip() for t in topics)
            planned.extend(t for t in named if t and t not in planned)
        return ToolResult(f"{plural(len(planned), 'topic')} noted.")

    plan = ({"name": "plan_topics", "description":
             "Declare every topic worth saving before writing anything.",
             "input_schema": {"type": "object", "properties": {
                 "topics": {"type": "array", "items": {"type": "string"}}},
                 "required": ["topics"]}}, plan_topics)
    manifest = "\n".join(f"- [{m.type or '?'}] {m.file}: {m.description}"
                         for m in offline.memory_infos(staging)) or "(none yet)"
    prompt = prompts.EXTRACT.format(manifest=manifest, conversation=render(messages))
    if focus:
        prompt += prompts.EXTRACT_FOCUS.format(topics="\n".join(f"- {t}" for t in focus))
    conversation = [{"role": "user", "content": [{"type": "text", "text": prompt}]}]
    system = prompts.extract_system(dt.date.today().isoformat(), MAX_TURNS)
    try:
        outcome = run_turns(client, system, conversation, toolbox, progress, cancel, MAX_TURNS,
                            {"plan_topics": plan})
    except LimitReached:
        outcome = None
    if outcome is not None and outcome.finished:
        return []
    left = [t for t in planned if t not in toolbox.topics_done]
    progress.say("info", f"the {MAX_TURNS}-turn budget ran out"
                 + (f" with {plural(len(left), 'topic')} left: " + "; ".join(left) if left else ""))
    return left or [UNNAMED_TOPICS]


def second_pass_topics(topics_left: Sequence[str]) -> tuple[str, ...]:
    """The topics a second pass focuses on; none (read everything again) when unnamed."""
    return tuple(t for t in topics_left if t != UNNAMED_TOPICS)


def _index_new_files(staging: Staging, progress: Progress) -> list[str]:
    """Give each new memory an index line at the end, as Claude Code appends them."""
    index_path = staging.root / INDEX_NAME
    text = read_store_text(index_path) if index_path.exists() else ""
    infos = offline.memory_infos(staging)
    names = wiki_names((info.file, info.title) for info in infos)
    linked = {link.file for link in parse_index(text, names).links}
    new = [info for info in infos
           if info.file not in staging.originals and info.file not in linked]
    if not new:
        return []
    lines = [entry_line(info) for info in sorted(new, key=lambda info: info.file)]
    updated = (text.rstrip("\n") + "\n" if text.strip() else "") + "\n".join(lines) + "\n"
    index_path.write_text(updated, encoding="utf-8")
    for info in new:
        progress.say("info", f"index: added a line for {info.file}")
    after = parse_index(updated)
    if after.lines > MAX_LINES or after.chars > MAX_CHARS:
        return ["MEMORY.md is now past its loaded cut; run `memtui dream` to fit it."]
    return []
