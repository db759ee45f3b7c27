"""Which words of real descriptions the recall estimate takes for one word: the rule now
(forms of a word: tests, tested, testing) against the old one (any four shared letters,
which made "checkout" match "checked"), with samples to judge by hand.

    python benchmarks/recall_word_forms.py STORE_DIR... [--sample 40] [--seed 1]

Each STORE_DIR is a memory dir; every word of every description is paired with the words
that share its first four letters (the old rule's pairs), and the pairs the new rule makes
that the old did not are counted too.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tui.memory.recall import _same_word, _words  # noqa: E402
from tui.memory.store import load_store  # noqa: E402

OLD_PREFIX = 4


def old_rule(a: str, b: str) -> bool:
    return a == b or (len(a) >= OLD_PREFIX and len(b) >= OLD_PREFIX
                      and a[:OLD_PREFIX] == b[:OLD_PREFIX])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("stores", nargs="+", type=Path)
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    words: set[str] = set()
    for store in args.stores:
        for memory in load_store(store).memories:
            words |= _words(memory.description)
    ordered = sorted(word for word in words if not word.isdigit())
    by_start: dict[str, list[str]] = {}
    for word in ordered:
        if len(word) >= OLD_PREFIX:
            by_start.setdefault(word[:OLD_PREFIX], []).append(word)
    old_pairs = [(a, b) for group in by_start.values()
                 for i, a in enumerate(group) for b in group[i + 1:]]
    kept = [pair for pair in old_pairs if _same_word(*pair)]
    split = [pair for pair in old_pairs if not _same_word(*pair)]
    new_only = [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:]
                if b.startswith(a[:2]) and _same_word(a, b) and not old_rule(a, b)]
    print(f"{len(args.stores)} stores, {len(ordered)} description words")
    print(f"old rule: {len(old_pairs)} pairs; new rule keeps {len(kept)}, splits {len(split)}, "
          f"adds {len(new_only)}")
    rng = random.Random(args.seed)
    for name, pairs in (("kept", kept), ("split", split), ("added", new_only)):
        shown = rng.sample(pairs, min(args.sample, len(pairs)))
        print(f"\n{name} (judge: the same word?):")
        print("  " + ", ".join(f"{a}/{b}" for a, b in shown))


if __name__ == "__main__":
    main()
