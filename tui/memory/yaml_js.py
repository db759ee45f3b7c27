"""YAML as the npm `yaml` package reads it, for memory frontmatter.

libyaml (through PyYAML) tokenizes the block; the values are built here from its events
the way `yaml.parse` builds them with its defaults. Where libyaml and the package disagree
on syntax, checks on the events (indentation of continued quoted and flow values, a comment
stuck to a value, overlong keys, a lone `-` in a flow sequence) and repairs of the text
(tab-only lines, a left-out key, anchor names, characters libyaml refuses) bring libyaml to
the package's answer. Values: YAML 1.2 core schema (`yes`, `on`, `12:34` and dates are
text; `0o17` and `0x1F` are numbers), a duplicated key is an error, `<<` is an ordinary
key, an anchor may be set again, an unknown tag leaves the text, and mapping keys become
JavaScript property names (`true`, `1`, `""` for null).
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

import yaml


class YamlError(ValueError):
    """The block is YAML that `yaml.parse` throws on."""


_EventLoader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)

_CORE_NULL = re.compile(r"(?:~|[Nn]ull|NULL)?")
_CORE_BOOL = re.compile(r"[Tt]rue|TRUE|[Ff]alse|FALSE")
_CORE_OCT = re.compile(r"0o[0-7]+")
_CORE_INT = re.compile(r"[-+]?[0-9]+")
_CORE_HEX = re.compile(r"0x[0-9a-fA-F]+")
_CORE_NAN = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN")
_CORE_EXP = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+")
_CORE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)")
_TAG = "tag:yaml.org,2002:"

# Characters libyaml refuses (controls, non-characters) or reads as line breaks (NEL, LS,
# PS) or skips (a BOM), where the npm package reads them as text. They are swapped for
# private-use characters of plane 16 while libyaml reads, and swapped back in the values.
_LIBYAML_ODD = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]|\r(?!\n)"
)
_PLANE_16 = re.compile("[\U00100000-\U0010ffff]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SHIFT = 0x100000


@cache
def _restore_table() -> dict[int, int]:
    return {_SHIFT + code: code for code in range(0x10000)}


def _core_null(value: str) -> tuple[bool, Any]:
    return (True, None) if _CORE_NULL.fullmatch(value) else (False, None)


def _core_bool(value: str) -> tuple[bool, Any]:
    return (True, value[0] in "tT") if _CORE_BOOL.fullmatch(value) else (False, None)


def _core_int(value: str) -> tuple[bool, Any]:
    if _CORE_OCT.fullmatch(value):
        return True, _js_int(int(value[2:], 8))
    if _CORE_INT.fullmatch(value):
        try:
            return True, _js_int(int(value))
        except ValueError:  # past Python's digit limit: JavaScript's parseInt overflows
            return True, -math.inf if value[0] == "-" else math.inf
    if _CORE_HEX.fullmatch(value):
        return True, _js_int(int(value[2:], 16))
    return False, None


def _js_int(number: int) -> int | float:
    """An integer as the package holds it: past a double's range parseInt gives Infinity
    (and Python could not even write it as text)."""
    double = _as_double(number)
    return double if math.isinf(double) else number


def _core_float(value: str) -> tuple[bool, Any]:
    if _CORE_NAN.fullmatch(value):
        if value[-3:].lower() == "nan":
            return True, math.nan
        return True, -math.inf if value[0] == "-" else math.inf
    if _CORE_EXP.fullmatch(value) or _CORE_FLOAT.fullmatch(value):
        return True, float(value)
    return False, None


_BY_TAG = {
    _TAG + "null": _core_null,
    _TAG + "bool": _core_bool,
    _TAG + "int": _core_int,
    _TAG + "float": _core_float,
}


def _plain_scalar(value: str) -> Any:
    """An untagged plain scalar, resolved by the core schema (first test that matches)."""
    first = value[:1]
    if first in "~nNtTfF" or not first:
        for resolve in (_core_null, _core_bool):
            matched, result = resolve(value)
            if matched:
                return result
    if first in "0123456789+-.":
        for resolve in (_core_int, _core_float):
            matched, result = resolve(value)
            if matched:
                return result
    return value


def _tagged_scalar(tag: str, value: str) -> Any:
    """A scalar with an explicit tag: a core tag whose test the text passes, else the text
    (the package warns about the tag and keeps the string)."""
    resolve = _BY_TAG.get(tag)
    if resolve is not None:
        matched, result = resolve(value)
        if matched:
            return result
    return value


def js_number_text(number: float) -> str:
    """JavaScript's String(number)."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    mantissa, _, exponent = repr(abs(number)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    count = len(digits)
    if count <= point <= 21:
        return sign + digits + "0" * (point - count)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * -point + digits
    power = point - 1
    power_text = f"e{'+' if power > 0 else '-'}{abs(power)}"
    if count == 1:
        return sign + digits + power_text
    return sign + digits[0] + "." + digits[1:] + power_text


