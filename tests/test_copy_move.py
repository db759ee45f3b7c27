"""`memtui copy` and `memtui move` between two stores of one config home: index lines inside
the target's cut, collisions never overwritten silently, links between moved memories kept,
a move whose second half fails changing nothing, and one undo (or redo) of either store
taking back both."""

from __future__ import annotations

import json
import os
from contextlib import contextmanager

import pytest
from conftest import index_line, make_repo, memory_text, real, write_index, write_memory

from tui import cli, failpoints
from tui.memory.store import load_store
from tui.memory.writes import history

OLD = 1_700_000_000.123456789


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def stores(tmp_path, claude_home):
    """A source store whose deploy memory links its runbook; a target with its own index."""
    found = []
    for name in ("app", "site"):
        make_repo(tmp_path / name)
        found.append(claude_home.store(real(tmp_path / name)))
    source, target = found
    write_memory(source, "deploy.md", memory_text("deploy", "how we deploy",
                                                  body="See [the runbook](runbook.md).\n"),
                 mtime=OLD)
    write_memory(source, "runbook.md", memory_text("runbook", "the steps"), mtime=OLD)
    write_memory(source, "stays.md", memory_text("stays", "links the deploy",
                                                 body="After [deploy](deploy.md).\n"))
    write_index(source, [index_line("deploy.md", "Deploy", "how we ship"),
                         index_line("runbook.md", "Runbook"), index_line("stays.md", "Stays")])
    write_memory(target, "style.md", memory_text("style", "code style"))
    write_index(target, ["# Memory", index_line("style.md", "Style")])
    return claude_home, source, target


def contents(*stores):
    return {store: {p.name: p.read_bytes() for p in store.iterdir()} for store in stores}


def state(*stores):
    """Every file of the stores: its bytes and its mtime, to the nanosecond."""
    return {store: {p.relative_to(store).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
                    for p in sorted(store.rglob("*")) if p.is_file()} for store in stores}


@contextmanager
def disk_full_in(store, once_written):
    """The disk fills up in `store` once memtui has written in `once_written`; yields the
    paths written there."""
    written = []

    def watch(path: str) -> None:
        if str(once_written) in path:
            written.append(path)
        elif written and str(store) in path:
            raise OSError(28, "No space left on device", path)

    failpoints.on("io.write", watch)
    try:
        yield written
    finally:
        failpoints.on("io.write", None)


def cli_args(claude_home, *argv):
    return ("--config-dir", str(claude_home.home), *argv)


def test_copy_puts_the_sources_index_line_inside_the_targets_cut(stores, capsys):
    home, source, target = stores
    code, out, err = run(capsys, *cli_args(home, "copy", "deploy.md", "--from", str(source),
                                           "--to", str(target), "--yes"))
    assert code == 0, err
    assert (target / "deploy.md").read_bytes() == (source / "deploy.md").read_bytes()
    assert os.stat(target / "deploy.md").st_mtime_ns == os.stat(source / "deploy.md").st_mtime_ns
    assert (target / "MEMORY.md").read_text().splitlines() == [
        "# Memory", index_line("style.md", "Style"), index_line("deploy.md", "Deploy", "how we ship")]
    assert (source / "deploy.md").exists()  # a copy leaves the source as it was
    loaded = load_store(target).indexes[0].loaded
    assert {link.file for link in loaded.links if link.visible} == {"style.md", "deploy.md"}
    assert "undo" in out


def test_the_line_goes_inside_a_full_index_not_past_its_cut(stores, capsys):
    home, source, target = stores
    lines = ["# Memory", *(index_line(f"m{n}.md", f"M{n}") for n in range(199)),
             index_line("style.md", "Style")]
    for n in range(199):
        write_memory(target, f"m{n}.md", memory_text(f"m{n}", "filler"))
    write_index(target, lines)  # 201 lines: style.md sits past the 200-line cut
    argv = cli_args(home, "copy", "runbook.md", "--from", str(source), "--to", str(target),
                    "--yes")
    code, out, err = run(capsys, *argv)
    assert code == 2 and "m198.md past the target's loaded cut" in err
    assert "To make room first" in out and not (target / "runbook.md").exists()
    code, _, err = run(capsys, *argv, "--push-out")
    assert code == 0, err
    loaded = load_store(target).indexes[0].loaded
    assert "runbook.md" in {link.file for link in loaded.links if link.visible}


