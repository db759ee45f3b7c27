"""Memory-file frontmatter, read the way Claude Code reads it.

Three forms exist on real disks: none, flat (`name`, `description`, `type`) and nested
(`metadata:` holding `type` and friends). The block is `^---\\s*\\n(...)---\\s*\\n?`; a YAML
error is retried once after quoting values with special characters; a non-mapping is
empty. Reading never rewrites a file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

BLOCK = re.compile(r"^---\s*\n([\s\S]*?)---\s*\n?")
MEMORY_TYPES = ("user", "feedback", "project", "reference")
HEAD_LINES = 30

_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe YAML that leaves dates as the text they were written as."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regex) for tag, regex in resolvers if tag != _TIMESTAMP_TAG]
    for first, resolvers in _Loader.yaml_implicit_resolvers.items()
}

_NEEDS_QUOTES = re.compile(r"[:#\[\]{}&*!|>'\"%@`,?]")
_KEY_VALUE = re.compile(r"^(\s*[^\s:#][^:]*?):[ \t]+(.+?)\s*$")


@dataclass(frozen=True)
class Frontmatter:
    data: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    form: str = "none"  # "none", "flat", "nested", or "empty" (a block with no mapping)
    present: bool = False
    error: str | None = None  # the YAML error when even the retry failed
    retried: bool = False  # parsed only after quoting values
    block_lines: int = 0

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
    """Wrap `key: value` values holding YAML-special characters in double quotes."""
    out = []
    for line in block.split("\n"):
        match = _KEY_VALUE.match(line)
        if match:
            key, value = match.groups()
            already_quoted = value[:1] in {'"', "'"} and value[-1:] == value[:1]
            if not already_quoted and _NEEDS_QUOTES.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{key}: "{escaped}"'
        out.append(line)
    return "\n".join(out)


def _load(block: str) -> Any:
    return yaml.load(block, Loader=_Loader)  # noqa: S506 - a safe loader


# The common case, parsed without YAML: `key: value` lines and one level of two-space
# indented `key: value` lines under a bare `key:`. A value qualifies only where YAML would
# read it the same: a plain string (ASCII starting with a letter, no `:` or `#`, no trailing
# space, not a YAML 1.1 boolean or null), a UUID, an ISO timestamp (we load timestamps as
# text), a decimal integer without a leading zero, or a quoted string without escapes or
# line breaks. Anything else, a key included, goes to YAML.
_PLAIN = r'[A-Za-z](?:[ !"$-9;-~]*[!"$-9;-~])?'
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_ISO_TIME = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?Z"
_INTEGER = r"0|[1-9][0-9]{0,17}"
# Printable characters that are not YAML line breaks, as YAML reads them inside quotes.
_UNICODE = r"\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff"
_DOUBLE_QUOTED = rf'"([\t !#-\[\]-~{_UNICODE}]*)"'  # no `"`, no `\`
_SINGLE_QUOTED = rf"'([\t -&(-~{_UNICODE}]*)'"  # no `'`
_SIMPLE_LINE = re.compile(
    rf"(  )?([A-Za-z_][A-Za-z0-9_]*):"
    rf"(?: (?:({_PLAIN}|{_UUID}|{_ISO_TIME})|({_INTEGER})|{_DOUBLE_QUOTED}|{_SINGLE_QUOTED})| ?)"
)
_YAML_WORDS = frozenset({"yes", "no", "true", "false", "on", "off", "null", "y", "n"})


def _is_yaml_word(text: str) -> bool:
    return len(text) <= 5 and text.lower() in _YAML_WORDS


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
        if _is_yaml_word(key) or (plain is not None and _is_yaml_word(plain)):
            return None
        value: Any = plain
        if integer is not None:
            value = int(integer)
        elif double is not None or single is not None:
            value = double if double is not None else single
        if indent:
            if nested is None or value is None:
                return None
            nested[key] = value
            continue
        if nested is not None and not nested:
            return None  # a bare `key:` with nothing under it is null in YAML
        if value is None:
            nested = data[key] = {}
        else:
            nested = None
            data[key] = value
    if not data or (nested is not None and not nested):
        return None
    return data


def parse(text: str) -> Frontmatter:
    match = BLOCK.match(text)
    if not match:
        return Frontmatter(body=text)
    block = match.group(1)
    body = text[match.end() :]
    block_lines = text[: match.end()].count("\n")
    retried = False
    simple = _simple_mapping(block)
    if simple is not None:
        form = "nested" if "metadata" in simple else "flat"
        return Frontmatter(simple, body, form, True, None, False, block_lines)
    try:
        data = _load(block)
    except yaml.YAMLError:
        retried = True
        try:
            data = _load(quote_special_values(block))
        except yaml.YAMLError as error:
            first = str(error).splitlines()[0] if str(error) else "invalid YAML"
            return Frontmatter(
                body=body, present=True, error=first, retried=True, block_lines=block_lines
            )
    if not isinstance(data, dict):
        data = {}
    data = {str(k): v for k, v in data.items()}
    form = "nested" if "metadata" in data else ("flat" if data else "empty")
    return Frontmatter(data, body, form, True, None, retried, block_lines)


def read_head(source, max_lines: int = HEAD_LINES) -> bytes:
    """The first `max_lines` lines of a file (a path, or an open descriptor left open)."""
    chunks: list[bytes] = []
    newlines = 0
    with open(source, "rb", closefd=not isinstance(source, int)) as handle:
        while newlines < max_lines:
            chunk = handle.read(8192)
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
