"""Memory-file frontmatter, read the way Claude Code reads it.

Three forms exist on real disks: none, flat (`name`, `description`, `type`) and nested
(`metadata:` holding `type` and friends). Claude Code's memory scanner reads a file's first
30 lines with a leading BOM and the `\\r` of each CRLF dropped, matches the block regex
`^---\\s*\\n([\\s\\S]*?)---\\s*\\n?` (JavaScript's `\\s`), and parses the block with the npm
`yaml` package (read the same way by `yaml_js`): YAML 1.2, core schema, a duplicated key is
an error. On an error it retries ONCE after quoting the values of unindented `key: value`
lines that hold one of `{}[]*&#!|>%@` or a backtick, or `: `; if that fails too, the
frontmatter is empty (no type, no description). A non-mapping is empty. Reading never rewrites a file.

tests/data/frontmatter_golden.jsonl holds what Claude Code's own code makes of a few
thousand blocks (scripts/frontmatter_golden/ regenerates it); tests/test_frontmatter_golden.py
checks this module against it, and lists the few exotic shapes still read differently.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from tui.claude.files import open_binary

MEMORY_TYPES = ("user", "feedback", "project", "reference")
HEAD_LINES = 30  # the scanner reads this many lines of each file

# JavaScript's `\s`, which Claude Code's regexes use. Python's `\s` differs: it also holds
# \x1c-\x1f and \x85, and lacks \ufeff.
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
# Used with .match() (anchored where it starts); `^` would not match at a start offset.
BLOCK = re.compile(rf"---[{JS_SPACE}]*\n([\s\S]*?)---[{JS_SPACE}]*\n?")

# quoteProblematicValues: `/^([a-zA-Z_-]+):\s+(.+)$/` on each line (JavaScript's `.` stops at
# \n, \r, \u2028 and \u2029), and the characters that make a value worth quoting.
_RETRY_LINE = re.compile(rf"([a-zA-Z_-]+):[{JS_SPACE}]+([^\n\r\u2028\u2029]+)")
_RETRY_SPECIAL = re.compile(r"[{}\[\]*&#!|>%@`]|: ")


@dataclass(frozen=True, init=False)
class Frontmatter:
    data: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    form: str = "none"  # "none", "flat", "nested", or "empty" (a block with no mapping)
    present: bool = False
    error: str | None = None  # the YAML error when even the retry failed
    retried: bool = False  # the first parse failed (so Claude Code retried after quoting)
    block_lines: int = 0
    unclosed: bool = False  # a block opens but does not close within the scanned lines

    def __init__(self, data: dict[str, Any] | None = None, body: str = "", form: str = "none",
                 present: bool = False, error: str | None = None, retried: bool = False,
                 block_lines: int = 0, unclosed: bool = False) -> None:
        # The instance dict set whole, not the frozen __setattr__ once per field: one of
        # these per memory file.
        object.__setattr__(self, "__dict__", {
            "data": {} if data is None else data, "body": body, "form": form,
            "present": present, "error": error, "retried": retried,
            "block_lines": block_lines, "unclosed": unclosed,
        })

    @property
    def metadata(self) -> dict[str, Any]:
        meta = self.data.get("metadata")
        return meta if isinstance(meta, dict) else {}

    def text(self, key: str) -> str | None:
        """A top-level string field, or the same key under `metadata:`."""
        value = self.data.get(key)
        if value is None:
            value = self.metadata.get(key)
        if value is None:
            return None
        return value if isinstance(value, str) else str(value)

    @property
    def type(self) -> str | None:
        return self.text("type")

    @property
    def name(self) -> str | None:
        return self.text("name")

    @property
    def description(self) -> str | None:
        return self.text("description")


def quote_special_values(block: str) -> str:
    """Claude Code's quoteProblematicValues, character for character.

    Only unindented `key: value` lines with a key of letters, `_` and `-`; a value that
    starts and ends with the same quote is left alone; a value holding one of
    `{}[]*&#!|>%@` or a backtick, or `: `, becomes `key: "value"` with `\\` and `"` escaped.
    Nothing else: not `'`, `"`, `,`, `?` or a bare `:`, nor an indented key.
    """
    out = []
    for line in block.split("\n"):
        match = _RETRY_LINE.fullmatch(line)
        if match:
            key, value = match.groups()
            quoted = (value.startswith('"') and value.endswith('"')) or (
                value.startswith("'") and value.endswith("'")
            )
            if not quoted and _RETRY_SPECIAL.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{key}: "{escaped}"'
        out.append(line)
    return "\n".join(out)


def scanner_view(text: str) -> str:
    """What Claude Code's memory scanner parses: the first 30 lines joined by `\\n`, a
    leading BOM and the `\\r` ending each line dropped (its readFileInRange)."""
    return _scanner_view(text)[0]


def _scanner_view(text: str) -> tuple[str, int, bool]:
    """(the view, where it starts in `text`, whether `\\r`s were dropped)."""
    start = 1 if text.startswith("\ufeff") else 0
    end = len(text)
    position = start
    for _ in range(HEAD_LINES):
        newline = text.find("\n", position)
        if newline < 0:
            break
        position = newline + 1
    else:
        end = position - 1  # the 30th line ends here; its `\n` is not part of the view
    view = text[start:end]
    if "\r" not in view:
        return view, start, False
    lines = view.split("\n")
    return "\n".join(line[:-1] if line.endswith("\r") else line for line in lines), start, True


def _original_offset(text: str, start: int, view: str, offset: int) -> int:
    """Where the view's `offset` lies in the `text` it was made from (with `\\r`s)."""
    line_start = view.rfind("\n", 0, offset) + 1
    position = start
    for _ in range(view.count("\n", 0, offset)):
        position = text.index("\n", position) + 1
    return position + offset - line_start


