"""Screens that write one file of a store back to a chosen text (a journal version, a lost
update) after a preview, and undo it with `u`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import RenderableType
from textual import work
from textual.screen import Screen

from tui.app import curation
from tui.app.messages import ChangeApplied
from tui.app.screens.confirm import confirm_then


@dataclass(frozen=True)
class FileWritePlan:
    """One file's new content, shaped for ConfirmScreen (label, summary, preview)."""

    label: str
    file: str
    before: bytes | None
    after: bytes
    summary: list[str]
    preview: RenderableType
    pushed_out: tuple[str, ...] = ()
    options: tuple[str, ...] = ()


def text_of(data: bytes | None) -> str:
    """A file's text; a byte that is not UTF-8 is kept (as a lone surrogate, shown as
    `\\xe9`), so writing the text back gives the same bytes."""
    return (data or b"").decode("utf-8", "surrogateescape")


def load_problem(store: Path, error: BaseException | None) -> str:
    """What went wrong reading a store's history, in one sentence: git's own error (the
    command, its output) only names what it could not read."""
    from git import GitError
    from gitdb.exc import ODBError

    from tui.history.journal import damaged

    if isinstance(error, GitError | ODBError):
        return damaged(store, error)
    return str(error)


def local_time(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))


def short_session(session: str | None) -> str:
    return session[:8] if session else "-"


def write_plan(store: Path, plan: FileWritePlan) -> tuple[str, str]:
    """Run the journalled safe write; (what to tell the user, severity)."""
    from tui.history.recovery import write_journalled
    from tui.memory.writes import WriteRefused

    try:
        write_journalled(store, plan.file, plan.before, plan.after, plan.label)
    except WriteRefused as refused:
        return str(refused), "error"
    return f"{plan.label}. Press u to undo.", "information"


class FileWriteScreen(Screen[None]):
    """Writes a confirmed `FileWritePlan` to `self.store` and undoes the store's last
    change, then calls the screen's `load()` again."""

    store: Path

    def confirm_write(self, plan: FileWritePlan) -> None:
        """Ask before writing `plan`; on yes, the `write` worker writes it."""
        confirm_then(self.app, plan, lambda: self.write(plan))

    @work(thread=True, exit_on_error=False, group="file-write")
    def write(self, plan: FileWritePlan) -> None:
        self.post_message(ChangeApplied(*write_plan(self.store, plan)))

    def action_undo(self) -> None:
        self.undo()

    @work(thread=True, exit_on_error=False, group="file-write")
    def undo(self) -> None:
        self.post_message(ChangeApplied(*curation.undo(self.store)))

    def on_change_applied(self, message: ChangeApplied) -> None:
        self.notify(message.text, severity=message.severity)
        if message.severity != "error":
            self.load()
