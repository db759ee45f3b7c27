"""MEMORY.md's loaded cut and its links (reference §3)."""

from __future__ import annotations

from conftest import write_index
from hypothesis import given, settings
from hypothesis import strategies as st

from tui import cli
from tui.memory.index import _normalise_target, format_size, is_external, parse_index
from tui.memory.links import wiki_names


def entries(count: int, width: int = 20) -> str:
    return "\n".join(f"- [m{i}](m{i}.md) " + "x" * max(0, width - 14) for i in range(count))


def test_loaded_cut_strips_leading_frontmatter():
    index = parse_index("---\ntitle: index\n---\n- [A](a.md) — a\n")
    assert index.loaded == "- [A](a.md) — a"
    assert index.lines == 1


def test_loaded_cut_strips_html_comments_before_counting_lines():
    comment = "<!--\n" + "\n".join(f"hidden {i}" for i in range(60)) + "\n-->"
    raw = entries(150) + "\n" + comment + "\n" + entries(40)
    index = parse_index(raw)
    assert index.cut is None
    assert "hidden" not in index.loaded
    assert index.lines == 191  # the comment's lines are gone, its trailing newline stays
    assert all(line.state == "stripped" for line in index.raw_lines[150:211])


def test_only_html_comments_standing_as_their_own_block_are_stripped():
    # Claude Code removes a comment that is a block of its own (a line starting `<!--`, at
    # the top level); the model reads one in a code span, in a paragraph's line, in code
    # or in a list item.
    raw = ("<!-- curated by hand -->\n"
           "- [Hooks](hooks.md) — mark files with `<!-- PLATFORM: x -->` first\n"
           "- [B](b.md) <!-- inline --> stays\n"
           "```\n<!-- in code -->\n```\n"
           "- [C](c.md)\n  <!-- in the item -->\n"
           "<!-- a --> after <!-- b -->\n")
    index = parse_index(raw)
    assert index.loaded == (
        "- [Hooks](hooks.md) — mark files with `<!-- PLATFORM: x -->` first\n"
        "- [B](b.md) <!-- inline --> stays\n"
        "```\n<!-- in code -->\n```\n"
        "- [C](c.md)\n  <!-- in the item -->\n"
        " after")
    assert [line.state for line in index.raw_lines][:3] == ["stripped", "loaded", "loaded"]


def test_loaded_cut_trims_leading_and_trailing_whitespace():
    index = parse_index("\n\n  \n- [A](a.md)\n\n\n")
    assert index.loaded == "- [A](a.md)"
    assert (index.lines, index.loaded_lines) == (1, 1)


def test_loaded_cut_keeps_exactly_200_lines():
    assert parse_index(entries(200)).cut is None
    index = parse_index(entries(201))
    assert index.cut == "lines"
    assert index.loaded_lines == 200
    assert index.loaded == entries(200)
    assert [link.visible for link in index.links[-2:]] == [True, False]


def test_loaded_cut_counts_utf16_units_with_emoji_and_cjk():
    # 150 emoji = 300 UTF-16 units (150 Python chars, 600 UTF-8 bytes) per line.
    line = "😀" * 150
    raw = "\n".join([line] * 100)
    index = parse_index(raw)
    assert index.chars == 100 * 301 - 1
    assert index.cut == "chars"
    # The last newline at or before unit 25,000 ends line 83 (at unit 83*301-1 = 24,982).
    assert index.loaded == "\n".join([line] * 83)
    assert (index.loaded_lines, index.loaded_chars) == (83, 24_982)


def test_loaded_cut_counts_cjk_as_one_unit_each():
    line = "项" * 240  # 240 units, 720 UTF-8 bytes
    index = parse_index("\n".join([line] * 100))  # 24,099 units: under the limit
    assert index.cut is None
    assert index.chars == 24_099
    index = parse_index("\n".join([line] * 110))
    assert index.loaded_lines == 103  # 103 * 241 - 1 = 24,822 <= 25,000 < 104 * 241 - 1


def test_loaded_cut_newline_exactly_at_unit_25000_is_used():
    index = parse_index("a" * 25_000 + "\n" + "b" * 10)
    assert index.loaded == "a" * 25_000


def test_loaded_cut_hard_cut_when_no_newline():
    index = parse_index("a" * 30_000)
    assert index.cut == "chars"
    assert index.loaded == "a" * 25_000
    assert index.loaded_lines == 1


def test_loaded_cut_warning_lines_only():
    index = parse_index(entries(230))
    assert "is 230 lines (limit: 200). Only part of it was loaded." in index.warning


