"""What the projects table shows for each store, read cheaply (index and file names only)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tui.claude.lines import read_store_text
from tui.claude.paths import INDEX_NAME
from tui.memory import frontmatter
from tui.memory.index import MAX_CHARS, MAX_LINES, LoadedIndex, parse_index
from tui.memory.links import wiki_names


@dataclass(frozen=True)
class StoreSummary:
    index: LoadedIndex
    orphans: int  # memory files the loaded cut does not link

    @property
    def binding_limit(self) -> str:
        """Which index limit is nearer to firing: "lines" or "chars"."""
        return "lines" if self.index.lines / MAX_LINES >= self.index.chars / MAX_CHARS else "chars"


def summarize(store: Path) -> StoreSummary:
    try:
        raw = read_store_text(store / INDEX_NAME)
    except OSError:
        raw = None
    try:
        with os.scandir(store) as entries:
            files = [e.name for e in entries if e.name.endswith(".md") and e.name != INDEX_NAME]
    except OSError:
        files = []
    index = parse_index(raw, wiki_names((file, None) for file in files))
    if any(link.names_no_memory for link in index.links):
        # `[[name]]` links name a memory's `name:`; only then are the heads worth reading.
        index = parse_index(raw, wiki_names((file, _name(store / file)) for file in files))
    visible = {link.file for link in index.links if link.visible and link.file}
    return StoreSummary(index, sum(1 for name in files if name not in visible))


def _name(path: Path) -> str | None:
    try:
        head = frontmatter.read_head(path).decode("utf-8", errors="replace")
    except OSError:
        return None
    return frontmatter.parse(head).name
