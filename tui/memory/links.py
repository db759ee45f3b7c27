"""Links in MEMORY.md and in memory bodies, found the way the model reads them: as Markdown.

Two kinds: inline links `[title](target)`, and the `[[name]]` links newer Claude Code writes,
naming another memory by its `name:`. Neither counts inside a code span or fenced or
indented code; HTML is read as text, as the model reads it. A target may be `<...>`-wrapped,
percent-encoded, hold spaces (CommonMark refuses those, the model reads them as links
anyway), carry an `#anchor` or a title.

Most texts hold none of the syntax that makes Markdown differ from a plain scan (backticks,
backslashes, reference links, indented code): those are scanned line by line. The others go
through markdown-it with the same link grammar plugged in, so both ways find the same links.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import NamedTuple

from tui.claude.lines import split_lines

_WORD = r"(?:[^\s()<>\[\]\"']++|\([^\n()<>\"']*+\))++"  # balanced parentheses allowed
# Possessive quantifiers and space-separated words keep a match linear in the line's length.
_LINK = re.compile(
    r"\[\[(?P<wiki>[^\[\]\n|]++)(?:\|(?P<alias>[^\[\]\n]*+))?\]\]"
    r"|\[(?P<title>(?:[^\[\]\n]|\[[^\[\]\n]*+\])*+)\]"  # one level of nested brackets
    rf"\([ \t]*+(?:<(?P<angle>[^<>\n]*+)>|(?P<bare>{_WORD}(?:[ \t]++{_WORD})*?))"
    r"(?:[ \t]++(?:\"[^\"\n]*+\"|'[^'\n]*+'|\([^()\n]*+\)))?[ \t]*+\)"
)
# Syntax under which a line-by-line scan could take code or an escaped bracket for a link,
# or miss a reference link. Indented code starts with a tab or four spaces, after a list or
# quote marker with five.
_MARKDOWN_ONLY = ("`", "\\", "~~~", "][", "]:", "\t", "\n    ", "     ")
_SEPARATORS = re.compile(r"[\s_-]+")


class FoundLink(NamedTuple):
    line: int  # 0-based
    end: int  # the column just past the link on its line
    source: str  # the link as written
    title: str
    target: str  # as written; for a wiki link, the name
    wiki: bool


MARKDOWN_LIMIT = 1 << 20  # characters read as Markdown; the lines after them are scanned


def find_links(text: str) -> list[FoundLink]:
    """Every link of `text`, in order; line numbers count `\\n` only, as Claude Code does."""
    return [FoundLink._make(fields) for fields in link_fields(text)]


LinkFields = tuple[int, int, str, str, str, bool]  # a FoundLink's fields


def link_fields(text: str) -> Iterator[LinkFields]:
    """find_links' links as plain tuples of FoundLink's fields: for a caller that makes its
    own object per link (an index of 300,000 links makes no FoundLink at all).

    Markdown parsing takes about a second a megabyte: past `MARKDOWN_LIMIT` (forty times
    what Claude Code loads of an index) the lines are scanned, so in a huge file a link in
    a code span far down still counts as one."""
    if "[" not in text:
        return
    if len(text) > MARKDOWN_LIMIT:
        split = text.find("\n", MARKDOWN_LIMIT)
        if split >= 0:
            yield from link_fields(text[:split])
            yield from _scan(text, split + 1, text.count("\n", 0, split) + 1)
            return
    if text.startswith("    ") or any(syntax in text for syntax in _MARKDOWN_ONLY):
        yield from _parsed_links(text, split_lines(text))
        return
    yield from _scan(text)


def wiki_links(text: str) -> list[FoundLink]:
    """The `[[name]]` links of a memory body."""
    if "[[" not in text:
        return []
    return [link for link in find_links(text) if link.wiki]


def _fields(line: int, end: int, match: re.Match[str]) -> LinkFields:
    wiki, alias, title, angle, bare = match.groups()
    if wiki is not None:
        name = wiki.strip()
        return line, end, match.group(), (alias or "").strip() or name, name, True
    return line, end, match.group(), title, bare if angle is None else angle, False


def _scan(text: str, start: int = 0, line: int = 0) -> Iterator[LinkFields]:
    """The links from `start` (the beginning of line `line`), found by one search of the
    whole text: no link spans a line break, so it finds what a search per line finds."""
    count, rfind = text.count, text.rfind  # looked up once, not per link
    position = line_start = start
    for match in _LINK.finditer(text, start):
        begin = match.start()
        newlines = count("\n", position, begin)
        if newlines:
            line += newlines
            line_start = rfind("\n", position, begin) + 1
        position = begin
        yield _fields(line, match.end() - line_start, match)


# --- the Markdown path ---------------------------------------------------------------------


def _parsed_links(text: str, lines: list[str]) -> list[FoundLink]:
    # markdown-it would turn a lone \r into a line break; Claude Code's lines do not.
    source = text.replace("\r\n", "\n")
    found: list[FoundLink] = []
    cursors: dict[int, int] = {}
    for token in _markdown().parse(source):
        if token.type != "inline" or not token.map or not token.children:
            continue
        last = token.map[1] - 1
        for child in token.children:
            link = child.meta.get("memory_link") if child.meta else None
            if link is None:
                continue
            offset, written, title, target, wiki = link
            # markdown-it strips the content with str.strip(), which may drop leading lines
            # holding only a carriage return or U+2028: the link is on this line or below.
            number = token.map[0] + token.content.count("\n", 0, offset)
            while number < last and lines[number].find(written, cursors.get(number, 0)) < 0:
                number += 1
            line = lines[number]
            start = line.find(written, cursors.get(number, 0))
            end = start + len(written) if start >= 0 else len(line)
            cursors[number] = end
            found.append(FoundLink(number, end, written, title, target, wiki))
    return found


@cache
def _markdown():
    from markdown_it import MarkdownIt

    markdown = MarkdownIt("commonmark", {"html": False})
    markdown.core.ruler.disable("normalize")  # done by hand, keeping lone carriage returns
    # An image's `[alt](x)` counts like a link and `<...>` is text, as in the line-by-line
    # scan; emphasis cannot hide a link, so its rules are only work.
    markdown.inline.ruler.disable(["image", "autolink", "emphasis"])
    markdown.inline.ruler.at("link", _link_rule)
    return markdown


@cache
def _commonmark_link():
    """markdown-it's own link rule, for reference links (imported once, not per bracket)."""
    from markdown_it.rules_inline import link

    return link


