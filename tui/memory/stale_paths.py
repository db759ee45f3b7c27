"""Memories checked against the code they describe: the `stale_path` finding and its repair.

A memory (or an index line) that mentions a path of its project (`tui.memory.path_mentions`)
is checked against the project's checkout (`tui.claude.checkout`): a path that exists
neither among git's files nor on disk (an ignored file counts as existing) is stale. git's
history says when it went and where to, following a chain of renames to today's path. A
finding needs that evidence: a path git never had is no finding (hook patterns, import
specifiers, examples and other projects' paths look just like one), nor is a path the
memory itself says moved or went (`tui.memory.told_gone`).

Left alone: a path under a submodule (another repository's) or a tracked symlink (its
target's), one that exists in another
worktree of the repository or as seen from a subdirectory (`api/x.py` for
`backend/api/x.py`), and every path on a line that names another repository (its absolute
path, or its URL when that is not this checkout's origin).

The repair (`plan_repath`) writes each renamed path's successor in its place (in a
Markdown link, its target with its text); a deleted path, and a renamed one every project
has (`.claude/settings.json`), is left for the user to edit or archive.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Container, Iterable, Sequence
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from tui.claude.checkout import (
    Checkout,
    CheckoutCache,
    CheckoutState,
    Departure,
    Unchecked,
    read_checkout,
    tilde,
)
from tui.claude.gitroot import find_git_root
from tui.memory.finding import Finding
from tui.memory.path_mentions import PathMention, find_mentions
from tui.memory.store import Store
from tui.memory.told_gone import ToldGone
from tui.words import plural

# A store file's text by its store-relative name (None: it cannot be read): a stale mention's
# own words are read in it, to let off one the memory says moved or went.
TextOf = Callable[[str], "str | None"]

STALE = "stale_path"
# A folder whose files left it is renamed when this share of them went to one new folder:
# git pairs a file or two of a moved folder with another file, or the move drops one.
NEARLY_ALL = 0.8
# Files every project has: a memory naming one may speak of any project's, so a rename of
# the repository's own is no repair to offer.
EVERY_PROJECT_FILES = frozenset({
    "package.json", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "tsconfig.json",
    "readme.md", "claude.md", "agents.md", "changelog.md", "license", "license.md",
    ".gitignore", ".env", ".env.local", ".env.example", "makefile", "dockerfile",
    "docker-compose.yml", "docker-compose.yaml", "pyproject.toml", "requirements.txt",
    "setup.py", "cargo.toml", "go.mod", "settings.json", "settings.local.json", ".mcp.json",
})
UNCHECKED = "paths_unchecked"
_CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org")


class Verdict(NamedTuple):
    """A mention of a path the checkout does not have, and what became of it."""

    mention: PathMention
    successor: str | None  # today's path, written as the mention writes paths; None: none
    commits: tuple[str, ...]  # the renames and the deletion it went through, oldest first
    gone_since: str | None  # the date it left (None: it never was in the history)
    # "renamed", "deleted", "renamed, then deleted", "renamed to a gone path", "renamed, a
    # path every project has" (no successor offered: the memory may mean any project's)
    fate: str
    last_name: str | None = None  # the name it had last, when that is gone too


# --- mentions ---------------------------------------------------------------------------------


def store_mentions(store: Store) -> list[PathMention]:
    """Every path the store's indexes and memories mention (daily logs aside: they record
    what was true on their day)."""
    own = frozenset(memory.file for memory in store.memories)
    found: list[PathMention] = []
    for index in store.indexes:
        if index.text and not index.not_text:
            found += find_mentions(index.file, index.text, own)
    for memory in store.memories:
        if not memory.error and not memory.is_log:
            found += find_mentions(memory.file, memory.text, own)
    return found


def store_texts(store: Store) -> TextOf:
    """The texts `store_mentions` read, by file."""
    texts = {index.file: index.text for index in store.indexes if index.text}
    texts.update((memory.file, memory.text) for memory in store.memories if not memory.error)
    return texts.get


def texts_on_disk(store: Path) -> TextOf:
    """A store's files as they are on disk now (for mentions kept from an earlier run)."""
    from tui.claude.lines import read_store_text

    def text_of(file: str) -> str | None:
        try:
            return read_store_text(store / file)
        except (OSError, ValueError):
            return None
    return text_of


