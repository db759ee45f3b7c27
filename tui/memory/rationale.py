"""The **Why:** and **How to apply:** lines a feedback or project memory should carry.

Claude Code's prompt asks for a `**Why:**` line and a `**How to apply:**` line (the canonical
form); nothing enforces it, so users and translated prompts write them many ways. A label
counts, in any case, when it is

- followed by a colon, half- or full-width, with emphasis around it or not and spaces
  before the colon: `**Why:**`, `**Why**:`, `Why:`, `Why :`, `**Why：**`, `- **Why:** ...`;
- or alone on its line, as a heading or not: `## Why`, `### How to apply`, `**Why**`,
  `Why?`;
- or at the start of a heading or of a bold or italic label that opens a line (a list item's
  too), whatever follows: `## Why this exists`, `## How to apply next time`, `**Why.**`,
  `- **Why it failed:**`, `**How to apply (in reviews):**`. A label naming both,
  `**Why / How to apply:**`, counts for both.

The labels, per language (the equivalents translated prompts and users write):

| language   | Why                               | How to apply                              |
|------------|-----------------------------------|-------------------------------------------|
| English    | why                               | how to apply, apply (as the whole label)  |
| Chinese    | 为什么, 為什麼, 原因              | 如何应用, 如何應用, 应用方式, 應用方式    |
| Japanese   | なぜ, 理由                        | 適用方法                                  |
| Korean     | 왜, 이유                          | 적용 방법, 적용방법                       |
| Spanish    | por qué, porqué, motivo           | cómo aplicar, cómo aplicarlo, como aplicar|
| Portuguese | por que, por quê, porquê, motivo  | como aplicar                              |
| French     | pourquoi                          | comment appliquer, comment l'appliquer    |
| German     | warum                             | wie anwenden, anwendung                   |
| Dutch      | waarom                            | hoe toe te passen, toepassing             |
| Italian    | perché                            | come applicare                            |

Not counted: `porque` (it means "because"), other words for a reason (`Rationale:`), a
Latin label glued to a word before it (`anywhy:`) or to one after it (`## Whyte`), a
label in the middle of a heading (`## What and why`), and a list item that is only the word
(`- Why`).
"""

from __future__ import annotations

import re

WHY = "why"
HOW_TO_APPLY = "how_to_apply"

_WHY_WORDS = ("why", "por qué", "porqué", "por que", "por quê", "porquê", "motivo",
              "pourquoi", "warum", "waarom", "perché")
_WHY_CJK = ("为什么", "為什麼", "原因", "なぜ", "理由", "왜", "이유")
_HOW_WORDS = ("how to apply", "cómo aplicarlo", "cómo aplicar", "como aplicar",
              "comment l'appliquer", "comment appliquer", "wie anwenden", "anwendung",
              "hoe toe te passen", "toepassing", "come applicare")
_HOW_CJK = ("如何应用", "如何應用", "应用方式", "應用方式", "適用方法", "적용 방법", "적용방법")


def _backwards(words: tuple[str, ...], cjk: tuple[str, ...]) -> str:
    # A Latin label must not be the end of a longer word; CJK has no word boundaries.
    latin = "|".join(re.escape(word[::-1]) for word in words)
    return f"(?:{latin})(?![^\\W_])|" + "|".join(re.escape(word[::-1]) for word in cjk)


_EMPHASIS = r"[*_]{0,2}"
# The last letters of all labels: a cheap test that turns most places away before the
# alternation of labels is tried.
_LAST_LETTERS = "".join(sorted({word[-1] for word in _WHY_WORDS + _WHY_CJK + _HOW_WORDS + _HOW_CJK}))
_LABEL = (f"(?=[{_LAST_LETTERS}])(?:(?P<{WHY}>{_backwards(_WHY_WORDS, _WHY_CJK)})"
          f"|(?P<{HOW_TO_APPLY}>{_backwards(_HOW_WORDS, _HOW_CJK)}))")
