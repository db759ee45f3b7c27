"""Whether a memory itself says that a path it mentions is not there: it moved, went, never
was or must not be ("Renamed `a.md` -> `b.md`", "`old.py` was deleted", "there is no
`config/es.yml`", "(didn't exist)", "never create `src/middleware.ts`"), or names it only
as an example ("e.g. `src/lib/x.ts`"). Such a mention claims nothing of the checkout: it is
no stale path, and `repath` must not rewrite the sentence into nonsense.

The memory's own words decide: in the sentence holding the mention (a table cell, a list
item and a line end one too), a verb of moving or removing, a phrase of absence or a
prohibition to create it, in the languages people write memories in; an arrow straight
after the path, leading to another path (`a.md` → `b.md`); "e.g." or its kin straight
before it; git's ` D ` (deleted) before it on a line of `git status`; or a heading of its
section, when that names files to delete ("## Files to delete", "## Dead code").
"""

from __future__ import annotations

import bisect
import re

from ahocorasick_rs import BytesAhoCorasick, Implementation

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
# A section's heading that names files that go: a word of removing and a word for files
# ("## Files to delete", "### Deleted files", "## Files zum Loeschen"), or dead code. A
# heading removing anything else ("D22: Read → Mutation → Delete") says nothing of paths.
_REMOVING = (r"(?:delet\w*|remov\w*|l(?:ö|oe)sch\w*|gel(?:ö|oe)scht\w*|entfern\w*|rimoss\w*"
             r"|rimuover\w*|eliminat\w*|eliminad\w*|eliminar|borrad\w*|borrar|supprim\w*)")
_FILES = r"(?:files?|dateien|datei|paths?|pfade|archivos|fichiers|file\s+da)"
_GONE_HEADING = re.compile(
    rf"(?i:\b{_REMOVING}\b.*\b{_FILES}\b|\b{_FILES}\b.*\b{_REMOVING}\b"
    r"|\bdead\s+code\b|\btote[rn]?\s+(?:code|files|dateien)\b)|削除対象|削除したファイル|删除的文件")
# A heading, or a fence's line (a `# comment` in fenced code is no heading).
_HEADING_OR_FENCE = re.compile(r"^(?:(#{1,6})[ \t][^\n]*|[ ]{0,3}(?:`{3,}|~{3,}))", re.MULTILINE)
# "e.g." and its kin straight before the path (its opening backtick, quote or bracket aside).
_EXAMPLE_BEFORE = re.compile(
    r"(?i:(?:\be\.\s?g\.|\bz\.\s?b\.|\bfor\s+(?:example|instance)|\bbeispiel(?:sweise)?:?"
    r"|\bp\.\s?ex\.|\bpor\s+ejemplo|\bpor\s+exemplo|\bad\s+es\.|\bpar\s+exemple|例えば|例如|比如)"
    r"[\s:,]*[`'\"(\[*]*)$")
# git status's short form: a line " D path" or "D  path" (deleted from the work tree or the
# index).
_STATUS_DELETED = re.compile(r"^[ \t]?D[ \t]+[`'\"]?$", re.MULTILINE)
# Every word the patterns above start from, as bytes an ASCII lowercasing leaves alone: a text
# is searched for them in one pass (Aho-Corasick), and a pattern is tried only where one is:
# trying the patterns' long alternations at each character is slow.
_CUE_WORDS = (
    "renam", "moved", "moving", "delet", "remov", "relocat", "supersed", "replaced", "formerly",
    "previously", "used to", "no longer", "t exist", "never exist", "there is no",
    "there was no", "there's no", "is gone", "was gone", "are gone", "migrat", "migriert",
    "migrad", "never create", "t create", "anlegen", "nunca", "non creare", "existiert nicht",
    "umbenannt", "verschoben", "gelöscht", "geloescht", "entfernt", "gibt es nicht",
    "nicht mehr", "rinominat", "spostat", "eliminat", "rimoss", "cancellat", "non esiste",
    "renombrad", "movid", "borrad", "eliminad", "eliminar", "o existe", "renomead", "removid", "exclu",
    "n'existe",
    "renomm", "déplac", "deplac", "supprim", "переименова", "Переименова", "перенес",
    "Перенес", "перемещ", "Перемещ", "удал", "Удал", "существует", "больше нет", "Больше нет",
    "削除", "移動", "リネーム", "名前変更", "存在しない", "廃止", "删除", "刪除", "移动", "重命名",
    "改名", "不存在", "已移除", "e.g", "e. g", "z.b", "z. b", "for example", "for instance",
    "beispiel", "p.ex", "p. ex", "ejemplo", "exemplo", "ad es.", "exemple", "例えば", "例如",
    "比如", "löschen", "loeschen", "entfernen", "dead code", "tote", "rimuover", "borrar",
    "remover", "excluir", "->", "=>", "→", "⇒", "⟶",
)
# A DFA: three times as fast to search as the default automaton, for a few ms to build.
_CUES = BytesAhoCorasick([word.encode() for word in _CUE_WORDS],
                         implementation=Implementation.DFA)


