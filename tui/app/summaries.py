"""What the projects table shows for each store, read cheaply (indexes and file names; the
memory files themselves only when some are not linked inside a loaded cut, and then only
those Claude reaches)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text

from tui.claude.lines import read_store_text
from tui.claude.memory_files import TEAM_INDEX, is_log, memory_files
from tui.claude.paths import INDEX_NAME
from tui.memory.index import MAX_CHARS, MAX_LINES, LoadedIndex, parse_index
from tui.memory.links import wiki_names
from tui.memory.reach import memory_name, reach_on_disk


@dataclass(frozen=True)
class StoreSummary:
    index: LoadedIndex
    orphans: int  # memory files Claude cannot reach from a loaded cut (see memory.reach)

    @property
    def binding_limit(self) -> str:
        """Which index limit is nearer to firing: "lines" or "chars"."""
        return "lines" if self.index.lines / MAX_LINES >= self.index.chars / MAX_CHARS else "chars"

    @property
    def fill(self) -> float:
        """How near the index is to its nearer limit (1 or more: the cut fired)."""
        return max(self.index.lines / MAX_LINES, self.index.chars / MAX_CHARS)

    def gauge(self) -> Text:
        """`lines/200 · chars/25,000`, the limit nearer to firing in bold, red when it fired."""
        if not self.index.exists:
            return Text("no index", style="dim")
        lines = Text(f"{self.index.lines:,}/{MAX_LINES}")
        chars = Text(f"{self.index.chars:,}/{MAX_CHARS:,}")
        binding = lines if self.binding_limit == "lines" else chars
        binding.stylize("bold red" if self.index.cut else "bold")
        return Text.assemble(lines, " · ", chars)


def _read(path: str | Path) -> str | None:
    try:
        return read_store_text(path)
    except OSError:
        return None


def summarize(store: Path) -> StoreSummary:
    raw, team_raw = _read(store / INDEX_NAME), _read(store / TEAM_INDEX)
    # Paths as text: a Path made per memory file was a quarter of a heavy home's summaries.
    files = {file: entry.path for file, entry in memory_files(store)}

    def indexes(names: Mapping[str, str]) -> tuple[LoadedIndex, LoadedIndex]:
        return parse_index(raw, names), parse_index(team_raw, names, folder="team/")

    index, team = indexes(wiki_names((file, None) for file in files))
    names = None  # read when a `[[name]]` needs them
    if any(link.names_no_memory for link in (*index.links, *team.links)):
        # `[[name]]` links name a memory's `name:`; only then are the heads worth reading.
        names = wiki_names((file, memory_name(path)) for file, path in files.items())
        index, team = indexes(names)
    visible = {link.file for link in (*index.links, *team.links) if link.visible and link.file}
    orphans = {file for file in files if file not in visible and not is_log(file)}
    if orphans:  # perhaps reached through other memories (a second-level index)
        orphans -= reach_on_disk(files, (index, team), names).keys()
    return StoreSummary(index, len(orphans))
