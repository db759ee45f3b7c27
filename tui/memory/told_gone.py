"""Whether a memory itself says that a path it mentions moved, went or never was: "Renamed
`a.md` -> `b.md`", "`old.py` was deleted", "there is no `config/es.yml`", "(didn't
exist)". Such a mention records the move, it does not claim the path is there: it is no
stale path, and `repath` must not rewrite the sentence into nonsense.

The memory's own words decide, in the sentence holding the mention (a table cell, a list
item and a line end one too): a verb of moving or removing, or a phrase of absence, in the
languages people write memories in; or an arrow straight after the path, leading to
another path (`a.md` → `b.md`).
"""

from __future__ import annotations

import re

_GONE_WORDS = re.compile(
    r"(?i:\b(?:renam(?:ed|ing)|moved|moving|deleted|deleting|removed|removing"
    r"|relocated|superseded|replaced\s+by|was\s+replaced|formerly|previously\s+at|used\s+to\s+be"
    r"|no\s+longer|not\s+exist|doesn'?t\s+exist|didn'?t\s+exist|won'?t\s+exist"
    r"|never\s+existed|there\s+(?:is|was)\s+no|there'?s\s+no|is\s+gone|was\s+gone|are\s+gone"
    r"|umbenannt|verschoben|gel(?:ö|oe)scht|entfernt|existiert\s+nicht|gibt\s+es\s+nicht"
    r"|nicht\s+mehr|rinominat[oaie]|spostat[oaie]|eliminat[oaie]|rimoss[oaie]|cancellat[oaie]"
    r"|non\s+esiste|renombrad[oa]s?|movid[oa]s?|borrad[oa]s?|eliminad[oa]s?|no\s+existe"
    r"|renomead[oa]s?|removid[oa]s?|exclu[íi]d[oa]s?|n[ãa]o\s+existe|renomm[ée]e?s?"
    r"|d[ée]plac[ée]e?s?|supprim[ée]e?s?|n'existe\s+pas)\b"
    r"|переименова|перенес[её]н|перемещ[её]н|удал[её]н|не\s+существует|больше\s+нет"
    r"|削除|移動|リネーム|名前変更|存在しない|廃止|删除|刪除|移动|重命名|改名|不存在|已移除)"
)
# A sentence ends at a full stop, "!", "?" or ";" before a space, at a table cell's "|",
# and at a line end.
_SENTENCE_END = re.compile(r"[.!?;。！？](?=\s)|\||\n")
# An arrow straight after the path (its closing backtick or quote aside), then a path.
_ARROW_AFTER = re.compile(r"""[`'"*]*\s*(?:->|=>|→|⇒|⟶)\s*[`'"*]*[\w./-]*[/.]\w""")


def told_gone(text: str, start: int, end: int) -> bool:
    """Whether the sentence holding `text[start:end]` (a path) says it moved, went or was
    never there."""
    if _ARROW_AFTER.match(text, end):
        return True
    before = max(text.rfind("\n", 0, start), text.rfind("|", 0, start))
    for match in _SENTENCE_END.finditer(text, before + 1, start):
        before = match.start()
    after = _SENTENCE_END.search(text, end)
    sentence = text[before + 1:after.start() if after else len(text)]
    return _GONE_WORDS.search(sentence) is not None
