"""The header every screen shows: Textual's, letting go of the app when it goes."""

from __future__ import annotations

from textual.widgets import Header

from tui.app.textual_leaks import forget_watchers


class AppHeader(Header):
    """Textual's Header watches the app's title and sub_title, and Textual drops a closed
    widget's watchers only when the watched value changes: memtui's title never does, so
    every screen ever closed lived on through its header (~800 objects a store visit)."""

    def on_unmount(self) -> None:
        forget_watchers(self.app, self)
