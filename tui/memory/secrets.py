"""Credentials pasted into memory: found with detect-secrets' rules and memtui's own,
never printed.

Memory files are loaded into every session's context, and get copied, backed up and
synced: a token in one is a leak waiting to happen. The rules are detect-secrets' own
pattern detectors (GitHub, GitLab, AWS, Slack, Stripe, OpenAI, npm, PyPI, JWT, private
keys, credentials in URLs, and more), maintained upstream, plus memtui's own (see
tui/memory/secret_shapes.py): provider keys detect-secrets does not know, Anthropic's first,
and the labelled passwords and keys people write in notes. A match is a secret only when
its value is a credential, not a placeholder, a reference or a word.

Importing detect-secrets takes most of a second, so its patterns are read once per
installed version and kept in the cache dir; an audit then compiles them from there. A
line is tried against them only when one RE2 pattern built from them all says it could match.
"""

from __future__ import annotations

import codecs
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache

from tui import xdg
from tui.claude.files import read_text, replace_cache_file
from tui.claude.lines import split_lines
from tui.memory.secret_shapes import (
    LABEL_SCREEN,
    LABELLED_KINDS,
    keyword_candidates,
    own_rules,
    secret_span,
)

# Detectors whose "secret" is not one (a public IP address) or that need context we lack.
_SKIPPED = {"Public IP (ipv4)"}
# Something a rule could match at all: a long token-like run, a key block, a URL password,
# a label word.
_CANDIDATE = re.compile(r"[A-Za-z0-9_\-+/=.]{16,}|PRIVATE KEY|PuTTY-User-Key|://[^\s/@:]+:[^\s/@]+@|"
                        + keyword_candidates())


@dataclass(frozen=True)
class SecretHit:
    kind: str  # detect-secrets' name for it, e.g. "GitHub Token"
    line: int  # 1-based
    start: int  # the secret's span in that line, for redacting
    end: int


def _rules_from_detect_secrets() -> list[tuple[str, str, int]]:
    import importlib
    import pkgutil

    import detect_secrets.plugins as plugins
    from detect_secrets.plugins.base import RegexBasedDetector

    rules: list[tuple[str, str, int]] = []
    for module in pkgutil.iter_modules(plugins.__path__):
        loaded = importlib.import_module(f"detect_secrets.plugins.{module.name}")
        for value in vars(loaded).values():
            if (isinstance(value, type) and issubclass(value, RegexBasedDetector)
                    and value is not RegexBasedDetector and value.secret_type not in _SKIPPED):
                rules.extend((value.secret_type, pattern.pattern, pattern.flags)
                             for pattern in value.denylist)
    return sorted(set(rules))


