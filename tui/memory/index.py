"""MEMORY.md: its links, and exactly the part of it Claude Code loads.

The loaded cut: strip a leading frontmatter block and the HTML comments that stand as their
own block (see `_comments`), trim, keep the first 200 lines, then cut at the last newline
before 25,000 UTF-16 units, then append a warning naming the limit that fired. Limits are measured on the trimmed text, before any cut.
"""

from __future__ import annotations

import bisect
import math
import posixpath
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property
from typing import NamedTuple, overload
from urllib.parse import unquote

from tui.claude.files import STEP
from tui.claude.lines import line_count, split_lines
from tui.claude.paths import has_astral, utf16_len
from tui.memory.frontmatter import BLOCK
from tui.memory.links import MARKDOWN_LIMIT, FoundLink, find_links, link_fields, resolve_wiki

MAX_LINES = 200
MAX_CHARS = 25_000
# The share of each limit a rewrite of the index leaves it at, so that new entries, which
# are appended, land inside the cut: Claude Code asks the model for under 140 of 200 lines.
HEADROOM = 0.7
LINE_WARN = 150
LINE_ERROR = 200

_PLACEHOLDER = re.compile(r"\{[^{}/]+\}")  # `{module}_project.md`: a naming template
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# JavaScript's String.prototype.trim() whitespace set.
_JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def format_size(units: int) -> str:
    """Claude Code's size text: KB with one decimal, a trailing `.0` dropped."""
    if units < 1024:
        return f"{units} bytes"
    if units < 1024 * 1024:
        return _one_decimal(units, 1024) + "KB"
    return _one_decimal(units, 1024 * 1024) + "MB"


def _one_decimal(units: int, unit: int) -> str:
    """`(units / unit).toFixed(1)` without a trailing `.0`: a half rounds up, as in
    JavaScript (Python's format rounds 25.25 to 25.2, toFixed to 25.3)."""
    tenths = (20 * units + unit) // (2 * unit)
    return f"{tenths // 10}.{tenths % 10}".removesuffix(".0")


def warning_text(lines: int, chars: int, cut: str) -> str:
    if cut == "lines":
        reason = f"{lines} lines (limit: {MAX_LINES})"
    elif cut == "chars":
        reason = f"{format_size(chars)} (limit: {format_size(MAX_CHARS)}) — index entries are too long"
    else:
        reason = f"{lines} lines and {format_size(chars)}"
    return (
        f"> WARNING: MEMORY.md is {reason}. Only part of it was loaded. "
        "Keep index entries to one line under ~200 chars; move detail into topic files."
    )


class IndexLink(NamedTuple):
    line: int  # 1-based line in MEMORY.md
    title: str
    target: str  # as written; for a `[[name]]` link, the name
    file: str | None  # store-relative path; None when it leaves the store or names no memory
    visible: bool  # inside the loaded cut
    end: int  # the column just past the link on its line
    wiki: bool = False  # a `[[name]]` link

    @property
    def names_no_memory(self) -> bool:
        """A `[[name]]` no memory answers to: a memory worth writing later, not an error."""
        return self.wiki and self.file is None


class IndexLine(NamedTuple):
    number: int  # 1-based
    text: str
    state: str  # "loaded", "cut" (past the cut), "stripped" (frontmatter/comment/blank edge)
    width: int  # UTF-16 units


class _Placement:
    """Where the loaded part and the stripped parts lie in the raw text."""

    def __init__(self, segments: list[tuple[int, int]], visible: list[tuple[int, int]],
                 cut_at: int) -> None:
        self.segments = segments
        self.visible = visible
        self.visible_starts = [start for start, _ in visible]
        self.visible_end = visible[-1][1] if visible else 0
        self.cut_at = cut_at
        self.whole = segments == [(0, segments[-1][1])] if segments else False

    def is_visible(self, position: int) -> bool:
        if position >= self.visible_end:  # most of a huge index: past everything loaded
            return False
        slot = bisect.bisect_right(self.visible_starts, position) - 1
        return slot >= 0 and self.visible[slot][0] <= position < self.visible[slot][1]

    def state(self, position: int, text: str) -> str:
        """The state of the line starting at `position` (without its `\\n`): it is judged by
        its first visible character, a blank line by its newline."""
        line_text = text.rstrip("\r")
        indent = len(line_text) - len(line_text.lstrip(_JS_WHITESPACE))
        probe = position + indent if indent < len(line_text) else position + len(text)
        if self.is_visible(probe):
            return "loaded"
        if (probe >= self.cut_at and _in_segments(self.segments, probe)
                and line_text.strip(_JS_WHITESPACE)):
            return "cut"
        return "stripped"


