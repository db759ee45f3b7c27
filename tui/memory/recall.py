"""A word-overlap estimate of what Claude Code's recall selector would pick.

The selector sees one manifest line per file of the recall scan (the 200 newest files):
`- [type] file (mtime ISO): description`, the tag only for the four types (Claude Code's
parseMemoryType drops any other), `: description` only when there is one. It never sees
bodies. The selector is a model: it picks by meaning. This estimate ranks the same
manifest lines by the words they share with a question (a word and its other forms count
as one), so a user can check whether a description says what they would ask. It cannot
know that "pnpm" answers "which package manager": for the question's words no description
shares, `estimate` says only a model can tell, and names the memories whose own text (which
the selector never reads) uses those words.
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
# Endings that make other forms of one word ("deploys", "deployed", "deployment"), longest
# first, each with the least of the word it must leave. A bare shared start is no form:
# "checked" is not "checkout".
_ENDINGS = (("ations", 3), ("ation", 3), ("ments", 4), ("ment", 4), ("ings", 3), ("ing", 3),
            ("ies", 3), ("ied", 3), ("es", 3), ("ed", 3), ("s", 3))
_ROOT = 3
_SIBILANT = ("s", "x", "z", "ch", "sh")  # "es" is an ending after these (boxes), else "s" is
_LONGER_BY = 2  # "config" and "configur(ation)": one stem the other's start but for 2 letters,
_PREFIX_STEM = 5  # and that one this long ("anim" is no form of "animal")


@dataclass(frozen=True)
class RecallMatch:
    file: str
    score: float
    manifest_line: str


@dataclass(frozen=True)
class RecallEstimate:
    """What word overlap can say of a question, and what it cannot."""

    matches: list[RecallMatch]  # descriptions sharing the question's words, best first
    unshared: tuple[str, ...]  # the question's words no type or description shares
    # Memories whose text (never read by the selector) has an unshared word, with those words:
    # a model might still connect them to the question through their descriptions, or not.
    in_text_only: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def needs_model(self) -> bool:
        """Words were left that no description shares: whether a memory answers them by
        meaning (as "pnpm" answers "package manager") only a model can tell."""
        return bool(self.unshared)


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


def stem(word: str) -> str:
    """The word without the ending of its form: test, tests, tested and testing are `test`;
    cache, caches and caching `cach`; stopped `stop`."""
    for ending, least in _ENDINGS:
        base = word[: -len(ending)]
        if not word.endswith(ending) or len(base) < least:
            continue
        if ending == "es" and not base.endswith(_SIBILANT):
            continue  # "dates" is "date" + "s"
        if ending == "s" and base.endswith(("s", "u", "i")):
            break  # class, status, analysis: no plural
        word = base + ("y" if ending in ("ies", "ied") else "")
        if len(word) > _ROOT and word[-1] == word[-2] and word[-1] not in "aeiouls":
            word = word[:-1]  # a doubled last consonant: stopp(ed), runn(ing)
        break
    # A final e goes when as much is left as for an ending but one: date, dated; not done.
    return word[:-1] if len(word) > _ROOT + 1 and word.endswith("e") else word


def _same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    a, b = sorted((stem(a), stem(b)), key=len)
    return a == b or (len(a) >= _PREFIX_STEM and b.startswith(a) and len(b) - len(a) <= _LONGER_BY)


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
    """The memories whose type and description share enough of `query`'s words, best
    first, at most `limit`: the estimate of what the selector could pick."""
    scored = [
        RecallMatch(m.file, score(query, m), manifest_line(m))
        for m in store.memories
        if m.file in store.recall_scan and not m.error
    ]
    picked = [match for match in scored if match.score >= MIN_SCORE]
    picked.sort(key=lambda match: (-match.score, match.file))
    return picked[:limit]


def estimate(store: Store, query: str, limit: int = SELECTOR_LIMIT) -> RecallEstimate:
    """`rank`'s picks, with the question's words no type or description shares, and the
    memories whose own text has those words (at most `limit`)."""
    readable = [m for m in store.memories if m.file in store.recall_scan and not m.error]
    described = set().union(*(_words(f"{selector_type(m) or ''} {m.description}")
                               for m in readable))
    unshared = tuple(sorted(w for w in _words(query)
                            if not any(_same_word(w, d) for d in described)))
    in_text = []
    for memory in readable if unshared else ():
        said = _words(memory.body)
        found = tuple(w for w in unshared if any(_same_word(w, b) for b in said))
        if found:
            in_text.append((memory.file, found))
    in_text.sort(key=lambda item: (-len(item[1]), item[0]))
    return RecallEstimate(rank(store, query, limit), unshared, tuple(in_text[:limit]))


def never_recalled(store: Store) -> list[Memory]:
    """Memories outside the 200 newest files: the selector never reads them."""
    return [m for m in store.memories if m.file not in store.recall_scan]
