"""Near-duplicate memories, found with rapidfuzz over what a reader would compare.

Two memories are near-duplicates when their word sets overlap (Jaccard >= 0.8) and
rapidfuzz's `token_sort_ratio` of their texts reaches the cutoff (90). The word-set
condition lets us find candidates with prefix filtering (each text indexed by its rarest
words: two sets with Jaccard >= t must share several of them), so a store of thousands of
memories is not scored pair by pair; the fuzzy score then decides.

What is compared is what a note says of its own, not what a template gave it: a line found in
`TEMPLATE_NOTES` notes or more of the store (a tag page's query, a daily note's headings, a
card's empty fields) is left out, and so is a description that many notes share. And only
notes named alike are compared: the numbers in a note's names (its file name, `name:`,
`title:` and first heading) are what tells one record of a template from another (the day of
a daily note, a tag's code, an invoice's number), so two notes whose names hold different
numbers are never near-duplicates, however alike their texts.

In real stores a memory's rarest words are rare: a search counts ~150 postings and scores
a few candidates per memory on average. In a store made from one template (thousands of
notes over a hundred words, with names free of numbers) even the rarest word of every note
is in thousands of others, and an exact search is quadratic. So a store's search has a
budget in proportion to its size, which a memory may draw on as long as every later one
keeps a small share: a memory past its share counts only the latest postings of each list
(the memories nearest to it in size) and scores the candidates sharing the most words. The
search says how many memories it cut short, and the audit says so.
"""

from __future__ import annotations

import re
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


TEMPLATE_NOTES = 5  # a line in this many notes is the store's template, not a note's own
# The start of a body whose lines are counted; a note with less of its own than it takes
# there (one made from a long template) is counted further, with the others like it.
_HEAD, _LONG_HEAD = 1000, 4000
_NUMBERED = re.compile(r"[^\W_]*\d[^\W_]*")  # a word holding a digit: 2026, 05, a12, v2
_DIGIT = re.compile(r"\d")
_NONE: frozenset[str] = frozenset()
_TITLE = re.compile(r"\s*(#[ \t][^\n]*)")  # a body's first line, when a level-1 heading


def comparable_texts(memories: Sequence[Memory]) -> list[str]:
    """What each memory says of its own, as compared: its description and the start of its
    body, without the lines (and the description) that many notes of the store share."""
    bodies = [memory.body for memory in memories]
    heads = [_head_lines(body, _HEAD) for body in bodies]
    shared = Counter(chain.from_iterable(map(set, heads)))
    for number, body in enumerate(bodies):
        lines = heads[number]
        if len(body) > _HEAD and not _has_own(lines, shared, 400):
            longer = _head_lines(body, _LONG_HEAD)
            shared.update(set(longer).difference(lines))
            heads[number] = longer
    descriptions = [memory.description for memory in memories]
    repeated = Counter(description.strip() for description in descriptions)
    return [
        utils.default_process(
            f"{'' if repeated[description.strip()] >= TEMPLATE_NOTES else description} "
            f"{_own_start(lines, shared)}")
        for description, lines in zip(descriptions, heads, strict=True)
    ]


def _has_own(lines: list[str], shared: Counter[str], size: int) -> bool:
    """Whether the lines fewer than TEMPLATE_NOTES notes hold make `size` characters."""
    for line in lines:
        if shared[line] < TEMPLATE_NOTES:
            size -= len(line) + 1
            if size <= 0:
                return True
    return False


def _own_start(lines: list[str], shared: Counter[str]) -> str:
    """The first 400 characters of the lines fewer than TEMPLATE_NOTES notes hold, their
    spaces collapsed; joined only as far as it takes."""
    own: list[str] = []
    size = 0
    for line in lines:
        if shared[line] < TEMPLATE_NOTES:
            own.append(line)
            size += len(line) + 1
            if size > 400 and len(start := collapsed_start(" ".join(own), 400)) == 400:
                return start
    return collapsed_start(" ".join(own), 400)


def _head_lines(body: str, length: int) -> list[str]:
    """The stripped non-empty lines of the first `length` characters of `body` (a line cut
    short left out)."""
    lines = body[:length].split("\n")
    if len(body) > length:
        lines.pop()
    return [stripped for line in lines if (stripped := line.strip())]


def name_numbers(memory: Memory) -> frozenset[str]:
    """The words holding a digit in the memory's names (`2026-05-18.md`: 2026, 5, 18; see
    `name_texts`). Leading zeros do not count: `2026-05-07` and "May 7, 2026" name the same
    day."""
    names = " ".join(name_texts(memory))
    if not _DIGIT.search(names):
        return _NONE
    return frozenset(word.lstrip("0") or "0" if word.isdigit() else word
                     for word in _NUMBERED.findall(names.casefold()))


def name_texts(memory: Memory) -> tuple[str, str, str, str]:
    """What names a memory: its file name (without folder and `.md`), `name:`, `title:` and
    title heading (its body's first line, when that is a level-1 heading)."""
    fm = memory.frontmatter
    return (memory.file.rpartition("/")[2].removesuffix(".md"), fm.name or "",
            fm.text("title") or "", _title_heading(memory.body))


def _title_heading(body: str) -> str:
    match = _TITLE.match(body)
    return match.group(1).strip() if match else ""


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
    texts = comparable_texts(candidates)
    keep = [i for i, text in enumerate(texts) if len(text) >= _MIN_TEXT]
    if len(keep) < 2:
        return DuplicateSearch([], len(keep), 0)
    # Notes named by different numbers are never compared: each number set has postings of
    # its own (word number * groups + group).
    groups: dict[frozenset[str], int] = {}
    group = {i: groups.setdefault(name_numbers(candidates[i]), len(groups)) for i in keep}
    spread = len(groups)
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
        own = group[i]
        lists = [postings[n * spread + own] for n in numbered[i][: size - overlap + _PREFIX_HITS]]
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
