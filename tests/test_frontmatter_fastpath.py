"""The frontmatter fast path reads exactly what YAML reads (the npm `yaml` package, as
`yaml_js.load` reads it), or leaves the block to YAML."""

from __future__ import annotations

import string

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tui.memory import frontmatter
from tui.memory.frontmatter import _simple_mapping, parse
from tui.memory.yaml_js import load

KEYS = st.sampled_from(
    ["name", "description", "type", "node_type", "originSessionId", "modified", "priority",
     "_private", "yes", "No", "on", "null", "True"]
) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True)

# Values YAML does not read as the plain string they look like, or cannot read at all.
NOT_PLAIN_VALUES = [
    "true", "False", "yes", "NO", "on", "Off", "null", "Null", "~", "", "-3", "+4", "012", "00",
    "1_000", "0x1f", "1.5", ".inf", ".NaN", "1e3", "2026-03-01", "190:20:30", "a: b",
    "see this #ops", r'"escaped \" quote"', r'"back\slash"', "'it''s'", '"a" b', "'a' b",
    '"line\u2028break"', '"next\x85line"', '"unclosed', "[list", "{map", "*alias", "&anchor",
    "!tag", "|", ">", "%x", "@at", "`tick",
    "- item", "? key", "trailing ", "=", "<<",
]
# Values YAML reads as the string they are, left to it all the same: a first letter beyond
# ASCII, characters JavaScript or YAML may take for a line break or a byte order mark.
LEFT_TO_YAML = ["é first", "nel\x85line", "sep\u2028line", "par\u2029line", "bom\ufeffhere"]
NOT_PLAIN = st.sampled_from(NOT_PLAIN_VALUES)
PLAIN = st.text(alphabet=string.ascii_letters + string.digits + " -_.,/()'\"!?@&*%=+;" "—éü中→"
                "\u00a0\u3000\u2028\ufeff\x85\U0001f600", min_size=1, max_size=30)
UUID = st.uuids().map(str)
TIMESTAMP = st.datetimes().map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%S.000Z"))
INTEGER = st.integers(0, 10**18).map(str)
QUOTED = st.builds(
    lambda quote, text: f"{quote}{text}{quote}", st.sampled_from(["'", '"']), st.text(max_size=20)
)
VALUES = NOT_PLAIN | PLAIN | UUID | TIMESTAMP | INTEGER | QUOTED


