"""The offline engine: deterministic steps on a staging copy, no network.

Dream: merge near-duplicate memories (every line of each kept), turn relative dates into
absolute ones, write renamed paths of the code as they are now, rebuild the index within its
limits. Extraction: explicit instructions the
user typed become candidate feedback or project memories.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from tui.agents.conversation import Message
from tui.agents.datefix import fix_dates as fix_dates  # the dream calls it from here
from tui.agents.hubs import HUB_FILES
from tui.agents.indexfit import IndexRebuild, MemoryInfo, rebuild_index
from tui.agents.staging import Staging
from tui.claude.checkout import Checkout
from tui.claude.lines import read_store_text, split_lines
from tui.claude.memory_files import is_log, is_team, memory_files
from tui.claude.paths import INDEX_NAME
from tui.memory import frontmatter
from tui.memory.similarity import near_duplicates
from tui.memory.stale_paths import repath_text
from tui.memory.store import load_store
from tui.words import plural

Log = Callable[[str, str], None]


def memory_infos(staging: Staging) -> list[MemoryInfo]:
    """The memories MEMORY.md indexes: every memory file below the store (subfolders too),
    but daily logs, team memory (its own index) and linked names."""
    infos = []
    for relative, _entry in memory_files(staging.root):
        if is_log(relative) or is_team(relative) or staging.linked(relative):
            continue
        path = staging.root / relative
        text = read_store_text(path)
        fm = frontmatter.parse(text)
        infos.append(MemoryInfo(relative, fm.name or path.stem, fm.description or "",
                                fm.type, path.stat().st_mtime, text))
    return infos


# --- merging ------------------------------------------------------------------------------


def merge_duplicates(staging: Staging, log: Log) -> dict[str, str]:
    """Fold each group of near-duplicates into one file; {merged-away file: keeper}."""
    store = load_store(staging.root)
    # Hubs are alike by design (the same opening line), and each holds its own type's lines.
    memories = [m for m in store.memories if not m.outside_target and not m.path.is_symlink()
                and m.file not in HUB_FILES]
    parent = {m.file: m.file for m in memories}

    def root(file: str) -> str:
        while parent[file] != file:
            parent[file] = parent[parent[file]]
            file = parent[file]
        return file

    for first, second, _ in near_duplicates(memories):
        parent[root(second.file)] = root(first.file)
    groups: dict[str, list] = {}
    for memory in memories:
        groups.setdefault(root(memory.file), []).append(memory)

    visible = {link.file for link in store.index.links if link.visible}
    indexed = {link.file for link in store.index.links}
    renamed: dict[str, str] = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda m: (m.file not in visible, m.file not in indexed, -len(m.body), m.file))
        keeper, others = group[0], group[1:]
        text = keeper.text
        for other in others:
            text = _union(text, other)
            (staging.root / other.file).unlink()
            staging.deleted.add(other.file)
            renamed[other.file] = keeper.file
        (staging.root / keeper.file).write_text(text, encoding="utf-8")
        log("info", f"merged {', '.join(o.file for o in others)} into {keeper.file}")
    return renamed


def _union(text: str, other) -> str:
    """`text` plus every line of `other` it does not already hold (nothing is dropped)."""
    have = {line.strip() for line in split_lines(text) if line.strip()}
    extra = [line for line in split_lines(other.body)
             if line.strip() and line.strip() not in have]
    if other.description and other.description.strip() not in text:
        extra.insert(0, other.description.strip())
    if not extra:
        return text
    return text.rstrip("\n") + f"\n\n(merged from {other.file})\n" + "\n".join(extra) + "\n"


# --- paths of the code ------------------------------------------------------------------


def update_paths(staging: Staging, checkout: Checkout, log: Log) -> int:
    """Each renamed path of the code the memories and the index mention written as its
    path now (daily logs keep theirs: they tell what was true that day); how many."""
    files = staging.markdown()
    own = frozenset(files)
    updated = 0
    for relative in files:
        if is_log(relative):
            continue
        path = staging.root / relative
        text = read_store_text(path)
        result, verdicts = repath_text(relative, text, checkout, own)
        moved = [v for v in verdicts if v.successor is not None]
        if result != text:
            path.write_text(result, encoding="utf-8")
            updated += len(moved)
            log("info", f"{relative}: " + ", ".join(
                f"{v.mention.target} → {v.successor}" for v in moved))
        for verdict in verdicts:
            if verdict.successor is None:
                log("info", f"{relative} line {verdict.mention.line}: "
                            f"{verdict.mention.target} is gone ({verdict.fate}); left as it is")
    return updated


# --- index --------------------------------------------------------------------------------


def prune_index(staging: Staging, renamed: dict[str, str], log: Log) -> IndexRebuild:
    """Rewrite MEMORY.md within the room a dream leaves, moving lines into hubs (or back)
    as needed; detail from long lines goes to the topic file."""
    index_path = staging.root / INDEX_NAME
    index_text = read_store_text(index_path) if index_path.exists() else None
    # A memory linked into the store is not copied (no write goes through a link), but
    # Claude reads it through its link: while the link leads to a file, its line is no
    # dangling line.
    rebuild = rebuild_index(index_text, memory_infos(staging), renamed,
                            exists=lambda file: (staging.root / file).is_file()
                            or (staging.linked(file) is not None
                                and os.path.isfile(staging.store / file)))
    if rebuild.notes_file is not None:
        path = staging.root / rebuild.notes_file.file
        text = rebuild.notes_file.text
        if path.exists():  # a second move appends to the first
            text = read_store_text(path).rstrip("\n") + "\n" + text.split("---\n\n", 1)[1]
        path.write_text(text, encoding="utf-8")
    for file, text in rebuild.hubs.items():
        if text is None:
            (staging.root / file).unlink()
            staging.deleted.add(file)
        else:
            (staging.root / file).write_text(text, encoding="utf-8")
    for file, details in rebuild.details.items():
        path = staging.root / file
        text = read_store_text(path).rstrip("\n")
        path.write_text(text + "\n\nFrom the index: " + "\n".join(details) + "\n",
                        encoding="utf-8")
    if rebuild.text != (index_text or ""):
        index_path.write_text(rebuild.text, encoding="utf-8")
    for file in rebuild.added:
        log("info", f"index: added a line for {file}")
    for line in rebuild.dangling:
        log("info", f"index: dropped a line pointing at a missing file: {line}")
    for hub, files in rebuild.into_hubs.items():
        log("info", f"index: moved {plural(len(files), 'line')} into {hub}")
    for hub, files in rebuild.reached_by_hubs.items():
        log("info", f"index: listed {plural(len(files), 'memory', 'memories')} Claude did not "
                    f"reach in {hub}")
    for hub, files in rebuild.out_of_hubs.items():
        log("info", f"index: moved {plural(len(files), 'line')} from {hub} back into MEMORY.md")
    return rebuild


# --- extraction ---------------------------------------------------------------------------

_ENGLISH = re.compile(
    r"\b(?:remember|always|never|don't|do not|stop using)\b"
    r"|\buse\s+\S+(?:\s+\S+)?\s+(?:not|instead of|rather than)\s+\S+",
    re.IGNORECASE,
)
_CHINESE = re.compile(r"记住|不要|别|统一用|以后")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s*|\n+")
_BECAUSE = re.compile(r"\b(?:because|since|so that|as)\b\s+(.+)|(?:因为|由于)(.+)", re.IGNORECASE)
_FACT = re.compile(r"^\s*(?:please\s+)?(?:remember|记住)\b[,:：，\s]*(?:that\s+)?", re.IGNORECASE)
_IMPERATIVE = re.compile(
    r"\b(?:always|never|don't|do not|use|run|avoid|stop)\b|不要|别|统一用", re.IGNORECASE
)


@dataclass(frozen=True)
class Candidate:
    type: str  # "feedback" or "project"
    rule: str
    why: str
    how: str
    uuid: str  # the user message it came from


def find_instructions(messages: Sequence[Message]) -> list[Candidate]:
    candidates: list[Candidate] = []
    last_assistant = ""
    for message in messages:
        if message.role == "assistant" and message.text.strip():
            last_assistant = message.text.strip()
            continue
        if message.role != "user" or not message.text.strip():
            continue
        sentences = [s.strip() for s in _SENTENCE.split(message.text) if s and s.strip()]
        for position, sentence in enumerate(sentences):
            if sentence.endswith(("?", "？")) or not 6 <= len(sentence) <= 300:
                continue
            if not (_ENGLISH.search(sentence) or _CHINESE.search(sentence)):
                continue
            rest = sentences[position + 1:position + 2]
            candidates.append(_candidate(sentence, rest, last_assistant, message))
    return candidates


def _candidate(sentence: str, following: list[str], context: str, message: Message) -> Candidate:
    is_fact = bool(_FACT.match(sentence)) and not _IMPERATIVE.search(_FACT.sub("", sentence))
    rule = _FACT.sub("", sentence).strip() if is_fact else sentence
    rule = rule[:1].upper() + rule[1:]
    why_match = _BECAUSE.search(sentence) or next(
        (m for s in following if (m := _BECAUSE.search(s))), None)
    day = message.timestamp[:10] or "the session"
    if why_match:
        why = (why_match.group(1) or why_match.group(2)).strip().rstrip(".。")
    elif context:
        why = f"the user said this on {day} after the assistant wrote: “{_clip(context, 140)}”"
    else:
        why = f"the user asked for it explicitly on {day}"
    how = (f"treat it as a fact about the project when planning work (as of {day})" if is_fact
           else "follow it whenever the situation comes up again, without being reminded")
    return Candidate("project" if is_fact else "feedback", rule, why, how, message.uuid)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_STOPWORDS = {"always", "never", "dont", "do", "not", "please", "the", "a", "an", "to", "use",
              "remember", "that", "we", "you", "our", "for", "in", "of", "and", "is", "it"}


def _slug(candidate: Candidate) -> str:
    words = [w for w in re.findall(r"[a-z0-9]+", candidate.rule.lower()) if w not in _STOPWORDS]
    if words:
        return "_".join(words[:4])
    return hashlib.sha1(candidate.rule.encode("utf-8")).hexdigest()[:8]


def candidate_text(candidate: Candidate, name: str) -> str:
    return (
        f"---\nname: {name}\ndescription: {_yaml_line(_clip(candidate.rule, 120))}\n"
        f"type: {candidate.type}\n---\n\n{candidate.rule}\n\n"
        f"**Why:** {candidate.why}\n**How to apply:** {candidate.how}\n"
    )


def _yaml_line(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_TERM = re.compile(r"[a-z0-9][a-z0-9._+-]{2,}|[\u4e00-\u9fff]{2,}")


def _terms(text: str) -> set[str]:
    return {term for term in _TERM.findall(text.lower()) if term not in _STOPWORDS}


def same_topic(candidate: Candidate, infos: Sequence[MemoryInfo]) -> MemoryInfo | None:
    """The memory already about this candidate's topic, or None for a new topic.

    A memory of the same type is on the topic when they share distinctive terms (used by
    at most two memories): a term of its name or description counts two, one of its body
    counts one, and it takes two. `pnpm` in a memory named pnpm is enough; `run` in a body
    is not. The memory sharing most wins."""
    usage: dict[str, int] = {}
    heads, bodies = {}, {}
    for info in infos:
        heads[info.file] = _terms(f"{info.title} {info.description}")
        bodies[info.file] = _terms(info.text[:2000])
        for term in heads[info.file] | bodies[info.file]:
            usage[term] = usage.get(term, 0) + 1
    wanted = _terms(candidate.rule)
    best, best_score = None, 1
    for info in infos:
        if info.type != candidate.type:
            continue
        shared = {term for term in wanted & (heads[info.file] | bodies[info.file])
                  if usage[term] <= 2}
        score = sum(2 if term in heads[info.file] else 1 for term in shared)
        if score > best_score:
            best, best_score = info, score
    return best


def _updated(text: str, candidate: Candidate) -> str:
    """`text` with the candidate added as one more paragraph, its why and how included."""
    return (text.rstrip("\n") + f"\n\n{candidate.rule}\n\n**Why:** {candidate.why}\n"
            f"**How to apply:** {candidate.how}\n")


def write_candidates(staging: Staging, candidates: Sequence[Candidate], log: Log) -> list[str]:
    """Write each candidate not already remembered: into the memory already on its topic
    when there is one, else as a new memory. The files written."""
    from rapidfuzz import fuzz

    infos = memory_infos(staging)
    written: list[str] = []
    for candidate in candidates:
        twin = next((info.file for info in infos
                     if fuzz.partial_ratio(candidate.rule.lower(), info.text.lower()) >= 90), None)
        if twin:
            log("info", f"already remembered in {twin}: {_clip(candidate.rule, 80)}")
            continue
        topic = same_topic(candidate, infos)
        if topic is not None:
            text = _updated(topic.text, candidate)
            (staging.root / topic.file).write_text(text, encoding="utf-8")
            infos = [replace(info, text=text) if info.file == topic.file else info
                     for info in infos]
            if topic.file not in written:
                written.append(topic.file)
            log("info", f"updated {topic.file}, already about this: {_clip(candidate.rule, 80)}")
            continue
        name = f"{candidate.type}_{_slug(candidate)}"
        file = f"{name}.md"
        count = 2
        while (staging.root / file).exists():
            file = f"{name}_{count}.md"
            count += 1
        text = candidate_text(candidate, file.removesuffix(".md"))
        (staging.root / file).write_text(text, encoding="utf-8")
        infos.append(MemoryInfo(file, file.removesuffix(".md"), _clip(candidate.rule, 120),
                                candidate.type, 0.0, text))
        written.append(file)
        log("info", f"new {candidate.type} memory {file}: {_clip(candidate.rule, 80)}")
    return written
