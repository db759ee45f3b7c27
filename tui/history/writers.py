"""Who wrote a version of a memory file, in words a user knows.

A writer is a session's main agent, one of its subagents (same session id, an agent id of
its own; for 1.0.x, which names none, its run's name: "subagent 2 (Task: …)"), memtui
itself (a merge, a restore: its journal says so), or nobody the transcripts name (an
extraction, a dream, a person). The main agent is called so only beside a subagent of its
own session, where "session abc12345" alone would not say which of the two wrote.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from tui.claude.sidechains import is_run_name, short_run_name
from tui.history.writes_log import SIDECHAIN

UNTRACKED = "an untracked writer"
UNTRACKED_KINDS = "(extraction, dream or a person)"


class Writer(NamedTuple):
    session: str | None
    agent: str | None  # a subagent's id (SIDECHAIN: one the transcript does not name)
    cwd: str | None
    memtui: str | None = None  # what memtui did (its change's label), when memtui wrote

    def beside_own_subagent(self, other: Writer | None) -> bool:
        return (not self.agent and other is not None and other.agent is not None
                and other.session == self.session)


def writers(update) -> tuple[Writer, Writer]:
    """(the writer that lost content, the writer whose content it lost) of a LostUpdate."""
    return (Writer(update.session, update.agent, update.cwd),
            Writer(update.previous_session, update.previous_agent, update.previous_cwd,
                   update.previous_memtui))


def _place(writer: Writer, place: Callable[[str], str]) -> str:
    return f" in {place(writer.cwd)}" if writer.cwd else ""


def in_words(writer: Writer, other: Writer | None = None,
             place: Callable[[str], str] = str) -> str:
    """For a sentence: "a subagent (a881341) of session 92b10f9f in ~/shop"."""
    if writer.memtui:
        return f"memtui ({writer.memtui})"
    if not writer.session:
        return f"{UNTRACKED} {UNTRACKED_KINDS}"
    session = f"session {writer.session[:8]}"
    if writer.agent == SIDECHAIN:
        who = f"a subagent of {session}"
    elif writer.agent and is_run_name(writer.agent):
        who = f"{writer.agent} of {session}"
    elif writer.agent:
        who = f"a subagent ({writer.agent}) of {session}"
    elif writer.beside_own_subagent(other):
        who = f"the main agent of {session}"
    else:
        who = session
    return who + _place(writer, place)


def in_short(writer: Writer, other: Writer | None = None,
             place: Callable[[str], str] = str) -> str:
    """For a table cell: "92b10f9f subagent in ~/shop", "92b10f9f subagent 2 in ~/shop"
    (a 1.0.x run), "memtui merge"."""
    if writer.memtui:
        return " ".join(["memtui", *writer.memtui.split()[:1]])
    if not writer.session:
        return UNTRACKED
    who = writer.session[:8]
    if writer.agent and is_run_name(writer.agent):
        who += f" {short_run_name(writer.agent)}"
    elif writer.agent:
        who += " subagent"
    elif writer.beside_own_subagent(other):
        who += " main agent"
    return who + _place(writer, place)
