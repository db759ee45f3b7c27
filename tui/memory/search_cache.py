"""What `memtui search` read of each store, kept in one file under the XDG cache, by the
store's fingerprint (`tui.memory.audit_cache.fingerprint`: every entry's inode, size, mtime
and ctime), so a changed memory is read again and found by its new words at once.

One file, read in one go: a JSON head placing each store, then every store's memories'
fields, folded names and descriptions and folded haystacks, then their bodies, joined by
NUL (which no text memory holds). The 40 MB of haystacks of 20,000 memories are one read
and a decode per store, where 674 SQLite rows took longer; a body is read back
(`os.pread`) only when its memory is shown. A run that read a store anew writes the whole
file again, to a temporary file replaced at once: a reader holds the old one or the new
one, never half of each.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from tui import xdg
from tui.memory.audit_cache import SETTLE_NS, rules_digest

MAGIC = b"memtui search cache 2\n"
GENERATION_BYTES = 16  # hex characters naming one writing of the file
PREFIX = len(MAGIC) + GENERATION_BYTES + 12  # magic, generation, the head's length (hex)
SEPARATOR = "\0"
COLUMNS = 9  # texts kept per memory: its six fields, its body's length, head, haystack


class KeptStore(NamedTuple):
    """A store's memories as search reads them."""

    fields: list[list]  # [file, type, name, description, body line, mtime] per memory
    heads: list[str]  # name and description, folded
    haystacks: list[str]
    bodies: BodyBlock | list[str]  # where to read them back, or the bodies themselves


class BodyBlock(NamedTuple):
    """Where a store's bodies are in one writing of the file."""

    path: Path
    generation: bytes
    start: int  # from the file's start
    lengths: list[int]  # of each body, in bytes; one NUL after each but the last

    def place(self, position: int) -> tuple[int, int]:
        """(offset in the file, bytes) of the body at `position`."""
        before = sum(self.lengths[:position]) + position
        return self.start + before, self.lengths[position]

    @property
    def length(self) -> int:
        return sum(self.lengths) + max(len(self.lengths) - 1, 0)


def _encode(texts: Iterable[str]) -> bytes:
    return SEPARATOR.join(texts).encode("utf-8", "surrogatepass")


def _decode(data: bytes) -> list[str]:
    return data.decode("utf-8", "surrogatepass").split(SEPARATOR)


class BodyReader:
    """Reads bodies back from the cache file a block names, opening each writing of it
    once: a file written again since is replaced, never changed, so the one opened holds
    that writing's bytes for as long as it is open."""

    def __init__(self) -> None:
        self.opened: dict[tuple[Path, bytes], int | None] = {}
        self.lock = threading.Lock()  # a replaced search may still be reading

    def body(self, block: BodyBlock, position: int) -> str | None:
        """The body of the memory at `position` of its store, None when the file was
        written again before it was first opened (or is gone)."""
        data = self.read(block, *block.place(position))
        return None if data is None else data.decode("utf-8", "surrogatepass")

    def read(self, block: BodyBlock, start: int, length: int) -> bytes | None:
        key = (block.path, block.generation)
        with self.lock:
            if key not in self.opened:
                self.opened[key] = _open_writing(*key)
            descriptor = self.opened[key]
            if descriptor is None:
                return None
            try:
                data = os.pread(descriptor, length, start)
            except OSError:
                return None
        return data if len(data) == length else None

    def close(self) -> None:
        with self.lock:
            for descriptor in self.opened.values():
                if descriptor is not None:
                    os.close(descriptor)
            self.opened.clear()

    def __del__(self) -> None:
        self.close()


def _open_writing(path: Path, generation: bytes) -> int | None:
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        prefix = os.pread(descriptor, PREFIX, 0)
    except OSError:
        prefix = b""
    if prefix[len(MAGIC):len(MAGIC) + GENERATION_BYTES] != generation:
        os.close(descriptor)
        return None
    return descriptor


