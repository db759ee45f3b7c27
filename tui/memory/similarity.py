"""Near-duplicate memories, found with rapidfuzz over what a reader would compare.

Two memories are near-duplicates when their word sets overlap (Jaccard >= 0.8) and
rapidfuzz's `token_sort_ratio` of their texts reaches the cutoff (90). The word-set
condition lets us find candidates with prefix filtering (each text indexed by its rarest
words: two sets with Jaccard >= t must share one of them), so a store of thousands of
memories is not scored pair by pair; the fuzzy score then decides.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence

from rapidfuzz import fuzz, utils

from tui.memory.store import Memory

DUPLICATE_SCORE = 90.0
WORD_OVERLAP = 0.8
_MIN_TEXT = 24


def comparable_text(memory: Memory) -> str:
    body = " ".join(memory.body.split())[:400]
    return utils.default_process(f"{memory.description} {body}")


def jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    shared = len(first & second)
    return shared / (len(first) + len(second) - shared)


def near_duplicates(
    memories: Sequence[Memory], cutoff: float = DUPLICATE_SCORE
) -> list[tuple[Memory, Memory, float]]:
    """Pairs (earlier file, later file, score) at or above `cutoff`, best first."""
    candidates = [m for m in memories if not m.error]
    texts = [comparable_text(m) for m in candidates]
    keep = [i for i, text in enumerate(texts) if len(text) >= _MIN_TEXT]
    if len(keep) < 2:
        return []
    words = {i: frozenset(texts[i].split()) for i in keep}
    frequency = Counter(word for i in keep for word in words[i])
    rank = {word: n for n, word in enumerate(sorted(frequency, key=lambda w: (frequency[w], w)))}
    masks: dict[int, int] = {}  # word sets as bit masks, built only for candidates

    def mask(i: int) -> int:
        if i not in masks:
            masks[i] = sum(1 << rank[word] for word in words[i])
        return masks[i]

    def sorted_words(i: int) -> str:
        return " ".join(sorted(texts[i].split()))

    sizes = {i: len(words[i]) for i in keep}
    postings: dict[str, list[int]] = defaultdict(list)
    scored: list[tuple[float, int, int]] = []
    for i in sorted(keep, key=lambda i: (sizes[i], i)):
        rarest_first = sorted(words[i], key=rank.__getitem__)
        prefix = rarest_first[: len(rarest_first) - math.ceil(WORD_OVERLAP * len(rarest_first)) + 1]
        seen: set[int] = set()
        for word in prefix:
            seen.update(postings[word])
            postings[word].append(i)
        smallest = WORD_OVERLAP * sizes[i]
        for j in seen:
            if sizes[j] < smallest:
                continue
            shared = (mask(i) & mask(j)).bit_count()
            if shared < WORD_OVERLAP * (sizes[i] + sizes[j] - shared):
                continue
            # token_sort_ratio: ratio() over the words sorted and joined by single spaces.
            score = fuzz.ratio(sorted_words(i), sorted_words(j), score_cutoff=cutoff)
            if score:
                scored.append((-float(score), min(i, j), max(i, j)))
    scored.sort()
    return [(candidates[i], candidates[j], -negative) for negative, i, j in scored]