class _Sayings:
    """What the texts say of their stale mentions (`tui.memory.told_gone`), each text read
    once, when a stale mention in it is first asked of."""

    def __init__(self, text_of: TextOf):
        self.text_of = text_of
        self.read: dict[str, tuple[ToldGone, list[int]] | None] = {}

    def told_gone(self, mention: PathMention) -> bool:
        if mention.file not in self.read:
            text = self.text_of(mention.file)
            self.read[mention.file] = None if text is None else (
                ToldGone(text), [0, *(at + 1 for at, char in enumerate(text) if char == "\n")])
        found = self.read[mention.file]
        if found is None or mention.line > len(found[1]):
            return False
        told, line_starts = found
        start = line_starts[mention.line - 1] + mention.column
        end = start + len(mention.target)
        return told.text[start:end] == mention.target and told(start, end)


# --- checking ---------------------------------------------------------------------------------


class Probes(NamedTuple):
    """What the file system answered a judge, beside git: asked again before its verdicts
    are reused, so an ignored file made or removed since shows as it would uncached."""

    on_disk: dict[str, tuple[bool, bool]]  # path -> (asked as a folder, found)
    at_root: dict[str, bool]  # path -> found in the checkout itself
    foreign: dict[str, bool]  # a place a line names -> is another repository


