"""Relative dates turned into absolute ones, against the day the text was written."""

from __future__ import annotations

import datetime as dt
import re

from tui.claude.lines import split_lines
from tui.memory.dates import relative_dates

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CN_WEEKDAYS = "一二三四五六日"
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3}
_DAY_OFFSETS = {
    "yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1, "earlier today": 0,
    "the day before yesterday": -2, "the day after tomorrow": 2,
    "大前天": -3, "前天": -2, "昨天": -1, "昨晚": -1, "今天": 0, "今晚": 0,
    "明天": 1, "明晚": 1, "后天": 2, "大后天": 3,
}
_SHIFT = {"last": -1, "next": 1, "this": 0, "coming": 1, "上": -1, "下": 1, "本": 0, "这": 0}
_AGO = re.compile(r"^(\d+|a|an|one|two|three) (day|week|month|year)s? ago$")
_IN = re.compile(r"^in (\d+|a|two|three) (day|week|month)s?$")
_SHIFTED = re.compile(r"^(last|next|this|coming) (\w+)$")
_CN_WEEK = re.compile(r"^([上下本这])个?(?:周|星期|礼拜)([一二三四五六日天]?)$")
_CN_MONTH = re.compile(r"^([上下本这])个?月$")
_CN_DAYS = re.compile(r"^(\d+)\s*天([前后])$")


def _iso(day: dt.date) -> str:
    return day.isoformat()


def _monday(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=day.weekday())


def _add_months(day: dt.date, months: int) -> tuple[int, int]:
    total = day.year * 12 + day.month - 1 + months
    return total // 12, total % 12 + 1


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _COUNTS[word]


def absolute(phrase: str, reference: dt.date) -> str | None:
    """The absolute form of one relative phrase, or None when it has no single answer."""
    text = phrase.lower().strip()
    chinese = not text.isascii()
    if text in _DAY_OFFSETS:
        return _iso(reference + dt.timedelta(days=_DAY_OFFSETS[text]))
    if text == "earlier this week":
        return f"the week of {_iso(_monday(reference))}"
    if match := _AGO.match(text) or _IN.match(text):
        amount = _count(match.group(1)) * (-1 if text.endswith("ago") else 1)
        unit = match.group(2)
        if unit in ("day", "week"):
            return _iso(reference + dt.timedelta(days=amount * (7 if unit == "week" else 1)))
        if unit == "month":
            return "{}-{:02d}".format(*_add_months(reference, amount))
        return str(reference.year + amount)
    if match := _SHIFTED.match(text):
        shift, unit = _SHIFT[match.group(1)], match.group(2)
        if unit in _WEEKDAYS:
            return _iso(_weekday(reference, _WEEKDAYS.index(unit), shift, match.group(1)))
        if unit == "week":
            return f"the week of {_iso(_monday(reference) + dt.timedelta(weeks=shift))}"
        if unit == "weekend":
            saturday = _monday(reference) + dt.timedelta(days=5, weeks=shift)
            return f"the weekend of {_iso(saturday)}"
        if unit == "month":
            return "{}-{:02d}".format(*_add_months(reference, shift))
        if unit == "year":
            return str(reference.year + shift)
        if unit == "quarter":
            year, month = _add_months(reference, 3 * shift)
            return f"{year}-Q{(month - 1) // 3 + 1}"
        if unit == "night" and shift == -1:
            return _iso(reference - dt.timedelta(days=1))
        return None
    if chinese:
        return _chinese(text, reference)
    return None


def _weekday(reference: dt.date, weekday: int, shift: int, word: str) -> dt.date:
    if word in ("this", "coming"):
        ahead = (weekday - reference.weekday()) % 7
        return reference + dt.timedelta(days=ahead or (7 if word == "coming" else 0))
    if shift < 0:
        back = (reference.weekday() - weekday) % 7 or 7
        return reference - dt.timedelta(days=back)
    ahead = (weekday - reference.weekday()) % 7 or 7
    return reference + dt.timedelta(days=ahead)


def _chinese(text: str, reference: dt.date) -> str | None:
    if match := _CN_WEEK.match(text):
        monday = _monday(reference) + dt.timedelta(weeks=_SHIFT[match.group(1)])
        day = match.group(2)
        if not day:
            return f"{_iso(monday)} 那一周"
        index = 6 if day in "日天" else _CN_WEEKDAYS.index(day)
        return _iso(monday + dt.timedelta(days=index))
    if match := _CN_MONTH.match(text):
        year, month = _add_months(reference, _SHIFT[match.group(1)])
        return f"{year}年{month}月"
    if text in ("去年", "今年", "明年"):
        return f"{reference.year + ('去今明'.index(text[0]) - 1)}年"
    if match := _CN_DAYS.match(text):
        days = int(match.group(1)) * (-1 if match.group(2) == "前" else 1)
        return _iso(reference + dt.timedelta(days=days))
    return None


def absolutize(text: str, reference: dt.date) -> tuple[str, list[tuple[str, str]]]:
    """`text` with each convertible relative date replaced, and the (old, new) pairs."""
    lines = split_lines(text)
    changes: list[tuple[str, str]] = []
    for number, phrase in relative_dates(text):
        new = absolute(phrase, reference)
        line = lines[number - 1]
        if new is None or phrase not in line:
            continue
        lines[number - 1] = line.replace(phrase, new, 1)
        changes.append((phrase, new))
    return "\n".join(lines), changes