# The common case, read without YAML: `key: value` lines and one level of two-space
# indented `key: value` lines under a bare `key:`, no key twice in one mapping. A value
# qualifies only where the core schema reads it as this mapping does: a plain string
# (starting with an ASCII letter, no `:` or `#`, no trailing space, not a word YAML might
# read as a boolean or null; other characters printable ASCII or beyond, such as the dash
# of "a — b" that real descriptions are full of), a UUID, an ISO timestamp (text in YAML
# 1.2), a decimal integer without a leading zero, or a quoted string without escapes or
# line breaks. Anything else, a key included, goes to YAML.
# What YAML does not read as printable (or reads as a line break) beyond ASCII's controls:
# the classes below are "all but these", printable ASCII and beyond alike. (Listing the
# printable ranges instead made `re` fill a 65,536-entry map in Python for each class:
# ~4 ms each at every start, against 0.5.)
_NOT_PRINTABLE = r"\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff"
_PLAIN = rf'[A-Za-z](?:[^\x00-\x1f#:{_NOT_PRINTABLE}]*[^\x00-\x20#:{_NOT_PRINTABLE}])?'
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_ISO_TIME = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?Z"
_INTEGER = r"0|[1-9][0-9]{0,14}"
_DOUBLE_QUOTED = rf'"([^\x00-\x08\n-\x1f"\\{_NOT_PRINTABLE}]*)"'  # no `"`, no `\`
_SINGLE_QUOTED = rf"'([^\x00-\x08\n-\x1f'{_NOT_PRINTABLE}]*)'"  # no `'`
_SIMPLE_LINE = re.compile(
    rf"(  )?([A-Za-z_][A-Za-z0-9_]*):"
    rf"(?: (?:({_PLAIN}|{_UUID}|{_ISO_TIME})|({_INTEGER})|{_DOUBLE_QUOTED}|{_SINGLE_QUOTED})| ?)"
)
_YAML_WORDS = frozenset({"yes", "no", "true", "false", "on", "off", "null", "y", "n"})
# Each of them in every mix of cases: keys and plain values are ASCII here, so a lookup
# says what `text.lower() in _YAML_WORDS` says, without making the lowered copy.
_YAML_WORD_CASES = frozenset(
    "".join(letters) for word in _YAML_WORDS
    for letters in itertools.product(*({char, char.upper()} for char in word))
)


def _simple_mapping(block: str) -> dict[str, Any] | None:
    """The mapping YAML would build for a block of the simple shape, else None."""
    lines = block.split("\n")
    if lines[-1] == "":
        lines.pop()
    data: dict[str, Any] = {}
    nested: dict[str, Any] | None = None  # the mapping under the last bare `key:`
    for line in lines:
        match = _SIMPLE_LINE.fullmatch(line)
        if match is None:
            return None
        indent, key, plain, integer, double, single = match.groups()
        if key in _YAML_WORD_CASES or plain in _YAML_WORD_CASES or len(key) > 1000:
            return None
        value: Any = plain
        if integer is not None:
            value = int(integer)
        elif double is not None or single is not None:
            value = double if double is not None else single
        if indent:
            if nested is None or value is None or key in nested:
                return None
            nested[key] = value
            continue
        if (nested is not None and not nested) or key in data:
            return None  # a bare `key:` with nothing under it is null; a duplicate key
        if value is None:
            nested = data[key] = {}
        else:
            nested = None
            data[key] = value
    if not data or (nested is not None and not nested):
        return None
    return data