def _as_double(number: int | float) -> float:
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def _flow_text(value: Any) -> str:
    """A collection used as a mapping key, as the package writes it (simple values only)."""
    if isinstance(value, list):
        return "[ " + ", ".join(_flow_text(item) for item in value) + " ]" if value else "[]"
    if isinstance(value, dict):
        pairs = ", ".join(f"{key}: {_flow_text(item)}" for key, item in value.items())
        return "{ " + pairs + " }" if value else "{}"
    return js_key(value)


def js_key(key: Any) -> str:
    """The property name a mapping key becomes in the package's JavaScript object."""
    if isinstance(key, str):
        return key
    if key is None:
        return ""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int | float):
        return js_number_text(_as_double(key))
    return _flow_text(key)


def _key_identity(key: Any) -> tuple | None:
    """What the package's duplicate-key check compares (`===` on scalar values); None for a
    key that never counts as a duplicate (NaN)."""
    if key is None:
        return ("null",)
    if isinstance(key, bool):
        return ("bool", key)
    if isinstance(key, int | float):
        number = _as_double(key)
        return None if math.isnan(number) else ("number", number)
    return ("string", key)


MAX_ALIAS_COUNT = 100  # the package's `maxAliasCount` default


class _Anchor:
    """An anchored node as the package counts its aliases (its `AnchorData`): an alias
    bomb, nine aliases of nine aliases of ..., is refused before it is built.

    A node's alias shape is 1 for a scalar, the tuple of its children's shapes for a
    collection (keys and values alike), and the `_Anchor` itself for an alias."""

    def __init__(self, shape: Any) -> None:
        self.shape = shape
        self.count = 1  # the anchor itself, then one per alias
        self.alias_count = 0  # computed at its first alias, as the package does

    def resolve(self) -> _Anchor:
        """Count one alias of this node; YamlError where `yaml.parse` throws."""
        self.count += 1
        if self.alias_count == 0:
            self.alias_count = _alias_count(self.shape)
        if self.count * self.alias_count > MAX_ALIAS_COUNT:
            raise YamlError("Excessive alias count indicates a resource exhaustion attack")
        return self


def _alias_count(shape: Any) -> int:
    """The package's getAliasCount: an alias weighs its anchor's count times its alias
    count, a collection its heaviest child (0 when empty), a scalar 1."""
    if isinstance(shape, _Anchor):
        return shape.count * shape.alias_count
    if isinstance(shape, tuple):
        return max(map(_alias_count, shape), default=0)
    return 1


