"""The store screen: memories, the index as Claude loads it, findings, recall preview."""

from __future__ import annotations

import gc
import os
import threading
import time
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Vertical, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import (
    Input,
    LoadingIndicator,
    Markdown,
    Static,
    TabbedContent,
    TabPane,
)
from textual.worker import Worker, WorkerState, get_current_worker

from tui.app import curation
from tui.app.commands import PaletteCommand
from tui.app.disk import WATCH_GROUP, signature
from tui.app.memory_rows import (
    ORPHAN_STATUSES,
    RELINKABLE_STATUSES,
    TYPE_TAGS,
    MemoryRow,
    build_rows,
    filter_rows,
)
from tui.app.messages import (
    ChangeApplied,
    LockLapsed,
    StoreChangedOnDisk,
    StoreLoaded,
    StoreRead,
    post_unless_replaced,
)
from tui.app.screens.doctor import DoctorDone
from tui.app.textual_leaks import collect_discarded, release_styles_caches
from tui.app.widgets.app_header import AppHeader
from tui.app.widgets.findings import FindingsShown, FindingsView, fixes, shown_findings
from tui.app.widgets.index_view import IndexView
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.recall import RecallView
from tui.app.widgets.virtual_table import Place, VirtualTable
from tui.claude.discovery import Project
from tui.claude.lock import read_lock
from tui.claude.memory_files import TEAM_INDEX
from tui.collector import collector_paused
from tui.disk_errors import unwritable
from tui.memory.audit import (
    Finding,
    MemoryStatus,
    audit_store,
    duplicate_findings,
    memory_statuses,
)
from tui.memory.finding import lines_by_index
from tui.memory.stale_paths import code_findings
from tui.memory.store import Memory, Store, load_store
from tui.render import condense, store_place
from tui.visible import visible

# (key, width). What a memory is, its type and description, is read at a glance: the type
# as a tag of four letters at most, the name only as wide as the names are (up to 24: most
# are shorter, and the preview has it whole), the status, and the description in all the
# width left. Once the description has its longest text (up to `DESCRIPTION_WHOLE`), the
# name widens to its own; the date and size join past that.
COLUMNS = (
    ("mark", 1), ("type", 4), ("name", 24), ("status", 10),
    ("description", 16), ("modified", 16), ("size", 8),
)
COLUMN_PRIORITY = ("name", "mark", "status", "type", "description", "modified", "size")
DESCRIPTION_WHOLE = 80  # columns: three descriptions in four read whole
POLL_SECONDS = 1.0
DUPLICATE_SCAN_LIMIT = 10_000  # the check takes about 1.3 s at 5,000 memories, in the worker
QUICK_DUPLICATES = 500  # up to this many memories the check is milliseconds: no extra pass
PREVIEW_PAUSE = 0.1  # the preview waits until typing pauses: Markdown is slow to render
RELINKABLE_KINDS = ("unindexed", "beyond_cut", "linked_from")
# The footer's keys on each tab, most used first (as many as fit are shown; F1 lists all).
AROUND_THE_STORE = ("store.undo", "store.overwrites", "store.dream", "store.extract",
                    "store.doctor")
TAB_KEYS = {
    "memories": ("store.edit", "store.archive", "store.delete", "store.undo", "store.history",
                 "store.overwrites", "store.dream", "store.relink", "store.extract",
                 "store.filter", "store.mark", "store.copy_to", "store.move_to", "store.raw",
                 "store.shorten", "store.remove_dangling", "store.move_out", "store.doctor", "store.redo",
                 "store.back"),
    "index": ("store.move_out", "store.relink", "index.go_to_cut", "store.shorten",
              "store.remove_dangling", "store.edit", *AROUND_THE_STORE, "store.back"),
    "findings": ("store.mark", *AROUND_THE_STORE, "store.back"),
    "recall": ("store.back", *AROUND_THE_STORE),
}


class MemoryTable(VirtualTable):
    """The store's memories; F1 on it says what the type tags stand for."""

    HELP = "Type tags: " + ", ".join(f"**{tag}** {kind}" for kind, tag in TYPE_TAGS.items()
                                     if tag != kind) + "; **—** none given."