@cache
def rules() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(kind, compiled pattern) for every rule, read from the cache when it is current."""
    from tui.installed import installed_version

    installed = installed_version("detect-secrets")
    if installed is None:
        return ()
    cached = xdg.cache_dir() / f"secret-rules-{installed}.json"
    try:
        raw = json.loads(read_text(cached))
        if not _rule_list(raw):
            raise ValueError("damaged rule cache")
    except (OSError, ValueError, RecursionError):
        raw = _rules_from_detect_secrets()
        replace_cache_file(os.fspath(cached), json.dumps(raw).encode())
    compiled = []
    for kind, pattern, flags in [*raw, *own_rules()]:
        try:
            compiled.append((kind, re.compile(pattern, flags & ~re.UNICODE)))
        except (re.error, TypeError, ValueError, OverflowError):
            continue
    return tuple(compiled)


def _rule_list(raw: object) -> bool:
    """[kind, pattern, flags] triples, as the cache is written (anything else: rebuilt)."""
    return isinstance(raw, list) and all(
        isinstance(rule, list) and len(rule) == 3 and isinstance(rule[0], str)
        and isinstance(rule[1], str) and type(rule[2]) is int for rule in raw
    )


def find_secrets(text: str) -> Iterator[SecretHit]:
    """Every credential in `text`, one hit per line and kind.

    The rules are Python patterns, and trying all of them on every line of a 50 MB index
    takes tens of seconds. So the text is screened first, a quarter megabyte of whole lines
    at a time, with one RE2 pattern that matches wherever a provider's rule could (see
    `_screen`); only the lines of a block it picks are screened one by one. The labels
    (`password:`) are words prose uses on most lines, so their rules are searched for in the
    whole block at once instead (see `_label_lines`). The lines either picks are tried
    against the rules."""
    screen = _screen()
    number = 1  # of the block's first line
    position = 0
    while position <= len(text):
        end = text.find("\n", position + _SCREEN_BLOCK)
        end = len(text) if end < 0 else end
        block = text[position:end]
        lines = split_lines(block)
        labelled = _label_lines(block)
        provider = ({offset for offset, line in enumerate(lines) if screen(line)}
                    if screen(block) else set())
        for offset in sorted(labelled.keys() | provider):
            following = (lines[offset + 1] if offset + 1 < len(lines)
                         else text[end + 1:text.find("\n", end + 1) % (len(text) + 1)])
            yield from _hits(number + offset, lines[offset], following,
                             provider=offset in provider, label_starts=labelled.get(offset, []))
        number += len(lines)
        position = end + 1


_SCREEN_BLOCK = 1 << 18  # characters screened together before they are screened line by line
SCREEN_MEMORY = 32 << 20  # bytes RE2 may use for the screen (its DFA's states)


def screened(texts: Iterable[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """The (name, text) pairs in which a rule could match, in order. Small texts are screened
    together, joined by line breaks (a rule matching a line of one matches the joined
    block), so a store of clean memories costs one screen, not one per memory."""
    def screen(text: str) -> bool:
        return _screen()(text) or next(_label_finder()(text), None) is not None

    batch: list[tuple[str, str]] = []
    size = 0
    for name, text in texts:
        if size + len(text) > _SCREEN_BLOCK and batch:
            if screen("\n".join(text for _, text in batch)):
                yield from batch
            batch, size = [], 0
        if len(text) > _SCREEN_BLOCK:
            yield name, text  # find_secrets screens it a block at a time
            continue
        batch.append((name, text))
        size += len(text) + 1
    if batch and screen("\n".join(text for _, text in batch)):
        yield from batch


# Longest first: a UTF-32 LE BOM starts with the UTF-16 LE one.
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
         (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
         (codecs.BOM_UTF16_BE, "utf-16-be"))


def readings(data: bytes) -> list[str]:
    """Every text a file's bytes may be read as: by their BOM (UTF-8, UTF-16 or UTF-32),
    else as UTF-8; bytes holding a NUL are read as UTF-16 too (a text written so without
    a BOM). Undecodable bytes are replaced, never a reason to read nothing."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return [data[len(bom):].decode(codec, "replace")]
    texts = [data.decode("utf-8", "replace")]
    if b"\0" in data:
        texts += [data.decode(codec, "replace") for codec in ("utf-16-le", "utf-16-be")]
    return texts


def first_secret_in_bytes(data: bytes) -> SecretHit | None:
    """The first credential in a file's bytes, however they are encoded (`readings`)."""
    return next((hit for text in readings(data) for hit in find_secrets(text)), None)


def _hits(number: int, line: str, following: str, *, provider: bool,
          label_starts: list[int]) -> Iterator[SecretHit]:
    """The line's secrets, one per kind; a labelled one only where no provider rule found
    the same value (`token: ghp_…` is a GitHub token, said once). The provider rules are
    tried if the screen picked the line, the labelled ones only where the label search
    found a label (three times faster than searching the line)."""
    found: dict[str, tuple[int, int]] = {}
    for kind, pattern in rules():
        is_labelled = kind in LABELLED_KINDS
        if kind in found or not (label_starts if is_labelled else provider):
            continue
        matches = (filter(None, (pattern.match(line, start) for start in label_starts))
                   if is_labelled else pattern.finditer(line))
        for match in matches:
            span = secret_span(kind, match, line, following)
            if span is None:
                continue
            if kind in LABELLED_KINDS and any(
                    start < span[1] and span[0] < end for start, end in found.values()):
                break
            found[kind] = span
            yield SecretHit(kind, number, *span)
            break


@cache
def _screen() -> Callable[[str], bool]:
    """A test that is true for any text where a provider's rule could match, and fast.

    Every such rule, its lookarounds dropped (they only narrow a match), joined into one RE2
    pattern with `^` and `$` at line ends: a rule matching a line matches the block it is
    in. RE2 scans in linear time where Python's re retries a pattern at every position
    (2 s against 0.16 s on a 50 MB index). If RE2 cannot read a rule, or a text holds a
    lone surrogate RE2's UTF-8 cannot, the token-like pre-check `_CANDIDATE` decides."""
    def candidate(text: str) -> bool:
        return _CANDIDATE.search(text) is not None

    compiled = _re2_union([pattern for kind, pattern in rules() if kind not in LABELLED_KINDS])
    if compiled is None:
        return candidate

    def screen(text: str) -> bool:
        try:
            return compiled.search(text) is not None
        except UnicodeEncodeError:
            return candidate(text)

    return screen


