"""Relative dates in memory text ("yesterday", "la semana pasada", "上周"): they rot on save.

Found in English, Chinese, Japanese, Korean, Spanish, Portuguese, French and German; the
phrases, their look-alikes and what each means are in tui/memory/date_phrases.py.

Speed: an audit reads every memory, so a text is first screened for its rules' trigger words
and only the lines holding one are matched against the rules those words name. The screen
costs in proportion to the words it looks for, so plain English text (English's commonest
word and no accented letter: Spanish, Portuguese, French and German prose almost never stays
without one for a whole file) is screened for English words only, by plain substring search;
other text by one regex over every Latin trigger (each must start a word); CJK text also
by one regex over the CJK triggers (found anywhere: CJK has no word boundaries).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

from ahocorasick_rs import BytesAhoCorasick

from tui.memory.date_phrases import RULES, Rule, Shift

__all__ = ["RelativeDate", "Shift", "relative_dates"]


@dataclass(frozen=True)
class RelativeDate:
    line: int  # 1-based line of the text
    column: int  # where the phrase starts in that line
    phrase: str
    rule: Rule = field(repr=False)
    match: re.Match[str] = field(repr=False, compare=False)

    @property
    def language(self) -> str:
        return self.rule.language.code

    def meaning(self) -> Shift | None:
        """What it means, or None when no single date can replace it ("recently")."""
        return self.rule.meaning(self.match)


def _is_cjk(trigger: str) -> bool:
    return any(ord(c) >= 0x3000 for c in trigger)


def _trie(words: list[str]) -> str:
    """One regex for many words, shared prefixes factored out (longest match first)."""
    tree: dict = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: dict) -> str:
        branches = [re.escape(char) + pattern(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return pattern(tree)


def _rules_by_trigger() -> dict[str, tuple[Rule, ...]]:
    rules: dict[str, list[Rule]] = {}
    for rule in RULES:
        for trigger in rule.triggers:
            rules.setdefault(trigger.lower(), []).append(rule)
    # CJK triggers are found anywhere, longest first: one found also stands for the shorter
    # triggers it starts with (지난해 for 지난), looked up by its prefixes (comparing each
    # with every trigger cost ~10 ms of every audit's start).
    order = {trigger: index for index, trigger in enumerate(rules)}

    def starting(trigger: str) -> list[str]:
        prefixes = [trigger[:end] for end in range(1, len(trigger) + 1)]
        return sorted((prefix for prefix in prefixes if prefix in rules), key=order.__getitem__)

    return {
        trigger: tuple(dict.fromkeys(rule for other in starting(trigger) for rule in rules[other]))
        if _is_cjk(trigger) else dict.fromkeys(rules[trigger])
        for trigger in rules
    }


_BY_TRIGGER = _rules_by_trigger()

# A Latin trigger starts after one of these (the text is screened with "\n" in front).
_WORD_START = "[ \t\n\r\u00a0\u3000(\\[{*_\"'`~“‘«¿¡/>|,.;:!?…\\-，。：；（「『、]"


def _trigger_regex(triggers: list[str]) -> re.Pattern[str]:
    return re.compile(f"{_WORD_START}({_trie(triggers)})(?!\\w)")


# The screens of text beyond plain English are compiled when such a text first comes (~7 ms
# at every start, for the few texts in most stores that need them).
@cache
def _latin_trigger() -> re.Pattern[str]:
    return _trigger_regex([t for t in _BY_TRIGGER if not _is_cjk(t)])


@cache
def _cjk_trigger() -> re.Pattern[str]:
    return re.compile(_trie([t for t in _BY_TRIGGER if _is_cjk(t)]))


@cache
def _cjk_text() -> re.Pattern[str]:
    return re.compile("[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")


_ENGLISH_WORDS = sorted({t for rule in RULES if rule.language.code == "en" for t in rule.triggers})
# A word that holds another is left out: "day" stands for "yesterday" and "monday".
_ENGLISH_NEEDLES = {
    needle: tuple(rule for rule in RULES if rule.language.code == "en"
                  and any(needle in trigger for trigger in rule.triggers))
    for needle in _ENGLISH_WORDS
    if not any(other in needle for other in _ENGLISH_WORDS if other != needle)
}
# Every needle looked for in one pass over the bytes (Aho-Corasick, every occurrence):
# fourteen `in` scans and a `find` loop per needle cost five times as much.
_ENGLISH_SEARCH = BytesAhoCorasick([needle.encode() for needle in _ENGLISH_NEEDLES])
# Every English rule stands its trigger words alone (`(?<!\w)`, spaces, `(?!\w)`): a needle
# inside another word ("day" in "Thursday", "holiday") names only the rules of that word.
# (The two letters beyond ASCII that match an ASCII one when case is ignored, ſ and the
# Kelvin sign, send a text to the other screens.)
_ENGLISH_WORDS_RULES = {
    word.encode(): tuple(rule for rule in _BY_TRIGGER[word] if rule.language.code == "en")
    for word in _ENGLISH_WORDS
}
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")  # `\w` in lowered ASCII
_LONGEST_ENGLISH_WORD = max(map(len, _ENGLISH_WORDS_RULES))
_ASCII_BYTES = bytes(range(128))
_ACCENTED = re.compile("[\u00c0-\u024f]")
# The only characters beyond ASCII that str.lower() turns into ASCII letters (İ, the Kelvin K),
# and the UTF-8 lead bytes of every accented and CJK letter above (and of a few more).
_LOWERS_TO_ASCII = re.compile("\u0130|\u212a".encode())
_ACCENTED_LEAD = re.compile(rb"[\xc3-\xc9]")  # U+00C0-U+027F
_CJK_LEAD = re.compile(rb"[\xe3-\xed\xef]")  # U+3000-U+DFFF, U+F000-U+FFFF
_RULE_ORDER = {rule: index for index, rule in enumerate(RULES)}
# Not prose: code spans, URLs and link targets are blanked (same length, so columns hold).
_NOT_PROSE = re.compile(r"`[^`\n]*`|\bhttps?://\S+|\]\([^)\s]*\)")


def _occurrences(text: str | bytes, needle: str | bytes) -> Iterator[int]:
    at = text.find(needle)
    while at != -1:
        yield at
        at = text.find(needle, at + 1)


def _candidate_lines(text: str) -> dict[int, set[Rule]]:
    """0-based line -> the rules the trigger words on it name."""
    screened: str | bytes
    # Text beyond ASCII (an em dash is enough) is slow to lower and to scan with a regex:
    # its UTF-8 bytes tell first, by their lead bytes, whether an accented or a CJK letter
    # may be there at all, and the English words, ASCII, are looked for in the bytes lowered
    # as ASCII: where the lowered text holds them, on the same lines.
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) == len(text):  # ASCII
        accented = cjk = False
        screened = b"\n" + raw.lower()
    else:
        high = raw.translate(None, _ASCII_BYTES)  # the bytes beyond ASCII alone: a few
        accented = bool(_ACCENTED_LEAD.search(high) and _ACCENTED.search(text))
        cjk = bool(_CJK_LEAD.search(high) and _cjk_text().search(text))
        as_ascii = not cjk and not _LOWERS_TO_ASCII.search(high)
        screened = b"\n" + raw.lower() if as_ascii else "\n" + text.lower()
    if not accented and isinstance(screened, bytes) and b" the " in screened:
        hits = [(start, rules) for _, start, end in
                _ENGLISH_SEARCH.find_matches_as_indexes(screened, overlapping=True)
                if (rules := _english_rules(screened, start, end))]
    elif not accented and isinstance(screened, str) and " the " in screened:
        hits = [(at, rules) for needle, rules in _ENGLISH_NEEDLES.items() if needle in screened
                for at in _occurrences(screened, needle)]
    else:
        if isinstance(screened, bytes):
            screened = "\n" + text.lower()
        hits = [(m.start(1), _BY_TRIGGER[m.group(1)]) for m in _latin_trigger().finditer(screened)]
    if cjk:
        hits.extend((m.start(), _BY_TRIGGER[m.group()]) for m in _cjk_trigger().finditer(screened))
    return _lines_of(hits, screened)


def _english_rules(screened: bytes, start: int, end: int) -> tuple[Rule, ...]:
    """The English rules a needle found at `start:end` of the lowered bytes names: those
    of the word it is in. A byte beyond ASCII ends a word: were its character a letter, no
    English rule could match across it (each stands its words alone). A word is read no
    longer than the longest trigger: past that it is none (and a megabyte of "daydayday"
    costs a few bytes a needle, not the whole run each time)."""
    left, right = start, end
    while screened[left - 1] in _WORD_BYTES:  # the bytes start with "\n"
        left -= 1
        if end - left > _LONGEST_ENGLISH_WORD:
            return ()
    while right < len(screened) and screened[right] in _WORD_BYTES:
        right += 1
        if right - left > _LONGEST_ENGLISH_WORD:
            return ()
    return _ENGLISH_WORDS_RULES.get(screened[left:right], ())


def _lines_of(hits: list, screened: str | bytes) -> dict[int, set[Rule]]:
    """The (position, rules) hits in `screened` (the text after a line break) by line."""
    hits.sort(key=lambda hit: hit[0])
    newline = "\n" if isinstance(screened, str) else b"\n"
    wanted: dict[int, set[Rule]] = {}
    line, last = -1, 0
    for position, rules in hits:
        line += screened.count(newline, last, position)
        last = position
        wanted.setdefault(line, set()).update(rules)
    return wanted


def _fence_lines(lines: list[str], upto: int) -> list[int]:
    """0-based lines up to `upto` that open or close a ``` or ~~~ fence, in order."""
    return [index for index, line in enumerate(lines[:upto + 1])
            if line.lstrip().startswith(("```", "~~~"))]


