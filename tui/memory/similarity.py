"""Near-duplicate memories, found with rapidfuzz over what a reader would compare."""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import fuzz, process, utils

from tui.memory.store import Memory

DUPLICATE_SCORE = 90.0
_MIN_TEXT = 24


def comparable_text(memory: Memory) -> str:
    body = " ".join(memory.body.split())[:400]
    return utils.default_process(f"{memory.description} {body}")


def near_duplicates(
    memories: Sequence[Memory], cutoff: float = DUPLICATE_SCORE
) -> list[tuple[Memory, Memory, float]]:
    """Pairs (earlier file, later file, score) at or above `cutoff`, best first."""
    candidates = [m for m in memories if not m.error]
    texts = [comparable_text(m) for m in candidates]
    keep = [i for i, t in enumerate(texts) if len(t) >= _MIN_TEXT]
    if len(keep) < 2:
        return []
    pairs: list[tuple[Memory, Memory, float]] = []
    for position, i in enumerate(keep[:-1]):
        later = [texts[j] for j in keep[position + 1 :]]
        for _, score, offset in process.extract(
            texts[i], later, scorer=fuzz.token_sort_ratio, score_cutoff=cutoff, limit=None
        ):
            pairs.append((candidates[i], candidates[keep[position + 1 + offset]], float(score)))
    pairs.sort(key=lambda p: -p[2])
    return pairs