_OPENING = re.compile(rf"---[{JS_SPACE}]*\n")
_SPACES = re.compile(rf"[{JS_SPACE}]*")


def block_span(text: str, start: int) -> tuple[int, int, int] | None:
    """What `BLOCK.match(text, start)` finds, as (group start, group end, match end), with
    one `find` where the regex's lazy group tries `---` at every character. The group ends
    at the first `---` after the opening (what follows it always matches: spaces, perhaps
    none), and an opening that leaves no `---` after it leaves none after a shorter one
    (what it gave up is spaces)."""
    opening = _OPENING.match(text, start)
    if opening is None:
        return None
    close = text.find("---", opening.end())
    if close < 0:
        return None
    return opening.end(), close, _SPACES.match(text, close + 3).end()


def parse(text: str) -> Frontmatter:
    """The frontmatter of a memory file's text as Claude Code's memory scanner reads it,
    and the body after it."""
    start = 1 if text.startswith("\ufeff") else 0
    if not text.startswith("---", start):
        return Frontmatter(body=text)
    span = block_span(text, start)
    if (
        span is not None
        and text.find("\r", start, span[1]) < 0
        and (lines := text.count("\n", start, span[1])) < HEAD_LINES
    ):
        # The block closes within the scanner's 30 lines and holds no CR: the scanner's
        # view reads the same block.
        opened, closing, end = span
        block = text[opened:closing]
        body = text[end:]
        block_lines = lines + text.count("\n", closing, end)
    else:
        view, start, dropped = _scanner_view(text)
        span = block_span(view, 0)
        if span is None:
            return Frontmatter(body=text, unclosed=_OPENING.match(view) is not None)
        opened, closing, end = span
        block = view[opened:closing]
        body = text[_original_offset(text, start, view, end) if dropped else start + end :]
        block_lines = view.count("\n", 0, end)
    simple = _simple_mapping(block)
    if simple is not None:
        form = "nested" if "metadata" in simple else "flat"
        return Frontmatter(simple, body, form, True, None, False, block_lines)
    # YAML proper only for what the simple reading could not take (~2% of real blocks):
    # loading the parser costs ~12 ms.
    from tui.memory.yaml_js import YamlError, load

    retried = False
    try:
        data = load(block)
    except YamlError:
        retried = True
        quoted = quote_special_values(block)
        data = _simple_mapping(quoted)  # the quoting often leaves the simple shape
        if data is None:
            try:
                data = load(quoted)
            except YamlError as error:
                return Frontmatter(
                    body=body, present=True, error=str(error), retried=True,
                    block_lines=block_lines,
                )
    if not isinstance(data, dict):
        data = {}
    form = "nested" if "metadata" in data else ("flat" if data else "empty")
    return Frontmatter(data, body, form, True, None, retried, block_lines)


HEAD_LIMIT = 1 << 20  # a head is never read past this: a file may hold no line break at all


def read_head(source, max_lines: int = HEAD_LINES) -> bytes:
    """The first `max_lines` lines of a file (a path, or an open descriptor left open), at
    most HEAD_LIMIT bytes; a path that is no regular file is an OSError (`claude.files`)."""
    chunks: list[bytes] = []
    newlines = read = 0
    if isinstance(source, int):
        handle = open(source, "rb", closefd=False)  # noqa: SIM115 - closed below
    else:
        handle = open_binary(source)
    with handle:
        while newlines < max_lines and read < HEAD_LIMIT:
            chunk = handle.read(8192)
            read += len(chunk)
            if not chunk:
                break
            chunks.append(chunk)
            newlines += chunk.count(b"\n")
    data = b"".join(chunks)
    if newlines >= max_lines:
        cut = -1
        for _ in range(max_lines):
            cut = data.index(b"\n", cut + 1)
        data = data[: cut + 1]
    return data
