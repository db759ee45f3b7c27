"""Editing a memory inside the app: under `memtui serve`, and when no $EDITOR is set.

The text is saved the way every memtui write is (conflict check, journal, undo): if Claude
Code changed the file while it was being edited, nothing is overwritten and the edited text
stays on screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Header, Static, TextArea

from tui.app import curation
from tui.app.widgets.key_footer import KeyFooter
from tui.render import condense


class EditorScreen(Screen["curation.Outcome | None"]):
    """Dismissed with the outcome of a save, or None when nothing was saved."""

    FOOTER_KEYS: ClassVar[tuple[str, ...]] = (  # most used first
        "editor.save", "editor.close",
    )

    DEFAULT_CSS = """
    #editor-hint { padding: 0 1; color: $text-muted; }
    #editor-text { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="editor.save", priority=True),
        Binding("escape", "close", "Close", id="editor.close"),
    ]

    def __init__(self, store_path: Path, file: str, before: str, subject: str = "") -> None:
        """`subject`: the project the store belongs to, as the store screen's title names it."""
        super().__init__()
        self.store_path = store_path
        self.subject = subject
        self.file = file
        self.before = before
        self.saving = False
        self.discard_armed = False  # a second esc with unsaved changes discards them

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Static("ctrl+s saves (undo with u afterwards), esc closes", id="editor-hint")
        yield TextArea(self.before, soft_wrap=True, show_line_numbers=True, id="editor-text")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = f"edit {self.file}"
        self.sub_title = self.subject or condense(str(self.store_path))
        self.query_one(TextArea).focus()

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def on_text_area_changed(self) -> None:
        self.discard_armed = False

    def action_save(self) -> None:
        if self.saving:
            return
        if self.text == self.before:
            self.dismiss(None)
            return
        self.saving = True
        self.save(self.text)

    @work(thread=True, exit_on_error=False, group="write")
    def save(self, text: str) -> None:
        outcome = curation.save_edit(self.store_path, self.file, self.before, text)
        self.app.call_from_thread(self.saved, outcome)

    def saved(self, outcome: curation.Outcome) -> None:
        self.saving = False
        message, severity = outcome
        if severity == "error":  # refused: the edited text stays here to be copied
            self.notify(f"{message} Your text is still here; esc discards it.", severity="error")
            return
        self.dismiss(outcome)

    def action_close(self) -> None:
        if self.text == self.before or self.discard_armed:
            self.dismiss(None)
            return
        self.discard_armed = True
        self.notify("Unsaved changes: ctrl+s saves them, esc again discards them.",
                    severity="warning")
