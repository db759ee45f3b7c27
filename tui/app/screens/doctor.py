"""The doctor's report for one project: every check with its status, evidence and fix.

Opened with `w` from the projects screen (the highlighted project) or a store screen. The
checks run in a worker; `p` adds the online probe (one minimal API call), `f5` runs again.
The consolidate lock is watched while the report is open: its hour running out or its
holder exiting changes no file, and the checks run again (offline) when either happens.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker, WorkerState, get_current_worker

from tui.app.disk import WATCH_GROUP
from tui.app.messages import post_unless_replaced
from tui.app.widgets.app_header import AppHeader
from tui.app.widgets.key_footer import KeyFooter
from tui.render import condense
from tui.visible import visible
from tui.words import plural

LOCK_POLL_SECONDS = 1.0
STATUS_STYLES = {"fail": "bold red", "warn": "bold yellow", "ok": "green", "skip": "dim"}
STATUS_LABELS = {"fail": "FAIL", "warn": "warn", "ok": "ok", "skip": "skip"}  # worst first


@dataclass
class DoctorDone(Message):
    report: object  # tui.doctor.report.DoctorReport
    lock: tuple | None = None  # the lock as the report saw it (`lock_seen`)


def lock_seen(store: str | None) -> tuple | None:
    """What the lock checks read, including what changes with no file written: whether
    the lock is held now (its 60 minutes run out, its holder exits)."""
    from tui.claude.lock import read_lock

    if store is None:
        return None
    lock = read_lock(Path(store))
    return lock.exists, lock.mtime, lock.pid, lock.held()


def run_doctor(app, target: str, project=None, online: bool = False,
               index_text: str | None = None):
    """The doctor's report for a target, with the app's config home and environment
    (raises `TargetError` for a target that names nothing); `index_text` is the store's
    MEMORY.md as the caller read it."""
    from tui.doctor import build_context, run_checks

    ctx = build_context(target, home=app.home, env=app.env, settings_file=app.settings_file,
                        project=project, index_text=index_text, now=app.now)
    return run_checks(ctx, online=online)


def doctor_target(project) -> str | None:
    """What the doctor is asked about for a discovery Project: its store when there is one,
    else its project path while that exists, else its transcript folder's name (the path
    of a deleted checkout names nothing the doctor can resolve)."""
    if project.store is not None and project.store_exists:
        return str(project.store)
    path = project.key_path or (project.paths[0] if project.paths else None)
    if path is not None and os.path.isdir(path):
        return path
    return project.name or path


def summary_line(report) -> str:
    counts = {status: sum(c.status == status for c in report.checks) for status in STATUS_LABELS}
    return (f"{counts['fail']} failed, {plural(counts['warn'], 'warning')}, {counts['ok']} ok, "
            f"{counts['skip']} skipped")


def homed(text: str, home: str | None = None) -> str:
    """`text` with the home directory written `~`, as the app shows paths elsewhere (a fix
    still pastes into a shell: `~/` at the start of a word expands)."""
    home = (home or str(Path.home())).rstrip("/")
    return text.replace(home + "/", "~/") if home else text


def render_report(report) -> Table:
    """Every check, the failures first: at 80x24 what needs fixing is what shows."""
    rank = list(STATUS_LABELS)
    grid = Table.grid(padding=(0, 1), expand=True)
    grid.add_column(width=4, no_wrap=True)
    grid.add_column(ratio=1)
    for check in sorted(report.checks, key=lambda check: rank.index(check.status)):
        body = Text(check.id, style="bold", overflow="fold")  # a path too wide goes on whole
        body.append("\n" + visible(homed(check.message)))
        if check.fix and check.status != "ok":
            body.append("\nfix: ", style="bold")
            body.append(visible(homed(check.fix)), style="italic")
        grid.add_row(Text(STATUS_LABELS[check.status], style=STATUS_STYLES[check.status]), body)
        grid.add_row("", "")
    return grid


class DoctorScreen(Screen[None]):
    FOOTER_KEYS: ClassVar[tuple[str, ...]] = ("doctor.back", "doctor.probe", "doctor.rerun")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="doctor.back"),
        Binding("p", "probe", "Probe API", id="doctor.probe",
                tooltip="Also make one minimal API call (max_tokens 1)"),
        Binding("f5", "rerun", "Run again", id="doctor.rerun"),
    ]
    DEFAULT_CSS = """
    DoctorScreen #doctor-status { padding: 0 1; color: $text-muted; }
    DoctorScreen #doctor-body { height: 1fr; padding: 0 1; }
    """

    def __init__(self, target: str, project=None) -> None:
        super().__init__()
        self.target = target
        self.project = project
        self.report = None
        self.lock: tuple | None = None  # the lock as the report on screen saw it

    def compose(self) -> ComposeResult:
        yield AppHeader(show_clock=False)
        yield Static("Checking…", id="doctor-status")
        with VerticalScroll(id="doctor-body"):
            yield Static(id="doctor-report")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = "Doctor"
        self.sub_title = condense(self.target)
        self.run_checks(online=False)
        self.watch_lock()

    @work(thread=True, exit_on_error=False, exclusive=True, group="doctor")
    def run_checks(self, online: bool, keep_probe: bool = False) -> None:
        """`keep_probe`: a run of its own (the lock changed) keeps the probe's answer."""
        store = self.report.store if self.report is not None else None
        lock = lock_seen(store)
        report = run_doctor(self.app, self.target, self.project, online)
        if report.store != store:  # the first run: the target's store was not known
            lock = lock_seen(report.store)
        probe = self.report.check("api_probe") if self.report is not None else None
        if keep_probe and probe is not None:
            report = replace(report, checks=(*report.checks, probe))
        post_unless_replaced(self, DoctorDone(report, lock))

    @work(thread=True, exit_on_error=False, group=WATCH_GROUP)
    def watch_lock(self) -> None:
        worker = get_current_worker()
        while not worker.cancelled_event.wait(LOCK_POLL_SECONDS):
            report = self.report
            if report is not None and lock_seen(report.store) != self.lock:
                self.app.call_from_thread(self.recheck_lock)

    def recheck_lock(self) -> None:
        """The lock changed: the checks again, the probe's answer kept. Not while a run is
        under way: its report comes with the lock it saw, and a recheck now would replace
        it (an API probe's answer lost with it)."""
        if not any(worker.node is self and worker.group == "doctor" and not worker.is_finished
                   for worker in self.workers):
            self.run_checks(False, True)

    def on_doctor_done(self, message: DoctorDone) -> None:
        report = self.report = message.report
        self.lock = message.lock
        place = report.project or report.store
        self.query_one("#doctor-status", Static).update(
            Text(visible(f"{condense(place)}: {summary_line(report)}")))
        self.query_one("#doctor-report", Static).update(render_report(report))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.query_one("#doctor-status", Static).update(
                Text(visible(f"The checks could not run: {event.worker.error}")))

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_probe(self) -> None:
        self.query_one("#doctor-status", Static).update("Checking, with one API call…")
        self.run_checks(online=True)

    def action_rerun(self) -> None:
        self.query_one("#doctor-status", Static).update("Checking…")
        self.run_checks(online=False)
