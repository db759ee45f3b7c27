"""What `memtui search` read of each store, kept in one file under the XDG cache, by the
store's fingerprint (`tui.memory.audit_cache.fingerprint`: every entry's inode, size, mtime
and ctime), so a changed memory is read again and found by its new words at once.

One file, read in one go: a JSON head placing each store, then every store's memories'
fields and folded haystacks, then their bodies, each store's joined by NUL (which no text
memory holds).
The 40 MB of haystacks of 20,000 memories are one read and a decode per store, where
674 SQLite rows took 3x longer; the bodies are read back (`os.pread`) only for the
memories shown. A run that read a store anew writes the whole file again, to a temporary
file replaced at once: a reader holds the old one or the new one, never half of each.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from tui import xdg
from tui.memory.audit_cache import SETTLE_NS, rules_digest

MAGIC = b"memtui search cache 1\n"
GENERATION_BYTES = 16  # hex characters naming one writing of the file
PREFIX = len(MAGIC) + GENERATION_BYTES + 12  # magic, generation, the head's length (hex)
SEPARATOR = "\0"


class KeptStore(NamedTuple):
    """A store as the file keeps it."""

    fingerprint: str
    fields: list[list]  # [file, type, name, description, body line, mtime] per memory
    haystacks: list[str]
    bodies: BodyBlock | list[str]  # where to read them back, or the bodies themselves


class BodyBlock(NamedTuple):
    """Where a store's bodies are in one writing of the file."""

    path: Path
    generation: bytes
    start: int  # from the file's start
    length: int


def _encode(texts: Iterable[str]) -> bytes:
    return SEPARATOR.join(texts).encode("utf-8", "surrogatepass")


def _decode(data: bytes) -> list[str]:
    return data.decode("utf-8", "surrogatepass").split(SEPARATOR)


def read_bodies(block: BodyBlock) -> list[str] | None:
    """A store's bodies, None when the file was written again since (or is gone)."""
    data = _read_block(block)
    return None if data is None else _decode(data)


def _read_block(block: BodyBlock) -> bytes | None:
    try:
        with open(block.path, "rb") as kept:
            prefix = kept.read(PREFIX)
            if prefix[len(MAGIC):len(MAGIC) + GENERATION_BYTES] != block.generation:
                return None
            data = os.pread(kept.fileno(), block.length, block.start)
    except OSError:
        return None
    return data if len(data) == block.length else None


class SearchCache:
    """Store path -> (fingerprint, fields, haystacks, bodies) in `search.bin`."""

    def __init__(self, path: Path | None = None, clock: Callable[[], int] = time.time_ns,
                 load: bool = True):
        """`load`: read what the file keeps (not for the near words alone)."""
        self.path = path or xdg.cache_dir() / "search.bin"
        self.clock = clock
        self.kept: dict[str, KeptStore] = self._read() if load else {}
        self.changed: dict[str, KeptStore] = {}  # read anew by this run, to keep

    def _read(self) -> dict[str, KeptStore]:
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
            start = PREFIX + head_length
            found: dict[str, KeptStore] = {}
            for store, (fingerprint, count, at, length, body_at, body_length) in (
                    head["stores"].items()):
                block = _decode(texts[at:at + length]) if count else []
                if len(block) != 7 * count:
                    return {}
                bodies = BodyBlock(self.path, generation, start + body_at, body_length)
                found[store] = KeptStore(fingerprint, _rows(block[:6 * count]),
                                         block[6 * count:], bodies)
        except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
            return {}  # none yet, unreadable or damaged: read the stores, write a new one
        return found

    def get(self, store: Path, fingerprint: str) -> KeptStore | None:
        kept = self.kept.get(os.fsdecode(store))
        return kept if kept is not None and kept.fingerprint == fingerprint else None

    def put(self, store: Path, newest_change_ns: int, kept: KeptStore) -> bool:
        """Keep a store read anew (written by `save`), unless it changed in the last two
        seconds: a second write in the same clock tick could keep its size and times.
        Whether it was kept."""
        if self.clock() - newest_change_ns < SETTLE_NS or any(
                SEPARATOR in text for text in (*kept.haystacks, *_columns(kept.fields))):
            return False  # (a NUL from a YAML escape: it would split where it should not)
        self.changed[os.fsdecode(store)] = kept
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

    def _write(self, stores: dict[str, KeptStore]) -> None:
        texts: list[bytes] = []
        bodies: list[bytes] = []
        placed: dict[str, list] = {}
        at = body_at = 0
        for store, kept in stores.items():
            body = _body_bytes(kept.bodies)
            if body is None:
                continue  # its bodies went with an older file: read it again next time
            text = _encode([*_columns(kept.fields), *kept.haystacks])
            placed[store] = [kept.fingerprint, len(kept.fields), at, len(text), body_at,
                             len(body)]
            texts.append(text)
            bodies.append(body)
            at += len(text)
            body_at += len(body)
        for place in placed.values():
            place[4] += at  # bodies follow the texts
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


def _columns(fields: list[list]) -> list[str]:
    """Each memory's fields as six texts (a type "=" + itself, "" for none)."""
    texts: list[str] = []
    for file, kind, name, description, first, mtime in fields:
        texts += (file, "" if kind is None else f"={kind}", name, description, str(first),
                  repr(mtime))
    return texts


def _rows(texts: list[str]) -> list[list]:
    return [[texts[i], texts[i + 1][1:] if texts[i + 1] else None, texts[i + 2],
             texts[i + 3], int(texts[i + 4]), float(texts[i + 5])]
            for i in range(0, len(texts), 6)]


def _body_bytes(bodies: BodyBlock | list[str]) -> bytes | None:
    return _read_block(bodies) if isinstance(bodies, BodyBlock) else _encode(bodies)
