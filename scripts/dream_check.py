#!/usr/bin/env python3
"""The offline dream measured from outside, on copies of stores: does it lose or bend a fact?

    .venv/bin/python scripts/dream_check.py STORE [STORE ...] [--json] [--keep DIR] [--jobs N]
    options: --show N (lines listed per kind in the text report, default 15)

Each STORE is a folder holding a memory store (MEMORY.md and memory files); it is only read.
Every store gets a home of its own in a temp dir: a config home (CLAUDE_CONFIG_DIR), memtui's
dirs (MEMTUI_DATA_DIR, _STATE_DIR, _CACHE_DIR, _CONFIG_DIR), HOME and TMPDIR, removed at the
end. The store is copied into the config home with its mtimes (`cp -a`), then, through the
real `memtui` command (the entry point beside this Python, else `python -m tui`):

1. `memtui audit STORE --json`;
2. `memtui dream STORE --engine offline --yes --json`: its exit code, its one `memtui:`
   sentence, and how much of its change set was applied (whole, partly, none);
3. `memtui audit STORE --json` again: what Claude loads (inside MEMORY.md's cut) and reaches
   (loaded, or linked from what is) before and after, and the orphan findings;
4. the store compared with the copy taken before, line by line (whitespace-normalised, a
   file's BOM dropped; `.git/` and Claude Code's `.consolidate-lock` left out):
   - lost: a non-empty line of some file before that no file after holds, by kind: index
     (MEMORY.md), heading, frontmatter, body; with how many survive in memtui's archive
     only (a file the dream archived). Lines are counted, not just looked up: a line
     repeated in many files ("YESTERDAY", "## Notes") that its own file no longer holds
     is judged like a line gone, and called "held fewer times" when it is not bent;
   - kept inside a longer line (a bullet run into a paragraph), and index lines whose hook
     text was kept elsewhere while the line itself changed: counted, listed, not lost;
   - bent: a line found after only as a changed line, a few of its words replaced (dates,
     paths, or cut short): old -> new, for a person to judge;
   - headings of MEMORY.md before -> after, and the headings of all files;
   - mtimes: files the dream gave a new mtime, and how many of them had only a mechanical
     change (lines bent in place, text copied from the file itself or the index);
5. a second `memtui dream --yes` on the result: the files it changed (should be none);
6. `memtui undo` as often as the two dreams recorded changes (`undo --list`): the second
   dream's back to the first's result, then the first's back to the copy, byte for byte.

A store folder named `memory` is reported by its parent's name; a `file_dates.json` beside
it (`{"file_dates": {file: {"first_author_date": ...}}}`, the dates each file was first and
last committed) is shown next to each bent date of that file: the date a line was written
is what a rewritten date should agree with.

Exit status 1 when any store lost a line, bent one, changed on the second dream, did not
undo byte for byte, or crashed.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 1800.0
LOCK = ".consolidate-lock"
INDEX = "MEMORY.md"
ORPHAN_KINDS = ("unindexed", "beyond_cut", "dangling", "unmatched_wiki_link")
LINE_KINDS = ("index", "heading", "frontmatter", "body")
_CLEAN_ENV_PREFIXES = ("CLAUDE_", "MEMTUI_", "ANTHROPIC_", "XDG_", "GIT_")

HEADING = re.compile(r"#{1,6}\s")
FENCE = re.compile(r"(```|~~~)")
LINK = re.compile(r"\[\[[^\]]+\]\]|\[[^\]]*\]\([^)]*\)")
# A changed word that is a date: an absolute date, or a word that names a day relative to
# another, in the languages real stores are written in.
DATE_WORD = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|(?<!\d)(19|20)\d{6}(?!\d)|\d{1,2}[/.]\d{1,2}|"
    r"\b(today|tomorrow|yesterday|tonight|tonite|week|weeks|month|months|year|years|hoje|"
    r"ontem|amanhã|hoy|mañana|ayer|heute|morgen|gestern|vandaag|gisteren|hier|demain|"
    r"aujourd|january|february|march|april|june|july|august|september|october|november|"
    r"december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)(?![a-z])|"
    r"오늘|내일|어제|모레|今日|明日|昨日|今天|明天|昨天|年|月", re.I)
PATH_WORD = re.compile(r"/|\\|\.[a-z0-9]{1,5}\b|\]\(", re.I)
# Words, with each CJK and Hangul character a word of its own: those scripts run words
# together, and a date rewritten inside such a run must not make the whole run another word.
CJK = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3\uff00-\uffef"
WORD = re.compile(f"[{CJK}]|[^\\s{CJK}]+")
BENT_RATIO = 0.6
# A relative date rewritten as an absolute one changes more words ("this week" -> "the week
# of 2026-06-08"): such a pair is a bend at a lower likeness.
DATE_BENT_RATIO = 0.35
ABSOLUTE_DATE = re.compile(r"(19|20)\d\d-\d\d")
YEAR = re.compile(r"(?<!\d)(19|20)\d\d(?!\d)")
BEND_KINDS = ("date", "path", "shortened", "other")


def memtui_command() -> list[str]:
    """The installed `memtui` entry point beside this Python, else `python -m tui`."""
    entry = Path(sys.executable).with_name("memtui")
    return [str(entry)] if entry.exists() else [sys.executable, "-m", "tui"]


def normalised(line: str) -> str:
    return " ".join(line.split())


# --- a store's files -------------------------------------------------------------------------


@dataclass(frozen=True)
class FileState:
    data: bytes
    mtime_ns: int


def snapshot(store: Path) -> dict[str, FileState]:
    """Every regular file of the store but `.git/` and Claude Code's lock."""
    found: dict[str, FileState] = {}
    for folder, folders, files in os.walk(store):
        folders[:] = [name for name in folders if name != ".git"]
        for name in files:
            path = Path(folder) / name
            relative = path.relative_to(store).as_posix()
            if relative == LOCK or path.is_symlink() or not path.is_file():
                continue
            found[relative] = FileState(path.read_bytes(), path.stat().st_mtime_ns)
    return found


