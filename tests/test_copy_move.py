"""`memtui copy` and `memtui move` between two stores of one config home: index lines inside
the target's cut, collisions never overwritten silently, links between moved memories kept,
and a move whose second half fails changing nothing."""

from __future__ import annotations

import os

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


def test_a_move_keeps_links_between_the_moved_memories_and_undoes_store_by_store(stores,
                                                                                  capsys):
    home, source, target = stores
    write_memory(target, "runbook.md", memory_text("runbook", "theirs", body="Other.\n"))
    code, out, err = run(capsys, *cli_args(
        home, "move", "deploy.md", "runbook.md", "--from", str(source), "--to", str(target),
        "--yes", "--on-collision", "keep-both"))
    assert code == 0, err
    assert not (source / "deploy.md").exists() and not (source / "runbook.md").exists()
    assert "(runbook-2.md)" in (target / "deploy.md").read_text()  # the link follows the rename
    assert "(deploy.md)" not in (source / "MEMORY.md").read_text()
    assert "stays.md links deploy.md" in out  # what is left behind is said
    assert "Two changes" in out
    # Each half is undone on its own.
    assert run(capsys, *cli_args(home, "undo", str(target)))[0] == 0
    assert not (target / "deploy.md").exists() and (target / "runbook.md").exists()
    assert run(capsys, *cli_args(home, "undo", str(source)))[0] == 0
    assert (source / "deploy.md").exists()
    assert "(deploy.md)" in (source / "MEMORY.md").read_text()


def test_a_move_whose_source_half_fails_changes_nothing(stores, capsys):
    home, source, target = stores
    before = contents(source, target)

    target_written = []

    def watch(path: str) -> None:
        """The disk fills up once the target's half is written: the source's fails."""
        if str(target) in path:
            target_written.append(path)
        elif target_written and str(source) in path:
            raise OSError(28, "No space left on device", path)

    failpoints.on("io.write", watch)
    try:
        code, _, err = run(capsys, *cli_args(home, "move", "deploy.md", "--from", str(source),
                                             "--to", str(target), "--yes"))
    finally:
        failpoints.on("io.write", None)
    assert code == 2 and "taken back" in err and "changed nothing" in err
    assert target_written  # the target's half was made before the source's failed
    assert contents(source, target) == before
    assert history(target)[0].label.startswith("undo move")


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