# Matched on the lowered body read backwards, so that the pattern starts with a colon or a
# line break: the regex engine then skips straight to those, which keeps this as fast as the
# two plain English patterns it replaces. `colon` is empty; it only records which form began.
_LABEL_BACKWARDS = re.compile(
    rf"[:：\n](?:(?P<colon>(?<=[:：]))[ \t\u00a0\u202f]*{_EMPHASIS}|[ \t]*{_EMPHASIS}[:：?]?{_EMPHASIS})"
    rf"{_LABEL}(?(colon)|{_EMPHASIS}(?:[ \t]+#{{1,6}})?[ \t]{{0,3}}(?=\n|\Z))"
)


# The form Claude Code's prompt asks for: where both are in the body, both labels count
# (a colon follows, and `**` is no letter), and the backwards scan is not needed.
_CANONICAL_WHY = "**Why:**"
_CANONICAL_HOW = "**How to apply:**"


def rationale_labels(body: str) -> set[str]:
    """Which of WHY and HOW_TO_APPLY the memory body has a label for."""
    if _CANONICAL_WHY in body and _CANONICAL_HOW in body:
        return {WHY, HOW_TO_APPLY}
    return scanned_labels(body)


def scanned_labels(body: str) -> set[str]:
    """The labels a full reading of `body` finds: the backwards scan, then the headings and
    bold labels that start with one."""
    lowered = body.lower()
    found: set[str] = set()
    for match in _LABEL_BACKWARDS.finditer((lowered + "\n")[::-1]):
        found.add(match.lastgroup)
        if len(found) == 2:
            return found
    for match in _OPENING_LABEL.finditer("\n" + lowered):
        found |= _labels_opening(match.group("text"))
        if len(found) == 2:
            break
    return found


# A heading's text, or the text of a bold or italic label opening a line or a list item,
# when it starts with a label word (checked in full by `_labels_opening`). It starts with a
# line break, not `^`: re then jumps from one line break to the next.
_OPENING_LABEL = re.compile(
    r"\n[ \t]*(?:#{1,6}[ \t]+[*_]{0,2}|(?:(?:[-*+]|\d+[.)])[ \t]+)?(?:\*\*|__|\*|_)(?=\S))"
    r"(?P<text>(?:" + "|".join(re.escape(word) for word in (
        *_WHY_WORDS, *_WHY_CJK, *_HOW_WORDS, *_HOW_CJK, "apply")) + r")[^\n]{0,120})")
_LATIN_START = {
    WHY: re.compile("|".join(re.escape(word) for word in _WHY_WORDS)),
    HOW_TO_APPLY: re.compile("|".join(re.escape(word) for word in _HOW_WORDS)),
}
_CJK_START = {WHY: _WHY_CJK, HOW_TO_APPLY: _HOW_CJK}
# Between two labels named together: `why / how to apply`, `why & how to apply`.
_JOINED = re.compile(r"\s*(?:[/&+,|]|and|und|et|y|e|en)\s*")


# `**Apply:**` and `## Apply` say how to apply, as the whole label only (`## Apply patch`,
# "Somehow to apply:" do not).
_APPLY_ALONE = re.compile(r"apply[ \t]*[*_]{0,2}[ \t]*(?:[:：]|$)")


def _labels_opening(text: str) -> set[str]:
    """The labels `text` starts with: one, or two joined (`why / how to apply`)."""
    if _APPLY_ALONE.match(text):
        return {HOW_TO_APPLY}
    found: set[str] = set()
    position = 0
    while True:
        label, end = _label_at(text, position)
        if label is None:
            return found
        found.add(label)
        joined = _JOINED.match(text, end)
        if not joined:
            return found
        position = joined.end()


def _label_at(text: str, position: int) -> tuple[str | None, int]:
    for label, words in _CJK_START.items():
        word = next((word for word in words if text.startswith(word, position)), None)
        if word:
            return label, position + len(word)
    for label, pattern in _LATIN_START.items():
        match = pattern.match(text, position)
        if match and not text[match.end():match.end() + 1].isalnum():
            return label, match.end()
    return None, position