def _link_rule(state, silent: bool) -> bool:
    """The link grammar of the line-by-line scan; reference links as CommonMark has them."""
    start = state.pos
    if state.src[start] != "[":
        return False
    match = _LINK.match(state.src, start, state.posMax)
    if match:
        if not silent:
            _, _, source, title, target, wiki = _fields(0, 0, match)
            token = state.push("memory_link", "", 0)
            token.meta = {"memory_link": (start, source, title, target, wiki)}
        state.pos = match.end()
        return True
    return _reference_link(state, silent)


def _reference_link(state, silent: bool) -> bool:
    if not state.env.get("references"):
        return False  # no `[label]: url` definition in the text: no reference link either
    start = state.pos
    label_end = state.md.helpers.parseLinkLabel(state, start, True)
    if label_end < 0 or state.src[label_end + 1:label_end + 2] == "(":
        return False  # an inline link the grammar above refused is no link at all
    first = len(state.tokens)
    if not _commonmark_link()(state, silent):
        return False
    if not silent:
        opening = state.tokens[first]
        opening.meta = {"memory_link": (
            start, state.src[start:state.pos], state.src[start + 1:label_end],
            str(opening.attrGet("href") or ""), False,
        )}
    return True


# --- wiki names ----------------------------------------------------------------------------


def wiki_key(name: str) -> str:
    """What a `[[name]]` and a memory are matched on: kebab, snake and spaced forms alike."""
    name = name.split("#", 1)[0].strip().removesuffix(".md")
    return _SEPARATORS.sub("-", name.casefold()).strip("-")


class WikiNames(Mapping[str, str]):
    """{key: file} for (file, `name:`) pairs; a `name:` wins over another memory's file stem.

    Built on the first look-up: most stores hold no `[[name]]` at all.
    """

    def __init__(self, memories: Iterable[tuple[str, str | None]]) -> None:
        self._memories = memories
        self._names: dict[str, str] | None = None

    @property
    def _built(self) -> dict[str, str]:
        if self._names is None:
            by_stem: dict[str, str] = {}
            by_name: dict[str, str] = {}
            for file, name in self._memories:
                by_stem.setdefault(wiki_key(file), file)
                if "/" in file:
                    by_stem.setdefault(wiki_key(posixpath.basename(file)), file)
                if name and name.strip():
                    by_name.setdefault(wiki_key(name), file)
            self._names = {**by_stem, **by_name}
        return self._names

    def __getitem__(self, key: str) -> str:
        return self._built[key]

    def __iter__(self):
        return iter(self._built)

    def __len__(self) -> int:
        return len(self._built)


def wiki_names(memories: Iterable[tuple[str, str | None]]) -> WikiNames:
    return WikiNames(list(memories))


def resolve_wiki(name: str, names: Mapping[str, str] | None) -> str | None:
    """The file a `[[name]]` names, or None: then it marks a memory not written yet."""
    return None if names is None else names.get(wiki_key(name))
