"""The memtui commands `memtui doctor` suggests, applied as a script would (`--yes`), leave
the store better by the doctor's own measure, and write nothing that is no memory.

On the demo the suggested `memtui extract … --force` wrote `project_987e1dc0.md`, a memory
whose whole rule was "That.", past the cut; after a rescue the doctor went on suggesting the
same rescue, which had nothing left to do; a pasted `memtui dream --engine offline` dreamed
whatever store the shell stood in. Each test builds a store in a real shape (the demo, the
shapes of public stores, a removed worktree's store), reads the check, runs the command its
fix names through the CLI and reads the check again.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from conftest import real

from tui import cli
from tui.claude.paths import normalize_path, projects_dir, sanitize
from tui.memory.audit import memory_statuses
from tui.memory.reach import memory_links
from tui.memory.store import load_store

# Where a command inside a fix's sentence ends ("… rescue copies its memories into …").
_PROSE = re.compile(r" (?:\(|(?:shows|lists|copies|cuts|trims|says|keeps|puts|or|and|while) )")


def commands_in(fix: str | None) -> list[list[str]]:
    """The memtui commands a fix names, each as the words after `memtui`."""
    found = []
    for step in (fix or "").split("; "):
        at = step.find("memtui ")
        if at >= 0:
            command = _PROSE.split(step[at + len("memtui "):], maxsplit=1)[0]
            found.append(shlex.split(command.removesuffix(")")))
    return found


def doctor(home: Path, target: Path, capsys) -> dict[str, dict]:
    cli.main(["--config-dir", str(home), "doctor", str(target), "--json"])
    return {check["id"]: check for check in json.loads(capsys.readouterr().out)["checks"]}


def run_fix(words: list[str], capsys) -> str:
    """One suggested command, as a script runs it: no terminal, `--yes` to apply."""
    code = cli.main([*words, "--yes"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    return out


def memory_files(store: Path) -> dict[str, bytes]:
    return {path.relative_to(store).as_posix(): path.read_bytes()
            for path in sorted(store.rglob("*.md"))}


def reached(store: Path) -> set[str]:
    return {file for file, status in memory_statuses(load_store(store)).items()
            if status.visible or status.linked_from}


def errors(home: Path, store: Path, capsys) -> int:
    cli.main(["--config-dir", str(home), "audit", str(store), "--json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    return sum(1 for finding in findings if finding["severity"] == "error")


@pytest.fixture
def demo(tmp_path) -> tuple[Path, Path, Path]:
    """(the demo's config home, the webapp's checkout, its store)."""
    from tui.demo import build_demo

    built = build_demo(tmp_path / "demo")
    store = projects_dir(built.home) / sanitize(normalize_path(built.audit_example)) / "memory"
    return built.home, built.audit_example, store


def test_the_demos_extraction_fixes_write_only_rules_worth_a_memory(demo, capsys):
    """Both checks point at sessions whose own agent saved memory; their fixes extract the
    turns it skipped. Of what those turns hold, one rule is new (put migrations behind a
    feature flag), "不要用 mock … Please remember that." was saved by that very turn, and
    the rest are tasks: one memory comes, and no "That."."""
    home, checkout, store = demo
    before = memory_files(store)
    checks = doctor(home, checkout, capsys)
    assert checks["compaction"]["status"] == "warn" and checks["extraction"]["status"] == "warn"
    turns = checks["extraction"]["message"]

    for check in ("compaction", "extraction"):
        for words in commands_in(checks[check]["fix"]):
            assert words[2] == "extract" and words[-1] == "--force", words
            run_fix(words, capsys)

    after = doctor(home, checkout, capsys)
    assert after["compaction"]["status"] == "ok"
    assert after["extraction"]["status"] == "ok" or after["extraction"]["message"] != turns
    files = memory_files(store)
    created = sorted(set(files) - set(before))
    assert created == ["feedback_migration_behind_feature_flag.md"]
    assert ("\n\nFrom now on put every new migration behind a feature flag, and don't touch the "
            "legacy billing module without asking me first.\n\n") in files[created[0]].decode()
    changed = sorted(file for file in before if files.get(file) != before[file])
    assert changed == ["MEMORY.md"]  # its line for the new memory, nothing else rewritten
    assert "That." not in files["MEMORY.md"].decode()

    # Whatever the check still names is extracted the same way, until it passes.
    for words in commands_in(after["extraction"]["fix"]):
        run_fix(words, capsys)
    assert doctor(home, checkout, capsys)["extraction"]["status"] == "ok"
    assert "That." not in (store / "MEMORY.md").read_text(encoding="utf-8")


def test_the_demos_dream_fix_fits_the_index_and_hides_nothing(demo, capsys):
    home, checkout, store = demo
    checks = doctor(home, checkout, capsys)
    assert checks["index_size"]["status"] == "fail"
    (dream,) = [words for words in commands_in(checks["index_size"]["fix"]) if "dream" in words]
    was_reached, were_errors, before = reached(store), errors(home, store, capsys), memory_files(store)

    run_fix(dream, capsys)

    after = doctor(home, checkout, capsys)
    assert after["index_size"]["status"] == "ok"
    assert was_reached <= reached(store)
    assert errors(home, store, capsys) < were_errors
    new = set(memory_files(store)) - set(before)
    assert new and all(file.startswith("index_") for file in new)  # the hubs, nothing else
    # A dream just ran: the gates read its time from the lock, as Claude Code does, and
    # propose no other (the daily logs wait for the nightly one).
    gates = after["dream_gates"]
    assert gates["status"] == "ok" and gates["fix"] is None
    assert re.search(r"a dream ran \d+ min ago, so the time gate is shut until ", gates["message"])
    assert "0.0 h" not in gates["message"]


def test_after_the_dream_and_extraction_ran_offline_the_key_check_says_what_a_key_adds(
        demo, capsys):
    """Both ran without a key: the check says what a model would add to them, not that
    they need one, and proposes no run."""
    home, checkout, _ = demo
    checks = doctor(home, checkout, capsys)
    (dream,) = [words for words in commands_in(checks["index_size"]["fix"]) if "dream" in words]
    for words in [*commands_in(checks["extraction"]["fix"]), dream]:
        run_fix(words, capsys)

    check = doctor(home, checkout, capsys)["api_key"]
    assert (check["status"], check["fix"]) == ("ok", None)
    assert "need a key" not in check["message"]
    assert "memtui's dream and extract run their offline engine" in check["message"]
    assert ("A key adds a model: merging memories that say the same thing in other words, "
            "distilling assistant-mode daily logs") in check["message"]


def test_the_long_lines_fix_is_a_command_that_shortens_them(claude_home, tmp_path, capsys):
    import real_shapes

    project = real(tmp_path) / "work" / "long"
    project.mkdir(parents=True)
    claude_home.session(project)
    store = claude_home.store(project)
    real_shapes.build(store, "long_index_lines")
    hooks = [line.split(") — ", 1)[1] for line in
             (store / "MEMORY.md").read_text(encoding="utf-8").splitlines()
             if real_shapes.utf16_width(line) > 150]
    check = doctor(claude_home.home, project, capsys)["index_size"]
    assert check["status"] == "warn"
    (words,) = commands_in(check["fix"])
    assert words[2:] == ["fix", str(store), "shorten"]

    run_fix(words, capsys)

    assert doctor(claude_home.home, project, capsys)["index_size"]["status"] == "ok"
    texts = " ".join(" ".join(path.read_text(encoding="utf-8").split())
                     for path in store.glob("*.md"))
    assert hooks and all(" ".join(hook.split()) in texts for hook in hooks)  # nothing lost


def test_the_dream_fix_on_a_second_level_index_past_the_cut_hides_nothing(claude_home,
                                                                          tmp_path, capsys):
    import real_shapes

    project = real(tmp_path) / "work" / "second"
    project.mkdir(parents=True)
    claude_home.session(project)
    store = claude_home.store(project)
    real_shapes.build(store, "second_level_index_past_the_cut")
    check = doctor(claude_home.home, project, capsys)["index_size"]
    assert check["status"] == "fail"
    (dream,) = [words for words in commands_in(check["fix"]) if "dream" in words]
    was_reached = reached(store)

    run_fix(dream, capsys)

    assert doctor(claude_home.home, project, capsys)["index_size"]["status"] == "ok"
    assert was_reached <= reached(store)
    assert errors(claude_home.home, store, capsys) == 0
    loaded = load_store(store)
    assert all((store / file).exists() for memory in loaded.memories
               for file in memory_links(memory.file, memory.text, loaded.wiki_names))


def test_after_the_rescue_the_doctor_says_nothing_of_the_stranded_store_is_lost(
        claude_home, tmp_path, capsys):
    from rescue_home import build_rescue_home

    home = build_rescue_home(claude_home, tmp_path)
    check = doctor(home.home, home.stranded, capsys)["memory_dir"]
    assert check["status"] == "warn"
    (rescue,) = commands_in(check["fix"])
    assert rescue[2:] == ["fix", str(home.stranded), "rescue"]

    run_fix(rescue, capsys)

    check = doctor(home.home, home.stranded, capsys)["memory_dir"]
    assert check["status"] == "ok" and check["fix"] is None
    assert (f"but every memory of it is in {home.live} already, so none is lost (the rescue "
            "is done: ") in check["message"]
    assert f"fix {home.stranded} retire archives it, undo brings it back)" in check["message"]
    # A line the live index lost since brings the warning, and the rescue, back.
    index = home.live / "MEMORY.md"
    index.write_text("".join(line for line in index.read_text(encoding="utf-8")
                             .splitlines(keepends=True) if "feedback_tabs.md" not in line),
                     encoding="utf-8")
    check = doctor(home.home, home.stranded, capsys)["memory_dir"]
    assert check["status"] == "warn" and commands_in(check["fix"]) == [rescue]
