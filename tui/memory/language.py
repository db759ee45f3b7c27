"""Which Latin-script language a piece of text is written in, from its commonest words.

Only asked of the few lines that hold a relative-date word (see tui/memory/date_prose.py),
so a plain count of function words is enough: each language's words are ones its prose uses
in nearly every sentence and the others rarely do. A word two languages share counts for
both, so only the words and letters a language has alone can make it win. Dutch is here
only to be told apart: its "hier" (here) and "morgen" are not French or German dates.
"""

from __future__ import annotations

import re

_WORDS = {
    "en": "the and of to is was were with for that this it we not are be on from have has "
          "but they you an by which",
    "es": "el los las del que y con para por una es se no pero lo al como más está fue hay "
          "muy sin sobre también cuando",
    "pt": "o os as do da dos das que e com para não uma um em no na é foi mas isso está "
          "também pelo pela quando ao",
    "fr": "le la les des du et est que une pour dans pas sur avec ce qui au en je nous il "
          "sont mais aussi cette",
    "de": "der die das und ist nicht mit für auf den dem ein eine zu von sich wir auch es "
          "im wird noch bei nach oder",
    "nl": "de het een en van is niet op te dat die voor met zijn er ook maar wordt naar bij "
          "nog wel deze dit als kan hebben",
}
_WEIGHTS: dict[str, dict[str, float]] = {}
for _language, _words in _WORDS.items():
    for _word in _words.split():
        _WEIGHTS.setdefault(_word, {})[_language] = 0.0
for _word, _languages in _WEIGHTS.items():
    for _language in _languages:
        _languages[_language] = 1 / len(_languages)

# Letters and spellings one language has and the others here do not.
_MARKS = {
    "pt": re.compile(r"[ãõ]|\w(?:ção|ções)\b", re.IGNORECASE),
    "es": re.compile(r"ñ|¿|¡|\w(?:ción|ciones)\b", re.IGNORECASE),
    "fr": re.compile(r"[èëîïûœ]|\b[cjldqns]['’][aeiouyhé]", re.IGNORECASE),
    "de": re.compile(r"[äöüß]|\w{3,}(?:ung|ungen|keit|lich)\b", re.IGNORECASE),
    "nl": re.compile(r"\w*ij\w*|\w(?:heid|lijk)\b", re.IGNORECASE),
}
# Words of letters alone: "e2e" or "v1" is no word of any language.
_WORD = re.compile(r"(?<![\w'’])[^\W\d_]+(?:['’][^\W\d_]+)?(?![\w'’])")


def scores(text: str) -> dict[str, float]:
    """How much of each language the text shows."""
    found: dict[str, float] = {}
    for word in _WORD.findall(text.lower()):
        for language, weight in _WEIGHTS.get(word, {}).items():
            # "e", "o", "y", "a": short enough to turn up in names and lists of any language
            found[language] = found.get(language, 0.0) + (weight / 2 if len(word) == 1 else weight)
    for language, marks in _MARKS.items():
        hits = len(marks.findall(text))
        if hits:
            found[language] = found.get(language, 0.0) + hits
    return found


def language_of(text: str) -> str | None:
    """The language the text is plainly written in, or None when it does not say."""
    found = scores(text)
    if not found:
        return None
    ranked = sorted(found.items(), key=lambda item: item[1], reverse=True)
    best, score = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else 0.0
    return best if score >= 2 and score >= 1.5 * second else None
