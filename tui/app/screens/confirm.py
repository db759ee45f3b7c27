"""The confirmation every write goes through: what will change, and any choice to make."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

APPLY = "apply"


class ConfirmScreen(ModalScreen[str | None]):
    """Dismisses with "apply", one of the plan's options, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="confirm.cancel"),
        Binding("y", "apply", "Apply", id="confirm.apply"),
    ]

    def __init__(self, plan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        plan = self.plan
        with Vertical(id="confirm-dialog"):
            yield Static(Text(plan.label), id="confirm-title")
            with VerticalScroll(id="confirm-summary"):
                yield Static(Text("\n".join(f"• {line}" for line in plan.summary)))
                preview = getattr(plan, "preview", None)  # a renderable, e.g. a diff
                if preview is not None:
                    yield Static(preview, id="confirm-preview")
                if plan.pushed_out:
                    pushed = "\n".join(f"  {entry}" for entry in plan.pushed_out)
                    yield Static(
                        Text("Applying this would push these entries past Claude's cut:\n" + pushed),
                        id="confirm-pushed",
                    )
            with Horizontal(id="confirm-buttons"):
                for number, option in enumerate(plan.options if plan.pushed_out else ()):
                    yield Button(option.capitalize(), id=f"option-{number}", variant="primary")
                if plan.pushed_out:
                    yield Button("Apply anyway", id="apply", variant="warning")
                else:
                    yield Button("Apply (y)", id="apply", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    @on(Button.Pressed)
    def chosen(self, event: Button.Pressed) -> None:
        button = event.button.id or ""
        if button == "apply":
            self.dismiss(APPLY)
        elif button.startswith("option-"):
            self.dismiss(self.plan.options[int(button.removeprefix("option-"))])
        else:
            self.dismiss(None)

    def action_apply(self) -> None:
        if not self.plan.pushed_out:
            self.dismiss(APPLY)

    def action_cancel(self) -> None:
        self.dismiss(None)