def lock_state(store: Path) -> tuple[bytes, int] | None:
    path = store / LOCK
    return (path.read_bytes(), path.stat().st_mtime_ns) if path.exists() else None


def text_of(data: bytes) -> str | None:
    """A file's text, or None for a binary file."""
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff")


@dataclass(frozen=True)
class Line:
    file: str
    number: int
    kind: str  # one of LINE_KINDS
    text: str  # whitespace-normalised


def lines_of(file: str, text: str) -> list[Line]:
    """The non-empty lines of a file, each with its kind."""
    is_index = file.rsplit("/", 1)[-1] == INDEX
    raw = text.splitlines()
    frontmatter_end = 0
    if not is_index and raw and raw[0].strip() == "---":
        frontmatter_end = next((n for n in range(1, len(raw)) if raw[n].startswith("---")), 0)
    found, fenced = [], False
    for number, line in enumerate(raw, start=1):
        text_line = normalised(line)
        if not text_line:
            continue
        if number - 1 <= frontmatter_end and frontmatter_end:
            kind = "frontmatter"
        elif FENCE.match(line.lstrip()):
            fenced = not fenced
            kind = "index" if is_index else "body"
        elif not fenced and HEADING.match(line):
            kind = "heading"
        else:
            kind = "index" if is_index else "body"
        found.append(Line(file, number, kind, text_line))
    return found


def store_lines(state: dict[str, FileState]) -> dict[str, list[Line]]:
    found = {}
    for file, version in state.items():
        text = text_of(version.data)
        if text is not None:
            found[file] = lines_of(file, text)
    return found


def archived_lines(data_dir: Path) -> set[str]:
    """Every line of the files memtui archived (they are out of the store, not gone)."""
    found: set[str] = set()
    for path in (data_dir / "archive").rglob("*"):
        if path.is_file():
            text = text_of(path.read_bytes())
            if text is not None:
                found.update(normalised(line) for line in text.splitlines())
    return found


# --- lost, kept, bent ------------------------------------------------------------------------


@dataclass
class Bend:
    file: str
    number: int
    kind: str
    old: str
    new: str
    new_file: str
    how: str  # date, path, shortened, other
    written: str = ""  # when the file was first and last committed, where known
    change: str = ""  # the words replaced, in their context: "…a [b → c] d…"

    def to_json(self) -> dict:
        return asdict(self)


def words(text: str) -> list[str]:
    return WORD.findall(text)


