"""Lost updates of one store: who overwrote whom, the lines lost, and merging them back."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import PurePath
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from tui import notices
from tui.app.messages import ChangeApplied, post_unless_replaced
from tui.app.screens.file_writes import (
    FileWritePlan,
    FileWriteScreen,
    load_problem,
    local_time,
    text_of,
)
from tui.app.widgets.app_header import AppHeader
from tui.app.widgets.diff_view import render_diff
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.virtual_table import TableRow, VirtualTable
from tui.claude.discovery import Project
from tui.history.overwrites import lines_back
from tui.history.writers import in_short, in_words, writers
from tui.render import condense, store_place
from tui.visible import visible
from tui.words import agreeing, plural

# (key, width). The lines lost and whether they are back ("1 lost", "1 back"), when, the
# file and who overwrote it fit in the 72 columns the table gets at 120 (the detail beside
# it) and at 80; whose version was lost joins them from about 96.
COLUMNS = (("lines", 8), ("time", 11), ("file", 20), ("by", 20), ("overwrote", 20))
COLUMN_PRIORITY = ("file", "lines", "by", "time", "overwrote")


@dataclass
class LostUpdatesFound(Message):
    updates: list  # tui.history.overwrites.LostUpdate, oldest first
    current: dict[str, str | None]  # file -> its text now (None: absent or unreadable)


@dataclass
class MergeConflicts(Message):
    index: int
    conflicts: tuple  # tui.history.merge.Conflict


def writer(who, other) -> str:
    """Who wrote, for the table: short, a working directory by its folder's name."""
    return visible(in_short(who, other, lambda cwd: PurePath(cwd).name or cwd))


def writer_in_words(who, other) -> str:
    """Who wrote, for a sentence: what an untracked writer can be, where a session ran."""
    return visible(in_words(who, other, condense))


def when(iso: str | None) -> str:
    from tui.history.writes_log import parse_time

    stamp = parse_time(iso or "")
    return local_time(stamp) if stamp else (iso or "?")


RECENT_SECONDS = 180 * 24 * 3600


def when_short(iso: str | None) -> str:
    """For the table, as `ls -l` dates files: month, day and minute within the last half
    year, the date alone before (the detail says the second)."""
    from tui.history.writes_log import parse_time

    stamp = parse_time(iso or "")
    if not stamp:
        return iso or "?"
    recent = abs(time.time() - stamp) < RECENT_SECONDS
    return time.strftime("%m-%d %H:%M" if recent else "%Y-%m-%d", time.localtime(stamp))


