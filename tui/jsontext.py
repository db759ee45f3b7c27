"""JSON through orjson where it gives what the json module would: memtui's output is
indented (the json module indents in Python) and its caches are megabytes. Small data stays
with the json module: importing orjson (and the datetime, uuid and dataclasses it loads)
costs more than it saves below a few hundred items."""

from __future__ import annotations

import json
import re

SMALL_BYTES = 256 << 10  # a cache file this small is read by the json module
SMALL_ITEMS = 200  # data with fewer items in its first two levels is written by it


def load_json(data: bytes) -> object:
    """`json.loads`; ValueError when it is not JSON. orjson refuses escaped lone surrogates
    (an undecodable file name kept by the json module): those are read by the json module.
    One difference: from a big file, an integer outside 64 bits comes back as a float
    (orjson's reading); memtui's caches hold stat fields and counts, all within."""
    if len(data) >= SMALL_BYTES:
        import orjson

        try:
            return orjson.loads(data)
        except ValueError:
            pass
    return json.loads(data.decode("utf-8", "surrogateescape"))


def compact_json(data: object) -> bytes:
    """JSON with no spaces, as UTF-8; what orjson refuses (lone surrogates, integers past 64
    bits) written ASCII-only by the json module."""
    if not _is_small(data):
        import orjson

        try:
            return orjson.dumps(data)
        except TypeError:
            pass
    return json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def _is_small(data: object) -> bool:
    """Whether `data` has fewer than SMALL_ITEMS items in its first two levels."""
    if not isinstance(data, (list, dict)):
        return True
    children = data.values() if isinstance(data, dict) else data
    items = len(data)
    for child in children:
        if isinstance(child, (list, dict)):
            items += len(child)
            if items >= SMALL_ITEMS:
                return False
    return items < SMALL_ITEMS


def json_text(data: object) -> str:
    """`json.dumps(data, indent=2, ensure_ascii=False)`, made by orjson when it gives the
    same text: Python's encoder runs in Python once it indents (0.2 s for a whole tree's
    audit). orjson refuses what it cannot write the same way (lone surrogates from
    undecodable file names, integers past 64 bits) and writes a float under 1e-4 its own
    way (`0.00001` for `1e-05`, `6e-8` for `6e-08`): those go to the json module. The one
    difference left: a NaN or an infinity (only a hand-edited record could hold one) is
    written as `null`, where the json module wrote `NaN`, which is not JSON."""
    if _is_small(data):
        try:
            return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
        except ValueError:
            pass  # a NaN: written as orjson writes it, whatever the size
    return _orjson_text(data)


def long_json_utf8(data: object) -> bytes | None:
    """`json_text(data)` as UTF-8, when orjson made it: for long data, whose megabytes
    need no decoding and encoding again on their way out. None otherwise."""
    return None if _is_small(data) else _orjson_utf8(data)


def _orjson_text(data: object) -> str:
    utf8 = _orjson_utf8(data)
    return json.dumps(data, indent=2, ensure_ascii=False) if utf8 is None else utf8.decode()


def _orjson_utf8(data: object) -> bytes | None:
    """orjson's indented text, or None where it is not the json module's (see json_text)."""
    import orjson

    try:
        text = orjson.dumps(data, option=orjson.OPT_INDENT_2)
    except TypeError:
        return None
    return None if _may_hold_small_float(text) else text


def _may_hold_small_float(text: bytes) -> bool:
    """Whether orjson's text holds a float under 1e-4 (`1e-05`, `6e-8`, `0.00001`).

    Indented, a number stands after a space or at the start, and before a line end (a
    comma between) or the end; a string never holds a raw line end, so `1e-4b` in a uuid
    or `2e-5, ` in a sentence is no number. Each search starts with a literal, which the
    regex engine finds at the speed of a bytes search."""
    for match in _EXPONENT_TAIL.finditer(text):
        at = match.start()
        if at and text[at - 1] in _DIGITS and _token_after_space(text, at):
            return True
    return any(_token_after_space(text, match.start()) for match in _ZEROS_TAIL.finditer(text))


_EXPONENT_TAIL = re.compile(rb"e-[0-9]+(?=,?\n|\Z)")
_ZEROS_TAIL = re.compile(rb"0\.0000[0-9]*(?=,?\n|\Z)")
_DIGITS = frozenset(b"0123456789")
_NUMBER_BYTES = frozenset(b"0123456789.+-e")


def _token_after_space(text: bytes, at: int) -> bool:
    """Whether the number-like bytes around `at` start the text or follow a space."""
    while at and text[at - 1] in _NUMBER_BYTES:
        at -= 1
    return at == 0 or text[at - 1] == 32