def _any_between(offsets: list[int], start: int, end: int) -> bool:
    """Whether a sorted offset lies in [start, end)."""
    at = bisect.bisect_left(offsets, start)
    return at < len(offsets) and offsets[at] < end


# A sentence ends at a full stop, "!", "?" or ";" before a space, at a table cell's "|",
# and at a line end.
_SENTENCE_END = re.compile(r"[.!?;。！？|\n](?:(?<=[|\n])|(?=\s))")
# An arrow straight after the path (its closing backtick or quote aside), then a path.
_ARROW_AFTER = re.compile(r"""[`'"*]*\s*(?:->|=>|→|⇒|⟶)\s*[`'"*]*[\w./-]*[/.]\w""")


class ToldGone:
    """Asks of one text, mention by mention, whether it says the path is not there. The
    text is searched once for the cue words; a line is looked at closer only when it holds
    one, and the headings only when one of them does. Only mentions found stale are asked
    (`tui.memory.stale_paths`): a few a store."""

    def __init__(self, text: str):
        self.text = text
        self.raw = text.encode("utf-8", "surrogatepass")
        self.cues = sorted(start for _, start, _ in _CUES.find_matches_as_indexes(self.raw.lower()))
        self.ascii = len(self.raw) == len(text)  # byte offsets are character offsets
        self._lines: dict[int, list[int]] = {}  # a line's start -> its cues, in characters
        self._headings: tuple[list[int], list[bool]] | None = None

    def __call__(self, start: int, end: int) -> bool:
        """Whether the memory says `text[start:end]` (a path) is not there, or names it as
        an example."""
        text = self.text
        line_start = text.rfind("\n", 0, start) + 1
        if text.startswith(("D", " D", "\tD"), line_start) and \
                _STATUS_DELETED.match(text, line_start, start):
            return True
        if not self.cues:
            return False  # no word of moving, removing or examples anywhere in the text
        line_end = text.find("\n", end)
        line_end = line_end if line_end != -1 else len(text)
        cues = self._line_cues(line_start, line_end)
        if _any_between(cues, line_start, line_end):  # most lines have no cue word
            window = max(line_start, start - 24)
            if _ARROW_AFTER.match(text, end) or _any_between(cues, window, start) and \
                    _EXAMPLE_BEFORE.search(text, window, start) or \
                    self._sentence_says_gone(cues, line_start, start, end, line_end):
                return True
        return self._heading_says_gone(start)

    def _line_cues(self, line_start: int, line_end: int) -> list[int]:
        """Where the cue words of a line start, in characters."""
        if self.ascii:
            return self.cues  # offsets are the same: searched by bisection as they are
        if line_start not in self._lines:
            line = self.text[line_start:line_end].encode("utf-8", "surrogatepass")
            found = []
            for _, start, _ in _CUES.find_matches_as_indexes(line.lower()):
                found.append(line_start + len(line[:start].decode("utf-8", "surrogatepass")))
            self._lines[line_start] = found
        return self._lines[line_start]

    def _sentence_says_gone(self, cues: list[int], line_start: int, start: int, end: int,
                            line_end: int) -> bool:
        text = self.text
        before = max(line_start - 1, text.rfind("|", line_start, start))
        for match in _SENTENCE_END.finditer(text, before + 1, start):
            before = match.start()
        after = _SENTENCE_END.search(text, end, line_end)
        stop = after.start() if after else line_end
        # Tried only around each cue word: the long alternation is slow over a long line.
        at = bisect.bisect_left(cues, before + 1)
        while at < len(cues) and cues[at] < stop:
            cue = cues[at]
            if _GONE_WORDS.search(text, max(before + 1, cue - 16), min(stop, cue + 48)):
                return True
            at += 1
        return False

    def _heading_says_gone(self, offset: int) -> bool:
        """Whether a heading of the section holding `offset` (its own, or one it sits
        under) names files that go."""
        if self._headings is None:
            self._headings = self._gone_sections()
        starts, gone = self._headings
        at = bisect.bisect_right(starts, offset) - 1
        return at >= 0 and gone[at]

    def _gone_sections(self) -> tuple[list[int], list[bool]]:
        """Where each heading starts, and whether it or one it sits under names files that
        go (read once, in one pass down the text)."""
        raw = self.raw
        if not any(raw.startswith(b"#", raw.rfind(b"\n", 0, cue) + 1) for cue in self.cues):
            return [], []  # no heading holds a cue word: none says files go
        starts: list[int] = []
        gone: list[bool] = []
        open_sections: list[tuple[int, bool]] = []  # (level, gone) of the headings above
        in_fence = False
        for match in _HEADING_OR_FENCE.finditer(self.text):
            if match.group(1) is None:
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            level = len(match.group(1))
            while open_sections and open_sections[-1][0] >= level:
                open_sections.pop()
            heading = match.group()
            says = bool(_GONE_HEADING.search(heading)) or \
                bool(open_sections and open_sections[-1][1])
            open_sections.append((level, says))
            starts.append(match.start())
            gone.append(says)
        return starts, gone