def fill_to_199_lines(target) -> list[str]:
    """The target's index one line short of the 200-line cut: one line more fits, two do
    not. Its entries, oldest first."""
    fillers = [f"m{n:03}.md" for n in range(197)]
    for file in fillers:
        write_memory(target, file, memory_text(file[:-3], "filler", "project"))
    write_index(target, ["# Memory", index_line("style.md", "Style"),
                         *(index_line(file) for file in fillers)])
    return ["style.md", *fillers]


@pytest.mark.parametrize("verb", ["copy", "move"])
def test_hubs_puts_the_lines_that_do_not_fit_in_a_hub_linked_inside_the_cut(verb, stores,
                                                                          capsys):
    """Issue 43: a copy into a full index had only "apply anyway" (pushing the target's own
    entries out) or making room by hand; relink's third choice, hubs, was not offered."""
    from tui.memory.audit import memory_statuses
    from tui.memory.hubs import hub_line

    home, source, target = stores
    old_entries = fill_to_199_lines(target)
    before = state(source, target)
    argv = cli_args(home, verb, "deploy.md", "runbook.md", "--from", str(source), "--to",
                    str(target), "--yes")
    code, out, err = run(capsys, *argv)
    assert code == 2 and "--push-out" in err and "--hubs" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "add --hubs" in out  # the hint below the plan names it too
    # The new lines link files not written yet: no dangling line to remove is made of them.
    assert "dangling" not in out
    assert state(source, target) == before

    code, out, err = run(capsys, *argv, "--hubs")
    assert code == 0, err
    hub = "index_feedback.md"
    assert f"Add {hub}, which MEMORY.md links, the index lines of 2 memories" in out
    loaded = load_store(target)
    visible = {link.file for link in loaded.indexes[0].loaded.links if link.visible}
    assert set(old_entries) <= visible  # no entry of the target's left the cut
    assert hub in visible
    statuses = memory_statuses(loaded)
    assert statuses["deploy.md"].linked_from == hub
    assert statuses["runbook.md"].linked_from == hub
    hub_text = (target / hub).read_text()
    # The source's own lines, in the hub the dream would write, and counted in MEMORY.md.
    assert index_line("deploy.md", "Deploy", "how we ship") in hub_text
    assert hub_line(hub, ["Deploy", "Runbook"]) in (target / "MEMORY.md").read_text()
    assert (source / "deploy.md").exists() == (verb == "copy")

    code, out, err = run(capsys, *cli_args(home, "undo", str(target)))
    assert (code, err) == (0, "")
    assert state(source, target) == before  # one undo: both stores, byte and mtime


def test_hubs_adds_to_the_hub_a_dream_left_and_recounts_its_line(stores, capsys):
    """A target at its 200-line cut whose MEMORY.md links a hub already: the new line goes
    at the hub's end, the hub keeps its own text, its line in MEMORY.md says 2 now."""
    from tui.memory.hubs import hub_line, hub_text

    home, source, target = stores
    hub = "index_feedback.md"
    listed = index_line("older.md", "Older", "a rule")
    write_memory(target, "older.md", memory_text("older", "a rule"))
    write_memory(target, hub, hub_text(hub, None, [], [listed]))
    old_entries = fill_to_199_lines(target)
    (target / "MEMORY.md").write_text((target / "MEMORY.md").read_text()
                                      + hub_line(hub, ["Older"]) + "\n")
    hub_before = (target / hub).read_text()
    code, _, err = run(capsys, *cli_args(home, "copy", "deploy.md", "--from", str(source),
                                         "--to", str(target), "--yes", "--hubs"))
    assert code == 0, err
    index = (target / "MEMORY.md").read_text().splitlines()
    assert len(index) == 200 and index[-1] == hub_line(hub, ["Older", "Deploy"])
    assert (target / hub).read_text() == (hub_before
                                          + index_line("deploy.md", "Deploy", "how we ship") + "\n")
    loaded = load_store(target)
    assert set(old_entries) | {hub} <= {link.file for link in loaded.indexes[0].loaded.links
                                        if link.visible}


