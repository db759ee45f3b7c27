"""The shortcuts that find path mentions quickly read exactly what their plain definitions
read: `_PATH`'s matches over the whole text, `posixpath.normpath` of each path, and the
places of each line read line by line."""

from __future__ import annotations

import posixpath
import re

from hypothesis import example, given
from hypothesis import strategies as st

from tui.memory import path_mentions
from tui.memory.path_mentions import (
    _PATH,
    _PLACE,
    _PLACE_HINTS,
    _ROOTED,
    _candidates,
    _may_name_places,
    _path_of,
    _Places,
)

# Path characters, separators and every character the lookbehinds and globs look at.
_TEXT = st.text(st.sampled_from(list("ab.-_@+9/ /\n~:$%*?{<[\\`()\"'#")), max_size=60)
_PLAIN_ROOTED = re.compile(r"(?:^|[^A-Za-z0-9_.@+\-/:~])/[A-Za-z0-9_.@+\-]")


@given(_TEXT)
@example("see src/a.py and ~/x/y.md, a//b.py, ./c/d.ts, {x}/y.py, e.g./i.e. and `a/b/`")
def test_candidates_are_the_path_patterns_matches_over_the_whole_text(text):
    assert [m.span() for m in _candidates(text)] == [m.span() for m in _PATH.finditer(text)]


@given(_TEXT)
@example("a/./b.py")
@example("..a/b.py")
@example("./src/")
def test_a_path_is_what_normpath_makes_of_it(text):
    for match in _PATH.finditer(text):
        written = match.group().rstrip(".-")
        path = _path_of(written) if written else None
        if path is not None:
            normal = posixpath.normpath(written.rstrip("/").removeprefix("./"))
            assert path == normal and not normal.startswith("..") and normal != "."


@given(st.text(st.sampled_from(list("a/ :~.`(-")), max_size=30))
def test_the_rooted_screen_is_its_plain_pattern(line):
    assert (_ROOTED.search(line) is None) == (_PLAIN_ROOTED.search(line) is None)


@given(st.text(st.sampled_from(list("repo/~ \n\t`(\"'ithub.—é\ud800")), max_size=40))
@example("a repo — here")
@example("/abs at the start")
def test_the_place_screen_is_its_substring_tests(text):
    plain = (text.startswith("/") or "epo" in text
             or any(hint in text for hint in _PLACE_HINTS))
    assert _may_name_places(text, text.encode("utf-8", "surrogatepass")) == plain


def test_mentions_are_found_where_the_text_says_them():
    found = path_mentions.find_mentions("m.md", "Run `src/app.py`.\nThen see docs/guide/\n")
    assert [(m.line, m.column, m.path, m.folder) for m in found] == [
        (1, 5, "src/app.py", False), (2, 9, "docs/guide", True)]


# `_PLACE` as it reads plainly: each form's assertions first.
_PLAIN_PLACE = re.compile(
    r"(?<![A-Za-z0-9_.@+\-/:~])(?:~/[A-Za-z0-9_.@+\-]+|/[A-Za-z0-9_.@+\-]+/[A-Za-z0-9_.@+\-]+)"
    r"(?:/[A-Za-z0-9_.@+\-]+)*"
    r"|\b(?:[Gg]ithub\.com|[Gg]itlab\.com|[Bb]itbucket\.org)[/:][A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+"
    r"|\b[Rr]epo(?:sitory)?\b[^\n`/]{0,12}(?:`?(?P<named>[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+)"
    r"(?![A-Za-z0-9_.\-/])|`(?P<bare>[A-Za-z0-9_\-]+)`)",
)
_PLACE_TEXT = st.lists(st.sampled_from([*"ab/ \n\t~:.-_`#(é", "repo", "Repository ", "github.com",
                                        "Gitlab.com:", "bitbucket.org/", "# ", "## ", "/x/y"]),
                       max_size=40).map("".join)


@given(_PLACE_TEXT)
@example("see /srv/app/x and ~/code, the repo `acme/tracker` and github.com/a/b")
@example("x/srv/a/b, :/a/b, Mygithub.com/a/b, prepo `x`")
def test_places_are_the_plain_patterns_matches(text):
    def found(pattern):
        return [(m.span(), m.group("named"), m.group("bare")) for m in pattern.finditer(text)]
    assert found(_PLACE) == found(_PLAIN_PLACE)


def _plain_places(text: str) -> dict[int, tuple[str, ...]]:
    """What each line holding a "/" names, read line by line: its own places, then those
    of every section open on it."""
    sections: list[tuple[int, list[str]]] = [(0, [])]
    found: dict[int, tuple[str, ...]] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        named = [path_mentions._place(match) for match in _PLAIN_PLACE.finditer(line)]
        heading = re.match(r"#{1,6}(?=[ \t])", line)
        if heading:
            while sections[-1][0] >= len(heading.group()):
                sections.pop()
            sections.append((len(heading.group()), []))
        if len(sections) > 1:
            sections[-1][1].extend(named)
        if "/" in line:
            found[number] = tuple(dict.fromkeys(
                [*named, *(place for _, places in sections for place in places)]))
    return found


@given(_PLACE_TEXT)
@example("# App /srv/app\n## Tracker\nrepo: `acme/tracker`\n- src/a.py\n# Other\n- b/c.py")
@example("- a/b.py at ~/code/x\n### Deep /x/y\n#### deeper\n- c/d.py\n## up\n- e/f.py")
def test_each_lines_places_are_those_read_line_by_line(text):
    named_on = _Places(text, text.encode("utf-8", "surrogatepass"))
    assert {number: named_on(number) for number in _plain_places(text)} == _plain_places(text)