class IndexLines(Sequence[IndexLine]):
    """Every line of the index with its state, made when asked for: a 50 MB index has
    hundreds of thousands of lines, and a screen shows forty."""

    def __init__(self, raw: str, placement: _Placement | None) -> None:
        self.raw = raw
        self.placement = placement

    @cached_property
    def _width(self) -> Callable[[str], int]:
        """A line's width in UTF-16 units: its length, unless the index holds a character
        outside the BMP (one search of it, instead of an encode per line)."""
        return utf16_len if has_astral(self.raw) else len

    @cached_property
    def starts(self) -> list[int]:
        """Where each line starts in the raw text."""
        return [0, *(newline.end() for newline in re.finditer("\n", self.raw))]

    @cached_property
    def _count(self) -> int:
        return 0 if self.placement is None else line_count(self.raw)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> IndexLine: ...
    @overload
    def __getitem__(self, index: slice) -> list[IndexLine]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[number] for number in range(*index.indices(len(self)))]
        if self.placement is None:
            raise IndexError(index)
        number = range(len(self))[index]  # IndexError past the end, as a tuple's
        start = self.starts[number]
        end = self.raw.find("\n", start)
        return self._line(number, start, self.raw[start:] if end < 0 else self.raw[start:end])

    def __iter__(self) -> Iterator[IndexLine]:
        if self.placement is None:
            return
        position = 0
        for number, text in enumerate(split_lines(self.raw)):
            yield self._line(number, position, text)
            position += len(text) + 1

    def _line(self, number: int, start: int, text: str) -> IndexLine:
        line_text = text.rstrip("\r")
        return IndexLine(number + 1, line_text, self.placement.state(start, text),
                         self._width(line_text))

    def longer_than(self, width: int) -> Iterator[IndexLine]:
        """The lines over `width` UTF-16 units, without making the others: a line that long
        has more than `width // 2` characters, which one regex search finds."""
        placement = self.placement
        if placement is None:
            return
        width_of = self._width
        number = 0
        position = 0
        for match in re.finditer(f"(?m)^[^\\n]{{{width // 2 + 1},}}", self.raw):
            number += self.raw.count("\n", position, match.start())
            position = match.start()
            text = match.group().rstrip("\r")
            length = width_of(text)
            if length <= width:
                continue
            if position >= placement.visible_end and placement.whole:
                # Past everything loaded, with nothing stripped: what is not blank is cut.
                state = "cut" if text.strip(_JS_WHITESPACE) else "stripped"
            else:
                state = placement.state(position, match.group())
            yield IndexLine(number + 1, text, state, length)

    def index_of(self, position: int) -> int:
        """The 0-based line holding a raw position."""
        return self.raw.count("\n", 0, position)


@dataclass(frozen=True)
class LoadedIndex:
    exists: bool
    lines: int  # after stripping and trimming, as Claude Code counts
    chars: int  # UTF-16 units, after stripping and trimming
    loaded: str  # what the model sees, without the warning
    loaded_lines: int
    loaded_chars: int
    cut: str | None  # None, "lines", "chars" or "both"
    warning: str | None
    links: tuple[IndexLink, ...]
    raw_lines: IndexLines

    @cached_property
    def first_cut_line(self) -> int | None:
        """The 0-based position in `raw_lines` of the first line past the cut, if any; it
        can only start at the line where the cut falls."""
        lines = self.raw_lines
        if self.cut is None or lines.placement is None:
            return None
        first = lines.index_of(lines.placement.cut_at)
        return next((n for n in range(first, len(lines)) if lines[n].state == "cut"), None)

    @property
    def model_text(self) -> str:
        """Exactly what lands in the model's context."""
        if self.warning:
            return f"{self.loaded}\n\n{self.warning}"
        return self.loaded


def _kept_segments(raw: str) -> list[tuple[int, int]]:
    """Raw spans left after removing a leading frontmatter block and HTML comments."""
    start = 0
    match = BLOCK.match(raw)
    if match:
        start = match.end()
    segments = []
    position = start
    for opening, closing in _comments(raw, start):
        if opening > position:
            segments.append((position, opening))
        position = closing
    if position < len(raw):
        segments.append((position, len(raw)))
    return segments


