"""An offline stand-in for Claude Code's recall selector.

The selector sees one manifest line per file of the recall scan (the 200 newest files):
`- [type] file (mtime ISO): description`, the tag only for the four types (Claude Code's
parseMemoryType drops any other), `: description` only when there is one. It never sees
bodies. This matcher ranks the same manifest lines against a query by word overlap, so a
user can check whether a memory's description would ever be picked for the question they
have in mind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from rapidfuzz import fuzz

from tui.memory.frontmatter import MEMORY_TYPES
from tui.memory.store import Memory, Store

SELECTOR_LIMIT = 5
MIN_SCORE = 35.0  # below this the selector would "leave it out when unsure"

_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    "a an and are as at be but by can do does for from how i in is it me my of on or our "
    "should so that the this to was we what when where which who why will with you your".split()
)
_STEM = 4  # words sharing their first four letters count as the same word ("test", "testing")


@dataclass(frozen=True)
class RecallMatch:
    file: str
    score: float
    manifest_line: str


def selector_type(memory: Memory) -> str | None:
    """The type the selector is shown: one of the four, else none (an unknown type is
    dropped, not shown)."""
    return memory.type if memory.type in MEMORY_TYPES else None


def manifest_line(memory: Memory) -> str:
    """The line the selector reads for a memory: `- [type] file (mtime): description`,
    without the tag for a missing or unknown type and without `: ` for no description."""
    # JavaScript's Date drops the fraction of a millisecond (fromtimestamp would round
    # 0.9999996 s up to the next second), and toISOString() ends in Z.
    ms = int(memory.mtime * 1000)
    when = datetime.fromtimestamp(ms // 1000, UTC).replace(microsecond=ms % 1000 * 1000)
    when = when.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    kind = selector_type(memory)
    line = f"- {f'[{kind}] ' if kind else ''}{memory.file} ({when})"
    return f"{line}: {memory.description}" if memory.description else line


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS}


def _same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    return len(a) >= _STEM and len(b) >= _STEM and a[:_STEM] == b[:_STEM]


def score(query: str, memory: Memory) -> float:
    """0-100: how well a memory's type and description answer the query."""
    wanted = _words(query)
    if not wanted:
        return 0.0
    seen = f"{selector_type(memory) or ''} {memory.description}"
    offered = _words(seen)
    hits = sum(1 for w in wanted if any(_same_word(w, o) for o in offered))
    overlap = 100.0 * hits / len(wanted)
    fuzzy = fuzz.token_set_ratio(query.lower(), seen.lower())
    return round(0.8 * overlap + 0.2 * fuzzy, 1) if hits else 0.0


def rank(store: Store, query: str, limit: int = SELECTOR_LIMIT) -> list[RecallMatch]:
    """The memories the selector could pick for `query`, best first, at most `limit`."""
    scored = [
        RecallMatch(m.file, score(query, m), manifest_line(m))
        for m in store.memories
        if m.file in store.recall_scan and not m.error
    ]
    picked = [match for match in scored if match.score >= MIN_SCORE]
    picked.sort(key=lambda match: (-match.score, match.file))
    return picked[:limit]


def never_recalled(store: Store) -> list[Memory]:
    """Memories outside the 200 newest files: the selector never reads them."""
    return [m for m in store.memories if m.file not in store.recall_scan]
