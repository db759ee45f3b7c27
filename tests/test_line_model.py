"""One line model: store text splits into lines on `\\n` only, as Claude Code splits it
(`text.split("\\n")`), wherever memtui counts or numbers lines (reference §3, issue 10)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from conftest import index_line, memory_text, write_memory
from hypothesis import given
from hypothesis import strategies as st

from tui.agents.absdates import absolute, rewritten
from tui.agents.changeset import unified
from tui.app.screens.projects import project_row
from tui.app.summaries import summarize
from tui.app.widgets.diff_view import side_by_side_diff
from tui.claude.discovery import discover
from tui.claude.lines import line_count, lines_with_endings, read_store_text, split_lines
from tui.history.overwrites import missing_lines
from tui.memory import curate
from tui.memory.dates import relative_dates
from tui.memory.index import parse_index
from tui.memory.store import load_store
from tui.memory.writes import apply_changes

# Characters Python's str.splitlines() breaks on and Claude Code does not.
NOT_LINE_BREAKS = {
    "carriage return": "\r",
    "line separator U+2028": "\u2028",
    "paragraph separator U+2029": "\u2029",
    "form feed": "\x0c",
    "vertical tab": "\x0b",
    "next line NEL U+0085": "\x85",
    "file separator": "\x1c",
}


@pytest.mark.parametrize("separator", NOT_LINE_BREAKS.values(), ids=NOT_LINE_BREAKS.keys())
def test_only_newline_breaks_a_line(separator):
    text = f"- [A](a.md) — one{separator}still one\n- [B](b.md) — two"
    assert len(text.splitlines()) == 3  # what memtui must not do
    assert line_count(text) == 2
    assert split_lines(text) == [f"- [A](a.md) — one{separator}still one", "- [B](b.md) — two"]
    index = parse_index(text)
    assert (index.lines, len(index.raw_lines)) == (2, 2)
    assert [link.line for link in index.links] == [1, 2]


def test_crlf_counts_one_line_and_keeps_its_carriage_return():
    assert split_lines("a\r\nb\r\n") == ["a\r", "b\r", ""]
    assert line_count("a\r\nb") == 2
    assert parse_index("a\r\nb\r\n").lines == 2


def test_a_trailing_newline_leaves_an_empty_last_line_as_in_javascript():
    assert split_lines("a\n") == ["a", ""]
    assert line_count("a\n") == 2


@given(st.text(st.sampled_from("ab\n\r\u2028\x85\x0c")))
def test_lines_with_endings_join_back_to_the_text(text):
    lines = lines_with_endings(text)
    assert "".join(lines) == text
    assert all(line.count("\n") == 1 and line.endswith("\n") for line in lines[:-1])
    assert len(lines) == (line_count(text) - 1 if text.endswith("\n") or not text
                          else line_count(text))


def test_store_text_is_read_with_its_line_endings_untouched(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_bytes("a\rb\r\nc\u2028d\n\xff".encode() + b"\xff")
    assert read_store_text(path) == "a\rb\r\nc\u2028d\n\xff\ufffd"


# --- the index with carriage returns: the case the issue saw (164 lines against 70) --------


def carriage_return_index() -> str:
    """70 index lines; 47 of them hold a bare CR and end in CR CR LF (a Windows round trip)."""
    lines = []
    for number in range(70):
        line = index_line(f"m{number:02}.md", f"Memory {number}")
        lines.append(f"{line}\rcontinued\r\r\n" if number < 47 else f"{line}\n")
    return "".join(lines)


def carriage_return_store(claude_home, tmp_path):
    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    claude_home.session(project)
    store = claude_home.store(project)
    for number in range(70):
        write_memory(store, f"m{number:02}.md", memory_text(f"m{number:02}", f"memory {number}"))
    (store / "MEMORY.md").write_bytes(carriage_return_index().encode())
    return project, store


def test_index_with_carriage_returns_counts_newlines_only():
    raw = carriage_return_index()
    assert len(raw.splitlines()) == 164
    index = parse_index(raw)
    assert (index.lines, index.loaded_lines) == (70, 70)
    assert len(index.links) == 70 and all(link.visible for link in index.links)


def test_projects_and_audit_count_lines_alike_with_carriage_returns(claude_home, tmp_path):
    project, store = carriage_return_store(claude_home, tmp_path)
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(claude_home.home)}

    def memtui(*argv: str) -> object:
        done = subprocess.run([sys.executable, "-m", "tui", *argv, "--json"], env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.stderr == ""
        return json.loads(done.stdout)

    report = memtui("audit", str(project))
    projects = memtui("projects")
    inventory = discover(claude_home.home, {"CLAUDE_CONFIG_DIR": str(claude_home.home)})
    row = project_row(inventory.projects[0], summarize(store), time.time())

    assert report["index"]["lines"] == 70
    assert str(row.cells[2]).startswith("70/200 · ")  # the projects screen's index gauge
    assert load_store(store).index.lines == 70  # the store screen
    assert [p["memories"] for p in projects] == [len(report["memories"])] == [70]
    assert not [f for f in report["findings"] if f["kind"] in ("unindexed", "dangling")]


# --- line numbers everywhere else --------------------------------------------------------


def test_relative_date_line_numbers_count_newlines_only():
    text = "---\nname: x\n---\nA\rB\u2028C\x0cD\nWe moved it yesterday.\n"
    assert [(found.line, found.phrase) for found in relative_dates(text)] == [(5, "yesterday")]


def test_absolute_dates_keep_carriage_returns_and_separators():
    import datetime as dt

    text = "Deploys\u2028moved\r\nyesterday.\r\n"
    [found] = relative_dates(text)
    assert absolute(found, dt.date(2026, 3, 4)) == "2026-03-03"
    assert rewritten(text, [(found, "2026-03-03")]) == "Deploys\u2028moved\r\n2026-03-03.\r\n"


def test_remove_dangling_keeps_the_bytes_of_lines_holding_carriage_returns(claude_home):
    store = claude_home.store(folder="-home-me-proj")
    write_memory(store, "a.md", memory_text("a", "about a"))
    raw = "# Memory\r\n- [A](a.md) — first\rsecond\r\n- [Gone](gone.md) — x\u2028y\r\n"
    (store / "MEMORY.md").write_bytes(raw.encode())
    plan = curate.plan_remove_dangling(load_store(store))
    assert plan.summary == ["Remove index line 3, which links the missing gone.md."]
    apply_changes(store, plan.changes, plan.label)
    assert (store / "MEMORY.md").read_bytes() == (
        "# Memory\r\n- [A](a.md) — first\rsecond\r\n".encode()
    )


def test_diff_hunks_number_lines_as_claude_code():
    before = "one\u2028still one\ntwo\n".encode()
    after = "one\u2028still one\nTWO\n".encode()
    assert "@@ -1,2 +1,2 @@" in unified("x.md", before, after)


def test_diff_of_a_last_line_without_newline_keeps_lines_apart():
    diff = unified("x.md", b"a\nold", b"a\nnew")
    assert diff.endswith("-old\n\\ No newline at end of file\n+new\n"
                         "\\ No newline at end of file\n")


def test_side_by_side_diff_numbers_lines_as_claude_code():
    table = side_by_side_diff("a\rb\nc\n", "a\rb\nC\n", "before", "after")
    numbers = [str(cell) for cell in table.columns[0]._cells]
    assert "2" in numbers and "3" not in numbers


def test_lost_lines_are_claude_code_lines():
    assert missing_lines("kept\nlost\u2028half\n", "kept\nlost\n") == ("lost\u2028half",)
