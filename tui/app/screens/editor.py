"""Editing a memory inside the app: under `memtui serve`, when no $EDITOR is set, and to
show the merge when an edit made in $EDITOR met a change on disk.

The text is saved the way every memtui write is (conflict check, journal, undo): if Claude
Code changed the file while it was being edited, nothing is overwritten; its change is merged
into the edited text on screen (both texts between markers where they touch the same lines),
and the next save writes what the user has then seen.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.notifications import Notification
from textual.screen import Screen
from textual.widgets import Static, TextArea

from tui.app import curation
from tui.app.widgets.app_header import AppHeader
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

    def __init__(self, store_path: Path, file: str, before: str | None, subject: str = "",
                 merged: curation.EditMerged | None = None) -> None:
        """`subject`: the project the store belongs to, as the store screen's title names it.
        `merged`: an edit made in $EDITOR that met a change on disk, shown as its merge."""
        super().__init__()
        self.store_path = store_path
        self.subject = subject
        self.file = file
        self.before = before
        self.merged = merged
        self.saving = False
        self.discard_armed = False  # a second esc with unsaved changes discards them
        self.markers_armed = False  # a second ctrl+s saves merge markers left in the text
        self.unsaved_warning: Notification | None = None  # the toast a first esc raised

    def compose(self) -> ComposeResult:
        yield AppHeader(show_clock=False)
        yield Static("ctrl+s saves (undo with u afterwards), esc closes", id="editor-hint")
        yield TextArea(self.before or "", soft_wrap=True, show_line_numbers=True, id="editor-text")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = f"edit {self.file}"
        self.sub_title = self.subject or condense(str(self.store_path))
        self.query_one(TextArea).focus()
        if self.merged is not None:
            self.show_merge(self.merged)

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def on_text_area_changed(self) -> None:
        self.disarm_discard()
        self.markers_armed = False

    def disarm_discard(self) -> None:
        """The unsaved changes are saved, discarded or changed again: the warning that a
        second esc discards them no longer holds."""
        self.discard_armed = False
        self.app.withdraw(self.unsaved_warning)
        self.unsaved_warning = None

    def action_save(self) -> None:
        if self.saving:
            return
        self.disarm_discard()
        if self.text == self.before:
            self.dismiss(None)
            return
        if curation.holds_edit_markers(self.text) and not self.markers_armed:
            self.markers_armed = True
            self.notify("The text still holds the <<<<<<< your edit … >>>>>>> lines: keep one "
                        "text and delete the marker lines, or ctrl+s again saves them as they "
                        "are.", severity="warning")
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
        if severity != "error":
            self.dismiss(outcome)
            return
        # Refused. If another writer (Claude Code) changed the file meanwhile, show its
        # change merged into the edit: the next save keeps both, and nothing was lost.
        merged = curation.merge_edit(self.store_path, self.file, self.before or "", self.text)
        if isinstance(merged, curation.EditMerged):
            self.show_merge(merged)
            return
        reason = merged or message
        self.notify(f"{reason} Your text is still here; esc discards it.", severity="error")

    def show_merge(self, merged: curation.EditMerged) -> None:
        """The edit merged with what was written on disk meanwhile: the next save checks
        against the file as it is now."""
        self.before = merged.on_disk
        area = self.query_one(TextArea)
        area.text = merged.text
        lines = merged.text.split("\n")
        first = next((n for n, line in enumerate(lines)
                      if curation.holds_edit_markers(line)), None)
        if first is not None:  # where the user has to choose
            area.move_cursor((first, 0), center=True)
        self.notify(merged.message, severity=merged.severity, timeout=15)

    def action_close(self) -> None:
        if self.text == self.before or self.discard_armed:
            self.disarm_discard()
            self.dismiss(None)
            return
        self.discard_armed = True
        self.unsaved_warning = self.app.notify(
            "Unsaved changes: ctrl+s saves them, esc again discards them.", severity="warning")
