"""Where each store stands with the sync remote, for the app's sync column and preview.

A dry run: fetched when the remote answers, else against the remote as last fetched
(`offline`). Nothing is written to any store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tui.sync.engine import ProjectSync, SyncTarget, sync
from tui.sync.remote import RemoteUnreachable


@dataclass(frozen=True)
class SyncStatus:
    projects: dict[Path, ProjectSync]
    offline: str | None  # why the remote was not fetched, when it was not


def sync_status(url: str, targets: Sequence[SyncTarget], *, accept_cut: bool = False) -> SyncStatus:
    """`accept_cut`: plan a store even when its merged index would hide memories past the
    cut (`past_cut` names them), to preview it."""
    try:
        report = sync(url, targets, dry_run=True, accept_cut=accept_cut)
        offline = None
    except RemoteUnreachable as error:
        report = sync(url, targets, dry_run=True, accept_cut=accept_cut, fetch=False)
        offline = str(error)
    return SyncStatus({project.store: project for project in report.projects}, offline)


def status_word(project: ProjectSync) -> str:
    """`in sync`, `3↓`, `2↑`, `3↓ 2↑`, `conflict`, `held` for a store whose sync waits for
    the user's word (its merged index would hide memories past the cut), or `-` for a store
    that is not synced."""
    if project.skipped:
        return "held" if project.past_cut else "-"
    if project.conflicts or project.unresolved:
        return "conflict"
    parts = []
    if project.pulled:
        parts.append(f"{len(project.pulled)}↓")
    if project.pushed:
        parts.append(f"{len(project.pushed)}↑")
    return " ".join(parts) or "in sync"
