"""`memtui audit`'s text puts first what costs the user most; its exit code 1 means Claude
cannot see a memory it should, or a file is broken."""

from __future__ import annotations

import json

from conftest import index_line, memory_text, write_index, write_memory

from tui import cli


def run(capsys, *args) -> tuple[int, str]:
    code = cli.main(list(args))
    return code, capsys.readouterr().out


def big_store(store, hidden_rules: int = 16, long_lines: int = 40):
    """The shape of a real store: an index past its cut with long lines, the newest
    feedback rules appended past it."""
    lines = []
    for number in range(200):
        file = f"project_{number:03}.md"
        write_memory(store, file, memory_text(f"p{number}", "a project note", "project"))
        hook = "a long hook " * 20 if number < long_lines else "short"
        lines.append(index_line(file, hook=hook))
    for number in range(hidden_rules):
        file = f"feedback_rule_{number:02}.md"
        write_memory(store, file, memory_text(f"rule {number}", "a rule", "feedback"))
        lines.append(index_line(file))
    write_index(store, lines)


def test_the_memories_claude_cannot_see_come_before_thirty_noisy_lines(claude_home, capsys,
                                                                     tmp_path):
    store = live_store(claude_home, tmp_path / "big")
    big_store(store)
    code, out = run(capsys, "--config-dir", str(claude_home.home), "audit", str(store))
    assert code == 1
    lines = out.splitlines()
    screen = "\n".join(lines[:24])
    assert "Claude cannot see 16 of 216 memories." in screen
    assert screen.count("beyond_cut") >= 5 and "feedback_rule_00.md" in screen
    # The 40 long lines are one line with their count, after the real problem.
    long_lines = [line for line in lines if "long_index_line" in line]
    assert len(long_lines) == 1 and "×40" in long_lines[0]
    assert lines.index(long_lines[0]) > max(
        number for number, line in enumerate(lines) if "beyond_cut" in line)
    assert "memtui audit --json lists every finding." in out


def live_store(claude_home, folder):
    """The store of a project whose sessions load it (not stranded)."""
    folder.mkdir()
    claude_home.session(folder)
    return claude_home.store(folder)


def test_only_long_lines_and_links_out_of_the_store_exit_0(claude_home, capsys, tmp_path):
    store = live_store(claude_home, tmp_path / "fine")
    write_memory(store, "a.md", memory_text("a"))
    write_index(store, [index_line("a.md", hook="x" * 250), "- [Plans](../plans/x.md) — ours"])
    code, out = run(capsys, "--config-dir", str(claude_home.home), "audit", str(store))
    assert code == 0
    assert "Nothing hides a memory from Claude; 2 warnings." in out
    code, out = run(capsys, "--config-dir", str(claude_home.home), "audit", str(store), "--json")
    report = json.loads(out)
    assert {f["kind"]: f["severity"] for f in report["findings"]} == {
        "long_index_line": "warning", "outside_store": "warning"}
    assert report["cost"] == {"unseen": 0, "stranded": False, "cut": False, "broken": 0,
                              "secrets": 0, "errors": 0, "warnings": 2, "info": 0}


def test_audit_all_names_first_the_stores_that_hide_most(claude_home, capsys, tmp_path):
    for name, hidden in (("small", 1), ("big", 9), ("fine", 0)):
        store = live_store(claude_home, tmp_path / name)
        write_memory(store, "a.md", memory_text("a"))
        for number in range(hidden):
            write_memory(store, f"lost_{number}.md", memory_text(f"lost {number}"))
        write_index(store, [index_line("a.md")])
    code, out = run(capsys, "--config-dir", str(claude_home.home), "audit", "--all")
    assert code == 1
    top = out.split("\n\n")[0].splitlines()
    assert top[0] == "Needs a look first (2 of 3 stores with errors):"
    assert "big" in top[1] and "Claude cannot see 9 of 10 memories" in top[1]
    assert "small" in top[2] and "Claude cannot see 1 of 2 memories" in top[2]


def test_an_index_whose_own_text_runs_past_the_cut_fails_and_says_so(claude_home, capsys,
                                                                     tmp_path):
    # The shape of real indexes that hold their facts themselves: no link past the cut,
    # but what the index says there is lost.
    store = live_store(claude_home, tmp_path / "prose")
    write_memory(store, "a.md", memory_text("a"))
    write_index(store, [index_line("a.md"), *(f"- fact {n}: the mac mini needs SSH on"
                                              for n in range(230))])
    code, out = run(capsys, "--config-dir", str(claude_home.home), "audit", str(store))
    assert code == 1
    assert "Claude cannot see the end of the index." in out
    assert "so what the index says after that is invisible" in out