class _Builder:
    """JavaScript-like values from libyaml's events for one block, and the checks where the
    npm package is stricter than libyaml (line numbers and columns come from the events)."""

    def __init__(self, loader: Any, block: str, restore: dict[int, int] | None) -> None:
        self.loader = loader
        self.lines = block.split("\n")
        self.restore = restore
        self.anchors: dict[str, Any] = {}
        # The package's guard against alias bombs needs the shape of anchored nodes; there
        # is none to track without an alias.
        self.aliases: dict[str, _Anchor] | None = {} if "*" in block else None
        self.shape: Any = None  # the alias shape of the node built last (see `_Anchor`)
        self.block_columns: list[int] = []  # the columns of the enclosing block collections
        self.flow_depth = 0
        self.in_flow_sequence: list[bool] = []
        self.repaired_lines: frozenset[int] = frozenset()  # lines changed before reading
        self.scalar_lines: set[int] = set()  # lines inside a multi-line scalar

    def document(self) -> Any:
        loader = self.loader
        loader.get_event()  # stream start
        if loader.check_event(yaml.StreamEndEvent):
            return None
        loader.get_event()  # document start
        value = self.node()
        loader.get_event()  # document end
        if not loader.check_event(yaml.StreamEndEvent):
            raise YamlError("Source contains multiple documents")
        if self.repaired_lines & self.scalar_lines:
            raise YamlError("a line inside a multi-line value is less indented than the value")
        return value

    def node(self, key_of_block_map: bool = False) -> Any:
        event = self.loader.get_event()
        if isinstance(event, yaml.AliasEvent):
            if event.anchor not in self.anchors:
                raise YamlError(f"Unresolved alias: {event.anchor}")
            if self.aliases is not None:
                self.shape = self.aliases[event.anchor].resolve()
            return self.anchors[event.anchor]
        shapes: list[Any] | None = None if self.aliases is None else []
        if isinstance(event, yaml.ScalarEvent):
            text = event.value if self.restore is None else event.value.translate(self.restore)
            if event.tag is None:
                value = text if event.style else _plain_scalar(text)
                if text == "-" and not event.style and self.in_flow_sequence[-1:] == [True]:
                    raise YamlError("Block collections are not allowed within flow collections")
            else:
                value = _tagged_scalar(event.tag, text)
            start, end = event.start_mark, event.end_mark
            if end.line > start.line:
                self.scalar_lines.update(range(start.line + 1, end.line + 1))
                if event.style in ('"', "'"):
                    self._check_quoted_lines(start.line, end.line)
            if event.style in ('"', "'"):
                self._check_comment_after(end)
            if key_of_block_map:
                self._check_key_length(start, end)
        elif isinstance(event, yaml.SequenceStartEvent):
            value = []
            self._open(event)
            while not self.loader.check_event(yaml.SequenceEndEvent):
                value.append(self.node())
                if shapes is not None:
                    shapes.append(self.shape)
            self._close(event, self.loader.get_event())
        else:  # a mapping
            value = {}
            seen: set[tuple] = set()
            self._open(event)
            block = not event.flow_style
            while not self.loader.check_event(yaml.MappingEndEvent):
                counts = self.loader.check_event(yaml.ScalarEvent)  # not an alias, not a collection
                key = self.node(key_of_block_map=block)
                if counts:
                    identity = _key_identity(key)
                    if identity is not None:
                        if identity in seen:
                            raise YamlError(f"Map keys must be unique: {js_key(key)!r}")
                        seen.add(identity)
                if shapes is not None:
                    shapes.append(self.shape)
                value[js_key(key)] = self.node()
                if shapes is not None:
                    shapes.append(self.shape)
            self._close(event, self.loader.get_event())
        if shapes is not None:
            self.shape = 1 if isinstance(event, yaml.ScalarEvent) else tuple(shapes)
            if event.anchor is not None:
                self.aliases[event.anchor] = _Anchor(self.shape)
        if event.anchor is not None:
            self.anchors[event.anchor] = value
        return value

    def _indent_next(self) -> int:
        """The package's minimum indentation for a continuation line here: one more than
        the column of the innermost block collection (0 at the top: no minimum)."""
        return self.block_columns[-1] + 1 if self.block_columns else 0

    def _open(self, event: Any) -> None:
        if event.flow_style:
            self.flow_depth += 1
            self.in_flow_sequence.append(isinstance(event, yaml.SequenceStartEvent))
        else:
            self.block_columns.append(event.start_mark.column)

    def _close(self, start: Any, end: Any) -> None:
        if not start.flow_style:
            self.block_columns.pop()
            return
        self.flow_depth -= 1
        self.in_flow_sequence.pop()
        self._check_comment_after(end.end_mark)
        if self.flow_depth == 0 and end.end_mark.line > start.start_mark.line:
            self._check_flow_lines(start.start_mark.line, end.end_mark)

    def _check_quoted_lines(self, first: int, last: int) -> None:
        """A quoted scalar's next lines must be blank or indented to the minimum."""
        minimum = self._indent_next()
        if minimum == 0:
            return
        for number in range(first + 1, last + 1):
            line = self.lines[number]
            rest = line.lstrip(" ")
            if rest not in ("", "\r") and len(line) - len(rest) < minimum:
                raise YamlError(f"Missing closing quote: line {number + 1} is not indented enough")

    def _check_flow_lines(self, first: int, end_mark: Any) -> None:
        """A flow collection's next lines must be indented to the minimum (a comment line,
        and the closing bracket one column less, excepted)."""
        minimum = self._indent_next()
        if minimum == 0:
            return
        for number in range(first + 1, end_mark.line + 1):
            line = self.lines[number]
            spaces = len(line) - len(line.lstrip(" "))
            rest = line.lstrip(" \t")
            if not rest or rest == "\r" or rest[0] == "#" or spaces >= minimum:
                continue
            closing = (number == end_mark.line and spaces == minimum - 1
                       and rest[0] in "]}" and end_mark.column == len(line) - len(rest) + 1)
            if not closing:
                raise YamlError(f"Flow collection line {number + 1} is not indented enough")

    def _check_comment_after(self, mark: Any) -> None:
        line = self.lines[mark.line] if mark.line < len(self.lines) else ""
        if line[mark.column : mark.column + 1] == "#":
            raise YamlError("Comments must be separated from other tokens by white space")

    def _check_key_length(self, start: Any, end: Any) -> None:
        if end.line != start.line:
            return
        line = self.lines[start.line]
        colon = line.find(":", end.column)
        if colon - start.column > 1024:
            raise YamlError("The : indicator must be at most 1024 chars after the start of an "
                            "implicit block mapping key")


