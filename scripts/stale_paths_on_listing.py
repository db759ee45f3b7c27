"""Run the `stale_path` check on a memory store against a repository known only by its
file listing: how its precision was measured on memory folders that public repositories
commit (the repository's own paths checked against its own file list).

    python scripts/stale_paths_on_listing.py LISTING MEMORY_DIR [--origin URL]

LISTING holds one path of the repository a line (as a code search lists them); MEMORY_DIR
is the memory folder (MEMORY.md and the memory files). A throw-away git repository with
those paths (empty files, one commit) stands in for the checkout, so there is no history:
every finding is a path the listing does not have. Prints each mention found and each
finding, for a person to judge.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def checkout_of(listing: Path, where: Path, origin: str | None) -> Path:
    repo = where / "checkout"
    repo.mkdir()
    for line in listing.read_text(encoding="utf-8").splitlines():
        path = line.strip()
        if not path or path.startswith("/") or ".." in path.split("/"):
            continue
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
    env = {**os.environ, "GIT_AUTHOR_NAME": "x", "GIT_AUTHOR_EMAIL": "x@x",
           "GIT_COMMITTER_NAME": "x", "GIT_COMMITTER_EMAIL": "x@x"}
    for args in (["init", "-q", "-b", "main"], ["add", "--all", "--force"],
                 ["commit", "-q", "-m", "listing", "--no-verify"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=env)
    if origin:
        subprocess.run(["git", "-C", str(repo), "remote", "add", "origin", origin], check=True)
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("listing", type=Path)
    parser.add_argument("memory", type=Path)
    parser.add_argument("--origin")
    args = parser.parse_args()
    from tui.claude.checkout import CheckoutCache
    from tui.memory.stale_paths import code_findings, store_mentions
    from tui.memory.store import load_store

    with tempfile.TemporaryDirectory(prefix="memtui-listing-") as temp:
        repo = checkout_of(args.listing, Path(temp), args.origin)
        store = Path(temp) / "memory"
        shutil.copytree(args.memory, store)
        loaded = load_store(store)
        mentions = store_mentions(loaded)
        found = code_findings(loaded, str(repo), CheckoutCache(Path(os.devnull)))
        print(f"{len(mentions)} mentions:")
        for mention in mentions:
            print(f"  {mention.file}:{mention.line}  {mention.target}")
        print(f"{len(found)} findings:")
        for finding in found:
            print(f"  {finding.file}:{finding.line}  {finding.kind}  {finding.target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
