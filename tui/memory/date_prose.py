"""Which relative-date phrases are dates in the memory's own prose, and when that prose was
written.

tui/memory/dates.py finds the words; most of what it finds in real memories is not a date
a later reader gets wrong: a command or file name (`/market-tomorrow`, `today-timeline.tsx`),
a field, label or report title ("🔥 今日快照", "CAIXA HOJE", `오늘의발견`, "Today P&L:"), a
quoted message, a reply template or a drafted email (tui/memory/drafts.py), a formula (`modifiedTime=今日`), a rule that uses the
word for whatever day it is applied ("check today's date", "what it does today"), a
duration ("in 9 days", "60일 뒤"), a word of another language ("hier" is "here" in Dutch).
A phrase is a date reference only outside all of these, in the language of its text.

What the sentence around a phrase says (a day told of, or "now", a rule, a question) is
tui/memory/date_sentences.py's to judge.

The audit's `relative_date` finding and the dream's rewriting share this one
judgement, so a phrase the dream would not touch is never reported either.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from tui.memory import date_sentences
from tui.memory.date_sentences import QUOTES
from tui.memory.dates import RelativeDate, Shift, relative_dates
from tui.memory.drafts import draft_lines
from tui.memory.frontmatter import BLOCK
from tui.memory.language import language_of
from tui.memory.written_on import Headings, Written, day_of_name

# Words that mean a date in one language and something else in another: found only where
# the text is plainly in the phrase's language.
_LOOK_ALIKES = frozenset({"hier", "morgen", "este", "esta", "hoy", "mañana", "manana"})

_HEADING = re.compile(r" {0,3}#{1,6}(?:\s|$)")
_TABLE_ROW = re.compile(r"\s*\|")
_BLOCKQUOTE = re.compile(r" {0,3}>")
_LIST_MARK = re.compile(r"\s*(?:(?:[-*+]|\d+[.)]|[①-⑳])\s+)?(?:\[[ xX]\]\s*)?")
_LINKS = re.compile(r"\[\[[^\]\n]*\]\]|!?\[[^\]\n]*\]\([^)\n]*\)|<[a-z]+:[^>\s]*>|\bhttps?://\S+"
                    r"|\b(?:[\w-]+/)+[\w.-]+|\b[\w-]+\.(?:md|py|ts|tsx|js|jsx|json|ya?ml|sh|sql"
                    r"|txt|csv|html|css|rs|go|java|rb)\b")
_TEMPLATE = re.compile(r"\{\{|\}\}|\{[A-Za-z_][\w.]*\}|\$\{|<[A-Za-z_][\w -]{0,30}>"
                       r"|(?<!\[)\[(?:[A-Z][A-Z_ ]+|[a-z]{2,}(?: [a-z]+){0,3})\](?![\](])")
_WHOLE_BOLD = re.compile(r"(?:\*\*|__)[^\n]+(?:\*\*|__)[:：]?\s*$")
_LEADING_BOLD = re.compile(r"(?:\*\*|__)[^*_\n]+(?:\*\*|__)")
_DEFINITION = re.compile(r"`[^`\n]+`\s*(?:[—–:-]|$)")
# Where a label may start: the line, a parenthesis, a clause of a list.
_LABEL_START = re.compile(r".*(?:^|[(\[,;·|]|\s[-–—]\s)", re.DOTALL)
_LABEL_END = re.compile(r"(?:\*\*|__)?(?:\s*[^\s:：]+){0,2}?\s*(?:\*\*|__)?[:：](?:\s|\*|$)")
_FORMULA = frozenset("=<>≤≥≠Δ×÷")
_VARIABLE_THEN_FORMULA = re.compile(r"[^\W\d]{0,6}\s*[=<>≤≥]")
_NAME_BEFORE = frozenset("/\\@#$~_")
_GLUE = frozenset("-._")
_NAME_AFTER = frozenset("/\\(_")
# Words that mention a phrase rather than use it: "avoid words like tomorrow".
_MENTIONED = re.compile(r"(?:\bwords?|\bterms?|\bphrases?|\blike|\bsuch as|\be\.g\.|\bsay|\bsaying"
                        r"|\bwrite|\bwrites|\bwriting|\bavoid|\bnever use)\s*[:,]?\s*$",
                        re.IGNORECASE)
# "today's date", "今日の日付": whatever day it is read, not the day it was written.
_DATE_NOUN = re.compile(r"['’]?s?\s*(?:date|timestamp)\b|\s*(?:の日付|日期|的日期|날짜|の日時)",
                        re.IGNORECASE)
_CURRENT_DATE = re.compile(r"\b(?:date|fecha|data|datum)\s+(?:of\s+|de\s+|d['’]\s*|von\s+)?$",
                           re.IGNORECASE)
_HANGUL = re.compile(r"[가-힣]")
_SPAN_AHEAD = re.compile(r"\b(?:over|within|during|for|in|throughout)\s+the\s+$", re.IGNORECASE)
_AROUND = 20  # lines of a paragraph read each side of a phrase
_FEEDBACK_TYPE = re.compile(r"^\s*type:\s*[\"']?feedback\b", re.MULTILINE)
_COMMENT = re.compile(r"<!--.*?(?:-->|$)")
_MEMTUI_BLOCKS = re.compile(r"From the index: |\(merged from [^)\n]+\)\s*$")


@dataclass(frozen=True)
class DateReference:
    """A relative date in the memory's own prose, and the day its text says it was written
    (None: the text does not say; the dream may still learn it from the store's history)."""

    found: RelativeDate
    written: Written | None
    copied: bool = False  # in text memtui copied in ("From the index:", "(merged from …)")


def classified(text: str, file: str = "") -> list[tuple[RelativeDate, str | None]]:
    """Every phrase dates.py finds, with why it is no date in the memory's own prose (None:
    it is one)."""
    found = relative_dates(text)
    if not found:
        return []
    context = _Context(text, file)
    return [(each, context.reason(each)) for each in found]


def date_references(text: str, file: str = "",
                    found: list[RelativeDate] | None = None) -> list[DateReference]:
    """The relative dates of the memory's own prose, each with the day its text says it
    was written, if it says (`found`: what relative_dates(text) found, when known)."""
    found = relative_dates(text) if found is None else found
    if not found:
        return []
    context = _Context(text, file)
    return [DateReference(each, context.written(each.line - 1), each.line - 1 in context.copied)
            for each in found if context.reason(each) is None]


class _Context:
    """What is known about the text around each phrase, worked out once and only if asked."""

    def __init__(self, text: str, file: str):
        self.text, self.file = text, file
        self.lines = text.split("\n")
        block = BLOCK.match(text.removeprefix("\ufeff"))
        self.frontmatter_lines = text.count("\n", 0, block.end()) if block else 0
        self.template_file = "template" in file.lower()
        self._meanings: dict[RelativeDate, Shift | None] = {}
        # A feedback memory holds rules: a date above one says when the rule was added,
        # and its "today" is whatever day the rule is applied.
        self.rules = file.rpartition("/")[2].startswith("feedback") or bool(
            block and _FEEDBACK_TYPE.search(block.group(1)))

    def meaning(self, found: RelativeDate) -> Shift | None:
        if found not in self._meanings:
            self._meanings[found] = found.meaning()
        return self._meanings[found]

    def reason(self, found: RelativeDate) -> str | None:
        line = self.lines[found.line - 1]
        start, end = found.column, found.column + len(found.phrase)
        for check in _CHECKS:
            reason = check(self, found, line, start, end)
            if reason:
                return reason
        return None

    def paragraph(self, index: int) -> str:
        """The lines around `index` up to a blank line, at most _AROUND each side (a daily
        note can run for thousands of lines without one)."""
        first = last = index
        while first > max(0, index - _AROUND) and self.lines[first - 1].strip():
            first -= 1
        while last + 1 < min(len(self.lines), index + _AROUND + 1) and self.lines[last + 1].strip():
            last += 1
        return "\n".join(self.lines[first:last + 1])

    @cached_property
    def file_language(self) -> str | None:
        body = self.text[sum(len(line) + 1 for line in self.lines[:self.frontmatter_lines]):]
        return language_of(body[:5_000])

    @cached_property
    def drafts(self) -> set[int]:
        return draft_lines(self.lines, self.frontmatter_lines)

    @cached_property
    def headings(self) -> Headings:
        return Headings(self.text)

    @cached_property
    def by_name(self) -> Written | None:
        return day_of_name(self.file)

    @cached_property
    def copied(self) -> set[int]:
        """The lines of paragraphs memtui appended: "From the index: …", "(merged from …)"."""
        lines: set[int] = set()
        if "From the index: " not in self.text and "(merged from " not in self.text:
            return lines
        inside = False
        for index, line in enumerate(self.lines):
            if _MEMTUI_BLOCKS.match(line):
                inside = True
            elif not line.strip():
                inside = False
            if inside:
                lines.add(index)
        return lines

    def written(self, index: int) -> Written | None:
        """The day the heading around the line and the file's name give; none when they
        disagree, or for text memtui copied in (it was written elsewhere, some other day)."""
        if index in self.copied:
            return None
        heading, name = self.headings.around(index), self.by_name
        if heading and name and heading.day != name.day:
            return None
        return heading or name


def _in_frontmatter(context: _Context, found: RelativeDate, *_) -> str | None:
    return "frontmatter" if found.line <= context.frontmatter_lines else None


def _line_shape(context: _Context, found: RelativeDate, line: str, *_) -> str | None:
    if _HEADING.match(line):
        return "heading"
    if _TABLE_ROW.match(line) or line.count(" | ") >= 2:
        return "table"
    if _BLOCKQUOTE.match(line):
        return "quote"
    return None


def _within(spans: re.Pattern[str], line: str, start: int, end: int) -> bool:
    return any(m.start() <= start and end <= m.end() for m in spans.finditer(line))


def _in_draft(context: _Context, found: RelativeDate, *_) -> str | None:
    """An email, reply or post drafted for someone else: its words are not the memory's."""
    return "draft" if found.line - 1 in context.drafts else None


def _quoted_or_linked(context: _Context, found: RelativeDate, line: str, start: int,
                      end: int) -> str | None:
    if _within(QUOTES, line, start, end):
        return "quote"
    if "<!--" in line and _within(_COMMENT, line, start, end):
        return "comment"
    if _within(_LINKS, line, start, end):
        return "link or file name"
    return None


def _name(context: _Context, found: RelativeDate, line: str, start: int, end: int) -> str | None:
    """A phrase glued into a name: `/market-tomorrow`, `today-timeline.tsx`, `--today`,
    `오늘의발견`."""
    before = line[start - 1] if start else ""
    after = line[end] if end < len(line) else ""
    beyond = line[end + 1] if end + 1 < len(line) else ""
    glued = start > 1 and (line[start - 2].isalnum() or line[start - 2] == before)
    if before in _NAME_BEFORE or (before in _GLUE and glued):
        return "name"
    if (after in _GLUE and beyond.isalnum()) or after in _NAME_AFTER:
        return "name"
    if _HANGUL.match(found.phrase[-1:]) and after == "의" and _HANGUL.match(beyond):
        return "name"  # Korean spaces its words: a compound is a name
    return None


def _title(context: _Context, found: RelativeDate, line: str, start: int, end: int) -> str | None:
    """Labels and titles: `Today:`, "**Tomorrow morning report**", ALL CAPS, "🔥 今日快照",
    and the definition of a name ("`weekly` — this week's nearest Friday")."""
    lead = _LIST_MARK.match(line).end()
    head = line[lead:]
    first = head[:1]
    if first and (unicodedata.category(first) == "So" or 0x1F000 <= ord(first) < 0x20000) \
            and len(head.split()) <= 8 and not re.search(r"[.!?。]\s", head):
        return "title"
    if _WHOLE_BOLD.match(head) or _DEFINITION.match(head):
        return "title"
    bold = _LEADING_BOLD.match(head)
    if bold and start < lead + bold.end():
        return "label"
    if _in_short_item(line, start):
        return "label"
    if _LABEL_END.match(line, end):
        label_start = _LABEL_START.match(line[lead:start])
        words = line[lead + (label_start.end() if label_start else 0):start].split()
        if len(words) <= 3:
            return "label"
    letters = [c for c in found.phrase if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return "title"
    return None


def _in_short_item(line: str, start: int) -> bool:
    """In an item of a list written on one line ("summary / today's timeline / calendar")."""
    for separator in (" / ", " · ", "、"):
        if separator in line:
            item = line[:start].rpartition(separator)[2] + line[start:].partition(separator)[0]
            listed = line.count(separator) >= 2 or (separator != "、" and len(line.split()) <= 8)
            if listed and len(item.split()) <= 5:
                return True
    return False


def _formula(context: _Context, found: RelativeDate, line: str, start: int, end: int) -> str | None:
    before = line[:start].rstrip()
    after = line[end:].lstrip()
    if (before[-1:] in _FORMULA or after[:1] in _FORMULA or _VARIABLE_THEN_FORMULA.match(line, end)
            or before.lower().endswith((" vs", " vs.")) or after.lower().startswith("vs")):
        return "formula"
    return None


def _in_template(context: _Context, found: RelativeDate, line: str, *_) -> str | None:
    if context.template_file or _TEMPLATE.search(line) or "{{" in context.paragraph(found.line - 1):
        return "template"
    return None


def _not_used(context: _Context, found: RelativeDate, line: str, start: int,
              end: int) -> str | None:
    """A duration, a word mentioned, or a rule about whatever day it is."""
    if found.match.groupdict().get("ahead") or _SPAN_AHEAD.search(line[:start]):
        return "duration"  # "in 9 days", "over the next week": a span of time, not a day
    if _MENTIONED.search(line[:start]):
        return "mention"
    if _DATE_NOUN.match(line, end) or _CURRENT_DATE.search(line[:start]):
        return "rule"
    return None


def _language(context: _Context, found: RelativeDate, line: str, *_) -> str | None:
    """The phrase's language must be the text's: the line's, else its paragraph's, else the
    file's. CJK scripts tell themselves apart."""
    if found.language in ("en", "zh", "ja", "ko"):
        return None  # English date words mean nothing else in the languages read here
    language = (language_of(line) or language_of(context.paragraph(found.line - 1))
                or context.file_language)
    if language:
        return None if language == found.language else f"{language} text"
    return "language unsure" if found.phrase.lower() in _LOOK_ALIKES else None


def _sentence(context: _Context, found: RelativeDate, line: str, start: int,
              end: int) -> str | None:
    def dated() -> bool:
        return context.written(found.line - 1) is not None and not context.rules

    return date_sentences.reason(found, context.meaning(found), line, start, end, dated)


_CHECKS: tuple[Callable[..., str | None], ...] = (
    _in_frontmatter, _line_shape, _quoted_or_linked, _in_draft, _name, _title, _formula, _in_template,
    _not_used, _language, _sentence,
)
