"""Which lines of a memory are a draft or a template: words written for someone else to
send, say or fill in (an email, a reply, a post, a script), kept in the memory as they are.

A draft is a quote: its "I'll send it tomorrow" is the email's, not the memory's, and no
rule that reads the memory's own prose (its dates) may take its words for the memory's.
The lines of a draft are

- the section under a heading that names one: "## Email 1 — Thousand Hills Realty",
  "### Reply template", "## Template for next dispatch", "## Antwortvorlage", "### 回复模板".
  The heading's own noun must be the draft: "Email Campaigns", "Template Fix" and "Reply
  Routing" are about drafts, in the memory's own words, and so is a plural ("Outbound
  Emails" holds the notes around the emails; "Existing Templates" lists them);
- the lines from a mail's `Subject:` line (not a list item: that is a field described)
  to the end of its section, the next heading or rule.
"""

from __future__ import annotations

import re

# The nouns that name a draft, in the languages tui/memory/date_phrases.py reads. English
# and German put the noun last ("Reply template", "Antwortvorlage"), or first before a
# preposition ("Template for next dispatch"); Spanish, Portuguese and French put it first
# ("Plantilla de respuesta"). Their word for a reply is left out, as it is also a response
# ("Tiempo de respuesta", "Respuesta a incidentes").
_LAST_NOUNS = frozenset("draft template email e-mail mail message reply post letter tweet "
                        "beitrag".split())
_GERMAN_HEADS = ("entwurf", "vorlage", "nachricht", "antwort")  # "Kundennachricht" too
_ROMANCE_NOUNS = frozenset("borrador plantilla correo mensaje publicación guion guión rascunho "
                           "mensagem publicação roteiro brouillon courriel message".split())
# A script is a program unless it is said ("Voicemail Script", "60-Second Video Script").
_SPOKEN = frozenset("voicemail video call phone sales outreach pitch cold-call reel podcast "
                    "demo talk speech interview recording voice voiceover intro outro "
                    "objection".split())
# Nouns that end a CJK heading ("回复模板", "メール下書き", "답장 초안"). Left out: 消息, as
# "最新消息" is the latest news, and the words for a program's script.
_CJK_HEADS = re.compile(
    r"(?:草稿|模板|范本|範本|邮件|郵件|回复|回覆|帖子|文案|下書き|テンプレート|テンプレ|文面|メール"
    r"|メッセージ|返信|投稿|台本|초안|템플릿|이메일|메일|메시지|답장|게시물|게시글|대본)"
    r"\s*(?:\d+|[①-⑳])?$")
# Words after the noun that say it is one: "Email to the landlord", "Plantilla de respuesta".
_PREPOSITIONS = frozenset("to for of de do da du des para pour à a al für an zum zur".split())
# A word before "email" that makes it an address: "Contact Email", "DO NOT EMAIL".
_ADDRESS = frozenset("contact support admin account login sender billing work personal "
                     "business".split())
# A word before the noun that makes another word the heading's head: "… with no email",
# "RPCs ohne REVOKE-Template".
_NOT_THE_HEAD = frozenset("not no with without mit ohne sin sem sans".split())
# A heading that starts with a deed is a task about a draft: "Add 'Trends' Template".
_DEEDS = frozenset("add added adding create created creating fix fixed fixing update updated "
                   "updating remove removed build built rewrite rewrote rewriting refactor "
                   "delete deleted migrate migrated review reviewed test tested".split())
# A heading naming a program's file is about code: "Email (processar.ts)".
_CODE_FILE = re.compile(r"\b[\w-]+\.(?:py|ts|tsx|js|jsx|sh|rb|go|rs|java|sql|json|ya?ml)\b")
_NUMBER = re.compile(r"#?\d+[a-z]?|v\d+(?:\.\d+)?|[①-⑳]")
_ASIDES = re.compile(r"\([^)\n]*\)|（[^）\n]*）|\[[^\]\n]*\]")
_PARTS = re.compile(r"\s+[—–-]{1,2}\s+|[:：|]")
_WORDS = re.compile(r"[^\W\d_][\w'’-]*|\d+[a-z]?|[①-⑳]")
_MOST_WORDS = 5  # a heading naming a draft is a short noun phrase, not a sentence
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_FENCE = re.compile(r" {0,3}(?:```|~~~)")
_RULE = re.compile(r" {0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
_SUBJECT = re.compile(r" {0,3}(?:>\s*)*(?:\*\*|__)?(?:Subject|Betreff|Asunto|Assunto|Objet"
                      r"|件名)\s*(?:\*\*|__)?\s*[:：]", re.IGNORECASE)


def draft_lines(lines: list[str], first: int = 0) -> set[int]:
    """The 0-based lines of `lines` (from `first`, past a frontmatter) inside a draft."""
    inside: set[int] = set()
    draft_level = 0  # the level of the heading whose section is a draft (0: none)
    mail = False  # after a Subject: line, until its section ends
    in_fence = False
    for index in range(first, len(lines)):
        line = lines[index]
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            mail = False
            if draft_level and level <= draft_level:
                draft_level = 0
            if not draft_level and names_a_draft(heading.group(2) or ""):
                draft_level = level
            continue
        if mail and not in_fence and _RULE.match(line):
            mail = False
        elif not in_fence and _SUBJECT.match(line):
            mail = True
        if draft_level or mail:
            inside.add(index)
    return inside


def names_a_draft(title: str) -> bool:
    """Whether a heading's title names a draft or template (see the module's docstring)."""
    if _CODE_FILE.search(title):
        return False
    title = _ASIDES.sub(" ", title.strip().strip("#")).replace("*", "").replace("`", "")
    for part in _PARTS.split(title):
        part = part.strip(" \t\"'“”‘’.,;!?")
        if _CJK_HEADS.search(part):
            return True
        words = [word.lower().replace("’", "'") for word in _WORDS.findall(part)]
        while len(words) > 1 and _NUMBER.fullmatch(words[0]):
            words.pop(0)  # "5. First-Pitch Email"
        if not words or len(words) > _MOST_WORDS or words[0] in _DEEDS:
            continue
        if len(words) == 1 and words[0] in _ROMANCE_NOUNS or _last_noun(words, len(words) - 1):
            return True
        for at in range(min(3, len(words) - 1)):
            named = words[at] in _ROMANCE_NOUNS if at == 0 else False
            if (named or _last_noun(words, at)) and (
                    words[at + 1] in _PREPOSITIONS or _NUMBER.fullmatch(words[at + 1])):
                return True  # "Email 1", "Email to the landlord", "Plantilla de respuesta"
    return False


def _last_noun(words: list[str], at: int) -> bool:
    """An English or German noun naming a draft at `at` ("Contact Email" is an address)."""
    word = words[at]
    head = word.rpartition("-")[2] or word  # "Agent-Briefing-Template", "E-Mail-Entwurf"
    before = words[at - 1] if at else ""
    if head == "script":
        return before in _SPOKEN
    if word not in _LAST_NOUNS and head not in _LAST_NOUNS and not head.endswith(_GERMAN_HEADS):
        return False
    return before not in _NOT_THE_HEAD and not (head in ("email", "mail") and before in _ADDRESS)
