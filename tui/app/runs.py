"""The app's side of runs: which engine, how a dream or an extraction starts, what it costs.

The runs themselves are the core's (`tui.agents.dream`, `tui.agents.extract`); this only
wires the store screen's project into them, the way `memtui dream` and `memtui extract` do,
and lists the sessions an extraction can read.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

# US dollars per million tokens (input, output), by model family; list prices.
PRICES = {"opus": (15.0, 75.0), "sonnet": (3.0, 15.0), "haiku": (1.0, 5.0)}


@dataclass(frozen=True)
class Engine:
    name: str  # "anthropic" or "offline"
    config: object  # the core's ClientConfig
    model: str | None  # None for the offline engine

    def describe(self) -> str:
        if self.model is None:
            return "offline engine (deterministic, no network, no API key configured)"
        return f"anthropic engine, model {self.model}"


def pick_engine(env: Mapping[str, str]) -> Engine | str:
    """The engine a run uses (anthropic when a key is configured), or why none can run."""
    from tui.agents.client import EngineError, load_config

    try:
        config = load_config(env)
    except EngineError as error:
        return str(error)
    if config.has_credentials:
        return Engine("anthropic", config, config.model)
    return Engine("offline", config, None)


def estimated_cost(model: str, tokens_in: int, tokens_out: int) -> float | None:
    """Dollars at list prices, or None when the model's family is unknown."""
    family = next((name for name in PRICES if name in model.lower()), None)
    if family is None:
        return None
    price_in, price_out = PRICES[family]
    return (tokens_in * price_in + tokens_out * price_out) / 1_000_000


Starter = Callable[[Callable, threading.Event], object]  # (listener, cancel) -> RunResult


def dream_starter(project, home: Path, engine: Engine) -> Starter:
    from tui.agents.dream import cwd_transcript_folder, run_dream

    def start(listener, cancel: threading.Event):
        return run_dream(project.store, engine=engine.name, config=engine.config,
                         transcript_dirs=project.transcript_dirs,
                         cwd_folder=cwd_transcript_folder(home, project.key_path),
                         listener=listener, cancel=cancel, checkout=project.key_path)

    return start


def extract_starter(session_id: str, app, engine: Engine, force: bool = False,
                    focus: tuple[str, ...] = ()) -> Starter:
    from tui.agents.extract import run_extract

    def start(listener, cancel: threading.Event):
        return run_extract(session_id, home=app.home, env=app.env,
                           settings_file=app.settings_file, engine=engine.name,
                           config=engine.config, force=force, listener=listener,
                           cancel=cancel, focus=focus)

    return start


@dataclass(frozen=True)
class Session:
    """A session of the project as the extraction picker lists it."""

    session_id: str
    modified: float
    cwd: str
    role: str  # the transcript folder's role: "main", "worktree", "subdirectory", ...
    new_messages: int  # the messages after memtui's cursor
    cursor: str  # "none" (memtui never extracted it), "found" or "lost" (compacted away: all are new)

    @property
    def news(self) -> str:
        if self.cursor == "none":
            return f"{self.new_messages} (memtui never ran)"
        if self.cursor == "lost":
            return f"{self.new_messages} (cursor lost: all)"
        return str(self.new_messages) if self.new_messages else "none"


def project_sessions(project) -> list[Session]:
    """The project's sessions, newest first, with what an extraction would read in each."""
    from tui.agents.conversation import after_cursor, read_cursor, read_messages
    from tui.claude.transcripts import first_cwd, session_files

    sessions = []
    for folder in project.transcript_folders:
        for transcript in session_files(folder.path):
            try:
                modified = os.stat(transcript).st_mtime
            except OSError:
                continue  # deleted since it was listed
            cursor = read_cursor(transcript.stem)
            new, found = after_cursor(read_messages(transcript), cursor)
            sessions.append(Session(
                transcript.stem, modified, first_cwd(transcript) or "(no cwd recorded)",
                folder.role, sum(1 for m in new if m.text.strip()),
                "none" if cursor is None else "found" if found else "lost"))
    sessions.sort(key=lambda s: -s.modified)
    return sessions
