"""One file both machines changed, merged: what `plan` writes here and pushes.

`MEMORY.md` merges as an ordered set of index lines (`merge_index`). A memory merges its
frontmatter as data, key by key, and its body as lines (`merge_memory`):

- a key changed on one side only is taken; deleted on one side and changed on the other,
  the change stays;
- `originSessionId` and `modified` (flat or under `metadata:`), which Claude Code rewrites
  on every save, set differently on both sides: the newer side's, no conflict. The newer
  side has the later `modified`, else the later time (the file's mtime here, the push on
  the remote);
- any other key set differently on both sides: the newer value stays in the frontmatter,
  and both values are shown in a conflict block at the top of the body;
- the body merges three-way against the base. On first contact (no base: the file was
  made on both machines) lines both have are kept once, lines only one has are kept (nothing
  was deleted: the two never shared a text), and only where the two hold different lines
  at the same place do both go between markers. Identical bodies merge silently then,
  whatever the frontmatter says.

Conflict markers only ever go in the body: the frontmatter is read back with Claude Code's
parser, and a merge never leaves a file without the frontmatter one side could read (it
keeps that side's block whole, with the other's keys in the body's conflict block).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from difflib import SequenceMatcher
from typing import Any

from tui.claude.lines import lines_with_endings, split_lines
from tui.history.merge import merge3
from tui.memory.conflicts import conflict_block, marker_labels
from tui.memory.frontmatter import Frontmatter, parse
from tui.memory.frontmatter_keys import Block, Entry, Fields, read_block, reindent, with_children
from tui.memory.index import linked_files

BOOKKEEPING = frozenset({"originSessionId", "modified"})  # rewritten by every save
_MISSING = object()


@dataclass(frozen=True)
class Side:
    """Who wrote one side's text, and when (None: not known)."""
    machine: str
    time: float | None = None

    def label(self, dated: bool) -> str:
        if not dated or self.time is None:
            return self.machine
        return f"{self.machine}, {time.strftime('%Y-%m-%d %H:%M', time.gmtime(self.time))} UTC"


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def merge_index(base: str | None, ours: str, theirs: str) -> str:
    """Index lines as an ordered set: ours in our order, without the lines the other side
    removed, with the other side's new lines placed after the line they follow there (after
    our own new lines at the same place).
    No line appears twice (blank lines excepted: they only shape the file). Every line
    either side added stays, with one exception: a memory the base did not index, which
    both sides indexed each in its own words (two machines that met, or made the same
    memory), keeps one entry, ours. A memory the base already indexed is no such case: a
    second entry added for it on one side is that side's line, and an entry reworded on
    both sides keeps both wordings. Lines are compared without a CR before their LF; ours
    keep their bytes, and the other side's take our line ending."""
    written = split_lines(ours.removesuffix("\n"))
    as_written = {}  # each of our lines without its CR -> as we wrote it
    for line in written:
        as_written.setdefault(_bare(line), line)
    crlf = sum(line.endswith("\r") for line in written) * 2 > len(written)
    base_lines = set(map(_bare, split_lines(base or "")))
    our_lines = list(map(_bare, written))
    their_lines = list(map(_bare, split_lines(theirs.removesuffix("\n"))))
    their_set = set(their_lines)
    result = [line for line in our_lines if line in their_set or line not in base_lines]
    present = {line for line in result if line.strip()}
    base_indexed = {file for line in base_lines for file in linked_files(line)}
    indexed_here_only = {file for line in present - base_lines - their_set
                         for file in linked_files(line)} - base_indexed
    for number, line in enumerate(their_lines):
        if not line.strip() or line in base_lines or line in present:
            continue
        files = linked_files(line)
        if len(files) == 1 and files[0] in indexed_here_only:
            continue
        anchor = next((their_lines[n] for n in range(number - 1, -1, -1)
                       if their_lines[n] in present), None)
        titled = bool(result) and result[0].startswith("#")
        if anchor is None and line.startswith("#") and not titled:
            position = 0  # their title goes on top, over our lines
        else:
            position = result.index(anchor) + 1 if anchor is not None else int(titled)
            while position < len(result) and result[position] not in base_lines \
                    and result[position] not in their_set:
                position += 1  # our own new lines at the same place stay first, as in merge3
        result.insert(position, line)
        present.add(line)
    seen: set[str] = set()
    unique = []
    for line in result:
        if line.strip() and line in seen:
            continue
        seen.add(line)
        unique.append(line)
    unique = [as_written.get(line, line + "\r" if crlf else line) for line in unique]
    ending = "\n" if ours.endswith("\n") or theirs.endswith("\n") or not ours else ""
    return "\n".join(unique) + ending if unique else ""


