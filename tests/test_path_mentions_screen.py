"""The shortcuts that find path mentions quickly read exactly what their plain definitions
read: `_PATH`'s matches over the whole text, and `posixpath.normpath` of each path."""

from __future__ import annotations

import posixpath
import re

from hypothesis import example, given
from hypothesis import strategies as st

from tui.memory import path_mentions
from tui.memory.path_mentions import (
    _PATH,
    _PLACE_HINTS,
    _ROOTED,
    _candidates,
    _may_name_places,
    _path_of,
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
    assert _may_name_places(text) == plain


def test_mentions_are_found_where_the_text_says_them():
    found = path_mentions.find_mentions("m.md", "Run `src/app.py`.\nThen see docs/guide/\n")
    assert [(m.line, m.column, m.path, m.folder) for m in found] == [
        (1, 5, "src/app.py", False), (2, 9, "docs/guide", True)]
