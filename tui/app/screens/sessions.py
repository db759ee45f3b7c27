"""The session picker: which of the project's sessions an extraction reads, newest first."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from tui.app.screens.dialog import Dialog
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.virtual_table import TableRow, VirtualTable
from tui.render import condense
from tui.words import plural

# (key, width); the working directory takes the spare width and keeps its end (the role).
# The session's id at every width: the doctor and `memtui extract` name sessions by it.
COLUMNS = (("modified", 16), ("session", 8), ("new messages", 21), ("working directory", 22))
COLUMN_PRIORITY = ("modified", "session", "new messages", "working directory")


@dataclass
class SessionsListed(Message):
    sessions: list  # tui.app.runs.Session, newest first


def session_row(session) -> TableRow:
    """Keyed by the session id."""
    where = condense(session.cwd)
    if session.role not in ("main", "other"):
        where += f" ({session.role})"
    news = Text(session.news, style="bold" if session.new_messages else "dim")
    return TableRow(session.session_id, (
        f"{dt.datetime.fromtimestamp(session.modified):%Y-%m-%d %H:%M}", session.session_id[:8],
        news, where))


class SessionTable(VirtualTable):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Extract", show=False, id="sessions.pick"),
    ]


class SessionPicker(Dialog[str | None]):
    """Dismissed with the chosen session's id, or None. The newest session is highlighted:
    enter extracts from it into a staging copy, reviewed before anything is written."""

    DEFAULT_CSS = """
    SessionPicker { align: center middle; }
    #sessions-dialog {
        width: 100; max-width: 100%; height: 80%; padding: 0 1;
        border: thick $primary; background: $surface;
    }
    #sessions-help { height: auto; margin-bottom: 1; }
    #sessions-table { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Cancel", id="sessions.cancel"),
    ]
    FOOTER_KEYS: ClassVar[tuple[str, ...]] = ("sessions.pick", "sessions.cancel")

    def __init__(self, project) -> None:
        super().__init__()
        self.project = project

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-dialog"):
            yield Static(Text.assemble(
                ("Extract memories from which session? ", "bold"),
                "enter picks; esc cancels. New messages are those after the last extraction."),
                id="sessions-help")
            yield SessionTable(COLUMNS, stretch="working directory", keep_end={"working directory"},
                               priority=COLUMN_PRIORITY, fit={"new messages"},
                               id="sessions-table")
            yield Static("Reading the sessions …", id="sessions-status")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.list_sessions()

    @work(thread=True, exit_on_error=False, group="sessions")
    def list_sessions(self) -> None:
        from tui.app.runs import project_sessions

        self.post_message(SessionsListed(project_sessions(self.project)))

    def on_sessions_listed(self, message: SessionsListed) -> None:
        table = self.query_one("#sessions-table", SessionTable)
        table.set_rows([session_row(session) for session in message.sessions])
        status = self.query_one("#sessions-status", Static)
        if message.sessions:
            status.update(f"{plural(len(message.sessions), 'session')}.")
            table.focus()
        else:
            status.update("This project has no session transcripts to extract from.")

    @on(SessionTable.Selected, "#sessions-table")
    def picked(self, event: SessionTable.Selected) -> None:
        if event.row is not None:
            self.dismiss(event.row.key)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.query_one("#sessions-status", Static).update(
                Text(f"The sessions could not be read: {event.worker.error}", style="bold red"))
