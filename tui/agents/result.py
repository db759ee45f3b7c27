"""What a finished run hands back, and how it is concluded (applied or thrown away)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tui.agents.changeset import (
    ApplyResult,
    ChangeSet,
    apply_changeset,
    remember_lock_before,
)
from tui.agents.events import LogLine, Phase
from tui.claude.lock import LockLease, release_lock, rollback_lock
from tui.claude.paths import LOCK_NAME

SUCCEEDED, FAILED, CANCELLED, SKIPPED = "succeeded", "failed", "cancelled", "skipped"


@dataclass
class RunResult:
    kind: str  # "dream" or "extract"
    engine: str
    status: str
    phases: tuple[Phase, ...]
    log: tuple[LogLine, ...]
    changeset: ChangeSet | None = None
    error: str | None = None  # one sentence when failed or skipped
    tokens_in: int = 0
    tokens_out: int = 0
    refusals: tuple[str, ...] = ()
    topics_left: tuple[str, ...] = ()
    gates: dict | None = None
    lease: LockLease | None = None  # a dream holds the lock until concluded
    cursor: tuple[str, Path, str] | None = None  # (session id, transcript, last uuid)
    pending: tuple[str, Path, str] | None = None  # a range left with topics: its last uuid
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "engine": self.engine,
            "status": self.status,
            "error": self.error,
            "phases": [p.to_json() for p in self.phases],
            "tokens": {"input": self.tokens_in, "output": self.tokens_out},
            "gates": self.gates,
            "refused": list(self.refusals),
            "topics_left": list(self.topics_left),
            "changeset": self.changeset.to_json() if self.changeset else None,
        }


def unexpected_error(error: Exception, copy: Path | None = None, store: Path | None = None) -> str:
    """One sentence for an error no part of the run expected (a file-system error: its
    path, the problem and what to do; a path in the run's `copy` of `store` says which
    store file it copies)."""
    if isinstance(error, OSError):
        from tui.disk_errors import failed_path, sentence

        path = failed_path(error) or ""
        shown = None
        if copy is not None and store is not None and Path(path).is_relative_to(copy):
            shown = f"{path} (the run's copy of {store / Path(path).relative_to(copy)})"
        return sentence(error, "The run stopped", "nothing was applied", shown)
    detail = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
    return (f"The run stopped on an unexpected error ({type(error).__name__}"
            f"{': ' + detail if detail else ''}); nothing was applied.")


def conclude(result: RunResult, apply: bool, only: set[str] | None = None) -> ApplyResult | None:
    """Apply the change set (or not) and settle the lock and the cursor.

    A dream counts as a consolidation only when something of it was applied, or when it
    had nothing to change (as Claude Code counts one); otherwise the lock goes back to how
    it was. What a counted dream did to the lock is memtui's change like any other: listed
    and undone with the rest, or alone when no file changed.
    """
    outcome = None
    if apply and result.changeset is not None and not result.changeset.empty:
        # The dream keeps the lock through its apply: no second dream starts meanwhile.
        outcome = apply_changeset(result.changeset, only, lease=result.lease)
        if result.lease is not None and not outcome.applied:
            rollback_lock(result.lease)
        elif result.lease is not None:
            remember_lock_before(outcome.record_ids, result.lease.previous)
            release_lock(result.lease)
    elif result.lease is not None:
        if apply and result.changeset is not None and result.changeset.empty:
            outcome = _consolidated_unchanged(result.changeset, result.lease)
        else:
            rollback_lock(result.lease)
    result.lease = None
    settled = apply and (outcome is None or outcome.applied)
    if settled and result.cursor is not None:
        from tui.agents.conversation import remember_cursor_before, save_cursor

        if outcome is not None:
            session_id, _, moved_to = result.cursor
            remember_cursor_before(outcome.record_ids, session_id, moved_to)
        save_cursor(*result.cursor)
    elif settled and result.pending is not None:
        from tui.agents.conversation import mark_pending

        mark_pending(*result.pending)
    return outcome


def _consolidated_unchanged(changeset: ChangeSet, lease: LockLease) -> ApplyResult:
    """A dream that found nothing to change: the lock keeps its start time, recorded as a
    change of no file so that `memtui undo` lists it and puts the lock back. If it cannot
    be recorded, the lock goes back now: memtui leaves nothing it cannot undo."""
    from tui.memory.writes import WriteRefused, record_unchanged

    try:
        record = record_unchanged(changeset.store, changeset.label, lease)
    except WriteRefused as error:
        rollback_lock(lease)
        return ApplyResult((), ((LOCK_NAME, str(error)),), ())
    remember_lock_before((record.id,), lease.previous)
    release_lock(lease)
    return ApplyResult((), (), (record.id,))
