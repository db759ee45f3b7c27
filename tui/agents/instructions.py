"""Which sentences of a session are worth a memory: the offline extractor's judgement.

A candidate is a rule the user typed ("never push to main", 以后统一用 pnpm) or a fact they
asked to keep ("remember that staging shares the prod database"), with content of its own.
Left out, and said why: text the user did not type (a slash command's output, a hook's, a
task notification, pasted code and quotations), questions, fragments that only point
elsewhere ("That.", "For this project."), statements that merely contain a rule word ("I
don't know why"), and rules about the task at hand ("for now", "for this"). "Remember that."
keeps the sentence before it, which is what it points at.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tui.agents.conversation import Message

# Blocks Claude Code writes into a user message: command and hook output, notifications.
_MACHINE_BLOCK = re.compile(
    r"<(local-command-stdout|local-command-stderr|command-name|command-message|"
    r"task-notification|system-reminder|bash-input|bash-stdout|bash-stderr|"
    r"user-prompt-submit-hook)>.*?(?:</\1>|\Z)", re.DOTALL)
_COMMAND_ARGS = re.compile(r"</?command-args>")  # a slash command's arguments: typed
_NOT_TYPED = ("[Request interrupted", "Caveat:")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_FENCE = re.compile(r"^ {0,3}(```|~~~).*?(?:^ {0,3}\1[^\n]*$|\Z)", re.DOTALL | re.MULTILINE)
# ASCII stops end a sentence before a space (not in 1.80 or e.g.); CJK ones end it at once.
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
# Code spans and quotations say what someone else wrote: no rule word counts inside them.
_CODE_OR_QUOTE = re.compile(r"`[^`\n]+`|\"[^\"\n]*\"|“[^”\n]*”|「[^」\n]*」")

# A rule word counts where a clause starts: after the sentence's start, a clause mark, a
# conjunction, or the subject of a convention (we, you) - not in "I don't know" or "it
# always fails", which report rather than instruct.
_CLAUSE = (r"(?:^|[,;:—–(]\s*|\b(?:and|but|so|then|also|please|pls|ok|okay|oh|we|you)\s+)"
           r"(?:(?:please|also|just|really|should|must|will)\s+)*")
_RULE_WORD = re.compile(
    _CLAUSE + r"(?P<word>remember\b|always\b|never\b|don['’]t\b|do not\b|stop using\b"
    r"|from now on\b|going forward\b|use\s+\S+(?:\s+\S+)?\s+(?:not|instead of|rather than)\s)",
    re.IGNORECASE)
_CHINESE_RULE = re.compile(
    r"(?:^|[，,；;：:]\s*|请|也|千万|永远|一定)(?P<word>记住|不要|别(?![人的处名])|统一用|以后|务必)")
_REPORTING = re.compile(
    r"\b(?:i|we|you)\s+(?:don['’]t|do not|never)\s+(?:know|think|remember|see|understand|get|"
    r"care|mind|recall|believe|need)\b", re.IGNORECASE)
_QUESTION = re.compile(
    r"^(?:can|could|would|will|shall|should|do(?!\s+not\b)(?!n['’]t)|does|did|is|are|was|were|"
    r"why|how|what|where|when|which|who|have you|has)\b|[?？]$|[吗呢][。.]?$", re.IGNORECASE)
_TASK_AT_HAND = re.compile(
    r"\bfor now\b|\bthis time\b|\bright now\b|\bjust (?:this )?once\b|\bin this "
    r"(?:pr|pull request|branch|commit|task|ticket|session)\b|\bfor (?:this|that)\b(?!\s+"
    r"(?:project|repo|repository|codebase|team|app|service|package|module|kind|type|sort))"
    r"|暂时|这次", re.IGNORECASE)
# "Remember that." / "Remember this for this project." / 记住这个: it points at the sentence
# before.
_POINTS_BACK = re.compile(
    r"^(?:(?:please|and|also|so|ok|okay)[,\s]+)*remember\s+(?:that|this|it)"
    r"(?:\s+(?:for|in)\s+(?:this|the|our)\s+(?:project|repo|repository|codebase))?"
    r"(?:,?\s+(?:too|as well|please))?\s*[.!]*$|^记住(?:这个|这点|了)?[。！!.]*$", re.IGNORECASE)
_LEAD = re.compile(r"^(?:(?:also|and|oh|ps|btw|by the way|ok|okay)\b[,:]?\s+)+", re.IGNORECASE)
_TASK_TAIL = re.compile(r"\s*(?:[—–;]|\s-)\s*(?:and|then)\s+", re.IGNORECASE)
_REMEMBER = re.compile(r"^(?:please\s+)?(?:remember|记住)\b[,:：，\s]*(?:(?:that|to)\s+)?",
                       re.IGNORECASE)
_BECAUSE = re.compile(r"\b(?:because|since|so that)\b\s+(.+)|,\s+as\s+(.+)|(?:因为|由于)(.+)",
                      re.IGNORECASE)
_NORMATIVE = re.compile(
    r"\b(?:always|never|don['’]t|do not|use|run|avoid|stop|should|must|make sure|need to|"
    r"have to)\b|不要|别|统一用|必须|应该|务必", re.IGNORECASE)
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’+_.-]*")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
# Words that carry no content of their own: a rule needs two words besides these.
_FUNCTION_WORDS = frozenset("""
a an the this that these those it its it's they them their there here we us our you your i me
my he she him her and or but so then also too as well of to in on at for from by with about
into over under up out off is are was were be been being am do does did done don't dont not no
yes ok okay please just really very always never remember use using stop now from going
forward should must will would can could may might shall have has had let's lets all any
some every each one same other such more most own
""".split())
MIN_CONTENT = 2  # content words (or pairs of CJK characters) a candidate must hold
MIN_LENGTH, MAX_LENGTH = 6, 300


@dataclass(frozen=True)
class Candidate:
    type: str  # "feedback" or "project"
    rule: str
    why: str
    how: str
    uuid: str  # the user message it came from
    saved_in: tuple[str, ...] = ()  # paths of the memory files its session wrote in its turn


def typed_text(text: str) -> str:
    """What the user typed in a user message: without what Claude Code wrote into it
    (command and hook output, notifications), terminal colours, fenced code, quoted lines
    and indented (pasted) code."""
    if text.lstrip().startswith(_NOT_TYPED):
        return ""
    text = _ANSI.sub("", _COMMAND_ARGS.sub("\n", _MACHINE_BLOCK.sub("\n", text)))
    text = _FENCE.sub("\n", text)
    return "\n".join(line for line in text.split("\n")
                     if not line.lstrip().startswith(">") and not line.startswith(("    ", "\t")))


@dataclass(frozen=True)
class LeftOut:
    sentence: str
    reason: str

    def __str__(self) -> str:
        return f"“{clip(self.sentence, 80)}” ({self.reason})"


def find_instructions(messages: Sequence[Message]) -> tuple[list[Candidate], list[LeftOut]]:
    """The rules and facts worth a memory in what the user typed, and the sentences with a
    rule word that are not, each with the reason."""
    candidates: list[Candidate] = []
    left_out: list[LeftOut] = []
    taken: set[str] = set()
    last_assistant = ""
    turns = _turn_writes(messages)
    for message in messages:
        if message.role == "assistant" and message.text.strip():
            last_assistant = message.text.strip()
            continue
        if message.role != "user":
            continue
        sentences = [s.strip() for s in _SENTENCE.split(typed_text(message.text))
                     if s and s.strip()]
        for position, sentence in enumerate(sentences):
            if _POINTS_BACK.match(sentence):
                earlier = sentences[position - 1] if position else ""
                if earlier in taken:
                    continue
                reason = _left_out(earlier, pointed_at=True) if earlier else \
                    "it points at nothing said before it"
                chosen, remembered = earlier, True
            else:
                if not _rule_word(sentence):
                    continue
                chosen, remembered = sentence, False
                reason = _left_out(sentence)
            if reason:
                left_out.append(LeftOut(sentence, reason))
                continue
            taken.add(chosen)
            following = sentences[position + 1:position + 2]
            candidates.append(_candidate(chosen, remembered, following, last_assistant, message,
                                         turns.get(message.uuid, ())))
    return candidates, left_out


def _turn_writes(messages: Sequence[Message]) -> dict[str, tuple[str, ...]]:
    """user message uuid -> the files written in its turn (until the next message the
    user typed): by the agent itself, or by Claude Code's own extraction."""
    writes: dict[str, list[str]] = {}
    turn: list[str] = []
    for message in messages:
        if message.role == "user" and typed_text(message.text).strip():
            turn = writes.setdefault(message.uuid, [])
        turn.extend(message.wrote)
    return {uuid: tuple(files) for uuid, files in writes.items()}