def _comments(raw: str, start: int) -> Iterator[tuple[int, int]]:
    """The spans of the HTML comments Claude Code removes, from `start`: those of an HTML
    block standing on its own at the top level of the Markdown (a line starting `<!--`
    after at most three spaces, through the line holding its `-->`). A comment in a code
    span, a code block, a list item or inside a paragraph's line stays: the model reads it.
    In such a block every `<!-- … -->` goes, as `/<!--[\\s\\S]*?-->/g` finds them, and any
    text after the last one stays."""
    if _block_comment_at(raw, start) < 0:
        return
    for block_start, block_end in _comment_blocks(raw, start):
        position = block_start
        while (opening := raw.find("<!--", position, block_end)) >= 0:
            closing = raw.find("-->", opening + 4, block_end)
            if closing < 0:
                break
            position = closing + 3
            yield opening, position


def _block_comment_at(raw: str, start: int) -> int:
    """Where the first line from `start` that starts `<!--` (after up to three spaces)
    starts, or -1; found with `str.find`, not a multiline regex, which costs a second
    for a 20 MB index holding no comment."""
    position = start
    while (opening := raw.find("<!--", position)) >= 0:
        # Only the four characters before it can tell: a line start, then up to 3 spaces.
        newline = raw.rfind("\n", max(start, opening - 4), opening)
        if newline >= 0:
            line_start = newline + 1
        elif opening - start <= 3:
            line_start = start  # `start` is a line start
        else:
            line_start = -1
        if line_start >= 0 and not raw[line_start:opening].strip(" "):
            return line_start
        position = opening + 4
    return -1


def _comment_blocks(raw: str, start: int) -> Iterator[tuple[int, int]]:
    """The raw spans of the top-level HTML blocks that open with a comment, as markdown-it
    reads the Markdown (lists, quotes and code decide what is top level). Past
    `MARKDOWN_LIMIT` characters each line starting `<!--` is taken for one, through the
    line holding its `-->`: the parse costs about a second a megabyte."""
    end = len(raw)
    if end - start > MARKDOWN_LIMIT:
        newline = raw.find("\n", start + MARKDOWN_LIMIT)
        end = end if newline < 0 else newline + 1
    # Whether a line opens a block depends only on the lines before it: the Markdown is read
    # up to the line holding the last `-->` (most indexes: a comment in their first lines).
    closing = raw.rfind("-->", start, end)
    if closing >= 0:
        yield from _parsed_comment_blocks(raw, start, raw.find("\n", closing, end))
    position = end
    while (line_start := _block_comment_at(raw, position)) >= 0:
        closing = raw.find("-->", raw.find("<!--", line_start) + 4)
        if closing < 0:
            return
        newline = raw.find("\n", closing)
        position = len(raw) if newline < 0 else newline + 1
        yield line_start, position


def _parsed_comment_blocks(raw: str, start: int, newline: int) -> Iterator[tuple[int, int]]:
    """`_comment_blocks` from `start` to the line ending at `newline` (-1: the text's end)."""
    head = raw[start:] if newline < 0 else raw[start:newline + 1]
    starts = [start, *(start + match.end() for match in re.finditer("\n", head))]
    if starts[-1] != start + len(head):
        starts.append(start + len(head))
    for token in _block_parser().parse(head.replace("\r\n", "\n")):
        if (token.type == "html_block" and token.level == 0 and token.map
                and token.content.lstrip(" ").startswith("<!--")):
            first, last = token.map
            yield starts[first], starts[min(last, len(starts) - 1)]


