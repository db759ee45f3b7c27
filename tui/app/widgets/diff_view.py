"""Coloured diffs of two texts as Rich renderables: unified, or side by side.

Lines and their numbers are Claude Code's: split on `\n` only."""

from __future__ import annotations

import difflib

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from tui.claude.lines import lines_with_endings
from tui.visible import visible

CONTEXT = 3
REMOVED = "red"
ADDED = "green"
HUNK = "cyan"


def _lines(text: str) -> list[str]:
    return [line.removesuffix("\n") for line in lines_with_endings(text)]


def render_diff(old: str, new: str, old_label: str, new_label: str, *,
                side_by_side: bool = False) -> RenderableType:
    if old == new:
        return Text("No difference.", style="dim")
    old, new = visible(old), visible(new)
    if side_by_side:
        return side_by_side_diff(old, new, old_label, new_label)
    return unified_diff(old, new, old_label, new_label)


def unified_diff(old: str, new: str, old_label: str, new_label: str) -> Text:
    out = Text()
    for line in difflib.unified_diff(_lines(old), _lines(new), old_label, new_label,
                                     n=CONTEXT, lineterm=""):
        if line.startswith(("---", "+++")):
            style = "bold"
        elif line.startswith("@@"):
            style = HUNK
        elif line.startswith("-"):
            style = REMOVED
        elif line.startswith("+"):
            style = ADDED
        else:
            style = ""
        out.append(line + "\n", style=style)
    return out


def side_by_side_diff(old: str, new: str, old_label: str, new_label: str) -> Table:
    """Changed regions with a little context; removed lines left in red, added right in green."""
    left, right = _lines(old), _lines(new)
    table = Table(box=None, expand=True, padding=(0, 1), show_edge=False)
    table.add_column("", justify="right", style="dim", no_wrap=True)
    table.add_column(old_label, ratio=1, overflow="fold")
    table.add_column("", justify="right", style="dim", no_wrap=True)
    table.add_column(new_label, ratio=1, overflow="fold")
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    for number, group in enumerate(matcher.get_grouped_opcodes(CONTEXT)):
        if number:
            table.add_row("", Text("⋯", style=HUNK), "", Text("⋯", style=HUNK))
        for tag, i1, i2, j1, j2 in group:
            for offset in range(max(i2 - i1, j2 - j1)):
                i, j = i1 + offset, j1 + offset
                old_line = left[i] if i < i2 else None
                new_line = right[j] if j < j2 else None
                style_old = "" if tag == "equal" else REMOVED
                style_new = "" if tag == "equal" else ADDED
                table.add_row(
                    str(i + 1) if old_line is not None else "",
                    Text(old_line or "", style=style_old),
                    str(j + 1) if new_line is not None else "",
                    Text(new_line or "", style=style_new),
                )
    return table
