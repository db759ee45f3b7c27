"""Recall preview: what the offline matcher would pick for a question, and who never can be."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Static

from tui.memory.recall import never_recalled, rank
from tui.memory.store import RECALL_SCAN_LIMIT, Store


class RecallView(Vertical):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.store: Store | None = None

    def compose(self):
        yield Input(placeholder="what would you ask Claude?", id="recall-query")
        with VerticalScroll():
            yield Static(id="recall-results")
            yield Static(id="recall-never")

    def show(self, store: Store) -> None:
        self.store = store
        self.update_results(self.query_one("#recall-query", Input).value)
        unreachable = never_recalled(store)
        if unreachable:
            text = Text.assemble(
                (f"\nNever recalled ({len(unreachable)}): ", "bold red"),
                f"outside the {RECALL_SCAN_LIMIT} newest files the selector reads\n",
                *(f"  {m.file}\n" for m in unreachable),
            )
        else:
            text = Text(f"\nEvery memory is among the {RECALL_SCAN_LIMIT} newest files: "
                        "all can be recalled.", style="dim")
        self.query_one("#recall-never", Static).update(text)

    @on(Input.Changed, "#recall-query")
    def query_changed(self, event: Input.Changed) -> None:
        self.update_results(event.value)

    def update_results(self, query: str) -> None:
        results = self.query_one("#recall-results", Static)
        if self.store is None or not query.strip():
            results.update(Text("Type a question to see which memories the selector "
                                "(descriptions and types only) would rank.", style="dim"))
            return
        matches = rank(self.store, query)
        if not matches:
            results.update(Text("No memory's description matches: "
                                "the selector would pick nothing.", style="yellow"))
            return
        table = Table(show_header=True, box=None, header_style="bold", expand=True)
        table.add_column("score", justify="right", width=6)
        table.add_column("manifest line the selector reads")
        for match in matches:
            table.add_row(f"{match.score:.0f}", Text(match.manifest_line))
        results.update(Group(Text("Top picks (at most 5):", style="bold"), table))