@cache
def _block_parser():
    """markdown-it reading blocks only, HTML blocks on, text as it is (no normalising of
    lone carriage returns, which Claude Code's lines keep)."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": True})
    parser.core.ruler.disable(["normalize", "inline", "text_join"])
    return parser


def _utf16_prefix_chars(text: str, units: int) -> tuple[int, bool]:
    """How many characters fit in `units` UTF-16 units; True if a pair was split."""
    if text.isascii():
        return min(units, len(text)), False
    used = 0
    for index, char in enumerate(text):
        width = 2 if ord(char) > 0xFFFF else 1
        if used + width > units:
            return index, used < units
        used += width
    return len(text), False


def _line_end(text: str, lines: int) -> int:
    """Where the first `lines` lines of `text` end (before their last `\\n`)."""
    end = -1
    for _ in range(lines):
        end = text.find("\n", end + 1)
        if end < 0:
            return len(text)
    return end


def compute_cut(stripped: str) -> tuple[str, str | None, int, int]:
    """(loaded text, cut kind, lines, chars) for already stripped, trimmed text."""
    lines = line_count(stripped)
    chars = utf16_len(stripped)
    over_lines = lines > MAX_LINES
    over_chars = chars > MAX_CHARS
    text = stripped
    if over_lines:
        text = stripped[:_line_end(stripped, MAX_LINES)]
    if utf16_len(text) > MAX_CHARS:
        limit, _ = _utf16_prefix_chars(text, MAX_CHARS)
        # lastIndexOf("\n", 25000) may find a newline sitting exactly at unit 25,000.
        newline = text.rfind("\n", 0, limit + 1)
        text = text[:newline] if newline > 0 else text[:limit]
    cut = "both" if over_lines and over_chars else "lines" if over_lines else (
        "chars" if over_chars else None
    )
    return text, cut, lines, chars


def _normalise_target(target: str, folder: str = "") -> str | None:
    """A link target in a file of `folder` ("" or "topics/") as a store-relative path;
    None if it points outside the store."""
    target = target.strip()
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    target = unquote(target.split("#", 1)[0])
    if not target or target.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", target):
        return None
    normal = posixpath.normpath(folder + target.replace("\\", "/"))
    if normal == ".." or normal.startswith("../"):
        return None
    return normal


def is_plain_name(target: str) -> bool:
    """A file name that normalises to itself: `\\w[\\w.-]*`, tested with str methods (five
    times faster than the regex on the 270,000 links of a 50 MB index). Python's `\\w` is
    what `isalnum()` accepts, and `_`."""
    return target[:1] not in ".-" and (
        target.replace(".", "").replace("-", "").replace("_", "a").isalnum()
    )


def is_external(target: str) -> bool:
    return bool(_SCHEME.match(target.strip().lstrip("<"))) or target.startswith("#")


def linked_files(text: str, folder: str = "", names: Mapping[str, str] | None = None) -> list[str]:
    """The store files a Markdown file in `folder` links, `[text](target)` or `[[name]]`:
    what a second-level index (a memory listing others) points at."""
    return [file for found in find_links(text) if (file := link_file(found, folder, names))]


def link_file(found: FoundLink, folder: str = "", names: Mapping[str, str] | None = None
              ) -> str | None:
    """The store file one link of a file in `folder` points at; None for a link leaving
    the store, an external one, a placeholder, or a `[[name]]` naming no memory."""
    if found.wiki:
        return resolve_wiki(found.target, names)
    if is_plain_name(found.target):
        return folder + found.target
    if is_external(found.target) or _PLACEHOLDER.search(found.target):
        return None
    return _normalise_target(found.target, folder)


def parse_index(
    raw: str | None, names: Mapping[str, str] | None = None, *, folder: str = ""
) -> LoadedIndex:
    """An index read as Claude Code reads it; `names` (see `links.wiki_names`) resolves
    `[[name]]` links to memory files, other links resolve from `folder` ("team/" for
    team/MEMORY.md) to store-relative paths."""
    global _last_parsed
    if raw is None:
        return LoadedIndex(False, 0, 0, "", 0, 0, None, None, (), IndexLines("", None))
    # `names` only resolves [[name]] links: without one, the text decides it all. The last
    # index is kept: a dream reads one MEMORY.md four times (its facts, its merge, its
    # prune, its change set), a second each for 300,000 lines. Compared, not hashed: equal
    # lengths are rare, and a hash of 50 MB holds the GIL as long as the compare.
    if names is not None and not _has_wiki_link(raw):
        names = None
    last = _last_parsed
    if (last is not None and last.folder == folder and len(last.raw) == len(raw)
            and last.names == names and (last.raw is raw or last.raw == raw)):
        return last.parsed
    parsed = _parse(raw, names, folder)
    _last_parsed = _Parsed(raw, folder, None if names is None else dict(names), parsed)
    return parsed


def _has_wiki_link(raw: str) -> bool:
    """Whether `raw` holds `[[`, looked for a megabyte at a time: one search of a 50 MB index
    full of brackets holds the interpreter, and the app's UI thread, for tens of ms."""
    if len(raw) <= STEP:
        return "[[" in raw
    return any(raw.find("[[", start, start + STEP + 1) >= 0 for start in range(0, len(raw), STEP))