def _in_fence(fences: list[int], line: int) -> bool:
    before = bisect.bisect_right(fences, line)
    return before % 2 == 1 or (before > 0 and fences[before - 1] == line)


def _prose(line: str) -> str:
    if "`" not in line and "://" not in line and "](" not in line:
        return line
    return _NOT_PROSE.sub(lambda m: " " * len(m.group()), line)


def _matches(plain: str, rules: set[Rule]) -> list[tuple[re.Match[str], Rule]]:
    """Every rule's matches on one line, overlaps resolved: the earliest, then the longest;
    the same words read by two languages ("próxima semana") go to the one the line is in."""
    found = [
        (match, rule)
        for rule in rules
        if not rule.needs_cue or rule.language.cue.search(plain)
        for match in rule.regex.finditer(plain)
    ]
    if len(found) > 1:
        def preference(item: tuple[re.Match[str], Rule]) -> tuple[int, int, bool, int]:
            match, rule = item
            cue = rule.language.cue
            return (match.start(), match.start() - match.end(),
                    not (cue and cue.search(plain)), _RULE_ORDER[rule])
        found.sort(key=preference)
    kept: list[tuple[re.Match[str], Rule]] = []
    end = -1
    for match, rule in found:
        if match.start() >= end:
            kept.append((match, rule))
            end = match.end()
    return kept


def relative_dates(text: str) -> list[RelativeDate]:
    """Each relative date in `text`, outside code spans, fences, URLs and link targets."""
    wanted = _candidate_lines(text)
    if not wanted:
        return []
    lines = text.split("\n")
    fences = _fence_lines(lines, max(wanted)) if "```" in text or "~~~" in text else []
    found: list[RelativeDate] = []
    for index in sorted(wanted):
        if fences and _in_fence(fences, index):
            continue
        plain = _prose(lines[index])
        found.extend(
            RelativeDate(index + 1, match.start(), match.group(), rule, match)
            for match, rule in _matches(plain, wanted[index])
        )
    return found
