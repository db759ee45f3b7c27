"""Paths of the project's code that a memory or an index line mentions, found in its text.

A mention is a relative path that is clearly one: a `/` and a file extension
(`src/billing/api.py`, `.github/workflows/ci.yml`), or a folder of two levels or more
ending in `/` (`src/billing/`). It may sit in a code span, a link target or plain text, and
in fenced code only when that is a shell command (a `sh`/`bash`/`console` fence, or a line
starting with `$ ` in any fence). Left out: URLs, absolute paths, `~/…`, paths that leave
the folder (`../`), globs (`src/**/*.ts`), placeholders (`{module}`, `<name>`,
`path/to/…`, `YYYY-MM-DD`), link targets that name a file of the store itself, and what
only looks like a path (`e.g./i.e.`, `km/h`, `1.2/3.4`: an extension starts with a letter).

Whether a mention belongs to the project's checkout is decided against it
(`tui.memory.stale_paths`): each mention keeps the other places its line names (another
checkout's absolute path, a repository's URL), so a path said of another repository is
not checked against this one.
"""

from __future__ import annotations

import bisect
import posixpath
import re
import string
from collections.abc import Callable, Container, Iterable, Iterator
from functools import lru_cache
from typing import NamedTuple

from ahocorasick_rs import BytesAhoCorasick

_CHARS = r"A-Za-z0-9_.@+\-"
# Not preceded by what would make it the tail of something else: a path (`/`, `~`), a URL
# (`:`), a variable or a placeholder (`$`, `%`, `{`, `<`), a glob (`*`, `?`).
_PATH = re.compile(
    rf"(?<![{_CHARS}/\\~:$%*?{{<\[])[{_CHARS}]++(?:/[{_CHARS}]+)*/[{_CHARS}]*"
)
_PATH_CHARS = frozenset(string.ascii_letters + string.digits + "_.@+-")  # `_CHARS`
_GLOB_AFTER = frozenset("*?[{<$%\\")  # a path followed by these is a pattern, not a path
_EXTENSION = re.compile(r"(?:[^./]|^)\.[A-Za-z][A-Za-z0-9]{0,9}$|^\.[A-Za-z][A-Za-z0-9_-]*$")
_PLACEHOLDER = re.compile(r"(?:^|[/_.-])(?:YYYY|YY|MM|DD|HH|X{2,}|x{3,}|N{2,}|n{3,})(?=$|[/_.-])")
_PLACEHOLDER_FOLDERS = ("path/to/", "to/your/", "your/", "some/", "my/")
SHELL_FENCES = frozenset({"sh", "bash", "shell", "zsh", "fish", "console", "terminal",
                          "shellsession", "shell-session", "sh-session", "bash-session",
                          "powershell", "ps1", "pwsh", "cmd", "bat", "batch"})
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`{]*)", re.MULTILINE)
# The other places a text may name: an absolute or home path, a code host's repository, or
# a repository named just after the word "repo" (`owner/name`, or a name in backticks: "Git
# repo: `acme/tracker`", "git repo (`tracker`)"), kept as "repo:…".
# Each form starts with the character it is tried at, and its lookbehinds come after it
# (`\b` as "no word character before it"): `re` then skips in C to the characters a place
# may start with, where a leading assertion is tried at every character (3x slower).
_PLACE = re.compile(
    r"[~/GgBbRr](?:(?<=~)(?<![A-Za-z0-9_.@+\-/:~]~)/[A-Za-z0-9_.@+\-]+(?:/[A-Za-z0-9_.@+\-]+)*"
    r"|(?<=/)(?<![A-Za-z0-9_.@+\-/:~]/)[A-Za-z0-9_.@+\-]+/[A-Za-z0-9_.@+\-]+"
    r"(?:/[A-Za-z0-9_.@+\-]+)*"
    r"|(?<=[Gg])(?<!\w[Gg])(?:ithub\.com|itlab\.com)[/:][A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+"
    r"|(?<=[Bb])(?<!\w[Bb])itbucket\.org[/:][A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+"
    r"|(?<=[Rr])(?<!\w[Rr])epo(?:sitory)?\b[^\n`/]{0,12}"
    r"(?:`?(?P<named>[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+)(?![A-Za-z0-9_.\-/])"
    r"|`(?P<bare>[A-Za-z0-9_\-]+)`))"
)
# An absolute path's start: a "/" that no path character comes before (as in `_PLACE`).
# The "/" comes first, so the search skips to each "/" (a leading class or assertion would
# be tried at every character of the line: 14x slower on real-shaped lines).
_ROOTED = re.compile(r"/(?<![A-Za-z0-9_.@+\-/:~]/)[A-Za-z0-9_.@+\-]")
# What a line that may name a place holds when no absolute path (`_ROOTED`).
_PLACE_WORD_SEARCH = BytesAhoCorasick([b"epo", b"~/", b"ithub.com", b"itlab.com", b"itbucket.org"])
# A heading (its "\n" and its level's marks), searched for in the text after a "\n".
_HEADING_START = re.compile(r"\n#{1,6}(?=[ \t])")
# A memory naming more paths than this is a listing, not a memory: the rest are not checked
# (a hostile megabyte of paths would otherwise cost seconds an audit).
MENTIONS_PER_FILE = 2_000
PLACES_PER_SECTION = 64  # real sections name a few
# What each place starts with (an absolute path after a space, a quote or a bracket).
_PLACE_HINTS = ("~/", " /", "\n/", "\t/", "`/", "(/", "\"/", "'/", "ithub.", "itlab.",
                "itbucket.")
