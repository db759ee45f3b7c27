"""A memory file's frontmatter as the lines of each key: to change some keys and leave every
other byte as it was (sync merging two machines' versions, resolving a conflict it left).

The block is the one Claude Code reads (`frontmatter.parse`). A key starts at an unindented
`key:` line; the lines after it up to the next such line hold its value (indented lines,
list items, comments, blank lines). A key whose value is a mapping (`metadata:`) is read
the same way one level down, its keys starting at the indent of its first one. Whoever
uses these lines checks the result with the real parser: YAML has shapes (anchors, flow
mappings, a block closing mid-line) this reading does not follow, and then it is not used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tui.claude.lines import lines_with_endings
from tui.memory.frontmatter import block_span, parse

# An unindented `key:` then a space or the line's end: a plain key (not starting with an
# indicator), or a quoted one.
_KEY = re.compile(r"""(?:"([^"\\\n]*)"|'([^'\n]*)'|([^\s#'"\-?:,\[\]{}&*!|>%@`][^\n]*?))[ \t]*:(?=[ \t\r\n]|$)""")


@dataclass(frozen=True)
class Entry:
    key: str
    lines: tuple[str, ...]  # its `key:` line and the lines of its value, with their endings
    children: Fields | None = None  # for a mapping value split into keys: its keys

    @property
    def text(self) -> str:
        return "".join(self.lines)


@dataclass(frozen=True)
class Fields:
    """Keys in order, with the lines before the first (comments, blank lines)."""
    leading: tuple[str, ...]
    entries: tuple[Entry, ...]
    indent: str = ""

    def get(self, key: str) -> Entry | None:
        return next((entry for entry in self.entries if entry.key == key), None)

    @property
    def keys(self) -> list[str]:
        return [entry.key for entry in self.entries]


@dataclass(frozen=True)
class Block:
    opening: str  # a BOM, `---` and the end of its line
    fields: Fields
    closing: str  # the closing `---` and the spaces and line breaks after it
    body: str

    def render(self, fields: Fields | None = None, body: str | None = None) -> str:
        fields = self.fields if fields is None else fields
        return (self.opening + "".join(fields.leading)
                + "".join(entry.text for entry in fields.entries)
                + self.closing + (self.body if body is None else body))


def read_block(text: str) -> Block | None:
    """The file's frontmatter by key; None when it has none Claude Code reads, or when the
    block does not end at a line's end (`a: b---` closes it mid-line)."""
    fm = parse(text)
    if not fm.present:
        return None
    start = 1 if text.startswith("\ufeff") else 0
    span = block_span(text, start)
    if span is None:
        return None
    opened, closing, _ = span
    content = text[opened:closing]
    if content and not content.endswith("\n"):
        return None
    head_end = len(text) - len(fm.body)
    if head_end < closing:
        return None
    return Block(text[:opened], split_fields(lines_with_endings(content)), text[closing:head_end],
                 fm.body)


def split_fields(lines: list[str], indent: str = "") -> Fields:
    """`lines` (of one mapping, each starting with `indent`) by key, nested mappings too."""
    leading: list[str] = []
    entries: list[tuple[str, list[str]]] = []
    for line in lines:
        key = _key_of(line, indent)
        if key is not None:
            entries.append((key, [line]))
        elif entries:
            entries[-1][1].append(line)
        else:
            leading.append(line)
    return Fields(tuple(leading), tuple(Entry(key, tuple(block), _children(block, indent))
                                        for key, block in entries), indent)


def _key_of(line: str, indent: str) -> str | None:
    if not line.startswith(indent) or line[len(indent):len(indent) + 1] in ("", " ", "\t"):
        return None
    match = _KEY.match(line, len(indent))
    if match is None:
        return None
    double, single, plain = match.groups()
    return double if double is not None else single if single is not None else plain


def _children(block: list[str], indent: str) -> Fields | None:
    """The keys of a mapping value written on the lines under its `key:` line."""
    if indent or block[0].rstrip("\r\n").rstrip(" \t").split(":", 1)[-1].strip():
        return None  # one level only; a value on the key's own line is no block mapping
    child = next((line for line in block[1:] if line.strip() and not line.lstrip().startswith("#")),
                 None)
    if child is None:
        return None
    inner = child[:len(child) - len(child.lstrip(" "))]
    if not inner or _key_of(child, inner) is None:
        return None
    return split_fields(block[1:], inner)


def with_children(entry: Entry, children: list[Entry]) -> Entry:
    """A mapping entry holding `children` (written at its children's indent) instead."""
    assert entry.children is not None
    fields = replace(entry.children, entries=tuple(children))
    lines = (entry.lines[0], *fields.leading, *(line for e in children for line in e.lines))
    return Entry(entry.key, lines, fields)


def reindent(entry: Entry, old: str, new: str) -> Entry:
    if old == new:
        return entry
    return replace(entry, lines=tuple(new + line[len(old):] if line.startswith(old) else line
                                      for line in entry.lines))


def ending_with_newline(entry: Entry) -> Entry:
    """The entry with a line break after its last line (it may come from a block's end)."""
    if entry.lines and entry.lines[-1].endswith("\n"):
        return entry
    return replace(entry, lines=(*entry.lines[:-1], entry.lines[-1] + "\n"))


def overlay(text: str, lines: list[str]) -> str | None:
    """The file with the keys written in `lines` set to those lines (a mapping's keys one by
    one), every other byte as it was; None when the file has no block to set them in, or
    when the result is not the frontmatter that says so."""
    block = read_block(text)
    given = split_fields(lines)
    if block is None or not given.entries:
        return None
    entries = list(block.fields.entries)
    for entry in given.entries:
        entry = ending_with_newline(entry)
        at = next((n for n, e in enumerate(entries) if e.key == entry.key), None)
        if at is None:
            entries.append(entry)
        elif entries[at].children is not None and entry.children is not None:
            mine = entries[at].children
            merged = list(mine.entries)
            for child in entry.children.entries:
                moved = reindent(ending_with_newline(child), entry.children.indent, mine.indent)
                spot = next((n for n, e in enumerate(merged) if e.key == child.key), None)
                if spot is None:
                    merged.append(moved)
                else:
                    merged[spot] = moved
            entries[at] = with_children(entries[at], merged)
        else:
            entries[at] = entry
    result = block.render(Fields(block.fields.leading, tuple(entries)))
    after = parse(result)
    return result if after.present and after.error is None else None
