"""The memories of many stores read for a search, each file once; an unchanged store's are
read back from the audit cache (`tui.memory.audit_cache`), under the fingerprint its
findings are kept by, already folded."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from tui.memory.audit_cache import AuditCache, KeptSearch, fingerprint
from tui.memory.search import Corpus, Document, haystack

# Bodies and haystacks are kept joined by NUL, which no text memory holds (a file with
# one is no text, and searched by its name only): SQLite hands back one string, split
# in C, where JSON would decode 40 MB of escapes.
SEPARATOR = "\0"


class SearchedStore(NamedTuple):
    store: Path
    project: str  # the project's path as `memtui projects` shows it, or the store's


class StoreText(NamedTuple):
    """One store's memories: each one's fields but its body, its body, its haystack."""

    fields: list[list]  # [file, type, name, description, body line, mtime]
    bodies: list[str] | None  # None: kept in the cache, read back when shown
    haystacks: list[str]
    problems: list[str]  # what could not be read, one sentence each


def read_store_text(store: Path) -> StoreText:
    from tui.memory.store import read_memories

    memories, unreadable = read_memories(store)
    fields: list[list] = []
    bodies: list[str] = []
    for memory in memories:
        stem = memory.file.rpartition("/")[2].removesuffix(".md")
        front = memory.frontmatter
        if SEPARATOR in memory.text:  # no text: found by its file name only
            row, body = [memory.file, None, stem, "", 1, memory.mtime], ""
        elif front.error:  # its block is text the user wrote: searched as body
            row, body = [memory.file, None, stem, "", 1, memory.mtime], memory.text
        else:
            body = front.body
            first = memory.text.count("\n", 0, len(memory.text) - len(body)) + 1
            row = [memory.file, front.type, front.name or stem, front.description or "",
                   first, memory.mtime]
        fields.append(row)
        bodies.append(body)
    haystacks = [haystack(_document("", "", row, body))
                 for row, body in zip(fields, bodies, strict=True)]
    problems = [f"{store}/{folder.rstrip('/')} cannot be read ({why}): its memories were not "
                "searched." if folder else
                f"{store} cannot be read ({why}): its memories were not searched."
                for folder, why in unreadable]
    return StoreText(fields, bodies, haystacks, problems)


def _document(store: str, project: str, row: list, body: str) -> Document:
    file, kind, name, description, first, mtime = row
    return Document(store, project, file, kind, name, description, body, first, mtime)


def load_corpus(stores: Sequence[SearchedStore], cache: AuditCache | None = None,
                cancelled: Callable[[], bool] = lambda: False) -> tuple[Corpus, list[str]]:
    """The memories of `stores` and the sentences for what could not be read. With a
    `cache`, a store unchanged since it was last read comes from it, its bodies read back
    only for the memories shown."""
    documents: list[Document] = []
    haystacks: list[str] = []
    problems: list[str] = []
    listings: dict[str, str] = {}  # store -> the fingerprint its bodies are kept under
    for searched in stores:
        if cancelled():
            break
        text, listing = _store_text(searched.store, cache)
        problems.extend(text.problems)
        store = str(searched.store)
        if listing is not None:
            listings[store] = listing
        bodies = text.bodies if text.bodies is not None else [None] * len(text.fields)
        documents.extend(_document(store, searched.project, row, body)
                         for row, body in zip(text.fields, bodies, strict=True))
        haystacks.extend(text.haystacks)
    kept = KeptBodies(cache.path if cache is not None else None, listings)
    corpus = Corpus(documents, haystacks, kept)
    if cache is not None and len(listings) == len(stores):
        corpus.read_as = _read_as(listings)
        words = cache.get_search_words(corpus.read_as)
        if words is not None:
            corpus.vocabulary = words.split()
    return corpus, problems


def keep_vocabulary(corpus: Corpus, cache: AuditCache) -> None:
    """Keep the words of the memories for the next search of the same stores, if a search
    needed them (a typo) and every store came from the cache."""
    if corpus.read_as is not None and corpus.has_vocabulary:
        cache.put_search_words(corpus.read_as, " ".join(corpus.vocabulary))


def _read_as(listings: dict[str, str]) -> str:
    import hashlib

    listed = "\n".join(f"{store}\0{listing}" for store, listing in sorted(listings.items()))
    return hashlib.blake2b(listed.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


class KeptBodies:
    """The bodies of memories that came from the cache without them, read back a store at a
    time; a store changed since (or gone from the cache) is read again."""

    def __init__(self, cache: Path | None, listings: dict[str, str]) -> None:
        self.cache = cache  # its file: opened for each read, from whichever thread asks
        self.listings = listings
        self.stores: dict[str, dict[str, str]] = {}

    def __call__(self, document: Document) -> str:
        bodies = self.stores.get(document.store)
        if bodies is None:
            bodies = self.stores[document.store] = self._read(document.store)
        return bodies.get(document.file, "")

    def _read(self, store: str) -> dict[str, str]:
        listing = self.listings.get(store)
        if self.cache is not None and listing is not None:
            with AuditCache(self.cache) as cache:
                bodies = cache.get_searched_bodies(Path(store), listing)
                kept = cache.get_searched(Path(store), listing)
            if bodies is not None and kept is not None:
                files = [row[0] for row in json.loads(kept.fields)]
                return dict(zip(files, bodies.split(SEPARATOR), strict=True))
        text = read_store_text(Path(store))
        return {row[0]: body for row, body in zip(text.fields, text.bodies, strict=True)}


def _store_text(store: Path, cache: AuditCache | None) -> tuple[StoreText, str | None]:
    """The store's memories, and the fingerprint they are kept under (None: not kept).
    Those read from the cache come without their bodies; those read now, with them."""
    if cache is None:
        return read_store_text(store), None
    taken = fingerprint(store)
    if taken is not None:
        kept = cache.get_searched(store, taken[0])
        if kept is not None:
            fields = json.loads(kept.fields)
            if not fields:
                return StoreText([], [], [], []), taken[0]
            return StoreText(fields, None, kept.haystacks.split(SEPARATOR), []), taken[0]
    text = read_store_text(store)
    if taken is not None and cache.settled(taken[1]) and not text.problems:
        cache.put_searched(store, taken[0], KeptSearch(
            json.dumps(text.fields), SEPARATOR.join(text.bodies),
            SEPARATOR.join(text.haystacks)))
        return text, taken[0]
    return text, None
