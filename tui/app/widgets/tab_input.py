"""A text field on a screen whose tabs switch with number keys."""

from __future__ import annotations

from textual.widgets import Input

TAB_KEYS = frozenset("1234")


class TabInput(Input):
    """An Input that leaves 1-4 to its screen, so they switch tabs even while it has focus.

    Compact: one row, so the table under it keeps two more at 24 rows.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(compact=True, **kwargs)

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return key not in TAB_KEYS and super().check_consume_key(key, character)
