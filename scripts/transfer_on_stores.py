#!/usr/bin/env python3
"""Copy and move memories between copies of real memory stores, through the real `memtui`.

    .venv/bin/python scripts/transfer_on_stores.py /work/realstores/*/memory
    options: --work DIR (default: a temp dir, removed at the end) --keep --samples N

Each STORE (a memory folder) is copied (`cp -a`: bytes and mtimes) into a config home of its
own, as the store of an empty git repository, so that memtui finds its project path. Then
for each store and the next one (the last into the first):

1. `memtui copy` of all its memories into the next (`--on-collision keep-both --yes`); when
   that is refused, the first half of them, then a quarter, ... until one is taken;
2. `memtui undo TARGET`;
3. `memtui move` of every other memory (the same halving on a refusal);
4. `memtui undo` of the source (even pairs) or the target (odd pairs).

Checked from outside after each: every carried file in the target is the source's bytes, or
differs only where a link to a memory renamed by keep-both was rewritten (shown for a
sample); its mtime is the source's; its frontmatter reads as the source's did (name,
description, type, error); its index line is inside the target's loaded cut (200 lines,
25,000 UTF-16 units, after frontmatter and HTML comments are stripped: our own reading, not
memtui's), and no entry of the target that was loaded before is past it now; links between
carried memories lead to the carried copies; a carried memory's link to one left behind,
and (after a move) a remaining memory's link to a moved one, is named in the output; the
source is untouched by a copy; a refusal is one sentence. After each undo both stores are
their before-state, byte for byte and mtime for mtime (every file below the store).

The exit status is 1 when anything is wrong.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tui.claude.memory_files import INDEX_NAME, index_of, is_log, memory_files  # noqa: E402
from tui.claude.paths import sanitize  # noqa: E402
from tui.memory import frontmatter  # noqa: E402
from tui.memory.links import link_target, resolve_wiki, wiki_names  # noqa: E402
from tui.memory.reach import memory_links  # noqa: E402

MEMTUI = Path(sys.executable).with_name("memtui")
CLEAN_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
             "CLAUDE_CODE_REMOTE_MEMORY_DIR", "CLAUDE_CODE_PROJECT_DIR_NAME",
             "CLAUDE_CODE_DISABLE_AUTO_MEMORY", "MEMTUI_FAILPOINT", "XDG_DATA_HOME",
             "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")
LINES_CUT, CHARS_CUT = 200, 25_000
CALLED: dict[Path, str] = {}  # each store copy: its store's name


def called(store: Path) -> str:
    return CALLED[store][:28]


@dataclass
class Tally:
    files: int = 0
    identical: int = 0
    already_there: int = 0  # the target held the same bytes under the name: left as it was
    links_only: int = 0
    wrong: list[str] = field(default_factory=list)
    mtime_kept: int = 0
    rewritten_now: int = 0
    frontmatter_same: int = 0
    inside_cut: int = 0
    unindexed_logs: int = 0  # logs/ and sessions/ files: never indexed, and given no line
    refused: Counter = field(default_factory=Counter)
    accepted: int = 0
    batches: list[str] = field(default_factory=list)
    carried_links: int = 0
    carried_links_ok: int = 0
    left_links: int = 0
    left_links_named: int = 0
    left_links_retargeted: int = 0  # land on a same-named memory the target already held
    behind_links: int = 0
    behind_links_named: int = 0
    pushed_but_reached: int = 0  # entries past the cut now that a loaded memory still links
    longest_refusal: int = 0
    undos: int = 0
    undo_exact: int = 0
    samples: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def bad(self, what: str) -> None:
        self.wrong.append(what)
        print(f"  WRONG: {what}", flush=True)


class Home:
    """A config home holding a copy of each store, memtui's dirs and TMPDIR, all in `root`."""

    def __init__(self, root: Path, stores: list[Path]):
        self.root = root
        self.home = root / "claude"
        self.stores: dict[str, Path] = {}
        env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
        for name in ("DATA", "STATE", "CACHE", "CONFIG"):
            env[f"MEMTUI_{name}_DIR"] = str(root / name.lower())
        env.update({"CLAUDE_CONFIG_DIR": str(self.home), "TMPDIR": str(root / "tmp"),
                    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
                    "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "120", "NO_COLOR": "1"})
        self.env = env
        (root / "tmp").mkdir(parents=True, exist_ok=True)
        for store in stores:
            name = store.parent.name if store.name == "memory" else store.name
            project = root / "repos" / name
            project.mkdir(parents=True)
            subprocess.run(["git", "init", "-q", str(project)], check=True, env=env)
            memory = self.home / "projects" / sanitize(str(project)) / "memory"
            memory.parent.mkdir(parents=True)
            subprocess.run(["cp", "-a", str(store), str(memory)], check=True)
            self.stores[name] = memory
            CALLED[memory] = name

    def memtui(self, *words: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(MEMTUI), *words], env=self.env, capture_output=True,
                              text=True, timeout=1800, stdin=subprocess.DEVNULL)


def state(store: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below the store (`.git/` too): its bytes and mtime."""
    files = {}
    for folder, _, names in os.walk(store):
        for name in names:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, store)
            if os.path.islink(path):
                files[rel] = (b"-> " + os.readlink(path).encode(), 0)
                continue
            with open(path, "rb") as handle:
                files[rel] = (handle.read(), os.stat(path).st_mtime_ns)
    return files


def state_difference(before: dict, after: dict) -> list[str]:
    out = []
    for rel in sorted(before.keys() | after.keys()):
        old, new = before.get(rel), after.get(rel)
        if old is None:
            out.append(f"{rel} added")
        elif new is None:
            out.append(f"{rel} missing")
        elif old[0] != new[0]:
            out.append(f"{rel} bytes differ")
        elif old[1] != new[1]:
            out.append(f"{rel} mtime {old[1]} -> {new[1]}")
    return out


def loaded_cut(text: str) -> str:
    """What Claude Code loads of an index (our own reading of the documented rule)."""
    text = text.removeprefix("\ufeff")
    block = re.match(r"---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)", text)
    if block:
        text = text[block.end():]
    text = re.sub(r"<!--[\s\S]*?-->", "", text).strip()
    lines = text.split("\n")
    if len(lines) > LINES_CUT:
        text = "\n".join(lines[:LINES_CUT])
    units = text.encode("utf-16-le", "surrogatepass")
    if len(units) // 2 > CHARS_CUT:
        head = units[:CHARS_CUT * 2].decode("utf-16-le", "surrogatepass")
        cut = head.rfind("\n")
        text = head[:cut] if cut > 0 else head
    return text


def linked_in(text: str, file: str, names=None) -> bool:
    """Whether index text links `file`: by a Markdown link, plain or percent-encoded, or by
    a `[[name]]` that `names` (a store's, as memtui reads them) resolve to it."""
    targets = {file, link_target(file), f"./{file}", f"./{link_target(file)}"}
    if any(re.search(r"\]\(\s*<?" + re.escape(t) + r">?(\s+\"[^\"]*\")?\s*(#[^)]*)?\)", text)
           for t in targets):
        return True
    return names is not None and any(
        resolve_wiki(found.split("|")[0], names) == file
        for found in re.findall(r"\[\[([^\]\n]+)\]\]", text))


_NAMES: dict[int, tuple[dict, dict, object]] = {}  # per state: it, its memories, its names


def links_of(files: dict[str, tuple[bytes, int]], file: str) -> list[str]:
    """The store files a memory links (Markdown and `[[name]]`), as memtui reads links: a
    `[[name]]` two memories answer to is the first by path's."""
    if id(files) not in _NAMES:
        memories = {rel: frontmatter.parse(_text(files[rel][0])).name for rel in sorted(files)
                    if rel.endswith(".md") and not rel.startswith(".git/")
                    and os.path.basename(rel) != INDEX_NAME}
        if len(_NAMES) >= 4:  # a pair is checked with its before and after states
            del _NAMES[next(iter(_NAMES))]
        _NAMES[id(files)] = (files, memories, wiki_names(memories.items()))
    _, memories, names = _NAMES[id(files)]
    return [link for link in memory_links(file, _text(files[file][0]), names) if link in memories]


def names_of(files: dict[str, tuple[bytes, int]]):
    """The `[[name]]` keys of a store's state."""
    if id(files) not in _NAMES:
        links_of(files, next(iter(files)))
    return _NAMES[id(files)][2]


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def one_sentence(message: str) -> bool:
    text = message.strip()
    return bool(text) and "Traceback" not in text and "\n" not in text and text.endswith(
        (".", "?", "!"))


def renames_from(output: str) -> dict[str, str]:
    return dict(re.findall(r"^\s*Copy (.+?) as (.+?): the target holds another ", output,
                           re.MULTILINE))


def try_transfer(home: Home, verb: str, files: list[str], source: Path, target: Path,
                 tally: Tally) -> tuple[list[str], subprocess.CompletedProcess | None]:
    """The command on `files`, halved on each refusal; (the files it took, its result)."""
    batch = files
    while batch:
        started = time.perf_counter()
        run = home.memtui(verb, *batch, "--from", str(source), "--to", str(target), "--yes",
                          "--on-collision", "keep-both")
        tally.seconds += time.perf_counter() - started
        if run.returncode == 0:
            tally.accepted += 1
            return batch, run
        reason = run.stderr.strip()
        if run.returncode != 2 or not one_sentence(reason):
            tally.bad(f"{verb} {len(batch)} {called(source)} -> {called(target)}: exit {run.returncode}, "
                      f"stderr {reason[-400:]!r}")
            return [], None
        tally.refused[_reason_kind(reason)] += 1
        tally.longest_refusal = max(tally.longest_refusal, len(reason))
        print(f"  refused {verb} of {len(batch)}: {reason[:200]}", flush=True)
        batch = batch[: len(batch) // 2]
    return [], None


def _reason_kind(reason: str) -> str:
    """A refusal with the names it lists left out, to count refusals by kind."""
    kind = re.sub(r"it would leave .* past ", "it would leave … past ", reason)
    return re.sub(r"\s+", " ", kind)[:140]


def check_carried(home: Home, verb: str, files: list[str], run, source: Path, target: Path,
                  before_source: dict, before_target: dict, tally: Tally, samples: int) -> None:
    after_source, after_target = state(source), state(target)
    output = run.stdout
    renamed = renames_from(output)
    names = {file: renamed.get(file, file) for file in files}
    label = f"{verb} {called(source)} -> {called(target)}"
    index_text = after_target.get(INDEX_NAME, (b"", 0))[0].decode("utf-8", "replace")
    loaded = loaded_cut(index_text)
    loaded_before = loaded_cut(before_target.get(INDEX_NAME, (b"", 0))[0].decode("utf-8",
                                                                                 "replace"))
    team_loaded = loaded_cut(after_target.get(f"team/{INDEX_NAME}", (b"", 0))[0].decode(
        "utf-8", "replace"))
    tnames = names_of(after_target)
    for file in files:
        name = names[file]
        tally.files += 1
        source_data, source_mtime = before_source[file]
        got = after_target.get(name)
        if got is None:
            tally.bad(f"{label}: {file} is not in the target as {name}")
            continue
        data, mtime = got
        if before_target.get(name, (None,))[0] == source_data:
            # In the target already, byte for byte: nothing is written, not even its mtime.
            tally.already_there += 1
            if got != before_target[name]:
                tally.bad(f"{label}: {name}, in the target already, was written")
            if is_log(name) or linked_in(team_loaded if index_of(name) != INDEX_NAME
                                         else loaded, name, tnames):
                tally.inside_cut += not is_log(name)
            else:
                tally.bad(f"{label}: the index line for {name} is not inside the loaded cut")
            continue
        if data == source_data:
            tally.identical += 1
        else:
            back = _text(data)
            for old, new in renamed.items():
                back = back.replace(f"]({link_target(_relative(new, name))}",
                                    f"]({link_target(_relative(old, name))}")
            if back == _text(source_data):
                tally.links_only += 1
                if len(tally.samples) < samples:
                    diff = [line for line in difflib.unified_diff(
                        _text(source_data).splitlines(), _text(data).splitlines(), lineterm="",
                        n=0) if line[:1] in "+-" and line[:3] not in ("+++", "---")]
                    tally.samples.append(f"{label}: {file} as {name}:\n    "
                                         + "\n    ".join(line[:200] for line in diff))
            else:
                tally.bad(f"{label}: {name} differs from {file} beyond links")
        if mtime == source_mtime:
            tally.mtime_kept += 1
        elif data != source_data:
            tally.rewritten_now += 1  # its links rewritten: written now, and dated so
        else:
            tally.bad(f"{label}: {name} mtime {mtime} is not the source's {source_mtime}")
        was, now = frontmatter.parse(_text(source_data)), frontmatter.parse(_text(data))
        if (was.data, was.error, was.form) == (now.data, now.error, now.form):
            tally.frontmatter_same += 1
        else:
            tally.bad(f"{label}: {name} frontmatter reads {now.data!r} / {now.error}, "
                      f"was {was.data!r} / {was.error}")
        if is_log(name):
            if linked_in(index_text, name):
                tally.bad(f"{label}: {name}, a daily log or session note, got an index line")
            else:
                tally.unindexed_logs += 1
        elif linked_in(team_loaded if index_of(name) != INDEX_NAME else loaded, name, tnames):
            tally.inside_cut += 1
        else:
            tally.bad(f"{label}: the index line for {name} is not inside the loaded cut")
    pushed = [m for m in _entries(loaded_before, names_of(before_target)) if m in before_target
              and not linked_in(loaded, m, tnames)]
    if pushed:
        reached = _reached(after_target, loaded, tnames)
        lost = [m for m in pushed if m not in reached]
        tally.pushed_but_reached += len(pushed) - len(lost)
        if lost:
            tally.bad(f"{label}: pushed past the cut, reached by no loaded memory: {lost[:5]}")
    for file in files:
        name = names[file]
        if name not in after_target:
            continue
        source_links = links_of(before_source, file)
        target_links = set(links_of(after_target, name))
        for link in source_links:
            if link in names:
                tally.carried_links += 1
                if names[link] in target_links:
                    tally.carried_links_ok += 1
                else:
                    tally.bad(f"{label}: {name} linked {link}, carried as {names[link]}, but "
                              f"in the target leads to {sorted(target_links)[:5]}")
            elif link != file:
                tally.left_links += 1
                if link in before_target:
                    tally.left_links_retargeted += 1
                elif re.search(rf"{re.escape(name)} links [^\n]*{re.escape(link)}", output):
                    tally.left_links_named += 1
                else:
                    tally.bad(f"{label}: {name} links {link}, left behind, not named")
    if verb == "copy":
        if after_source != before_source:
            tally.bad(f"{label}: the source changed: {state_difference(before_source, after_source)[:5]}")
        return
    for file in files:
        if file in after_source:
            tally.bad(f"{label}: {file} is still in the source after the move")
    source_index = after_source.get(INDEX_NAME, (b"", 0))[0].decode("utf-8", "replace")
    for file in files:
        if linked_in(source_index, file) and linked_in(
                before_source.get(INDEX_NAME, (b"", 0))[0].decode("utf-8", "replace"), file):
            tally.bad(f"{label}: the source index still links moved {file}")
    moved = set(files)
    for rel in after_source:
        if rel in moved or not rel.endswith(".md") or rel.startswith(".git/") or \
                os.path.basename(rel) == INDEX_NAME:
            continue
        for link in set(links_of(before_source, rel)) & moved:
            tally.behind_links += 1
            if re.search(rf"{re.escape(rel)} links [^\n]*{re.escape(link)}", output):
                tally.behind_links_named += 1
            elif after_source[rel][0] != before_source[rel][0]:
                tally.behind_links_named += 1  # a hub of memtui's, edited to follow
            else:
                tally.bad(f"{label}: {rel}, left in the source, links moved {link}; not named")


def _reached(files: dict, loaded: str, names) -> set[str]:
    """The memories a loaded index reaches: its entries, and what they link, on and on."""
    seen: set[str] = set()
    todo = [m for m in _entries(loaded, names) if m in files]
    while todo:
        file = todo.pop()
        if file not in seen:
            seen.add(file)
            todo += links_of(files, file)
    return seen


def _entries(text: str, names) -> list[str]:
    """The files an index text links: by Markdown links, and `[[name]]`s `names` resolve."""
    found = [m.group(1) for m in re.finditer(r"\]\(\s*(?:\./)?([^)#\s]+\.md)", text)]
    found += [resolve_wiki(m.split("|")[0], names)
              for m in re.findall(r"\[\[([^\]\n]+)\]\]", text)]
    return [file for file in found if file]


def _relative(file: str, linking: str) -> str:
    folder = linking[:linking.rfind("/") + 1]
    return file[len(folder):] if folder and file.startswith(folder) else file


def undo_exact(home: Home, which: Path, source: Path, target: Path, before_source: dict,
               before_target: dict, label: str, tally: Tally) -> None:
    tally.undos += 1
    run = home.memtui("undo", str(which))
    if run.returncode != 0:
        tally.bad(f"{label}: undo exit {run.returncode}: {run.stderr.strip()[-300:]}")
        return
    differences = (state_difference(before_source, state(source))
                   + state_difference(before_target, state(target)))
    if differences:
        tally.bad(f"{label}: after undo: {differences[:6]}")
    else:
        tally.undo_exact += 1


def restore(store: Path, base: Path) -> None:
    shutil.rmtree(store)
    subprocess.run(["cp", "-a", str(base), str(store)], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("stores", nargs="+", type=Path, metavar="STORE")
    parser.add_argument("--work", type=Path)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--samples", type=int, default=12)
    args = parser.parse_args()
    root = args.work or Path(tempfile.mkdtemp(prefix="transfer-on-stores-"))
    if args.work and root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True, exist_ok=True)
    try:
        home = Home(root, [store.resolve() for store in args.stores])
        return run_pairs(home, args.stores, args.samples)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def run_pairs(home: Home, given: list[Path], samples: int) -> int:
    tally = Tally()
    names = list(home.stores)
    for number, name in enumerate(names):
        source, target = home.stores[name], home.stores[names[(number + 1) % len(names)]]
        if source == target:
            continue
        files = [file for file, _ in memory_files(source)]
        print(f"{name} ({len(files)}) -> {called(target)}", flush=True)
        before_source, before_target = state(source), state(target)
        for verb, chosen, undo_of in (("copy", files, target),
                                      ("move", files[::2], source if number % 2 else target)):
            label = f"{verb} {called(source)} -> {called(target)}"
            taken, run = try_transfer(home, verb, chosen, source, target, tally)
            tally.batches.append(f"{label}: {len(taken)} of {len(chosen)}")
            if run is None:
                if state(source) != before_source or state(target) != before_target:
                    tally.bad(f"{label}: a refused command changed a store")
                continue
            check_carried(home, verb, taken, run, source, target, before_source,
                          before_target, tally, samples)
            undo_exact(home, undo_of, source, target, before_source, before_target, label,
                       tally)
            if state(source) != before_source:
                restore(source, given[number])
            if state(target) != before_target:
                restore(target, given[(number + 1) % len(names)])
    report(tally)
    return 1 if tally.wrong else 0


def report(tally: Tally) -> None:
    print("\n== figures ==")
    print(f"commands taken: {tally.accepted}; refusals: {sum(tally.refused.values())} "
          f"(halved and tried again); {tally.seconds:.0f} s in memtui copy/move")
    print(f"files carried: {tally.files}")
    print(f"  in the target already, byte for byte (left untouched): {tally.already_there}")
    print(f"  bytes identical: {tally.identical}")
    print(f"  differing by rewritten links only: {tally.links_only}")
    print(f"  mtime kept: {tally.mtime_kept} (links rewritten, so dated now: "
          f"{tally.rewritten_now}); frontmatter read the same: "
          f"{tally.frontmatter_same}")
    print(f"  index line inside the target's loaded cut: {tally.inside_cut} "
          f"(+ {tally.unindexed_logs} logs/sessions files, rightly given no index line)")
    print(f"links between carried memories: {tally.carried_links}, lead to the carried copy: "
          f"{tally.carried_links_ok}")
    print(f"links from carried memories to ones left behind: {tally.left_links}: named "
          f"{tally.left_links_named}, land on a same-named memory of the target "
          f"{tally.left_links_retargeted}")
    print(f"links from remaining memories to moved ones: {tally.behind_links}, named "
          f"{tally.behind_links_named}")
    print(f"target entries pushed past the cut that a loaded memory still links (memtui "
          f"counts them reached, and says nothing): {tally.pushed_but_reached}")
    print(f"undo exact (both stores, bytes and mtimes): {tally.undo_exact} of {tally.undos}")
    print(f"refused, why (the longest message: {tally.longest_refusal} characters):")
    for reason, count in tally.refused.most_common():
        print(f"  {count} x {reason}")
    print("batches taken:")
    for line in tally.batches:
        print(f"  {line}")
    if tally.samples:
        print("sample of link rewrites (judge by hand):")
        for sample in tally.samples:
            print(f"  {sample}")
    print(f"wrong: {len(tally.wrong)}")
    for line in tally.wrong[:60]:
        print(f"  {line}")


if __name__ == "__main__":
    sys.exit(main())