class OverwritesScreen(FileWriteScreen):
    FOOTER_KEYS: ClassVar[tuple[str, ...]] = (  # most used first
        "overwrites.merge", "overwrites.history", "overwrites.undo", "overwrites.rescan",
        "overwrites.back",
    )
    DEFAULT_CSS = """
    OverwritesScreen #overwrites-status { padding: 0 1; color: $text-muted; }
    OverwritesScreen #overwrites-body { height: 1fr; }
    OverwritesScreen #overwrites { width: 3fr; height: 1fr; }
    OverwritesScreen #overwrite-detail {
        width: 2fr; border-left: solid $primary-background; padding: 0 1;
    }
    /* Under 120 columns side by side leaves the detail under 45: it goes below, full width. */
    OverwritesScreen.-narrow #overwrites-body { layout: vertical; }
    OverwritesScreen.-narrow #overwrites { width: 1fr; height: 1fr; }
    OverwritesScreen.-narrow #overwrite-detail {
        width: 1fr; height: 2fr; border-left: none; border-top: solid $primary-background;
    }
    """
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (120, "-wide")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="overwrites.back"),
        Binding("m", "merge", "Merge back", tooltip="Merge the lost lines into the file (asks first)",
                id="overwrites.merge"),
        Binding("h", "history", "History", tooltip="Every version of this file",
                id="overwrites.history"),
        Binding("u", "undo", "Undo", tooltip="Undo memtui's last change to this store",
                id="overwrites.undo"),
        Binding("f5", "reload", "Rescan", id="overwrites.rescan"),
    ]

    def __init__(self, project: Project) -> None:
        super().__init__()
        assert project.store is not None
        self.project = project
        self.store = project.store
        self.updates: list = []
        self.current: dict[str, str | None] = {}
        self.conflicts: dict[int, tuple] = {}

    def compose(self) -> ComposeResult:
        yield AppHeader(show_clock=False)
        yield Static("Reading the transcripts…", id="overwrites-status")
        with Horizontal(id="overwrites-body"):
            yield VirtualTable(COLUMNS, stretch="file", priority=COLUMN_PRIORITY,
                               grow={"by", "overwrote"}, id="overwrites")
            with VerticalScroll(id="overwrite-detail"):
                yield Static(id="overwrite-text")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = f"Lost updates of {condense(self.project.key_path or str(self.store))}"
        self.sub_title = store_place(self.store, self.project.key_path)
        self.load()

    def palette_commands(self):
        from tui.app.commands import PaletteCommand

        return [
            PaletteCommand("overwrites: merge lost lines back", "Merge the highlighted lost update",
                           self.action_merge),
            PaletteCommand("overwrites: file history", "Every version of the highlighted file",
                           self.action_history),
        ]

    # --- loading --------------------------------------------------------------------------

    @work(thread=True, exit_on_error=False, exclusive=True, group="overwrites")
    def load(self) -> None:
        from tui.history.recovery import all_lost_updates, file_text
        from tui.history.writes_log import folder_events

        events = folder_events(self.store, self.project.transcript_dirs)
        updates = all_lost_updates(self.store, events)
        current = {file: file_text(self.store, file) for file in {u.file for u in updates}}
        post_unless_replaced(self, LostUpdatesFound(updates, current))

    def on_lost_updates_found(self, message: LostUpdatesFound) -> None:
        self.updates = message.updates
        self.current = message.current
        self.conflicts = {}
        table = self.query_one("#overwrites", VirtualTable)
        rows = []
        for number, update in enumerate(self.updates):
            back = lines_back(update, self.current.get(update.file))
            by, overwritten = writers(update)
            rows.append(TableRow(str(number), (
                Text(f"{len(update.lost_lines)} back", style="green") if back
                else Text(f"{len(update.lost_lines)} lost", style="bold red"),
                when_short(update.time),
                visible(update.file),
                writer(by, overwritten),
                writer(overwritten, by),
            )))
        table.set_rows(rows)  # the cursor stays on the same row number
        status = self.query_one("#overwrites-status", Static)
        note = "".join(f"{sentence} " for sentence in notices.take())  # a journal moved aside
        if self.updates:
            status.update(f"{note}{plural(len(self.updates), 'lost update')}: a write that replaced "
                          "content its session had not seen. m merges the lost lines back.")
        else:
            status.update(f"{note}No lost updates: no session overwrote a change it had not seen.")
        self.show_detail()
        table.focus()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            problem = load_problem(self.store, event.worker.error)
            self.query_one("#overwrites-status", Static).update(
                Text(visible(f"Could not finish: {problem}")))
            self.notify(problem, severity="error", title="memtui")

    # --- detail ---------------------------------------------------------------------------

    def highlighted(self) -> int | None:
        table = self.query_one("#overwrites", VirtualTable)
        return table.cursor_row if self.updates and table.rows else None

    @on(VirtualTable.Highlighted, "#overwrites")
    def row_highlighted(self) -> None:
        self.show_detail()

    def show_detail(self) -> None:
        detail = self.query_one("#overwrite-text", Static)
        number = self.highlighted()
        if number is None:
            detail.update("")
            return
        update = self.updates[number]
        branch = f" ({update.branch})" if update.branch else ""
        by, overwritten = writers(update)
        text = Text.assemble(
            (visible(update.file), "bold"), "\n",
            f"Written {when(update.time)} by {writer_in_words(by, overwritten)}"
            f"{visible(branch)},\n",
            f"over the version of {writer_in_words(overwritten, by)}"
            f" ({when(update.previous_time)}), found in the {update.found_in}.\n\n",
            (f"{plural(len(update.lost_lines), 'line')} lost:\n", "bold"),
        )
        for line in update.lost_lines:
            text.append(f"  {visible(line)}\n", style="red")
        if lines_back(update, self.current.get(update.file)):
            text.append("\nEvery one of these lines is in the file again.\n", style="green")
        else:
            text.append("\nPress m to merge them back (you see the result first).\n", style="dim")
        for conflict in self.conflicts.get(number, ()):
            text.append("\nConflict, nothing was written:\n", style="bold yellow")
            for label, lines in (("now", conflict.ours), ("lost", conflict.theirs)):
                text.append(f"{label}:\n", style="bold")
                text.append(visible("".join(line if line.endswith("\n") else line + "\n"
                                            for line in lines)))
        detail.update(text)

    # --- actions --------------------------------------------------------------------------

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_reload(self) -> None:
        self.load()

    def action_history(self) -> None:
        number = self.highlighted()
        if number is not None:
            from tui.app.screens.history import HistoryScreen

            self.app.push_screen(HistoryScreen(self.project, self.updates[number].file))

    def action_merge(self) -> None:
        number = self.highlighted()
        if number is not None:
            self.prepare_merge(number)

    @work(thread=True, exit_on_error=False, group="overwrites-write")
    def prepare_merge(self, number: int) -> None:
        from tui.history.recovery import merge_back
        from tui.memory.writes import WriteRefused, read_bytes

        update = self.updates[number]
        try:
            current = read_bytes(self.store, update.file)
        except WriteRefused as refused:
            self.post_message(ChangeApplied(str(refused), "error"))
            return
        now = text_of(current)
        result = merge_back(update, now)
        if result.conflicts:
            self.post_message(MergeConflicts(number, result.conflicts))
            return
        if result.text == now:
            self.post_message(ChangeApplied(f"Every line lost on {when(update.time)} is already "
                                            f"back in {update.file}."))
            return
        lost = len(update.lost_lines)
        plan = FileWritePlan(
            f"merge lines of {update.file} lost on {update.time}", update.file, current,
            result.text.encode("utf-8", "surrogateescape"),
            summary=[f"{plural(lost, 'lost line')} {agreeing(lost, 'goes', 'go')} back into "
                     f"{update.file}; what is there now is kept."],
            preview=render_diff(now, result.text, f"{update.file} (now)", f"{update.file} (merged)"),
        )
        self.app.call_from_thread(self.confirm_write, plan)

    def on_merge_conflicts(self, message: MergeConflicts) -> None:
        self.conflicts[message.index] = message.conflicts
        self.notify(f"{plural(len(message.conflicts), 'conflict')} between the file now and the lost "
                    "version; nothing was written. See them on the right.", severity="warning")
        self.show_detail()