def change_view(old: str, new: str, context: int = 6) -> str:
    """Each run of words `new` replaced in `old`, with a few words around it, as written."""
    old_spans = [match.span() for match in WORD.finditer(old)]
    new_spans = [match.span() for match in WORD.finditer(new)]

    def start(spans: list[tuple[int, int]], text: str, i: int) -> int:
        return spans[i][0] if i < len(spans) else len(text)

    def end(spans: list[tuple[int, int]], i: int) -> int:
        return spans[i - 1][1] if i > 0 else 0

    def cut(spans: list[tuple[int, int]], text: str, i1: int, i2: int) -> tuple[int, int]:
        return (start(spans, text, i1), end(spans, i2)) if i2 > i1 else (end(spans, i1),) * 2

    matcher = difflib.SequenceMatcher(None, [old[a:b] for a, b in old_spans],
                                      [new[a:b] for a, b in new_spans], autojunk=False)
    parts = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        first, last = cut(old_spans, old, i1, i2)
        added_first, added_last = cut(new_spans, new, j1, j2)
        before = old[start(old_spans, old, max(i1 - context, 0)):first]
        after = old[last:end(old_spans, min(i2 + context, len(old_spans)))]
        parts.append(f"…{before}[{old[first:last]} → {new[added_first:added_last]}]{after}…")
    return " ; ".join(parts)