class _Judge:
    """Mentions against one checkout; what the file system says is asked once a path."""

    def __init__(self, checkout: Checkout):
        self.checkout = checkout
        self.probes = Probes({}, {}, {})
        self.on_disk = self.probes.on_disk
        self.foreign = self.probes.foreign
        # (path, folder, places) found fine: a store mentions the same path ~7 times, and
        # whether it is fine depends on nothing else (the file system is asked once a path).
        self._fine: set[tuple[str, bool, tuple[str, ...]]] = set()

    @cached_property
    def trees(self) -> tuple[str, ...]:
        """The checkout and the repository's other worktrees (read when first needed)."""
        return (self.checkout.root, *self.checkout.other_trees)

    def verdict(self, mention: PathMention) -> Verdict | None:
        """None when the mention is fine (or not this checkout's to judge)."""
        key = (mention.path, mention.folder, mention.places)
        if key in self._fine:
            return None
        found = self._verdict(mention)
        if found is None:
            self._fine.add(key)
        return found

    def _verdict(self, mention: PathMention) -> Verdict | None:
        path = mention.path
        checkout = self.checkout
        if path in checkout.tracked or path in checkout.folders or checkout.has_end(path):
            return None
        # What git says became of it first: most paths it never had are let off there,
        # without asking the disk.
        gone = self.gone(mention)
        if gone is None or self.exists(path, mention.folder) or self.in_submodule(path) or \
                self.beyond_symlink(path) or \
                any(self.is_foreign(place) for place in mention.places):
            return None
        return gone

    def gone(self, mention: PathMention) -> Verdict | None:
        """What became of a path git does not have now, when git says it had it: at that
        path, or seen from a subfolder (`billing/api.py` for `src/billing/api.py`). A path
        git never had is no finding: hook patterns, import specifiers, examples and other
        projects' paths look the same."""
        path = mention.path
        if path in self.checkout.departures:
            return self.followed(mention, path)
        named = self.checkout.departed_ending_in(path)
        if named:
            return self.agreed(mention, named)
        if mention.folder:
            return self.departed_folder(mention, path)
        return None

    def agreed(self, mention: PathMention, named: Sequence[str]) -> Verdict | None:
        """A mention seen from a subfolder that several departed paths end with: judged
        when every one of them leads to the same file today (or all of them are gone),
        else not clearly one of them."""
        verdicts = [self.followed(mention, full) for full in named]
        if len(verdicts) == 1:
            return verdicts[0]
        ends = {self.last_path(full) for full in named}
        if len(ends) == 1 and verdicts[0].fate == "renamed" or \
                all(verdict.fate == "deleted" for verdict in verdicts):
            # Written as from the shallowest folder it may have been written in.
            return verdicts[min(range(len(named)), key=lambda at: len(named[at]))]
        return None

    def last_path(self, full: str) -> str | None:
        """Where `full` is today, followed through its renames; None when gone."""
        chain, current = self.chain(full)
        return current if chain[-1].renamed_to is not None and \
            self.exists_at_root(current) else None

    def chain(self, full: str) -> tuple[list[Departure], str]:
        """The renames and the deletion a departed path went through, and its last name."""
        departures = self.checkout.departures
        chain: list[Departure] = []
        current = full
        seen: set[str] = set()
        while current in departures and current not in seen:
            seen.add(current)
            departure = departures[current]
            chain.append(departure)
            if departure.renamed_to is None:
                break
            current = departure.renamed_to
            if self.exists_at_root(current):
                break
        return chain, current

    def exists(self, path: str, folder: bool = False) -> bool:
        checkout = self.checkout
        if path in checkout.tracked or path in checkout.folders or checkout.has_end(path):
            return True
        if path not in self.on_disk:
            self.on_disk[path] = (folder, self.on_disk_now(path, folder))
        return self.on_disk[path][1]

    def on_disk_now(self, path: str, folder: bool) -> bool:
        """On disk in the checkout or another worktree: an ignored or untracked file
        counts; a folder only with something in it (git leaves emptied folders)."""
        found = _holds_files if folder else os.path.lexists
        return any(found(os.path.join(tree, path)) for tree in self.trees)

    def beyond_symlink(self, path: str) -> bool:
        """Whether a folder of `path` is a file git tracks: a symlink, whose target (often
        outside the repository) git knows nothing of."""
        tracked = self.checkout.tracked
        slash = path.find("/")
        while slash != -1:
            if path[:slash] in tracked:
                return True
            slash = path.find("/", slash + 1)
        return False

    def in_submodule(self, path: str) -> bool:
        return any(path == module or path.startswith(module + "/")
                   for module in self.checkout.submodules)

    def is_foreign(self, place: str) -> bool:
        """Whether a place a line names is another repository."""
        if place not in self.foreign:
            self.foreign[place] = self._foreign(place)
        return self.foreign[place]

    def _foreign(self, place: str) -> bool:
        if place.lower().startswith(("repo:", *_CODE_HOSTS)):
            repository = re.split(r"[/:]", place, maxsplit=1)[1].lower().removesuffix(".git")
            origin = (self.checkout.origin or "").lower().removesuffix(".git").rstrip("/")
            origin = origin.replace(":", "/")  # git@host:owner/name as host/owner/name
            names = {origin.rpartition("/")[2], os.path.basename(self.checkout.root).lower()}
            return not (origin.endswith("/" + repository) or repository in names)
        path = os.path.expanduser(place)
        real = os.path.realpath(path)
        if any(real == tree or real.startswith(tree.rstrip("/") + "/")
               for tree in map(os.path.realpath, self.trees)):
            return False
        existing = path
        while not os.path.isdir(existing) and os.path.dirname(existing) != existing:
            existing = os.path.dirname(existing)
        root = find_git_root(existing)
        return root is not None and os.path.realpath(root) not in \
            {os.path.realpath(tree) for tree in self.trees}

    def followed(self, mention: PathMention, full: str) -> Verdict:
        """A departed path followed through its renames to today's path."""
        chain, current = self.chain(full)
        commits = tuple(departure.commit for departure in chain)
        last = chain[-1]
        if last.renamed_to is None:
            fate = "deleted" if len(chain) == 1 else "renamed, then deleted"
            return Verdict(mention, None, commits, chain[0].date, fate,
                           _written(mention, full, current) if len(chain) > 1 else None)
        if not self.exists_at_root(current):
            return Verdict(mention, None, commits, chain[0].date, "renamed to a gone path",
                           _written(mention, full, current))
        if every_project_has(mention.path):
            return Verdict(mention, None, commits, chain[0].date, "renamed, a path every "
                           "project has", _written(mention, full, current))
        return Verdict(mention, _written(mention, full, current), commits, chain[0].date,
                       "renamed")

    def exists_at_root(self, path: str) -> bool:
        if path in self.checkout.tracked:
            return True
        at_root = self.probes.at_root
        if path not in at_root:
            at_root[path] = os.path.lexists(os.path.join(self.checkout.root, path))
        return at_root[path]

    def departed_folder(self, mention: PathMention, path: str) -> Verdict | None:
        """A folder git had and has no more (at that path, or seen from a subfolder):
        renamed when nearly all the files that left it last (in the commit that emptied
        it) went to one new folder, else deleted."""
        departures = self.checkout.departures
        middle = "/" + path + "/"
        folders: dict[str, list[tuple[str, Departure]]] = {}
        for old, departure in departures.items():
            if old.startswith(path + "/"):
                folders.setdefault(path, []).append((old, departure))
            elif (at := old.find(middle)) != -1:
                folders.setdefault(old[:at + len(middle) - 1], []).append((old, departure))
        verdicts = [self.folder_verdict(mention, full, gone)
                    for full, gone in folders.items()]
        if len(verdicts) == 1:
            return verdicts[0]
        if verdicts and len({verdict.successor for verdict in verdicts}) == 1 and \
                verdicts[0].successor is not None:
            return verdicts[0]
        return None  # none, or several folders it may be that went different ways

    def folder_verdict(self, mention: PathMention, full: str,
                       gone: list[tuple[str, Departure]]) -> Verdict:
        last = gone[0][1]  # git lists the newest first
        left = [old for old, departure in gone if departure.commit == last.commit]
        targets: Counter[str | None] = Counter()
        for old in left:
            new = self.last_path(old)
            rest = old[len(full) + 1:]
            targets[new[:-len(rest) - 1] if new and new.endswith("/" + rest) else None] += 1
        target, count = targets.most_common(1)[0]
        if target is not None and count >= NEARLY_ALL * len(left):
            return Verdict(mention, _written(mention, full, target), (last.commit,),
                           last.date, "renamed")
        return Verdict(mention, None, (last.commit,), last.date, "deleted")


