"""Copy and move to another project's store, from the store screen: pick the target (typed
to filter), say what to do with each name the target holds with other text, see the
preview with the cut's choices, apply. `TransferFlow` leads the user through the dialogs;
the plan and the write are `tui.app.transfers`'."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState

from tui.app.screens.dialog import Dialog
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.virtual_table import VirtualTable
from tui.render import PROJECT_STATUS_STYLES, project_status
from tui.visible import visible
from tui.words import plural

if TYPE_CHECKING:
    from tui.app.transfers import Collision, Targets
    from tui.claude.discovery import Project
    from tui.memory.transfer import Transfer

FILTER_CUTOFF = 60  # as the projects screen's filter
# The project keeps its end (its own name); the status says a store is not made yet.
TARGET_COLUMNS = (("project", 40), ("memories", 8), ("status", 13))
COLLISION_COLUMNS = (("file", 28), ("choice", 9), ("differs", 16))
CHOICE_STYLES = {"keep-both": "green", "replace": "bold red", "skip": "dim"}
CHOICE_WORDS = {"keep-both": "keep both", "replace": "replace", "skip": "skip"}


def verb_of(move: bool) -> str:
    return "move" if move else "copy"


@dataclass(frozen=True)
class TargetRow:
    key: str  # the store's path
    cells: tuple[object, ...]
    project: Project

    @cached_property
    def haystack(self) -> str:
        from rapidfuzz import utils

        return utils.default_process(f"{self.cells[0]} {self.project.name}")


@dataclass
class TargetsFound(Message):
    targets: Targets


class TargetPicker(Dialog["Project | None"]):
    """Dismissed with the project whose store to copy (or move) to, or None. Typing filters
    the list; the arrows move in it while the filter keeps the focus."""

    AUTO_FOCUS = "#target-filter"
    DEFAULT_CSS = """
    TargetPicker { align: center middle; }
    #target-dialog {
        width: 100; max-width: 100%; height: 80%; padding: 0 1;
        border: thick $primary; background: $surface;
    }
    #target-title { height: auto; text-style: bold; }
    #target-filter { margin: 1 0 0 0; }
    #target-table { height: 1fr; }
    #target-status { height: auto; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the filter keeps the focus, and it would take these keys itself.
        Binding("enter", "pick", "Choose", priority=True, id="target.pick"),
        Binding("down", "move_cursor(1)", "Move", key_display="↑↓", priority=True,
                id="target.move"),
        Binding("up", "move_cursor(-1)", "Move", show=False, priority=True),
        Binding("pagedown", "move_cursor(10)", "Page down", show=False, priority=True),
        Binding("pageup", "move_cursor(-10)", "Page up", show=False, priority=True),
        Binding("escape", "dismiss(None)", "Cancel", id="target.cancel"),
    ]
    FOOTER_KEYS: ClassVar[tuple[str, ...]] = ("target.pick", "target.move", "target.cancel")

    def __init__(self, files: list[str], source: Path, move: bool) -> None:
        super().__init__()
        self.files = files
        self.source = source
        self.move = move
        self.rows: list[TargetRow] = []
        self.left_out: str | None = None  # None until the projects are found

    def compose(self) -> ComposeResult:
        what = self.files[0] if len(self.files) == 1 else plural(len(self.files), "memory",
                                                                   "memories")
        with Vertical(id="target-dialog"):
            yield Static(Text(f"{verb_of(self.move).capitalize()} {visible(what)} to which "
                              "project?"), id="target-title")
            yield Input(placeholder="type to filter the projects", compact=True,
                        id="target-filter")
            yield VirtualTable(TARGET_COLUMNS, stretch="project", keep_end={"project"},
                               fit={"memories", "status"}, id="target-table")
            yield Static("Finding the projects…", id="target-status")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.watch(self.query_one("#target-filter", Input), "value", self.show_rows,
                   init=False)
        self.find_targets()

    @work(thread=True, exit_on_error=False, group="targets")
    def find_targets(self) -> None:
        from tui.app.screens.projects import known_projects
        from tui.app.transfers import transfer_targets

        self.post_message(TargetsFound(transfer_targets(known_projects(self.app), self.source)))

    def on_targets_found(self, message: TargetsFound) -> None:
        from tui.app.transfers import project_path

        self.rows = [TargetRow(str(project.store), (
            Text(project_path(project)),
            str(project.memories) if project.store_exists else "-",
            Text(status, style=PROJECT_STATUS_STYLES.get(status) or "dim"),
        ), project) for project in message.targets.offered
            for status in (project_status(project),)]
        self.left_out = message.targets.left_out
        self.show_rows()

    def show_rows(self) -> None:
        if self.left_out is None:
            return  # shown, filtered as typed so far, once the projects are found
        query = self.query_one("#target-filter", Input).value.strip()
        rows = self.rows
        if query:
            from rapidfuzz import fuzz, process, utils

            matches = process.extract(utils.default_process(query), [r.haystack for r in rows],
                                      scorer=fuzz.partial_ratio, score_cutoff=FILTER_CUTOFF,
                                      limit=None)
            rows = [rows[i] for _, _, i in sorted(matches, key=lambda m: (-m[1], m[2]))]
        table = self.query_one("#target-table", VirtualTable)
        empty = (f"No project matches “{query}”." if query else
                 "No other project's store can take memories.")
        table.set_rows(rows, empty)
        table.move_cursor(0)
        shown = f"{len(rows)} of " if query else ""
        self.query_one("#target-status", Static).update(
            f"{shown}{plural(len(self.rows), 'project')}. {self.left_out}")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.query_one("#target-status", Static).update(
                Text(f"The projects could not be found: {event.worker.error}", style="bold red"))

    def action_move_cursor(self, rows: int) -> None:
        table = self.query_one("#target-table", VirtualTable)
        if table.rows:
            table.move_cursor(max(0, min(len(table.rows) - 1, table.cursor_row + rows)))

    def action_pick(self) -> None:
        row = self.query_one("#target-table", VirtualTable).highlighted
        if row is not None:
            self.dismiss(row.project)

    @on(VirtualTable.Selected, "#target-table")
    def picked(self, event: VirtualTable.Selected) -> None:
        if event.row is not None:
            self.dismiss(event.row.project)


