"""Near-duplicate detection finds exactly the pairs the plain definition finds, in its order."""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

from conftest import letters
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz, process

from tui.memory import frontmatter
from tui.memory.similarity import (
    DUPLICATE_SCORE,
    WORD_OVERLAP,
    collapsed_start,
    comparable_texts,
    jaccard,
    name_numbers,
    near_duplicates,
    search_duplicates,
)
from tui.memory.store import Memory

WORDS = ["deploy", "on", "fridays", "never", "the", "cache", "é", "API", "v2", "ok", "tests"]


def _memory(number: int, text: str) -> Memory:
    name = f"m{letters(number)}.md"
    return Memory(name, name, text, frontmatter.parse(text), 0.0, 0)


def _all_pairs(memories, cutoff):
    """The plain quadratic definition: every pair named alike with enough shared words,
    fuzzy-scored."""
    texts = comparable_texts(memories)
    keep = [i for i, t in enumerate(texts) if len(t) >= 24]
    pairs = []
    for position, i in enumerate(keep[:-1]):
        later = [texts[j] for j in keep[position + 1 :]]
        for _, score, offset in process.extract(
            texts[i], later, scorer=fuzz.token_sort_ratio, score_cutoff=cutoff, limit=None
        ):
            j = keep[position + 1 + offset]
            if name_numbers(memories[i]) != name_numbers(memories[j]):
                continue
            if jaccard(frozenset(texts[i].split()), frozenset(texts[j].split())) >= WORD_OVERLAP:
                pairs.append((memories[i], memories[j], float(score)))
    pairs.sort(key=lambda p: -p[2])
    return pairs


bodies = st.lists(st.sampled_from(WORDS), min_size=3, max_size=30).map(" ".join)


# Words and every kind of space str.split() knows, long runs of them included.
spaced = st.lists(
    st.one_of(st.sampled_from(WORDS + ["x" * 700]), st.text(" \t\n\r\x0b\x1c\u00a0\u2003\u3000", min_size=1)),
    max_size=200,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(spaced, st.integers(min_value=0, max_value=900))
def test_collapsed_start_is_the_start_of_the_whole_text_collapsed(text, length):
    assert collapsed_start(text, length) == " ".join(text.split())[:length]


@settings(max_examples=150, deadline=None)
@given(st.lists(bodies, min_size=2, max_size=14), st.sampled_from([60.0, 80.0, 90.0, 97.0]))
def test_same_pairs_scores_and_order_as_all_pairs(texts, cutoff):
    # Near-copies make sure high-scoring pairs occur.
    texts = texts + [t + " ok" for t in texts[:3]]
    memories = [_memory(n, f"---\ndescription: note\n---\n{t}\n") for n, t in enumerate(texts)]
    assert near_duplicates(memories, cutoff) == _all_pairs(memories, cutoff)


# Long texts over a wide vocabulary: word sets of dozens, where a pair must meet in several
# of its rarest words, and edited copies that stay just above or fall just below Jaccard 0.8.
VOCABULARY = [f"w{n}" for n in range(120)]
long_bodies = st.lists(st.sampled_from(VOCABULARY), min_size=20, max_size=70, unique=True)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(long_bodies, min_size=2, max_size=10),
    st.lists(st.tuples(st.integers(0, 9), st.integers(0, 20), st.integers(0, 119)), max_size=12),
)
def test_same_pairs_as_all_pairs_for_long_edited_texts(originals, edits):
    texts = [list(words) for words in originals]
    for source, percent, seed in edits:  # a copy with up to a fifth of its words replaced
        copy = list(originals[source % len(originals)])
        changes = len(copy) * percent // 100
        for n in range(changes):
            copy[(seed + 7 * n) % len(copy)] = VOCABULARY[(seed + 13 * n) % len(VOCABULARY)]
        texts.append(copy)
    memories = [
        _memory(n, f"---\ndescription: note\n---\n{' '.join(words)}\n")
        for n, words in enumerate(texts)
    ]
    assert near_duplicates(memories, 80.0) == _all_pairs(memories, 80.0)


