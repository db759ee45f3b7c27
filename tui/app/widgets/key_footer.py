"""The footer: a screen's most used keys, as many as fit whole, and F1 for all the others.

A screen ranks its keys by binding id, most used first: a `FOOTER_KEYS` tuple, or a
`footer_keys()` method when the ranking depends on what is shown (the store screen's tab,
the highlighted finding); `describe_key(id)` words a key from what is shown. Keys are laid
out in that order and a key whose label does not fit is left out, never cut; F1 stays at
the right end, since the help panel lists them all.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

HELP_KEY = "app.help"
HELP_WIDTH = 2  # the help key's border and padding
# While the command palette covers the screen, what its keys do: the screen's own keys
# do nothing until it closes.
PALETTE_KEYS = (("enter", "⏎", "Run"), ("down", "↑↓", "Choose"), ("escape", "esc", "Close"))


def ranked_keys(screen) -> Sequence[str]:
    """The screen's key ids, most used first, each once (a highlighted finding's fix may
    be one of the screen's own first keys already)."""
    ranking = getattr(screen, "footer_keys", None)
    keys = ranking() if callable(ranking) else getattr(screen, "FOOTER_KEYS", ())
    return tuple(dict.fromkeys(keys))


def key_description(screen, binding) -> str:
    """A key's label; a screen may word it from what it shows (`describe_key`: a dialog's
    choices, the button enter presses)."""
    describe = getattr(screen, "describe_key", None)
    described = describe(binding.id) if callable(describe) and binding.id else None
    return described or binding.description


def key_width(key_display: str, description: str) -> int:
    """A compact key's cells: the key, a space, the label and a space after it."""
    return cell_len(key_display) + 1 + cell_len(description) + 1


class KeyFooter(Footer):
    DEFAULT_CSS = """
    KeyFooter FooterKey.-help {
        dock: right;
        padding-right: 1;
        border-left: vkey $foreground 20%;
    }
    """

    def __init__(self) -> None:
        super().__init__(show_command_palette=False, compact=True)
        self.composed_width = 0
        self.showing_palette = False  # the palette's keys are shown, not the screen's

    def on_mount(self) -> None:
        super().on_mount()
        self.app.screen_change_signal.subscribe(self, self.screen_changed)

    def on_unmount(self) -> None:
        super().on_unmount()
        self.app.screen_change_signal.unsubscribe(self)

    def screen_changed(self, _screen) -> None:
        """The palette opened over this footer's screen, or closed: its keys, or ours."""
        if self.covered != self.showing_palette and self._bindings_ready:
            self.call_after_refresh(self.recompose)

    @property
    def covered(self) -> bool:
        """Whether the command palette is open over this footer's screen."""
        from textual.command import CommandPalette

        stack = self.app.screen_stack
        return self.screen in stack and isinstance(stack[-1], CommandPalette)

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self.showing_palette = self.covered
        if self.showing_palette:
            for key, display, description in PALETTE_KEYS:
                yield FooterKey(key, display, description, "")
            return
        screen = self.screen
        width = self.size.width or self.app.size.width
        self.composed_width = width
        enabled_by_id = {}
        for _, binding, enabled, tooltip in screen.active_bindings.values():
            if binding.id and enabled and binding.id not in enabled_by_id:
                enabled_by_id[binding.id] = (binding, tooltip)
        help_key = enabled_by_id.get(HELP_KEY)
        room = width
        if help_key is not None:
            binding = help_key[0]
            room -= key_width(self.app.get_key_display(binding), binding.description) + HELP_WIDTH
        for key_id in ranked_keys(screen):
            if key_id == HELP_KEY or key_id not in enabled_by_id:
                continue
            binding, tooltip = enabled_by_id[key_id]
            display = self.app.get_key_display(binding)
            description = key_description(screen, binding)
            needed = key_width(display, description)
            if needed > room:
                continue  # a shorter key further down may still fit
            room -= needed
            # Compact by FooterKey's own default, not data_bind: a binding is a watcher on this
            # footer that outlives its key, and every recomposition left its keys behind.
            yield FooterKey(binding.key, display, description, binding.action,
                            tooltip=tooltip or binding.tooltip)
        if help_key is not None:
            binding, tooltip = help_key
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description,
                            binding.action, classes="-help",
                            tooltip=tooltip or "Every key of this screen")

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self.composed_width and self._bindings_ready:
            self.call_after_refresh(self.recompose)
