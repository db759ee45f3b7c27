"""Relative dates in memory text ("yesterday", "next Thursday", "上周"): they rot on save."""

from __future__ import annotations

import re

from tui.claude.lines import split_lines

_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_UNITS = "week|month|year|quarter|sprint|weekend|night|" + _WEEKDAYS
_ENGLISH = re.compile(
    rf"\b(?:yesterday|today|tonight|tomorrow|the day (?:before|after) (?:yesterday|tomorrow)"
    rf"|(?:last|next|this|coming) (?:{_UNITS})"
    r"|(?:\d+|a|an|one|two|three|few|couple of) (?:days?|weeks?|months?|years?) ago"
    r"|earlier (?:today|this week)|in (?:\d+|a|two|three) (?:days?|weeks?|months?))\b",
    re.IGNORECASE,
)
_CHINESE = re.compile(
    r"(?:大?前天|昨天|今天|明天|大?后天|昨晚|今晚|明晚"
    r"|[上下本这]个?(?:周|星期|礼拜)[一二三四五六日天]?|[上下本这]个?月|去年|今年|明年"
    r"|\d+\s*天[前后])"
)
_CODE = re.compile(r"`[^`\n]*`")


# Every phrase above contains one of these; a line with none needs no regex.
_KEYWORDS = (
    "day", "night", "tomorrow", "week", "month", "year", "quarter", "sprint",
    "天", "周", "星期", "礼拜", "月", "年", "晚",
)


def relative_dates(text: str) -> list[tuple[int, str]]:
    """(line number, phrase) for each relative date, outside code spans and fences."""
    lowered = text.lower()
    present = [keyword for keyword in _KEYWORDS if keyword in lowered]
    if not present:
        return []
    found: list[tuple[int, str]] = []
    in_fence = False
    for index, line in enumerate(split_lines(text)):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence or not any(keyword in line.lower() for keyword in present):
            continue
        plain = _CODE.sub(" ", line) if "`" in line else line
        patterns = (_ENGLISH,) if plain.isascii() else (_ENGLISH, _CHINESE)
        for pattern in patterns:
            found.extend((index + 1, match.group(0)) for match in pattern.finditer(plain))
    return found
