"""Checks from the newest session transcripts: did extraction run, did compaction eat turns.

Extraction leaves a `memory_saved` system record when it saves; it is skipped for a turn in
which the main agent wrote memory itself; a compaction (`compact_boundary`) drops the
messages before it from what the next extraction sees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tui.claude import transcripts
from tui.doctor.context import DoctorContext
from tui.doctor.report import OK, SKIP, WARN, Check
from tui.words import listed, plural

QUIET_PROMPTS = 10  # fewer user messages than this without a save is not worth a warning
SHOWN = 3  # sessions quoted in a message
TURNS_SHOWN = 5  # of one session
_WANTED = (b'"compact_boundary"', b'"memory_saved"')
_ASSISTANT = re.compile(rb'"type":\s*"assistant"')
_USER = re.compile(rb'"type":\s*"user"')
_NOT_TYPED = ("<command-", "<local-command", "Caveat:")  # slash commands and their output


@dataclass
class SessionFacts:
    session: str
    cwd: str = ""
    prompts: int = 0
    uncovered: int = 0  # user messages after memtui's cursor (all of them without one)
    # turns where the agent wrote memory, after memtui's cursor
    own_write_turns: list[int] = field(default_factory=list)
    saves: list[str] = field(default_factory=list)  # times of extraction's memory_saved
    compactions: list[tuple[str, int]] = field(default_factory=list)  # (time, unsaved prompts)
    # Memory was written (by the agent, or saved by extraction) after memtui's cursor: what
    # `memtui extract` reads holds it, so it extracts only with --force.
    wrote_since_cursor: bool = False


def _is_prompt(record: dict) -> bool:
    """A message the user typed (not a tool result, a meta note or a compaction summary)."""
    if record.get("isMeta") or record.get("isCompactSummary") or record.get("isSidechain"):
        return False
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return False
        content = " ".join(b.get("text", "") for b in content
                           if isinstance(b, dict) and isinstance(b.get("text"), str))
    return isinstance(content, str) and bool(content.strip()) and not content.startswith(_NOT_TYPED)


def _wrote_store(record: dict, matcher) -> bool:
    if record.get("isSidechain"):
        return False
    return any(matcher.relative(path) for path in transcripts.written_paths(record))


def _wanted(line: bytes, needle: bytes) -> bool:
    """Decode only lines that can matter: prompts are short user records without tool
    results; memory writes name the store; boundaries and saves name themselves."""
    if any(word in line for word in _WANTED):
        return True
    if _ASSISTANT.search(line):
        return needle in line
    return _USER.search(line) is not None and b'"tool_use_id"' not in line


def read_session(path: Path, store: Path) -> SessionFacts:
    from tui.agents.conversation import read_cursor
    from tui.history.writes_log import StoreMatcher

    matcher = StoreMatcher(store)
    facts = SessionFacts(path.stem)
    cursor = read_cursor(path.stem)  # memtui's own extraction covered up to this message
    unsaved = 0  # user messages since the last save, own write or memtui extraction
    turn_wrote = False
    mark = cursor.encode() if cursor else None  # the cursor's record may be any record
    for line in transcripts.iter_lines(path):
        if not _wanted(line, matcher.needle) and not (mark and mark in line):
            continue
        record = transcripts.decode(line)
        if record is None:
            continue
        facts.cwd = facts.cwd or (record.get("cwd") if isinstance(record.get("cwd"), str) else "")
        kind, subtype = record.get("type"), record.get("subtype")
        if kind == "user" and _is_prompt(record):
            facts.prompts += 1
            facts.uncovered += 1
            unsaved += 1
            turn_wrote = False
        elif kind == "assistant" and _wrote_store(record, matcher):
            if not turn_wrote:
                facts.own_write_turns.append(facts.prompts)
            turn_wrote = True
            unsaved = 0
            facts.wrote_since_cursor = True
        elif kind == "system" and subtype == "memory_saved":
            facts.wrote_since_cursor |= _wrote_store(record, matcher)
            if record.get("verb") != "Improved":
                facts.saves.append(str(record.get("timestamp") or ""))
                unsaved = 0
        elif kind == "system" and subtype == "compact_boundary" and unsaved:
            facts.compactions.append((str(record.get("timestamp") or "?"), unsaved))
            unsaved = 0
        if cursor is not None and record.get("uuid") == cursor:
            # memtui extracted everything up to here
            unsaved = facts.uncovered = 0
            facts.compactions.clear()
            facts.own_write_turns.clear()
            facts.wrote_since_cursor = False
    return facts


def _sessions(ctx: DoctorContext) -> list[SessionFacts]:
    """The newest sessions' facts, read once for both checks."""
    if "sessions" not in ctx.memo:
        ctx.memo["sessions"] = [read_session(path, ctx.store) for path in ctx.recent_sessions]
    return ctx.memo["sessions"]