def test_hubs_refuses_in_one_sentence_when_not_even_a_hubs_line_fits(stores, capsys):
    home, source, target = stores
    fill_to_199_lines(target)
    write_memory(target, "m197.md", memory_text("m197", "filler", "project"))
    (target / "MEMORY.md").write_text((target / "MEMORY.md").read_text()
                                      + index_line("m197.md") + "\n")
    before = state(source, target)
    code, _, err = run(capsys, *cli_args(home, "copy", "deploy.md", "--from", str(source),
                                         "--to", str(target), "--yes", "--hubs"))
    assert code == 2 and "no room inside its loaded cut even for a hub's line" in err
    assert len(err.strip().splitlines()) == 1
    assert state(source, target) == before


def test_a_refusal_names_a_few_of_the_entries_it_would_push_out_and_counts_the_rest(
        stores, capsys):
    # On real stores a copy of 3,187 memories was refused in one sentence of 78,947
    # characters: every name it would push out.
    home, source, target = stores
    for n in range(199):
        write_memory(target, f"m{n}.md", memory_text(f"m{n}", "filler"))
    write_index(target, ["# Memory", *(index_line(f"m{n}.md", f"M{n}") for n in range(199))])
    names = []
    for n in range(40):
        names.append(write_memory(source, f"new{n}.md", memory_text(f"new{n}", "note")).name)
    code, _, err = run(capsys, *cli_args(home, "copy", *names, "--from", str(source), "--to",
                                         str(target), "--yes"))
    assert code == 2 and len(err) < 300, err
    assert "more past the target's loaded cut" in err and err.count("\n") == 1
    assert not (target / "new0.md").exists()


@pytest.mark.parametrize("choice", ["keep-both", "replace", "skip"])
def test_a_collision_is_never_a_silent_overwrite(choice, stores, capsys):
    home, source, target = stores
    theirs = memory_text("deploy", "their deploy", body="Theirs.\n")
    write_memory(target, "deploy.md", theirs)
    argv = cli_args(home, "copy", "deploy.md", "--from", str(source), "--to", str(target),
                    "--yes")
    code, _, err = run(capsys, *argv)
    assert code == 2 and "--on-collision" in err
    assert (target / "deploy.md").read_text() == theirs
    code, _, err = run(capsys, *argv, "--on-collision", choice)
    assert code == 0, err
    ours = (source / "deploy.md").read_bytes()
    if choice == "keep-both":
        assert (target / "deploy.md").read_text() == theirs
        assert (target / "deploy-2.md").read_bytes() == ours
        assert "(deploy-2.md)" in (target / "MEMORY.md").read_text()
    elif choice == "replace":
        assert (target / "deploy.md").read_bytes() == ours
    else:
        assert (target / "deploy.md").read_text() == theirs
        assert not (target / "deploy-2.md").exists()


def test_a_move_keeps_links_between_the_moved_memories_and_one_undo_takes_back_both(stores,
                                                                                    capsys):
    home, source, target = stores
    write_memory(target, "runbook.md", memory_text("runbook", "theirs", body="Other.\n"))
    before = state(source, target)
    code, out, err = run(capsys, *cli_args(
        home, "move", "deploy.md", "runbook.md", "--from", str(source), "--to", str(target),
        "--yes", "--on-collision", "keep-both"))
    assert code == 0, err
    assert not (source / "deploy.md").exists() and not (source / "runbook.md").exists()
    assert "(runbook-2.md)" in (target / "deploy.md").read_text()  # the link follows the rename
    assert "(deploy.md)" not in (source / "MEMORY.md").read_text()
    assert "stays.md links deploy.md" in out  # what is left behind is said
    assert "One undo takes back both stores" in out
    moved = state(source, target)
    # One undo, of either store, puts both back, byte for byte and mtime for mtime.
    code, out, err = run(capsys, *cli_args(home, "undo", str(source)))
    assert (code, err) == (0, "")
    assert out.startswith("Undid move 2 memories to ") and f"in both {source} and {target}" in out
    assert state(source, target) == before
    code, out, err = run(capsys, *cli_args(home, "undo", str(target), "--redo"))
    assert (code, err) == (0, "") and out.startswith("Redid move 2 memories from ")
    assert state(source, target) == moved
    assert run(capsys, *cli_args(home, "undo", str(target)))[0] == 0
    assert state(source, target) == before
    # Each store's log holds its half, marked undone, naming the other store.
    for store, other in ((source, target), (target, source)):
        listed = run(capsys, *cli_args(home, "undo", str(store), "--list"))[1]
        assert f"with its other half in {other}" in listed
        listed = json.loads(run(capsys, *cli_args(home, "undo", str(store), "--list",
                                                  "--json"))[1])
        assert [entry["pair"] for entry in listed] == [str(other)] * 4  # move, undo, redo, undo
        assert run(capsys, *cli_args(home, "undo", str(store)))[1].startswith("Nothing to undo")


