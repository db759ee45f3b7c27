"""How a count reads in a sentence: "1 change", "3 changes", "2 memories", "4,935 lines"."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word}" if count == 1 else f"{count:,} {many or word + 's'}"