# Lines libyaml stops at where the package reads on: blank or comment lines with a tab
# before any text (read as blank), and a key left out (`: value`, read as a null key).
_TAB_BLANK = re.compile(r"[ ]*\t[ \t]*(?:#.*)?")
_EMPTY_KEY = re.compile(r"((?: *- +)* *):(?=[ \t]|$)")
_EMPTY_VALUE = re.compile(r"( *)\S.*:[ \t]*")
# A block holding nothing but one document end marker, comments and blank lines: null.
_ONLY_COMMENTS = re.compile(r"[ \t]*(?:#.*)?")
_DOCUMENT_END = re.compile(r"\.\.\.(?:[ \t]+#.*|[ \t]*)")


def _read(block: str, restore: dict[int, int] | None, repaired: frozenset[int]) -> Any:
    loader = _EventLoader(block)
    try:
        builder = _Builder(loader, block, restore)
        builder.repaired_lines = repaired
        return builder.document()
    except yaml.YAMLError as error:
        raise YamlError(_yaml_error_text(error)) from None
    except RecursionError:
        raise YamlError("collections nested too deeply") from None
    finally:
        loader.dispose()


def _yaml_error_text(error: yaml.YAMLError) -> str:
    problem = getattr(error, "problem", None)
    mark = getattr(error, "problem_mark", None)
    if problem and mark is not None:
        return f"{problem} (line {mark.line + 1}, column {mark.column + 1})"
    text = str(error)
    return text.splitlines()[0] if text else "invalid YAML"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _repair(lines: list[str]) -> dict[int, str]:
    """The lines to change so that libyaml reads what the package reads."""
    repairs: dict[int, str] = {}
    for number, line in enumerate(lines):
        if _TAB_BLANK.fullmatch(line):
            previous = lines[number - 1] if number else ""
            after = next((other for other in lines[number + 1 :] if other.strip(" \t")), None)
            if (
                "#" not in line
                and _EMPTY_VALUE.fullmatch(previous)
                and after is not None
                and _indent(after) <= _indent(previous)
                and not (_indent(after) == _indent(previous) and after.lstrip(" ").startswith("- "))
            ):
                raise YamlError("Tabs are not allowed as indentation")
            repairs[number] = ""
        else:
            match = _EMPTY_KEY.match(line)
            if match:
                repairs[number] = f"{match.group(1)}~{line[match.end(1):]}"
    return repairs


