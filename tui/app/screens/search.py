"""The search screen: every store's memories searched as the query is typed.

The memories are read by a worker (`tui.app.search_index`: the projects screen reads them
first, when idle; each visit reads again only the stores changed since); each query then
runs in a worker of its own, the newest replacing the one before, so typing never waits
for a search. Typed before the memories are first read, a query says how many stores are
read and runs once they all are. Enter opens the memory in its store.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static
from textual.worker import Worker, get_current_worker

from tui.app.memory_rows import type_badge
from tui.app.messages import post_unless_replaced
from tui.app.widgets.app_header import AppHeader
from tui.app.widgets.key_footer import KeyFooter
from tui.app.widgets.virtual_table import VirtualTable
from tui.render import condense, marked_text
from tui.visible import visible
from tui.words import plural

if TYPE_CHECKING:
    from textual.timer import Timer

    from tui.app.search_index import IndexRead
    from tui.claude.discovery import Project
    from tui.memory.search import Corpus, Hit

SHOWN = 200  # results listed; the status says how many more match
INDEXING_INTERVAL = 0.25  # seconds between updates of the stores read, while they are
SEARCH_WAIT = 0.05  # seconds a read waiting for a query looks again whether it is cancelled
LEAD = 12  # characters kept before a line's first match in the results' narrow column
# At 80 columns all four fit: the project's path keeps its end (its own name), the file its
# start, and the matching line takes the width left.
COLUMNS = (("project", 16), ("file", 18), ("type", 4), ("line", 30))
COLUMN_PRIORITY = ("line", "project", "file", "type")


@dataclass(frozen=True)
class HitRow:
    key: str  # the memory's path
    cells: tuple[object, ...]
    hit: Hit


@dataclass
class CorpusRead(Message):
    read: IndexRead


@dataclass
class HitsFound(Message):
    query: str
    hits: list[Hit]
    total: int
    error: str | None


def from_first_mark(line: str, marks: tuple[tuple[int, int], ...]
                    ) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A line for a narrow cell: from a few characters before its first match (the cell
    cuts its end), leading spaces dropped."""
    indent = len(line) - len(line.lstrip())
    start = marks[0][0] if marks else 0
    cut = max(indent, start - LEAD) if start - LEAD > indent else indent
    prefix = "…" if cut > indent else ""
    shift = len(prefix) - cut
    return prefix + line[cut:], tuple((begin + shift, end + shift) for begin, end in marks)


class SearchResults(VirtualTable):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Open", id="search.open",
                tooltip="Open the memory in its store"),
    ]


