"""When a line of a memory was written, as far as its own text tells: a date in the file's
name (`project_session_20260507.md`, `logs/2026/05/2026-05-07.md`) or in a heading above
the line ("## Verification (post-restart, 2026-05-19)").

A file's mtime or its frontmatter `modified` only say when the file was last touched, not
when a sentence in it was written, so they are never used. A heading counts when it is the
line's own section or a section around it (a `###` under a dated `##`), and holds one date;
a heading naming a date to come ("Deadline 2026-06-30", "Launch: …") is no date of writing.
"""

from __future__ import annotations

import bisect
import datetime as dt
import re
from dataclasses import dataclass
from functools import lru_cache

_MONTHS = {name: number for number, names in enumerate((
    "jan january januar janvier enero janeiro", "feb february februar février fevrier febrero "
    "fevereiro", "mar march märz marz mars marzo março", "apr april avril abril",
    "may mai mayo maio", "jun june juni juin junio junho", "jul july juli juillet julio julho",
    "aug august août aout agosto", "sep sept september septembre septiembre setembro",
    "oct october oktober octobre octubre outubro", "nov november novembre noviembre novembro",
    "dec december dezember décembre decembre diciembre dezembro"), start=1)
    for name in names.split()}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_YEAR = r"(?P<year>20[0-9]{2})"

# Dates with a year: ISO and its look-alikes, 20260507 in a name, CJK, and month names.
_FULL_DATES = re.compile(
    rf"(?<![\d.])(?:{_YEAR}[-_/.]?(?P<month>0[1-9]|1[0-2])[-_/.]?(?P<day>0[1-9]|[12]\d|3[01])"
    rf"|(?P<y2>20[0-9]{{2}})[-/.](?P<m2>[1-9])[-/.](?P<d2>[1-9]|[12]\d|3[01]))(?![\d])"
    r"|(?P<y3>20[0-9]{2})\s*[年년]\s*(?P<m3>1[0-2]|0?[1-9])\s*[月월]\s*(?P<d3>3[01]|[12]\d|0?[1-9])\s*[日일]"
    rf"|\b(?P<mn4>{_MONTH})\.?\s+(?P<d4>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?,?\s+(?P<y4>20[0-9]{{2}})\b"
    rf"|\b(?P<d5>3[01]|[12]\d|0?[1-9])\.?\s+(?:de\s+)?(?P<mn5>{_MONTH})\.?,?\s+(?:de\s+)?(?P<y5>20[0-9]{{2}})\b",
    re.IGNORECASE,
)
# Any mention of a day, with or without its year ("Mar 25", "4/30", "30.04.", "3月25日").
_DAY_MENTION = re.compile(
    rf"{_FULL_DATES.pattern}"
    r"|(?<![\d/.])(?:1[0-2]|0?[1-9])/(?:3[01]|[12]\d|0?[1-9])(?![\d/])"
    r"|(?<![\d.])(?:3[01]|[12]\d|0?[1-9])\.(?:1[0-2]|0?[1-9])\.(?!\d)"
    r"|(?:1[0-2]|0?[1-9])\s*[月월]\s*(?:3[01]|[12]\d|0?[1-9])\s*[日일号號]"
    rf"|\b(?:{_MONTH})\.?\s+(?:3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?\b"
    rf"|\b(?:3[01]|[12]\d|0?[1-9])\.?\s+(?:de\s+)?(?:{_MONTH})\b",
    re.IGNORECASE,
)
_DIGIT = re.compile(r"\d")
_A_YEAR = re.compile(r"20\d\d")
_HEADING_OR_FENCE = re.compile(
    r"^ {0,3}(?:(?P<fence>```|~~~)|(?P<hashes>#{1,6})(?:[ \t]+(?P<title>[^\n]*)|[ \t]*$))",
    re.MULTILINE)
# Words that make a heading's date another day than the one its section was written: a
# date to come ("Deadline 2026-06-30", "Launch: …") or a bound ("post-2026-05-01", "since").
_NOT_THE_DAY = re.compile(
    r"\b(?:deadline|due|until|till|by|before|launch|release|target|planned|plan|eta|frist|bis|"
    r"fecha límite|hasta|prazo|até|échéance|jusqu)\b|截止|期限|締切|마감|까지|まで"
    r"|\b(?:post|after|since|seit|nach|ab|desde|depuis)[-\s:]*(?=20\d\d)|以降|以后|以後|이후",
    re.IGNORECASE)
