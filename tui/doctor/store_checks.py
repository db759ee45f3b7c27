"""Checks of the store itself: the index against its cut, and worktrees writing it at once."""

from __future__ import annotations

import os
from collections import defaultdict

from tui.claude.paths import INDEX_NAME
from tui.doctor.context import DoctorContext
from tui.doctor.report import FAIL, OK, SKIP, WARN, Check
from tui.words import listed, plural

NEAR_LIMIT = 0.9  # an index past 90 % of a limit is a few entries from the cut
SHOWN = 3  # names or line numbers quoted in a message


def check_index_size(ctx: DoctorContext) -> Check:
    from tui.claude.lines import read_store_text
    from tui.memory.index import LINE_WARN, MAX_CHARS, MAX_LINES, parse_index

    path = ctx.store / INDEX_NAME
    try:
        index = parse_index(ctx.index_text if ctx.index_text is not None
                            else read_store_text(path))
    except FileNotFoundError:
        return Check("index_size", SKIP, f"There is no {path} yet.")
    except NotADirectoryError:
        return Check("index_size", SKIP, f"{ctx.no_store}: there is no index.")
    size = (f"{path} has {plural(index.lines, 'line')} and {plural(index.chars, 'character')}; "
            f"Claude loads {MAX_LINES} lines and {MAX_CHARS:,} characters")
    long_lines = [line.number for line in index.raw_lines.longer_than(LINE_WARN)]
    long_text = (f"; {plural(len(long_lines), 'line')} {'is' if len(long_lines) == 1 else 'are'} "
                 f"over {LINE_WARN} characters (line "
                 f"{listed(long_lines, SHOWN)})") if long_lines else ""
    if index.cut:
        past_cut = [link.file for link in index.links if not link.visible and link.file]
        reached = _reached(ctx, index) if past_cut else {}
        hidden = [file for file in past_cut if file not in reached]
        first = index.first_cut_line
        past = (f"from line {first + 1} on, everything is past the cut"
                if first is not None else "its end is past the cut")
        entries = (f": {len(hidden)} entries the model never sees ({listed(hidden, SHOWN)}), and "
                   "new entries are appended there" if hidden else "")
        if len(hidden) < len(past_cut):
            entries += (f" ({len(past_cut) - len(hidden)} more past it are reached through "
                        "memories the loaded part links)")
        return Check("index_size", FAIL, f"{size}, so {past}{entries}{long_text}.",
                     f"{ctx.memtui('index', ctx.store, '--loaded')} shows the cut; "
                     + _room_fix(ctx, path, "shorten entries (S in the app) or "))
    near = index.lines >= NEAR_LIMIT * MAX_LINES or index.chars >= NEAR_LIMIT * MAX_CHARS
    if near:
        return Check("index_size", WARN,
                     f"{size}: a few more entries and the newest fall past the cut{long_text}.",
                     _room_fix(ctx, path))
    if long_lines:
        return Check("index_size", WARN, f"{size}{long_text}: entries should stay one short line.",
                     f"{ctx.memtui('fix', ctx.store, 'shorten')} cuts each at a word and keeps "
                     "its whole hook in the topic file (S in the app's index tab)")
    return Check("index_size", OK, f"{size}: all of it is loaded.")


def _room_fix(ctx: DoctorContext, path, shorten: str = "") -> str:
    """How to make room in the index: a dream, unless the last one left the index as it
    is now (then the same again would not help), and what helps then."""
    from tui.claude.lock import HOLD_SECONDS, read_lock
    from tui.doctor.dream_checks import stamp

    lock = read_lock(ctx.store)
    try:
        written = os.stat(path).st_mtime
    except OSError:
        written = None
    # A dream holds the lock at most HOLD_SECONDS: a later write to MEMORY.md is not its own.
    if lock.mtime is None or written is None or written > lock.mtime + HOLD_SECONDS:
        return f"{shorten}let a dream prune the index: {ctx.memtui('dream', ctx.store)}"
    return (f"the last dream ({stamp(lock.mtime)}) left the index as it is, so another of "
            "the same will not make room: archive the memories that no longer hold "
            f"({ctx.memtui('fix', ctx.store, 'archive', 'FILE')}), shorten long entries (S in "
            "the app), or move the oldest entries into hubs, memory files that MEMORY.md "
            f"links in one line each ({ctx.memtui('dream', ctx.store, '--engine', 'offline')} "
            "does that)")


