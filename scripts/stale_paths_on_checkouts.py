"""Run the `stale_path` check on memory stores that repositories commit beside their code,
each against its own checkout: how its precision and recall were judged on real repositories.

    python scripts/stale_paths_on_checkouts.py STORES [--out FINDINGS.jsonl]

STORES holds one store a line: a checkout (a full clone, its history whole) and the store's
folder inside it (`~/co/shop .claude/memory`). Each finding is printed as one JSON line with
the line of the memory it is on, for a person to judge against the repository's history
(`git log --follow`, `git log --diff-filter=DR`). The mentions and memories counted are
printed at the end, on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stores", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from tui.claude.checkout import CheckoutCache
    from tui.memory.stale_paths import mention_findings, store_mentions, store_texts
    from tui.memory.store import load_store

    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    stores = memories = mentions_seen = flagged = 0
    for line in args.stores.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        checkout, folder = line.split()
        checkout = os.path.expanduser(checkout)
        store = load_store(Path(checkout, folder))
        mentions = store_mentions(store)
        found = mention_findings(mentions, checkout, CheckoutCache(Path(os.devnull)),
                                 store_texts(store))
        stores += 1
        memories += len(store.memories)
        mentions_seen += len(mentions)
        for finding in found:
            flagged += finding.kind == "stale_path"
            text = Path(checkout, folder, finding.file).read_text(encoding="utf-8",
                                                                  errors="replace") \
                if finding.file else ""
            lines = text.split("\n")
            row = {"checkout": checkout, "store": folder, **finding.to_json(),
                   "text": lines[finding.line - 1] if finding.line else ""}
            print(json.dumps(row, ensure_ascii=False), file=out)
    print(f"{stores} stores, {memories} memories, {mentions_seen} mentions, "
          f"{flagged} flagged", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
