"""The dream's merge of duplicates: a memory that says nothing another one does not is
archived, and every link to it is pointed at the one kept.

Only what is provably a duplicate is merged (see `memory.duplicates`): one record, every
line of it (its description and each non-empty line of its body) already in the keeper. The
keeper's body is not touched, so nothing is appended out of place and no line leaves its
code fence. Near-duplicates that each say something of their own are left as they are and
named in the run's log, for a person to merge.

The merged-away file's frontmatter is kept in the keeper's: a list both hold (tags,
aliases) becomes the union of the two, the keeper's items first; every other value the
keeper does not hold goes, as the merged-away file had it, under `merged_from: {file: …}`
(one line, so the block still closes within the 30 lines Claude Code reads). The keeper's
own values stay as they are.

Links to the merged-away file, in every file of the store (MEMORY.md included), are
rewritten to the keeper in the same change set: `[text](old.md)` to the keeper's path from
the linking file's folder, `[[old]]` to `[[keeper|old]]` (the words shown stay the same). A
`[[name]]` that already finds the keeper (two copies of one name) is left alone.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from tui.agents.staging import Staging
from tui.claude.lines import read_store_text
from tui.memory import frontmatter
from tui.memory.duplicates import (
    Duplicate,
    common_name_words,
    find_duplicates,
    holds,
    keeper_rank,
    same_record,
)
from tui.memory.frontmatter_keys import overlay
from tui.memory.hubs import HUB_FILES
from tui.memory.index import link_file
from tui.memory.links import find_links, resolve_wiki, wiki_names
from tui.memory.store import FULL_READ_LIMIT, Memory, Store, load_store

Log = Callable[[str, str], None]
MERGED_FROM = "merged_from"
_PLAIN = re.compile(r"[A-Za-z_][\w./-]*")


def merge_duplicates(staging: Staging, log: Log, notes: list[str] | None = None,
                     store: Store | None = None) -> dict[str, str]:
    """Archive each provable duplicate into the memory holding it; {merged-away: keeper}.
    Near-duplicates that are not provable are logged (and noted in `notes`) as suggestions.
    `store`: the staging copy as loaded already, when nothing changed it since."""
    store = load_store(staging.root) if store is None else store
    memories = [m for m in store.memories if _mergeable(m, staging)]
    rank = keeper_rank(store)
    found = find_duplicates(memories, rank)
    suggestions = [d for d in found.duplicates if d.holder is None]
    into = _keepers([d for d in found.duplicates if d.holder is not None], rank)
    common = common_name_words(memories) if into else frozenset()
    by_file = {m.file: m for m in memories}
    groups: dict[str, list[Memory]] = {}
    for repeated, keeper in sorted(into.items()):
        if same_record(by_file[repeated], by_file[keeper], common) \
                and holds(by_file[keeper], by_file[repeated]):
            groups.setdefault(keeper, []).append(by_file[repeated])
    renamed: dict[str, str] = {}
    for keeper, repeated in sorted(groups.items()):
        path = staging.root / keeper
        text = kept = read_store_text(path)
        merged = []
        for memory in repeated:
            united = with_frontmatter_of(text, memory)
            if united is None:
                log("info", f"{memory.file} says nothing {keeper} does not, but its frontmatter "
                            f"could not be kept in {keeper}'s: left for you to merge")
                continue
            _declare_kept_frontmatter(staging, memory, text, united)
            text = united
            merged.append(memory.file)
        if not merged:
            continue
        if text != kept:
            path.write_bytes(text.encode("utf-8"))
        for file in merged:
            (staging.root / file).unlink()
            staging.deleted.add(file)
            renamed[file] = keeper
        log("info", f"merged {', '.join(merged)} into {keeper}: every line of "
                    f"{'them' if len(merged) > 1 else 'it'} is there")
    if renamed:
        _relink(staging, store.memories, renamed, log)
    for duplicate in suggestions:
        suggestion = _suggestion(duplicate)
        log("info", suggestion)
        if notes is not None:
            notes.append(suggestion)
    return renamed


def _declare_kept_frontmatter(staging: Staging, repeated: Memory, before: str,
                              after: str) -> None:
    """Tell the guards where the lines of the merged-away file's frontmatter, and the
    keeper's own lines it rewrote (a list united), went: into the lines the keeper's
    frontmatter gained (a united list, `merged_from`)."""
    gained = set(_block_lines(after)) - set(_block_lines(before))
    replaced = set(_block_lines(before)) - set(_block_lines(after))
    if gained:
        for line in [*_block_lines(repeated.text), *sorted(replaced)]:
            staging.declared.rewrote(line, *gained)


def _block_lines(text: str) -> list[str]:
    block = frontmatter.BLOCK.match(text, 1 if text.startswith("\ufeff") else 0)
    return block.group(1).split("\n") if block else []


def _mergeable(memory: Memory, staging: Staging) -> bool:
    # Hubs are alike by design (the same opening line), and each holds its own type's lines.
    return (not memory.error and memory.outside_target is None and memory.link_target is None
            and staging.linked(memory.file) is None and memory.file not in HUB_FILES
            and memory.size <= FULL_READ_LIMIT)


def _keepers(provable: list[Duplicate], rank: Callable[[Memory], Any]) -> dict[str, str]:
    """{repeated file: the file it goes into}: the best-ranked note holding it, and where
    that one goes in turn. Every step holds the one before it, so the last holds them all
    (the merge checks it again); a step between notes holding each other goes to the
    better-ranked one, and a chain that comes back all the same merges nothing."""
    best: dict[str, Memory] = {}
    for duplicate in provable:
        repeated, holder = duplicate.repeated, duplicate.holder
        assert repeated is not None and holder is not None
        current = best.get(repeated.file)
        if current is None or rank(holder) < rank(current):
            best[repeated.file] = holder
    into = {}
    for file, holder in best.items():
        chain = {file}
        keeper = holder.file
        while keeper in best and keeper not in chain:
            chain.add(keeper)
            keeper = best[keeper].file
        if keeper not in chain:
            into[file] = keeper
    return into


def _suggestion(duplicate: Duplicate) -> str:
    return (f"{duplicate.first.file} and {duplicate.second.file} look like the same memory "
            f"({duplicate.score:.0f}% similar), but each says something the other does not: "
            "left for you to merge")


# --- frontmatter --------------------------------------------------------------------------


def with_frontmatter_of(text: str, repeated: Memory) -> str | None:
    """`text` (the keeper's file) with the data of `repeated`'s frontmatter it lacks: lists
    united, every other differing value under `merged_from`. None when that cannot be
    written so that Claude Code reads the keeper's own fields as before."""
    data = repeated.frontmatter.data
    if not data:
        return text
    if not all(isinstance(key, str) for key in data):
        return None
    before = frontmatter.parse(text)
    if before.error or (before.present and not isinstance(before.data, dict)):
        return None
    mine = dict(before.data)
    united = {key: _union(mine.get(key), value) for key, value in data.items()
              if isinstance(value, list) and isinstance(mine.get(key, []), list)}
    united = {key: value for key, value in united.items() if value != mine.get(key)}
    differing = {key: _unheld(mine.get(key), value) for key, value in data.items()
                 if key not in united and not _held(mine.get(key), value)}
    if not united and not differing:
        return text
    fields = dict(united)
    if differing:
        record = mine.get(MERGED_FROM, {})
        if not isinstance(record, dict):
            return None  # the keeper's own key of that name: not ours to rewrite
        fields[MERGED_FROM] = {**record, repeated.file: differing}
    ending = "\r\n" if "\r\n" in text[:text.find("\n") + 1] else "\n"
    lines = [f"{_key(key)}: {_flow(value)}{ending}" for key, value in fields.items()]
    result = overlay(text, lines) if before.present else _new_block(text, lines)
    if result is None:
        return None
    after = frontmatter.parse(result)
    if not after.present or after.error or after.body != before.body:
        return None
    return result if after.data == {**mine, **fields} else None


def _union(mine: Any, theirs: list) -> list:
    items = list(mine) if isinstance(mine, list) else []
    return items + [item for item in theirs if item not in items]


def _unheld(mine: Any, theirs: Any) -> Any:
    """What of `theirs` the keeper's value does not hold (a mapping: the keys it lacks)."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        return {key: _unheld(mine.get(key), value) for key, value in theirs.items()
                if not _held(mine.get(key), value)}
    return theirs


def _held(mine: Any, theirs: Any) -> bool:
    """Whether the keeper's value holds all of the other's (a mapping: key by key)."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        return all(_held(mine.get(key), value) for key, value in theirs.items())
    return mine == theirs


def _key(key: str) -> str:
    return key if _plain(key) else json.dumps(key, ensure_ascii=False)


def _flow(value: Any) -> str:
    """`value` as YAML on one line: JSON, but a list of words written as `[a, b]`."""
    if isinstance(value, list) and all(isinstance(item, str) and _plain(item) for item in value):
        return f"[{', '.join(value)}]"
    return json.dumps(value, ensure_ascii=False)


def _plain(word: str) -> bool:
    """A word YAML reads back as this very string: no number, boolean or null."""
    return bool(_PLAIN.fullmatch(word)) and word.casefold() not in ("true", "false", "null")


def _new_block(text: str, lines: list[str]) -> str:
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    ending = lines[0][len(lines[0].rstrip("\r\n")):]
    return f"{bom}---{ending}{''.join(lines)}---{ending}{text[len(bom):]}"


# --- links --------------------------------------------------------------------------------


def _relink(staging: Staging, memories: tuple[Memory, ...], renamed: Mapping[str, str],
            log: Log) -> None:
    """Every link to a merged-away file, in every file of the store, pointed at its keeper."""
    before = wiki_names((m.file, m.frontmatter.name) for m in memories)
    after = wiki_names((m.file, m.frontmatter.name) for m in memories if m.file not in renamed)
    names = {m.file: m.frontmatter.name for m in memories}
    relinked = 0
    for file in staging.markdown():
        if file in staging.deleted or file in staging.not_text or staging.linked(file):
            continue
        path = staging.root / file
        text = staging.text(file)
        if "[" not in text:
            continue
        result, count = relinked_text(file, text, renamed, before, after, names)
        if count:
            path.write_bytes(result.encode("utf-8"))
            relinked += count
            log("info", f"{file}: {count} link{'s' if count > 1 else ''} to merged-away "
                        "memories now point at the memory kept")
    if relinked:
        log("info", f"relinked {relinked} link{'s' if relinked > 1 else ''} to the memories kept")


def relinked_text(file: str, text: str, renamed: Mapping[str, str], before: Mapping[str, str],
                  after: Mapping[str, str], names: Mapping[str, str | None]) -> tuple[str, int]:
    """`text` of `file` with its links to renamed files pointed at their keepers; how many."""
    folder = file.rpartition("/")[0]
    prefix = folder and f"{folder}/"
    lines = text.split("\n")
    edits: list[tuple[int, int, int, str]] = []
    for link in find_links(text):
        target = link_file(link, prefix, before)
        keeper = renamed.get(target or "")
        if keeper is None:
            continue
        if link.wiki:
            if resolve_wiki(link.target, after) == keeper:
                continue
            new = _wiki_link(link.source, _wiki_name(keeper, names.get(keeper), after),
                             lines[link.line].lstrip().startswith("|"))
        else:
            new = _markdown_link(link.source, link.target, _path_from(folder, keeper, link.target))
        start = link.end - len(link.source)
        if new is not None and lines[link.line][start:link.end] == link.source:
            edits.append((link.line, start, link.end, new))
    for line, start, end, new in sorted(edits, reverse=True):
        lines[line] = lines[line][:start] + new + lines[line][end:]
    return "\n".join(lines), len(edits)


def _wiki_name(keeper: str, name: str | None, after: Mapping[str, str]) -> str:
    """How a `[[…]]` names the keeper: its `name:`, else its file name, else its path."""
    for candidate in (name, posixpath.basename(keeper).removesuffix(".md")):
        if candidate and candidate.strip() and resolve_wiki(candidate, after) == keeper:
            return candidate.strip()
    return keeper.removesuffix(".md")


def _wiki_link(source: str, keeper_name: str, in_table: bool) -> str:
    """`[[old#part|shown]]` as `[[keeper#part|shown]]`; without a shown text, the old name is
    shown."""
    inner = source[2:-2]
    escaped = "\\|" in inner
    named, _, shown = inner.partition("\\|" if escaped else "|")
    name, hash_, part = named.partition("#")
    pipe = "\\|" if escaped or in_table else "|"
    return f"[[{keeper_name}{hash_}{part}{pipe}{shown if shown else named.strip()}]]"


def _markdown_link(source: str, target: str, new_target: str) -> str | None:
    match = re.search(r"\]\([ \t]*<?" + re.escape(target), source)
    if match is None:
        return None
    start = match.end() - len(target)
    return source[:start] + new_target + source[match.end():]


def _path_from(folder: str, keeper: str, written: str) -> str:
    """The keeper's path as a link in `folder` writes it, with the old target's `./`,
    `#anchor` and percent-encoding kept."""
    anchor = written[written.index("#"):] if "#" in written else ""
    path = posixpath.relpath(keeper, folder or ".")
    if written.startswith("./") and not path.startswith("../"):
        path = "./" + path
    if "%" in written or " " in path and not written.startswith("<"):
        path = quote(path, safe="/.-_~")
    return path + anchor
