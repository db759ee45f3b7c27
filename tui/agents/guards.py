"""The guards every engine's change set passes before it is shown (design principle 5).

A run may link, move, group and fit lines; it may not lose a line of text. Each non-empty
line of a file the run changes or removes must stand, after it, in some file of the store:
as it was, or with all its words, in their order, in one line (a merge, a line said more
fully); or be a rewrite the engine declared (a relative date made absolute, a renamed path,
a link to a missing file taken out, a long index line shortened with its words kept in its
memory). A link's target is no word, and the title of a link to a memory the run archives
is its name, which goes with it.
A file that would lose a line is held: not applied unless the user accepts it in the review,
and a change set with a held file is refused whole from the command line.

The files of a run depend on each other (a hub and the MEMORY.md that links it, a merged
memory and the one it went into): `together` groups those that must be applied together,
so rejecting one rejects its group.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tui.memory.frontmatter import BLOCK
from tui.memory.links import replace_links

# Frontmatter keys that say what a file is, not what it knows: a merged-away memory's name
# and type are gone with it by design.
_IDENTITY_KEYS = frozenset({"name", "type", "node_type", "originSessionId", "modified",
                            "metadata"})
_KEY = re.compile(r"\s*([A-Za-z_][\w-]*)\s*:\s*(.*)$")
_WORD = re.compile(r"\w+")


def norm(line: str) -> str:
    """A line as the guards compare it: its words and their order, not its spacing."""
    return " ".join(line.split())


@dataclass
class Declared:
    """What an engine says of its own change: the rewrites it made on purpose, the files
    that go together, and the mtime a file keeps when its meaning did not change."""

    rewrites: dict[str, set[str]] = field(default_factory=dict)  # old line -> lines for it
    groups: list[frozenset[str]] = field(default_factory=list)  # each applied all or none
    mtimes: dict[str, float] = field(default_factory=dict)  # file -> the mtime it keeps

    def rewrote(self, old: str, *new: str) -> None:
        self.rewrites.setdefault(norm(old), set()).update(norm(line) for line in new)

    def rewrote_lines(self, before: str, after: str) -> None:
        """Each line changed in place (same number of lines) declared as rewritten."""
        old, new = before.split("\n"), after.split("\n")
        if len(old) == len(new):
            for one, other in zip(old, new, strict=True):
                if one != other:
                    self.rewrote(one, other)

    def together(self, *files: str) -> None:
        """These files are applied all or none (and so are two groups sharing a file)."""
        self.groups.append(frozenset(files))


def lost_lines(before: Mapping[str, str], after: Mapping[str, str | None],
               rewrites: Mapping[str, set[str]]) -> dict[str, list[str]]:
    """{file: its lines that no file holds after the change}, for the files the change
    writes or removes (`after[file]` None). `before` holds every file of the store."""
    changed = {file for file in after if after[file] != before.get(file)}
    removed = {file for file in changed if after[file] is None}
    standing: set[str] = set()
    for file, text in before.items():
        if file not in changed:
            standing.update(norm(line) for line in text.split("\n"))
    written = [text for file, text in after.items() if file in changed and text is not None]
    for text in written:
        standing.update(norm(line) for line in text.split("\n"))
    written_words = norm("\n".join(written))
    said = _Sayings(standing)
    lost: dict[str, list[str]] = {}
    for file in sorted(changed):
        text = before.get(file)
        if text is None:
            continue
        head = BLOCK.match(text)
        head_lines = text.count("\n", 0, head.end()) if head else 0
        for number, line in enumerate(text.split("\n")):
            key = norm(line)
            if not key or not _WORD.search(key) or key in standing:
                continue
            if key in rewrites and rewrites[key] <= standing:
                continue
            if number < head_lines and _frontmatter_kept(key, written_words):
                continue
            if number >= head_lines and said.holds(_words(line, removed)):
                continue
            lost.setdefault(file, []).append(line.strip())
    return lost


def _words(line: str, removed: set[str]) -> list[str]:
    """A line's words as the guards read them: a link stands for its title, but for a link
    to a memory the run removes (its title is that memory's name), and targets are no
    words."""
    if "[" in line:
        line = replace_links(line, lambda link: "" if link.target.removeprefix("./") in removed
                             else f" {link.title} ")
    return _WORD.findall(line.lower())


class _Sayings:
    """Finds a line that holds given words in their order among the lines standing after
    the change. The first questions are answered by a scan of their text for the longest
    word (most runs ask one or none); past `SCANS` of them, through an index of the words
    of every line, made once."""

    SCANS = 32

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = lines
        self._asked = 0
        self._text: str | None = None
        self._index: dict[str, set[int]] | None = None
        self._words: list[list[str]] = []

    def holds(self, words: list[str]) -> bool:
        if not words:
            return True
        self._asked += 1
        if self._asked <= self.SCANS:
            return self._scan(words)
        if self._index is None:
            self._index = {}
            for number, line in enumerate(self._lines):
                found = _WORD.findall(line.lower())
                self._words.append(found)
                for word in found:
                    self._index.setdefault(word, set()).add(number)
        candidates = None
        for word in sorted(set(words), key=lambda w: len(self._index.get(w, ()))):
            lines = self._index.get(word)
            if not lines:
                return False
            candidates = set(lines) if candidates is None else candidates & lines
            if not candidates:
                return False
        return any(_in_order(words, self._words[number]) for number in candidates)

    def _scan(self, words: list[str]) -> bool:
        """Each line whose text holds the longest of the words is read for them all."""
        if self._text is None:
            self._text = "\n".join(line.lower() for line in self._lines)
        text, longest = self._text, max(words, key=len)
        start = text.find(longest)
        while start >= 0:
            begin = text.rfind("\n", 0, start) + 1
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            if _in_order(words, _WORD.findall(text[begin:end])):
                return True
            start = text.find(longest, end)
        return False


def _in_order(words: list[str], line: list[str]) -> bool:
    found = iter(line)
    return all(word in found for word in words)


def _frontmatter_kept(line: str, written: str) -> bool:
    """A frontmatter line is kept when its value stands in what the change writes (a
    merge keeps the other memory's keys); the keys of identity go with their file."""
    match = _KEY.match(line)
    if match is None:  # an item of a list value
        return norm(line.lstrip("- ")) in written
    key, value = match.groups()
    value = norm(value.strip().strip("'\""))
    return key in _IDENTITY_KEYS or not value or value in written


def joined(groups: Iterable[Iterable[str]], files: Iterable[str]) -> list[frozenset[str]]:
    """The groups of `files` applied together: each declared group's files among them, two
    such groups sharing a file joined into one (a file needing one of them needs both),
    groups of one file left out."""
    keep = set(files)
    parent: dict[str, str] = {}  # a file -> one of its group, up to the group's root

    def root(file: str) -> str:
        while parent[file] != file:
            parent[file] = file = parent[parent[file]]
        return file

    for group in groups:
        members = [file for file in group if file in keep]
        for file in members:
            parent.setdefault(file, file)
        for file in members[1:]:
            parent[root(file)] = root(members[0])
    found: dict[str, set[str]] = {}
    for file in parent:
        found.setdefault(root(file), set()).add(file)
    return [frozenset(names) for names in found.values() if len(names) > 1]