def _rule_word(sentence: str) -> re.Match[str] | None:
    plain = _plain(sentence)
    return _RULE_WORD.search(plain) or _CHINESE_RULE.search(plain)


def _plain(sentence: str) -> str:
    """The sentence with each code span and quotation standing as one word."""
    return _CODE_OR_QUOTE.sub(lambda match: "CODE" if match.group().startswith("`") else "QUOTE",
                              sentence)


def _left_out(sentence: str, pointed_at: bool = False) -> str | None:
    """Why the sentence is no memory, or None when it is one."""
    if not MIN_LENGTH <= len(sentence) <= MAX_LENGTH:
        return "too short to hold a rule" if len(sentence) < MIN_LENGTH else "too long for a rule"
    if _QUESTION.search(sentence):
        return "a question"
    plain = _plain(sentence)
    if not pointed_at and _REPORTING.search(plain):
        return "it tells what someone knows or thinks, not what to do"
    if _TASK_AT_HAND.search(plain):
        return "about the task at hand, not a lasting rule"
    if _content(_rule_text(sentence, pointed_at)) < MIN_CONTENT:
        return "nothing of its own: a pronoun or a fragment"
    return None


def _content(text: str) -> int:
    words = [w for w in _LATIN_WORD.findall(_plain(text))
             if w.lower().strip("'’.") not in _FUNCTION_WORDS and len(w) > 1]
    return len(words) + len(_CJK.findall(text)) // 2