def test_loaded_cut_warning_size_only_names_kb_with_one_decimal():
    raw = "\n".join(["项" * 250] * 99)  # 24,848 units, 74,349 UTF-8 bytes
    raw += "x" * 240  # 25,088 units = 24.5 * 1024
    index = parse_index(raw)
    assert (index.cut, index.chars) == ("chars", 25_088)
    assert "is 24.5KB (limit: 24.4KB) — index entries are too long." in index.warning


def test_loaded_cut_warning_both_limits():
    lines = ["张" * 122] * 250  # 250 * 123 - 1 = 30,749 units
    lines[-1] += "张" * 73  # 30,822 units = 30.1KB
    index = parse_index("\n".join(lines))
    assert index.cut == "both"
    assert index.loaded_lines == 200
    assert "is 250 lines and 30.1KB." in index.warning


def test_loaded_cut_warning_size_rounds_a_half_up_like_javascript_to_fixed():
    """Reference §3: the size is chars/1024 with one decimal, as JavaScript's toFixed(1)
    writes it: a size exactly halfway (25,856 units = 25.25KB) rounds up, to 25.3KB."""
    raw = "\n".join(["x" * 200] * 130)[:25_856]  # 129 lines, 25,856 units
    index = parse_index(raw)
    assert (index.cut, index.chars) == ("chars", 25_856)
    assert "is 25.3KB (limit: 24.4KB)" in index.warning
    assert [format_size(256 * odd) for odd in (101, 103, 105, 121)] == [
        "25.3KB", "25.8KB", "26.3KB", "30.3KB"]


def test_format_size_drops_trailing_zero_decimal():
    assert format_size(25_000) == "24.4KB"
    assert format_size(30 * 1024) == "30KB"
    assert format_size(512) == "512 bytes"


def test_index_loaded_cli_prints_loaded_text_blank_line_warning(claude_home, capsys):
    store = claude_home.store(folder="-p")
    write_index(store, entries(205))
    code = cli.main(["--config-dir", str(claude_home.home), "index", str(store), "--loaded"])
    out = capsys.readouterr().out
    index = parse_index(entries(205) + "\n")
    assert code == 0
    assert out == index.loaded + "\n\n" + index.warning + "\n"


def test_index_loaded_cli_without_cut_prints_the_stripped_text(claude_home, capsys):
    store = claude_home.store(folder="-p")
    write_index(store, "<!-- note -->\n- [A](a.md)\n")
    cli.main(["--config-dir", str(claude_home.home), "index", str(store), "--loaded"])
    assert capsys.readouterr().out == "- [A](a.md)\n"


def _files(raw: str) -> list[str | None]:
    return [link.file for link in parse_index(raw).links]


def test_index_link_dot_slash_target():
    assert _files("- [X](./x.md) — x") == ["x.md"]


def test_index_link_url_encoded_target():
    assert _files("- [My file](my%20file.md) — spaces") == ["my file.md"]


def test_index_link_title_with_brackets():
    links = parse_index("- [Fix [urgent] bug](fix.md) — y").links
    assert [(link.title, link.file) for link in links] == [("Fix [urgent] bug", "fix.md")]


def test_index_non_link_lines_are_tolerated():
    raw = "# Memory index\n\nSome prose about things.\n- a bullet without a link\n- [broken](\n"
    index = parse_index(raw)
    assert index.links == ()
    assert index.lines == 5


def test_index_external_links_are_ignored():
    assert _files("- [Docs](https://example.com/x.md) and [mail](mailto:a@b.c)") == []


def test_index_parent_link_is_outside_the_store():
    assert _files("- [Up](../x.md) — escapes") == [None]
    assert _files("- [Abs](/etc/passwd) — escapes") == [None]


def test_index_wiki_links_name_memory_files():
    names = wiki_names([("user_role.md", None)])
    assert [link.file for link in parse_index("- see [[user_role]]", names).links] == [
        "user_role.md"
    ]
    assert _files("- see [[user_role]]") == [None]  # without the store's names: unresolved


def test_index_missing_file_is_not_an_index():
    index = parse_index(None)
    assert not index.exists
    assert index.warning is None


def test_index_link_angle_brackets_and_title_attribute():
    raw = '- [Spaced](<my notes.md>) — a\n- [Titled](t.md "hover text") — b'
    assert _files(raw) == ["my notes.md", "t.md"]


@settings(max_examples=300, deadline=None)
@given(st.from_regex(r"\w[\w.-]*", fullmatch=True))
def test_plain_link_names_are_taken_as_written(name):
    # parse_index skips decoding and resolving for these; the slow path must agree.
    assert _normalise_target(name) == name
    assert not is_external(name)
    parsed = parse_index(f"- [t]({name}) — hook\n")
    assert [link.file for link in parsed.links] == [name]
