"""MEMORY.md as Claude Code loads it: a rule where the cut falls, what is past it dimmed."""

from __future__ import annotations

from rich.console import Group
from rich.rule import Rule
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.memory.index import MAX_CHARS, MAX_LINES, LoadedIndex

CUT_RULE = "Claude's cut: nothing below this line is loaded"


def _limit_style(index: LoadedIndex, limit: str) -> str:
    return "bold red" if index.cut in (limit, "both") else "bold"


def index_renderable(index: LoadedIndex) -> Group:
    if not index.exists:
        return Group(Text("This store has no MEMORY.md: Claude starts with no index.",
                          style="yellow"))
    parts: list = [
        Text.assemble(
            ("lines ", "dim"), (f"{index.lines}/{MAX_LINES}", _limit_style(index, "lines")),
            ("   chars ", "dim"), (f"{index.chars:,}/{MAX_CHARS:,}", _limit_style(index, "chars")),
            ("   loaded ", "dim"), (f"{index.loaded_lines} lines", "bold"),
        ),
    ]
    if index.warning:
        parts.append(Text(f"Claude sees: {index.warning}", style="bold yellow"))
    parts.append(Text(""))
    ruled = False
    width = len(str(len(index.raw_lines)))
    for line in index.raw_lines:
        if line.state == "cut" and not ruled:
            parts.append(Rule(CUT_RULE, style="bold red"))
            ruled = True
        number = Text(f"{line.number:>{width}} ", style="dim")
        if line.state == "loaded":
            body = Text(line.text)
        elif line.state == "cut":
            body = Text(line.text, style="dim")
        else:
            marker = ("  ⟵ stripped", "italic cyan") if line.text.strip() else ""
            body = Text.assemble((line.text, "dim italic"), marker)
        parts.append(Text.assemble(number, body, no_wrap=True, overflow="ellipsis"))
    return Group(*parts)


class IndexView(VerticalScroll):
    def compose(self):
        yield Static(id="index-text")

    def show(self, index: LoadedIndex) -> None:
        self.query_one("#index-text", Static).update(index_renderable(index))
