"""Relative dates turned into absolute ones, against the day the text was written.

Every phrase tui/memory/dates.py finds, in its eight languages, is replaced where it has one
answer: a day becomes `2026-03-09`, a week `the week of 2026-03-02` (in the text's language:
`la semana del 2026-03-02`, `2026-03-02の週`...), a month `2026-02`, a year `2025`. A phrase
with no single answer ("recently", "a few days ago", "last sprint") is kept, and said so.

Spanish, Portuguese and French keep the article the text already has ("la semana pasada" ->
"la semana del 2026-03-02") and supply one where a demonstrative stood ("esta semana" ->
"la semana del 2026-03-09"); German follows the case of the adjective it replaces
("letzte Woche" -> "in der Woche vom ...", "seit letzter Woche" -> "seit der Woche vom ...").
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import NamedTuple

from tui.memory.dates import RelativeDate, Shift


class _When(NamedTuple):
    """A shift resolved against the reference day: `unit` and its first day."""

    unit: str  # day, week, weekend, month, quarter, year, weekday
    day: dt.date


def _monday(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=day.weekday())


def _add_months(day: dt.date, months: int) -> dt.date:
    total = day.year * 12 + day.month - 1 + months
    return dt.date(total // 12, total % 12 + 1, 1)


def _resolve(shift: Shift, reference: dt.date) -> _When:
    amount = shift.amount
    if shift.unit == "day":
        return _When("day", reference + dt.timedelta(days=amount))
    if shift.unit == "week":
        return _When("week", _monday(reference) + dt.timedelta(weeks=amount))
    if shift.unit == "weekend":
        return _When("weekend", _monday(reference) + dt.timedelta(weeks=amount, days=5))
    if shift.unit == "month":
        return _When("month", _add_months(reference, amount))
    if shift.unit == "quarter":
        first = _add_months(reference, 3 * amount)
        return _When("quarter", first.replace(month=(first.month - 1) // 3 * 3 + 1))
    if shift.unit == "year":
        return _When("year", reference.replace(year=reference.year + amount, month=1, day=1))
    if shift.unit == "day_of_week":
        week = _monday(reference) + dt.timedelta(weeks=amount)
        return _When("weekday", week + dt.timedelta(days=shift.weekday))
    return _When("weekday", _nearest(reference, shift.weekday, amount))


def _nearest(reference: dt.date, weekday: int, amount: int) -> dt.date:
    """The last such weekday before today (-1), this one, today included (0), the next one
    after today (1)."""
    if amount < 0:
        return reference - dt.timedelta(days=(reference.weekday() - weekday) % 7 or 7)
    ahead = (weekday - reference.weekday()) % 7
    return reference + dt.timedelta(days=ahead or (7 if amount > 0 else 0))


def _iso_month(day: dt.date) -> str:
    return f"{day.year}-{day.month:02d}"


def _quarter(day: dt.date) -> str:
    return f"{day.year}-Q{(day.month - 1) // 3 + 1}"


def _plain(when: _When) -> str | None:
    """The forms every Latin-script language shares: ISO day, month, year."""
    if when.unit in ("day", "weekday"):
        return when.day.isoformat()
    if when.unit == "month":
        return _iso_month(when.day)
    if when.unit == "year":
        return str(when.day.year)
    return None


def _english(when: _When, found: RelativeDate) -> str:
    if when.unit == "week":
        return f"the week of {when.day.isoformat()}"
    if when.unit == "weekend":
        return f"the weekend of {when.day.isoformat()}"
    if when.unit == "quarter":
        return _quarter(when.day)
    return _plain(when)


def _cjk(week: str, weekend: str, month: str, quarter: str, year: str
         ) -> Callable[[_When, RelativeDate], str]:
    def formatted(when: _When, found: RelativeDate) -> str:
        day = when.day
        if when.unit in ("day", "weekday"):
            return day.isoformat()
        pattern = {"week": week, "weekend": weekend, "month": month, "quarter": quarter,
                   "year": year}[when.unit]
        if any(c in found.phrase for c in "週個這後禮") and "周" in pattern:  # traditional
            pattern = pattern.replace("周", "週").replace("个", "個")
        return pattern.format(iso=day.isoformat(), year=day.year, month=day.month,
                              quarter=(day.month - 1) // 3 + 1)
    return formatted


# Spanish, Portuguese, French: (noun phrase, its gender) per unit; a weekday keeps its word.
_NOUNS = {
    "es": {"week": ("semana del {iso}", "f"), "weekend": ("fin de semana del {iso}", "m"),
           "month": ("mes de {month}", "m"), "quarter": ("trimestre {quarter}", "m"),
           "year": ("año {year}", "m")},
    "pt": {"week": ("semana de {iso}", "f"), "weekend": ("fim de semana de {iso}", "m"),
           "month": ("mês de {month}", "m"), "quarter": ("trimestre {quarter}", "m"),
           "year": ("ano de {year}", "m")},
    "fr": {"week": ("semaine du {iso}", "f"), "weekend": ("week-end du {iso}", "m"),
           "month": ("mois de {month}", "m"), "quarter": ("trimestre {quarter}", "m"),
           "year": ("année {year}", "vowel")},
}
_ARTICLES = {"es": {"f": "la ", "m": "el "}, "pt": {"f": "a ", "m": "o "},
             "fr": {"f": "la ", "m": "le ", "vowel": "l'"}}
_ARTICLE_BEFORE = {
    "es": re.compile(r"(?:^|[\s(])(?:la|el|del|al)\s+$", re.IGNORECASE),
    "pt": re.compile(r"(?:^|[\s(])(?:a|o|na|no|da|do|à|ao|pela|pelo)\s+$", re.IGNORECASE),
    "fr": re.compile(r"(?:^|[\s(])(?:la|le|du|au)\s+$|(?:^|[\s(])l['’]$", re.IGNORECASE),
}


def _romance(when: _When, found: RelativeDate) -> str | None:
    language = found.language
    groups = found.match.groupdict()
    if groups.get("back") or groups.get("ahead") or when.unit == "day":
        return _plain(when)
    day = when.day
    if when.unit == "weekday":
        word = groups["weekday"].lower()
        noun = f"{word} {day.isoformat()}"
        # Portuguese segunda..sexta(-feira) are feminine; every other weekday is masculine.
        feminine = language == "pt" and not word.startswith(("sá", "sab", "dom"))
        gender = "f" if feminine else "m"
    else:
        template, gender = _NOUNS[language][when.unit]
        if language == "fr" and (groups.get("unit") or "").lower() == "an":
            template = "an {year}"
        noun = template.format(iso=day.isoformat(), month=_iso_month(day),
                               quarter=_quarter(day), year=day.year)
    det = groups.get("det")
    if det is None and _ARTICLE_BEFORE[language].search(found.match.string[:found.column]):
        return noun  # "la semana pasada": the article stays
    article = _ARTICLES[language][gender]
    if language == "pt" and (det is None or det.lower().startswith("n")):
        # "nesta semana", or a bare "semana passada" used as an adverb: em + article
        article = "n" + article
    return article + noun


# German: the adjective's ending tells the case, so the replacement fits the sentence; after
# an article ("im letzten Monat") only the noun is replaced.
_GERMAN = {
    "week": {"e": "in der Woche vom {iso}", "er": "der Woche vom {iso}"},
    "weekend": {"es": "am Wochenende vom {iso}", "em": "dem Wochenende vom {iso}"},
    "month": {"en": "im Monat {month}", "em": "dem Monat {month}"},
    "quarter": {"es": "im Quartal {quarter}", "em": "dem Quartal {quarter}"},
    "year": {"es": "im Jahr {year}", "em": "dem Jahr {year}"},
    "weekday": {"en": "am {weekday}, {iso}", "em": "{weekday}, {iso}"},
}
_GERMAN_NOUNS = {"week": "Woche vom {iso}", "weekend": "Wochenende vom {iso}",
                 "month": "Monat {month}", "quarter": "Quartal {quarter}", "year": "Jahr {year}",
                 "weekday": "{weekday}, {iso}"}
_GERMAN_ARTICLE_BEFORE = re.compile(
    r"(?:^|\s)(?:der|die|das|dem|den|des|im|am|vom|zum|zur|beim|ins)\s+$", re.IGNORECASE)


def _german(when: _When, found: RelativeDate) -> str | None:
    groups = found.match.groupdict()
    if groups.get("back") or groups.get("ahead") or when.unit == "day" or not groups.get("ending"):
        return _plain(when)
    if _GERMAN_ARTICLE_BEFORE.search(found.match.string[:found.column]):
        template = _GERMAN_NOUNS[when.unit]
    else:
        forms = _GERMAN[when.unit]
        template = forms.get(groups["ending"].lower()) or next(iter(forms.values()))
    day = when.day
    return template.format(iso=day.isoformat(), month=_iso_month(day), quarter=_quarter(day),
                           year=day.year, weekday=(groups.get("weekday") or "").capitalize())


_FORMATS: dict[str, Callable[[_When, RelativeDate], str | None]] = {
    "en": _english,
    "es": _romance,
    "pt": _romance,
    "fr": _romance,
    "de": _german,
    "zh": _cjk("{iso} 那一周", "{iso} 那个周末", "{year}年{month}月", "{year}年第{quarter}季度",
               "{year}年"),
    "ja": _cjk("{iso}の週", "{iso}の週末", "{year}年{month}月", "{year}年第{quarter}四半期",
               "{year}年"),
    "ko": _cjk("{iso} 주", "{iso} 주말", "{year}년 {month}월", "{year}년 {quarter}분기", "{year}년"),
}


def absolute(found: RelativeDate, reference: dt.date) -> str | None:
    """The absolute form of one relative date, in its language; None when it has no single
    answer ("recently", "a few days ago", "last sprint")."""
    shift = found.meaning()
    if shift is None:
        return None
    text = _FORMATS[found.language](_resolve(shift, reference), found)
    if text and found.phrase[:1].isupper() and text[:1].isalpha():
        text = text[0].upper() + text[1:]
    return text


def rewritten(text: str, changes: list[tuple[RelativeDate, str]]) -> str:
    """`text` with each found phrase replaced by its absolute form."""
    lines = text.split("\n")
    # Right to left within a line, so the columns of the phrases not yet replaced still hold.
    for found, new in sorted(changes, key=lambda change: (change[0].line, -change[0].column)):
        line = lines[found.line - 1]
        end = found.column + len(found.phrase)
        lines[found.line - 1] = line[:found.column] + new + line[end:]
    return "\n".join(lines)
