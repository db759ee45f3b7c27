"""Property tests: the parsers never raise, and the loaded cut keeps its limits on any input."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from tui.memory import frontmatter
from tui.memory.audit import audit_store
from tui.memory.index import parse_index
from tui.memory.store import load_store

FAST = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# String.prototype.trim()'s whitespace (ECMAScript WhiteSpace + LineTerminator).
JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007" \
                "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
# Claude Code's frontmatter pattern, with JavaScript's `\s` (it holds U+FEFF; Python's not).
FRONTMATTER = re.compile(rf"^---[{JS_WHITESPACE}]*\n[\s\S]*?---[{JS_WHITESPACE}]*\n?")
COMMENT = re.compile(r"<!--[\s\S]*?-->")

# Pieces that exercise the parsers' edges: YAML syntax, markers, wide characters, CR.
PIECES = ["---", "\n", "\r\n", ": ", "#", "- ", "[", "]", "(", ")", "{", "}", "*", "&", "!", "|",
          '"', "'", "<!--", "-->", "name: x", "type: user", "metadata:", "  type: ", "\ufeff",
          "😀", "项", "é", "\t", " ", "a", "[A](a.md)", "\x00"]
piece_text = st.lists(st.sampled_from(PIECES) | st.text(max_size=5), max_size=60).map("".join)
repeated_line = st.builds(lambda s, n: s * n, st.text(st.sampled_from("ab 😀项\t<->"), max_size=8),
                          st.integers(0, 60))
# A few lines repeated many times: reaches both limits without generating megabytes.
index_text = st.builds(lambda lines, n: "\n".join(lines * n),
                       st.lists(repeated_line | piece_text, min_size=1, max_size=6),
                       st.integers(40, 300))
broken_yaml = st.builds(
    lambda key, value, tail: f"---\n{key}: {value}\n{tail}\n---\nbody\n",
    st.sampled_from(["name", "description", "type", "metadata", "  x", "- a"]),
    st.text(st.sampled_from(": #[]{}&*!|>'\"%@`,?ab\t"), max_size=20),
    st.text(max_size=20),
)
huge_line = st.builds(lambda c, n: "---\nname: " + c * n + "\n---\n" + c * n,
                      st.sampled_from(["a", "😀", ": "]), st.integers(1000, 40_000))
any_text = piece_text | broken_yaml | huge_line | st.text()


def stripped(raw: str) -> str:
    """The text Claude Code loads: comments go only from HTML blocks at the top level."""
    match = FRONTMATTER.match(raw)
    body = raw[match.end():] if match else raw
    lines = body.split("\n")
    parser = MarkdownIt("commonmark", {"html": True})
    parser.core.ruler.disable(["normalize"])
    for token in parser.parse(body.replace("\r\n", "\n")):
        if token.type == "html_block" and token.level == 0 and \
                token.content.lstrip(" ").startswith("<!--"):
            first, last = token.map
            block = COMMENT.sub("", "\n".join(lines[first:last]))
            lines[first:last] = [block] + [None] * (last - first - 1)
    return "\n".join(line for line in lines if line is not None).strip(JS_WHITESPACE)


@FAST
@given(any_text)
def test_frontmatter_parse_never_raises(text):
    fm = frontmatter.parse(text)
    assert isinstance(fm.data, dict)
    assert fm.present or fm.body == text


@FAST
@given(any_text.map(lambda t: t.replace("\n", "\r\n")))
def test_frontmatter_parse_never_raises_on_crlf(text):
    assert isinstance(frontmatter.parse(text).data, dict)


@FAST
@given(index_text | piece_text)
@example("\n".join(["---\ufeff"] * 40))  # frontmatter closed by `---` and U+FEFF, a JS space
def test_loaded_cut_limits_hold_and_loaded_is_a_prefix(raw):
    index = parse_index(raw)
    assert index.loaded_lines <= 200
    assert index.loaded_chars <= 25_000
    assert stripped(raw).startswith(index.loaded)
    assert (index.cut is None) == (index.loaded == stripped(raw))


@FAST
@given(st.binary(max_size=2000) | any_text.map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_index_and_memory_of_arbitrary_bytes_never_raise(data):
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder)
        (store / "MEMORY.md").write_bytes(data)
        (store / "m.md").write_bytes(data)
        audit_store(load_store(store))
        audit_store(load_store(store, head_only=True))


@FAST
@given(st.binary(max_size=2000))
def test_memory_of_arbitrary_bytes_always_gets_a_finding(data):
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder)
        (store / "m.md").write_bytes(data)
        kinds = {f.kind for f in audit_store(load_store(store)) if f.file == "m.md"}
        assert "unindexed" in kinds
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            assert "unreadable" in kinds


@FAST
@given(st.text(max_size=200))
def test_frontmatter_after_a_bom_is_read_like_the_memory_scanner(rest):
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder)
        (store / "m.md").write_text("\ufeff---\nname: x\ntype: user\n---\n" + rest, encoding="utf-8")
        memory = load_store(store).memory("m.md")
        assert memory.frontmatter.present and memory.type == "user"
        kinds = {f.kind for f in audit_store(load_store(store)) if f.file == "m.md"}
        assert "missing_frontmatter" not in kinds


# Folders and links (to folders, up, across, to nothing, to themselves), and paths
# through them: `RealPaths` must give what `normalize_path` (os.path.realpath) gives.
LINKS = [("a", "l1", "b"), ("c", "l2", "../a"), ("a/b", "l1", ".."), ("c", "l1", "nowhere"),
         ("a", "l2", "l2"), ("a/b", "l2", "/")]
NAMES = ["a", "b", "c", "l1", "l2", "l1", "l2", "é", "e\u0301", "x", ".", ".."]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(NAMES), min_size=1, max_size=6), min_size=1, max_size=8))
def test_real_paths_of_a_pass_are_each_paths_realpath(walks):
    import os

    from tui.claude.paths import RealPaths, normalize_path

    with tempfile.TemporaryDirectory() as root:
        for folder in ("a/b", "c"):
            os.makedirs(os.path.join(root, folder))
        for folder, name, target in LINKS:
            os.symlink(target, os.path.join(root, folder, name))
        real_paths = RealPaths()
        for walk in walks:
            path = root + "/" + "/".join(walk)
            assert real_paths(path) == normalize_path(path), path
