"""The offline engine: deterministic steps on a staging copy, no network.

Dream: archive each provable duplicate into the memory holding it, turn relative dates into
absolute ones, write renamed paths of the code as they are now, rebuild the index within its
limits. Extraction: explicit instructions the
user typed become candidate feedback or project memories.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from tui.agents.indexfit import DETAIL, IndexRebuild, MemoryInfo, rebuild_index
from tui.agents.instructions import Candidate, clip
from tui.agents.staging import Staging
from tui.claude.checkout import Checkout
from tui.claude.lines import read_store_text
from tui.claude.memory_files import is_log, is_team, memory_files
from tui.claude.paths import INDEX_NAME
from tui.memory import frontmatter
from tui.memory.index import parse_index
from tui.memory.stale_paths import repath_text
from tui.words import plural

Log = Callable[[str, str], None]


# Files a memory folder holds that are no memories: a repository's own documents (the
# folder is a git repository, or a copy of one) and encrypted blobs.
_DOCUMENTS = frozenset({"readme.md", "claude.md", "agents.md", "gemini.md", "changelog.md",
                        "license.md", "contributing.md", "code_of_conduct.md", "security.md"})
_SEALED = ("U2FsdGVkX1",  # base64 of OpenSSL's "Salted__"
           "-----BEGIN PGP MESSAGE-----", "-----BEGIN AGE ENCRYPTED FILE-----")


def is_memory(relative: str, text: str, fm: frontmatter.Frontmatter) -> bool:
    """Whether the dream gives a file a line of the index: a memory by its frontmatter (a
    type, a description), or a note of its own words, never a repository's README or
    CLAUDE.md, nor an encrypted blob."""
    if fm.type or fm.description:
        return True
    if relative.rpartition("/")[2].lower() in _DOCUMENTS:
        return False
    body = text.lstrip("\ufeff \t\r\n")
    return bool(body) and not body.startswith(_SEALED)


def memory_infos(staging: Staging, others: list[str] | None = None) -> list[MemoryInfo]:
    """The memories MEMORY.md indexes: every memory file below the store (subfolders too),
    but daily logs, team memory (its own index), linked names and files that are no
    memories (named in `others`)."""
    infos = []
    for relative, _entry in memory_files(staging.root):
        if is_log(relative) or is_team(relative) or staging.linked(relative):
            continue
        path = staging.root / relative
        text = staging.text(relative)
        fm = frontmatter.parse(text)
        if not is_memory(relative, text, fm):
            if others is not None:
                others.append(relative)
            continue
        # The mtime it will have once applied: a step that left its meaning as it was
        # keeps the one it had (the copy's is the time of that step).
        mtime = staging.declared.mtimes.get(relative) or path.stat().st_mtime
        infos.append(MemoryInfo(relative, fm.name or path.stem, fm.description or "",
                                fm.type, mtime, text))
    return infos


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
        text = staging.text(relative)
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
    others: list[str] = []
    rebuild = rebuild_index(index_text, memory_infos(staging, others), renamed,
                            exists=lambda file: (staging.root / file).exists()
                            or (staging.linked(file) is not None
                                and os.path.exists(staging.store / file)))
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
        path.write_text(text + "\n\n" + "".join(f"{DETAIL}{detail}\n" for detail in details),
                        encoding="utf-8")
    if rebuild.text != (index_text or ""):
        index_path.write_text(rebuild.text, encoding="utf-8")
    for file in rebuild.added:
        log("info", f"index: added a line for {file}")
    linked = {link.file for link in parse_index(rebuild.text).links}
    rebuild.not_memories = [file for file in others if file not in linked]
    for line in rebuild.unlinked:
        log("info", f"index: took the links to missing files out of: {line}")
    for hub, files in rebuild.into_hubs.items():
        log("info", f"index: moved {plural(len(files), 'line')} into {hub}")
    for hub, files in rebuild.reached_by_hubs.items():
        log("info", f"index: listed {plural(len(files), 'memory', 'memories')} Claude did not "
                    f"reach in {hub}")
    for hub, files in rebuild.out_of_hubs.items():
        log("info", f"index: moved {plural(len(files), 'line')} from {hub} back into MEMORY.md")
    return rebuild


# --- extraction ---------------------------------------------------------------------------

# Words any rule may hold: no topic, and no memory's name, is made of them.
_STOPWORDS = {"always", "never", "dont", "don't", "do", "not", "please", "the", "a", "an", "to",
              "use", "remember", "that", "we", "you", "our", "for", "in", "of", "and", "is",
              "it", "run", "before", "after", "when", "with", "without", "every", "each",
              "all", "any", "new", "first", "make", "sure", "keep", "add", "put", "get", "set",
              "from", "now", "this", "these", "then", "than", "into", "only", "just", "also",
              "ask", "asking", "tell", "done", "me", "my", "your", "are", "be", "on", "at",
              "by", "or", "but", "should", "must", "one"}


def _slug(candidate: Candidate) -> str:
    words = [w for w in re.findall(r"[a-z0-9]+", candidate.rule.lower()) if w not in _STOPWORDS]
    if words:
        return "_".join(words[:4])
    return hashlib.sha1(candidate.rule.encode("utf-8")).hexdigest()[:8]


def candidate_text(candidate: Candidate, name: str) -> str:
    return (
        f"---\nname: {name}\ndescription: {_yaml_line(clip(candidate.rule, 120))}\n"
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

    A memory of the same type is on the topic when they share distinctive terms: a term of
    its name counts three, one of its description two, one of its body one, and it takes
    three. A term is distinctive when at most two memories use it, or when it names at most
    three (`pnpm` is in many bodies, but names only the pnpm memories). `pnpm` in a memory
    named pnpm is enough; `cargo` in a description ("reviewed with cargo insta") or `run`
    in a body is not. The memory sharing most wins."""
    usage: dict[str, int] = {}
    naming: dict[str, int] = {}
    titles, descriptions, bodies = {}, {}, {}
    for info in infos:
        titles[info.file] = _terms(f"{info.title} {info.file.rsplit('/', 1)[-1][:-3]}")
        descriptions[info.file] = _terms(info.description) - titles[info.file]
        bodies[info.file] = _terms(info.text[:2000]) - titles[info.file] - descriptions[info.file]
        for term in titles[info.file]:
            naming[term] = naming.get(term, 0) + 1
        for term in titles[info.file] | descriptions[info.file] | bodies[info.file]:
            usage[term] = usage.get(term, 0) + 1
    wanted = {term for term in _terms(candidate.rule)
              if usage.get(term, 0) <= 2 or 0 < naming.get(term, 0) <= 3}
    best, best_score = None, 2
    for info in infos:
        if info.type != candidate.type:
            continue
        score = (3 * len(wanted & titles[info.file]) + 2 * len(wanted & descriptions[info.file])
                 + len(wanted & bodies[info.file]))
        if score > best_score:
            best, best_score = info, score
    return best