def test_memory_extended_by_a_quarter_of_rare_words_is_a_duplicate_at_jaccard_0_8():
    # The tightest case for prefix filtering: every word the longer text adds is rarer than
    # every shared word, and the overlap is exactly 80% of it.
    shared = [f"common{n:02}" for n in range(32)]
    extra = [f"added{n}" for n in range(8)]
    memories = [
        _memory(0, f"---\ndescription: note\n---\n{' '.join(shared)}\n"),
        _memory(1, f"---\ndescription: note\n---\n{' '.join(shared + extra)}\n"),
    ]
    assert [(a.file, b.file) for a, b, _ in near_duplicates(memories, 70.0)] == [("ma.md", "mb.md")]
    assert near_duplicates(memories, 70.0) == _all_pairs(memories, 70.0)


def test_two_memories_of_one_size_sharing_eight_ninths_of_their_words_are_duplicates():
    # The tightest case for the shorter index prefix: equal sizes, Jaccard exactly 0.8
    # (16 of 20 words), each memory's own words rarer than every shared one.
    shared = [f"common{n:02}" for n in range(16)]
    memories = [
        _memory(number, f"---\ndescription: note\n---\n{' '.join(shared + own)}\n")
        for number, own in enumerate([["firstonly", "firstalso"], ["secondonly", "secondalso"]])
    ]
    assert [(a.file, b.file) for a, b, _ in near_duplicates(memories, 70.0)] == [("ma.md", "mb.md")]
    assert near_duplicates(memories, 70.0) == _all_pairs(memories, 70.0)


# --- real-shaped stores, and stores made from one template --------------------------------

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import bodies  # noqa: E402


def _real_shaped(count: int, seed: int) -> list[Memory]:
    """Memories shaped as real ones (benchmarks/bodies.py), a few of them edited copies."""
    rng = random.Random(seed)
    words = bodies.StoreWords(rng)
    texts: list[str] = []
    for number in range(count):
        if texts and rng.random() < 0.05:
            texts.append(rng.choice(texts).replace(".", ". Still true.", 1))
            continue
        kind = rng.choice(("feedback", "project", "user", "reference"))
        head = f"---\nname: m{letters(number)}\ndescription: {bodies.description(rng, words)}\n---\n\n"
        texts.append(head + bodies.memory_body(rng, kind, words, [], bodies.body_length(rng)))
    return [_memory(n, text) for n, text in enumerate(texts)]


def test_a_real_shaped_store_gets_every_pair_of_the_plain_definition_and_no_cut():
    memories = _real_shaped(500, seed=3)
    search = search_duplicates(memories)
    assert search.cut == 0 and search.compared == 500
    assert search.pairs == _all_pairs(memories, DUPLICATE_SCORE)
    assert len(search.pairs) >= 10  # the edited copies


def _template_notes(count: int, seed: int) -> list[Memory]:
    """Notes from one template over 30 words: every word is in about half of them."""
    rng = random.Random(seed)
    words = [f"word{n}" for n in range(30)]
    texts = []
    for number in range(count):
        if texts and rng.random() < 0.05:
            texts.append(texts[-1] + " again")  # a near-copy, next to its original
            continue
        fields = "\n".join(f"{field}: {' '.join(rng.choices(words, k=rng.randint(2, 6)))}"
                           for field in ("Role", "Company", "Skills", "Notes"))
        texts.append(f"---\ndescription: contact {number}\n---\n{fields}\n")
    return [_memory(n, text) for n, text in enumerate(texts)]


def test_a_template_store_is_searched_within_the_budget_and_says_how_many_were_cut():
    memories = _template_notes(600, seed=5)
    search = search_duplicates(memories)
    plain = _all_pairs(memories, DUPLICATE_SCORE)
    assert 0 < search.cut <= search.compared == 600
    found = {(a.file, b.file) for a, b, _ in search.pairs}
    assert found <= {(a.file, b.file) for a, b, _ in plain}  # nothing that is no pair
    assert len(found) >= len(plain) // 2  # near-copies sit nearest in size: most are found


def test_a_search_within_the_budget_costs_in_proportion_to_the_store(monkeypatch):
    """Postings counted stay under the budget per memory, however uniform the store: the
    plain prefix filter counts ~quadratically many on template notes."""
    from tui.memory import similarity

    counted = []

    def counting(items=()):
        items = list(items)
        counted.append(len(items))
        return Counter(items)

    monkeypatch.setattr(similarity, "Counter", counting)
    for count in (1_000, 2_000):
        counted.clear()
        similarity.search_duplicates(_template_notes(count, seed=7))
        budget = (similarity.PROBE_BUDGET + similarity.PROBE_SHARE) * count
        assert sum(counted[1:]) <= budget  # the first Counter counts words, not postings
