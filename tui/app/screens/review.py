"""The Review screen: a finished run's change set, file by file; accept, reject, apply, undo."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import ProgressBar, Static
from textual.worker import Worker, WorkerState

from tui.app.widgets.app_header import AppHeader
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.virtual_table import TableRow, VirtualTable
from tui.claude.lines import split_lines
from tui.memory.index import MAX_CHARS, MAX_LINES, LoadedIndex
from tui.render import condense
from tui.visible import visible
from tui.words import listed, plural

KIND_STYLES = {"created": "green", "modified": "yellow", "archived": "red"}
# The kind of change in a word of its own where a whole word would cut the file names.
SHORT_KINDS = {"created": "new", "modified": "mod", "archived": "arch"}
# (key, width); the kind of change is always shown, in short where names need the room.
FILE_COLUMNS = (("choice", 8), ("change", 8), ("file", 12))
FILE_PRIORITY = ("choice", "change", "file")
SCROLLBAR = 2


@dataclass
class Applied(Message):
    outcome: object  # the core's ApplyResult, or None when nothing was applied


@dataclass
class Undone(Message):
    text: str
    severity: str


def index_summary(label: str, index: LoadedIndex) -> Text:
    if not index.exists:
        return Text.assemble((f"{label}: ", "bold"), ("no MEMORY.md", "yellow"))
    cut = (Text(f"cut by {index.cut}: Claude loads only {index.loaded_lines:,} lines", "bold red")
           if index.cut else Text("within the limits: Claude loads all of it", "green"))
    line = Text.assemble((f"{label}: ", "bold"),
                         f"{index.lines:,}/{MAX_LINES} lines, {index.chars:,}/{MAX_CHARS:,} chars — ",
                         cut)
    return line


def diff_text(diff: str) -> Text:
    text = Text()
    for line in split_lines(visible(diff)):
        style = ("bold" if line.startswith(("---", "+++")) else "green" if line.startswith("+")
                 else "red" if line.startswith("-") else "cyan" if line.startswith("@@") else "")
        text.append(line + "\n", style=style)
    return text


class ReviewScreen(Screen[None]):
    FOOTER_KEYS: ClassVar[tuple[str, ...]] = (  # most used first
        "review.apply", "review.toggle", "review.undo", "review.back",
    )
    DEFAULT_CSS = """
    /* At most half the screen, scrolling past that: the files stay in view at 24 rows. */
    #review-summary-scroll { height: auto; max-height: 50%; }
    #review-summary { padding: 0 1; height: auto; }
    #review-progress { padding: 0 1; display: none; }
    #review-progress.-working { display: block; }
    #review-body { height: 1fr; }
    #review-files { height: 1fr; }
    #review-diff-scroll { width: 1fr; border-left: solid $primary-background; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle", "Accept/reject", id="review.toggle"),
        Binding("a", "apply", "Apply", id="review.apply"),
        Binding("u", "undo", "Undo run", id="review.undo"),
        Binding("escape", "back", "Back", id="review.back"),
    ]

    def __init__(self, result, subject: str = "") -> None:
        """`subject`: what the run worked on, as the Run screen's title names it."""
        super().__init__()
        self.result = result
        self.subject = subject
        self.changeset = result.changeset
        self.accepted = self.changeset.default_choice()
        self.outcome = None  # the ApplyResult once applied
        self.working = False
        self.kinds_in_short = False  # the list is too narrow for whole names and whole words

    def compose(self) -> ComposeResult:
        yield AppHeader(show_clock=False)
        with VerticalScroll(id="review-summary-scroll"):
            yield Static(id="review-summary")
        # No total: the apply is one journalled write, whose length is not known before.
        yield ProgressBar(id="review-progress", show_eta=False, show_percentage=False)
        with Horizontal(id="review-body"):
            yield VirtualTable(FILE_COLUMNS, stretch="file", labels={"choice": ""},
                               priority=FILE_PRIORITY, fit={"change"},
                               short_labels={"change": "kind"}, id="review-files")
            with VerticalScroll(id="review-diff-scroll"):
                yield Static(id="review-diff")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = f"review: {self.changeset.label}"
        self.sub_title = self.subject or condense(str(self.changeset.store))
        self.fit_file_list()
        self.show_files()
        self.show_summary()
        self.show_diff()
        self.query_one("#review-files").focus()

    def on_resize(self) -> None:
        self.fit_file_list()

    def fit_file_list(self) -> None:
        """As wide as the whole names need (the kind of change too, when there is room), at
        most half the screen; the diff takes the rest."""
        longest = max((cell_len(diff.file) for diff in self.changeset.files), default=0)
        padded = {key: width + 2 for key, width in FILE_COLUMNS}
        needed = padded["choice"] + padded["change"] + max(longest, 4) + 2 + SCROLLBAR
        files = self.query_one("#review-files", VirtualTable)
        files.styles.width = max(padded["choice"] + padded["file"],
                                 min(needed, self.size.width // 2))
        short = needed > self.size.width // 2
        if short != self.kinds_in_short:
            self.kinds_in_short = short
            if files.rows:
                self.show_files()

    def show_files(self) -> None:
        kinds = SHORT_KINDS if self.kinds_in_short else {kind: kind for kind in KIND_STYLES}
        files = self.query_one("#review-files", VirtualTable)
        files.set_rows([
            TableRow(diff.file, (self.choice(diff.file),
                                 Text(kinds[diff.kind], style=KIND_STYLES[diff.kind]), diff.file))
            for diff in self.changeset.files])

    def choice(self, file: str) -> Text:
        if self.outcome is not None:
            if file in self.outcome.applied:
                return Text("applied", style="green")
            if any(file == refused for refused, _ in self.outcome.refused):
                return Text("refused", style="bold red")
            return Text("rejected", style="dim")
        return Text("accept", style="green") if file in self.accepted else Text("reject", style="red")

    def show_summary(self) -> None:
        changeset = self.changeset
        counts = changeset.counts()
        lines = [
            Text.assemble(("Change set: ", "bold"), f"{counts['created']} created, "
                          f"{counts['modified']} modified, {counts['archived']} archived; "
                          f"{len(self.accepted)} of {len(changeset.files)} accepted"),
            index_summary("Index before", changeset.index_before),
            index_summary("Index after ", changeset.index_after),
            # What the guards hold comes first: it decides what applying does.
            *(Text(f"{file} is rejected for now: {reason}. Accept it with space to apply it "
                   "anyway.", style="bold yellow") for file, reason in changeset.held.items()),
            *self.hiding_choice(),
            *self.groups(),
            *(Text(f"Note: {note}", style="yellow") for note in changeset.notes),
            *(Text(f"Refused during the run: {r}", style="red") for r in self.result.refusals),
        ]
        if self.outcome is not None:
            lines.append(Text(f"Applied {plural(len(self.outcome.applied), 'file')}; press u "
                              "to undo.", style="bold green"))
            lines.extend(Text(f"Refused {file}: {reason}", style="bold red")
                         for file, reason in self.outcome.refused)
        elif self.working:
            lines.append(Text(f"Applying {plural(len(self.accepted), 'file')} …",
                              style="bold"))
        else:
            lines.append(Text("space accepts or rejects the highlighted file; a applies; "
                              "esc leaves without applying.", style="dim"))
        self.query_one("#review-summary", Static).update(Group(*lines))

    def groups(self) -> list[Text]:
        """The files that go together, said before anything is applied."""
        if self.outcome is not None:
            return []
        return [Text(f"{first} goes with {listed(others, 4)}: rejecting one rejects the "
                     "others.", style="dim") for first, *others in self.changeset.groups]

    def hiding_choice(self) -> list[Text]:
        """A warning when the files accepted would hide what the whole change set does
        not: MEMORY.md accepted without the hub its lines moved into."""
        if self.outcome is not None or self.changeset.hides:
            return []
        hidden = self.changeset.hidden_by(self.accepted)
        if not hidden:
            return []
        return [Text(f"As accepted, the change would hide {', '.join(hidden)} from Claude: "
                     "accept the files that now link them too.", style="bold yellow")]

    def highlighted(self) -> str | None:
        row = self.query_one("#review-files", VirtualTable).highlighted
        return row.key if row is not None else None

    @on(VirtualTable.Highlighted, "#review-files")
    def show_diff(self) -> None:
        file = self.highlighted()
        diff = next((d for d in self.changeset.files if d.file == file), None)
        self.query_one("#review-diff", Static).update(
            diff_text(diff.diff) if diff else Text("No changes.", style="dim"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers only what can be done now: choosing and applying until the
        change set is applied, then undoing it; nothing while a write runs."""
        if action in ("toggle", "apply"):
            return self.outcome is None and not self.working
        if action == "undo":
            return self.outcome is not None and bool(self.outcome.applied) and not self.working
        if action == "back":
            return not self.working
        return True

    def set_working(self, working: bool) -> None:
        self.working = working
        self.query_one("#review-progress").set_class(working, "-working")
        self.show_summary()
        self.refresh_bindings()

    def action_toggle(self) -> None:
        """Accept or reject the highlighted file, and with it what it goes with."""
        file = self.highlighted()
        if file is None or self.outcome is not None:
            return
        if file in self.accepted:
            along = self.changeset.rejecting(file)
            self.accepted -= along
        else:
            along = self.changeset.accepting(file)
            self.accepted |= along
        if len(along) > 1:
            verb = "accepted" if file in self.accepted else "rejected"
            self.notify(f"{file} {verb} with {listed(sorted(along - {file}), 4)}: they go "
                        "together.")
        self.show_files()
        self.query_one("#review-files", VirtualTable).action_cursor_down()
        self.show_summary()

    def action_apply(self) -> None:
        if self.outcome is not None or self.working:
            return
        if not self.accepted:
            self.notify("Every file is rejected: nothing to apply (esc leaves).",
                        severity="warning")
            return
        self.set_working(True)
        self.apply()

    @work(thread=True, exit_on_error=False, group="review")
    def apply(self) -> None:
        from tui.agents.result import conclude

        self.post_message(Applied(conclude(self.result, apply=True, only=set(self.accepted))))

    def on_applied(self, message: Applied) -> None:
        self.outcome = message.outcome
        self.set_working(False)
        self.show_files()
        outcome = self.outcome
        refused = f", {len(outcome.refused)} refused" if outcome and outcome.refused else ""
        self.notify(f"Applied {plural(len(outcome.applied) if outcome else 0, 'file')}"
                    f"{refused}. Press u to undo.",
                    severity="warning" if refused else "information")

    def action_undo(self) -> None:
        if self.outcome is None or not self.outcome.applied or self.working:
            return
        self.set_working(True)
        self.undo()

    @work(thread=True, exit_on_error=False, group="review")
    def undo(self) -> None:
        from tui.agents.changeset import undo_changeset
        from tui.memory.writes import WriteRefused, undone_phrase

        try:
            label = undo_changeset(self.changeset.store)
        except WriteRefused as refused:
            self.post_message(Undone(str(refused), "error"))
            return
        self.post_message(Undone(f"{undone_phrase(label)} U redoes it." if label
                                 else "Nothing to undo.", "information" if label else "warning"))

    def on_undone(self, message: Undone) -> None:
        self.set_working(False)
        self.notify(message.text, severity=message.severity)
        if message.severity == "information":
            self.outcome = None
            self.app.pop_screen()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.set_working(False)
            self.notify(str(event.worker.error), severity="error", title="memtui")

    def on_unmount(self) -> None:
        """Leaving without applying: the dream's lock goes back to how it was."""
        from tui.agents.result import conclude

        if self.result.lease is not None:
            conclude(self.result, apply=False)

    def action_back(self) -> None:
        if not self.working:
            self.app.pop_screen()
