"""Claude Code's gates for the automatic dream, as they stand for one store.

Hours since the last consolidation (the mtime of `.consolidate-lock`) against 24, and
sessions touched since then against 5, counted as Claude Code counts them: transcripts with
UUID names in the session's own cwd folder, newer than the lock. Both defaults come from a
remote flag. Light on purpose: `memtui doctor` reads them without loading the dream.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tui.claude import transcripts
from tui.claude.lock import read_lock

MIN_HOURS, MIN_SESSIONS = 24, 5


@dataclass(frozen=True)
class Gates:
    """Claude Code's automatic-dream gates, shown (a manual run does not enforce them)."""

    hours_since: float | None  # None: never consolidated
    sessions_cwd: int | None  # as Claude Code counts: the cwd's transcript folder only
    sessions_all: int  # every transcript folder of the store

    def to_json(self) -> dict:
        return {"hours_since": None if self.hours_since is None else round(self.hours_since, 1),
                "sessions_cwd": self.sessions_cwd, "sessions_all": self.sessions_all,
                "min_hours": MIN_HOURS, "min_sessions": MIN_SESSIONS}


def sessions_since(folder: Path, since: float | None) -> int:
    count = 0
    for file in transcripts.session_files(folder):
        if not transcripts.UUID_NAME.match(file.name):
            continue
        try:
            if since is None or file.stat().st_mtime > since:
                count += 1
        except OSError:
            continue
    return count


def compute_gates(store: Path, transcript_dirs: Sequence[Path], cwd_folder: Path | None,
                  now: float | None = None) -> Gates:
    lock = read_lock(store)
    since = lock.mtime if lock.exists else None
    now = time.time() if now is None else now
    return Gates(
        None if since is None else (now - since) / 3600,
        None if cwd_folder is None else sessions_since(cwd_folder, since),
        sum(sessions_since(folder, since) for folder in set(transcript_dirs)),
    )