def every_project_has(path: str) -> bool:
    """Whether `path` is a file every project has, at its root or in a tool's dot-folder
    (`package.json`, `.claude/settings.json`)."""
    folder, _, name = path.rpartition("/")
    return name.lower() in EVERY_PROJECT_FILES and \
        all(part.startswith(".") for part in folder.split("/") if part)


def _holds_files(folder: str) -> bool:
    try:
        with os.scandir(folder) as entries:
            return next(entries, None) is not None
    except OSError:
        return False


def _written(mention: PathMention, full: str, new: str) -> str:
    """`new` written as the mention writes its path: from the same folder (a mention made
    in a subdirectory), with its `./` and its trailing `/`."""
    if full != mention.path and full.endswith("/" + mention.path):
        prefix = full[:len(full) - len(mention.path)]
        if new.startswith(prefix):
            new = new[len(prefix):]
    if mention.target.startswith("./"):
        new = "./" + new
    if mention.folder and not new.endswith("/"):
        new += "/"
    return new


def stale_verdicts(mentions: Iterable[PathMention], checkout: Checkout,
                   text_of: TextOf | None = None) -> list[Verdict]:
    return judged(mentions, checkout, text_of)[0]


def judged(mentions: Iterable[PathMention], checkout: Checkout, text_of: TextOf | None = None
           ) -> tuple[list[Verdict], Probes]:
    """The stale mentions' verdicts, and what the file system was asked to reach them.
    With `text_of`, a mention its text says moved, went or never was is let off (read only
    for the few found stale: asking it of every mention cost the mention finder 1.7x)."""
    judge = _Judge(checkout)
    verdicts = [verdict for mention in mentions
                if (verdict := judge.verdict(mention)) is not None]
    if text_of is not None and verdicts:
        sayings = _Sayings(text_of)
        verdicts = [verdict for verdict in verdicts if not sayings.told_gone(verdict.mention)]
    return verdicts, judge.probes


def probes_hold(probes: Probes, state: CheckoutState) -> bool:
    """Whether the file system answers `probes` today as it did: with git's answer
    unchanged (HEAD and index), the verdicts reached from them hold."""
    if not (probes.on_disk or probes.at_root or probes.foreign):
        return True
    judge = _Judge(Checkout(state.root, state.head or "", frozenset(), (), {},
                            state.common_dir))
    return all(judge.on_disk_now(path, folder) == found
               for path, (folder, found) in probes.on_disk.items()) and \
        all(os.path.lexists(os.path.join(state.root, path)) == found
            for path, found in probes.at_root.items()) and \
        all(judge._foreign(place) == found for place, found in probes.foreign.items())


# --- findings ---------------------------------------------------------------------------------


def code_findings(store: Store, project_path: str | None,
                  cache: CheckoutCache | None = None) -> list[Finding]:
    """The store's `stale_path` findings against its project's checkout, or the one
    `paths_unchecked` finding saying why it could not be checked."""
    return mention_findings(store_mentions(store), project_path, cache, store_texts(store))


