"""Near-duplicate detection finds exactly the pairs the plain definition finds, in its order."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz, process

from tui.memory import frontmatter
from tui.memory.similarity import WORD_OVERLAP, comparable_text, jaccard, near_duplicates
from tui.memory.store import Memory

WORDS = ["deploy", "on", "fridays", "never", "the", "cache", "é", "API", "v2", "ok", "tests"]


def _memory(number: int, text: str) -> Memory:
    return Memory(f"m{number}.md", Path(f"m{number}.md"), text, frontmatter.parse(text), 0.0, 0)


def _all_pairs(memories, cutoff):
    """The plain quadratic definition: every pair with enough shared words, fuzzy-scored."""
    texts = [comparable_text(m) for m in memories]
    keep = [i for i, t in enumerate(texts) if len(t) >= 24]
    pairs = []
    for position, i in enumerate(keep[:-1]):
        later = [texts[j] for j in keep[position + 1 :]]
        for _, score, offset in process.extract(
            texts[i], later, scorer=fuzz.token_sort_ratio, score_cutoff=cutoff, limit=None
        ):
            j = keep[position + 1 + offset]
            if jaccard(frozenset(texts[i].split()), frozenset(texts[j].split())) >= WORD_OVERLAP:
                pairs.append((memories[i], memories[j], float(score)))
    pairs.sort(key=lambda p: -p[2])
    return pairs


bodies = st.lists(st.sampled_from(WORDS), min_size=3, max_size=30).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(bodies, min_size=2, max_size=14), st.sampled_from([60.0, 80.0, 90.0, 97.0]))
def test_same_pairs_scores_and_order_as_all_pairs(texts, cutoff):
    # Near-copies make sure high-scoring pairs occur.
    texts = texts + [t + " ok" for t in texts[:3]]
    memories = [_memory(n, f"---\ndescription: note\n---\n{t}\n") for n, t in enumerate(texts)]
    assert near_duplicates(memories, cutoff) == _all_pairs(memories, cutoff)
