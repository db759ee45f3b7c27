"""Which memories Claude can reach, and through which memory.

Claude opens a memory only if it can get there: a memory linked inside the loaded cut of
an index (MEMORY.md, or team/MEMORY.md for team memory), then the memories that one links,
then theirs. Links are Markdown links and `[[name]]` links, read relative to the folder of
the file they sit in. A memory that only unreachable memories link is not reached, however
many of them link it.

One breadth-first walk answers it for the audit, relink, the projects table and the
doctor; each hands it the texts it already has (a loaded store) or reads from disk only the
memories the walk reaches.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping

from tui.memory.index import LoadedIndex, linked_files
from tui.memory.links import wiki_names


def reach(roots: Iterable[str], links_of: Callable[[str], Iterable[str]]) -> dict[str, str | None]:
    """{file: the memory Claude first opens to get to it, None for a root}, for every file
    a chain of links from `roots` leads to; `links_of(file)` is what a memory links."""
    via: dict[str, str | None] = dict.fromkeys(roots)
    waiting = deque(via)
    while waiting:
        source = waiting.popleft()
        for file in links_of(source):
            if file not in via:
                via[file] = source
                waiting.append(file)
    return via


def loaded_roots(indexes: Iterable[LoadedIndex]) -> list[str]:
    """The files linked inside the loaded cut of the indexes: where every chain starts."""
    return [link.file for index in indexes for link in index.links
            if link.visible and link.file]


def memory_links(file: str, text: str, names: Mapping[str, str] | None) -> list[str]:
    """The store files a memory's text links, read from the memory's own folder."""
    if "[" not in text:
        return []
    folder = file.rpartition("/")[0]
    return linked_files(text, folder and f"{folder}/", names)


class TextLinks:
    """`links_of` for `reach` over texts in hand, each text's links parsed once (a plan
    walks the same store before and after its change)."""

    def __init__(self, texts: Mapping[str, str], names: Mapping[str, str] | None) -> None:
        self.texts = texts
        self.names = names
        self.parsed: dict[str, list[str]] = {}

    def __call__(self, file: str) -> list[str]:
        found = self.parsed.get(file)
        if found is None:
            found = self.parsed[file] = memory_links(file, self.texts.get(file, ""), self.names)
        return found


def reach_on_disk(files: Mapping[str, str], indexes: Iterable[LoadedIndex],
                  names: Mapping[str, str] | None = None) -> dict[str, str | None]:
    """`reach` for a store that is not loaded: {memory file: its path} and its parsed
    indexes; only the memories the walk reaches are read. `names` resolves `[[name]]`
    links; without it, the first reached text holding `[[` has every memory's `name:` read
    (most stores hold no `[[name]]` at all), each file read once for both."""
    from tui.claude.files import read_text
    from tui.memory import frontmatter
    from tui.memory.store import FULL_READ_LIMIT

    texts: dict[str, str] = {}

    def text_of(file: str) -> str:
        if file not in texts:
            try:
                texts[file] = read_text(files[file], FULL_READ_LIMIT)
            except OSError:
                texts[file] = ""
        return texts[file]

    def links_of(file: str) -> list[str]:
        nonlocal names
        if file not in files:
            return []
        text = text_of(file)
        if names is None and "[[" in text:
            names = wiki_names((memory, frontmatter.parse(text_of(memory)).name)
                               for memory in files)
        return memory_links(file, text, names)

    return reach(loaded_roots(indexes), links_of)


def memory_name(path: str) -> str | None:
    """A memory's `name:`, from the head of its file (None when it cannot be read)."""
    from tui.memory import frontmatter

    try:
        head = frontmatter.read_head(path).decode("utf-8", errors="replace")
    except OSError:
        return None
    return frontmatter.parse(head).name