def merge_lines(base: str | None, ours: str, theirs: str,
                labels: tuple[str, str]) -> tuple[str, bool]:
    """(merged text, conflicted): three-way against `base`, else first contact."""
    if ours == theirs:
        return ours, False
    if base is not None:
        result = merge3(base, ours, theirs, labels)
        return result.text, not result.clean
    return _first_contact(ours, theirs, labels)


def _first_contact(ours: str, theirs: str, labels: tuple[str, str]) -> tuple[str, bool]:
    """Two texts with no common base: lines both have once, lines one has kept, both texts
    between markers where they hold different lines at the same place."""
    our_lines, their_lines = lines_with_endings(ours), lines_with_endings(theirs)
    for lines in (our_lines, their_lines):  # a last line would glue onto one added after it
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
    out: list[str] = []
    conflicted = False
    # Lines are matched without their endings: a CRLF copy and an LF copy differ only where
    # their words do (the lines both have are kept as this machine wrote them).
    matcher = SequenceMatcher(None, list(map(_bare, our_lines)), list(map(_bare, their_lines)),
                              autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace":
            out.extend(conflict_block(labels, our_lines[i1:i2], their_lines[j1:j2]))
            conflicted = True
        else:
            out.extend(our_lines[i1:i2] if tag != "insert" else their_lines[j1:j2])
    text = "".join(out)
    if ours and not ours.endswith("\n") and not theirs.endswith("\n") and text.endswith("\n"):
        text = text[:-1]
    return text, conflicted


def _bare(line: str) -> str:
    """A line without its ending, CRLF or LF: what Claude Code reads of it."""
    return line.removesuffix("\n").removesuffix("\r")


@dataclass(frozen=True)
class _Version:
    fm: Frontmatter
    block: Block | None  # None: no frontmatter, or one not split by key
    head: str  # the frontmatter as written, up to the body
    body: str

    @classmethod
    def of(cls, text: str) -> _Version:
        fm = parse(text)
        return cls(fm, read_block(text), text[:len(text) - len(fm.body)], fm.body)

    @property
    def readable(self) -> bool:
        """Claude Code reads a name, description and type from it."""
        return self.fm.present and self.fm.error is None

    def fields(self) -> Fields | None:
        """Its keys; empty without frontmatter; None when they cannot be told apart."""
        if not self.fm.present:
            return Fields((), ())
        if self.block is None or self.fm.error is not None:
            return None
        data = self.fm.data
        keys = self.block.fields.keys
        return self.block.fields if len(set(keys)) == len(keys) == len(data) \
            and set(keys) == set(data) else None


def merge_memory(base: bytes | None, ours: bytes, theirs: bytes, here: Side,
                 there: Side) -> tuple[bytes, bool]:
    """(merged bytes, conflicted) for a memory changed on this machine (`here`) and on the
    remote (`there`); `base` None on first contact."""
    labels = marker_labels(here.label(False), there.label(True))
    try:
        texts = [None if data is None else data.decode("utf-8") for data in (base, ours, theirs)]
    except UnicodeDecodeError:  # not text Claude Code reads: lines, as they are
        merged, conflicted = merge_lines(None if base is None else _text(base), _text(ours),
                                         _text(theirs), labels)
        return _bytes(merged), conflicted
    was = None if texts[0] is None else _Version.of(texts[0])
    mine, other = _Version.of(texts[1]), _Version.of(texts[2])
    theirs_newer = _theirs_newer(mine.fm, other.fm, here, there)
    body, conflicted = merge_lines(None if was is None else was.body, mine.body, other.body,
                                   labels)
    silent = was is None and mine.body == other.body
    head, ours_keys, theirs_keys = _merge_heads(was, mine, other, theirs_newer, silent)
    if ours_keys or theirs_keys:
        fm_labels = marker_labels(here.label(False), there.label(True), frontmatter=True)
        body = "".join(conflict_block(fm_labels, ours_keys, theirs_keys)) + body
        conflicted = True
    if body and head and not head.endswith("\n"):
        head += "\n"  # a block that ended the file: the body starts on a line of its own
    return _bytes(head + body), conflicted


def _theirs_newer(ours: Frontmatter, theirs: Frontmatter, here: Side, there: Side) -> bool:
    mine, other = _modified(ours), _modified(theirs)
    if mine is not None and other is not None and mine != other:
        return other > mine
    if here.time is not None and there.time is not None:
        return there.time > here.time
    return False


def _modified(fm: Frontmatter) -> datetime | None:
    value = fm.text("modified")
    try:
        stamp = datetime.fromisoformat(value.strip()) if value else None
    except ValueError:
        return None
    if stamp is not None and stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp


def _merge_heads(was: _Version | None, mine: _Version, other: _Version, theirs_newer: bool,
                 silent: bool) -> tuple[str, list[str], list[str]]:
    """(the merged frontmatter as written, our and their lines of the keys in conflict)."""
    if mine.head == other.head:
        return mine.head, [], []
    if was is not None and was.head == mine.head and _keeps_readable(other, mine):
        return other.head, [], []
    if was is not None and was.head == other.head and _keeps_readable(mine, other):
        return mine.head, [], []
    merged = _merge_keys(was, mine, other, theirs_newer, silent)
    if merged is not None:
        return merged
    return _whole_head(mine, other, theirs_newer, silent)


def _keeps_readable(taken: _Version, other: _Version) -> bool:
    return taken.readable or not other.readable


def _whole_head(mine: _Version, other: _Version, theirs_newer: bool,
                silent: bool) -> tuple[str, list[str], list[str]]:
    """One side's frontmatter whole (the newer one Claude Code can read), the other's keys
    that differ from it shown in the body."""
    first, second = (other, mine) if theirs_newer else (mine, other)
    kept = first if first.readable or not second.readable else second
    if silent:
        return kept.head, [], []
    return kept.head, _differing_lines(mine, other), _differing_lines(other, mine)


def _differing_lines(side: _Version, against: _Version) -> list[str]:
    """The lines of `side`'s keys whose value `against` does not hold; its whole block
    when it cannot be told apart by key."""
    fields = side.fields()
    if fields is None:
        if side.block is not None:
            return _ended([*side.block.fields.leading,
                           *(line for entry in side.block.fields.entries for line in entry.lines)])
        return _ended(lines_with_endings(side.head))
    theirs = against.fm.data if against.readable else {}
    return _ended([line for entry in fields.entries
                   if not _same(side.fm.data.get(entry.key, _MISSING), theirs.get(entry.key, _MISSING))
                   for line in entry.lines])


def _ended(lines: list[str]) -> list[str]:
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    return lines


def _same(one: Any, other: Any) -> bool:
    """Equal as YAML data: `1` and `true` are not."""
    return type(one) is type(other) and one == other


def _merge_keys(was: _Version | None, mine: _Version, other: _Version, theirs_newer: bool,
                silent: bool) -> tuple[str, list[str], list[str]] | None:
    """The frontmatter merged key by key, read back to check it; None when the blocks
    cannot be merged so (a side's keys not told apart, a result that reads otherwise)."""
    ours, theirs = mine.fields(), other.fields()
    base = None if was is None else was.fields()
    if ours is None or theirs is None or (was is not None and base is None):
        return None
    if not ours.entries and not theirs.entries:
        return None
    merger = _KeyMerge(theirs_newer, silent, first_contact=was is None)
    entries, data = merger.merge(base, ours, theirs, None if was is None else was.fm.data,
                                 mine.fm.data, other.fm.data)
    if not entries:
        return None  # every key gone: no frontmatter, which only a side's whole block decides
    template = mine.block if mine.block is not None else other.block
    assert template is not None
    head = template.render(Fields(template.fields.leading, tuple(entries)), body="")
    after = parse(head)
    if not (after.present and after.error is None and after.data == data):
        return None
    return head, merger.ours_lines, merger.theirs_lines


class _KeyMerge:
    """Keys merged one by one; what conflicts is collected as lines of each side."""

    def __init__(self, theirs_newer: bool, silent: bool, first_contact: bool):
        self.theirs_newer = theirs_newer
        self.silent = silent
        self.first_contact = first_contact
        self.ours_lines: list[str] = []
        self.theirs_lines: list[str] = []

    def merge(self, base: Fields | None, ours: Fields, theirs: Fields, base_data: dict | None,
              our_data: dict, their_data: dict, parent: tuple[str, str] | None = None
              ) -> tuple[list[Entry], dict]:
        entries: list[Entry] = []
        data: dict = {}
        for key in _key_order(ours.keys, theirs.keys):
            mine, other = ours.get(key), theirs.get(key)
            was = base.get(key) if base is not None else None
            values = (our_data.get(key, _MISSING), their_data.get(key, _MISSING),
                      _MISSING if base_data is None else base_data.get(key, _MISSING))
            nested = self._nested(key, mine, other, was, values, parent)
            if nested is not None:
                entries.append(nested[0])
                data[key] = nested[1]
                continue
            entry, value = self._one(key, mine, other, values, parent)
            if entry is not None:
                entries.append(entry)
                data[key] = value
        return entries, data

    def _one(self, key: str, mine: Entry | None, other: Entry | None, values: tuple,
             parent: tuple[str, str] | None):
        """(the entry kept, its value) of a key that is no mapping on both sides; their
        entry comes written at our indent."""
        ours, theirs, was = values
        if _same(ours, theirs):
            choice = "ours"
        elif not self.first_contact and _same(ours, was):
            choice = "theirs"
        elif not self.first_contact and _same(theirs, was):
            choice = "ours"
        elif ours is _MISSING:
            choice = "theirs"  # a change (or, on first contact, a key only they have) stays
        elif theirs is _MISSING:
            choice = "ours"
        else:
            choice = "theirs" if self.theirs_newer else "ours"
            if key not in BOOKKEEPING and not self.silent:
                self._conflict(mine, other, parent)
        if choice == "ours":
            return mine, ours
        if other is None:
            return None, None  # deleted there
        return other, theirs

    def _conflict(self, mine: Entry, other: Entry, parent: tuple[str, str] | None) -> None:
        for lines, entry, header in ((self.ours_lines, mine, parent and parent[0]),
                                     (self.theirs_lines, other, parent and parent[1])):
            if header and header not in lines:
                lines.append(header)
            lines.extend(entry.lines)

    def _nested(self, key, mine, other, was, values, parent):
        """A mapping on both sides (`metadata:`) merged key by key; None otherwise."""
        ours, theirs, base = values
        if parent is not None or mine is None or other is None:
            return None
        if not (isinstance(ours, dict) and isinstance(theirs, dict) and mine.children
                and other.children and set(mine.children.keys) == set(ours)
                and set(other.children.keys) == set(theirs)):
            return None
        base_fields = None
        if not self.first_contact and was is not None:
            if not (isinstance(base, dict) and was.children and set(was.children.keys) == set(base)):
                return None
            base_fields = was.children
        headers = (mine.lines[0], other.lines[0])
        children, data = self.merge(
            base_fields, mine.children,
            Fields(other.children.leading, tuple(reindent(e, other.children.indent,
                                                          mine.children.indent)
                                                 for e in other.children.entries),
                   mine.children.indent),
            None if self.first_contact else (base if isinstance(base, dict) else {}),
            ours, theirs, headers)
        if not children:
            return None  # `key:` with nothing under it would read as null
        return with_children(mine, children), data


def _key_order(ours: list[str], theirs: list[str]) -> list[str]:
    """Our keys in our order, each key only they have after the one it follows there."""
    order = list(ours)
    for number, key in enumerate(theirs):
        if key in order:
            continue
        anchor = next((theirs[n] for n in range(number - 1, -1, -1) if theirs[n] in order), None)
        order.insert(order.index(anchor) + 1 if anchor is not None else 0, key)
    return order