def mention_findings(mentions: Sequence[PathMention], project_path: str | None,
                     cache: CheckoutCache | None = None, text_of: TextOf | None = None,
                     ) -> list[Finding]:
    """`code_findings` of mentions already found (`audit --all` keeps them in its cache);
    `text_of` gives the texts they were found in."""
    return judged_findings(mentions, project_path, cache, text_of=text_of)[0]


def judged_findings(mentions: Sequence[PathMention], project_path: str | None,
                    cache: CheckoutCache | None = None,
                    state: CheckoutState | Unchecked | None = None,
                    text_of: TextOf | None = None,
                    ) -> tuple[list[Finding], Probes | None]:
    """`mention_findings`, and what the file system was asked to reach them (None when git
    failed: a finding that says so holds for this run only)."""
    if not mentions:
        return [], Probes({}, {}, {})  # nothing to check: no git asked
    checkout = read_checkout(project_path, cache, state)
    if isinstance(checkout, Unchecked):
        failed = not isinstance(state, Unchecked)
        return [unchecked_finding(len(mentions), checkout.reason)], \
            None if failed else Probes({}, {}, {})
    verdicts, probes = judged(mentions, checkout, text_of)
    return [stale_finding(verdict, checkout.root) for verdict in verdicts], probes


def unchecked_finding(mentions: int, reason: str) -> Finding:
    return Finding(UNCHECKED, "info", None, None,
                   f"{plural(mentions, 'path mention')} not checked against the code: {reason}")


def stale_finding(verdict: Verdict, root: str) -> Finding:
    mention = verdict.mention
    return Finding(STALE, "warning", mention.file, mention.line,
                   stale_message(verdict, tilde(root)), target=mention.target,
                   other=verdict.successor)


def stale_message(verdict: Verdict, where: str) -> str:
    target = verdict.mention.target
    commits = verdict.commits
    if verdict.fate == "renamed":
        how = f"moved to {verdict.successor} in {_joined(commits)}"
    elif verdict.fate == "deleted":
        how = f"deleted in {_joined(commits)}"
    elif verdict.fate == "renamed, a path every project has":
        how = (f"this repository's moved to {verdict.last_name} in {_joined(commits)}; every "
               "project has one, so check which the memory means")
    elif verdict.fate == "renamed, then deleted":
        how = (f"moved to {verdict.last_name} in {_joined(commits[:-1])}, then deleted in "
               f"{commits[-1]}")
    else:
        how = f"moved to {verdict.last_name} in {_joined(commits)}, which is gone too"
    advice = "" if verdict.successor else "; edit or archive the memory"
    return f"mentions {target}, gone from {where} since {verdict.gone_since} ({how}){advice}"


