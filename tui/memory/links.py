"""Links in MEMORY.md and in memory bodies, found the way the model reads them: as Markdown.

Two kinds: inline links `[title](target)`, and the `[[name]]` links newer Claude Code writes,
naming another memory by its `name:`. Neither counts inside a code span or fenced or
indented code; HTML is read as text, as the model reads it. A target may be `<...>`-wrapped,
percent-encoded, hold spaces (CommonMark refuses those, the model reads them as links
anyway), carry an `#anchor` or a title.

Most texts hold none of the syntax that makes Markdown differ from a plain scan: those are
scanned line by line. A text with code spans or backslash escapes but no block syntax (no
fence, no indented code, no reference definition) is read the way markdown-it reads the
inside of its paragraphs (see `_inline_links`). The rest go through markdown-it with the same
link grammar plugged in, so every way finds the same links.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from typing import NamedTuple

from tui.claude.lines import split_lines

# A word of a target: balanced parentheses allowed, and a quote inside it (`JAVI'S.md`, as
# CommonMark reads it); a quote after a space opens the link's title.
_WORD = r"(?:[^\s()<>\[\]\"']++|\([^\n()<>\"']*+\)|(?<=[^\s(])[\"'])++"
# A link's text may hold balanced brackets (`[see [[x]] and r[["e"]]](x.md)`), nested as deep
# as markdown-it follows them: its `maxNesting` of 20 levels, the link's own included.
BRACKET_DEPTH = 19


def _bracketed(depth: int) -> str:
    """Text with balanced brackets nested up to `depth` levels, on one line."""
    text = r"[^\[\]\n]"
    for _ in range(depth):
        text = rf"(?:[^\[\]\n]|\[{text}*+\])"
    return text


# Possessive quantifiers and space-separated words keep a match linear in the line's length.
_LINK = re.compile(
    r"\[\[(?P<wiki>[^\[\]\n|]++)(?:\|(?P<alias>[^\[\]\n]*+))?\]\]"
    rf"|\[(?P<title>{_bracketed(BRACKET_DEPTH)}*+)\]"
    rf"\([ \t]*+(?:<(?P<angle>[^<>\n]*+)>|(?P<bare>{_WORD}(?:[ \t]++{_WORD})*?))"
    r"(?:[ \t]++(?:\"[^\"\n]*+\"|'[^'\n]*+'|\([^()\n]*+\)))?[ \t]*+\)"
)
# Syntax only the block structure decides: fences, indented code (a tab or four spaces, after
# a list or quote marker five), reference definitions. A text without any is paragraphs and
# headings, read line by line; with code spans or escapes, as markdown-it reads a paragraph.
_BLOCK_SYNTAX = ("```", "~~~", "]:", "\t", "\n    ", "     ")
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
    found = _read_links(text)
    yield from _parsed_links(text, split_lines(text)) if found is None else found


def link_reading(text: str) -> str:
    """How `link_fields` reads a text of up to MARKDOWN_LIMIT characters: "none" (no `[`),
    "scan" (no Markdown syntax: line by line), "inline" (code spans or escapes: as
    paragraphs' content) or "markdown" (through markdown-it)."""
    if "[" not in text:
        return "none"
    if _read_links(text) is None:
        return "markdown"
    return "inline" if "`" in text or "\\" in text else "scan"


def wiki_links(text: str) -> list[FoundLink]:
    """The `[[name]]` links of a memory body."""
    if "[[" not in text:
        return []
    return [link for link in find_links(text) if link.wiki]


def _fields(line: int, end: int, match: re.Match[str]) -> LinkFields:
    wiki, alias, title, angle, bare = match.groups()
    if wiki is not None:
        if alias is not None and wiki.endswith("\\"):
            wiki = wiki[:-1]  # `[[name\|alias]]`: the pipe escaped inside a Markdown table
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


# --- reading without markdown-it ----------------------------------------------------------

# What markdown-it's inline parser does at a backslash (escape: the next character is text),
# at a run of backticks (a code span up to the next run as long, or text) and at a `[` (the
# link rule below). Text, entities and line breaks never hold those three characters.
_INLINE_SYNTAX = re.compile(r"\\.|`+|\[", re.DOTALL)
_BLANK_LINE = re.compile(r"\n[ \t]*(?:\n|$)")
_FENCE_LINE = re.compile(r"^.*(?:```|~~~).*$", re.MULTILINE)
# A line starting a bullet list item that is not empty: it ends any paragraph above it, in any
# container (with three spaces or fewer it is neither indented code nor a continuation line).
_ITEM_START = re.compile(r"\n {0,3}[-+*] +[^ \n]")


@cache
def _closing_run(width: int) -> re.Pattern[str]:
    return re.compile(f"(?<!`){'`' * width}(?!`)")


def _read_links(text: str) -> list[LinkFields] | None:
    """The links markdown-it finds in `text`, or None when only markdown-it can tell.

    The block structure matters only for code blocks and reference definitions: a text
    without indented code nor definitions, whose fences all start at column 0, is fenced code
    and paragraphs and headings between the fences, read by `_inline_links`."""
    source = text.replace("\r\n", "\n")  # as `_parsed_links` reads it; lines stay the same
    parts = _outside_fences(source) if "```" in source or "~~~" in source else [(0, len(source))]
    if parts is None:
        return None
    found: list[LinkFields] = []
    line = position = 0
    for start, end in parts:
        line += source.count("\n", position, start)
        position = start
        part = source if (start, end) == (0, len(source)) else source[start:end]
        if part.startswith("    ") or any(syntax in part for syntax in _BLOCK_SYNTAX):
            return None
        if "`" in part or "\\" in part:
            links = _inline_links(part, line)
            if links is None:
                return None
            found += links
        elif "[" in part:
            found += _scan(part, 0, line)
    return found


def _outside_fences(source: str) -> list[tuple[int, int]] | None:
    """The stretches of `source` outside fenced code, or None unless every line holding a
    fence marker starts with it: a fence at column 0 is always a top-level one (it closes any
    list or quote and interrupts any paragraph), and it ends at the first line of at least
    its marker with nothing after, or with the text."""
    parts: list[tuple[int, int]] = []
    start, fence = 0, ""
    for line in _FENCE_LINE.finditer(source):
        row = line.group()
        marker = row[0]
        if marker not in "`~" or not row.startswith(marker * 3):
            return None
        width = len(row) - len(row.lstrip(marker))
        if not fence:
            if marker == "`" and "`" in row[width:]:
                return None  # not a fence: backticks in its info string
            parts.append((start, line.start()))
            fence = row[:width]
        elif row.startswith(fence) and marker == fence[0] and not row[width:].strip(" \t"):
            start, fence = line.end(), ""
    if not fence:
        parts.append((start, len(source)))
    return parts


def _inline_links(text: str, line: int = 0) -> list[LinkFields] | None:
    """The links markdown-it finds in a text with no fence, indented code nor reference
    definition (its first line is line `line`), or None when a code span may run over a
    line break.

    Without those, every line holding a backtick, backslash or bracket is inline content of
    a paragraph or heading (container markers, rules and setext underlines hold none), and
    inline content never crosses a blank line. markdown-it reads it left to right as
    `_INLINE_SYNTAX` says; the link rule never crosses a line break. So reading each line on
    its own gives markdown-it's links as long as no backtick run finds its closing run on a
    later line of the same paragraph (an index's lines are list items: each item starts a
    paragraph of its own): those texts are left to markdown-it. Stretches between
    blank lines that hold no `[` hold no link, whatever their code spans: they are skipped."""
    found: list[LinkFields] = []
    search, count, rfind, find = _INLINE_SYNTAX.search, text.count, text.rfind, text.find
    line_start = done = 0
    bracket = find("[")
    while bracket >= 0:
        # From the stretch's first line, or sooner (a blank line may hold spaces): any line
        # start will do, the reading of a line does not depend on those before it.
        position = max(done, rfind("\n\n", done, bracket) + 1)
        blank = _BLANK_LINE.search(text, bracket)
        end = blank.start() if blank else len(text)
        unclosed: dict[int, int] = {}  # run width -> where a search for its closing run failed
        while (syntax := search(text, position, end)) is not None:
            begin = syntax.start()
            first = text[begin]
            if first == "[":
                match = _LINK.match(text, begin)
                if match is None:
                    position = begin + 1
                    continue
                newlines = count("\n", line_start, begin)
                if newlines:
                    line += newlines
                    line_start = rfind("\n", line_start, begin) + 1
                found.append(_fields(line, match.end() - line_start, match))
                position = match.end()
            elif first == "\\":
                position = syntax.end()
            else:  # a code span, or backticks with no closing run: text
                position = syntax.end()
                width = len(syntax.group())
                if unclosed.get(width, end) <= begin:
                    continue  # no run this long from there to the stretch's end
                closed = _closing_run(width).search(text, position, end)
                if closed is None:
                    unclosed[width] = begin
                elif find("\n", position, closed.start()) >= 0:
                    if _ITEM_START.search(text, position, closed.end()) is None:
                        return None
                    # A list item starts between: it ends the paragraph, so the run is text.
                else:
                    position = closed.end()
        done = end
        bracket = find("[", end)
    return found


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


_TARGET_ESCAPES = {"%": "%25", " ": "%20", "(": "%28", ")": "%29", "#": "%23", "<": "%3C",
                   ">": "%3E"}


def replace_links(line: str, words: Callable[[FoundLink], str]) -> str:
    """One line with each of its links replaced by `words(link)`."""
    for link in reversed([link for link in find_links(line) if link.line == 0]):
        start = link.end - len(link.source)
        line = line[:start] + words(link) + line[link.end:]
    return line


def link_target(file: str) -> str:
    """A store-relative file as an index line's link target, percent-encoded where a reader
    would take the rest of a name for something else: a space (a title), a parenthesis (the
    link's end), `#` (an anchor), `%` (an escape), angle brackets."""
    return "".join(_TARGET_ESCAPES.get(char, char) for char in file)


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
