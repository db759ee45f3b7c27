"""The projects screen: one row per store, found by a discovery worker."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from tui.app.commands import PaletteCommand
from tui.app.disk import WATCH_GROUP, HomeSignature, home_signature
from tui.app.messages import DemoBuilt, ProjectsScanned, post_unless_replaced
from tui.app.textual_leaks import collect_discarded
from tui.app.widgets.app_header import AppHeader
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.virtual_table import VirtualTable
from tui.claude.discovery import Project, discover
from tui.collector import collector_paused
from tui.render import PROJECT_STATUS_STYLES, age, condense, project_status
from tui.words import plural

if TYPE_CHECKING:  # the index columns are read after the first frame, and rapidfuzz filters
    from tui.app.screens.confirm import Confirmation
    from tui.app.summaries import StoreSummary

# (key, width); keys double as sort keys. At 80 columns the path, its status (`stranded`,
# `no store`: what most needs seeing), memories, index and orphans fit; the rest join them
# as room allows, once the path is whole. The columns but the path and the index narrow to
# their cells, the path takes the width they leave (the index keeps its width: its cells
# come after the rows).
COLUMNS = (
    ("path", 20), ("memories", 8), ("index", 23), ("orphans", 7), ("lost", 4),
    ("folders", 9), ("status", 13), ("last dream", 10), ("since", 5),
)
COLUMN_PRIORITY = ("path", "status", "memories", "index", "orphans", "lost", "folders",
                   "last dream", "since")
FITTED = ("memories", "orphans", "lost", "sync", "folders", "status", "last dream", "since")
SORTS = ("path", "memories", "index", "orphans", "lost", "since", "last dream")
# The headers wider than their numbers, shortened while a path is cut.
SHORT_LABELS = {"memories": "mem", "orphans": "orph", "last dream": "dream"}
SYNC_COLUMN = ("sync", 8)  # shown only once a sync remote is set (`memtui sync --remote`)
SYNC_STYLES = {"in sync": "dim", "-": "dim", "…": "dim", "conflict": "bold red"}
MEMORY_OVERRIDES = (
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_REMOTE_MEMORY_DIR",
    "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
)
FILTER_CUTOFF = 60
ROWS_PAINT_WAIT = 1.0  # seconds the index reads wait for the rows to be drawn, at most
PROGRESS_INTERVAL = 0.1  # seconds between progress bar updates during the scan
HOME_POLL_SECONDS = 2.0  # a few stats per project: a new session, memory, index, lock
NEW_NAMED = 3  # new projects named in the notification; the rest are counted


@dataclass
class LostUpdatesCounted(Message):
    counts: dict[Path, int]  # per store; -1 where counting failed


@dataclass
class HomeChanged(Message):
    before: HomeSignature
    now: HomeSignature


@dataclass
class SyncStatusReady(Message):
    status: object  # tui.sync.status.SyncStatus


@dataclass
class SyncPreviewReady(Message):
    project: Project
    status: object | None  # tui.sync.status.SyncStatus, None when it failed
    error: str = ""


@dataclass
class SyncDone(Message):
    text: str
    severity: str = "information"


def demo_plan(home: Path) -> Confirmation:
    from tui.app.screens.confirm import Confirmation

    return Confirmation("Switch to a demo config home?", [
        f"memtui builds a demo in a new temporary folder and shows it instead of "
        f"{condense(str(home))}.",
        f"Nothing in {condense(str(home))} changes; start memtui again to come back to it.",
    ], apply_label="Open the demo (y)")


def with_sync_column(columns: tuple[tuple[str, int], ...]) -> tuple[tuple[str, int], ...]:
    at = [key for key, _ in columns].index("lost") + 1
    return (*columns[:at], SYNC_COLUMN, *columns[at:])


def sync_priority(priority: tuple[str, ...]) -> tuple[str, ...]:
    at = priority.index("lost") + 1
    return (*priority[:at], SYNC_COLUMN[0], *priority[at:])


def sync_cell(word: str | None) -> Text:
    word = "…" if word is None else word
    return Text(word, style=SYNC_STYLES.get(word, "bold"))


@dataclass(frozen=True)
class ProjectRow:
    key: str
    project: Project
    path: str  # as the first column shows it
    cells: tuple[object, ...]
    sort_values: dict[str, object]

    @cached_property
    def haystack(self) -> str:
        """What the filter matches, made at its first use."""
        from rapidfuzz import utils

        return utils.default_process(f"{self.path} {self.project.name}")


def index_gauge(summary: StoreSummary | None) -> Text:
    return Text("no index", style="dim") if summary is None else summary.gauge()


def folders_cell(project: Project) -> str:
    worktrees = sum(1 for f in project.transcript_folders if f.role == "worktree")
    count = str(len(project.transcript_folders))
    return f"{count} ({worktrees} wt)" if worktrees else count


def lost_cell(project: Project, lost: int | None) -> Text:
    """Lost updates of the store: "…" while they are being counted, "?" when counting failed."""
    if project.store is None or not project.store_exists:
        return Text("-", style="dim")
    if lost is None:
        return Text("…", style="dim")
    if lost < 0:
        return Text("?", style="dim")
    return Text(str(lost), style="bold red") if lost else Text("0", style="dim")


def project_row(project: Project, summary: StoreSummary | None, now: float | None,
                lost: int | None = None, sync: Text | None = None,
                summary_pending: bool = False, rescued: bool = False) -> ProjectRow:
    """`sync`: the sync column's cell, when the screen shows one; `summary_pending`: the
    store's index is still being read ("…" in its columns, and in a stranded store's status:
    whether its rescue is done is read with it); `rescued`: a stranded store's rescue is
    done."""
    path = condense(project.key_path or (project.paths[0] if project.paths else project.name))
    since = project.sessions_since(project.last_consolidated)
    orphans = summary.orphans if summary else 0
    fill = summary.fill if summary else 0.0
    status = project_status(project, rescued)
    status_cell = (Text("…", style="dim") if summary_pending and project.stranded else
                   Text(status, style=PROJECT_STATUS_STYLES[status] if status != "ok" else "dim"))
    cells = (
        Text(path),
        str(project.memories) if project.store else "-",
        Text("…", style="dim") if summary_pending else index_gauge(summary),
        Text("…", style="dim") if summary_pending else
        Text(str(orphans), style="bold red") if orphans else Text("0", style="dim"),
        lost_cell(project, lost),
        folders_cell(project),
        status_cell,
        age(project.last_consolidated, now),
        str(since),
    )
    if sync is not None:
        cells = (*cells[:5], sync, *cells[5:])
    sort_values = {
        "path": path.lower(),
        "memories": -project.memories,
        "index": -fill,
        "orphans": -orphans,
        "lost": -(lost or 0),
        "since": -since,
        "last dream": -(project.last_consolidated or 0.0),
    }
    key = str(project.store) if project.store else f"folder:{project.name}"
    return ProjectRow(key, project, path, cells, sort_values)


class ProjectTable(VirtualTable):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Open", show=False, id="projects.open"),
    ]


class ProjectsScreen(Screen[None]):
    FOOTER_KEYS: ClassVar[tuple[str, ...]] = (  # most used first
        "projects.open", "projects.search", "projects.filter", "projects.doctor",
        "projects.sort",
        "projects.rescan", "projects.demo", "app.quit",
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "app.search", "Search", id="projects.search",
                tooltip="Search the memories of every project"),
        Binding("f", "start_filter", "Filter", id="projects.filter"),
        Binding("s", "cycle_sort", "Sort", id="projects.sort"),
        Binding("f5", "rescan", "Rescan", id="projects.rescan"),
        Binding("d", "build_demo", "Demo", id="projects.demo"),
        Binding("w", "doctor", "Doctor", id="projects.doctor",
                tooltip="Why memory is not working for the highlighted project"),
        Binding("y", "sync", "Sync", id="projects.sync"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="projects.clear_filter"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[ProjectRow] = []
        self.sort_key = "path"
        self.scanned: ProjectsScanned | None = None
        self.lost_counts: dict[Path, int] = {}
        self.sync_remote, self.sync_settings = _sync_settings()
        self.sync_words: dict[Path, str] = {}
        self.opened_store: Path | None = None  # the store screen open above this one
        self.home_seen: HomeSignature | None = None  # the home as the rows show it
        self.rows_painted = threading.Event()  # the scan's first rows are on the terminal

    def footer_keys(self) -> tuple[str, ...]:
        """Sync joins the footer once a sync remote is set."""
        if not self.sync_remote:
            return self.FOOTER_KEYS
        return (*self.FOOTER_KEYS[:4], "projects.sync", *self.FOOTER_KEYS[4:])

    def compose(self) -> ComposeResult:
        yield AppHeader(show_clock=False)
        yield Static("Looking for Claude Code projects…", id="scan-status")
        yield ProgressBar(id="scan-progress", show_eta=False)
        yield Input(placeholder="filter projects (fuzzy)", id="project-filter", classes="hidden")
        columns = with_sync_column(COLUMNS) if self.sync_remote else COLUMNS
        priority = sync_priority(COLUMN_PRIORITY) if self.sync_remote else COLUMN_PRIORITY
        yield ProjectTable(columns, stretch="path", labels={"path": "project"}, keep_end={"path"},
                           priority=priority, fit=FITTED, whole=("path", "lost"),
                           short_labels=SHORT_LABELS, id="projects")
        yield Static(id="empty", classes="hidden")
        yield KeyFooter()

    def on_mount(self) -> None:
        # A watcher, not Input.Changed: the rows change in the same frame as the typed letter.
        self.watch(self.query_one("#project-filter", Input), "value", self.filter_changed,
                   init=False)
        self.scan()
        self.watch_home()

    def palette_commands(self) -> list[PaletteCommand]:
        return [
            PaletteCommand("projects: rescan", "Look for projects again", self.action_rescan),
            PaletteCommand("projects: cycle sort", "Sort by the next column",
                           self.action_cycle_sort),
            PaletteCommand("projects: build demo", "Build a demo config home and open it",
                           self.action_build_demo),
            PaletteCommand("projects: doctor", "Why memory is not working for the highlighted "
                           "project", self.action_doctor),
        ]

    # --- scanning -------------------------------------------------------------------------

    @work(thread=True, exit_on_error=False, exclusive=True, group="scan")
    def scan(self) -> None:
        """Find the projects, then read their stores for the index columns.

        The first scan takes the discovery begun before Textual loaded. It is taken here, not
        at mount: while this thread unpickles it, the UI thread lays the screen out, and the
        rows join the first frame or the next (on 1,000 projects, ~50 ms sooner than rows
        laid out with the rest of the screen)."""
        worker = get_current_worker()
        app = self.app
        if self.scanned is not None:  # a rescan: the last scan's discarded rows go now
            collect_discarded()
        if found := app.take_prefetched():
            inventory, self.home_seen = found
        else:
            inventory = discover(app.home, app.env, app.settings_file)
            self.home_seen = home_signature(app.home, inventory.projects)
        # The rows first: reading every store's index takes longer than finding them.
        self.rows_painted.clear()
        post_unless_replaced(self, ProjectsScanned(inventory, None))
        # Read while the rows are drawn, the indexes would hold the UI thread back (the GIL).
        self.rows_painted.wait(ROWS_PAINT_WAIT)
        from tui.app.summaries import summarize

        stores = [p.store for p in inventory.projects if p.store and p.store_exists]
        progress = self.query_one("#scan-progress", ProgressBar)
        app.call_from_thread(progress.update, total=len(stores) or 1, progress=0)
        summaries = {}
        shown = time.monotonic()
        with collector_paused():  # summaries hold every store's parsed index
            for done, store in enumerate(stores, start=1):
                if worker.is_cancelled:
                    return
                summaries[store] = summarize(store)
                # A call from the thread waits for the UI: a few per second, not one per store.
                if time.monotonic() - shown > PROGRESS_INTERVAL:
                    app.call_from_thread(progress.update, progress=done)
                    shown = time.monotonic()
        post_unless_replaced(self, ProjectsScanned(inventory, summaries, self.rescued(inventory)))
        # After the table is up: the first count of a big history reads every transcript.
        from tui.history.recovery import lost_update_counts

        post_unless_replaced(self, LostUpdatesCounted(lost_update_counts(inventory.projects)))
        if self.sync_remote:
            from tui.sync.engine import SyncFailed
            from tui.sync.remote import SyncBusy
            from tui.sync.status import sync_status

            try:
                status = sync_status(self.sync_remote, self.sync_targets(inventory.projects))
            except (SyncFailed, SyncBusy, OSError):
                return  # the column keeps "…"; `memtui sync` says what is wrong
            post_unless_replaced(self, SyncStatusReady(status))

    @work(thread=True, exit_on_error=False, group=WATCH_GROUP)
    def watch_home(self) -> None:
        """Claude Code writing the home while this screen is shown: the rows follow. Under a
        store screen it rests (that screen watches its store); coming back catches up."""
        worker = get_current_worker()
        while not worker.cancelled_event.wait(HOME_POLL_SECONDS):
            seen, scanned = self.home_seen, self.scanned
            if seen is None or scanned is None or self.app.screen is not self:
                continue
            now = home_signature(self.app.home, scanned.inventory.projects)
            if now != seen:
                self.home_seen = now
                post_unless_replaced(self, HomeChanged(seen, now))

    def on_home_changed(self, message: HomeChanged) -> None:
        before, now = message.before, message.now
        if self.scan_under_way():
            # A refresh would replace it (one scan at a time), losing what only a full scan
            # gives (the sync column, the lost counts); it may have read a store before this
            # change, so the watcher is left to see the change again once it is done.
            self.home_seen = before
            return
        changed = {store for store, stamps in now.stores.items()
                   if before.stores.get(store) != stamps}
        self.refresh_home(changed, recount=(before.folders, before.checkouts)
                          != (now.folders, now.checkouts))

    @work(thread=True, exit_on_error=False, exclusive=True, group="scan")
    def refresh_home(self, changed: set[Path], recount: bool) -> None:
        """The rows again, quietly: only the stores in `changed` (or new) are read again,
        and their lost updates counted again (every store's when a session or a checkout
        came or went)."""
        scanned = self.scanned
        if scanned is None or scanned.summaries is None:
            return  # a scan is still running: it reads everything anyway
        from tui.app.summaries import summarize

        collect_discarded()
        app = self.app
        inventory = discover(app.home, app.env, app.settings_file)
        self.home_seen = home_signature(app.home, inventory.projects)
        summaries = {}
        with collector_paused():
            for project in inventory.projects:
                store = project.store
                if store is None or not project.store_exists:
                    continue
                known = scanned.summaries.get(store)
                summaries[store] = known if known and store not in changed else summarize(store)
        post_unless_replaced(self, ProjectsScanned(inventory, summaries, self.rescued(inventory)))
        from tui.history.recovery import lost_update_counts

        # A store written since may have lost lines back (a merge, Claude Code) or lose some:
        # it is counted again; every store when a session or a checkout came or went.
        counted = (inventory.projects if recount else
                   [project for project in inventory.projects if project.store in changed])
        if counted:
            post_unless_replaced(self, LostUpdatesCounted(lost_update_counts(counted)))

    def rescued(self, inventory) -> dict[Path, Path]:
        """The stranded stores whose rescue is done (read in the scan's thread)."""
        if not any(project.stranded for project in inventory.projects):
            return {}  # rescue.py loads the write path, which a home with none never needs
        from tui.memory.rescue import rescued_stores

        return rescued_stores(inventory.projects, self.app.home, self.app.env,
                              self.app.settings_file)

    def scan_under_way(self) -> bool:
        return any(worker.node is self and worker.name == "scan" and not worker.is_finished
                   for worker in self.workers)

    def sync_targets(self, projects):
        from tui.sync.engine import SyncTarget
        from tui.sync.identity import identity_of

        return [SyncTarget(p.store, identity_of(p.key_path, self.sync_settings.name_of(p.store),
                                                p.stranded_reason or None))
                for p in projects if p.store is not None and p.store_exists]

    def on_sync_status_ready(self, message: SyncStatusReady) -> None:
        from tui.sync.status import status_word

        self.sync_words = {store: status_word(project)
                           for store, project in message.status.projects.items()}
        if message.status.offline:
            self.sub_title = "sync: offline, showing the remote as last fetched"
        self.rows = self.build_rows()
        self.refresh_table()

    def on_projects_scanned(self, message: ProjectsScanned) -> None:
        before, self.scanned = self.scanned, message
        if before is not None and before.inventory is not message.inventory:
            self.announce_new(before.inventory.projects, message.inventory.projects)
        self.rows = self.build_rows()
        empty = self.query_one("#empty", Static)
        empty.set_class(bool(self.rows), "hidden")
        if not self.rows:
            empty.update(Text(self.empty_text()))
        if message.summaries is not None:  # the indexes are read: the rows are complete
            self.query_one("#scan-progress").add_class("hidden")
            self.refresh_table()
            self.read_for_search(message.inventory.projects)
            return
        self.lost_counts = {}
        self.sync_words = {}
        self.refresh_table()
        self.query_one("#projects").focus()
        self.call_after_refresh(self.rows_painted.set)

    @work(thread=True, exit_on_error=False, exclusive=True, group="search-index")
    def read_for_search(self, projects: list[Project]) -> None:
        """Every memory read for the search screen while this one is idle: its first
        keystroke then never waits for them (`tui.app.search_index`)."""
        worker = get_current_worker()
        index = self.app.search_index
        read = index.update(projects, lambda: worker.is_cancelled)
        if read is not None:
            index.keep_vocabulary(read)

    def announce_new(self, before: list[Project], now: list[Project]) -> None:
        known = {project.name for project in before}
        new = [condense(p.key_path or (p.paths[0] if p.paths else p.name))
               for p in now if p.name not in known]
        if new:
            more = f" and {len(new) - NEW_NAMED} more" if len(new) > NEW_NAMED else ""
            self.notify(f"New project: {', '.join(new[:NEW_NAMED])}{more}.")

    def build_rows(self) -> list[ProjectRow]:
        message = self.scanned
        if message is None:
            return []
        summaries = message.summaries or {}
        pending = message.summaries is None
        return [
            project_row(p, summaries.get(p.store) if p.store else None, self.app.now,
                        self.lost_counts.get(p.store) if p.store else None,
                        self.sync_cell_of(p) if self.sync_remote else None,
                        summary_pending=pending and bool(p.store and p.store_exists),
                        rescued=p.store in message.rescued)
            for p in message.inventory.projects
        ]

    def sync_cell_of(self, project: Project) -> Text:
        if project.store is None or not project.store_exists:
            return sync_cell("-")
        return sync_cell(self.sync_words.get(project.store))

    def on_lost_updates_counted(self, message: LostUpdatesCounted) -> None:
        self.lost_counts = {**self.lost_counts, **message.counts}  # a recount may be partial
        self.rows = self.build_rows()
        self.refresh_table()  # the cursor stays on the same project

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.query_one("#scan-progress").add_class("hidden")
            self.notify(f"Could not finish: {event.worker.error}", severity="error")

    def empty_text(self) -> str:
        app = self.app
        lines = [
            "No Claude Code projects here.",
            "",
            f"Looked in {condense(str(app.home))}/projects (the config home).",
        ]
        overrides = [f"{name}={app.env[name]}" for name in MEMORY_OVERRIDES if app.env.get(name)]
        if overrides:
            lines.append("Overrides in effect: " + ", ".join(overrides))
        if app.settings_file:
            lines.append(f"Settings file: {app.settings_file}")
        lines += ["", "Press d to build a demo config home and explore it."]
        return "\n".join(lines)

    # --- table ----------------------------------------------------------------------------

    def visible_rows(self) -> list[ProjectRow]:
        query = self.query_one("#project-filter", Input).value.strip()
        rows = self.rows
        if query:
            from rapidfuzz import fuzz, process, utils

            matches = process.extract(
                utils.default_process(query), [r.haystack for r in rows],
                scorer=fuzz.partial_ratio, score_cutoff=FILTER_CUTOFF, limit=None,
            )
            rows = [rows[i] for _, _, i in sorted(matches, key=lambda m: (-m[1], m[2]))]
            return rows
        return sorted(rows, key=lambda r: (r.sort_values[self.sort_key], r.sort_values["path"]))

    def refresh_table(self) -> None:
        query = self.query_one("#project-filter", Input).value.strip()
        empty = f"No project matches “{query}”." if query and self.rows else ""
        rows = self.visible_rows()
        self.query_one("#projects", ProjectTable).set_rows(rows, empty)
        self.sub_title = f"sorted by {self.sort_key}"
        if self.scanned is not None:  # while a filter is on: how many of them it shows
            shown = f"{len(rows):,} of " if query else ""
            self.query_one("#scan-status", Static).update(
                f"{shown}{plural(len(self.rows), 'project')} in {condense(str(self.app.home))}")

    def filter_changed(self) -> None:
        """A new query puts the cursor on its best match, not on the row it was on."""
        self.refresh_table()
        self.query_one("#projects", ProjectTable).move_cursor(0)

    @on(Input.Submitted, "#project-filter")
    def filter_done(self) -> None:
        self.query_one("#projects").focus()

    @on(ProjectTable.HeaderSelected, "#projects")
    def sort_by_header(self, event: ProjectTable.HeaderSelected) -> None:
        if event.column in SORTS:
            self.sort_key = event.column
            self.refresh_table()

    @on(ProjectTable.Selected, "#projects")
    def open_project(self, event: ProjectTable.Selected) -> None:
        row = event.row
        if row is None:
            return
        project = row.project
        if project.store is None or not project.store_exists:
            reason = project.note or "its sessions never wrote a memory"
            self.notify(f"{row.cells[0]} has no memory store: {reason}.", severity="warning")
            return
        from tui.app.screens.store import StoreScreen

        self.opened_store = project.store
        self.app.push_screen(StoreScreen(project))

    def on_screen_resume(self) -> None:
        """Back from a store (or any screen): what was repaired there, and what Claude Code
        wrote meanwhile, shows at once."""
        store, self.opened_store = self.opened_store, None
        seen, scanned = self.home_seen, self.scanned
        if seen is None or scanned is None or not scanned.summaries:
            return
        now = home_signature(self.app.home, scanned.inventory.projects)
        if store is not None or now != seen:
            self.home_seen = now
            changed = {s for s, stamps in now.stores.items() if seen.stores.get(s) != stamps}
            self.refresh_home(changed | ({store} if store else set()),
                              recount=(seen.folders, seen.checkouts)
                              != (now.folders, now.checkouts))

    # --- actions --------------------------------------------------------------------------

    def action_start_filter(self) -> None:
        field = self.query_one("#project-filter", Input)
        field.remove_class("hidden")
        field.focus()

    def action_clear_filter(self) -> None:
        field = self.query_one("#project-filter", Input)
        field.value = ""
        field.add_class("hidden")
        self.query_one("#projects").focus()

    def action_cycle_sort(self) -> None:
        self.sort_key = SORTS[(SORTS.index(self.sort_key) + 1) % len(SORTS)]
        self.refresh_table()

    def action_rescan(self) -> None:
        self.query_one("#scan-progress").remove_class("hidden")
        self.scan()

    def action_doctor(self) -> None:
        from tui.app.screens.doctor import DoctorScreen, doctor_target

        row = self.query_one("#projects", ProjectTable).highlighted
        target = doctor_target(row.project) if row is not None else None
        if target is None:
            self.notify("Highlight a project with a path or a store first.", severity="warning")
            return
        self.app.push_screen(DoctorScreen(target, row.project))

    def action_build_demo(self) -> None:
        """Straight to a fresh demo from a demo; from the user's own home, after a yes."""
        from tui.app.screens.confirm import confirm_then
        from tui.demo import is_demo_home

        if is_demo_home(self.app.home):
            self.start_demo()
        else:
            confirm_then(self.app, demo_plan(self.app.home), self.start_demo)

    def start_demo(self) -> None:
        self.notify("Building the demo config home…")
        self.build_demo()

    @work(thread=True, exit_on_error=False, exclusive=True, group="demo")
    def build_demo(self) -> None:
        from tui.demo import build_demo

        self.post_message(DemoBuilt(build_demo().home))

    def on_demo_built(self, message: DemoBuilt) -> None:
        self.app.demos_built.append(Path(message.home).parent)
        self.app.open_home(Path(message.home))

    # --- sync -----------------------------------------------------------------------------

    def action_sync(self) -> None:
        if not self.sync_remote:
            self.notify("No sync remote yet: run `memtui sync --all --remote URL` once.",
                        severity="warning")
            return
        row = self.query_one("#projects", ProjectTable).highlighted
        if row is None or row.project.store is None or not row.project.store_exists:
            self.notify("Highlight a project with a memory store to sync it.", severity="warning")
            return
        self.notify(f"Looking at what a sync of {row.cells[0]} would move…")
        self.preview_sync(row.project)

    @work(thread=True, exit_on_error=False, group="sync")
    def preview_sync(self, project: Project) -> None:
        from tui.sync.engine import SyncFailed
        from tui.sync.remote import SyncBusy
        from tui.sync.status import sync_status

        try:
            status = sync_status(self.sync_remote, self.sync_targets([project]), accept_cut=True)
        except (SyncFailed, SyncBusy) as error:
            self.post_message(SyncPreviewReady(project, None, str(error)))
            return
        self.post_message(SyncPreviewReady(project, status))

    def on_sync_preview_ready(self, message: SyncPreviewReady) -> None:
        if message.status is None:
            self.notify(message.error, severity="error")
            return
        if message.status.offline:
            self.notify(message.status.offline, severity="warning")
            return
        plan = sync_plan(message.project, message.status.projects[message.project.store])
        if isinstance(plan, str):
            self.notify(plan)
            return
        from tui.app.screens.confirm import confirm_then

        confirm_then(self.app, plan,
                     lambda: self.run_sync(message.project, accept_cut=bool(plan.pushed_out)))

    @work(thread=True, exit_on_error=False, group="sync")
    def run_sync(self, project: Project, accept_cut: bool) -> None:
        from tui.sync.engine import SyncFailed, sync
        from tui.sync.remote import RemoteUnreachable, SyncBusy

        try:
            report = sync(self.sync_remote, self.sync_targets([project]), accept_cut=accept_cut)
        except (RemoteUnreachable, SyncFailed, SyncBusy) as error:
            self.post_message(SyncDone(str(error), "error"))
            return
        [result] = report.projects
        self.post_message(SyncDone(*sync_outcome(result)))

    def on_sync_done(self, message: SyncDone) -> None:
        self.notify(message.text, severity=message.severity)
        self.action_rescan()


def _sync_settings():
    """(remote, settings) remembered for sync; none when they cannot be read (the CLI says
    why)."""
    from tui.sync.settings import SettingsError, SyncSettings, load_settings

    try:
        settings = load_settings()
    except SettingsError:
        return None, SyncSettings()
    return settings.remote, settings


PREVIEW_FILES = 12  # incoming diffs shown in the preview; the rest are named


def sync_plan(project: Project, result) -> Confirmation | str:
    """The preview of one store's sync, or the sentence saying there is nothing to do."""
    from rich.console import Group

    from tui.app.screens.confirm import Confirmation
    from tui.app.widgets.diff_view import render_diff

    if result.skipped:
        return f"Not synced: {result.skipped}"
    if not (result.pulled or result.pushed or result.blocked):
        return "In sync: nothing to pull or push."
    summary = []
    if result.pulled_texts:
        summary.append(f"Pull {len(result.pulled_texts)}: {', '.join(result.pulled_texts)}")
    if result.pulled_deletions:
        summary.append(f"Delete here {len(result.pulled_deletions)}, as on the remote: "
                       f"{', '.join(result.pulled_deletions)}")
    if result.conflicts:
        summary.append(f"Conflict in {', '.join(result.conflicts)}: the same lines changed on "
                       "both machines; both texts are kept in the file until you keep one")
    if result.pushed_texts:
        summary.append(f"Push {len(result.pushed_texts)}: {', '.join(result.pushed_texts)}")
    if result.pushed_deletions:
        summary.append(f"Delete on the remote {len(result.pushed_deletions)}: "
                       f"{', '.join(result.pushed_deletions)}")
    for blocked in result.blocked:  # a secret kept here, or a remote entry left as it is
        summary.append(f"Not synced: {blocked['file']}: {blocked['reason']}")
    if result.arrived_past_cut:
        summary.append(f"{_past_cut_sentence(result.arrived_past_cut, 'come')}; make room in "
                       "the index after the sync (the store's Findings tab lists them)")
    diffs = []
    for change in result.incoming[:PREVIEW_FILES]:
        before = (change.before or b"").decode("utf-8", "replace")
        after = (change.after or b"").decode("utf-8", "replace")
        diffs.append(render_diff(before, after, f"{change.file} (here)",
                                 f"{change.file} (after sync)"))
    label = f"Sync {project.key_path or project.store} with {result.identity}"
    return Confirmation(label, summary, Group(*diffs) if diffs else None, tuple(result.past_cut))


def sync_outcome(result) -> tuple[str, str]:
    """(sentence, severity) for what a sync of one store did."""
    if result.skipped:
        return f"Not synced: {result.skipped}", "warning"
    parts = [f"pulled {len(result.pulled_texts)}", f"pushed {len(result.pushed_texts)}"]
    if result.pulled_deletions:
        parts.append(f"deleted {len(result.pulled_deletions)} here, as on the remote")
    if result.pushed_deletions:
        parts.append(f"deleted {len(result.pushed_deletions)} on the remote")
    if result.conflicts:
        parts.append(f"{plural(len(result.conflicts), 'conflict')} kept both texts")
    if result.blocked:
        parts.append(f"{len(result.blocked)} left out (secrets, or entries no store can hold)")
    said = f"Synced {result.identity}: {', '.join(parts)}."
    if result.arrived_past_cut:
        said += (f" {_past_cut_sentence(result.arrived_past_cut, 'came')}: make room in the "
                 "index (the store's Findings tab lists them).")
    severity = ("warning" if result.conflicts or result.blocked or result.arrived_past_cut
                else "information")
    return said, severity


def _past_cut_sentence(files: list[str], verb: str) -> str:
    """'3 memories come in past the loaded cut, where Claude does not see them (a.md, …)'."""
    them = "it" if len(files) == 1 else "them"
    shown = ", ".join(files[:PREVIEW_FILES]) + (
        f" and {len(files) - PREVIEW_FILES} more" if len(files) > PREVIEW_FILES else "")
    verb = verb + "s" if verb == "come" and len(files) == 1 else verb
    return (f"{plural(len(files), 'memory', 'memories')} {verb} in past the loaded cut, where "
            f"Claude does not see {them} ({shown})")


def known_projects(app) -> list[Project]:
    """The projects this screen has found, when it has; else found now (call it in a worker)."""
    for screen in app.screen_stack:
        if isinstance(screen, ProjectsScreen) and screen.scanned is not None:
            return list(screen.scanned.inventory.projects)
    return list(discover(app.home, app.env, app.settings_file).projects)
