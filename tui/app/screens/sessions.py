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
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState

from tui.render import condense


@dataclass
class SessionsListed(Message):
    sessions: list  # tui.app.runs.Session, newest first


class SessionPicker(ModalScreen[str | None]):
    """Dismissed with the chosen session's id, or None."""

    DEFAULT_CSS = """
    SessionPicker { align: center middle; }
    #sessions-dialog {
        width: 90%; height: 80%; padding: 0 1;
        border: thick $primary; background: $surface;
    }
    #sessions-help { height: auto; margin-bottom: 1; }
    #sessions-table { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Cancel", id="sessions.cancel"),
    ]

    def __init__(self, project) -> None:
        super().__init__()
        self.project = project

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-dialog"):
            yield Static(Text.assemble(
                ("Extract memories from which session? ", "bold"),
                "enter picks; esc cancels. New messages are those after the last extraction."),
                id="sessions-help")
            yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
            yield Static("Reading the sessions …", id="sessions-status")

    def on_mount(self) -> None:
        table = self.query_one("#sessions-table", DataTable)
        for column in ("modified", "new messages", "working directory", "session"):
            table.add_column(column, key=column)
        self.list_sessions()

    @work(thread=True, exit_on_error=False, group="sessions")
    def list_sessions(self) -> None:
        from tui.app.runs import project_sessions

        self.post_message(SessionsListed(project_sessions(self.project)))

    def on_sessions_listed(self, message: SessionsListed) -> None:
        table = self.query_one("#sessions-table", DataTable)
        for session in message.sessions:
            where = condense(session.cwd)
            if session.role not in ("main", "other"):
                where = Text.assemble(where, (f" ({session.role})", "dim"))
            news = Text(session.news, style="bold" if session.new_messages else "dim")
            table.add_row(f"{dt.datetime.fromtimestamp(session.modified):%Y-%m-%d %H:%M}",
                          news, where, session.session_id, key=session.session_id)
        status = self.query_one("#sessions-status", Static)
        if message.sessions:
            status.update(f"{len(message.sessions)} session(s).")
            table.focus()
        else:
            status.update("This project has no session transcripts to extract from.")

    @on(DataTable.RowSelected, "#sessions-table")
    def picked(self, event: DataTable.RowSelected) -> None:
        self.dismiss(event.row_key.value)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.query_one("#sessions-status", Static).update(
                Text(f"The sessions could not be read: {event.worker.error}", style="bold red"))
