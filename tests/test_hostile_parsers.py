"""Property tests: every parser entry point either returns or raises what it documents.

The entry points and their documented errors are in `hostile_inputs.py`, shared with
`scripts/fuzz_homes.py` (which runs 100,000 random mutations of the same seeds); here
hypothesis builds the inputs, so a failure shrinks to a small one.
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

import hostile_inputs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.memory import frontmatter, yaml_js
from tui.memory.index import is_plain_name, parse_index

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

with tempfile.TemporaryDirectory() as _scratch:
    _NAMES = [point.name for point in hostile_inputs.entry_points(Path(_scratch))]


def hostile_text(seeds: tuple[str, ...]) -> st.SearchStrategy[str]:
    """A seed with pieces inserted, slices cut and things grown; or any text at all."""
    piece = st.sampled_from(hostile_inputs.PIECES) | st.text(max_size=6) | st.builds(
        lambda grow, times: grow * times, st.sampled_from(hostile_inputs.GROWING),
        st.sampled_from([10, 300, 3000]))
    edit = st.tuples(st.floats(0, 1), st.integers(0, 40), piece)

    def apply(seed: str, edits: list[tuple[float, int, str]]) -> str:
        for where, cut, inserted in edits:
            at = int(where * len(seed))
            seed = seed[:at] + inserted + seed[at + cut:]
        return seed

    return st.builds(apply, st.sampled_from(seeds), st.lists(edit, max_size=6)) | st.text()


@pytest.fixture(scope="module")
def points(tmp_path_factory):
    return {point.name: point for point in
            hostile_inputs.entry_points(tmp_path_factory.mktemp("entry-points"))}


@pytest.mark.parametrize("name", _NAMES)
def test_an_entry_point_raises_only_what_it_documents(points, name):
    point = points[name]

    @SETTINGS
    @given(hostile_text(point.seeds))
    def check(text):
        assert hostile_inputs.run(point, text) is None

    check()


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from("a_.-é1٣ 𝟙\u0300x/"), max_size=8))
def test_plain_names_are_told_apart_like_the_regex_did(name):
    assert is_plain_name(name) == bool(re.fullmatch(r"\w[\w.-]*", name))


@pytest.mark.parametrize("text", [
    "<!--" * 50_000,  # each unclosed comment made the regex rescan to the end
    "<!-- a -->\n" * 50_000,
    "- [a](a.md) <!-- x --> b\n" * 50_000,
], ids=["unclosed comments", "closed comments", "comments on link lines"])
def test_comment_stripping_is_linear(text):
    start = time.process_time()
    parse_index(text)
    assert time.process_time() - start < 3.0


@pytest.mark.parametrize("text", [
    "<<<<<<< memtui sync: x\n" * 50_000,  # each opening marker was followed to the end
    "<<<<<<< memtui sync: x\n=======\n" * 25_000,
    "<<<<<<< memtui sync: x\n=======\n>>>>>>> memtui sync: from the remote\n" * 20_000,
], ids=["openings alone", "never closed", "closed"])
def test_finding_sync_conflicts_is_linear(text):
    from tui.memory.conflicts import find_conflicts, resolve

    start = time.process_time()
    found = find_conflicts(text)
    resolve(text, "first")
    assert time.process_time() - start < 3.0
    assert len(found) == (20_000 if "from the remote" in text else 0)


@pytest.mark.parametrize("text", [
    " the " + "day" * 20_000,  # each needle read its whole word: 58 s, quadratic
    " the " + "Thursday" * 10_000,
    " the " + "yesterday" * 5_000 + " and " + "weekend" * 5_000,
], ids=["day run", "weekday run", "two runs"])
def test_relative_dates_stay_linear_on_runs_of_trigger_words(text):
    from tui.memory.dates import relative_dates

    start = time.process_time()
    assert relative_dates(text) == []
    assert time.process_time() - start < 3.0


@pytest.mark.parametrize("text", [
    # every line's places were the section's so far, read again: 29 s, quadratic
    "# H\n" + "".join(f"/p{n}/x see src/a{n}.py\n" for n in range(20_000)),
    "# H\n" + "/srv/app/x see src/a.py\n" * 20_000,
    "# H\n" + "".join(f"see src/a.py /x/y{n} " for n in range(40_000)),  # one line
], ids=["distinct places", "one place again", "one line"])
def test_path_mentions_stay_linear_in_a_section_full_of_places(text):
    from tui.memory.path_mentions import MENTIONS_PER_FILE, find_mentions

    start = time.process_time()
    found = find_mentions("m.md", text)
    assert time.process_time() - start < 3.0
    assert len(found) == MENTIONS_PER_FILE
    assert 1 <= len(found[-1].places) <= 128  # a line's own and its section's, a few each


def _bomb(width: int, depth: int) -> str:
    lines = ["a0: &a0 [" + ", ".join(["x"] * width) + "]"]
    lines += [f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * width) + "]"
              for level in range(1, depth + 1)]
    return "\n".join(lines)


# What yaml 2.8.2 (`yaml.parse`, maxAliasCount 100) makes of `_bomb(width, depth)`: it
# refuses once an anchor's count times its alias count passes 100.
REFUSED = {2: range(10, 12), 3: range(4, 12), 4: range(3, 12)}


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
@pytest.mark.parametrize("width", range(1, 12))
def test_alias_bombs_are_refused_where_the_yaml_package_refuses_them(width, depth):
    if width in REFUSED.get(depth, ()):
        with pytest.raises(yaml_js.YamlError, match="Excessive alias count"):
            yaml_js.load(_bomb(width, depth))
    else:
        assert len(yaml_js.load(_bomb(width, depth))) == depth + 1


def test_an_alias_bomb_in_a_memory_is_bad_frontmatter_at_once():
    """Nine aliases of nine aliases, nine deep: 387 million strings if expanded."""
    text = "---\n" + _bomb(9, 9) + "\ndescription: *a9\n---\nbody\n"
    start = time.process_time()
    memory = frontmatter.parse(text)
    assert time.process_time() - start < 1.0
    assert memory.data == {} and "Excessive alias count" in memory.error


def test_aliases_within_the_limit_are_kept_shared():
    assert yaml_js.load("a: &a [1]\nb: [*a, *a, *a]\nc: &c [*a]\nd: [*c, *c]") == {
        "a": [1], "b": [[1], [1], [1]], "c": [[1]], "d": [[[1]], [[1]]],
    }


def test_lone_surrogates_beside_plane_16_characters_are_read_not_raised():
    """Characters libyaml refuses are swapped into plane 16 while it reads; when the block
    already uses plane 16 there is no room, and a lone surrogate (a Python caller's) made
    libyaml's UTF-8 encoder raise. The fuzz script found it."""
    memory = frontmatter.parse("---\nname: a\U00100000\udd01 b\ndescription: x\ud800\n---\n")
    assert memory.data == {"name": "a\U00100000\ufffd b", "description": "x\ufffd"}
