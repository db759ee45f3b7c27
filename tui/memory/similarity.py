"""Near-duplicate memories, found with rapidfuzz over what a reader would compare.

Two memories are near-duplicates when their word sets overlap (Jaccard >= 0.8) and
rapidfuzz's `token_sort_ratio` of their texts reaches the cutoff (90). The word-set
condition lets us find candidates with prefix filtering (each text indexed by its rarest
words: two sets with Jaccard >= t must share several of them), so a store of thousands of
memories is not scored pair by pair; the fuzzy score then decides.

In real stores a memory's rarest words are rare: a search counts ~150 postings and scores
a few candidates per memory on average. In a store made from one template (thousands of
notes over a hundred words) even the rarest word of every note is in thousands of others,
and an exact search is quadratic. So a store's search has a budget in proportion to its
size, which a memory may draw on as long as every later one keeps a small share: a memory
past its share counts only the latest postings of each list (the memories nearest to it in
size) and scores the candidates sharing the most words. The search says how many memories
it cut short, and the audit says so.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from heapq import nlargest
from itertools import chain

from rapidfuzz import fuzz, utils

from tui.memory.store import Memory

DUPLICATE_SCORE = 90.0
WORD_OVERLAP = Fraction(4, 5)  # Jaccard of the word sets; the pair loop tests it in integers
# Sets sharing m >= k words share their k rarest common words, and each of those lies within
# the set's (size - m + k) rarest: so a match must hit k times in those longer prefixes.
_PREFIX_HITS = 3
_INDEXED = 2 * WORD_OVERLAP / (1 + WORD_OVERLAP)  # the least overlap with a set no smaller
_MIN_TEXT = 24
# Postings counted and candidates scored, per memory of the store, and the least each one
# may use. Real stores stay far below (a 5,000-memory store counts 150 per memory on average,
# its busiest memory 416, and scores at most 13 candidates for one memory).
PROBE_BUDGET, PROBE_SHARE = 300, 100
SCORE_BUDGET, SCORE_SHARE = 20, 10

Pair = tuple[Memory, Memory, float]


@dataclass(frozen=True)
class DuplicateSearch:
    pairs: list[Pair]  # (earlier file, later file, score), best first
    compared: int  # memories compared
    cut: int  # of those, how many were searched within the budget only


def comparable_text(memory: Memory) -> str:
    return utils.default_process(f"{memory.description} {collapsed_start(memory.body, 400)}")


def collapsed_start(text: str, length: int) -> str:
    """`" ".join(text.split())[:length]`, splitting only as much of `text` as it takes.

    The words of a prefix of `text`, joined, are a prefix of all its words joined (the last
    one perhaps cut short), so once they reach `length` characters they are the answer.
    Splitting a whole real-shaped body (a median 1,600 characters) cost four times this."""
    size = 2 * length
    while True:
        collapsed = " ".join(text[:size].split())
        if len(collapsed) >= length or size >= len(text):
            return collapsed[:length]
        size *= 4


def jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    shared = len(first & second)
    return shared / (len(first) + len(second) - shared)


def near_duplicates(memories: Sequence[Memory], cutoff: float = DUPLICATE_SCORE) -> list[Pair]:
    """Pairs (earlier file, later file, score) at or above `cutoff`, best first.

    Daily logs are left out: days repeat themselves, and a log is never merged away."""
    return search_duplicates(memories, cutoff).pairs


def search_duplicates(
    memories: Sequence[Memory], cutoff: float = DUPLICATE_SCORE
) -> DuplicateSearch:
    """`near_duplicates`, saying how many memories were searched within the budget only."""
    candidates = [m for m in memories if not m.error and not m.is_log]
    texts = [comparable_text(m) for m in candidates]
    keep = [i for i, text in enumerate(texts) if len(text) >= _MIN_TEXT]
    if len(keep) < 2:
        return DuplicateSearch([], len(keep), 0)
    words = {i: frozenset(texts[i].split()) for i in keep}
    frequency = Counter(chain.from_iterable(words.values()))
    # Words as numbers, rarest first (ties in last-seen order): a set's prefix is then
    # simply its smallest numbers.
    number = {word: n for n, (word, _) in enumerate(reversed(frequency.most_common()))}
    numbered = {i: sorted(map(number.__getitem__, words[i])) for i in keep}

    def sorted_words(i: int) -> str:
        return " ".join(sorted(texts[i].split()))

    # Sets are taken smallest first; a posting holds the ranks of the sets taken so far.
    order = sorted(keep, key=lambda i: (len(words[i]), i))
    sizes = [len(words[i]) for i in order]
    postings: dict[int, list[int]] = defaultdict(list)
    scored: list[tuple[float, int, int]] = []
    probes, scores = PROBE_BUDGET * len(order), SCORE_BUDGET * len(order)
    cut = 0
    for rank, i in enumerate(order):
        later = len(order) - rank - 1
        size = sizes[rank]
        # The fewest shared words any match can have: ceil(4/5 * size), in integers.
        overlap = -(-size * WORD_OVERLAP.numerator // WORD_OVERLAP.denominator)
        # A set smaller than that cannot reach Jaccard >= t with this set nor any later
        # (larger) one: it leaves the postings for good (length filtering).
        smallest = bisect_left(sizes, overlap)
        lists = list(map(postings.__getitem__, numbered[i][: size - overlap + _PREFIX_HITS]))
        for ranks in lists:
            if ranks and ranks[0] < smallest:
                del ranks[: bisect_left(ranks, smallest)]
        probed = lists
        postings_left = max(PROBE_SHARE, probes - PROBE_SHARE * later)
        if sum(map(len, lists)) > postings_left:  # each list's latest: the nearest in size
            share = postings_left // len(lists)
            probed = [ranks[-share:] for ranks in lists]
        hits = Counter(chain.from_iterable(probed))
        probes -= sum(map(len, probed))
        # Indexed under fewer words than it probes with: its later partners are no smaller,
        # so a match shares at least 2t/(1+t) * size of its words (8/9 for t = 4/5), and the
        # rarest common ones lie within (size - that + hits) of them (ppjoin's index prefix).
        least_with_larger = -(-size * _INDEXED.numerator // _INDEXED.denominator)
        for ranks in lists[: size - least_with_larger + _PREFIX_HITS]:
            ranks.append(rank)
        needed = min(_PREFIX_HITS, overlap)
        matched = [j for j, count in hits.items() if count >= needed]
        scores_left = max(SCORE_SHARE, scores - SCORE_SHARE * later)
        if len(matched) > scores_left:  # those sharing the most of the words probed
            matched = nlargest(scores_left, matched, key=hits.__getitem__)
            probed = []
        scores -= len(matched)
        cut += probed is not lists
        for j in [order[j] for j in matched]:
            other = len(words[j])
            shared = len(words[i] & words[j])
            # Jaccard >= 4/5, in integers (a Fraction comparison costs a second per store).
            if 5 * shared < 4 * (size + other - shared):
                continue
            # token_sort_ratio: ratio() over the words sorted and joined by single spaces.
            score = fuzz.ratio(sorted_words(i), sorted_words(j), score_cutoff=cutoff)
            if score:
                scored.append((-float(score), min(i, j), max(i, j)))
    scored.sort()
    pairs = [(candidates[i], candidates[j], -negative) for negative, i, j in scored]
    return DuplicateSearch(pairs, len(keep), cut)