def _updated(text: str, candidate: Candidate) -> str:
    """`text` with the candidate added as one more paragraph, its why and how included."""
    return (text.rstrip("\n") + f"\n\n{candidate.rule}\n\n**Why:** {candidate.why}\n"
            f"**How to apply:** {candidate.how}\n")


def _saved(staging: Staging, candidate: Candidate) -> set[str]:
    """The store files the candidate's session wrote in the candidate's turn."""
    store = os.path.realpath(staging.store)
    return {os.path.relpath(os.path.realpath(path), store) for path in candidate.saved_in
            if os.path.realpath(path).startswith(store + os.sep)}


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
            log("info", f"already remembered in {twin}: {clip(candidate.rule, 80)}")
            continue
        topic = same_topic(candidate, infos)
        if topic is not None and topic.file in _saved(staging, candidate):
            # The session saved this memory in the very turn the rule was said: in its words.
            log("info", f"already remembered in {topic.file}, which the session wrote when it "
                        f"was said: {clip(candidate.rule, 80)}")
            continue
        if topic is not None:
            text = _updated(topic.text, candidate)
            (staging.root / topic.file).write_text(text, encoding="utf-8")
            infos = [replace(info, text=text) if info.file == topic.file else info
                     for info in infos]
            if topic.file not in written:
                written.append(topic.file)
            log("info", f"updated {topic.file}, already about this: {clip(candidate.rule, 80)}")
            continue
        name = f"{candidate.type}_{_slug(candidate)}"
        file = f"{name}.md"
        count = 2
        while (staging.root / file).exists():
            file = f"{name}_{count}.md"
            count += 1
        text = candidate_text(candidate, file.removesuffix(".md"))
        (staging.root / file).write_text(text, encoding="utf-8")
        infos.append(MemoryInfo(file, file.removesuffix(".md"), clip(candidate.rule, 120),
                                candidate.type, 0.0, text))
        written.append(file)
        log("info", f"new {candidate.type} memory {file}: {clip(candidate.rule, 80)}")
    return written