_PLACE_SEARCH = BytesAhoCorasick([hint.encode() for hint in ("epo", *_PLACE_HINTS)])


class PathMention(NamedTuple):
    file: str  # the memory or index holding it, as the store names it
    line: int  # 1-based
    column: int  # where `target` starts on its line
    target: str  # the path as written
    path: str  # normalised: no `./`, no trailing `/` (a folder keeps `folder` True)
    folder: bool  # written with a trailing `/`
    # Other places its line, or the section it is in, names (absolute paths, repositories):
    # a path said of another repository is that repository's.
    places: tuple[str, ...]


def find_mentions(file: str, text: str, store_files: Container[str] = ()) -> list[PathMention]:
    """Every path `text` mentions; `store_files` are the store's own files, which a link
    target may name (relative to `file`'s folder)."""
    if "/" not in text:
        return []
    fences = _code_fences(text) if ("```" in text or "~~~" in text) else None
    folder = file.rpartition("/")[0]
    found: list[PathMention] = []
    line, counted, line_start = 1, 0, 0  # the line of offset `counted`, and where it starts
    places: Callable[[int], tuple[str, ...]] | None = None  # worked out at the first mention
    for match in _candidates(text):
        start = match.start()
        written = match.group().rstrip(".-")
        after = start + len(written)
        if not written or (after < len(text) and text[after] in _GLOB_AFTER):
            continue
        path = _path_of(written)
        if path is None:
            continue
        if text.startswith("](", start - 2) and \
                posixpath.normpath(posixpath.join(folder, path)) in store_files:
            continue  # a link to another memory of the store
        # Counted from the last candidate on: a megabyte on one line stays linear.
        if newlines := text.count("\n", counted, start):
            line += newlines
            line_start = text.rfind("\n", counted, start) + 1
        counted = start
        if fences is not None and _in_code(fences, start) and \
                not text[line_start:start].lstrip().startswith("$ "):
            continue
        if places is None:
            raw = text.encode("utf-8", "surrogatepass")  # both look for ASCII words in it
            places = _Places(text, raw) if _may_name_places(text, raw) else _no_places
        found.append(PathMention(file, line, start - line_start, written, path,
                                 written.endswith("/"), places(line)))
        if len(found) == MENTIONS_PER_FILE:
            break
    return found


def _candidates(text: str) -> Iterator[re.Match[str]]:
    """`_PATH`'s matches, tried only where one may start: a match is a run of path
    characters followed by a "/", and starts at the run's start (the lookbehind refuses any
    later character of the run), so the run before each "/" is the only place to try.
    Scanning every character of each line with a "/" cost three times as much."""
    slash = text.find("/")
    while slash != -1:
        start = slash
        while start and text[start - 1] in _PATH_CHARS:
            start -= 1
        if start < slash and (match := _PATH.match(text, start)) is not None:
            yield match
            slash = text.find("/", match.end())
        else:
            slash = text.find("/", slash + 1)


def _no_places(line: int) -> tuple[str, ...]:
    return ()


def _may_name_places(text: str, raw: bytes) -> bool:
    """Whether `text` may name a place at all: most texts are let off by a search for the
    hints, much faster than `_PLACE` over the whole text. The hints are ASCII, so their
    bytes are looked for in the text's, all in one pass (Aho-Corasick): a dozen `in` scans
    of a text an em dash has made two bytes a character cost twice as much. `raw` is the
    text's UTF-8 (surrogates passed)."""
    return text.startswith("/") or bool(_PLACE_SEARCH.find_matches_as_indexes(raw))


