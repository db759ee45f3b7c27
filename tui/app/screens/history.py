"""File history: every journal version of one memory, diffs between any two, restore."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from tui.app.messages import ChangeApplied
from tui.app.screens.file_writes import (
    FileWritePlan,
    FileWriteScreen,
    load_problem,
    local_time,
    short_session,
    text_of,
)
from tui.app.widgets.app_header import AppHeader
from tui.app.widgets.diff_view import render_diff
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.virtual_table import TableRow, VirtualTable
from tui.claude.discovery import Project
from tui.render import condense
from tui.visible import visible
from tui.words import plural

# (key, width); at 80 columns the time, the change and the compare-from mark fit.
COLUMNS = (("base", 1), ("time", 19), ("source", 9), ("session", 8), ("worktree", 24),
           ("change", 20))
COLUMN_PRIORITY = ("time", "change", "base", "source", "session", "worktree")


@dataclass
class HistoryLoaded(Message):
    versions: list  # tui.history.journal.Version, newest first
    texts: dict[str, bytes]  # blob id -> bytes
    journal_note: str


class HistoryScreen(FileWriteScreen):
    FOOTER_KEYS: ClassVar[tuple[str, ...]] = (  # most used first
        "history.restore", "history.pin_base", "history.layout", "history.undo", "history.back",
    )
    DEFAULT_CSS = """
    HistoryScreen #history-status { padding: 0 1; color: $text-muted; }
    HistoryScreen #history-body { height: 1fr; }
    HistoryScreen #versions { width: 3fr; height: 1fr; }
    HistoryScreen #diff-pane { width: 2fr; border-left: solid $primary-background; padding: 0 1; }
    HistoryScreen #diff-title { height: auto; }
    HistoryScreen #diff-scroll { height: 1fr; }
    /* Under 120 columns side by side leaves the diff under 45: it goes below, full width. */
    HistoryScreen.-narrow #history-body { layout: vertical; }
    HistoryScreen.-narrow #versions { width: 1fr; height: 1fr; }
    HistoryScreen.-narrow #diff-pane {
        width: 1fr; height: 2fr; border-left: none; border-top: solid $primary-background;
    }
    """
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (120, "-wide")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="history.back"),
        Binding("b", "pin_base", "Compare from", tooltip="Diff later versions against this one",
                id="history.pin_base"),
        Binding("s", "toggle_layout", "Side by side", tooltip="Unified or side-by-side diff",
                id="history.layout"),
        Binding("r", "restore", "Restore", tooltip="Put this version back (asks first)",
                id="history.restore"),
        Binding("u", "undo", "Undo", tooltip="Undo memtui's last change to this store",
                id="history.undo"),
    ]

    def __init__(self, project: Project, file: str) -> None:
        super().__init__()
        assert project.store is not None
        self.project = project
        self.store = project.store
        self.file = file
        self.versions: list = []
        self.texts: dict[str, bytes] = {}
        self.base: int | None = None  # a pinned version to diff from
        self.side_by_side = False

    def compose(self) -> ComposeResult:
        yield AppHeader(show_clock=False)
        yield Static("Reading the journal and the transcripts…", id="history-status")
        with Horizontal(id="history-body"):
            yield VirtualTable(COLUMNS, stretch="change", labels={"base": ""},
                               keep_end={"worktree"}, priority=COLUMN_PRIORITY, id="versions")
            with Vertical(id="diff-pane"):
                yield Static(id="diff-title")
                with VerticalScroll(id="diff-scroll"):
                    yield Static(id="diff-body")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = f"History of {self.file}"
        self.sub_title = condense(self.project.key_path or str(self.store))
        self.load()

    def palette_commands(self):
        from tui.app.commands import PaletteCommand

        return [
            PaletteCommand("history: restore version", "Put the highlighted version back",
                           self.action_restore),
            PaletteCommand("history: toggle side by side", "Unified or side-by-side diff",
                           self.action_toggle_layout),
        ]

    # --- loading --------------------------------------------------------------------------

    @work(thread=True, exit_on_error=False, exclusive=True, group="history")
    def load(self) -> None:
        """Snapshot the store, backfill from the transcripts, then list the file's versions."""
        from tui import notices
        from tui.history.backfill import backfill
        from tui.history.journal import use_journal
        from tui.history.writes_log import folder_events

        events = folder_events(self.store, self.project.transcript_dirs)

        def versions_of(journal) -> tuple[list, dict[str, bytes]]:
            journal.snapshot("changes found by memtui history", source="external")
            backfill(journal, events)
            versions = journal.versions(self.file)
            texts: dict[str, bytes] = {}
            for version in versions:
                if version.blob and version.blob not in texts:
                    texts[version.blob] = journal.read(version.rev, self.file) or b""
            return versions, texts

        versions, texts = use_journal(self.store, versions_of)
        note = "".join(f"{sentence} " for sentence in notices.take())
        self.post_message(HistoryLoaded(versions, texts, note))

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        self.versions = message.versions
        self.texts = message.texts
        self.base = None
        count = len(self.versions)
        status = self.query_one("#history-status", Static)
        if not count:
            status.update(f"{message.journal_note}No version of {self.file} in the journal or "
                          "the transcripts yet.")
        else:
            status.update(f"{message.journal_note}{plural(count, 'version')} of {self.file}, "
                          "newest first. "
                          "b pins a version to compare from; s switches the diff layout.")
        self.refresh_table()
        self.query_one("#versions").focus()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            problem = load_problem(self.store, event.worker.error)
            self.query_one("#history-status", Static).update(
                Text(visible(f"Could not read the history: {problem}")))
            self.notify(problem, severity="error", title="memtui")

    # --- table and diff -------------------------------------------------------------------

    def refresh_table(self) -> None:
        """The versions, the cursor on the same row number (a new version comes first)."""
        table = self.query_one("#versions", VirtualTable)
        rows = []
        for number, version in enumerate(self.versions):
            change = version.subject if version.blob else f"{version.subject} (deleted)"
            rows.append(TableRow(str(number), (
                "◆" if number == self.base else "",
                local_time(version.time),
                version.source or "-",
                short_session(version.session),
                condense(version.cwd) if version.cwd else "-",
                change,
            )))
        table.set_rows(rows)
        self.show_diff()

    def highlighted(self) -> int | None:
        table = self.query_one("#versions", VirtualTable)
        return table.cursor_row if self.versions and table.rows else None

    def version_text(self, number: int) -> str:
        return text_of(self.texts.get(self.versions[number].blob or ""))

    def version_label(self, number: int) -> str:
        version = self.versions[number]
        return f"{version.rev[:10]} {local_time(version.time)}"

    @on(VirtualTable.Highlighted, "#versions")
    def row_highlighted(self) -> None:
        self.show_diff()

    def show_diff(self) -> None:
        title = self.query_one("#diff-title", Static)
        body = self.query_one("#diff-body", Static)
        new = self.highlighted()
        if new is None:
            title.update("")
            body.update("")
            return
        old = self.base if self.base is not None else new + 1
        if old == new:
            title.update(Text.assemble(("Compare-from version", "bold"),
                                       " (move to another version to see the diff)"))
            body.update(Text(self.version_text(new)))
            return
        if old >= len(self.versions):
            title.update(Text.assemble(("First version", "bold"), f"  {self.version_label(new)}"))
            body.update(Text(self.version_text(new)))
            return
        title.update(Text.assemble((self.version_label(old), "red"), "  →  ",
                                   (self.version_label(new), "green")))
        body.update(render_diff(self.version_text(old), self.version_text(new),
                                self.version_label(old), self.version_label(new),
                                side_by_side=self.side_by_side))

    # --- actions --------------------------------------------------------------------------

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_pin_base(self) -> None:
        number = self.highlighted()
        if number is None:
            return
        self.base = None if self.base == number else number
        self.refresh_table()

    def action_toggle_layout(self) -> None:
        self.side_by_side = not self.side_by_side
        self.show_diff()

    def action_restore(self) -> None:
        number = self.highlighted()
        if number is None:
            return
        version = self.versions[number]
        if version.blob is None:
            self.notify(f"{self.file} does not exist in that version; nothing to restore.",
                        severity="warning")
            return
        self.prepare_restore(number)

    @work(thread=True, exit_on_error=False, group="history-write")
    def prepare_restore(self, number: int) -> None:
        from tui.memory.writes import WriteRefused, read_bytes

        version = self.versions[number]
        wanted = self.texts[version.blob]
        try:
            current = read_bytes(self.store, self.file)
        except WriteRefused as refused:
            self.post_message(ChangeApplied(str(refused), "error"))
            return
        if current == wanted:
            self.post_message(ChangeApplied(f"{self.file} is already at version {version.rev[:10]}."))
            return
        label = f"restore {self.file} to version {version.rev[:10]}"
        plan = FileWritePlan(
            label, self.file, current, wanted,
            summary=[f"{self.file} goes back to the version of {local_time(version.time)} "
                     f"({version.source or 'journal'}, session {short_session(version.session)})."],
            preview=render_diff(text_of(current), text_of(wanted), "now", version.rev[:10]),
        )
        self.app.call_from_thread(self.confirm_write, plan)