# A section about a day to come ("Action items for tomorrow", "Next session"): its "today"
# may be that day.
_DAY_TO_COME = re.compile(r"\b(?:tomorrow|next|morgen|nächste[nrs]?|naechste[nrs]?|demain|prochaine?"
                          r"|mañana|manana|próxim[oa]|proxim[oa]|amanhã|amanha)\b"
                          r"|明天|明日|下次|次回|내일|다음", re.IGNORECASE)
# A heading written between midnight and five ("2026-05-05 ~01:00"): its "tomorrow" may well
# mean the day it names, after a night's sleep.
_SMALL_HOURS = re.compile(r"(?<![\d:])0?[0-4]:[0-5]\d(?!\d)")


@dataclass(frozen=True)
class Written:
    """The day a line was written, and what says so (shown to the user)."""

    day: dt.date
    source: str


@lru_cache(maxsize=4096)  # headings repeat ("## What I did today") in note after note
def full_dates(text: str) -> tuple[dt.date, ...]:
    """Every date with a year in `text`, in order."""
    if not _A_YEAR.search(text):
        return ()
    found = []
    for match in _FULL_DATES.finditer(text):
        groups = {key: value for key, value in match.groupdict().items() if value}
        try:
            if "year" in groups:
                day = dt.date(int(groups["year"]), int(groups["month"]), int(groups["day"]))
            elif "y2" in groups:
                day = dt.date(int(groups["y2"]), int(groups["m2"]), int(groups["d2"]))
            elif "y3" in groups:
                day = dt.date(int(groups["y3"]), int(groups["m3"]), int(groups["d3"]))
            elif "y4" in groups:
                day = dt.date(int(groups["y4"]), _MONTHS[groups["mn4"].lower()], int(groups["d4"]))
            else:
                day = dt.date(int(groups["y5"]), _MONTHS[groups["mn5"].lower()], int(groups["d5"]))
        except ValueError:
            continue
        found.append(day)
    return tuple(found)


def mentions_a_day(text: str) -> str | None:
    """The first day `text` names, with or without its year, as written."""
    if not _DIGIT.search(text):  # every form holds a digit
        return None
    match = _DAY_MENTION.search(text)
    return match.group() if match else None

def _one_day(days: tuple[dt.date, ...]) -> dt.date | None:
    return days[0] if days and all(day == days[0] for day in days) else None


def day_of_name(file: str) -> Written | None:
    """The day a file's name gives (its base name: a folder's date is when it was filed)."""
    name = file.rpartition("/")[2]
    day = _one_day(full_dates(name))
    return Written(day, f"its name {name}") if day else None


class Headings:
    """The dated sections of a text: for each line, the date of the nearest heading around
    it that holds one. An unsure heading hides the ones around it: two dates, a time in the
    small hours, subsections dated otherwise (a section of several days), a section about a
    day to come."""

    def __init__(self, text: str):
        headings = _headings(text)
        unsure = {line for line, (level, days, title) in headings.items()
                  if _DAY_TO_COME.search(title)
                  or days and (_one_day(days) is None or _SMALL_HOURS.search(title))}
        sections: list[int] = []
        for line, (level, days, _) in headings.items():
            while sections and headings[sections[-1]][0] >= level:
                sections.pop()
            for outer in sections:
                outer_day = _one_day(headings[outer][1])
                if days and outer_day and _one_day(days) != outer_day:
                    unsure.add(outer)
            sections.append(line)
        self._starts: list[int] = []  # the line of each heading, in order
        self._days: list[Written | None] = []  # what the lines under it get
        given: dict[int, Written | None] = {}  # the same, by the heading's line
        sections = []
        for line, (level, days, title) in headings.items():
            while sections and headings[sections[-1]][0] >= level:
                sections.pop()
            day = _one_day(days)
            if line in unsure:
                given[line] = None
            elif day:
                given[line] = Written(day, f"the heading '{title}'")
            else:  # the section around it speaks for it
                given[line] = given[sections[-1]] if sections else None
            sections.append(line)
            self._starts.append(line)
            self._days.append(given[line])

    def around(self, line: int) -> Written | None:
        """The day the headings give the 0-based `line`."""
        section = bisect.bisect_right(self._starts, line) - 1
        return self._days[section] if section >= 0 else None


def _headings(text: str) -> dict[int, tuple[int, tuple[dt.date, ...], str]]:
    """0-based line -> (level, the dates it gives for its section, its title), outside
    fences, in order."""
    headings = {}
    in_fence = False
    line, counted = 0, 0
    for match in _HEADING_OR_FENCE.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        if match.group("fence"):
            in_fence = not in_fence
        elif not in_fence:
            title = (match.group("title") or "").strip().strip("#").strip()
            days = full_dates(title)
            if days and _NOT_THE_DAY.search(title):
                days = ()
            headings[line] = (len(match.group("hashes")), days, title)
    return headings
