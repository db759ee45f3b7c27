"""What the sentence around a relative-date phrase says: a day told of, or "now", a rule,
a question, a day it already names.

Outside a note its text dates (a dated file name or heading: a journal; a feedback memory
is rules, whatever dates its headings carry), "today" or "next week" is taken for a day
only in a clause that tells of something done or planned ("fixed today", "we'll ship next
week"): elsewhere it mostly says "now" ("X does not exist today") or whatever day a rule,
a spec or a procedure is applied ("book now for next quarter", "pass the baton to
tomorrow"). A day gone by ("yesterday", "3 days ago") is told of by its very words, and a
weekday ("next Thursday") is one day whatever the tense around it. A phrase with no single
day ("recently") is never taken: nothing could be written in its place, and it is as often
generic ("近期快照", recent snapshots). A sentence that already names its day ("tomorrow
(Mar 25)") does not rot.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tui.memory.dates import RelativeDate, Shift
from tui.memory.written_on import mentions_a_day

QUOTES = re.compile(r"“[^”\n]*”|„[^“”\"\n]*[“”\"]|«[^»\n]*»|「[^」\n]*」|『[^』\n]*』|‘[^’\n]*’(?!\w)"
                    r"|(?<![A-Za-z0-9\"])\"[^\"\n]+(?:\"(?![A-Za-z0-9\"])|$)"
                    r"|(?<![A-Za-z0-9'])'[^'\n]+'(?![A-Za-z0-9'])")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|[。！？]")
_CLAUSE_END = re.compile(r"(?<=[.!?;])\s+(?=\S)|[。！？；]|\s[—–]\s|\s-\s")
_PARENTHESES = re.compile(r"\([^()\n]*\)|（[^（）\n]*）")
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")

# A clause that tells of something done or planned (English: see _deed_beside).
_NARRATIVE = {
    "de": r"\b(?:war|waren|wurde|wurden|hatte|hatten|habe|haben|hat|wird|werden|soll|"
          r"ge\w{3,}(?:t|en)|schon|bereits|bis)\b",
    "es": r"\b(?:fue|fueron|hubo|hemos|ha|han|va a|vamos a|\w{3,}(?:ó|aron|ieron|ado|ido|amos))\b",
    "pt": r"\b(?:foi|foram|houve|vai|vamos|\w{3,}(?:ou|aram|eram|iram|ado|ido|amos))\b",
    "fr": r"\b(?:a|ont|avons|ai|était|étaient|fut|va|vais|allons|\w{3,}(?:é|ée|és|ées|ait))\b",
    "zh": r"了|过|過|已|完成|修复|修復|上线|上線|发布|發布|将|將|要|会|會",
    "ja": r"(?:し|っ|ん|い|き|け|せ|て|れ)た|だった|ました|済み|予定|します",
    "ko": r"었|았|했|였|됐|완료|예정|할 ",
}
_NARRATIVE_CUES = {code: re.compile(pattern, re.IGNORECASE) for code, pattern in _NARRATIVE.items()}
_WORDS = re.compile(r"[A-Za-z']+")
_PAST = re.compile(r"(?:was|were|been|did|had|got|went|took|made|saw|found|ran|built|broke|wrote|"
                   r"sent|came|left|began|became|lost|paid|put|said|told|won|kept|held|set|let|"
                   r"cut|froze|chose|fell|felt|forgot|gave|grew|heard|hit|knew|led|met|rose|"
                   r"shut|sold|spent|stood|struck|taught|threw|woke|bought|brought|caught|"
                   r"thought|fought|seen|done|gone|taken|given|written|broken|shown|\w{2,}ed)",
                   re.IGNORECASE)
_FUTURE = re.compile(r"will|'ll|\w+'ll|going|gonna|planned|scheduled|pending|until", re.IGNORECASE)
_DETERMINERS = frozenset({"a", "an", "the", "no", "this", "that", "its", "his", "her", "their",
                          "our", "my", "your", "any", "every"})
_LATIN = re.compile(r"[A-Za-z]")
# A clause of a condition ("even if today's reading…") is a rule, whatever its verbs; "is"
# or "are" beside "today" is a state now ("not an active developer today").
_CONDITION = re.compile(r"\b(?:if|when|whenever|unless|regardless|wenn|falls|sobald"
                        r"|si|se|cuando|quando)\b|如果|若|の場合|場合は|(?<=[가-힣])면\b",
                        re.IGNORECASE)
_HYPOTHETICAL = re.compile(r"\b(?:would|würde|würden|serait|sería|seria)\b", re.IGNORECASE)
# Words before "today" that make it a point in time, not "now" ("retros from today").
_POINT_IN_TIME = re.compile(r"\b(?:of|from|since|until|before|after|by|for|von|seit|vor|bis|ab"
                            r"|für|de|desde|hasta|até|depuis|jusqu['’]à)\s*$", re.IGNORECASE)
_STATE_NOW = {code: re.compile(rf"\b(?:{words})\b", re.IGNORECASE) for code, words in {
    "en": "is|are|am|isn't|aren't|does|doesn't",
    "de": "ist|sind|bin|gibt|existiert|bleibt",
    "es": "es|son|está|están|hay",
    "pt": "é|são|está|estão|há",
    "fr": "est|sont|existe|reste",
}.items()}
_CHECKBOX = re.compile(r"\s*[-*+]\s+\[ \]")
_NOW_UNITS = frozenset({"day", "week", "weekend", "month", "quarter", "year"})


def _span(pattern: re.Pattern[str], line: str, start: int) -> tuple[int, int]:
    """Where the sentence (or clause) around `start` begins and ends."""
    ends = [0, *(m.end() for m in pattern.finditer(line)), len(line) + 1]
    return max(end for end in ends if end <= start), min(end for end in ends if end > start)


def _sentence(pattern: re.Pattern[str], line: str, start: int) -> str:
    first, last = _span(pattern, line, start)
    return line[first:last]


def _question(line: str, start: int) -> str | None:
    """"What did we finish yesterday?": an agenda or a prompt, not a day told of."""
    sentence = _sentence(_SENTENCE_END, line, start).rstrip(" *_)")
    return "question" if sentence.endswith(("?", "？")) else None


def _beside_a_date(meaning: Shift, line: str, start: int) -> str | None:
    """"tomorrow (Mar 25)": the sentence already names its day ("40 years ago (1986)": its
    year)."""
    sentence = _sentence(_SENTENCE_END, line, start)
    if mentions_a_day(sentence):
        return "dated"
    if meaning.unit == "year" and _YEAR.search(sentence):
        return "dated"
    return None


def _clause(line: str, start: int, end: int) -> str:
    """The words around the phrase that make its clause: the parenthesis it stands in, or
    its clause without the parentheses beside it ("(raised from 0.50 today)")."""
    for aside in _PARENTHESES.finditer(line):
        if aside.start() < start and end < aside.end():
            return line[aside.start():start] + line[end:aside.end()]
    first, last = _span(_CLAUSE_END, line, start)
    return _PARENTHESES.sub(" ", line[first:start] + " " + line[end:last])


def _tells_of_a_day(found: RelativeDate, meaning: Shift, line: str, start: int, end: int,
                    dated: bool) -> str | None:
    """Outside a dated note, only in a clause of something done or planned."""
    if not dated and _CHECKBOX.match(line):
        return "procedure"  # "- [ ] Review last month's figures": a step done again and again
    if meaning.amount < 0 or meaning.unit in ("weekday", "day_of_week"):
        return None  # "yesterday" tells of a day by its very words; "next Thursday" is one
    clause = QUOTES.sub(" ", _clause(line, start, end))
    # English is the language prose most often mixes in ("上周 the team agreed").
    english = found.language == "en" or (found.language in ("zh", "ja", "ko")
                                         and _LATIN.match(line[end:end + 2].strip()[:1] or "-"))
    told = _deed_beside(line, start, end) if english \
        else bool(_NARRATIVE_CUES[found.language].search(clause))
    # A condition governs what follows it: "if no response, deduct next month's rent" is a
    # rule; "review today's invites if they still need action" is not.
    before = clause if not dated else line[_span(_CLAUSE_END, line, start)[0]:start]
    condition = _CONDITION.search(QUOTES.sub(" ", before))
    if _HYPOTHETICAL.search(clause) or condition:
        return "rule"
    if not told and _states_now(found, meaning, line, start, end, clause):
        return "now"  # "the handlers are checklists today": how things stand, not a day
    if dated or told:
        return None
    return "now" if meaning.amount == 0 and meaning.unit in _NOW_UNITS else "rule"


def _deed_beside(line: str, start: int, end: int) -> bool:
    """English tells of a deed on a day with the verb a few words before it ("fixed the test
    today", "we'll ship it tomorrow"), or after it when it opens the clause ("上周 the team
    agreed"): an "-ed" after a determiner or farther away is as often an adjective ("no
    dedicated view today")."""
    first, last = _span(_SENTENCE_END, line, start)
    before = _WORDS.findall(line[max(first, start - 80):start])
    after = _WORDS.findall(line[end:min(last, end + 60)])
    for back in range(1, min(len(before), 4) + 1):
        word = before[-back]
        if _PAST.fullmatch(word) and (back == len(before)
                                      or before[-back - 1].lower() not in _DETERMINERS):
            return True
    if any(_FUTURE.fullmatch(word) for word in before[-5:]):
        return True
    opens = not line[:start].strip(" \t-*+0123456789.)[]") or _CLAUSE_END.search(
        line[max(0, start - 3):start])
    return bool(opens and any(_PAST.fullmatch(word) for word in after[:4]))


def _states_now(found: RelativeDate, meaning: Shift, line: str, start: int, end: int,
                clause: str) -> bool:
    """"Today" beside "is" or "are", not a point in time ("today's issue", "from today")."""
    state_now = _STATE_NOW.get(found.language)
    if meaning.unit != "day" or meaning.amount != 0 or state_now is None:
        return False
    if line[end:end + 2] in ("'s", "’s") or _POINT_IN_TIME.search(line[:start]):
        return False
    return bool(state_now.search(clause))


def reason(found: RelativeDate, meaning: Shift | None, line: str, start: int, end: int,
           dated: Callable[[], bool]) -> str | None:
    """Why the sentence makes the phrase no date of a day it tells of, or None. `dated`:
    whether the line sits in a note its text dates (asked only when it matters)."""
    if meaning is None:
        return "vague"
    return (_question(line, start) or _beside_a_date(meaning, line, start)
            or _tells_of_a_day(found, meaning, line, start, end, dated()))