class StoreScreen(Screen[None]):
    # Without this the tab bar takes focus first and the arrow keys do nothing.
    AUTO_FOCUS = "#memory-table"
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [
        (0, "-narrow"), (100, "-wide"), (160, "-widest")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="store.back"),
        Binding("slash", "start_filter", "Filter", id="store.filter"),
        # Not priority bindings: in the filter or a question a digit is text (esc leaves it).
        Binding("1", "show_tab('memories')", "Memories", id="store.tab_memories"),
        Binding("2", "show_tab('index')", "Index", id="store.tab_index"),
        Binding("3", "show_tab('findings')", "Findings", id="store.tab_findings"),
        Binding("4", "show_tab('recall')", "Recall", id="store.tab_recall"),
        Binding("v", "toggle_raw", "Raw", id="store.raw"),
        Binding("space", "mark", "Mark", id="store.mark"),
        Binding("r", "relink", "Relink", id="store.relink"),
        Binding("d", "remove_dangling", "Remove dangling", id="store.remove_dangling"),
        Binding("S", "shorten", "Shorten", id="store.shorten"),
        Binding("a", "archive", "Archive", id="store.archive"),
        Binding("D", "delete", "Delete", id="store.delete"),
        Binding("c", "copy_to", "Copy to", id="store.copy_to",
                tooltip="Copy the marked or highlighted memories to another project's store"),
        Binding("M", "move_to", "Move to", id="store.move_to",
                tooltip="Move the marked or highlighted memories to another project's store"),
        Binding("e", "edit", "Edit", id="store.edit"),
        Binding("X", "redact", "Redact", id="store.redact",
                tooltip="Replace credentials in the memories with [REDACTED]"),
        Binding("K", "keep_side", "Keep a side", id="store.keep_side",
                tooltip="Resolve a conflict memtui sync left: keep one text, or both"),
        Binding("m", "move_out", "Move out", id="store.move_out",
                tooltip="Move the index line past the cut, to make room"),
        Binding("R", "rescue", "Rescue", id="store.rescue",
                tooltip="Copy a stranded store's memories into the store its sessions use now"),
        Binding("p", "repath", "Update paths", id="store.repath",
                tooltip="Write each renamed path of the code as the path it has now"),
        Binding("u", "undo", "Undo", id="store.undo"),
        Binding("U", "redo", "Redo", tooltip="Put back what the last undo took",
                id="store.redo"),
        Binding("h", "history", "History", tooltip="Every version of the highlighted memory",
                id="store.history"),
        Binding("o", "overwrites", "Lost updates", tooltip="Writes that overwrote unseen changes",
                id="store.overwrites"),
        Binding("ctrl+d", "dream", "Dream", id="store.dream"),
        Binding("x", "extract", "Extract", tooltip="Turn what a session taught into memories",
                id="store.extract"),
        Binding("w", "doctor", "Doctor", tooltip="Why memory is not working for this project",
                id="store.doctor"),
    ]

    def __init__(self, project: Project, highlight: str | None = None) -> None:
        """`highlight`: the memory the cursor starts on (a search's result)."""
        super().__init__()
        assert project.store is not None
        self.project = project
        self.highlight = highlight
        self.path = project.store
        self.store: Store | None = None
        self.statuses: dict[str, MemoryStatus] = {}
        self.rows: list[MemoryRow] = []
        self.marked: set[str] = set()
        self.raw = False
        self.busy = False  # a confirmation, an edit or a write is in progress
        self.writing = False  # memtui's own write: what it changes on disk is no news
        self.reload_pending = False
        self.lock_shown_held = False  # what the banner says; a lock frees itself unwritten
        self.reads_running = 0
        self.reads_lock = threading.Lock()
        self.read_seconds = 0.0  # how long the last read of the store took
        self.read_done = 0.0  # when it ended (monotonic)
        self.reread_wanted = False  # the store changed on disk while it was being read
        self.reread_timer: Timer | None = None
        self.preview_timer: Timer | None = None
        self.disk_signature = signature(self.path)
        self.loaded_signature = self.disk_signature  # the store the rows (and plans) show

    def compose(self) -> ComposeResult:
        yield AppHeader(show_clock=False)
        yield Static(id="lock-banner", classes="hidden")
        yield Static(id="doctor-banner", classes="hidden")
        yield LoadingIndicator(id="store-loading")
        with TabbedContent(initial="memories", id="store-tabs"):
            with TabPane("1 Memories", id="memories"):
                yield Input(placeholder="filter name, description, body (fuzzy)",
                            compact=True, id="memory-filter")
                with Container(id="memory-panes"):
                    yield MemoryTable(COLUMNS, stretch=("description", "name"),
                                      labels={"mark": ""}, priority=COLUMN_PRIORITY,
                                      fit={"type", "name", "status"}, grow={"name"},
                                      whole=("description", "modified"),
                                      whole_width=DESCRIPTION_WHOLE, id="memory-table")
                    with Vertical(id="preview"):
                        yield Static(id="preview-title")
                        with VerticalScroll(id="preview-scroll"):
                            yield Markdown(id="preview-markdown")
                            yield Static(id="preview-raw", classes="hidden")
            with TabPane("2 Index", id="index"):
                yield IndexView(id="index-view")
                yield IndexView(TEAM_INDEX, id="team-index-view")
            with TabPane("3 Findings", id="findings"):
                yield FindingsView(id="findings-view")
            with TabPane("4 Recall", id="recall"):
                yield RecallView(id="recall-view")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = condense(self.project.key_path or str(self.path))
        self.sub_title = store_place(self.path, self.project.key_path)
        # A watcher, not Input.Changed: the rows change in the same frame as the typed letter.
        self.watch(self.query_one("#memory-filter", Input), "value", self.refresh_table,
                   init=False)
        self.load()
        self.watch_disk()

    @property
    def tab(self) -> str:
        return self.query_one("#store-tabs", TabbedContent).active

    @property
    def findings_view(self) -> FindingsView:
        return self.query_one("#findings-view", FindingsView)

    def footer_keys(self) -> tuple[str, ...]:
        keys = TAB_KEYS.get(self.tab, ())
        if self.project.stranded:
            keys = ("store.rescue", *keys)
        if self.tab == "findings" and (finding := self.findings_view.highlighted) is not None:
            keys = (*fixes(finding), *keys)
        return keys

    @on(TabbedContent.TabActivated, "#store-tabs")
    @on(VirtualTable.Highlighted, "#findings-table")
    def footer_follows(self) -> None:
        self.refresh_bindings()

    def palette_commands(self) -> list[PaletteCommand]:
        return [
            PaletteCommand("store: relink all orphans", "Give every orphan an index line inside "
                           "the cut", self.relink_all),
            PaletteCommand("store: remove all dangling links", "Drop index lines to missing files",
                           self.remove_all_dangling),
            PaletteCommand("store: shorten all long index lines", "Cut their hooks; the whole "
                           "hook moves to the memory file", self.shorten_all),
            PaletteCommand("store: update renamed paths", "Write each path of the code the "
                           "memories mention as git renamed it", self.repath_all),
            PaletteCommand("store: undo last change", "Restore the files of the last change",
                           self.action_undo),
            PaletteCommand("store: rescue stranded memories", "Copy them into the store this "
                           "project's sessions use now", self.action_rescue),
            PaletteCommand("store: redo", "Put back what the last undo took",
                           self.action_redo),
            PaletteCommand("store: lost updates", "Writes that overwrote another session's change",
                           self.action_overwrites),
            PaletteCommand("memory: history", "Every version of the memory, diff and restore",
                           self.action_history),
            PaletteCommand("store: dream", "Consolidate this store: run, review, apply",
                           self.action_dream),
            PaletteCommand("store: extract", "Memories from a session: pick, run, review, apply",
                           self.action_extract),
            PaletteCommand("store: doctor", "Why memory is not working for this project",
                           self.action_doctor),
            PaletteCommand("memory: move entry out", "Move its index line past the cut",
                           self.action_move_out),
            PaletteCommand("memory: archive", "Archive the marked or selected memories",
                           self.action_archive),
            PaletteCommand("memory: delete", "Delete the marked or selected memories",
                           self.action_delete),
            PaletteCommand("memory: copy to project", "Copy the marked or selected memories "
                           "to another project's store", self.action_copy_to),
            PaletteCommand("memory: move to project", "Move the marked or selected memories "
                           "to another project's store", self.action_move_to),
            PaletteCommand("memory: edit", "Edit the selected memory in $EDITOR",
                           self.action_edit),
            PaletteCommand("memory: toggle raw preview", "Show the file with its frontmatter",
                           self.action_toggle_raw),
            PaletteCommand("view: index", "MEMORY.md as Claude loads it",
                           lambda: self.action_show_tab("index")),
            PaletteCommand("view: findings", "Every finding of this store",
                           lambda: self.action_show_tab("findings")),
            PaletteCommand("view: recall preview", "Which memories a question would recall",
                           lambda: self.action_show_tab("recall")),
        ]

    # --- loading --------------------------------------------------------------------------

    @work(thread=True, exit_on_error=False, exclusive=True, group="load")
    def load(self) -> None:
        """Read the store and show it; a cancelled read runs on to its next check, so
        `reads_running` counts the reads still running, not the workers."""
        started = time.monotonic()
        with self.reads_lock:
            self.reads_running += 1
        try:
            self.read_and_show()
        finally:
            with self.reads_lock:
                self.reads_running -= 1
            self.post_message(StoreRead(time.monotonic() - started))

    def read_and_show(self) -> None:
        self.tidy_interrupted_writes()
        if self.store is not None:  # a reload: the last load's discarded widgets go now
            collect_discarded()
        before = signature(self.path)
        worker = get_current_worker()
        with collector_paused():
            store = load_store(self.path)
            if not os.path.isdir(self.path):  # moved or deleted: no audit of an empty store
                gone = FindingsShown([], Text(self.gone_sentence(), style="bold red"))
                self.post_message(StoreLoaded(store, {}, before, [], gone))
                return
            reason = self.project.stranded_reason or None
            statuses = memory_statuses(store)
            store.index.first_cut_line  # noqa: B018 - the index view asks for it: found here
            # The memories first, then what the audit finds, then the duplicates of a store
            # with many memories (the slow part): each is shown while the next is worked out.
            self.post_message(StoreLoaded(store, statuses, before,
                                          build_rows(store, [], statuses), None))
            findings = audit_store(store, stranded_reason=reason, duplicates=False)
            if reason:
                findings = self.rescued(findings)
            many = len(store.memories) > QUICK_DUPLICATES
            if not many:
                findings += duplicate_findings(store)
            if worker.is_cancelled:
                return
            skipped = len(store.memories) > DUPLICATE_SCAN_LIMIT
            types = {memory.file: memory.type for memory in store.memories}
            self.post_message(StoreLoaded(store, statuses, before,
                                          build_rows(store, findings, statuses),
                                          shown_findings(findings, types, skipped)))
            # Against the code: git is asked only when HEAD moved since it last was.
            if code := code_findings(store, self.project.key_path):
                findings = findings + code
                if worker.is_cancelled:
                    return
                self.post_message(StoreLoaded(store, statuses, before,
                                              build_rows(store, findings, statuses),
                                              shown_findings(findings, types, skipped)))
            if many and not skipped:
                findings = findings + duplicate_findings(store)
                if worker.is_cancelled:
                    return
                self.post_message(StoreLoaded(store, statuses, before,
                                              build_rows(store, findings, statuses),
                                              shown_findings(findings, types)))
        from tui.history.recovery import record_external

        record_external(self.path)  # after the view: the journal never delays what users see
        # After every load (a change made here, a run applied, a merge, Claude Code writing),
        # so the doctor's line never outlives its cause; after the load, not beside it: on
        # a huge index every worker running at once competes with the UI thread.
        self.app.call_from_thread(self.check_health)

    def tidy_interrupted_writes(self) -> None:
        """Roll back a change a killed memtui left half applied, remove its temp files."""
        from tui.memory.intents import recover_store
        from tui.memory.writes import WriteRefused

        try:
            messages = recover_store(self.path, wait=1.0)
        except (WriteRefused, OSError):
            return  # another memtui is writing it and tidies after itself
        for message in messages:
            self.app.call_from_thread(self.app.notify, message, title="Recovered", timeout=10)

    def on_store_loaded(self, message: StoreLoaded) -> None:
        self.store = message.store
        self.statuses = message.statuses
        self.disk_signature = self.loaded_signature = message.signature
        self.rows = message.rows
        known = {row.key for row in self.rows}
        self.marked &= known
        self.query_one("#store-loading").add_class("hidden")
        table = self.query_one("#memory-table", VirtualTable)
        self.show_rows(table.place)
        if self.highlight is not None:
            wanted, self.highlight = self.highlight, None
            table.move_cursor(next((i for i, row in enumerate(table.rows)
                                    if row.key == wanted), table.cursor_row))
        self.show_indexes(message.store)
        self.findings_view.show(message.shown)
        self.refresh_bindings()  # the footer shows the keys of the finding highlighted now
        self.query_one("#recall-view", RecallView).show(message.store)
        self.show_lock(message.store)
        if self.focused is None:
            self.query_one("#memory-table").focus()
        # What is loaded now lives as long as the screen: keep Python's collector from
        # walking it again and again (a full pass over a big store stalls a keystroke by
        # 0.2-0.5 s). Leaving the screen hands it back.
        gc.freeze()

    def on_unmount(self) -> None:
        release_styles_caches()  # else Textual keeps its widgets' rendered lines
        gc.unfreeze()

    def show_indexes(self, store: Store) -> None:
        """MEMORY.md, and team/MEMORY.md below it when the store has team memory."""
        team = store.team_index
        self.query_one("#index-view", IndexView).show(store.index, store.index_error)
        self.query_one("#index", TabPane).set_class(team is not None, "-team")
        team_view = self.query_one("#team-index-view", IndexView)
        team_view.display = team is not None
        if team is not None:
            team_view.show(team.loaded, team.error)

    def gone_sentence(self) -> str:
        return (f"{visible(condense(str(self.path)))} no longer exists: the store was moved "
                "or deleted, so nothing here can be changed.")

    def read_only_sentence(self) -> str | None:
        why = unwritable(self.path)
        return (f"Read-only ({why}): Claude Code cannot save a memory here, and no change "
                "can be applied.") if why else None

    def show_lock(self, store: Store) -> None:
        """The banner saying why the store cannot be changed: gone, read-only, or a dream's
        lock."""
        banner = self.query_one("#lock-banner", Static)
        gone = not os.path.isdir(self.path)
        read_only = None if gone else self.read_only_sentence()
        held = not gone and store.lock.held()
        self.lock_shown_held = held
        banner.set_class(not (gone or read_only or held), "hidden")
        if gone:
            banner.update(f"{self.gone_sentence()} esc goes back.")
        elif read_only:
            banner.update(read_only)
        elif held:
            banner.update(
                f"Read-only: a consolidation (PID {store.lock.pid}) holds the lock; "
                "curation is disabled until it finishes."
            )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.query_one("#store-loading").add_class("hidden")
            self.busy = False
            self.notify(str(event.worker.error), severity="error", title="memtui")

    @work(thread=True, exit_on_error=False, exclusive=True, group="doctor")
    def check_health(self) -> None:
        """The doctor's offline checks, for the line that says when one fails."""
        from tui.app.screens.doctor import run_doctor
        text = self.store.index_text if self.store is not None else None
        post_unless_replaced(self, DoctorDone(run_doctor(self.app, str(self.path), self.project,
                                                         index_text=text)))

    def on_screen_resume(self) -> None:
        """Back from a run, a history or the doctor: what changed no file of the store (a
        lock's hour, the settings) may have changed the doctor's answer."""
        if self.store is not None:
            self.check_health()

    def on_doctor_done(self, message: DoctorDone) -> None:
        failed = message.report.failed
        banner = self.query_one("#doctor-banner", Static)
        banner.set_class(not failed, "hidden")
        if failed:  # one line at 80 columns
            names = [check.id for check in failed]
            shown = ", ".join(names[:2]) + (f", +{len(names) - 2}" if len(names) > 2 else "")
            banner.update(f"Doctor: {len(names)} failed ({shown}) · w shows why and the fix")

    def action_doctor(self) -> None:
        from tui.app.screens.doctor import DoctorScreen

        self.app.push_screen(DoctorScreen(str(self.path), self.project))

    # --- live refresh ---------------------------------------------------------------------

    @work(thread=True, exit_on_error=False, group=WATCH_GROUP)
    def watch_disk(self) -> None:
        worker = get_current_worker()
        while not worker.cancelled_event.wait(POLL_SECONDS):
            current = signature(self.path)
            if current != self.disk_signature:
                self.post_message(StoreChangedOnDisk(current))
            # The holder's exit, or the lock's hour running out, changes no file.
            elif (store := self.store) is not None and store.lock.exists \
                    and store.lock.held() != self.lock_shown_held:
                self.post_message(LockLapsed())

    def on_store_changed_on_disk(self, message: StoreChangedOnDisk) -> None:
        if message.signature == self.disk_signature:
            return
        self.disk_signature = message.signature
        if self.busy:
            if not self.reload_pending and not self.writing:
                self.notify("Store changed on disk; it will reload when you are done.",
                            severity="warning")
            self.reload_pending = True
            return
        self.reread()

    def reread(self) -> None:
        """Read the store again after a change on disk: never while a read runs, and after
        a rest as long as the last read took, so a store written faster than it is read
        (10,000 memories: 2 s) takes at most half the app's time."""
        if self.reads_running:
            self.reread_wanted = True
            return
        rest = self.read_done + self.read_seconds - time.monotonic()
        if rest <= 0 or not os.path.isdir(self.path):  # a store gone costs nothing to read
            self.load()
        elif self.reread_timer is None:
            self.reread_timer = self.set_timer(rest, self.reread_after_rest)

    def reread_after_rest(self) -> None:
        self.reread_timer = None
        self.reread()

    def on_store_read(self, message: StoreRead) -> None:
        self.read_seconds, self.read_done = message.seconds, time.monotonic()
        if self.reread_wanted and not self.reads_running:
            self.reread_wanted = False
            self.reread()

    def on_lock_lapsed(self) -> None:
        if self.store is not None:
            self.show_lock(self.store)

    def done_busy(self) -> None:
        self.busy = False
        if self.reload_pending:
            self.reload_pending = False
            self.load()

    # --- table and preview ----------------------------------------------------------------

    def refresh_table(self) -> None:
        self.show_rows()

    def show_rows(self, place: Place | None = None) -> None:
        """The rows the filter lets through; `place`: where the cursor was among the rows
        before a reload (a memory archived from the table leaves the cursor on the next)."""
        query = self.query_one("#memory-filter", Input).value
        table = self.query_one("#memory-table", VirtualTable)
        if self.store is None:
            empty = ""
        elif query:
            empty = f"No memory matches “{query}”."
        elif not os.path.isdir(self.path):
            empty = "The store no longer exists (see above)."
        else:
            empty = "No memories in this store yet."
        table.set_rows(filter_rows(self.rows, query), empty, place)
        table.set_marked(self.marked)
        self.preview_soon()

    def highlighted_row(self) -> MemoryRow | None:
        return self.query_one("#memory-table", VirtualTable).highlighted

    @on(Input.Submitted, "#memory-filter")
    def filter_done(self) -> None:
        self.query_one("#memory-table").focus()

    @on(VirtualTable.Highlighted, "#memory-table")
    def row_highlighted(self) -> None:
        self.show_preview()

    def preview_soon(self) -> None:
        """Render the preview once typing pauses: Markdown is the slowest part of a keystroke."""
        if self.preview_timer is not None:
            self.preview_timer.stop()
        self.preview_timer = self.set_timer(PREVIEW_PAUSE, self.show_preview)

    def show_preview(self) -> None:
        self.preview_timer = None
        row = self.highlighted_row()
        title = self.query_one("#preview-title", Static)
        markdown = self.query_one("#preview-markdown", Markdown)
        raw = self.query_one("#preview-raw", Static)
        memory = self.store.memory(row.file) if (self.store and row and row.file) else None
        if row is None:
            title.update("")
            markdown.update("")
            raw.update("")
            return
        if memory is None:
            title.update(Text(str(row.cells[2]), style="bold yellow"))
            markdown.update(f"{row.cells[4]}. Press **d** to remove dangling lines.")
            raw.update("")
            return
        title.update(Text.assemble(
            (visible(memory.file), "bold"), "  ", (visible(self.reach(memory)), "dim"),
            (visible(memory.description), "italic"),
        ))
        if memory.error:
            markdown.update(f"*{visible(memory.file)} {memory.error}.*")
        else:
            markdown.update(visible(memory.body))
        raw.update(Text(visible(memory.text)))
        markdown.set_class(self.raw, "hidden")
        raw.set_class(not self.raw, "hidden")

    def reach(self, memory: Memory) -> str:
        """How Claude reaches a memory, when not through an index line."""
        status = self.statuses.get(memory.file)
        if memory.is_log:
            return "daily log, never indexed  "
        if status is not None and status.linked_from:
            return f"linked from {status.linked_from}  "
        return ""

    # --- simple actions -------------------------------------------------------------------

    def action_back(self) -> None:
        """Leave a filter or query input (so 1-4 switch tabs again), else go back."""
        field = self.focused
        if field is None or not isinstance(field, Input):
            self.app.pop_screen()
        elif field.id == "memory-filter":
            field.value = ""
            self.query_one("#memory-table").focus()
        else:
            self.query_one("#recall-view VerticalScroll").focus()

    def action_start_filter(self) -> None:
        self.action_show_tab("memories")
        self.query_one("#memory-filter", Input).focus()

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#store-tabs", TabbedContent).active = tab
        focus = {"memories": "#memory-table", "index": "#index-view",
                 "findings": "#findings-table", "recall": "#recall-query"}[tab]
        self.query_one(focus).focus()

    def action_toggle_raw(self) -> None:
        self.raw = not self.raw
        self.show_preview()

    def action_mark(self) -> None:
        if self.tab == "findings":
            self.findings_view.toggle_mark()
            return
        row = self.highlighted_row()
        if row is None:
            return
        self.marked.symmetric_difference_update({row.key})
        table = self.query_one("#memory-table", VirtualTable)
        table.set_marked(self.marked)
        table.action_cursor_down()

    # --- curation -------------------------------------------------------------------------
    # On the Findings tab a key acts on the highlighted finding, or on the marked ones; on
    # the other tabs on the highlighted memory, or on the marked ones.

    def chosen_findings(self, kinds: tuple[str, ...], fix: str) -> list[Finding] | None:
        """The chosen findings of `kinds`, or None (and why) when there is none."""
        chosen = [f for f in self.findings_view.chosen() if f.kind in kinds]
        if not chosen:
            named = " and ".join([", ".join(kinds[:-1]), kinds[-1]] if len(kinds) > 1 else kinds)
            self.notify(f"{fix} fixes {named} findings: highlight one, or mark several with "
                        "space.", severity="warning")
            return None
        return chosen

    def is_memory(self, file: str | None) -> bool:
        return bool(file) and self.store is not None and self.store.memory(file) is not None

    def selected_files(self) -> list[str]:
        """The marked memories, else the highlighted one (on the Findings tab: of the
        marked findings, else of the highlighted one; on the Index tab, where marks are
        not shown: the cursor line's)."""
        if self.tab == "findings":
            files = (f.file for f in self.findings_view.chosen())
            return list(dict.fromkeys(f for f in files if self.is_memory(f)))
        if self.tab == "index":
            entry = self.index_entry()
            return [entry] if entry else []
        marked = [row.file for row in self.rows if row.key in self.marked and row.file]
        if marked:
            return marked
        row = self.highlighted_row()
        return [row.file] if row and row.file else []

    def highlighted_file(self) -> str | None:
        """The highlighted memory (on the Findings tab: the highlighted finding's; on the
        Index tab: the one whose entry is the cursor line)."""
        if self.tab == "findings":
            finding = self.findings_view.highlighted
            return finding.file if finding and self.is_memory(finding.file) else None
        if self.tab == "index":
            return self.index_entry()
        row = self.highlighted_row()
        return row.file if row else None

    def index_view(self) -> IndexView:
        """The index view in use: team/MEMORY.md's when it has focus."""
        focused = self.focused
        return focused if isinstance(focused, IndexView) else self.query_one("#index-view",
                                                                             IndexView)

    def index_entry(self) -> str | None:
        """The memory whose entry (its first line in the index) is under the cursor."""
        view = self.index_view()
        line = view.highlighted
        if line is None:
            return None
        return next((file for file, status in self.statuses.items()
                     if status.index_line == line.number and status.index_file == view.file),
                    None)

    def writable(self) -> bool:
        if self.store is None:
            return False
        if not os.path.isdir(self.path):
            self.notify(self.gone_sentence(), severity="error")
            return False
        if read_only := self.read_only_sentence():
            self.notify(read_only, severity="error")
            return False
        # The lock as it is now: the store read last may be from while a dream held it.
        if read_lock(self.path).held():
            self.notify("The store is read-only while a consolidation holds its lock.",
                        severity="warning")
            return False
        return True

    def action_relink(self) -> None:
        if not self.writable():
            return
        if self.tab == "findings":
            chosen = self.chosen_findings(RELINKABLE_KINDS, "r")
            if chosen is None:
                return
            files = sorted({f.file for f in chosen if f.file})
        else:
            orphans = {row.file for row in self.rows if row.status in ORPHAN_STATUSES}
            # A memory another memory links is indexed only when asked for by selecting it.
            relinkable = {row.file for row in self.rows if row.status in RELINKABLE_STATUSES}
            files = [f for f in self.selected_files() if f in relinkable] or sorted(orphans)
        self.relink(files)

    def relink_all(self) -> None:
        if self.writable():
            self.relink(sorted(row.file for row in self.rows
                               if row.status in ORPHAN_STATUSES and row.file))

    def relink(self, files: list[str]) -> None:
        if not files:
            self.notify("No orphans: every memory is linked inside the cut.")
            return
        def in_hubs(curate, store):
            from tui.memory.relink_hubs import plan_relink_in_hubs

            return plan_relink_in_hubs(store, files)

        from tui.memory.curate import GROUP_IN_HUBS

        self.propose(lambda curate, store: curate.plan_relink(store, files),
                     {GROUP_IN_HUBS: in_hubs})

    def action_remove_dangling(self) -> None:
        if not self.writable():
            return
        if self.tab != "findings":
            self.remove_all_dangling()
        elif (chosen := self.chosen_findings(("dangling",), "d")) is not None:
            lines = lines_by_index(chosen)
            self.propose(lambda curate, store: curate.plan_remove_dangling(store, lines))

    def remove_all_dangling(self) -> None:
        if self.writable():
            self.propose(lambda curate, store: curate.plan_remove_dangling(store))

    def action_shorten(self) -> None:
        if not self.writable():
            return
        if self.tab != "findings":
            self.shorten_all()
            return
        chosen = self.chosen_findings(("long_index_line", "index_over_limit"), "S")
        if chosen is None:
            return
        # Over the limit as a whole: every long line is a candidate.
        lines = None if any(f.kind == "index_over_limit" for f in chosen) else \
            lines_by_index(chosen)
        self.propose(lambda curate, store: curate.plan_shorten_lines(store, lines=lines))

    def shorten_all(self) -> None:
        if self.writable():
            self.propose(lambda curate, store: curate.plan_shorten_lines(store))

    def action_repath(self) -> None:
        """Rewrite renamed paths: of the chosen stale_path findings' memories on the
        Findings tab, of the whole store elsewhere."""
        if not self.writable():
            return
        if self.tab != "findings":
            self.repath_all()
        elif (chosen := self.chosen_findings(("stale_path",), "p")) is not None:
            self.repath(sorted({f.file for f in chosen if f.file}))

    def repath_all(self) -> None:
        if self.writable():
            self.repath(None)

    def repath(self, files: list[str] | None) -> None:
        from tui.memory.stale_paths import plan_repath

        checkout = self.project.key_path
        self.propose(lambda curate, store: plan_repath(store, checkout, files), diffs=True)

    def action_move_out(self) -> None:
        """Move the highlighted memory's index line to the end, past the cut, to make room."""
        file = self.highlighted_file()
        if not self.writable() or self.store is None:
            return
        if file is None:
            if self.tab == "index" and (line := self.index_view().highlighted) is not None:
                self.notify(f"Line {line.number} is no memory's entry: put the cursor on "
                            "the entry to move past the cut.", severity="warning")
            return
        status = self.statuses.get(file)
        if status is not None and status.indexed and not status.visible:
            self.notify(f"{file} is already past the cut: moving its index line makes no room.",
                        severity="warning")
            return
        end = len(self.store.index.raw_lines) + 1
        self.propose(lambda curate, store: curate.plan_move_entry(store, file, end))

    def action_redact(self) -> None:
        """Redact credentials: in the store's files, then in every copy memtui keeps."""
        from tui.history.redaction import as_redaction

        if not self.writable():
            return
        if self.tab != "findings":
            self.propose(lambda curate, store: as_redaction(curate.plan_redact_secrets(store)))
        elif (chosen := self.chosen_findings(("secret",), "X")) is not None:
            files = sorted({f.file for f in chosen if f.file})
            self.propose(lambda curate, store: as_redaction(
                curate.plan_redact_secrets(store, files)))

    def action_keep_side(self) -> None:
        """Resolve the sync conflicts in the chosen memories, first text kept; the confirm
        screen offers the other choices, each previewed the same way."""
        from tui.memory.curate import KEEP_PHRASES

        if not self.writable():
            return
        if self.tab == "findings":
            chosen = self.chosen_findings(("sync_conflict",), "K")
            if chosen is None:
                return
            files = sorted({f.file for f in chosen if f.file})
        elif not (files := self.needs_selection()):
            return

        def keeping(keep: str):
            return lambda curate, store: curate.plan_keep_sync_side(store, files, keep)

        self.propose(keeping("first"),
                     {phrase: keeping(keep) for keep, phrase in KEEP_PHRASES.items()})

    def rescued(self, findings: list) -> list:
        """A stranded store's findings, told it is rescued once every memory is home."""
        import shlex

        from tui.memory.finding import rescued_findings
        from tui.memory.rescue import finished_rescue

        rescue = finished_rescue(self.path, self.app.home, self.app.env, self.app.settings_file)
        if rescue is None:
            return findings
        return rescued_findings(findings, str(rescue.live), rescue.memories,
                                shlex.quote(str(self.path)))

    def action_rescue(self) -> None:
        """Bring a stranded store's memories into the store its project's sessions use:
        the plan is made in a worker (it reads the sessions), shown, then applied there."""
        if self.store is None or self.busy:
            return
        if not os.path.isdir(self.path):
            self.notify(self.gone_sentence(), severity="error")
            return
        self.busy = True
        self.plan_rescue()

    @work(thread=True, exit_on_error=False, group="write")
    def plan_rescue(self) -> None:
        rescue = curation.prepare_rescue(self.path, self.app.home, self.app.env,
                                         self.app.settings_file)
        self.app.call_from_thread(self.confirm_rescue, rescue)

    def confirm_rescue(self, rescue) -> None:
        if not isinstance(rescue, str) and rescue.done:
            # The old store is done: what is left to offer is to archive it.
            from dataclasses import replace

            from tui.memory.rescue import plan_retire
            from tui.render import condense_paths

            def retire(curate, store):
                plan = plan_retire(store, rescue)
                return replace(plan, summary=[condense_paths(s) for s in plan.summary])

            self.done_busy()
            self.propose(retire)
            return
        if isinstance(rescue, str) or not rescue.plan.changes:
            from tui.render import condense_paths

            said = rescue if isinstance(rescue, str) else " ".join(rescue.plan.summary[1:])
            self.notify(condense_paths(said) or "Nothing to rescue.",
                        severity="warning" if isinstance(rescue, str) else "information")
            self.done_busy()
            return
        from tui.app.screens.confirm import APPLY, ConfirmScreen

        def decided(choice: str | None) -> None:
            if choice == APPLY:
                self.apply_rescue(rescue)
            else:
                self.done_busy()

        self.app.push_screen(ConfirmScreen(curation.rescue_confirmation(rescue)), decided)

    @work(thread=True, exit_on_error=False, group="write")
    def apply_rescue(self, rescue) -> None:
        self.writing = True
        self.post_message(ChangeApplied(*curation.apply_rescue(
            rescue, self.app.home, self.app.env, self.app.settings_file)))

    def action_archive(self) -> None:
        if self.writable() and (files := self.needs_selection()):
            self.propose(lambda curate, store: curate.plan_archive(store, files))

    def action_delete(self) -> None:
        if self.writable() and (files := self.needs_selection()):
            self.propose(lambda curate, store: curate.plan_delete(store, files))

    def action_copy_to(self) -> None:
        self.transfer(move=False)

    def action_move_to(self) -> None:
        self.transfer(move=True)

    def transfer(self, move: bool) -> None:
        """Copy (or move) the chosen memories to a store the user picks: a copy needs only
        the source there, a move needs it writable."""
        from tui.app.screens.transfer import TransferFlow

        if self.store is None or (move and not self.writable()):
            return
        if not os.path.isdir(self.path):
            self.notify(self.gone_sentence(), severity="error")
            return
        chosen = self.needs_selection()
        files = [file for file in chosen if self.is_memory(file)]
        if chosen and not files:
            self.notify(f"{visible(chosen[0])} is no memory in this store (a dangling index "
                        "line): there is nothing to carry.", severity="warning")
        elif files:
            TransferFlow(self, files, move).start()

    def needs_selection(self) -> list[str]:
        files = self.selected_files()
        if not files:
            what = "a finding about a memory" if self.tab == "findings" else "a memory"
            self.notify(f"Highlight or mark {what} first.", severity="warning")
        return files

    def propose(self, make_plan, choices: dict | None = None, diffs: bool = False) -> None:
        """Plan a change, confirm it with the user, then apply it in a worker. `choices`:
        the plans the user may pick instead, by the option that names each; `diffs`: show
        the diff of each file below the plan's summary."""
        plan = curation.make_plan(make_plan, self.store)
        basis = self.loaded_signature
        if isinstance(plan, str):
            self.notify(plan, severity="warning")
            return
        if not plan.changes:
            self.notify(" ".join(plan.summary) or "Nothing to change.")
            return
        from tui.app.screens.confirm import APPLY, ConfirmScreen

        def decided(choice: str | None) -> None:
            if choice == APPLY:
                self.apply(plan, make_plan, basis)
                return
            self.done_busy()
            if choice is None:
                return
            follow_up = (choices or {}).get(choice) or curation.option_plan(choice)
            if follow_up is None:
                self.notify("On the Index tab (2), put the cursor on the entry to move "
                            "past the cut and press m; then relink again.")
            else:
                self.propose(follow_up, choices)

        self.busy = True
        shown = curation.diff_confirmation(plan) if diffs else plan
        self.app.push_screen(ConfirmScreen(shown), decided)

    @work(thread=True, exit_on_error=False, group="write")
    def apply(self, plan, make_plan, basis) -> None:
        """Apply `plan`, made by `make_plan` from the store as `basis` found it. Claude Code
        may have written the store while the plan was on screen: then it is made again from
        the store as it is now, and applied only if it is still the change the user saw."""
        self.writing = True
        self.busy = True
        if signature(self.path) != basis and not curation.still_planned(
                self.path, make_plan, plan):
            self.post_message(ChangeApplied(curation.STALE_PLAN, "error"))
            return
        self.post_message(ChangeApplied(*curation.apply_plan(self.path, plan)))

    def on_change_applied(self, message: ChangeApplied) -> None:
        self.notify(message.text, severity=message.severity)
        self.marked.clear()
        self.findings_view.clear_marks()
        self.busy = self.writing = False
        self.reload_pending = False
        self.load()

    def action_dream(self) -> None:
        """Consolidate this store in four phases on a staging copy, then review the change set."""
        from tui.agents.dream import PHASES
        from tui.app.runs import dream_starter, pick_engine
        from tui.app.screens.run import RunScreen, installed_name

        running = installed_name("dream", self.path)
        if self.app.is_screen_installed(running):  # a dream sent to the background
            self.app.push_screen(running)
            return
        if not self.writable():
            return
        engine = pick_engine(self.app.env)
        if isinstance(engine, str):
            self.notify(engine, severity="error")
            return
        start = dream_starter(self.project, self.app.home, engine)
        self.app.push_screen(RunScreen("dream", str(self.title), engine, start, PHASES,
                                       self.path))

    def action_extract(self) -> None:
        """Pick a session, extract what it taught on a staging copy, then review the change set."""
        from tui.app.screens.run import installed_name
        from tui.app.screens.sessions import SessionPicker

        running = installed_name("extract", self.path)
        if self.app.is_screen_installed(running):  # an extraction sent to the background
            self.app.push_screen(running)
        elif self.writable():
            self.app.push_screen(SessionPicker(self.project), self.start_extract)

    def start_extract(self, session_id: str | None) -> None:
        from tui.agents.extract import PHASES
        from tui.app.runs import extract_starter, pick_engine
        from tui.app.screens.run import RunScreen

        if session_id is None:
            return
        engine = pick_engine(self.app.env)
        if isinstance(engine, str):
            self.notify(engine, severity="error")
            return
        self.app.push_screen(RunScreen(
            "extract", f"session {session_id[:8]} of {self.title}", engine,
            extract_starter(session_id, self.app, engine), PHASES, self.path,
            force=extract_starter(session_id, self.app, engine, force=True),
            second_pass=lambda topics, forced: extract_starter(
                session_id, self.app, engine, force=forced, focus=topics)))

    def action_history(self) -> None:
        file = self.highlighted_file()
        if file is None:
            self.notify("Highlight a memory file first.", severity="warning")
            return
        from tui.app.screens.history import HistoryScreen

        self.app.push_screen(HistoryScreen(self.project, file))

    def action_overwrites(self) -> None:
        from tui.app.screens.overwrites import OverwritesScreen

        self.app.push_screen(OverwritesScreen(self.project))

    def action_undo(self) -> None:
        if self.writable():
            self.busy = True
            self.undo()

    @work(thread=True, exit_on_error=False, group="write")
    def undo(self) -> None:
        self.writing = True
        self.post_message(ChangeApplied(*curation.undo(self.path)))

    def action_redo(self) -> None:
        if self.writable():
            self.busy = True
            self.redo()

    @work(thread=True, exit_on_error=False, group="write")
    def redo(self) -> None:
        self.writing = True
        self.post_message(ChangeApplied(*curation.redo(self.path)))

    def action_edit(self) -> None:
        file = self.highlighted_file()
        if self.tab == "findings" and (finding := self.findings_view.highlighted) is not None \
                and finding.file == "MEMORY.md":
            file = finding.file  # a long or broken index line: edited by hand
        elif self.tab == "index" and file is None and self.index_view().highlighted:
            file = self.index_view().file  # a heading, a note: the index itself
        if not self.writable() or file is None:
            return
        if curation.edits_in_app(self.app):
            self.edit_in_app(file)
            return
        self.busy = True
        result = curation.edit(self.app, self.path, file)
        if result is None:
            self.done_busy()
        elif isinstance(result, curation.EditMerged):  # it met a change on disk
            self.open_editor(file, result.on_disk, result)
        else:
            self.post_message(ChangeApplied(*result))

    def edit_in_app(self, file: str) -> None:
        text = curation.read_for_editing(self.path, file)
        if isinstance(text, tuple):
            self.notify(text[0], severity=text[1])
            return
        self.busy = True
        self.open_editor(file, text)

    def open_editor(self, file: str, text: str | None,
                    merged: curation.EditMerged | None = None) -> None:
        from tui.app.screens.editor import EditorScreen

        def edited(outcome: curation.Outcome | None) -> None:
            if outcome is None:
                self.done_busy()
            else:
                self.post_message(ChangeApplied(*outcome))

        self.app.push_screen(EditorScreen(self.path, file, text, str(self.title), merged),
                             edited)