def test_the_journal_of_each_store_names_the_other_half(stores, capsys):
    from tui.history.journal import Journal
    from tui.history.recovery import PAIR_TRAILER

    home, source, target = stores
    assert run(capsys, *cli_args(home, "move", "deploy.md", "--from", str(source), "--to",
                                 str(target), "--yes"))[0] == 0
    into = Journal(target).versions("deploy.md")[0]
    out_of = Journal(source).versions("MEMORY.md")[0]
    assert into.subject == f"move 1 memory from {source}"
    assert out_of.subject == f"move 1 memory to {target}"
    assert into.trailers[PAIR_TRAILER].startswith(f"{source} ")
    assert out_of.trailers[PAIR_TRAILER].startswith(f"{target} ")
    assert history(source)[0].id in into.trailers[PAIR_TRAILER]


def test_a_line_claude_code_added_to_the_other_store_since_is_kept_by_the_undo(stores,
                                                                                capsys):
    home, source, target = stores
    before = state(source, target)
    assert run(capsys, *cli_args(home, "move", "deploy.md", "--from", str(source), "--to",
                                 str(target), "--yes"))[0] == 0
    claude_code = index_line("notes.md", "Notes", "written by Claude Code since")
    with open(target / "MEMORY.md", "a") as index:
        index.write(claude_code + "\n")
    code, _, err = run(capsys, *cli_args(home, "undo", str(source)))
    assert (code, err) == (0, "")
    assert state(source) == {source: before[source]}
    assert not (target / "deploy.md").exists()
    assert (target / "MEMORY.md").read_text().splitlines() == [
        "# Memory", index_line("style.md", "Style"), claude_code]


def test_undo_refuses_in_one_sentence_when_the_other_store_moved_on(stores, capsys):
    home, source, target = stores
    before = state(source, target)
    assert run(capsys, *cli_args(home, "move", "deploy.md", "--from", str(source), "--to",
                                 str(target), "--yes"))[0] == 0
    # memtui changes the target again: the move is no longer its newest change there.
    assert run(capsys, *cli_args(home, "copy", "stays.md", "--from", str(source), "--to",
                                 str(target), "--yes"))[0] == 0
    later = state(source, target)
    code, _, err = run(capsys, *cli_args(home, "undo", str(source)))
    assert code == 2 and err.count("\n") == 1
    assert f"also changed {target}, where memtui has made a newer change since" in err
    assert "nothing was undone" in err and f"memtui undo {target}" in err
    assert state(source, target) == later
    # Undoing the newer change there first, as said, lets the move undo in both.
    assert run(capsys, *cli_args(home, "undo", str(target)))[0] == 0
    assert run(capsys, *cli_args(home, "undo", str(source)))[0] == 0
    assert state(source, target) == before
    # Redo likewise: a change made to one store since its undo refuses the pair's redo.
    assert run(capsys, *cli_args(home, "copy", "stays.md", "--from", str(source), "--to",
                                 str(target), "--yes"))[0] == 0
    later = state(source, target)
    code, _, err = run(capsys, *cli_args(home, "undo", str(source), "--redo"))
    assert code == 2 and "cannot be redone" in err and "nothing was redone" in err
    assert state(source, target) == later