class _Parsed(NamedTuple):
    raw: str
    folder: str
    names: dict[str, str] | None
    parsed: LoadedIndex


_last_parsed: _Parsed | None = None  # see parse_index


def _parse(raw: str, names: Mapping[str, str] | None, folder: str) -> LoadedIndex:
    segments = _kept_segments(raw)
    whole = segments == [(0, len(raw))]  # no frontmatter, no comment: the common case
    joined = raw if whole else "".join(raw[a:b] for a, b in segments)
    stripped = joined.strip(_JS_WHITESPACE)
    lead = len(joined) - len(joined.lstrip(_JS_WHITESPACE))
    loaded, cut, lines, chars = compute_cut(stripped)
    visible_end = lead + len(loaded)  # offsets within `joined`

    # Map the visible window of `joined` back to raw offsets.
    visible: list[tuple[int, int]] = []
    offset = 0
    for a, b in segments:
        length = b - a
        lo, hi = max(offset, lead), min(offset + length, visible_end)
        if lo < hi:
            visible.append((a + lo - offset, a + hi - offset))
        offset += length
    placement = _Placement(segments, visible, _raw_position(segments, visible_end))
    raw_lines = IndexLines(raw, placement)

    links: list[IndexLink] = []
    cursors: dict[int, int] = {}
    texts = None if whole else split_lines(raw)
    # Looked up once: this loop runs once per link, 300,000 times for a 50 MB index.
    starts, visible_end, is_visible = raw_lines.starts, placement.visible_end, placement.is_visible
    for line, end, source, title, target, wiki in link_fields(
            raw if whole else _markdown_text(raw, segments)):
        if texts is not None:
            # Frontmatter and comments are gone from the Markdown: find the link on its line.
            text = texts[line]
            start = text.find(source, cursors.get(line, 0))
            end = start + len(source) if start >= 0 else len(text)
            cursors[line] = end
        if wiki:
            file = resolve_wiki(target, names)
        elif is_plain_name(target):
            file = folder + target  # the common case: nothing to decode or reject
        elif is_external(target) or _PLACEHOLDER.search(target):
            continue
        else:
            file = _normalise_target(target, folder)
        position = starts[line] + end - 1
        links.append(IndexLink(line + 1, title, target, file,
                               position < visible_end and is_visible(position), end, wiki))

    warning = warning_text(lines, chars, cut) if cut else None
    return LoadedIndex(
        True, lines, chars, loaded, line_count(loaded) if loaded else 0,
        utf16_len(loaded), cut, warning, tuple(links), raw_lines,
    )


def with_rest(head: LoadedIndex, lines: int, chars: int) -> LoadedIndex:
    """The index parsed from its head, given the `lines` and UTF-16 `chars` that follow
    the head (an index too big to parse whole, see `store`): its size, its cut and its
    warning as for the whole file; its links, those of the head."""
    lines, chars = head.lines + lines, head.chars + chars
    over_lines, over_chars = lines > MAX_LINES, chars > MAX_CHARS
    cut = "both" if over_lines and over_chars else "lines" if over_lines else (
        "chars" if over_chars else None)
    return replace(head, lines=lines, chars=chars, cut=cut,
                   warning=warning_text(lines, chars, cut) if cut else None)


def _markdown_text(raw: str, segments: list[tuple[int, int]]) -> str:
    """The index as the model reads it (no frontmatter, no comments), on its raw lines."""
    pieces = []
    position = 0
    for a, b in segments:
        pieces.append("\n" * raw.count("\n", position, a))
        pieces.append(raw[a:b])
        position = b
    pieces.append("\n" * raw.count("\n", position))
    return "".join(pieces)


def _in_segments(segments: list[tuple[int, int]], position: int) -> bool:
    slot = bisect.bisect_right(segments, (position, math.inf)) - 1
    return slot >= 0 and segments[slot][0] <= position < segments[slot][1]


def _raw_position(segments: list[tuple[int, int]], joined_offset: int) -> int:
    """The raw offset of a position in the joined (stripped) text."""
    offset = 0
    for a, b in segments:
        if joined_offset < offset + (b - a):
            return a + joined_offset - offset
        offset += b - a
    return segments[-1][1] if segments else 0