class _Places:
    """line -> the places that line (one holding a "/", the only lines a path is on) names,
    with those its Markdown section named before it (a section runs from its heading to the
    next heading of the same level or higher, subsections included): "## Tracker / - Git
    repo: `acme/tracker` / - src/app.py".

    Lines are asked for in order (the mentions are found in order): the sections are read
    up to each asked line once, so a text costs its length, not its length per mention. A
    line and a section keep the first `PLACES_PER_SECTION` places they name: a hostile one
    naming thousands would make every answer thousands long."""

    def __init__(self, text: str, raw: bytes) -> None:
        # Only headings and the lines that name a place change what a line with a path
        # names. The lines that may name one (an absolute path or a word of
        # `_PLACE_WORD_SEARCH`) are found by two searches of the whole text, and only they
        # are searched for places: most letters of a text may start one.
        lines = text.split("\n")
        cues = set(_lines_at(raw, sorted(start for _, start, _ in
                                         _PLACE_WORD_SEARCH.find_matches_as_indexes(raw))))
        cues.update(_lines_at(text, (match.start() for match in _ROOTED.finditer(text))))
        self.named: dict[int, list[str]] = {}
        for line in cues:
            on_line = dict.fromkeys(_place(match) for match in _PLACE.finditer(lines[line - 1]))
            if on_line:
                self.named[line] = list(on_line)[:PLACES_PER_SECTION]
        # A heading's match starts at the "\n" before it in "\n" + text: in `text`, just past
        # that "\n", where the heading's line starts.
        headings = list(_HEADING_START.finditer("\n" + text))
        self.levels = dict(zip(_lines_at(text, (match.start() for match in headings)),
                               (len(match.group()) - 1 for match in headings), strict=True))
        self.events = sorted(self.named.keys() | self.levels.keys())
        self._restart()

    def _restart(self) -> None:
        self.read = 0  # events read so far
        self.asked = 0  # the last line asked for, and its answer
        self.answer: tuple[str, ...] = ()
        # (heading level, its places in the order named) open after the events read
        self.sections: list[tuple[int, dict[str, None]]] = [(0, {})]

    def __call__(self, number: int) -> tuple[str, ...]:
        if number == self.asked:
            return self.answer  # another mention on the same line
        if number < self.asked:
            self._restart()
        self.asked = number
        while self.read < len(self.events) and self.events[self.read] <= number:
            line = self.events[self.read]
            self.read += 1
            if line in self.levels:
                while self.sections[-1][0] >= self.levels[line]:
                    self.sections.pop()
                self.sections.append((self.levels[line], {}))
            if len(self.sections) > 1:  # before any heading there is no section
                places = self.sections[-1][1]
                for place in self.named.get(line, ()):
                    if len(places) < PLACES_PER_SECTION:
                        places.setdefault(place)
        self.answer = tuple(dict.fromkeys(
            [*self.named.get(number, ()),
             *(place for _, places in self.sections for place in places)]))
        return self.answer


def _lines_at(text: str | bytes, offsets: Iterable[int]) -> Iterator[int]:
    """The 1-based line of each offset of `text` (in order)."""
    newline = "\n" if isinstance(text, str) else b"\n"
    line, counted = 1, 0
    for offset in offsets:
        line += text.count(newline, counted, offset)
        counted = offset
        yield line


def _place(match: re.Match[str]) -> str:
    repository = match.group("named") or match.group("bare")
    return f"repo:{repository}" if repository else match.group()


@lru_cache(maxsize=1 << 14)  # a store names each of its paths about seven times
def _path_of(written: str) -> str | None:
    """The path a candidate names, normalised; None when it is not clearly a path."""
    if written.endswith("/"):
        path = written.rstrip("/")
        if path.count("/") < 1:  # `src/`, `w/` (with): too short to be clearly a folder
            return None
    else:
        path = written
        if not _EXTENSION.search(path.rpartition("/")[2]):
            return None
    path = path.removeprefix("./")
    if "./" in path + "/":
        return None  # a segment ending in a dot: `..` (leaving the folder), `e.g./i.e.`
    if path.startswith(_PLACEHOLDER_FOLDERS) or _PLACEHOLDER.search(path):
        return None
    # What normpath would change is gone by now: no `.` or `..` segment (above), no `//`
    # (`_PATH` has none), no trailing `/` (stripped).
    return None if not path or path.startswith("..") else path


def _code_fences(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, is shell) of each fenced code block, in order (an unclosed fence runs
    to the end of the text, as Markdown reads it)."""
    blocks: list[tuple[int, int, bool]] = []
    opening: re.Match[str] | None = None
    for match in _FENCE.finditer(text):
        if opening is None:
            opening = match
        elif match.group(1)[0] == opening.group(1)[0] and \
                len(match.group(1)) >= len(opening.group(1)) and not match.group(2):
            blocks.append((opening.start(), match.end(),
                           opening.group(2).lower() in SHELL_FENCES))
            opening = None
    if opening is not None:
        blocks.append((opening.start(), len(text), opening.group(2).lower() in SHELL_FENCES))
    return blocks


def _in_code(fences: list[tuple[int, int, bool]], offset: int) -> bool:
    """Whether `offset` lies in a fenced block that is not a shell command."""
    at = bisect.bisect_right(fences, offset, key=lambda block: block[0]) - 1
    if at < 0:
        return False
    start, end, shell = fences[at]
    return start <= offset < end and not shell