def bend_kind(old: list[str], new: list[str]) -> str | None:
    """How `new` is `old` with a few words replaced; None when it is another line."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    ratio = matcher.ratio()
    if ratio < DATE_BENT_RATIO:
        return None
    changed_old, changed_new = [], []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            changed_old += old[i1:i2]
            changed_new += new[j1:j2]
    if ratio < BENT_RATIO:
        dated = ABSOLUTE_DATE.search(" ".join(changed_new)) and (
            DATE_WORD.search(" ".join(changed_old)) or DATE_WORD.search("".join(changed_old)))
        return "date" if dated else None
    if not changed_new or changed_new == ["…"] or (
            len(changed_new) == 1 and changed_new[0].endswith("…")):
        return "shortened"
    changed = changed_old + changed_new
    if DATE_WORD.search(" ".join(changed)) or DATE_WORD.search("".join(changed)) \
            or YEAR.search(" ".join(changed_new)):
        return "date"
    if PATH_WORD.search(" ".join(changed)):
        return "path"
    return "other"


class After:
    """The lines after: those in no file before are where a bent or grown line must be."""

    def __init__(self, after: dict[str, list[Line]], before_texts: set[str]):
        self.all = [line for lines in after.values() for line in lines]
        self.texts = {line.text for line in self.all}
        self.new = [line for line in self.all if line.text not in before_texts]
        self.new_joined = "\n".join(line.text for line in self.new)
        self._all_joined: str | None = None
        self.by_word: dict[str, list[int]] = defaultdict(list)
        self.by_file: dict[str, list[int]] = defaultdict(list)
        for position, line in enumerate(self.new):
            self.by_file[line.file].append(position)
            for word in set(words(line.text)):
                self.by_word[word].append(position)

    def holds_inside(self, text: str) -> bool:
        """Whether some line after holds `text` as a part of it (a new line first: cheap)."""
        if text in self.new_joined:
            return True
        if self._all_joined is None:
            self._all_joined = "\n".join(line.text for line in self.all)
        return text in self._all_joined

    def closest(self, line: Line) -> tuple[Line, str] | None:
        """The new line that is `line` with a few words replaced, the same file first."""
        old = words(line.text)
        shared: Counter[int] = Counter()
        for word in set(old):
            positions = self.by_word.get(word, ())
            if len(positions) < 500:  # a word on every line tells nothing
                shared.update(positions)
        best: tuple[int, float, Line, str] | None = None
        for position, _ in shared.most_common(8):
            candidate = self.new[position]
            how = bend_kind(old, words(candidate.text))
            if how is None:
                continue
            ratio = difflib.SequenceMatcher(None, old, words(candidate.text)).ratio()
            rank = (candidate.file == line.file, ratio)
            if best is None or rank > best[:2]:
                best = (*rank, candidate, how)
        if best is None and len(old) <= 3:
            return self._short_date(line, old)
        return (best[2], best[3]) if best else None

    def _short_date(self, line: Line, old: list[str]) -> tuple[Line, str] | None:
        """A line of a word or three, every changed word a date on both sides ("YESTERDAY"
        alone on a line): the nearest such new line of the same file."""
        found = []
        for position in self.by_file.get(line.file, ()):
            candidate = self.new[position]
            new = words(candidate.text)
            if len(new) <= 6 and dates_only(old, new):
                found.append((abs(candidate.number - line.number), position))
        return (self.new[min(found)[1]], "date") if found else None


def dates_only(old: list[str], new: list[str]) -> bool:
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    changed = [word for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
               for word in (*old[i1:i2], *new[j1:j2])]
    return bool(changed) and all(DATE_WORD.search(word) for word in changed)


def hook_of(text: str) -> str:
    """An index line without its links, list marker and separators: the words it says."""
    rest = LINK.sub(" ", text)
    return normalised(rest.strip(" -*+>—–:|").lstrip("0123456789. ").strip(" -—–:|"))


@dataclass
class Comparison:
    lost: list[Line] = field(default_factory=list)
    archived_only: int = 0
    inside_longer: list[Line] = field(default_factory=list)
    hook_kept: list[Line] = field(default_factory=list)
    fewer_copies: list[Line] = field(default_factory=list)
    bent: list[Bend] = field(default_factory=list)


def missing(before: dict[str, list[Line]], after: dict[str, list[Line]]) -> list[Line]:
    """The lines before that the store holds fewer times after: a line repeated in many
    files ("YESTERDAY", "## Notes") is missing where its own file lost it, even when other
    files still hold it."""
    count_before = Counter(line.text for lines in before.values() for line in lines)
    count_after = Counter(line.text for lines in after.values() for line in lines)
    deficit = count_before - count_after
    found = []
    for file, lines in before.items():
        own_after = Counter(line.text for line in after.get(file, []))
        own_before = Counter(line.text for line in lines)
        for line in lines:
            if deficit[line.text] and own_after[line.text] < own_before[line.text]:
                deficit[line.text] -= 1
                own_before[line.text] -= 1
                found.append(line)
    return found


def substantial(text: str) -> bool:
    """Long enough that finding it inside another line says it was kept there."""
    return len(text) >= 12 and len(words(text)) >= 3


def compare(before: dict[str, list[Line]], after: dict[str, list[Line]], archived: set[str],
            written: dict[str, str]) -> Comparison:
    after_lines = After(after, {line.text for lines in before.values() for line in lines})
    result = Comparison()
    for line in missing(before, after):
        still_there = line.text in after_lines.texts
        if not still_there and substantial(line.text) and after_lines.holds_inside(line.text):
            result.inside_longer.append(line)
            continue
        hook = hook_of(line.text)
        if not still_there and line.kind == "index" and substantial(hook) \
                and after_lines.holds_inside(hook):
            result.hook_kept.append(line)  # the line was cut, its words kept elsewhere
            continue
        match = after_lines.closest(line)
        if match is not None and (not still_there or match[0].file == line.file):
            target, how = match
            result.bent.append(Bend(line.file, line.number, line.kind, line.text, target.text,
                                    target.file, how,
                                    written.get(line.file, "") if how == "date" else "",
                                    change_view(line.text, target.text)))
        elif still_there:
            result.fewer_copies.append(line)
        else:
            result.lost.append(line)
            result.archived_only += line.text in archived
    return result


def mechanical(file: str, before: list[Line], after: list[Line], bends: list[Bend],
               index_text: str) -> bool:
    """Whether a file's change is only mechanical: each line it lost bent in place, each
    line it gained a bend of one of its lines or a copy of its own or its index's text
    (a hook copied in, with a label before it)."""
    old = Counter(line.text for line in before)
    new = Counter(line.text for line in after)
    bent_here = {(b.old, b.new) for b in bends if b.file == file and b.new_file == file}
    bent_old = {pair[0] for pair in bent_here}
    bent_new = {pair[1] for pair in bent_here}
    if any(text not in bent_old for text in old - new):
        return False
    source = "\n".join(line.text for line in before) + "\n" + index_text
    for text in new - old:
        copied = text in source or (": " in text and text.split(": ", 1)[1] in source)
        if text not in bent_new and not copied:
            return False
    return True


# --- a home, and the runs --------------------------------------------------------------------


@dataclass
class Outcome:
    code: int
    out: str
    err: str
    seconds: float

    @property
    def sentence(self) -> str:
        said = [line for line in self.err.splitlines() if line.startswith("memtui: ")]
        return said[0] if said else ""

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError:
            return None


class Home:
    """A config home and memtui's dirs in a temp dir, holding one copy of a store."""

    def __init__(self, root: Path, source: Path):
        self.root = root
        self.claude = root / "claude"
        self.store = self.claude / "projects" / "-check-store" / "memory"
        self.data = root / "data"
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(_CLEAN_ENV_PREFIXES)}
        env.update({
            "CLAUDE_CONFIG_DIR": str(self.claude), "MEMTUI_DATA_DIR": str(self.data),
            "MEMTUI_STATE_DIR": str(root / "state"), "MEMTUI_CACHE_DIR": str(root / "cache"),
            "MEMTUI_CONFIG_DIR": str(root / "config"), "HOME": str(root / "home"),
            "TMPDIR": str(root / "tmp"), "GIT_CONFIG_NOSYSTEM": "1",
            "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p),
            "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "120",
        })
        self.env = env
        for folder in ("home", "tmp"):
            (root / folder).mkdir(parents=True)
        self.store.parent.mkdir(parents=True)
        subprocess.run(["cp", "-a", "--", str(source), str(self.store)], check=True)

    def run(self, *argv: str) -> Outcome:
        started = time.time()
        try:
            done = subprocess.run([*memtui_command(), *argv], env=self.env, capture_output=True,
                                  text=True, stdin=subprocess.DEVNULL, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return Outcome(-1, "", f"memtui: no answer in {TIMEOUT:.0f} s", time.time() - started)
        return Outcome(done.returncode, done.stdout, done.stderr, time.time() - started)

    def audit(self) -> dict:
        return self.run("audit", str(self.store), "--json").json() or {}

    def dream(self) -> Outcome:
        return self.run("dream", str(self.store), "--engine", "offline", "--yes", "--json")

    def changes(self) -> int:
        listed = self.run("undo", str(self.store), "--list", "--json").json()
        return len([entry for entry in listed or [] if not entry.get("undone")])


# --- one store -------------------------------------------------------------------------------


def reach(audit: dict) -> dict:
    """What Claude loads and reaches of a store, from `memtui audit --json`."""
    memories = [m["file"] for m in audit.get("memories", [])]
    findings = Counter(f["kind"] for f in audit.get("findings", []))
    orphans = {f["file"] for f in audit.get("findings", [])
               if f["kind"] in ("unindexed", "beyond_cut")}
    index = audit.get("index", {})
    return {
        "memories": len(memories),
        "loaded": sum(1 for m in audit.get("memories", []) if m["visible"]),
        "reached": sorted(set(memories) - orphans),
        **{kind: findings[kind] for kind in ORPHAN_KINDS},
        "index_lines": index.get("lines"), "index_chars": index.get("chars"),
        "loaded_lines": index.get("loaded_lines"), "cut": index.get("cut"),
    }


def differing(one: dict[str, FileState], other: dict[str, FileState]) -> list[str]:
    return sorted(name for name in one.keys() | other.keys()
                  if (one.get(name) and one[name].data) != (other.get(name) and other[name].data))


def headings(lines: dict[str, list[Line]], file: str | None = None) -> list[str]:
    return [line.text for name, found in lines.items() if file in (None, name)
            for line in found if line.kind == "heading"]


def written_dates(source: Path) -> dict[str, str]:
    """Per file, `first <date> last <date>` from a file_dates.json beside the store."""
    path = source.parent / "file_dates.json"
    if not path.is_file():
        return {}
    try:
        dates = json.loads(path.read_text()).get("file_dates", {})
    except ValueError:
        return {}
    return {file: f"first written {entry.get('first_author_date', '?')[:10]}, last "
                  f"{entry.get('last_author_date', '?')[:10]}" for file, entry in dates.items()}


def store_name(source: Path) -> str:
    return source.parent.name if source.name == "memory" else source.name


def check_store(source: Path, keep: Path | None) -> dict:
    name = store_name(source)
    with tempfile.TemporaryDirectory(prefix="dream-check-") as temp:
        home = Home(Path(temp), source)
        before = snapshot(home.store)
        lock_before = lock_state(home.store)
        audit_before = home.audit()

        first = home.dream()
        after = snapshot(home.store)
        audit_after = home.audit()
        changes_first = home.changes()
        if keep is not None:
            target = keep / name
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            subprocess.run(["cp", "-a", "--", str(home.store), str(target / "after")], check=True)
            (target / "dream.json").write_text(first.out)

        second = home.dream()
        after_second = snapshot(home.store)
        changes_second = home.changes() - changes_first

        undo_runs = []
        for _ in range(max(changes_second, 0)):
            undo_runs.append(home.run("undo", str(home.store), "--json"))
        after_second_undone = snapshot(home.store)
        for _ in range(changes_first):
            undo_runs.append(home.run("undo", str(home.store), "--json"))
        undone = snapshot(home.store)
        lock_undone = lock_state(home.store)
        archived = archived_lines(home.data)

    lines_before, lines_after = store_lines(before), store_lines(after)
    comparison = compare(lines_before, lines_after, archived, written_dates(source))
    index_text = "\n".join(line.text for line in lines_before.get(INDEX, []))
    changed = [f for f in before if f in after and before[f].data != after[f].data]
    new_mtime = [f for f in before if f in after and before[f].mtime_ns != after[f].mtime_ns]
    mechanical_files = [f for f in new_mtime if f in changed and mechanical(
        f, lines_before.get(f, []), lines_after.get(f, []), comparison.bent, index_text)]

    report = first.json() or {}
    changeset = report.get("changeset") or {}
    in_changeset = [f["file"] for f in changeset.get("files", [])]
    applied = report.get("applied", [])
    refused = [r["file"] for r in report.get("apply_refused", [])]
    if not in_changeset:
        applied_how = "nothing to change"
    elif set(applied) >= set(in_changeset):
        applied_how = "whole"
    else:
        applied_how = "partly" if applied else "none"
    second_report = second.json() or {}
    reach_before, reach_after = reach(audit_before), reach(audit_after)
    kept_files = set(after)
    return {
        "store": name,
        "source": str(source),
        "files": len(before),
        "dream": {
            "exit": first.code, "seconds": round(first.seconds, 1), "sentence": first.sentence,
            "status": report.get("status"), "changeset": len(in_changeset),
            "counts": changeset.get("counts", {}), "applied": len(applied),
            "refused": refused, "run_refusals": report.get("refused", []),
            "hides": changeset.get("hides", []), "notes": changeset.get("notes", []),
            "applied_how": applied_how,
            "applied_not_in_changeset": sorted(set(applied) - set(in_changeset)),
            "in_changeset_not_applied": sorted(set(in_changeset) - set(applied)),
            "files_changed_on_disk": len(differing(before, after)),
        },
        "lost": [asdict(line) for line in comparison.lost],
        "lost_by_kind": dict(Counter(line.kind for line in comparison.lost)),
        "lost_archived_only": comparison.archived_only,
        "inside_longer": [asdict(line) for line in comparison.inside_longer],
        "hook_kept_elsewhere": [asdict(line) for line in comparison.hook_kept],
        "fewer_copies": [asdict(line) for line in comparison.fewer_copies],
        "bent": [bend.to_json() for bend in comparison.bent],
        "bent_by_how": dict(Counter(bend.how for bend in comparison.bent)),
        "headings": {
            "index_before": headings(lines_before, INDEX),
            "index_after": headings(lines_after, INDEX),
            "all_before": len(headings(lines_before)), "all_after": len(headings(lines_after)),
        },
        "reach": {
            "before": {k: v for k, v in reach_before.items() if k != "reached"},
            "after": {k: v for k, v in reach_after.items() if k != "reached"},
            "reached_before": len(reach_before["reached"]),
            "reached_after": len(reach_after["reached"]),
            # A memory still in the store that Claude reached before and does not now.
            "lost_reach": sorted(set(reach_before["reached"]) - set(reach_after["reached"])
                                 & kept_files),
        },
        "second_dream": {
            "exit": second.code, "sentence": second.sentence,
            "files_changed": differing(after, after_second),
            "changeset": len(((second_report.get("changeset") or {}).get("files")) or []),
        },
        "mtimes": {"changed": len(new_mtime), "content_changed": len(changed),
                   "mechanical_only": len(mechanical_files),
                   "touched_unchanged": len([f for f in new_mtime if f not in changed]),
                   "mechanical_files": mechanical_files},
        "undo": {
            "runs": len(undo_runs), "exits": [run.code for run in undo_runs],
            "sentences": [run.sentence for run in undo_runs if run.sentence],
            "second_back_to_first": not differing(after, after_second_undone),
            "byte_exact": not differing(before, undone),
            "differing": differing(before, undone),
            "mtimes_back": sum(1 for f, v in before.items()
                               if f in undone and undone[f].mtime_ns == v.mtime_ns),
            "lock_as_before": lock_before == lock_undone,
        },
    }


def failed(store: dict) -> bool:
    return bool(store.get("crash") or store["lost"] or store["bent"]
                or store["second_dream"]["files_changed"] or not store["undo"]["byte_exact"]
                or store["dream"]["exit"] not in (0, 1, 2))


# --- the report ------------------------------------------------------------------------------


def totals(stores: list[dict]) -> dict:
    done = [s for s in stores if "crash" not in s]
    total: dict[str, int] = {"stores": len(done), "crashes": len(stores) - len(done)}

    def add(key: str, value: int) -> None:
        total[key] = total.get(key, 0) + int(value)

    for store in done:
        dream, reach_of = store["dream"], store["reach"]
        add("dreams exiting 0", dream["exit"] == 0)
        add("dreams exiting 1 (partly applied)", dream["exit"] == 1)
        add("dreams exiting 2 (nothing applied)", dream["exit"] == 2)
        for how in ("whole", "partly", "none", "nothing to change"):
            add(f"change sets applied: {how}", dream["applied_how"] == how)
        add("files in change sets", dream["changeset"])
        add("files applied", dream["applied"])
        add("files refused", len(dream["refused"]))
        add("lines lost", len(store["lost"]))
        for kind in LINE_KINDS:
            add(f"  lost {kind} lines", store["lost_by_kind"].get(kind, 0))
        add("  lost, kept only in memtui's archive", store["lost_archived_only"])
        add("lines kept inside a longer line", len(store["inside_longer"]))
        add("index lines cut, their hook kept elsewhere", len(store["hook_kept_elsewhere"]))
        add("repeated lines now held fewer times", len(store["fewer_copies"]))
        add("lines bent", len(store["bent"]))
        for how in BEND_KINDS:
            add(f"  bent: {how}", store["bent_by_how"].get(how, 0))
        add("MEMORY.md headings before", len(store["headings"]["index_before"]))
        add("MEMORY.md headings after", len(store["headings"]["index_after"]))
        add("headings in all files before", store["headings"]["all_before"])
        add("headings in all files after", store["headings"]["all_after"])
        for when in ("before", "after"):
            add(f"memories {when}", reach_of[when]["memories"])
            add(f"loaded {when}", reach_of[when]["loaded"])
            add(f"reached {when}", reach_of[f"reached_{when}"])
            for kind in ORPHAN_KINDS:
                add(f"{kind} {when}", reach_of[when][kind])
        add("memories Claude no longer reaches", len(reach_of["lost_reach"]))
        add("stores a second dream changed", bool(store["second_dream"]["files_changed"]))
        add("files a second dream changed", len(store["second_dream"]["files_changed"]))
        add("files given a new mtime", store["mtimes"]["changed"])
        add("  of them with only a mechanical change", store["mtimes"]["mechanical_only"])
        add("undos byte-exact", store["undo"]["byte_exact"])
        add("undos NOT byte-exact", not store["undo"]["byte_exact"])
    return total


def shown(items: list, limit: int) -> tuple[list, str]:
    more = len(items) - limit
    return items[:limit], (f"    … and {more} more" if more > 0 else "")


def text_report(stores: list[dict], limit: int) -> str:
    out: list[str] = []
    for store in stores:
        out.append(f"== {store['store']}")
        if "crash" in store:
            out.append(f"  crashed: {store['crash']}")
            continue
        dream, reach_of = store["dream"], store["reach"]
        counts = dream["counts"]
        out.append(f"  dream: exit {dream['exit']} in {dream['seconds']} s"
                   f"{'; ' + dream['sentence'] if dream['sentence'] else ''}")
        out.append(f"  change set {dream['changeset']} files ({counts.get('created', 0)} created, "
                   f"{counts.get('modified', 0)} modified, {counts.get('archived', 0)} archived);"
                   f" applied {dream['applied']} ({dream['applied_how']}); refused "
                   f"{len(dream['refused'])}; files changed on disk {dream['files_changed_on_disk']}")
        for refusal in dream["run_refusals"][:3]:
            out.append(f"    refused: {refusal}")
        for note in dream["notes"][:3]:
            out.append(f"    note: {note[:300]}")
        kinds = store["lost_by_kind"]
        out.append(f"  lines lost: {len(store['lost'])} ("
                   + ", ".join(f"{kind} {kinds.get(kind, 0)}" for kind in LINE_KINDS)
                   + f"); {store['lost_archived_only']} of them kept only in memtui's archive")
        listed, more = shown(store["lost"], limit)
        out += [f"    {line['file']}:{line['number']} [{line['kind']}] {line['text'][:160]}"
                for line in listed] + ([more] if more else [])
        out.append(f"  kept inside a longer line: {len(store['inside_longer'])}; index lines "
                   f"whose hook was kept elsewhere: {len(store['hook_kept_elsewhere'])}; "
                   f"repeated lines held fewer times: {len(store['fewer_copies'])}")
        listed, more = shown(store["hook_kept_elsewhere"], min(limit, 5))
        out += [f"    {line['file']}:{line['number']} {line['text'][:160]}"
                for line in listed] + ([more] if more else [])
        hows = store["bent_by_how"]
        out.append(f"  lines bent: {len(store['bent'])} ("
                   + ", ".join(f"{how} {count}" for how, count in sorted(hows.items())) + ")")
        listed, more = shown(store["bent"], limit)
        for bend in listed:
            where = bend["file"] + ("" if bend["new_file"] == bend["file"]
                                    else f" -> {bend['new_file']}")
            out.append(f"    {where}:{bend['number']} [{bend['how']}]"
                       f"{' (' + bend['written'] + ')' if bend['written'] else ''}")
            out.append(f"      {bend['change'][:300]}")
        if more:
            out.append(more)
        heads = store["headings"]
        out.append(f"  MEMORY.md headings: {len(heads['index_before'])} -> "
                   f"{len(heads['index_after'])}; headings in all files: {heads['all_before']} -> "
                   f"{heads['all_after']}")
        b, a = reach_of["before"], reach_of["after"]
        out.append(f"  reach: loaded {b['loaded']} -> {a['loaded']}, reached "
                   f"{reach_of['reached_before']} -> {reach_of['reached_after']} of "
                   f"{b['memories']} -> {a['memories']} memories; "
                   + ", ".join(f"{kind} {b[kind]} -> {a[kind]}" for kind in ORPHAN_KINDS))
        out.append(f"  index: {b['index_lines']} lines / {b['index_chars']} chars (cut "
                   f"{b['cut']}) -> {a['index_lines']} / {a['index_chars']} (cut {a['cut']})")
        if reach_of["lost_reach"]:
            out.append(f"    no longer reached: {', '.join(reach_of['lost_reach'][:10])}")
        second = store["second_dream"]
        out.append(f"  second dream: exit {second['exit']}, changed "
                   f"{len(second['files_changed'])} files"
                   + (f" ({', '.join(second['files_changed'][:6])})"
                      if second["files_changed"] else ""))
        mtimes = store["mtimes"]
        out.append(f"  mtimes: {mtimes['changed']} files got a new mtime, {mtimes['mechanical_only']}"
                   f" of them with only a mechanical change; {mtimes['touched_unchanged']} "
                   "touched without a change")
        undo = store["undo"]
        out.append(f"  undo ({undo['runs']} runs, exits {undo['exits']}): "
                   + ("byte-exact" if undo["byte_exact"] else
                      f"NOT byte-exact, {len(undo['differing'])} files differ: "
                      + ", ".join(undo["differing"][:6]))
                   + f"; second dream's undo back to the first's result: "
                   f"{'yes' if undo['second_back_to_first'] else 'NO'}; mtimes back "
                   f"{undo['mtimes_back']}/{store['files']}; lock as before: "
                   f"{'yes' if undo['lock_as_before'] else 'NO'}")
    out.append("== totals")
    width = max(len(key) for key in totals(stores))
    out += [f"  {key:<{width}}  {value}" for key, value in totals(stores).items()]
    return "\n".join(out) + "\n"


def checked(source: str, keep: str | None) -> dict:
    try:
        return check_store(Path(source), Path(keep) if keep else None)
    except Exception as error:  # one store's crash is that store's result, not the run's
        return {"store": store_name(Path(source)), "source": source,
                "crash": f"{type(error).__name__}: {error}"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stores", nargs="+", help="store folders (only read)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--keep", metavar="DIR", help="keep each store's state after the dream")
    parser.add_argument("--jobs", type=int, default=1, help="stores checked at once")
    parser.add_argument("--show", type=int, default=15, help="lines listed per kind")
    args = parser.parse_args()
    missing = [store for store in args.stores if not Path(store).is_dir()]
    if missing:
        parser.error(f"not a folder: {', '.join(missing)}")
    sources = [str(Path(store).resolve()) for store in args.stores]
    with ProcessPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        stores = list(pool.map(checked, sources, [args.keep] * len(sources)))
    if args.json:
        json.dump({"stores": stores, "totals": totals(stores)}, sys.stdout, indent=1,
                  ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text_report(stores, args.show))
    return 1 if any(failed(store) for store in stores) else 0


if __name__ == "__main__":
    sys.exit(main())
