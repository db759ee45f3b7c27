"""The Run screen: a dream or an extraction at work, phase by phase, cancellable."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import RichLog, Static
from textual.worker import Worker, WorkerState

from tui.agents.events import (
    CANCELLED,
    DONE,
    FAILED,
    PENDING,
    RUNNING,
    LogLine,
    ModelText,
    Phase,
    PhaseChanged,
)
from tui.app.runs import Engine, Starter, estimated_cost
from tui.app.widgets.app_header import AppHeader
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.virtual_table import TableRow, VirtualTable
from tui.visible import visible
from tui.words import plural

# (key, width); the note, written when a phase ends, takes the spare width and gives way
# first: at 80 columns the log below says the same.
PHASE_COLUMNS = (("phase", 15), ("status", 9), ("elapsed", 7), ("tokens in", 9),
                 ("tokens out", 10), ("tool calls", 10), ("note", 20))
STATUS_STYLES = {PENDING: "dim", RUNNING: "bold yellow", DONE: "green", FAILED: "bold red",
                 CANCELLED: "magenta"}
LOG_STYLES = {"tool": "cyan", "model": "", "refused": "bold red", "retry": "yellow",
              "warning": "yellow", "error": "bold red", "info": "dim"}
PHASE_WIDTH, KIND_WIDTH = 16, 8  # the log's first two columns
TICK_SECONDS = 0.5
LIVE_LINES = 4  # the newest words of a reply still streaming in, shown under the log
LIVE_KEPT = 4_000  # what is kept of that reply: enough to fill those lines at any width


def log_row(phase: str, kind: str, text: Text) -> Table:
    """A log line: its phase and kind in columns of their own, its text wrapping under
    itself (a hanging indent), not back under the phase."""
    row = Table.grid(expand=True)
    row.add_column(width=PHASE_WIDTH, no_wrap=True)
    row.add_column(width=KIND_WIDTH, no_wrap=True)
    row.add_column(ratio=1)
    row.add_row(Text(phase, style="dim"), Text(kind, style="bold"), text)
    return row


class RunLog(RichLog):
    """The run's log, which keeps its newest lines in view when it gets shorter (a toast
    taking rows under it) if they were in view before."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.shown_height = 0

    def on_resize(self, event: events.Resize) -> None:
        height = event.size.height
        end_before = self.virtual_size.height - self.shown_height
        if height < self.shown_height and self.scroll_y >= end_before - 1:
            self.scroll_end(animate=False, immediate=True)
        self.shown_height = height


def installed_name(kind: str, store) -> str:
    """The name a run in the background is kept under, so its store can show it again."""
    return f"{kind}:{store}"


@dataclass
class RunEvent(Message):
    """A phase change, a log line or a piece of streaming model text, from the run's thread."""

    event: PhaseChanged | LogLine | ModelText


@dataclass
class RunFinished(Message):
    result: object  # the core's RunResult