@dataclass(frozen=True)
class CollisionRow:
    key: str  # the file
    cells: tuple[object, ...]


def line_changes(theirs: str, ours: str) -> str:
    import difflib

    added = removed = 0
    for line in difflib.ndiff(theirs.splitlines(), ours.splitlines()):
        added += line.startswith("+ ")
        removed += line.startswith("- ")
    return f"+{added} −{removed} lines"


class CollisionDialog(Dialog["dict[str, str] | None"]):
    """Each name the target holds with other text, asked about: keep both (the carried one
    under a new name), replace (undo brings the target's back), or skip. Nothing is chosen
    for the user; enter goes on to the preview once each has its answer."""

    AUTO_FOCUS = "#collision-table"
    DEFAULT_CSS = """
    CollisionDialog { align: center middle; }
    #collision-dialog {
        width: 100; max-width: 100%; height: 90%; padding: 0 1;
        border: thick $primary; background: $surface;
    }
    #collision-title { height: auto; margin-bottom: 1; }
    #collision-table { height: auto; max-height: 8; }
    #collision-diff { height: 1fr; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("k", "choose('keep-both')", "Keep both", id="collision.keep_both",
                tooltip="Carry it under a new name (name-2.md); the target's stays"),
        Binding("r", "choose('replace')", "Replace", id="collision.replace",
                tooltip="Carry it over the target's (undo brings the target's back)"),
        Binding("s", "choose('skip')", "Skip", id="collision.skip",
                tooltip="Leave this one out"),
        Binding("K", "choose_all('keep-both')", "Keep all", show=False,
                id="collision.keep_all"),
        Binding("R", "choose_all('replace')", "Replace all", show=False,
                id="collision.replace_all"),
        Binding("S", "choose_all('skip')", "Skip all", show=False, id="collision.skip_all"),
        Binding("enter", "done", "Preview", priority=True, id="collision.done"),
        Binding("escape", "dismiss(None)", "Cancel", id="collision.cancel"),
    ]
    FOOTER_KEYS: ClassVar[tuple[str, ...]] = (
        "collision.keep_both", "collision.replace", "collision.skip", "collision.done",
        "collision.cancel")

    def __init__(self, collisions: list[Collision], target_name: str) -> None:
        super().__init__()
        self.collisions = {collision.file: collision for collision in collisions}
        self.target_name = target_name
        self.choices: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        count = len(self.collisions)
        title = Text.assemble(
            (f"{visible(self.target_name)} holds {plural(count, 'name')} with other text. ",
             "bold"),
            "For each: k keeps both (yours under a new name), r replaces theirs, s skips"
            + ("; K, R, S choose it for all." if count > 1 else "."))
        with Vertical(id="collision-dialog"):
            yield Static(title, id="collision-title")
            yield VirtualTable(COLLISION_COLUMNS, stretch="file", fit={"choice", "differs"},
                               id="collision-table")
            with VerticalScroll(id="collision-diff"):
                yield Static(id="collision-diff-text")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.show_rows()

    def show_rows(self) -> None:
        table = self.query_one("#collision-table", VirtualTable)
        cursor = table.cursor_row
        rows = []
        for file, collision in self.collisions.items():
            choice = self.choices.get(file)
            cell = Text("?", style="bold yellow") if choice is None else \
                Text(CHOICE_WORDS[choice], style=CHOICE_STYLES[choice])
            rows.append(CollisionRow(file, (Text(visible(file)), cell,
                                            line_changes(collision.theirs, collision.ours))))
        table.set_rows(rows)
        table.move_cursor(min(cursor, len(rows) - 1))
        self.show_diff()

    @on(VirtualTable.Highlighted, "#collision-table")
    def show_diff(self) -> None:
        from tui.app.widgets.diff_view import render_diff

        row = self.query_one("#collision-table", VirtualTable).highlighted
        if row is None:
            return
        collision = self.collisions[row.key]
        heading = Text(f"{row.key}: theirs (in {self.target_name}), then yours", style="bold")
        self.query_one("#collision-diff-text", Static).update(Text("\n").join([
            heading, render_diff(collision.theirs, collision.ours, f"theirs/{row.key}",
                                 f"yours/{row.key}")]))

    def action_choose(self, choice: str) -> None:
        table = self.query_one("#collision-table", VirtualTable)
        row = table.highlighted
        if row is None:
            return
        self.choices[row.key] = choice
        self.show_rows()
        table.action_cursor_down()

    def action_choose_all(self, choice: str) -> None:
        self.choices = dict.fromkeys(self.collisions, choice)
        self.show_rows()

    def action_done(self) -> None:
        waiting = [file for file in self.collisions if file not in self.choices]
        if waiting:
            self.notify(f"Choose for {visible(waiting[0])} first: k keeps both, r replaces, "
                        "s skips.", severity="warning")
            return
        self.dismiss(dict(self.choices))


class TransferFlow:
    """One copy or move from the store screen, dialog after dialog. The screen is busy
    (its reloads wait) from the first dialog to the last; every end says why in a toast or
    hands the outcome to the screen, which reloads and clears its marks."""

    def __init__(self, screen, files: list[str], move: bool) -> None:
        self.screen = screen
        self.app = screen.app
        self.files = files
        self.move = move
        self.source: Path = screen.path
        self.target: Path | None = None
        self.target_name = ""
        self.choices: dict[str, str] = {}
        self.hubs = False  # the lines that do not fit go into the target's hubs

    def start(self) -> None:
        self.screen.busy = True
        self.app.push_screen(TargetPicker(self.files, self.source, self.move), self.picked)

    def end(self, message: str | None = None, severity: str = "information") -> None:
        if message:
            self.app.notify(message, severity=severity)
        self.screen.done_busy()

    def in_worker(self, work_done, then) -> None:
        """`work_done()` in a thread, then `then(its result)` on the UI thread."""

        def run() -> None:
            result = work_done()
            self.app.call_from_thread(then, result)

        self.screen.run_worker(run, thread=True, exit_on_error=False, group="write")

    def picked(self, project: Project | None) -> None:
        from tui.app.transfers import project_path, refusal_of

        if project is None or project.store is None:
            self.end()
            return
        self.target, self.target_name = project.store, project_path(project)
        if (refused := refusal_of(project.store)) is not None:
            self.end(refused, "error")
            return
        from tui.app.transfers import find_collisions

        target = project.store
        self.in_worker(lambda: find_collisions(self.source, self.files, target), self.ask)

    def ask(self, found: list[Collision] | str) -> None:
        if isinstance(found, str):
            self.end(found, "error")
        elif found:
            self.app.push_screen(CollisionDialog(found, self.target_name), self.settled)
        else:
            self.settled({})

    def settled(self, choices: dict[str, str] | None) -> None:
        if choices is None:
            self.end()
            return
        self.choices = choices
        self.plan_again()

    def plan_again(self) -> None:
        from tui.app.transfers import plan

        target = self.target
        assert target is not None
        hubs = self.hubs
        self.in_worker(lambda: plan(self.source, self.files, target, self.choices, self.move,
                                    hubs), self.preview)

    def preview(self, transfer: Transfer | str) -> None:
        from tui.app.screens.confirm import ConfirmScreen
        from tui.app.transfers import confirmation

        if isinstance(transfer, str):
            self.end(transfer, "warning")
            return
        if transfer.empty:
            self.end(" ".join(transfer.summary) or "Nothing to change.")
            return
        assert self.target is not None
        shown = confirmation(transfer, self.files, self.target, self.target_name,
                             self.move)
        self.app.push_screen(ConfirmScreen(shown),
                             lambda choice: self.decided(choice, transfer))

    def decided(self, choice: str | None, transfer: Transfer) -> None:
        from tui.app.curation import option_plan
        from tui.app.screens.confirm import APPLY
        from tui.memory.curate import GROUP_IN_HUBS

        if choice == APPLY:
            self.apply(transfer)
        elif choice is None:
            self.end()
        elif choice == GROUP_IN_HUBS:  # the same copy, its lines that do not fit in hubs
            self.hubs = True
            self.plan_again()
        elif (maker := option_plan(choice)) is None:
            self.end(f"Open {self.target_name} from the projects screen; on its Index tab (2) "
                     f"put the cursor on an entry to move past the cut and press m; then "
                     f"{verb_of(self.move)} again.")
        else:
            self.make_room(maker)

    def apply(self, transfer: Transfer) -> None:
        from tui.app.messages import ChangeApplied
        from tui.app.transfers import apply

        target = self.target
        assert target is not None
        self.in_worker(
            lambda: apply(self.source, target, self.target_name, transfer, self.move),
            lambda outcome: self.screen.post_message(ChangeApplied(*outcome)))

    def make_room(self, maker) -> None:
        """The make-room repair the user picked, shown and applied on the target's index;
        then the copy (or move) is planned and shown again."""
        from tui.app import curation
        from tui.memory.store import load_store

        target = self.target
        assert target is not None
        self.in_worker(lambda: curation.make_plan(maker, load_store(target)), self.confirm_room)

    def confirm_room(self, plan) -> None:
        from dataclasses import replace

        from tui.app import curation
        from tui.app.screens.confirm import APPLY, ConfirmScreen

        if isinstance(plan, str) or not plan.changes:
            self.end(plan if isinstance(plan, str) else " ".join(plan.summary), "warning")
            return
        target = self.target
        assert target is not None
        shown = replace(curation.diff_confirmation(plan),
                        label=f"{plan.label} in {self.target_name}", options=())

        def decided(choice: str | None) -> None:
            if choice != APPLY:
                self.end()
                return
            self.in_worker(lambda: curation.apply_plan(target, plan), self.room_made)

        self.app.push_screen(ConfirmScreen(shown), decided)

    def room_made(self, outcome: tuple[str, str]) -> None:
        text, severity = outcome
        if severity == "error":
            self.end(text, severity)
            return
        self.app.notify(f"{self.target_name}: {text.replace('Press u to undo.', '')}".strip())
        self.plan_again()