def test_a_full_disk_in_the_second_half_of_an_undo_undoes_neither_store(stores, capsys):
    home, source, target = stores
    assert run(capsys, *cli_args(home, "move", "deploy.md", "--from", str(source), "--to",
                                 str(target), "--yes"))[0] == 0
    moved = state(source, target)
    # The undo puts the source back first (the half made second), then the target.
    with disk_full_in(target, once_written=source) as written:
        code, _, err = run(capsys, *cli_args(home, "undo", str(target)))
    assert code == 2 and written
    assert f"what it had changed in {source} was taken back, so nothing was changed" in err
    assert state(source, target) == moved
    assert [record.label for record in history(source)] == [f"move 1 memory to {target}"]
    assert [record.label for record in history(target)] == [f"move 1 memory from {source}"]
    assert run(capsys, *cli_args(home, "undo", str(target)))[0] == 0
    assert not (target / "deploy.md").exists() and (source / "deploy.md").exists()


def test_a_move_whose_source_half_fails_changes_nothing(stores, capsys):
    home, source, target = stores
    before = contents(source, target)
    with disk_full_in(source, once_written=target) as target_written:
        code, _, err = run(capsys, *cli_args(home, "move", "deploy.md", "--from", str(source),
                                             "--to", str(target), "--yes"))
    assert code == 2 and "was taken back, so nothing was changed" in err
    assert target_written  # the target's half was made before the source's failed
    assert contents(source, target) == before
    assert history(target) == [] and history(source) == []  # no record of what never was


def test_a_move_whose_target_half_fails_changes_nothing(stores, capsys):
    home, source, target = stores
    before = contents(source, target)

    def full_disk_in_target(path: str) -> None:
        if str(target) in path:
            raise OSError(28, "No space left on device", path)

    failpoints.on("io.write", full_disk_in_target)
    try:
        code, _, err = run(capsys, *cli_args(home, "move", "deploy.md", "--from", str(source),
                                             "--to", str(target), "--yes"))
    finally:
        failpoints.on("io.write", None)
    assert code == 2 and "nothing was changed" in err
    assert contents(source, target) == before
    assert history(source) == []


def test_a_link_the_target_cannot_follow_is_said(stores, capsys):
    home, source, target = stores
    code, out, err = run(capsys, *cli_args(home, "copy", "deploy.md", "--from", str(source),
                                           "--to", str(target), "--yes"))
    assert code == 0, err
    assert "deploy.md links runbook.md, which the target does not hold" in out
    code, out, _ = run(capsys, *cli_args(home, "copy", "stays.md", "runbook.md", "--from",
                                         str(source), "--to", str(target), "--yes"))
    assert code == 0 and "which the target does not hold" not in out


def test_a_daily_log_is_carried_without_an_index_line(stores, capsys):
    # Claude Code never indexes logs/ and sessions/: a line for one would spend the target's
    # cut on a file Claude reads another way (a real store's logs/05-31-26.md got line 58).
    home, source, target = stores
    log = "logs/2026/05/2026-05-31.md"
    write_memory(source, log, "- 14:02 shipped the deploy fix\n", mtime=OLD)
    index_before = (target / "MEMORY.md").read_bytes()
    code, out, err = run(capsys, *cli_args(home, "copy", log, "deploy.md", "--from",
                                           str(source), "--to", str(target), "--yes"))
    assert code == 0, err
    assert (target / log).read_bytes() == (source / log).read_bytes()
    assert os.stat(target / log).st_mtime_ns == os.stat(source / log).st_mtime_ns
    assert (target / "MEMORY.md").read_text().splitlines() == [
        *index_before.decode().splitlines(), index_line("deploy.md", "Deploy", "how we ship")]
    assert f"index line for {log}" not in out


def test_a_memory_linking_code_or_a_placeholder_is_copied(stores, capsys):
    # Real memories link code beside the store (`src/lib/offers.ts`) and write placeholders
    # as link targets (`[invite](→INVITE)`, `[doc](url)`): the copy was refused as if memtui
    # were asked to write those ("→INVITE is not a Markdown (.md) file").
    home, source, target = stores
    write_memory(source, "offers.md", memory_text(
        "offers", "the offers service",
        body="See [the service](src/lib/services/offers.ts), [invite](→INVITE), "
             "[doc](url) and [the runbook](runbook.md).\n"))
    code, out, err = run(capsys, *cli_args(home, "copy", "offers.md", "--from", str(source),
                                           "--to", str(target), "--yes"))
    assert code == 0, err
    assert (target / "offers.md").read_bytes() == (source / "offers.md").read_bytes()
    assert "offers.md links runbook.md, which the target does not hold" in out


