"""MemtuiApp: the application shell (config home, theme, help, command palette)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.segment import Segment
from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.filter import LineFilter
from textual.notifications import Notification, Notify, SeverityLevel

from tui.app.commands import MemtuiCommands
from tui.app.prefetch import Prefetch, Prefetched
from tui.app.screens.projects import ProjectsScreen
from tui.app.search_index import SearchIndex
from tui.app.textual_leaks import run_thread_workers_in_fresh_contexts
from tui.visible import CONTROL_CHARS, has_controls, visible


class DropControls(LineFilter):
    """The last guard before the terminal: a control character that reached a line (every
    view shows them as ␛ and friends, see `tui.visible`) is dropped, never written. Textual
    writes its own escape sequences around the segments, never inside their text."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not any(has_controls(segment.text) for segment in segments):
            return segments
        return [Segment(CONTROL_CHARS.sub("", segment.text), segment.style, segment.control)
                if has_controls(segment.text) else segment for segment in segments]


DROP_CONTROLS = DropControls()


def _settings_file() -> Path:
    from tui import xdg

    return xdg.state_dir() / "app.json"


def remembered_theme(available) -> str | None:
    """The theme the user picked last time, if it still exists."""
    import json

    try:
        theme = json.loads(_settings_file().read_text(encoding="utf-8")).get("theme")
    except (OSError, ValueError, AttributeError):
        return None
    return theme if isinstance(theme, str) and theme in available else None


def remember_theme(theme: str) -> None:
    import json

    path = _settings_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.write_text(json.dumps({"theme": theme}), encoding="utf-8")
        partial.replace(path)
    except OSError:
        pass  # not remembered: the app works the same


class MemtuiApp(App[None]):
    TITLE = "memtui"
    SUB_TITLE = "Claude Code auto-memory"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {MemtuiCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "toggle_help", "Help", id="app.help"),
        Binding("question_mark", "toggle_help", "Help", show=False, id="app.help_alt"),
        # Before any screen's esc: with the help open, esc closes it and nothing else.
        Binding("escape", "close_help", "Close help", show=False, priority=True,
                id="app.close_help"),
        Binding("ctrl+t", "change_theme", "Theme", show=False, id="app.theme"),
        Binding("q", "quit", "Quit", id="app.quit"),
    ]

    def __init__(
        self,
        home: Path,
        env: dict[str, str],
        settings_file: Path | None = None,
        *,
        now: float | None = None,
        prefetched: Prefetch | None = None,
    ) -> None:
        super().__init__()
        self.home = home
        self.env = env
        self.settings_file = settings_file
        self.now = now  # a fixed clock for ages, so snapshots do not drift
        self.prefetched = prefetched  # a discovery begun before the app loaded
        self.demos_built: list[Path] = []  # temp-dir demos `d` built: removed when the app ends
        self.search_index = SearchIndex()  # every memory, read for the search screen

    def take_prefetched(self) -> Prefetched | None:
        """The discovery begun before the app loaded, once, when it was for this home."""
        early = self.prefetched
        return early.take(self.home, self.env, self.settings_file) if early else None

    def on_mount(self) -> None:
        run_thread_workers_in_fresh_contexts()  # else closed screens live on in the pool
        self.theme = remembered_theme(self.available_themes) or self.theme
        self.theme_changed_signal.subscribe(self, lambda theme: remember_theme(theme.name))
        self.push_screen(ProjectsScreen())
        self.recover_interrupted()

    def on_unmount(self) -> None:
        """The demos built here were never shown outside the app: they go with it."""
        for root in self.demos_built:
            shutil.rmtree(root, ignore_errors=True)

    @work(thread=True, exit_on_error=False, group="recover")
    def recover_interrupted(self) -> None:
        """Roll back what a killed memtui left half done, and say so."""
        from tui.memory.intents import recover_pending

        for message in recover_pending():
            self.call_from_thread(self.notify, message, title="Recovered", timeout=10)

    def open_home(self, home: Path) -> None:
        """Switch to another config home (the demo) and rescan it."""
        self.home = home
        self.env = {**self.env, "CLAUDE_CONFIG_DIR": str(home)}
        self.search_index = SearchIndex()
        self.switch_screen(ProjectsScreen())

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> Notification:
        """The toast, returned so that `withdraw` can take it away once it no longer holds."""
        # Our notifications quote file names, link targets and model errors, which may hold
        # brackets or control characters: shown as written, never read as markup or obeyed.
        notification = Notification(
            visible(message), visible(title), severity,
            self.NOTIFICATION_TIMEOUT if timeout is None else timeout, markup=False)
        self.post_message(Notify(notification))
        return notification

    def withdraw(self, notification: Notification | None) -> None:
        """Take a toast away before its time, when what it says no longer holds."""
        if notification is not None:
            self._unnotify(notification)

    def get_line_filters(self) -> Sequence[LineFilter]:
        return [*super().get_line_filters(), DROP_CONTROLS]

    async def settled(self) -> None:
        """Wait until every worker has finished, except disk watchers, which never do.

        Workers may start others (scan, then summaries; prepare, then write), so this
        waits until a pass finds nothing running.
        """
        from textual.worker import WorkerCancelled

        from tui.app.disk import WATCH_GROUP

        while busy := [w for w in self.workers if w.group != WATCH_GROUP and not w.is_finished]:
            try:
                await self.workers.wait_for_complete(busy)
            except WorkerCancelled:
                pass  # replaced by a newer worker of its group (exclusive): the next pass waits

    def action_search(self) -> None:
        """The search across every store, unless it is open already."""
        from tui.app.screens.search import SearchScreen

        if not isinstance(self.screen, SearchScreen):
            self.push_screen(SearchScreen())

    def action_toggle_help(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_show_help_panel(self) -> None:
        """Textual's help panel, with memtui's keys listed before Textual's own."""
        from tui.app.widgets.help_panel import KeysHelp

        if not self.screen.query("HelpPanel"):
            self.screen.mount(KeysHelp())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "close_help":
            return bool(self.screen.query("HelpPanel"))
        return super().check_action(action, parameters)

    def action_close_help(self) -> None:
        self.action_hide_help_panel()

    def action_toggle_dark(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"