class SearchScreen(Screen[None]):
    AUTO_FOCUS = "#search-query"
    FOOTER_KEYS: ClassVar[tuple[str, ...]] = ("search.open", "search.back", "app.quit")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="search.back"),
        Binding("down", "to_results", "Results", show=False, id="search.results"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.corpus: Corpus | None = None
        self.projects: dict[str, Project] = {}
        self.told_problems = False
        self.indexing: Timer | None = None  # shows the stores read while a query waits
        self.not_searching = threading.Event()  # cleared while a query is searched
        self.not_searching.set()

    def compose(self) -> ComposeResult:
        yield AppHeader(show_clock=False)
        yield Input(placeholder='search every memory: words, "a phrase"', id="search-query")
        yield Static("Reading every store's memories…", id="search-status")
        yield SearchResults(COLUMNS, stretch="line", priority=COLUMN_PRIORITY,
                            fit={"type"}, grow={"project", "file"}, keep_end={"project"},
                            id="search-results")
        yield Static(id="search-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = "Search every memory"
        self.sub_title = condense(str(self.app.home))
        # A watcher, not Input.Changed: the search starts in the frame the letter is typed.
        self.watch(self.query_one("#search-query", Input), "value", self.query_changed,
                   init=False)
        index = self.app.search_index
        if index.read is not None:  # read while the projects screen was idle: at once
            self.show_read(index.read)
        else:
            self.indexing = self.set_interval(INDEXING_INTERVAL, self.show_indexing)
        self.read_memories()  # again: the stores changed since, if any

    # --- reading and searching ------------------------------------------------------------

    @work(thread=True, exit_on_error=False, exclusive=True, group="search-read")
    def read_memories(self) -> None:
        from tui.app.screens.projects import known_projects

        worker = get_current_worker()
        index = self.app.search_index
        read = index.update(known_projects(self.app), lambda: self.read_cancelled(worker))
        if read is None:
            return
        post_unless_replaced(self, CorpusRead(read))
        index.keep_vocabulary(read)

    def read_cancelled(self, worker: Worker) -> bool:
        """Asked by the read between stores: it waits while a query is searched, so that
        a letter typed as the screen opens has the CPU to itself (the GIL)."""
        while not self.not_searching.wait(SEARCH_WAIT) and not worker.is_cancelled:
            pass
        return worker.is_cancelled

    def show_indexing(self) -> None:
        """What the search waits for, while the memories are first read."""
        if self.corpus is not None:
            return
        index = self.app.search_index
        if not index.stores:
            return  # the stores are still being found
        typed = self.query_one("#search-query", Input).value.strip()
        then = " Your search runs once they are." if typed else ""
        self.query_one("#search-status", Static).update(
            f"Indexing {plural(index.stores, 'store')}… {index.done:,} read.{then}")

    def on_corpus_read(self, message: CorpusRead) -> None:
        if self.corpus is not message.read.corpus:
            self.show_read(message.read)

    def show_read(self, read: IndexRead) -> None:
        self.corpus = read.corpus
        self.projects = read.projects
        if self.indexing is not None:
            self.indexing.stop()
            self.indexing = None
        if not self.told_problems:
            self.told_problems = True
            for problem in read.problems:
                self.notify(problem, title="Not searched", severity="warning")
        self.query_changed()

    def query_changed(self) -> None:
        text = self.query_one("#search-query", Input).value
        status = self.query_one("#search-status", Static)
        if self.corpus is None:
            self.show_indexing()
            return  # searched once the memories are read
        if not text.strip():
            status.update(f"{plural(len(self.corpus), 'memory', 'memories')} in "
                          f"{plural(len(self.projects), 'store')}: type to search them.")
            self.show_hits([])
            return
        self.search(text)

    @work(thread=True, exit_on_error=False, exclusive=True, group="search-query")
    def search(self, text: str) -> None:
        from tui.memory.search import SearchError

        assert self.corpus is not None
        self.not_searching.clear()
        try:
            hits, total = self.corpus.search(text, limit=SHOWN)
        except SearchError as error:
            hits, total, error_text = [], 0, str(error)
        else:
            error_text = None
        finally:
            self.not_searching.set()
        post_unless_replaced(self, HitsFound(text, hits, total, error_text))

    def on_hits_found(self, message: HitsFound) -> None:
        if message.query != self.query_one("#search-query", Input).value:
            return  # typed on since: the newer query's answer follows
        status = self.query_one("#search-status", Static)
        if message.error:
            status.update(message.error)
        elif not message.hits:
            status.update(f"No memory holds “{visible(message.query)}”.")
        else:
            more = (f", the first {len(message.hits)} shown"
                    if message.total > len(message.hits) else "")
            verb = "matches" if message.total == 1 else "match"
            status.update(f"{plural(message.total, 'memory', 'memories')} {verb}{more}.")
        self.show_hits(message.hits)

    def show_hits(self, hits: list[Hit]) -> None:
        rows = [HitRow(hit.document.path, (
            condense(hit.document.project),
            visible(hit.document.file + (f":{hit.line_number}" if hit.line_number else "")),
            type_badge(hit.document.type),
            marked_text(*from_first_mark(hit.line, hit.marks)),
        ), hit) for hit in hits]
        table = self.query_one("#search-results", VirtualTable)
        table.set_rows(rows, "")
        self.show_detail()

    # --- the highlighted result -----------------------------------------------------------

    @on(VirtualTable.Highlighted, "#search-results")
    def show_detail(self) -> None:
        row = self.query_one("#search-results", VirtualTable).highlighted
        detail = self.query_one("#search-detail", Static)
        if row is None:
            detail.update("")
            return
        hit = row.hit
        document = hit.document
        head = Text(condense(document.project), style="bold")
        head.append(f"  {visible(document.file)}", style="cyan")
        if hit.line_number:
            head.append(f":{hit.line_number}", style="cyan")
        head.append("  ")
        head.append_text(type_badge(document.type))
        lines = [head]
        if document.description:
            lines.append(Text(visible(document.description), style="dim"))
        lines.append(marked_text(hit.line, hit.marks))
        detail.update(Text("\n").join(lines))

    @on(VirtualTable.Selected, "#search-results")
    def open_hit(self, event: VirtualTable.Selected) -> None:
        if event.row is None:
            return
        document = event.row.hit.document
        project = self.projects.get(document.store)
        if project is None:
            return
        from tui.app.screens.store import StoreScreen

        self.app.push_screen(StoreScreen(project, highlight=document.file))

    @on(Input.Submitted, "#search-query")
    def action_to_results(self) -> None:
        table = self.query_one("#search-results", VirtualTable)
        if table.rows:
            table.focus()

    def action_back(self) -> None:
        self.app.pop_screen()