def test_a_memory_indexed_by_a_wiki_link_is_copied_with_its_line(stores, capsys):
    # A real store indexes every memory as `- [[boundaries|Boundaries]] — ...`: the line,
    # read with the target's names before the copy, linked nothing, so every copy of its
    # memories was refused as leaving them past the cut (0 of 184).
    home, source, target = stores
    write_memory(source, "boundaries.md", memory_text("boundaries", "what not to touch"))
    write_index(source, ["# Memory", "- [[boundaries|Boundaries]] — don't touch the bots"])
    code, out, err = run(capsys, *cli_args(home, "copy", "boundaries.md", "--from",
                                           str(source), "--to", str(target), "--yes"))
    assert code == 0, err
    assert (target / "MEMORY.md").read_text().splitlines()[-1] == (
        "- [[boundaries|Boundaries]] — don't touch the bots")
    loaded = load_store(target).indexes[0].loaded
    assert "boundaries.md" in {link.file for link in loaded.links if link.visible}


def test_without_a_terminal_a_copy_needs_yes_or_dry_run(stores, capsys):
    home, source, target = stores
    code, _, err = run(capsys, *cli_args(home, "copy", "deploy.md", "--from", str(source),
                                         "--to", str(target)))
    assert code == 2 and "--yes" in err
    code, out, _ = run(capsys, *cli_args(home, "copy", "deploy.md", "--from", str(source),
                                         "--to", str(target), "--dry-run"))
    assert code == 0 and "Dry run" in out and not (target / "deploy.md").exists()


def test_the_store_is_found_from_a_files_path(stores, capsys):
    home, source, target = stores
    code, _, err = run(capsys, *cli_args(home, "copy", str(source / "runbook.md"),
                                         "--to", str(target), "--yes"))
    assert code == 0, err
    assert (target / "runbook.md").exists()


class _Terminal:
    """Answers typed at a terminal, one line per question."""

    def __init__(self, *answers: str):
        self.answers = list(answers)

    def isatty(self) -> bool:
        return True

    def readline(self) -> str:
        return self.answers.pop(0) + "\n"


def test_on_a_terminal_a_collision_is_asked_then_the_change(stores, capsys, monkeypatch):
    home, source, target = stores
    theirs = memory_text("deploy", "their deploy", body="Theirs.\n")
    write_memory(target, "deploy.md", theirs)
    monkeypatch.setattr("sys.stdin", _Terminal("k", "y"))
    code, _, err = run(capsys, *cli_args(home, "copy", "deploy.md", "--from", str(source),
                                         "--to", str(target)))
    assert code == 0, err
    assert "[k]eep both" in err and "Apply this change?" in err
    assert (target / "deploy.md").read_text() == theirs
    assert (target / "deploy-2.md").read_bytes() == (source / "deploy.md").read_bytes()
    monkeypatch.setattr("sys.stdin", _Terminal("r", "n"))
    code, out, _ = run(capsys, *cli_args(home, "copy", "deploy.md", "--from", str(source),
                                         "--to", str(target)))
    assert code == 0 and "Not applied." in out and (target / "deploy.md").read_text() == theirs


def memtui_killed_at(failpoint: str, *argv: str) -> int:
    """`memtui ARGV` in a process of its own, killed (SIGKILL) at `failpoint`."""
    import subprocess
    import sys

    env = {**os.environ, "MEMTUI_FAILPOINT": failpoint}
    return subprocess.run([sys.executable, "-m", "tui", *argv], env=env, capture_output=True,
                          timeout=60).returncode


def leftovers(*stores) -> list[str]:
    """Intent records, pair marks and temp files a killed memtui left behind."""
    from tui import xdg

    found = [p.name for folder in (xdg.intents_dir(), xdg.pairs_dir()) if folder.exists()
             for p in folder.rglob("*") if p.is_file()]
    return found + [p.name for store in stores for p in store.rglob("*") if "memtui-" in p.name]