@cache
def _label_finder() -> Callable[[str], Iterator[int]]:
    """Where in a text a labelled rule could match (`password: …`), as offsets: RE2 over
    the whole text, or Python's re where RE2 cannot read it."""
    labelled = [pattern for kind, pattern in rules() if kind in LABELLED_KINDS]
    compiled = _re2_union([re.compile(LABEL_SCREEN)], unbounded=True) if labelled else None

    def finditer(text: str) -> Iterator[int]:
        if compiled is not None:
            try:
                yield from (match.start() for match in compiled.finditer(text))
                return
            except UnicodeEncodeError:
                pass
        yield from sorted(match.start() for pattern in labelled for match in pattern.finditer(text))

    return finditer


def _label_lines(block: str) -> dict[int, list[int]]:
    """For each line of `block` where a labelled rule could match, by its offset: where in
    the line those matches start."""
    starts: dict[int, list[int]] = {}
    line_start, offset = 0, 0
    for start in _label_finder()(block):
        newlines = block.count("\n", line_start, start)
        if newlines:
            offset += newlines
            line_start = block.rfind("\n", 0, start) + 1
        starts.setdefault(offset, []).append(start - line_start)
    return starts


def _re2_union(patterns: list[re.Pattern[str]], *, unbounded: bool = False):
    """One RE2 pattern matching wherever any of `patterns` could; None if RE2 cannot read
    one of them. `unbounded`: every `{n,m}` read as `{n,}`, which RE2's automaton holds in
    one state where `{1,200}` takes two hundred (ten times faster on the labelled rules)."""
    import re2

    repeat = _ANY_REPEAT if unbounded else _LONG_REPEAT
    parts = []
    for pattern in patterns:
        if pattern.flags & re.VERBOSE and re.search(r"[\s#]", pattern.pattern):
            return None  # spaces and comments that mean nothing: not for RE2
        wrapped = "(?i:{})" if pattern.flags & re.IGNORECASE else "(?:{})"
        parts.append(wrapped.format(repeat.sub(r"{\1,}", _without_lookarounds(pattern.pattern))))
    if not parts:
        return None
    # RE2's default 8 MB leaves its DFA too little room for 46 rules: it keeps throwing its
    # states away and rebuilding them, three times slower on real-shaped memory than with
    # 32 MB (the DFA takes what it needs, up to that).
    options = re2.Options()
    options.max_mem = SCREEN_MEMORY
    try:
        return re2.compile("(?m)" + "|".join(parts), options)
    except re2.error:
        return None


# A bound RE2 refuses (past 1000); `{n,}` matches wherever `{n,m}` does.
_LONG_REPEAT = re.compile(r"\{(\d+),\d{4,}\}")
_ANY_REPEAT = re.compile(r"\{(\d+),\d+\}")
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")


def _without_lookarounds(pattern: str) -> str:
    """`pattern` with its lookahead and lookbehind groups left out."""
    out: list[str] = []
    position = 0
    while position < len(pattern):
        if pattern.startswith(_LOOKAROUND, position):
            position = _group_end(pattern, position)
            continue
        end = _token_end(pattern, position)
        out.append(pattern[position:end])
        position = end
    return "".join(out)


def _token_end(pattern: str, position: int) -> int:
    """Just past one token: an escape, a character class, or a single character."""
    char = pattern[position]
    if char == "\\":
        return position + 2
    if char == "[":
        position += 1
        if pattern.startswith("^", position):
            position += 1
        if pattern.startswith("]", position):
            position += 1
        while position < len(pattern) and pattern[position] != "]":
            position += 2 if pattern[position] == "\\" else 1
        return position + 1
    return position + 1


def _group_end(pattern: str, position: int) -> int:
    """Just past the group opening at `position`."""
    depth = 0
    while position < len(pattern):
        char = pattern[position]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return position + 1
        position = _token_end(pattern, position)
    return position


def redact(line: str, hit: SecretHit) -> str:
    """The line with the secret replaced, the rest kept as it was."""
    return line[:hit.start] + "[REDACTED]" + line[hit.end:]
