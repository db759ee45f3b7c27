"""How a count reads in a sentence: "1 change", "3 changes", "2 memories", "4,935 lines", and
the verbs and pronouns that follow it: "1 line goes", "2 lines go"."""

from __future__ import annotations

from collections.abc import Sequence


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word}" if count == 1 else f"{count:,} {many or word + 's'}"


def agreeing(count: int, one: str, many: str) -> str:
    """The form of a word that agrees with a count: agreeing(1, "goes", "go") is "goes"."""
    return one if count == 1 else many


def listed(items: Sequence[object], shown: int) -> str:
    """The first `shown` items joined by commas, and how many more there are."""
    more = f" and {len(items) - shown:,} more" if len(items) > shown else ""
    return ", ".join(map(str, items[:shown])) + more