def _rule_text(sentence: str, pointed_at: bool) -> str:
    """The rule itself: from its rule word when a task comes first ("bump the MSRV and
    remember to run clippy"), without a task after it ("use pnpm — and run the tests"),
    without "Also:" or "Remember to" before it."""
    if not pointed_at:
        match = _rule_word(sentence)
        if match and re.search(r"\b(?:and|but|so|then)\s+$", sentence[:match.start("word")],
                               re.IGNORECASE):
            sentence = sentence[match.start("word"):]
        head, *tails = _TASK_TAIL.split(sentence, maxsplit=1)
        if tails and _rule_word(head) and not _rule_word(tails[0]):
            sentence = head.rstrip(" ,") + "."
    sentence = _LEAD.sub("", sentence)
    sentence = _REMEMBER.sub("", sentence) or sentence  # "remember to run X": the rule is X
    return sentence[:1].upper() + sentence[1:]


def _is_fact(sentence: str, pointed_at: bool) -> bool:
    """A fact to keep ("remember that staging is shared"), not a rule to follow."""
    if pointed_at:
        return not _NORMATIVE.search(sentence)
    sentence = _LEAD.sub("", sentence)
    return bool(_REMEMBER.match(sentence)) and not _NORMATIVE.search(_REMEMBER.sub("", sentence))


def _candidate(sentence: str, pointed_at: bool, following: list[str], context: str,
               message: Message, saved_in: tuple[str, ...]) -> Candidate:
    is_fact = _is_fact(sentence, pointed_at)
    rule = _rule_text(sentence, pointed_at)
    why_match = _BECAUSE.search(sentence) or next(
        (m for s in following if (m := _BECAUSE.search(s))), None)
    day = message.timestamp[:10] or "the session"
    if why_match:
        why = next(group for group in why_match.groups() if group).strip().rstrip(".。")
    elif context:
        why = f"the user said this on {day} after the assistant wrote: “{clip(context, 140)}”"
    else:
        why = f"the user asked for it explicitly on {day}"
    how = (f"treat it as a fact about the project when planning work (as of {day})" if is_fact
           else "follow it whenever the situation comes up again, without being reminded")
    return Candidate("project" if is_fact else "feedback", rule, why, how, message.uuid,
                     saved_in)


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