def _reached(ctx: DoctorContext, index) -> dict[str, str | None]:
    """The memories Claude reaches from the loaded cuts of the store's indexes."""
    from tui.claude.lines import read_store_text
    from tui.claude.memory_files import TEAM_INDEX, memory_files
    from tui.memory.index import parse_index
    from tui.memory.reach import reach_on_disk

    files = {file: entry.path for file, entry in memory_files(ctx.store)}
    try:
        team = parse_index(read_store_text(ctx.store / TEAM_INDEX), folder="team/")
    except OSError:
        team = parse_index(None)
    return reach_on_disk(files, (index, team))


def _writers(events) -> dict[str, tuple[str, str, int]]:
    """cwd -> (first change, last change, number of changes), from the transcripts."""
    spans: dict[str, list] = defaultdict(list)
    for event in events:
        if event.changes_file and event.cwd and event.time:
            spans[event.cwd].append(event.time)
    return {cwd: (min(times), max(times), len(times)) for cwd, times in spans.items()}


def overlapping(writers: dict[str, tuple[str, str, int]]) -> list[tuple[str, str]]:
    cwds = sorted(writers)
    return [(a, b) for i, a in enumerate(cwds) for b in cwds[i + 1:]
            if writers[a][0] <= writers[b][1] and writers[b][0] <= writers[a][1]]


def check_worktrees(ctx: DoctorContext) -> Check:
    from tui.history.recovery import all_lost_updates, still_missing
    from tui.history.writers import in_words
    from tui.history.writers import writers as writers_of
    from tui.history.writes_log import folder_events

    if not os.path.isdir(ctx.store):
        return Check("worktrees", SKIP, f"{ctx.no_store}.")
    events = folder_events(ctx.store, ctx.transcript_dirs)
    writers = _writers(events)
    pairs = overlapping(writers)
    found = all_lost_updates(ctx.store, events)
    lost = still_missing(ctx.store, found)
    merged = (f"; {plural(len(found), 'lost update')} found earlier, every line merged back"
              if found and not lost else "")
    separate = ("or give a worktree its own store: \"autoMemoryDirectory\": \"~/memory/<name>\" "
                "in its .claude/settings.local.json")
    if lost:
        first = lost[-1]
        lines = sum(len(update.lost_lines) for update in lost)
        writer, overwritten = writers_of(first)
        by = in_words(writer, overwritten)
        return Check("worktrees", FAIL,
                     f"{plural(len(lost), 'lost update')}, {plural(lines, 'line')} in all: the newest, "
                     f"{first.file} at {first.time}, written by {by} over a version it had not "
                     f"seen; {len(writers)} working directories write {ctx.store}"
                     + (f", {plural(len(pairs), 'pair')} of them in overlapping periods" if pairs else "")
                     + ".",
                     f"{ctx.memtui('overwrites', ctx.store)} lists them and memtui merge FILE puts "
                     f"the lines back; run {ctx.memtui('watch', ctx.store)} while worktrees "
                     "share the store, "
                     + separate)
    if pairs:
        shown = [f"{a} ({writers[a][0][:16]} to {writers[a][1][:16]}) and {b} "
                 f"({writers[b][0][:16]} to {writers[b][1][:16]})" for a, b in pairs[:SHOWN]]
        return Check("worktrees", WARN,
                     f"{plural(len(pairs), 'pair')} of working directories wrote {ctx.store} in "
                     f"overlapping periods: {'; '.join(shown)}{merged or '; no lost update found yet'}"
                     ", but the last writer of a file wins.",
                     f"{ctx.memtui('watch', ctx.store)} keeps every version, " + separate)
    if len(writers) > 1:
        return Check("worktrees", OK, f"{len(writers)} working directories wrote {ctx.store}, "
                     f"never in overlapping periods{merged or '; no lost update found'}.")
    return Check("worktrees", OK, f"{len(writers)} working director{'y' if len(writers) == 1 else 'ies'}"
                 f" wrote {ctx.store} in the transcripts{merged or '; no lost update found'}.")