def _name(facts: SessionFacts) -> str:
    return f"session {facts.session[:8]}" + (f" ({facts.cwd})" if facts.cwd else "")


def check_extraction(ctx: DoctorContext) -> Check:
    sessions = _sessions(ctx)
    if not sessions:
        return Check("extraction", SKIP, "No session transcripts of this project were found.")
    prompts = sum(s.prompts for s in sessions)
    # By time alone: two sessions saving in the same millisecond are not to be compared.
    latest = max(((time, s) for s in sessions for time in s.saves if time),
                 key=lambda save: save[0], default=None)
    last = (f"the last extraction saved memory at {latest[0]} in {_name(latest[1])}"
            if latest else "no memory_saved record in any of them")
    head = (f"In the newest {plural(len(sessions), 'session')}, "
            f"{plural(prompts, 'user message')}: "
            f"{plural(sum(len(s.saves) for s in sessions), 'memory_saved event')}, {last}")
    own = [s for s in sessions if s.own_write_turns]
    if own:
        turns = sum(len(s.own_write_turns) for s in own)
        detail = "; ".join(f"{_name(s)} in turn{'s' if len(s.own_write_turns) > 1 else ''} "
                           f"{listed(s.own_write_turns, TURNS_SHOWN)}" for s in own[:SHOWN])
        if len(own) > SHOWN:
            detail += f"; and {plural(len(own) - SHOWN, 'more session')}"
        return Check("extraction", WARN,
                     f"{head}; in {plural(turns, 'turn')} the main agent wrote memory itself, so "
                     f"background extraction skipped those turns ({detail}).",
                     "; ".join(ctx.memtui("extract", s.session, "--force") for s in own[:SHOWN]))
    if latest is None and sum(s.uncovered for s in sessions) >= QUIET_PROMPTS:
        return Check("extraction", WARN,
                     f"{head}: either nothing was worth keeping, or extraction does not run "
                     "(see auto_memory; builds before memory_saved records existed leave none).",
                     ctx.memtui("extract", max(sessions, key=lambda s: s.uncovered).session))
    return Check("extraction", OK, head + ".")


def check_compaction(ctx: DoctorContext) -> Check:
    sessions = _sessions(ctx)
    if not sessions:
        return Check("compaction", SKIP, "No session transcripts of this project were found.")
    hit = [s for s in sessions if s.compactions]
    if not hit:
        return Check("compaction", OK,
                     f"No compaction in the newest {plural(len(sessions), 'session')} came after "
                     "messages no extraction had saved from.")
    detail = "; ".join(
        f"{_name(s)}: compacted at {', '.join(time for time, _ in s.compactions)} with "
        f"{plural(sum(n for _, n in s.compactions), 'user message')} since the last save"
        for s in hit[:SHOWN])
    return Check("compaction", WARN,
                 f"{plural(len(hit), 'session')} {'was' if len(hit) == 1 else 'were'} compacted after messages that no extraction "
                 f"saved from, so they may never be extracted: {detail}.",
                 "; ".join(_extract_command(ctx, s) for s in hit[:SHOWN]))


def _extract_command(ctx: DoctorContext, facts: SessionFacts) -> str:
    """The extraction that reads a session's unsaved messages. It reads everything after
    memtui's cursor; a save in that range makes it refuse, unless forced."""
    return ctx.memtui("extract", facts.session, *(["--force"] if facts.wrote_since_cursor else []))
