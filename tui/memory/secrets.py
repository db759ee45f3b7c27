"""Credentials pasted into memory: found with detect-secrets' rules, never printed.

Memory files are loaded into every session's context, and get copied, backed up and
synced: a token in one is a leak waiting to happen. The rules are detect-secrets' own
pattern detectors (GitHub, GitLab, AWS, Slack, Stripe, OpenAI, npm, PyPI, JWT, private
keys, credentials in URLs, and more), maintained upstream. Its entropy and keyword
detectors are left out: on prose they flag every long word.

Importing detect-secrets takes most of a second, so its patterns are read once per
installed version and kept in the cache dir; an audit then compiles them from there. A
line is tried against them only when it holds something token-like.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from tui import xdg
from tui.claude.files import read_text
from tui.claude.lines import split_lines

# Detectors whose "secret" is not one (a public IP address) or that need context we lack.
_SKIPPED = {"Public IP (ipv4)"}
# Something a rule could match at all: a long token-like run, a key block, a URL password.
_CANDIDATE = re.compile(r"[A-Za-z0-9_\-+/=.]{16,}|PRIVATE KEY|PuTTY-User-Key|://[^\s/@:]+:[^\s/@]+@")


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
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("detect-secrets")
    except PackageNotFoundError:
        return ()
    cached = xdg.cache_dir() / f"secret-rules-{installed}.json"
    try:
        raw = json.loads(read_text(cached))
        if not _rule_list(raw):
            raise ValueError("damaged rule cache")
    except (OSError, ValueError, RecursionError):
        raw = _rules_from_detect_secrets()
        try:
            cached.parent.mkdir(parents=True, exist_ok=True)
            partial = cached.with_suffix(".partial")
            partial.write_text(json.dumps(raw), encoding="utf-8")
            partial.replace(cached)
        except OSError:
            pass
    compiled = []
    for kind, pattern, flags in raw:
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
    """Every credential in `text`, one hit per line and kind."""
    if not _CANDIDATE.search(text):
        return
    for number, line in enumerate(split_lines(text), 1):
        if not _CANDIDATE.search(line):
            continue
        seen: set[str] = set()
        for kind, pattern in rules():
            if kind in seen:
                continue
            match = pattern.search(line)
            if match:
                seen.add(kind)
                start, end = _secret_span(match)
                yield SecretHit(kind, number, start, end)


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    """The part of a match that is the secret: a captured group when it is the credential
    (a URL's password), the whole match when the group is only a prefix (`ghp`)."""
    groups = [g for g in range(1, (match.re.groups or 0) + 1) if match.group(g)]
    longest = max(groups, key=lambda g: len(match.group(g)), default=0)
    if longest and len(match.group(longest)) >= 8:
        return match.start(longest), match.end(longest)
    return match.start(), match.end()


def redact(line: str, hit: SecretHit) -> str:
    """The line with the secret replaced, the rest kept as it was."""
    return line[:hit.start] + "[REDACTED]" + line[hit.end:]
