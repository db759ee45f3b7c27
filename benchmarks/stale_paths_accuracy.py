"""How right `stale_path` is on memories shaped like real ones: precision and recall against
an answer known by construction.

    python benchmarks/stale_paths_accuracy.py [--stores 12] [--memories 60] [--seed 1]

Each store's memories are written by `generate.memory_text` (bodies.py: code spans, lists,
fences, tables, dates, versions, flags, `fn()` calls and the store's own identifiers at the
shares measured on public stores). The store's identifiers that are paths (`src/a/b.py`)
are the paths of its checkout, a git repository built here whose history gives each path a
fate: kept, renamed, renamed twice (a chain), deleted, or never committed (beside files of
its folder, or in a folder git does not track).

The answer: every place a memory writes one of those paths is a mention, unless it is in a
fence that is no shell command or inside another path (`C:\\Users\\dev\\src/a.py`); a mention of a
path that git's history had and the checkout has no more is stale (one git never had is
not: nothing says it was this repository's), and a renamed one's successor is its last
name. memtui's findings (`code_findings`, what `audit` reports) are compared with it by
(file, line, path): precision, recall by fate, and successors right.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import bodies  # noqa: E402
from bench_stale_paths import git  # noqa: E402
from generate import TYPES, memory_text  # noqa: E402

from tui.claude.checkout import CheckoutCache  # noqa: E402
from tui.memory.stale_paths import mention_findings, store_mentions, store_texts  # noqa: E402
from tui.memory.store import load_store  # noqa: E402

SHELL_FENCES = {"sh", "bash", "console", "shell", "zsh"}
FATES = ("kept", "renamed", "chain", "deleted", "never, folder tracked",
         "never, folder untracked")


def build_checkout(repo: Path, paths: list[str], rng: random.Random
                   ) -> tuple[dict[str, str], dict[str, str | None]]:
    """The checkout of `paths`: ({path: its fate}, {stale path: its successor or None})."""
    fates = {path: rng.choices(FATES, weights=(40, 20, 10, 15, 10, 5))[0] for path in paths}
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    committed = [p for p, fate in fates.items() if not fate.startswith("never")]
    for path in committed:
        _write(repo / path, f"# {path}\n{rng.random()}\n" * 4)
    for path, fate in fates.items():  # a tracked neighbour, so git tracks its folder
        if fate == "never, folder tracked":
            _write(repo / Path(path).parent / "neighbour.txt", "kept\n")
    git(repo, "add", "--all")
    git(repo, "commit", "-q", "-m", "initial")
    successors: dict[str, str | None] = {}
    for day, step in enumerate(("first", "second"), start=1):
        for order, (path, fate) in enumerate(fates.items()):
            if fate == "renamed" and step == "first" or fate == "chain":
                old = successors.get(path, path)
                new = f"lib/{step}/{order}_{Path(path).name}"
                (repo / new).parent.mkdir(parents=True, exist_ok=True)
                (repo / old).rename(repo / new)
                successors[path] = new
            elif fate == "deleted" and step == "first":
                (repo / path).unlink()
                successors[path] = None
        git(repo, "add", "--all")
        git(repo, "commit", "-q", "--allow-empty", "-m", f"move things ({step})", day=day)
    for path, fate in fates.items():
        if fate.startswith("never"):
            successors[path] = None
    return fates, successors


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def write_memories(store: Path, words: bodies.StoreWords, count: int, rng: random.Random
                   ) -> None:
    store.mkdir(parents=True)
    names: list[str] = []
    index = []
    for number in range(count):
        kind = rng.choice(TYPES)
        name = f"{kind}_note_{number}"
        text = memory_text(rng, name, kind, bodies.description(rng, words), words, names)
        (store / f"{name}.md").write_text(text)
        names.append(name.replace("_", "-"))
        index.append(f"- [{name}]({name}.md) — {bodies.description(rng, words)}")
    (store / "MEMORY.md").write_text("# Memory\n\n" + "\n".join(index) + "\n")


def expected_mentions(store: Path, paths: list[str]) -> set[tuple[str, int, str]]:
    """Every (file, line, path) where a memory or the index writes one of `paths`."""
    written = re.compile(r"(?<![\w./\\-])(" + "|".join(map(re.escape, paths)) + r")(?![\w/-])")
    found = set()
    for file in sorted(store.glob("*.md")):
        fence: str | None = None
        for number, line in enumerate(file.read_text().splitlines(), start=1):
            if line.startswith("```"):
                fence = None if fence is not None else line[3:].strip()
                continue
            if fence is not None and fence not in SHELL_FENCES:
                continue
            found.update((file.name, number, match.group(1)) for match in written.finditer(line))
    return found


def _cause(mention, fate: str) -> str:
    """Why a stale mention was not reported."""
    if mention is None:
        return "missed, not read as a path"
    if mention.places:
        return "missed, its line or section names another repository"
    return "missed, other"


@dataclass
class Accuracy:
    totals: Counter[str] = field(default_factory=Counter)
    by_fate: Counter[tuple[str, bool]] = field(default_factory=Counter)
    wrong: list[str] = field(default_factory=list)  # findings the answer does not hold
    missed: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # by cause


def measure(stores: int, memories: int, seed: int, where: Path) -> Accuracy:
    result = Accuracy()
    totals = result.totals
    for number in range(stores):
        rng = random.Random(seed * 1000 + number)
        words = bodies.StoreWords(rng)
        paths = sorted({word for word in words.identifiers if word.startswith("src/")})
        root = where / f"store-{number}"
        fates, successors = build_checkout(root / "code", paths, rng)
        store = root / "memory"
        write_memories(store, words, memories, rng)
        expected = expected_mentions(store, paths)
        # A path git never had is no finding: nothing says it was this repository's.
        stale = {m for m in expected if fates[m[2]] in ("renamed", "chain", "deleted")}
        loaded = load_store(store)
        mentions = store_mentions(loaded)
        read = {(m.file, m.line, m.target): m for m in mentions}
        cache = CheckoutCache(root / "cache.sqlite")
        found = {(f.file, f.line, f.target): f.other
                 for f in mention_findings(mentions, str(root / "code"), cache,
                                           store_texts(loaded))
                 if f.kind == "stale_path"}
        totals["mentions"] += len(expected)
        totals["stale"] += len(stale)
        totals["findings"] += len(found)
        for key, other in found.items():
            if key not in stale:
                result.wrong.append(f"store-{number}/{key[0]}:{key[1]} {key[2]}")
                continue
            totals["right"] += 1
            totals["successor right"] += other == successors[key[2]]
        for key in stale:
            result.by_fate[(fates[key[2]], key in found)] += 1
            if key not in found:
                result.missed[_cause(read.get(key), fates[key[2]])].append(
                    f"store-{number}/{key[0]}:{key[1]} {key[2]} ({fates[key[2]]})")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stores", type=int, default=12)
    parser.add_argument("--memories", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memtui-accuracy-") as temp:
        result = measure(args.stores, args.memories, args.seed, Path(temp))
    totals, by_fate = result.totals, result.by_fate
    print(f"{args.stores} stores of {args.memories} memories (bodies.py shapes); "
          f"{totals['mentions']:,} mentions of their checkouts' paths, "
          f"{totals['stale']:,} of them stale")
    precision = totals["right"] / totals["findings"] if totals["findings"] else 1.0
    recall = totals["right"] / totals["stale"] if totals["stale"] else 1.0
    print(f"  stale_path findings {totals['findings']:,}: right {totals['right']:,} "
          f"(precision {precision:.3f}), recall {recall:.3f}; successor right "
          f"{totals['successor right']:,} of {totals['right']:,}")
    for fate in FATES[1:]:
        hit, miss = by_fate[(fate, True)], by_fate[(fate, False)]
        if hit + miss:
            print(f"  {fate:<24} found {hit:>4} of {hit + miss:>4}")
    for label, items in (("wrong findings", result.wrong), *result.missed.items()):
        print(f"  {label}: {len(items)}")
        for item in items[:3]:
            print(f"    {item}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
