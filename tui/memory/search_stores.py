"""The memories of many stores read for a search, each file once; an unchanged store's are
taken from the last read, or read back from the search cache (`tui.memory.search_cache`),
already folded."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from tui.collector import collector_paused
from tui.memory.audit_cache import SETTLE_NS, fingerprint
from tui.memory.search import Corpus, Document, haystack, head_of
from tui.memory.search_cache import (
    SEPARATOR,
    BodyBlock,
    BodyReader,
    KeptStore,
    SearchCache,
)


class SearchedStore(NamedTuple):
    store: Path
    project: str  # the project's path as `memtui projects` shows it, or the store's


class StoreText(NamedTuple):
    """One store's memories: each one's fields but its body, its body, its haystack."""

    fields: list[list]  # [file, type, name, description, body line, mtime]
    bodies: list[str] | BodyBlock  # or where the cache keeps them, read back when shown
    heads: list[str]  # each one's name and description, folded (a match there ranks first)
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
    heads = [head_of(text) for text in haystacks]
    problems = [f"{store}/{folder.rstrip('/')} cannot be read ({why}): its memories were not "
                "searched." if folder else
                f"{store} cannot be read ({why}): its memories were not searched."
                for folder, why in unreadable]
    return StoreText(fields, bodies, heads, haystacks, problems)


def _document(store: str, project: str, row: list, body: str | None) -> Document:
    file, kind, name, description, first, mtime = row
    return Document(store, project, file, kind, name, description, body, first, mtime)


class StorePart(NamedTuple):
    """Where a store's memories are in a corpus, and what they were read as."""

    fingerprint: str | None  # None: it could not be fingerprinted (read every time)
    start: int
    count: int


def load_corpus(stores: Sequence[SearchedStore], cache: SearchCache | None = None,
                cancelled: Callable[[], bool] = lambda: False,
                previous: Corpus | None = None,
                progress: Callable[[int], None] = lambda done: None,
                ) -> tuple[Corpus, list[str]]:
    """The memories of `stores` and the sentences for what could not be read. A store
    unchanged since `previous` read it is taken from it; else, with a `cache`, since it
    was last kept there (its bodies read back only for the memories shown); else it is
    read. `progress` hears how many stores are done, now and then."""
    with collector_paused():  # 20,000 documents and their texts hold no cycle
        return _load_corpus(stores, cache, cancelled, previous, progress)


def _load_corpus(stores: Sequence[SearchedStore], cache: SearchCache | None,
                 cancelled: Callable[[], bool], previous: Corpus | None,
                 progress: Callable[[int], None]) -> tuple[Corpus, list[str]]:
    documents: list[Document] = []
    heads: list[str] = []
    haystacks: list[str] = []
    problems: list[str] = []
    parts: dict[str, StorePart] = {}
    # Bodies of unchanged stores are read back through the same open cache file.
    bodies = KeptBodies(previous.bodies.reader if previous is not None else None)
    reused = previous.parts if previous is not None else {}
    for done, searched in enumerate(stores):
        if cancelled():
            break
        if done % 64 == 0:
            progress(done)
        store = str(searched.store)
        taken = fingerprint(searched.store)
        listing = taken[0] if taken is not None else None
        part = reused.get(store)
        start = len(documents)
        if part is not None and listing is not None and part.fingerprint == listing:
            assert previous is not None
            end = part.start + part.count
            documents.extend(d if d.project == searched.project else replace(
                d, project=searched.project) for d in previous.documents[part.start:end])
            heads.extend(previous.heads[part.start:end])
            haystacks.extend(previous.haystacks[part.start:end])
            bodies.take_from(previous.bodies, store)
        else:
            text = _store_text(searched.store, cache, taken)
            problems.extend(text.problems)
            bodies.add(store, text)
            documents.extend(_document(store, searched.project, row, None)
                             for row in text.fields)
            heads.extend(text.heads)
            haystacks.extend(text.haystacks)
            if text.problems or not settled(taken, cache.clock if cache else time.time_ns):
                # Read again next time: what failed may work then; a store changed in the
                # last two seconds may change again in the same clock tick, its size too.
                listing = None
        parts[store] = StorePart(listing, start, len(documents) - start)
    corpus = Corpus(documents, haystacks, bodies, heads)
    corpus.parts = parts
    if all(part.fingerprint is not None for part in parts.values()) and len(parts) == len(
            stores):
        corpus.read_as = _read_as({store: part.fingerprint for store, part in parts.items()})
        if (previous is not None and previous.read_as == corpus.read_as
                and previous.has_vocabulary):
            corpus.vocabulary = previous.vocabulary
        elif cache is not None and (words := cache.get_words(corpus.read_as)) is not None:
            corpus.vocabulary = words.split()
    if cache is not None:
        cache.save()
    return corpus, problems


def settled(taken: tuple[str, int] | None, clock: Callable[[], int]) -> bool:
    """Whether a store whose fingerprint is `taken` may be taken again while it holds."""
    return taken is not None and clock() - taken[1] >= SETTLE_NS


def keep_vocabulary(corpus: Corpus, cache: SearchCache) -> None:
    """Keep the words of the memories for the next search of the same stores, if a search
    needed them (a typo) and every store could be fingerprinted."""
    if corpus.read_as is not None and corpus.has_vocabulary:
        cache.put_words(corpus.read_as, " ".join(corpus.vocabulary))


def _read_as(listings: dict[str, str]) -> str:
    import hashlib

    listed = "\n".join(f"{store}\0{listing}" for store, listing in sorted(listings.items()))
    return hashlib.blake2b(listed.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


class KeptBodies:
    """The bodies of a corpus's memories: given, or read back from the cache file one at
    a time when first shown (from the disk, the whole store, when the file was written
    again since)."""

    def __init__(self, reader: BodyReader | None = None) -> None:
        # store -> {file: its place in the store}, and the bodies or where they are kept
        self.sources: dict[str, tuple[dict[str, int], BodyBlock | list[str]]] = {}
        self.read: dict[tuple[str, str], str] = {}
        self.reader = reader or BodyReader()

    def add(self, store: str, text: StoreText) -> None:
        places = {row[0]: position for position, row in enumerate(text.fields)}
        self.sources[store] = (places, text.bodies)

    def take_from(self, other: KeptBodies, store: str) -> None:
        self.sources[store] = other.sources[store]

    def __call__(self, document: Document) -> str:
        key = (document.store, document.file)
        body = self.read.get(key)
        if body is None:
            body = self.read[key] = self._read(document.store, document.file)
        return body

    def _read(self, store: str, file: str) -> str:
        places, source = self.sources.get(store, ({}, []))
        position = places.get(file)
        if position is None:
            return ""
        if not isinstance(source, BodyBlock):
            return source[position]
        body = self.reader.body(source, position)
        if body is not None:
            return body
        text = read_store_text(Path(store))  # the cache file was written again since
        self.sources[store] = ({row[0]: at for at, row in enumerate(text.fields)},
                               text.bodies)
        return self._read(store, file)


def _store_text(store: Path, cache: SearchCache | None,
                taken: tuple[str, int] | None) -> StoreText:
    """The store's memories: from the cache when it kept them under the fingerprint
    `taken`, else read (and given to the cache to keep)."""
    if cache is not None and taken is not None:
        kept = cache.get(store, taken[0])
        if kept is not None:
            return StoreText(kept.fields, kept.bodies, kept.heads, kept.haystacks, [])
    text = read_store_text(store)
    if cache is not None and taken is not None and not text.problems:
        cache.put(store, *taken, KeptStore(text.fields, text.heads, text.haystacks,
                                           text.bodies))
    return text