_ANCHOR_NAME = re.compile(r"[^\s,\[\]{}]+")
# An `&` or `*` whose name, as the package reads it, holds a character libyaml's does not.
_ODD_ANCHOR = re.compile(r"[&*][A-Za-z0-9_-]*[^A-Za-z0-9_\s,\[\]{}-]")


def _rename_anchors(block: str) -> str:
    """The block with anchor and alias names renamed where libyaml ends a name earlier than
    the package does (the package takes any run of characters up to a space or a flow
    indicator: `&&x`, `&a.b`, `&x:y`), so that libyaml reads the names the package reads."""
    names: dict[str, str] = {}
    for _ in range(50):
        lines = block.split("\n")
        renamed = None
        loader = _EventLoader(block)
        try:
            while renamed is None and not loader.check_token(yaml.StreamEndToken):
                token = loader.get_token()
                if isinstance(token, yaml.AnchorToken | yaml.AliasToken):
                    mark = token.start_mark
                    name = _ANCHOR_NAME.match(lines[mark.line], mark.column + 1)
                    if name is not None and name.group() != token.value:
                        renamed = mark.line, name
        except yaml.YAMLError as error:  # libyaml refused the name itself
            mark = getattr(error, "context_mark", None)
            if mark is not None and getattr(error, "context", None) in (
                "while scanning an anchor", "while scanning an alias"
            ):
                name = _ANCHOR_NAME.match(lines[mark.line], mark.column + 1)
                if name is not None:
                    renamed = mark.line, name
        finally:
            loader.dispose()
        if renamed is None:
            return block
        number, name = renamed
        safe = names.setdefault(name.group(), f"memtui{len(names)}")
        line = lines[number]
        lines[number] = line[: name.start()] + safe + line[name.end() :]
        block = "\n".join(lines)
    return block


def load(block: str) -> Any:
    """What `yaml.parse(block)` returns, in Python values; YamlError where it throws."""
    if block.startswith("\ufeff"):
        block = block[1:]  # the package drops a byte-order mark opening the stream
    restore = None
    if _LIBYAML_ODD.search(block):
        if not _PLANE_16.search(block):
            block = _LIBYAML_ODD.sub(lambda m: chr(_SHIFT + ord(m.group())), block)
            restore = _restore_table()
        else:  # no room to swap: a lone surrogate (only a str from Python has one) is U+FFFD
            block = _LONE_SURROGATE.sub("\ufffd", block)
    if _ODD_ANCHOR.search(block):
        block = _rename_anchors(block)
    try:
        return _read(block, restore, frozenset())
    except YamlError as error:
        first_error = error
        lines = block.split("\n")
        ends = [n for n, line in enumerate(lines) if _DOCUMENT_END.fullmatch(line)]
        if ends and all(n in ends or _ONLY_COMMENTS.fullmatch(line) for n, line in enumerate(lines)):
            if len(ends) > 1:
                raise YamlError("Source contains multiple documents") from None
            return None
        repairs = _repair(lines)
        if not repairs:
            raise first_error from None
        lines = [repairs.get(n, line) for n, line in enumerate(lines)]
        return _read("\n".join(lines), restore, frozenset(repairs))
