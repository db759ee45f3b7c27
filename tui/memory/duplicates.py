"""Which near-duplicates are one memory written twice, and which of two holds the other.

The search (`similarity`) finds notes that read alike, and compares only notes whose names
hold the same numbers. Reading alike is no proof: a template makes notes read alike. Two
notes are taken for one record only when nothing that names them says otherwise:
- their names (file name, `name:`, `title:`, title heading): when each has words of its own
  (words not in the names of many notes, as `feedback` or `tag` are) and they share none,
  they are two records of one template (`machines/Laptop.md`, `machines/Desktop.md`); and
  when their lines differ only where each writes its own name (`# A | B | C39` against
  `# B | C39`, codes with no number in them), or a line only each has names it alone;
- their frontmatter: a key both set to different values (a license number, a `date:`, a
  `type:`), leaving aside what a copy may word or stamp differently: free text (name, title,
  description), lists (tags, aliases: a merge unites them) and the stamps of when and by
  which session a file was written or synced (`modified`, `originSessionId`, `last_synced`);
- team memory and personal memory are never one.
Of two notes of one record, one is provably a duplicate when it says nothing the other does
not: its description and every non-empty line of its body are in the other. Archiving it
then loses nothing. Otherwise they are near-duplicates a person merges by hand.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tui.claude.memory_files import is_team
from tui.memory.similarity import TEMPLATE_NOTES, name_texts, search_duplicates
from tui.memory.store import Memory, Store

# Keys whose values two copies of one memory may hold differently: free text, and the
# stamps of when and by which session a file was written, synced or looked at
# (`modified`, `originSessionId`, `last_synced`, `updated_at`; not `date`, a daily note's day).
FREE_TEXT_KEYS = frozenset({"name", "title", "description", "summary"})
_STAMP_KEY = re.compile(
    r"origin\w*|node_?type|[mc]time"
    r"|\w*(?:modified|updated|synced|created|edited|reviewed|checked|accessed|verified)"
    r"(?:_?(?:at|on|date|time))?",
    re.IGNORECASE)
_LETTERS = re.compile(r"[^\W\d_]+")
_WORDS = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Duplicate:
    first: Memory  # the earlier file of the pair
    second: Memory
    score: float  # similarity, 0-100
    holder: Memory | None  # the note holding every line of the other; None: each has its own

    @property
    def repeated(self) -> Memory | None:
        """The note that says nothing the holder does not (None when there is no holder)."""
        if self.holder is None:
            return None
        return self.second if self.holder is self.first else self.first


@dataclass(frozen=True)
class DuplicatesFound:
    duplicates: list[Duplicate]  # best score first
    compared: int
    cut: int  # memories searched within the budget only (see `similarity`)


def find_duplicates(memories: Sequence[Memory],
                    prefer: Callable[[Memory], Any] | None = None) -> DuplicatesFound:
    """The near-duplicates among `memories` that are one record. When each of two holds
    every line of the other, the one `prefer` ranks first (the smaller key) is the holder."""
    search = search_duplicates(memories)
    if not search.pairs:
        return DuplicatesFound([], search.compared, search.cut)
    common = common_name_words(memories)
    found = []
    for first, second, score in search.pairs:
        first_lines, second_lines = said_lines(first), said_lines(second)
        if not same_record(first, second, common, first_lines, second_lines):
            continue
        found.append(Duplicate(first, second, score,
                               _holder(first, second, prefer, first_lines, second_lines)))
    return DuplicatesFound(found, search.compared, search.cut)


def common_name_words(memories: Iterable[Memory]) -> frozenset[str]:
    """Words in the names of so many notes that they name a kind, not a note."""
    counts = Counter(word for memory in memories for word in name_words(memory))
    return frozenset(word for word, count in counts.items() if count >= TEMPLATE_NOTES)


def name_words(memory: Memory) -> frozenset[str]:
    """The words of a memory's names, in lower case; a run of letters outside ASCII (CJK
    names have no spaces) as its pairs of letters."""
    words: set[str] = set()
    for run in _LETTERS.findall(" ".join(name_texts(memory)).casefold()):
        if run.isascii():
            if len(run) > 1:
                words.add(run)
        elif len(run) == 1:
            words.add(run)
        else:
            words.update(run[n:n + 2] for n in range(len(run) - 1))
    return frozenset(words)


def same_record(first: Memory, second: Memory, common: frozenset[str] = frozenset(),
                first_lines: set[str] | None = None, second_lines: set[str] | None = None) -> bool:
    """Whether nothing that names the two notes says they are two records (see above)."""
    if is_team(first.file) != is_team(second.file):
        return False
    own_first, own_second = name_words(first) - common, name_words(second) - common
    if own_first and own_second and not own_first & own_second:
        return False
    if conflicting_fields(first.frontmatter.data, second.frontmatter.data):
        return False
    first_lines = said_lines(first) if first_lines is None else first_lines
    second_lines = said_lines(second) if second_lines is None else second_lines
    first_only, second_only = first_lines - second_lines, second_lines - first_lines
    if _differ_by_names_only(first, second, first_only, second_only):
        return False
    return not (_names_itself(first, second, first_only)
                and _names_itself(second, first, second_only))


def _differ_by_names_only(first: Memory, second: Memory, first_only: set[str],
                          second_only: set[str]) -> bool:
    """Whether the lines only one of them has are the same once each note's own name is
    taken out of them (`# A | B | C39` and `# B | C39`): one template, two records."""
    if not first_only or not second_only:
        return False
    return _without_names(first, first_only) == _without_names(second, second_only)


def _without_names(memory: Memory, lines: set[str]) -> list[tuple[str, ...]]:
    names = {word for name in name_texts(memory) for word in _WORDS.findall(name.casefold())}
    return sorted(tuple(word for word in _WORDS.findall(line.casefold()) if word not in names)
                  for line in lines)


def _names_itself(memory: Memory, other: Memory, own_lines: Iterable[str]) -> bool:
    """Whether a line only `memory` has holds its name and not `other`'s: what a template
    writes into each of its records (`# Laptop`, `host: laptop`)."""
    names, others = _spelled_names(memory), _spelled_names(other)
    mine = names - others
    for line in own_lines:
        folded = line.casefold()
        if any(name in folded for name in mine) and not any(name in folded for name in others):
            return True
    return False


def _spelled_names(memory: Memory) -> set[str]:
    """A memory's file name, `name:` and `title:` as a text would spell them: as written and
    with their `-` and `_` as spaces, in lower case; three letters at least."""
    spelled = set()
    for name in name_texts(memory)[:3]:
        name = name.strip().casefold()
        if len(name) >= 3:
            spelled.update((name, " ".join(name.replace("-", " ").replace("_", " ").split())))
    return spelled


def conflicting_fields(first: Mapping[str, Any], second: Mapping[str, Any],
                       prefix: str = "") -> list[str]:
    """The keys (`metadata.type` for nested ones) both set to different plain values."""
    found = []
    for key, value in first.items():
        if not isinstance(key, str) or key not in second:
            continue
        other = second[key]
        if key.casefold() in FREE_TEXT_KEYS or _STAMP_KEY.fullmatch(key):
            continue
        if isinstance(value, Mapping) and isinstance(other, Mapping):
            found += conflicting_fields(value, other, f"{prefix}{key}.")
        elif _plain(value) and _plain(other) and _folded(value) != _folded(other):
            found.append(prefix + key)
    return found


def _plain(value: Any) -> bool:
    return value is not None and not isinstance(value, (list, tuple, Mapping))


def _folded(value: Any) -> str:
    return str(value).strip().casefold()


def said_lines(memory: Memory) -> set[str]:
    """What a memory says, line by line: its description and its body's non-empty lines,
    each stripped."""
    lines = {stripped for line in memory.body.split("\n") if (stripped := line.strip())}
    description = memory.description.strip()
    if description:
        lines.add(description)
    return lines


def holds(holder: Memory, other: Memory, holder_lines: set[str] | None = None,
          other_lines: set[str] | None = None) -> bool:
    """Whether `holder` says all `other` says: every line of its body, and its description
    (as `holder`'s description, one of its lines or part of its text)."""
    holder_lines = said_lines(holder) if holder_lines is None else holder_lines
    other_lines = said_lines(other) if other_lines is None else other_lines
    description = other.description.strip()
    missing = other_lines - holder_lines
    if description in missing and description in holder.text:
        missing.discard(description)
    return not missing


def _holder(first: Memory, second: Memory, prefer: Callable[[Memory], Any] | None,
            first_lines: set[str], second_lines: set[str]) -> Memory | None:
    first_holds = holds(first, second, first_lines, second_lines)
    second_holds = holds(second, first, second_lines, first_lines)
    if first_holds and second_holds:
        if prefer is not None and prefer(second) < prefer(first):
            return second
        return first
    return first if first_holds else second if second_holds else None


def keeper_rank(store: Store) -> Callable[[Memory], tuple]:
    """Which of two notes holding each other's lines to keep: the one Claude sees (linked in
    a loaded cut), then one an index links, then the longer file, the one less deep in
    folders, the first by name."""
    links = [link for index in store.indexes for link in index.loaded.links]
    visible = {link.file for link in links if link.visible}
    indexed = {link.file for link in links}

    def rank(memory: Memory) -> tuple:
        return (memory.file not in visible, memory.file not in indexed, -len(memory.text),
                memory.file.count("/"), memory.file)

    return rank