@st.composite
def blocks(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        key = draw(KEYS)
        if draw(st.booleans()):
            lines.append(f"{key}: {draw(VALUES)}")
        else:
            lines.append(f"{key}:{draw(st.sampled_from(['', ' ']))}")
            for _ in range(draw(st.integers(0, 4))):
                lines.append(f"  {draw(KEYS)}: {draw(VALUES)}")
    return "\n".join(lines) + "\n"


def _yaml_mapping(block: str):
    return load(block)


@settings(max_examples=600, deadline=None)
@given(blocks())
@example("name: x\nmetadata:\n  type: user\n  modified: 2026-03-01T10:00:00.000Z\n")
@example("metadata: \n  originSessionId: 0b0e3b6a-1c1b-4d3e-9f00-123456789abc\n")
def test_fast_path_equals_yaml(block):
    fast = _simple_mapping(block)
    if fast is None:
        return
    assert fast == _yaml_mapping(block)
    assert [type(v) for v in fast.values()] == [type(v) for v in _yaml_mapping(block).values()]


@pytest.mark.parametrize("value", NOT_PLAIN_VALUES + LEFT_TO_YAML)
def test_values_yaml_reads_differently_go_to_yaml(value):
    assert _simple_mapping(f"name: x\ndescription: {value}\n") is None
    assert _simple_mapping(f"metadata:\n  type: {value}\n") is None


@settings(max_examples=300, deadline=None)
@given(blocks(), st.text(max_size=40))
def test_parse_with_fast_path_equals_parse_through_yaml(block, body):
    text = f"---\n{block}---\n{body}"
    fast = parse(text)
    original = frontmatter._simple_mapping
    frontmatter._simple_mapping = lambda _block: None
    try:
        slow = parse(text)
    finally:
        frontmatter._simple_mapping = original
    assert fast == slow


@pytest.mark.parametrize("block", [
    "name: a\nname: b\n",
    "name: a\nmetadata:\n  type: user\n  type: project\n",
    "metadata:\n  type: user\nmetadata:\n  type: project\n",
    f"{'k' * 1030}: v\n",
])
def test_duplicate_and_overlong_keys_go_to_yaml(block):
    assert _simple_mapping(block) is None


@pytest.mark.parametrize("block", [
    "name: user_role\ndescription: Senior Go engineer, new to React\ntype: user\n",
    "name: testing-policy\ndescription: Run the real database in tests\nmetadata: \n"
    "  type: feedback\n  node_type: memory\n"
    "  originSessionId: 0b0e3b6a-1c1b-4d3e-9f00-123456789abc\n"
    "  modified: 2026-03-01T10:00:00.000Z\n",
])
def test_the_two_common_forms_take_the_fast_path(block):
    assert _simple_mapping(block) == _yaml_mapping(block)


@pytest.mark.parametrize("description", [
    "Never recommend hardware from memory — always search first",
    "Résumé and cover letter quality: 理由 → fix",  # the colon sends it to YAML
    "Ends with a no-break space\u00a0",
])
def test_descriptions_beyond_ascii_take_the_fast_path_unless_yaml_reads_them_otherwise(
        description):
    block = f"name: x\ndescription: {description}\ntype: feedback\n"
    fast = _simple_mapping(block)
    assert fast == (None if ": " in description else _yaml_mapping(block))


# What YAML reads as printable and not a line break, listed as the fast path's classes once
# listed it: they now name what is not, and must take every character as these do.
_PRINTABLE = r"\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff"


@pytest.mark.parametrize(("value", "listed"), [
    ("a{}b", rf'a[ !"$-9;-~{_PRINTABLE}]b'),  # a plain value's inside
    ("a{}", rf'a[!"$-9;-~{_PRINTABLE}]'),  # a plain value's end
    ('"{}"', rf'"[\t !#-\[\]-~{_PRINTABLE}]"'),
    ("'{}'", rf"'[\t -&(-~{_PRINTABLE}]'"),
], ids=["plain", "plain end", "double-quoted", "single-quoted"])
def test_the_fast_path_takes_every_character_yaml_prints(value, listed):
    import re

    listed_pattern = re.compile(listed)
    characters = [*range(0x10000), 0x10000, 0x1F600, 0x10FFFF]
    differ = [hex(code) for code in characters
              if bool(listed_pattern.fullmatch(value.format(chr(code))))
              != bool(frontmatter._SIMPLE_LINE.fullmatch("k: " + value.format(chr(code))))]
    assert differ == []


# Texts made of what decides where a block opens and closes: dashes, JavaScript spaces
# (line breaks among them), carriage returns, and other characters.
BLOCKISH = st.lists(st.sampled_from(["---", "-", "\n", " ", "\t", "\r", "\u00a0", "\ufeff",
                                     "\u2028", "\x1c", "a", "name: x", ":"]),
                    max_size=25).map("".join)


@settings(max_examples=2000, deadline=None)
@given(BLOCKISH, st.integers(0, 3))
@example("---\n\n \n---\n", 0)
@example("---\n----\n", 0)
@example("--- \nname: a---b\n---\n", 0)
def test_the_block_is_found_where_the_blocks_regex_finds_it(text, start):
    start = min(start, len(text))
    match = frontmatter.BLOCK.match(text, start)
    expected = None if match is None else (match.start(1), match.end(1), match.end())
    assert frontmatter.block_span(text, start) == expected


@given(st.text(alphabet=string.ascii_letters, max_size=6)
       | st.sampled_from(["yes", "No", "tRuE", "FALSE", "oN", "Off", "nULL", "Y", "n", "nul"]))
def test_words_yaml_reads_as_booleans_or_null_are_known_in_any_case(word):
    assert (word in frontmatter._YAML_WORD_CASES) == (word.lower() in frontmatter._YAML_WORDS)