class RunScreen(Screen[None]):
    FOOTER_KEYS: ClassVar[tuple[str, ...]] = (  # most used first
        "run.review", "run.second_pass", "run.force", "run.background", "run.cancel", "run.back",
    )
    DEFAULT_CSS = """
    #run-engine, #run-totals { padding: 0 1; height: auto; }
    #run-phases { height: 5; margin: 1 0; }
    #run-log { height: 1fr; border: round $primary-background; }
    #run-live { height: auto; max-height: 5; padding: 0 2; color: $text-muted; display: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "cancel_run", "Cancel run", id="run.cancel"),
        Binding("escape", "cancel_or_back", "Cancel / back", id="run.back"),
        Binding("enter", "review", "Review", id="run.review", priority=True),
        Binding("b", "background", "Background", id="run.background"),
        Binding("f", "force", "Extract anyway", id="run.force"),
        Binding("p", "second_pass", "Second pass", id="run.second_pass"),
    ]

    def __init__(self, kind: str, subject: str, engine: Engine, start: Starter,
                 phase_names: tuple[str, ...], store, force: Starter | None = None,
                 second_pass: Callable[[tuple[str, ...], bool], Starter] | None = None) -> None:
        """`force` starts the run again past a skip (an extraction whose session already
        wrote memory itself); `second_pass(topics, forced)` starts an extraction focused on
        the topics a pass left when its turn budget ran out."""
        super().__init__()
        self.install_name = installed_name(kind, store)
        self.kind = kind
        self.subject = subject
        self.engine = engine
        self.start = start
        self.force = force
        self.second_pass = second_pass
        self.forced = False
        self.review = None  # the Review screen of a pass that left topics, kept to come back
        self.phases = {name: Phase(name) for name in phase_names}
        self.running_since: float | None = None  # when the running phase started
        self.cancel = threading.Event()
        self.result = None
        self.finished = False
        self.handed_over = False  # the Review screen concludes the run
        self.streaming = ""  # the end of the model's reply so far, until it is logged whole
        self.streaming_cut = False  # its start was dropped

    def compose(self) -> ComposeResult:
        yield AppHeader(show_clock=False)
        yield Static(id="run-engine")
        yield VirtualTable(PHASE_COLUMNS, stretch="note", cursor=False, id="run-phases")
        yield Static(id="run-totals")
        yield RunLog(id="run-log", wrap=True, markup=False, highlight=False)
        yield Static(id="run-live")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = f"{self.kind}: {self.subject}"
        self.sub_title = "running"
        self.query_one("#run-engine", Static).update(
            Text.assemble(("Engine: ", "bold"), self.engine.describe()))
        self.show_phases()
        self.show_totals()
        self.set_interval(TICK_SECONDS, self.tick)
        self.run_worker(self.execute, thread=True, exit_on_error=False, group="run")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "force":
            return self.can_force
        if action == "second_pass":
            return self.can_second_pass
        if action == "review":
            return self.finished
        if action in ("cancel_run", "background"):
            return not self.finished
        return True

    @property
    def can_force(self) -> bool:
        from tui.agents.result import SKIPPED

        return self.force is not None and self.result is not None and \
            self.result.status == SKIPPED

    @property
    def topics_left(self) -> tuple[str, ...]:
        from tui.agents.result import SUCCEEDED

        result = self.result
        return result.topics_left if result is not None and result.status == SUCCEEDED else ()

    @property
    def settled(self) -> bool:
        """The pass's change set is applied (or empty): a second pass then loses nothing."""
        changeset = self.result.changeset if self.result is not None else None
        if changeset is not None and changeset.empty:
            return True
        outcome = self.review.outcome if self.review is not None else None
        return outcome is not None and bool(outcome.applied)

    @property
    def can_second_pass(self) -> bool:
        return self.second_pass is not None and bool(self.topics_left) and self.settled

    # --- the run's thread -----------------------------------------------------------------

    def execute(self) -> None:
        result = self.start(lambda event: self.post_message(RunEvent(event)), self.cancel)
        self.post_message(RunFinished(result))

    # --- events from the run --------------------------------------------------------------

    def on_run_event(self, message: RunEvent) -> None:
        event = message.event
        if isinstance(event, PhaseChanged):
            self.show_phase(event.phase)
        elif isinstance(event, ModelText):
            reply = self.streaming + event.text
            self.streaming_cut |= len(reply) > LIVE_KEPT
            self.show_streaming(reply[-LIVE_KEPT:])
        else:
            self.end_streaming()
            self.log_line(event)

    def end_streaming(self) -> None:
        self.streaming_cut = False
        self.show_streaming("")

    def show_streaming(self, reply: str) -> None:
        """The newest words of the reply the model is writing, as one flowing paragraph."""
        self.streaming = reply
        live = self.query_one("#run-live", Static)
        words = " ".join(reply.split())
        live.display = bool(words)
        text_width = (live.content_region.width or 100) - PHASE_WIDTH - KIND_WIDTH
        room = max(40, text_width * LIVE_LINES - 2)
        tail = words[-room:]
        cut = self.streaming_cut or len(words) > len(tail)
        phase = next((p.name for p in self.phases.values() if p.status == RUNNING), "")
        live.update(log_row(phase, "writing", Text.assemble(
            f"{'…' if cut else ''}{tail}", ("▍", "blink"))))

    def show_phase(self, phase: Phase) -> None:
        previous = self.phases.get(phase.name)
        if phase.status == RUNNING and (previous is None or previous.status != RUNNING):
            self.running_since = time.monotonic()
        self.phases[phase.name] = phase
        self.show_phases()
        self.show_totals()

    def show_phases(self) -> None:
        """One row per phase; the running one's time goes on between events."""
        running = None
        if self.running_since is not None and not self.finished:
            running = time.monotonic() - self.running_since
        self.query_one("#run-phases", VirtualTable).set_rows([
            TableRow(phase.name, self.cells(phase, running if phase.status == RUNNING else None))
            for phase in self.phases.values()])

    def cells(self, phase: Phase, elapsed: float | None = None) -> tuple:
        seconds = phase.elapsed if elapsed is None else elapsed
        return (
            Text(phase.name, style="bold"),
            Text(phase.status, style=STATUS_STYLES.get(phase.status, "")),
            "" if phase.status == PENDING else f"{seconds:.1f} s",
            f"{phase.tokens_in:,}", f"{phase.tokens_out:,}", str(phase.tool_calls),
            phase.note,
        )

    def log_line(self, line: LogLine) -> None:
        log = self.query_one("#run-log", RichLog)
        # Wrap at the log's own width: left to itself, RichLog measures against the console,
        # which is 80 columns wide when there is no terminal (serve, headless).
        log.write(log_row(line.phase, line.kind, Text(visible(line.text),
                                                      style=LOG_STYLES.get(line.kind, ""))),
                  width=log.scrollable_content_region.width or None)

    def tick(self) -> None:
        """Keep the running phase's elapsed time moving between events."""
        if self.running_since is not None and not self.finished:
            self.show_phases()

    def show_totals(self) -> None:
        tokens_in = sum(p.tokens_in for p in self.phases.values())
        tokens_out = sum(p.tokens_out for p in self.phases.values())
        model = self.engine.model
        cost = None if model is None else estimated_cost(model, tokens_in, tokens_out)
        if model is None:
            price = "none (the offline engine makes no API calls)"
        elif cost is None:
            price = f"unknown (no list price for {model})"
        else:
            price = f"≈ ${cost:.4f} at list prices"
        self.query_one("#run-totals", Static).update(Text.assemble(
            ("Tokens in/out: ", "bold"), f"{tokens_in:,} / {tokens_out:,}   ",
            ("Estimated cost: ", "bold"), price))

    def on_run_finished(self, message: RunFinished) -> None:
        from tui.agents.result import SUCCEEDED

        result = self.result = message.result
        self.finished = True
        self.end_streaming()  # a cancelled or failed reply never gets logged whole
        for phase in result.phases:
            self.show_phase(phase)
        self.sub_title = result.status
        if result.status == SUCCEEDED and result.changeset is not None:
            counts = result.changeset.counts()
            changes = sum(counts.values())
            where = "press enter" if self.is_current else "open its store and press ctrl+d"
            text = (f"{self.kind} of {self.subject} finished: {plural(changes, 'file')} to review, "
                    f"{where}." if changes else
                    f"{self.kind} of {self.subject} finished: nothing to change.")
            self.app.notify(text, title="memtui")
            self.log_line(LogLine("", "info", f"{plural(changes, 'file')} to review: press enter"
                                  if changes else "nothing to change: esc goes back"))
            if self.topics_left and self.second_pass is not None:
                then = "then " if changes else ""
                self.log_line(LogLine("", "info", f"{plural(len(self.topics_left), 'topic')} left: "
                                      f"{then}press p for a second pass on them"))
        else:
            reason = result.error or "no change set"
            if self.can_force:  # the core words the skip for the command line
                reason = reason.replace("use --force", "press f")
            text = f"{self.kind} of {self.subject} {result.status}: {reason}"
            self.app.notify(text, title="memtui", severity="warning"
                            if result.status in ("cancelled", "skipped") else "error")
            self.log_line(LogLine("", "error", f"{result.status}: {reason}"))
        self.refresh_bindings()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.finished = True
            self.sub_title = "failed"
            self.notify(f"{self.kind} failed: {event.worker.error}", severity="error",
                        title="memtui")
            self.refresh_bindings()

    # --- keys -----------------------------------------------------------------------------

    def action_cancel_run(self) -> None:
        if not self.finished and not self.cancel.is_set():
            self.cancel.set()
            self.log_line(LogLine("", "info", "cancelling after the current step …"))

    def action_cancel_or_back(self) -> None:
        if not self.finished:
            self.action_cancel_run()
        else:
            self.leave()

    def action_force(self) -> None:
        """Run again, past the skip."""
        if not self.can_force:
            return
        self.forced = True
        self.restart(self.force, f"{self.kind} anyway …")
        self.force = None

    def action_second_pass(self) -> None:
        """Extract again from the same messages, focused on the topics left."""
        if not self.can_second_pass:
            return
        from tui.agents.extract import second_pass_topics

        topics = second_pass_topics(self.topics_left)
        self.restart(self.second_pass(topics, self.forced),
                     "second pass on: " + ("; ".join(topics) or "the same messages"))

    def restart(self, start: Starter, announcement: str) -> None:
        self.start = start
        self.result, self.review, self.finished, self.running_since = None, None, False, None
        self.cancel = threading.Event()
        for name in self.phases:
            self.show_phase(Phase(name))
        self.sub_title = "running"
        self.log_line(LogLine("", "info", announcement))
        self.refresh_bindings()
        self.run_worker(self.execute, thread=True, exit_on_error=False, group="run")

    def on_screen_resume(self) -> None:
        """Back from reviewing a pass that left topics: say whether a second pass is open."""
        if self.review is None:
            return
        if self.can_second_pass:
            self.log_line(LogLine("", "info", "applied: press p for a second pass on "
                                  + plural(len(self.topics_left), "topic")))
        self.refresh_bindings()

    def action_background(self) -> None:
        """Back to the store while the run goes on; a notification says when it is done."""
        if self.finished:
            return
        if not self.app.is_screen_installed(self):
            self.app.install_screen(self, self.install_name)
        self.app.pop_screen()
        self.app.notify(f"The {self.kind} goes on in the background; ctrl+d on its store "
                        "shows it again.", title="memtui")

    def action_review(self) -> None:
        from tui.agents.result import SUCCEEDED

        result = self.result
        if result is None or result.status != SUCCEEDED or result.changeset is None:
            return
        if result.changeset.empty:
            self.leave()
            return
        from tui.app.screens.review import ReviewScreen

        if self.topics_left and self.second_pass is not None:
            if not self.settled:  # keep this screen under the review to come back for p
                self.review = ReviewScreen(result, self.subject)
                self.app.push_screen(self.review)
            return
        self.handed_over = True
        self.app.switch_screen(ReviewScreen(result, self.subject))
        self.app.uninstall_screen(self)

    def on_unmount(self) -> None:
        """Closed mid-run (the app quits) or with an unreviewed dream: let the lock go back."""
        from tui.agents.result import conclude

        self.cancel.set()
        if self.result is not None and self.result.lease is not None and not self.handed_over:
            conclude(self.result, apply=False)

    def leave(self) -> None:
        """Back to the store; an unreviewed dream lets go of the lock as it was."""
        from tui.agents.result import SUCCEEDED, conclude

        result = self.result
        if result is not None and result.status == SUCCEEDED:
            # Nothing to change counts as a finished consolidation; an unreviewed change set
            # does not.
            conclude(result, apply=result.changeset is not None and result.changeset.empty)
        self.app.pop_screen()
        self.app.uninstall_screen(self)