def _joined(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


# --- the repair -------------------------------------------------------------------------------


def repath_text(file: str, text: str, checkout: Checkout,
                store_files: Container[str] = ()) -> tuple[str, list[Verdict]]:
    """`text` with every renamed path it mentions written as today's path (in a Markdown
    link, its target with its text), and the verdicts of every stale mention (the renamed
    ones rewritten, the others left as they are)."""
    verdicts = stale_verdicts(find_mentions(file, text, store_files), checkout,
                              {file: text}.get)
    renamed = [v for v in verdicts if v.successor is not None]
    if not renamed:
        return text, verdicts
    lines = text.split("\n")
    edits: dict[tuple[int, int], tuple[int, str]] = {}  # (line, start) -> (end, new text)
    for verdict in renamed:
        mention = verdict.mention
        line = lines[mention.line - 1]
        end = mention.column + len(mention.target)
        if line[mention.column:end] != mention.target:
            continue
        edits[(mention.line, mention.column)] = (end, verdict.successor)
        for start, stop, new in (_link_target(line, mention, verdict.successor),
                                 _link_text(line, mention, verdict.successor)):
            if start != -1:
                edits.setdefault((mention.line, start), (stop, new))
    for (number, start), (end, new) in sorted(edits.items(), reverse=True):
        line = lines[number - 1]
        lines[number - 1] = line[:start] + new + line[end:]
    return "\n".join(lines), verdicts


_NO_EDIT = (-1, -1, "")
# The rest of a Markdown link after a path in its text: `…](target)`.
_LINK_REST = re.compile(r"[^\[\]\n]*\]\(<?([^()<>\s]+?)(?:#[^()\s]*)?>?(?:\s+\"[^\"]*\")?\)")


def _link_target(line: str, mention: PathMention, successor: str) -> tuple[int, int, str]:
    """(start, end, rewritten) of the target of the Markdown link whose text holds
    `mention`, when that target names the same file (`../../src/a.py` for `src/a.py`):
    a link whose text is brought up to date must not keep pointing at the old file."""
    opening = line.rfind("[", 0, mention.column)
    if opening == -1 or "]" in line[opening:mention.column]:
        return _NO_EDIT
    rest = _LINK_REST.match(line, mention.column + len(mention.target))
    if rest is None:
        return _NO_EDIT
    target = rest.group(1)
    old = mention.path + ("/" if mention.folder else "")
    if not (target.removeprefix("./") == old or target.endswith("/" + old)):
        return _NO_EDIT
    kept = target[:len(target) - len(old)]
    new = successor.removeprefix("./") if kept else successor
    return rest.start(1), rest.end(1), kept + new


def _link_text(line: str, mention: PathMention, successor: str) -> tuple[int, int, str]:
    """(start, end, rewritten) of the path a Markdown link's text writes when `mention` is
    the link's target and the text names the same path (`[src/a.py](src/a.py)`: a path just
    after `[` is no mention of its own)."""
    if not line.startswith("](", mention.column - 2):
        return _NO_EDIT
    closing = mention.column - 2
    opening = line.rfind("[", 0, closing)
    if opening == -1:
        return _NO_EDIT
    text = line[opening + 1:closing]
    for old in dict.fromkeys((mention.target, mention.path)):
        at = text.rfind(old)
        if at != -1 and text[at + len(old):].strip("`*_ ") == "" and \
                (at == 0 or text[at - 1] in "`*_ "):
            return opening + 1 + at, opening + 1 + at + len(old), successor
    return _NO_EDIT


def plan_repath(store: Store, project_path: str | None, files: Sequence[str] | None = None):
    """Every renamed path the store mentions (in `files` only, when given) rewritten as
    its successor in the project's checkout; deleted paths are named in the summary and
    left as they are. WriteRefused when the checkout cannot be read."""
    from tui.memory.curate import Plan, texts_on_disk
    from tui.memory.refusals import WriteRefused
    from tui.memory.writes import FileChange, mtime_ns_of

    checkout = read_checkout(project_path)
    if isinstance(checkout, Unchecked):
        raise WriteRefused(f"The paths cannot be checked against the code: {checkout.reason}.")

    own = frozenset(memory.file for memory in store.memories)
    names = [index.file for index in store.indexes if not index.not_text]
    names += [memory.file for memory in store.memories if not memory.error and not memory.is_log]
    changes: list[FileChange] = []
    summary: list[str] = []
    rewritten = 0
    for file, before, text in texts_on_disk(store, names, files):
        if text is None:
            summary.append(f"{file} is not valid UTF-8: its paths are left as they are.")
            continue
        after, verdicts = repath_text(file, text, checkout, own)
        if before is None:
            if after != text:
                summary.append(f"{file} is a symlink, and memtui writes only regular "
                               "files: update its renamed paths in the file it points to.")
            continue
        for verdict in verdicts:
            mention = verdict.mention
            where = f"{file} line {mention.line}"
            if verdict.successor is not None:
                rewritten += 1
                summary.append(f"Write {verdict.successor} for {mention.target} ({where}).")
            else:
                summary.append(f"{mention.target} ({where}) has no successor "
                               f"({_fate_phrase(verdict)}): left as it is; edit or archive "
                               "the memory.")
        if after != text:
            # The mtime is kept: recall orders memories by it, and a path brought up to
            # date makes no other fact of the memory newer.
            changes.append(FileChange(file, before, after.encode("utf-8"),
                                      mtime_ns_of(store.path / file)))
    label = f"update {plural(rewritten, 'renamed path')}"
    return Plan(label, tuple(changes), summary or ["No renamed path: every path the memories "
                                                   "mention is where they say."])


def _fate_phrase(verdict: Verdict) -> str:
    if verdict.fate == "renamed, a path every project has":
        return (f"this repository's moved to {verdict.last_name} in {verdict.commits[-1]}, "
                "but every project has one")
    if verdict.fate == "deleted":
        return f"deleted in {verdict.commits[-1]}"
    return f"{verdict.fate} in {verdict.commits[-1]}"
