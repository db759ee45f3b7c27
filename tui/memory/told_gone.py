"""Whether a memory itself says that a path it mentions is not there: it moved, went, never
was or must not be ("Renamed `a.md` -> `b.md`", "`old.py` was deleted", "there is no
`config/es.yml`", "(didn't exist)", "never create `src/middleware.ts`"), or names it only
as an example ("e.g. `src/lib/x.ts`"). Such a mention claims nothing of the checkout: it is
no stale path, and `repath` must not rewrite the sentence into nonsense.

The memory's own words decide: in the sentence holding the mention (a table cell, a list
item and a line end one too), a verb of moving or removing, a phrase of absence or a
prohibition to create it, in the languages people write memories in; an arrow straight
after the path, leading to another path (`a.md` → `b.md`); "e.g." or its kin straight
before it; git's ` D ` (deleted) before it on a line of `git status`; or the heading of its
section, when that names files to delete ("## Files to delete", "## Dead code").
"""

from __future__ import annotations

import re

_GONE_WORDS = re.compile(
    r"(?i:\b(?:renam(?:ed|ing)|moved|moving|deleted|deleting|removed|removing"
    r"|relocated|superseded|replaced\s+by|was\s+replaced|formerly|previously\s+at|used\s+to\s+be"
    r"|migrated|migriert|migrad[oa]|never\s+create|don'?t\s+create|do\s+not\s+create"
    r"|nicht\s+anlegen|nie\s+anlegen|nunca\s+cri?ar|non\s+creare"
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
# What a section's heading says of the files listed under it, beyond `_GONE_WORDS`.
_GONE_HEADING = re.compile(
    r"(?i:\b(?:delet(?:e|ion)|remov(?:e|al)|l(?:ö|oe)schen|entfernen|dead\s+code|tote[rn]?\s+"
    r"(?:code|files|dateien)|eliminare|rimuovere|eliminar|borrar|remover|excluir|supprimer)\b"
    r"|削除対象|删除)")
_HEADING = re.compile(r"^#{1,6}[ \t][^\n]*", re.MULTILINE)
_HEADINGS_BACK = 12  # headings looked at above a mention: a long file's stay cheap
# "e.g." and its kin straight before the path (its opening backtick, quote or bracket aside).
_EXAMPLE_BEFORE = re.compile(
    r"(?i:(?:\be\.\s?g\.|\bz\.\s?b\.|\bfor\s+(?:example|instance)|\bbeispiel(?:sweise)?:?"
    r"|\bp\.\s?ex\.|\bpor\s+ejemplo|\bpor\s+exemplo|\bad\s+es\.|\bpar\s+exemple|例えば|例如|比如)"
    r"[\s:,]*[`'\"(\[*]*)$")
# git status's short form: a line " D path" or "D  path" (deleted from the work tree or the
# index).
_STATUS_DELETED = re.compile(r"^[ \t]?D[ \t]+[`'\"]?$", re.MULTILINE)
# A sentence ends at a full stop, "!", "?" or ";" before a space, at a table cell's "|",
# and at a line end.
_SENTENCE_END = re.compile(r"[.!?;。！？](?=\s)|\||\n")
# An arrow straight after the path (its closing backtick or quote aside), then a path.
_ARROW_AFTER = re.compile(r"""[`'"*]*\s*(?:->|=>|→|⇒|⟶)\s*[`'"*]*[\w./-]*[/.]\w""")


def told_gone(text: str, start: int, end: int) -> bool:
    """Whether the memory says `text[start:end]` (a path) is not there, or names it as an
    example."""
    if _ARROW_AFTER.match(text, end):
        return True
    line_start = text.rfind("\n", 0, start) + 1
    if _EXAMPLE_BEFORE.search(text, max(line_start, start - 24), start) or \
            _STATUS_DELETED.match(text, line_start, start):
        return True
    before = max(line_start - 1, text.rfind("|", line_start, start))
    for match in _SENTENCE_END.finditer(text, before + 1, start):
        before = match.start()
    after = _SENTENCE_END.search(text, end)
    sentence = text[before + 1:after.start() if after else len(text)]
    return _GONE_WORDS.search(sentence) is not None or _heading_says_gone(text, line_start)


def _heading_says_gone(text: str, line_start: int) -> bool:
    """Whether a heading of the section holding the line at `line_start` (its own, or one
    it sits under) names files that go."""
    level = 7  # only headings of a higher level (fewer `#`) contain the section found so far
    at = line_start
    for _ in range(_HEADINGS_BACK):
        if level == 1 or at == 0:
            break
        newline = text.rfind("\n#", 0, at - 1)
        at = newline + 1 if newline != -1 else 0
        match = _HEADING.match(text, at)
        if match is not None:
            heading = match.group()
            marks = len(heading) - len(heading.lstrip("#"))
            if marks < level:
                level = marks
                if _GONE_HEADING.search(heading) or _GONE_WORDS.search(heading):
                    return True
        if newline == -1:
            break
    return False
