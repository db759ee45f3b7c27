"""Recall preview: a word-overlap estimate of what the selector would pick for a question,
what only a model can tell, the model's own pick, and who can never be recalled."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from tui.memory.recall import RecallEstimate, estimate, manifest_line, never_recalled
from tui.memory.store import RECALL_SCAN_LIMIT, Store


@dataclass
class ModelPicked(Message):
    """The model's answer for a query: the files it picked, or why there are none."""

    query: str
    files: list[str]
    error: str | None = None


class RecallView(Vertical):
    DEFAULT_CSS = """
    RecallView #recall-columns { height: auto; }
    RecallView #recall-results, RecallView #recall-model { width: 1fr; padding-right: 2; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.store: Store | None = None
        self.model_config = None  # the core's ClientConfig once a key is configured
        self.model_query = ""  # the question the model column answers (or is asked)

    def compose(self):
        yield Input(placeholder="what would you ask Claude?", compact=True, id="recall-query")
        with VerticalScroll():
            with Horizontal(id="recall-columns"):
                yield Static(id="recall-results")
                yield Static(id="recall-model")
            yield Static(id="recall-never")

    def on_mount(self) -> None:
        from tui.agents.client import EngineError, load_config

        try:
            config = load_config(self.app.env)
        except EngineError as error:
            self.show_model(Text(f"Model column: {error}", style="yellow"))
            return
        if config.has_credentials:
            self.model_config = config
            self.show_model(Text(f"Press enter to ask {config.model} which memories it would "
                                 "pick from the lines the selector reads.", style="dim"))
        else:
            self.show_model(Text("The model column needs ANTHROPIC_API_KEY (or "
                                 "ANTHROPIC_AUTH_TOKEN) to ask the model.", style="dim"))

    def show_model(self, content) -> None:
        self.query_one("#recall-model", Static).update(content)

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
            results.update(Text("Type a question to estimate, by the words it shares with "
                                "their types and descriptions (all the selector reads), which "
                                "memories the selector could pick.", style="dim"))
            return
        guess = estimate(self.store, query)
        parts: list = [Text("Word-overlap estimate (the selector is a model: it picks by "
                            "meaning, not by shared words):", style="bold")]
        if guess.matches:
            table = Table(show_header=True, box=None, header_style="bold", expand=True)
            table.add_column("overlap", justify="right", width=7)
            table.add_column("manifest line the selector reads")
            for match in guess.matches:
                table.add_row(f"{match.score:.0f}", Text(match.manifest_line))
            parts.append(table)
        else:
            parts.append(Text("no memory's type or description shares a word with the "
                              "question.", style="yellow"))
        parts += self.beyond_words(guess)
        results.update(Group(*parts))

    def beyond_words(self, guess: RecallEstimate) -> list[Text]:
        """What shared words cannot tell: the question's words no description has."""
        if not guess.needs_model:
            return []
        words = " or ".join(f"“{word}”" for word in guess.unshared)
        ask = (f"press enter to ask {self.model_config.model}" if self.model_config is not None
               else "the model column asks one once ANTHROPIC_API_KEY is set")
        lines = [Text(f"\nNo description says {words}: whether a memory that says it in "
                      f"other words answers it, only a model can tell ({ask}).", style="yellow")]
        if guess.in_text_only:
            said = ", ".join(f"{file} ({', '.join(words)})" for file, words in guess.in_text_only)
            lines.append(Text(f"Said only in their text, which the selector never reads: "
                              f"{said}.", style="dim"))
        return lines

    @on(Input.Submitted, "#recall-query")
    def ask_model(self, event: Input.Submitted) -> None:
        query = event.value.strip()
        if self.model_config is None or self.store is None or not query:
            return
        self.model_query = query
        self.show_model(Text(f"Asking {self.model_config.model} …", style="dim"))
        self.run_worker(partial(self.model_picks, self.store, query, self.model_config),
                        thread=True, exclusive=True, group="recall-model", exit_on_error=False)

    def model_picks(self, store: Store, query: str, config) -> None:
        from tui.agents.client import EngineError
        from tui.agents.recall import ask_model

        try:
            self.post_message(ModelPicked(query, ask_model(store, query, config)))
        except EngineError as error:
            self.post_message(ModelPicked(query, [], str(error)))

    def on_model_picked(self, message: ModelPicked) -> None:
        if message.query != self.model_query or self.store is None:
            return  # a newer question is on its way
        title = Text.assemble((f"Model {self.model_config.model}", "bold"),
                              f", from the lines the selector reads, for “{message.query}”:")
        if message.error:
            self.show_model(Group(title, Text(message.error, style="bold red")))
        elif not message.files:
            self.show_model(Group(title, Text("it picked nothing.", style="yellow")))
        else:
            lines = [Text(manifest_line(memory)) for file in message.files
                     if (memory := self.store.memory(file)) is not None]
            self.show_model(Group(title, *lines))