# Killed after the first half of the undo is made, inside the second, after both are made
# (the pair not yet marked done): rolled back. Killed once the pair is made: it stands.
@pytest.mark.parametrize(("moment", "undone"), [
    ("pair.half_made", False), ("apply.swapped:2", False), ("pair.half_made:2", False),
    ("pair.made", True)])
def test_an_undo_killed_between_its_two_stores_is_finished_or_rolled_back(stores, capsys,
                                                                         moment, undone):
    import signal

    home, source, target = stores
    before = state(source, target)
    assert run(capsys, *cli_args(home, "move", "deploy.md", "--from", str(source), "--to",
                                 str(target), "--yes"))[0] == 0
    moved = state(source, target)
    assert memtui_killed_at(moment, *cli_args(home, "undo", str(source))) == -signal.SIGKILL
    assert leftovers(source, target)  # killed with the pair under way
    code, _, err = run(capsys, *cli_args(home, "audit", str(target)))  # the next command
    assert code in (0, 1) and leftovers(source, target) == []
    assert state(source, target) == (before if undone else moved)
    labels = [[record.label for record in history(store)] for store in (source, target)]
    if undone:
        assert all(len(store_labels) == 2 and store_labels[0].startswith("undo move")
                   for store_labels in labels)
        assert run(capsys, *cli_args(home, "undo", str(target), "--redo"))[0] == 0
        assert state(source, target) == moved
    else:
        assert labels == [[f"move 1 memory to {target}"], [f"move 1 memory from {source}"]]
        assert "rolled back an interrupted change" in err
        assert run(capsys, *cli_args(home, "undo", str(target)))[0] == 0
        assert state(source, target) == before


def test_a_move_killed_after_its_first_store_changes_nothing(stores, capsys):
    import signal

    home, source, target = stores
    before = state(source, target)
    assert memtui_killed_at("pair.half_made", *cli_args(
        home, "move", "deploy.md", "--from", str(source), "--to", str(target),
        "--yes")) == -signal.SIGKILL
    assert (target / "deploy.md").exists()  # the target's half was made
    run(capsys, *cli_args(home, "audit", str(source)))
    assert state(source, target) == before and leftovers(source, target) == []
    assert history(source) == [] and history(target) == []


def test_a_pair_mark_left_without_halves_goes_and_one_of_a_live_pair_stays(stores, capsys):
    """Killed after the mark was written but before the first half began: the next command
    removes the mark. A mark whose stores another memtui holds is left to that one."""
    import threading

    from tui import xdg
    from tui.memory.intents import PairMark, recover_pending
    from tui.memory.store_lock import store_lock

    home, source, target = stores
    PairMark("20261208T000000-abcdef", [(target, "20261208T000000-abcdef"),
                                        (source, "20261208T000000-123456")])
    holding, done = threading.Event(), threading.Event()

    def make_that_pair_now() -> None:
        with store_lock(source):
            holding.set()
            done.wait(10)

    writer = threading.Thread(target=make_that_pair_now)
    writer.start()
    try:
        holding.wait(10)
        recover_pending()
        assert (xdg.pairs_dir() / "20261208T000000-abcdef.json").exists()
    finally:
        done.set()
        writer.join()
    run(capsys, *cli_args(home, "audit", str(source)))  # the next command
    assert not xdg.pairs_dir().exists()


def test_records_a_kill_cut_short_are_swept_once_their_process_is_gone(stores, capsys):
    """An intent record or a pair mark killed while being written (its `.partial` file,
    named after its process) goes with the next command; a live process's stays."""
    import subprocess

    from tui import xdg

    home, source, target = stores
    gone = subprocess.Popen(["true"])
    gone.wait()
    folders = (xdg.intents_dir(target), xdg.pairs_dir())
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f".20261208T000000-abcdef.{gone.pid}.json.partial").write_text('{"id"')
        (folder / f".20261208T000000-fedcba.{os.getpid()}.json.partial").write_text('{"id"')
    run(capsys, *cli_args(home, "audit", str(source)))  # the next command
    for folder in folders:
        assert [p.name for p in folder.iterdir()] == [
            f".20261208T000000-fedcba.{os.getpid()}.json.partial"]
