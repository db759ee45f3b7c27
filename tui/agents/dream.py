"""A dream: consolidating one store in four real phases, on a staging copy, under the lock.

Orient, Gather, Consolidate, Prune and index each have their own status, time, tokens and
tool calls. The lock follows Claude Code's rules; a failed or cancelled run rolls it back
so it never counts as a consolidation. A dry run writes nothing to the store, so it leaves
the lock alone: its mtime is Claude Code's "last consolidated at".
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from tui import failpoints
from tui.agents import datefix, merging, offline, prompts
from tui.agents.changeset import build_changeset
from tui.agents.client import ClientConfig, EngineError, ModelClient
from tui.agents.events import CANCELLED, FAILED, Listener, Progress, RunCancelled
from tui.agents.gates import compute_gates
from tui.agents.indexfit import LINE_LIMIT, IndexRebuild
from tui.agents.loop import add_user, check, client_for, run_turns
from tui.agents.result import CANCELLED as RUN_CANCELLED
from tui.agents.result import FAILED as RUN_FAILED
from tui.agents.result import SUCCEEDED, RunResult, unexpected_error
from tui.agents.staging import LimitReached, Staging, Toolbox
from tui.claude.checkout import Checkout, Unchecked, read_checkout, tilde
from tui.claude.lines import read_store_text, split_lines
from tui.claude.lock import LockBusy, LockLease, acquire_lock, read_lock, rollback_lock
from tui.claude.paths import INDEX_NAME, utf16_len
from tui.memory.audit import iter_findings
from tui.memory.finding import Finding
from tui.memory.index import MAX_CHARS, MAX_LINES, parse_index
from tui.memory.refusals import WriteRefused
from tui.memory.stale_paths import (
    Verdict,
    stale_finding,
    stale_verdicts,
    store_mentions,
    store_texts,
)
from tui.memory.store import Store, load_store
from tui.memory.store_lock import store_lock
from tui.words import agreeing, plural

PHASES = ("Orient", "Gather", "Consolidate", "Prune and index")
PHASE_TURNS = 12


def _logs_since(staging: Staging, since: float | None) -> list[str]:
    found = []
    for relative in staging.markdown():
        if not relative.startswith(("logs/", "sessions/")):
            continue
        if since is None or (staging.root / relative).stat().st_mtime > since:
            found.append(relative)
    return found


def _stale(store: Store, code: Checkout | Unchecked | None) -> list[Verdict]:
    """The paths of the code the store mentions that are gone, when there is a checkout
    to check them against (git is asked once a run: the facts and the prompt share them)."""
    return stale_verdicts(store_mentions(store), code, store_texts(store)) \
        if isinstance(code, Checkout) else []


def _facts(store: Store, stale: Sequence[Verdict], code: Checkout | Unchecked | None) -> str:
    findings = list(_findings(store, code, lambda: stale))
    lines = [_summary(store)]
    lines += [f"- {f.message}" for f in findings[:30]]
    if len(findings) > 30:
        lines.append(f"- … and {len(findings) - 30} more findings")
    return "\n".join(lines)


def _first_facts(store: Store, code: Checkout | Unchecked | None, count: int) -> list[str]:
    """The first `count` lines of `_facts`, with no finding worked out past them (and git
    asked for stale paths only when the audit's own findings do not fill them)."""
    lines = [_summary(store)]
    shown = lines[0].splitlines()
    if len(shown) < count:
        for finding in _findings(store, code, lambda: _stale(store, code)):
            lines.append(f"- {finding.message}")
            shown = "\n".join(lines).splitlines()
            if len(shown) >= count:
                break
    return shown[:count]


def _summary(store: Store) -> str:
    index = store.index
    return (f"- {len(store.memories)} memory files; MEMORY.md has {index.lines} lines and "
            f"{index.chars} characters" + (f" (cut by {index.cut})" if index.cut else ""))


def _findings(store: Store, code: Checkout | Unchecked | None,
              stale: Callable[[], Sequence[Verdict]]) -> Iterator[Finding]:
    """The audit's findings, then each stale path of the code when there is a checkout."""
    yield from iter_findings(store)
    if isinstance(code, Checkout):
        yield from (stale_finding(verdict, code.root) for verdict in stale())


def _stale_paths(stale: Sequence[Verdict]) -> str:
    """Each path of the code the staged memories mention that is gone, with its successor."""
    lines = []
    for verdict in stale:
        mention = verdict.mention
        where = f"{mention.file} line {mention.line}: {mention.target}"
        if verdict.successor:
            lines.append(f"- {where} is now {verdict.successor} "
                         f"(renamed in {', '.join(verdict.commits)})")
        else:
            lines.append(f"- {where} was deleted (in {verdict.commits[-1]}); no successor")
    return "\n".join(lines)


def index_over_limits(staging: Staging) -> tuple[int, int] | None:
    """(lines, chars) when the staged MEMORY.md breaks a limit, else None."""
    path = staging.root / INDEX_NAME
    if not path.exists():
        return None
    text = read_store_text(path)
    index = parse_index(text)
    too_wide = any(utf16_len(line) > LINE_LIMIT for line in split_lines(text))
    if index.lines > MAX_LINES or index.chars > MAX_CHARS or too_wide:
        return index.lines, index.chars
    return None


def run_dream(store: Path, *, engine: str, config: ClientConfig | None = None,
              transcript_dirs: Sequence[Path] = (), cwd_folder: Path | None = None,
              listener: Listener | None = None, cancel: threading.Event | None = None,
              dry_run: bool = False, checkout: str | None = None) -> RunResult:
    """`checkout`: the project's path, whose code the memories' paths are checked against
    (renamed ones are rewritten by the offline engine, shown to the model by the other)."""
    cancel = cancel or threading.Event()
    progress = Progress(PHASES, listener)
    gates = compute_gates(store, transcript_dirs, cwd_folder)
    result = RunResult("dream", engine, RUN_FAILED, progress.snapshot(), (),
                       gates=gates.to_json())
    lease: LockLease | None = None
    lock = read_lock(store) if dry_run else None  # a dry run only reads it
    try:
        client = client_for(engine, config, progress, cancel)
        if not dry_run:
            with store_lock(store):  # two memtui dreams never both win Claude Code's lock race
                lease = acquire_lock(store)
    except (EngineError, LockBusy, WriteRefused) as error:
        result.error = str(error)
        return result
    except OSError as error:  # the store or its lock file is not ours to write
        result.error = (f"The consolidation lock in {store} cannot be taken "
                        f"({error.strerror or error}).")
        return result

    staging: Staging | None = None
    toolbox: Toolbox | None = None
    notes: list[str] = []
    since = lease.previous.mtime if lease is not None else lock.mtime
    if lock is not None and lock.held():
        progress.say("warning", f"process {lock.pid} holds the consolidation lock (a dream is "
                     "running there): this dry run may read the store half rewritten")
    try:
        staging = Staging.create(store)
        failpoints.reached("dream.staged", str(store))
        toolbox = Toolbox(staging, transcript_dirs, progress.say, cancel)
        code = read_checkout(checkout) if checkout else None
        if client is None:
            _offline_phases(staging, progress, cancel, since, notes, code)
        else:
            _model_phases(client, staging, toolbox, progress, cancel, since, notes, code)
        label = f"dream {dt.datetime.now():%Y-%m-%d %H:%M} ({engine})"
        staged, link_notes = staging.staged()
        notes.extend(toolbox.limits_hit + link_notes)
        result.changeset = build_changeset(staging.originals, staged, staging.deleted, store,
                                           label, notes, staging.declared)
        result.status, result.lease = SUCCEEDED, lease
    except RunCancelled:
        progress.fail_running(CANCELLED)
        progress.say("info", "cancelled; the lock was rolled back and nothing was applied"
                     if lease is not None else "cancelled; nothing was applied")
        result.status, result.error = RUN_CANCELLED, "The run was cancelled; nothing was applied."
        _roll_back(lease)
    except EngineError as error:
        progress.fail_running(FAILED)
        progress.say("error", str(error))
        result.error = str(error)
        _roll_back(lease)
    except Exception as error:  # whatever it was, the run ends in one sentence
        progress.fail_running(FAILED)
        result.error = unexpected_error(error, staging and staging.root, store)
        progress.say("error", result.error)
        _roll_back(lease)
    except BaseException:
        _roll_back(lease)
        raise
    finally:
        if staging is not None:
            staging.discard()
    result.phases, result.log = progress.snapshot(), tuple(progress.log)
    result.tokens_in, result.tokens_out = progress.tokens
    result.refusals = tuple(toolbox.refusals) if toolbox else ()
    result.notes = notes
    return result


def _roll_back(lease: LockLease | None) -> None:
    if lease is not None:
        rollback_lock(lease)


def _offline_phases(staging: Staging, progress: Progress, cancel: threading.Event,
                    since: float | None, notes: list[str],
                    code: Checkout | Unchecked | None = None) -> None:
    say = progress.say
    progress.start("Orient")
    store = load_store(staging.root)
    for line in _first_facts(store, code, 12):
        say("info", line.removeprefix("- "))
    progress.finish()

    check(cancel)
    progress.start("Gather")
    logs = _logs_since(staging, since)
    say("info", f"{plural(len(logs), 'daily log')} since the last consolidation"
        + (": " + ", ".join(logs[:10]) if logs else ""))
    if logs:
        count = len(logs)
        notes.append(f"{plural(count, 'daily log')} {agreeing(count, 'needs', 'need')} a model to "
                     f"distill {agreeing(count, 'it', 'them')}: run with --engine anthropic.")
    progress.finish()

    check(cancel)
    progress.start("Consolidate")
    with staging.step():  # the keeper takes the newest mtime of its group (below)
        renamed = merging.merge_duplicates(staging, say, notes, store)
    _declare_merges(staging, renamed)
    check(cancel)
    with staging.step(in_place=True):
        replaced = datefix.fix_dates(staging, say)
    with staging.step(in_place=True):
        moved = offline.update_paths(staging, code, say) if isinstance(code, Checkout) else 0
    progress.finish(note=f"{len(renamed)} merged, {plural(replaced, 'date')} made absolute"
                    + (f", {plural(moved, 'renamed path')} updated" if moved else ""))

    check(cancel)
    progress.start("Prune and index")
    if INDEX_NAME in staging.not_text:  # its lines are garbage: nothing to prune or move
        say("info", f"MEMORY.md is not text ({staging.not_text[INDEX_NAME]}); left as it is")
        progress.finish(note="MEMORY.md is not text: left as it is")
        return
    with staging.step():
        rebuild = offline.prune_index(staging, renamed, say)
    _declare_index(staging, rebuild)
    notes.extend(rebuild.notes())
    moved = sum(len(files) for hubs in (rebuild.into_hubs, rebuild.reached_by_hubs)
                for files in hubs.values())
    progress.finish(note=f"{len(rebuild.added)} added, {plural(len(rebuild.unlinked), 'dead link')} taken out, "
                         f"{len(rebuild.shortened)} shortened"
                         + (f", {moved} moved into hubs" if moved else ""))


def _declare_merges(staging: Staging, renamed: dict[str, str]) -> None:
    """A merge is applied whole; the memory the others went into keeps the newest of
    their mtimes (recall orders by it: the merged memory is as new as its newest part)."""
    groups: dict[str, list[str]] = {}
    for merged, keeper in renamed.items():
        groups.setdefault(keeper, []).append(merged)
    for keeper, merged in groups.items():
        staging.declared.together(keeper, *merged)
        mtimes = [staging.mtimes[f] for f in (keeper, *merged) if f in staging.mtimes]
        if mtimes:
            staging.declared.mtimes[keeper] = max(mtimes)


def _declare_index(staging: Staging, rebuild: IndexRebuild) -> None:
    """The new MEMORY.md goes with the files it makes sense only with (its hubs, notes,
    the memories given its words, the merged memories it links no more)."""
    for old, new in rebuild.rewrites:
        staging.declared.rewrote(old, *new)
    companions = rebuild.companions | rebuild.relinked
    if companions:
        staging.declared.together(INDEX_NAME, *companions)
    # Recall scans the 200 newest files: memtui's own hubs and notes take the mtime of the
    # oldest memory, so that writing them pushes no memory out of it.
    if staging.mtimes:
        oldest = min(staging.mtimes.values())
        written = [hub for hub, text in rebuild.hubs.items() if text is not None]
        if rebuild.notes_file is not None:
            written.append(rebuild.notes_file.file)
        for file in written:
            staging.declared.mtimes[file] = oldest


def _model_phases(client: ModelClient, staging: Staging, toolbox: Toolbox, progress: Progress,
                  cancel: threading.Event, since: float | None, notes: list[str],
                  code: Checkout | Unchecked | None = None) -> None:
    system = prompts.dream_system(dt.date.today().isoformat())
    messages: list[dict] = []
    logs = _logs_since(staging, since)
    store = load_store(staging.root)
    stale = _stale(store, code)
    orient = prompts.ORIENT.format(facts=_facts(store, stale, code))
    if isinstance(code, Checkout) and stale:
        orient += prompts.STALE_PATHS.format(checkout=tilde(code.root), paths=_stale_paths(stale))
    instructions = {
        "Orient": orient,
        "Gather": prompts.GATHER.format(logs="\n".join(f"- {log}" for log in logs) or "- none"),
        "Consolidate": prompts.CONSOLIDATE,
        "Prune and index": prompts.PRUNE,
    }
    for name in PHASES:
        check(cancel)
        progress.start(name)
        add_user(messages, [{"type": "text", "text": instructions[name]}])
        try:
            outcome = run_turns(client, system, messages, toolbox, progress, cancel, PHASE_TURNS)
        except LimitReached as limit:
            progress.finish(FAILED, note=str(limit))
            return  # what the run did so far is still shown for review
        note = ""
        if not outcome.finished:
            note = f"turn budget of {PHASE_TURNS} used up"
            notes.append(f"{name}: the model used all {PHASE_TURNS} turns without finishing.")
        if name == "Prune and index":
            note = _enforce_index(client, system, messages, staging, toolbox, progress, cancel,
                                  notes) or note
        progress.finish(note=note)


def _enforce_index(client, system, messages, staging, toolbox, progress, cancel,
                   notes: list[str]) -> str:
    over = index_over_limits(staging)
    if over is None:
        return ""
    progress.say("info", f"MEMORY.md is still {over[0]} lines / {over[1]} chars: one corrective turn")
    add_user(messages, [{"type": "text",
                         "text": prompts.CORRECT_INDEX.format(lines=over[0], chars=over[1])}])
    run_turns(client, system, messages, toolbox, progress, cancel, 2)
    if index_over_limits(staging) is None:
        return "index fixed after one corrective turn"
    rebuild = offline.prune_index(staging, {}, progress.say)
    notes.extend(rebuild.notes())
    notes.append("The model left MEMORY.md over its limits; memtui pruned it deterministically.")
    return "index pruned deterministically"


def cwd_transcript_folder(home: Path, cwd: str | None = None) -> Path:
    from tui.claude import paths

    return paths.projects_dir(home) / paths.sanitize(paths.normalize_path(cwd or os.getcwd()))
