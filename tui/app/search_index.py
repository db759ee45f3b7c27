"""Every store's memories read for the search screen, kept by the app between visits.

The projects screen reads them once its scan is done (a worker: the screen is idle by
then), so the search screen's first keystroke never waits for 20,000 files; each visit
reads again only the stores changed since (a fingerprint per store: a `stat` of each
file). One read at a time: a second waits for the first and then finds little to do.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from tui.claude.discovery import Project
    from tui.memory.search import Corpus


class IndexRead(NamedTuple):
    corpus: Corpus
    projects: dict[str, Project]  # store path -> its project, to open it
    problems: list[str]


class SearchIndex:
    def __init__(self, clock: Callable[[], int] = time.time_ns) -> None:
        self.clock = clock  # when a store changed last is judged by (tests: long after)
        self.read: IndexRead | None = None  # the last read, whole
        self.reading = threading.Lock()
        self.stores = 0  # how many stores the read under way reads
        self.done = 0  # and how many it has read
        self.searched: list = []  # the stores of the last read, with their projects' labels

    def update(self, projects: Iterable[Project],
               cancelled: Callable[[], bool] = lambda: False) -> IndexRead | None:
        """Read the stores of `projects` again, from the last read where unchanged (then
        the search cache, then the disk); None when cancelled. Call it from a worker."""
        from tui.memory import search_stores
        from tui.memory.search_cache import SearchCache

        known = {str(p.store): p for p in projects if p.store is not None and p.store_exists}
        stores = [search_stores.SearchedStore(
            p.store, p.key_path or (p.paths[0] if p.paths else None) or str(p.store))
            for p in known.values()]
        with self.reading:
            if cancelled():
                return None
            self.stores, self.done = len(stores), 0
            last = self.read
            with SearchCache(clock=self.clock) as cache:
                corpus, problems = search_stores.load_corpus(
                    stores, cache, cancelled, previous=last and last.corpus,
                    progress=self._progress)
            if cancelled():
                return None
            self.done = len(stores)
            if (last is not None and corpus.read_as is not None
                    and corpus.read_as == last.corpus.read_as and stores == self.searched):
                return last  # nothing changed: the same corpus, with what it learnt
            self.read, self.searched = IndexRead(corpus, known, problems), stores
        return self.read

    def keep_vocabulary(self, read: IndexRead) -> None:
        """Make the words near-word queries look among now, not at the first typo; kept
        in the cache for the next run. Call it from a worker."""
        from tui.memory.search_cache import SearchCache
        from tui.memory.search_stores import keep_vocabulary

        if not read.corpus.has_vocabulary:
            read.corpus.vocabulary  # noqa: B018 - made now
            keep_vocabulary(read.corpus, SearchCache(clock=self.clock))

    def _progress(self, done: int) -> None:
        self.done = done
