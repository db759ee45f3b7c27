"""What every dialog shares: F1 bound again (a modal screen stops the app's own keys) and a
footer of its own, since the keys of the screen underneath do nothing while it is open."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.screen import ModalScreen

from tui.app.widgets.key_footer import HELP_KEY

ResultType = TypeVar("ResultType")


class Dialog(ModalScreen[ResultType]):
    BINDINGS: ClassVar[list[BindingType]] = [
        # Under the app's ids, so the footer shows F1 and a keymap for it applies here too.
        Binding("f1", "app.toggle_help", "Help", id=HELP_KEY),
        Binding("question_mark", "app.toggle_help", "Help", show=False, id=f"{HELP_KEY}_alt"),
    ]
