"""The confirmation every write goes through: the consequence first, then what will change,
any choice to make, and Cancel, all on screen at 80x24."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from tui.app.screens.dialog import Dialog
from tui.app.widgets.key_footer import KeyFooter
from tui.visible import visible

APPLY = "apply"
PUSHED_SHOWN = 4  # entries named at the top; the rest are listed in the summary below
OPTION_KEYS = 3  # options picked with 1-3; more are reached with the arrows
BUTTON_KEY = re.compile(r" \((?:y|esc|\d)\)$")  # "Apply (y)": the key the footer shows anyway
LINE_STYLES = {"before:": "red", "after:": "green", "drop:": "red", "keep:": "green"}


@dataclass(frozen=True)
class Confirmation:
    """What ConfirmScreen shows for a change that is not a curation `Plan` of its own (a
    rescue, a sync, leaving for a demo)."""

    label: str
    summary: list[str]
    preview: object = None  # a Rich renderable, e.g. the diff of every file
    pushed_out: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    apply_label: str = "Apply (y)"


def pushed_warning(pushed: tuple[str, ...]) -> Text:
    text = Text("Applying this would push these entries past Claude's cut:", style="bold")
    for entry in pushed[:PUSHED_SHOWN]:
        text.append(f"\n  {visible(entry)}")
    if len(pushed) > PUSHED_SHOWN:
        text.append(f"\n  … and {len(pushed) - PUSHED_SHOWN} more, listed below")
    text.append("\nMake room first, or apply anyway.", style="bold")
    return text


def summary_renderable(summary: list[str]) -> Group:
    """One bullet per entry; an entry's further lines (a shortened line's before and after)
    under it, their labels in a column of their own, in red and green."""
    parts = []
    for entry in summary:
        first, *rest = visible(entry).split("\n")
        if not rest:
            parts.append(Text(f"• {first}"))
            continue
        lines = Table.grid(padding=(0, 1))
        lines.add_column(no_wrap=True)
        lines.add_column()
        for line in rest:
            label, _, text = line.strip().partition(" ")
            if label not in LINE_STYLES:
                label, text = "", line.strip()
            style = LINE_STYLES.get(label, "")
            lines.add_row(Text(label, style=f"bold {style}"), Text(text.strip(), style=style))
        entry_grid = Table.grid(padding=(0, 1))
        entry_grid.add_column(no_wrap=True)
        entry_grid.add_column()
        entry_grid.add_row("•", Group(Text(first), lines))
        parts.append(entry_grid)
    return Group(*parts)


class ConfirmScreen(Dialog[str | None]):
    """Dismisses with "apply", one of the plan's options, or None when cancelled.

    It opens on Cancel, the safe choice: enter presses the focused button, the arrows move
    between the buttons, `y` applies (never a change that pushes entries past the cut: that
    takes the "Apply anyway" button), `1`-`3` pick an option, and the footer says which.
    """

    AUTO_FOCUS = "#cancel"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="confirm.cancel"),
        Binding("y", "apply", "Apply", id="confirm.apply"),
        # Before the button's own enter, so the footer can say what enter presses now.
        Binding("enter", "press_focused", "Press", priority=True, id="confirm.press"),
        Binding("right", "app.focus_next", "Choose", key_display="←→", id="confirm.choose"),
        Binding("left", "app.focus_previous", "Choose", show=False),
        *(Binding(str(number), f"option({number - 1})", "Option", id=f"confirm.option_{number}")
          for number in range(1, OPTION_KEYS + 1)),
        Binding("up", "scroll_summary(-1)", "Scroll up", show=False),
        Binding("down", "scroll_summary(1)", "Scroll down", show=False),
        Binding("pageup", "scroll_summary(-10)", "Page up", show=False),
        Binding("pagedown", "scroll_summary(10)", "Page down", show=False),
    ]
    FOOTER_KEYS: ClassVar[tuple[str, ...]] = (
        "confirm.press", "confirm.cancel", "confirm.apply", "confirm.choose",
        *(f"confirm.option_{number}" for number in range(1, OPTION_KEYS + 1)),
    )

    def __init__(self, plan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        plan = self.plan
        with Vertical(id="confirm-dialog"):
            yield Static(Text(visible(plan.label)), id="confirm-title")
            if plan.pushed_out:
                yield Static(pushed_warning(plan.pushed_out), id="confirm-pushed")
            # Scrolled by the arrow keys whatever button has focus.
            with VerticalScroll(id="confirm-summary", can_focus=False):
                yield Static(summary_renderable(plan.summary))
                preview = getattr(plan, "preview", None)  # a renderable, e.g. a diff
                if preview is not None:
                    yield Static(preview, id="confirm-preview")
            if plan.options:  # other plans to choose instead (make room, another side)
                with Horizontal(id="confirm-options"):
                    for number, option in enumerate(plan.options):
                        label = option.capitalize()
                        if number < OPTION_KEYS:
                            label += f" ({number + 1})"
                        yield Button(label, id=f"option-{number}", compact=True,
                                     variant="primary")
            with Horizontal(id="confirm-buttons"):
                if plan.pushed_out:
                    yield Button("Apply anyway", id="apply", compact=True, variant="warning")
                else:
                    yield Button(getattr(plan, "apply_label", "Apply (y)"), id="apply",
                                 compact=True, variant="primary")
                yield Button("Cancel (esc)", id="cancel", compact=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.call_after_refresh(self.fit_summary)

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit_summary)

    def fit_summary(self) -> None:
        """Let the summary scroll in the rows the rest leaves, so the consequence above it
        and the buttons below it are always on screen."""
        dialog = self.query_one("#confirm-dialog")
        summary = self.query_one("#confirm-summary")
        used = dialog.styles.gutter.height + sum(
            child.styles.margin.top + child.styles.margin.bottom
            + (0 if child is summary else child.outer_size.height)
            for child in dialog.children)
        footer = self.query_one(KeyFooter).outer_size.height
        summary.styles.max_height = max(2, self.size.height - footer - used)

    @on(Button.Pressed)
    def chosen(self, event: Button.Pressed) -> None:
        button = event.button.id or ""
        if button == "apply":
            self.dismiss(APPLY)
        elif button.startswith("option-"):
            self.dismiss(self.plan.options[int(button.removeprefix("option-"))])
        else:
            self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "apply":
            # Pushing entries past the cut takes the "Apply anyway" button, never a stray y.
            return not self.plan.pushed_out
        if action == "option":
            return parameters[0] < len(self.plan.options)
        if action == "press_focused":
            return isinstance(self.focused, Button)
        return True

    def describe_key(self, binding_id: str) -> str | None:
        """Enter says which button it presses; y, what the apply button says ("Open the
        demo"); a number key, which option it picks."""
        if binding_id == "confirm.press" and isinstance(self.focused, Button):
            return BUTTON_KEY.sub("", str(self.focused.label))
        if binding_id == "confirm.apply" and not self.plan.pushed_out:
            return BUTTON_KEY.sub("", getattr(self.plan, "apply_label", "Apply (y)"))
        if binding_id.startswith("confirm.option_"):
            number = int(binding_id.removeprefix("confirm.option_")) - 1
            if number < len(self.plan.options):
                return self.plan.options[number].capitalize()
        return None

    def action_press_focused(self) -> None:
        if isinstance(self.focused, Button):
            self.focused.press()

    def action_option(self, number: int) -> None:
        self.dismiss(self.plan.options[number])

    def action_scroll_summary(self, rows: int) -> None:
        self.query_one("#confirm-summary", VerticalScroll).scroll_relative(
            y=rows, animate=False)

    def action_apply(self) -> None:
        self.dismiss(APPLY)

    def action_cancel(self) -> None:
        self.dismiss(None)


def confirm_then(app, plan, on_apply: Callable[[], object]) -> None:
    """Show `plan` to confirm; `on_apply()` once the user applies it, nothing on cancel."""

    def decided(choice: str | None) -> None:
        if choice == APPLY:
            on_apply()

    app.push_screen(ConfirmScreen(plan), decided)