class SearchCache:
    """Store path -> (fingerprint, what search read of it) in `search.bin`."""

    def __init__(self, path: Path | None = None, clock: Callable[[], int] = time.time_ns):
        self.path = path or xdg.cache_dir() / "search.bin"
        self.clock = clock
        self.changed: dict[str, tuple[str, KeptStore]] = {}  # read anew, to keep

    @cached_property
    def kept(self) -> dict[str, tuple[str, KeptStore]]:
        """What the file keeps, read when first asked for: a read that finds every store
        unchanged since the last one never reads it."""
        return self._load()

    def _load(self) -> dict[str, tuple[str, KeptStore]]:
        try:
            with open(self.path, "rb") as kept:
                prefix = kept.read(PREFIX)
                if len(prefix) < PREFIX or not prefix.startswith(MAGIC):
                    return {}
                generation = prefix[len(MAGIC):len(MAGIC) + GENERATION_BYTES]
                head_length = int(prefix[-12:], 16)
                head = json.loads(kept.read(head_length))
                if head.get("code") != rules_digest():
                    return {}  # written by other code: its folding may differ
                texts = kept.read(head["texts"])
            bodies_start = PREFIX + head_length + head["texts"]
            found: dict[str, tuple[str, KeptStore]] = {}
            for store, (fingerprint, count, at, length, body_at) in head["stores"].items():
                block = _decode(texts[at:at + length]) if count else []
                if len(block) != COLUMNS * count:
                    return {}
                rows = _rows(block)
                lengths = [int(text) for text in block[6::COLUMNS]]
                bodies = BodyBlock(self.path, generation, bodies_start + body_at, lengths)
                found[store] = (fingerprint, KeptStore(rows, block[7::COLUMNS],
                                                       block[8::COLUMNS], bodies))
        except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
            return {}  # none yet, unreadable or damaged: read the stores, write a new one
        return found

    def get(self, store: Path, fingerprint: str) -> KeptStore | None:
        kept = self.kept.get(os.fsdecode(store))
        return kept[1] if kept is not None and kept[0] == fingerprint else None

    def put(self, store: Path, fingerprint: str, newest_change_ns: int,
            kept: KeptStore) -> bool:
        """Keep a store read anew (written by `save`), unless it changed in the last two
        seconds (a second write in the same clock tick could keep its size and times) or
        a NUL from a YAML escape would split it where it should not. Whether it is kept."""
        if self.clock() - newest_change_ns < SETTLE_NS or any(
                SEPARATOR in text for row in kept.fields for text in _texts(row)) or any(
                SEPARATOR in haystack for haystack in kept.haystacks):
            return False
        self.changed[os.fsdecode(store)] = (fingerprint, kept)
        return True

    def save(self) -> None:
        """Write the file again when a store was read anew: the stores kept before and
        still there, and those read now. A failure leaves the old file (or none)."""
        if not self.changed:
            return
        stores = {store: kept for store, kept in self.kept.items()
                  if store not in self.changed and os.path.isdir(store)}
        stores.update(self.changed)
        try:
            self._write(stores)
        except OSError:
            return  # unwritable or full: the next run reads the stores again
        self.changed = {}

    def _write(self, stores: dict[str, tuple[str, KeptStore]]) -> None:
        texts: list[bytes] = []
        bodies: list[bytes] = []
        placed: dict[str, list] = {}
        at = body_at = 0
        for store, (fingerprint, kept) in stores.items():
            block = _body_block(kept.bodies)
            if block is None:
                continue  # its bodies went with an older file: read it again next time
            body, lengths = block
            values: list[str] = []
            for row, length, head, haystack in zip(kept.fields, lengths, kept.heads,
                                                   kept.haystacks, strict=True):
                values += (*_texts(row), str(length), head, haystack)
            text = _encode(values)
            placed[store] = [fingerprint, len(kept.fields), at, len(text), body_at]
            texts.append(text)
            bodies.append(body)
            at += len(text)
            body_at += len(body)
        head = json.dumps({"code": rules_digest(), "texts": at, "stores": placed},
                          separators=(",", ":")).encode()
        generation = secrets.token_hex(GENERATION_BYTES // 2).encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            with open(temporary, "wb") as out:
                out.write(MAGIC + generation + b"%012x" % len(head))
                out.write(head)
                out.writelines(texts)
                out.writelines(bodies)
            os.replace(temporary, self.path)
        finally:
            temporary.unlink(missing_ok=True)

    def get_words(self, stores: str) -> str | None:
        """The words of the memories of `stores` (a digest of each one's fingerprint)."""
        try:
            kept = self.words_path.read_text("utf-8", "surrogatepass")
        except (OSError, UnicodeDecodeError):
            return None
        key, _, words = kept.partition("\n")
        return words if key == f"{rules_digest()}:{stores}" else None

    def put_words(self, stores: str, words: str) -> None:
        temporary = self.words_path.with_name(f".{self.words_path.name}.{os.getpid()}.tmp")
        try:
            self.words_path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(f"{rules_digest()}:{stores}\n{words}", "utf-8", "surrogatepass")
            os.replace(temporary, self.words_path)
        except OSError:
            temporary.unlink(missing_ok=True)

    @property
    def words_path(self) -> Path:
        return self.path.with_name(f"{self.path.stem}-words.txt")

    def __enter__(self) -> SearchCache:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.save()


def _texts(row: list) -> tuple[str, ...]:
    """A memory's fields as six texts (a type "=" + itself, "" for none)."""
    file, kind, name, description, first, mtime = row
    return (file, "" if kind is None else f"={kind}", name, description, str(first),
            repr(mtime))


def _rows(texts: list[str]) -> list[list]:
    return [[texts[i], texts[i + 1][1:] if texts[i + 1] else None, texts[i + 2],
             texts[i + 3], int(texts[i + 4]), float(texts[i + 5])]
            for i in range(0, len(texts), COLUMNS)]


def _body_block(bodies: BodyBlock | list[str]) -> tuple[bytes, list[int]] | None:
    """A store's bodies encoded and joined, and each one's length in bytes: read back
    whole from the file they are kept in, or given."""
    if not isinstance(bodies, BodyBlock):
        lengths = [len(body) if body.isascii() else len(body.encode("utf-8", "surrogatepass"))
                   for body in bodies]
        return _encode(bodies), lengths
    reader = BodyReader()
    data = reader.read(bodies, bodies.start, bodies.length)
    reader.close()
    return None if data is None else (data, bodies.lengths)
