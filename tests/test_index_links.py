"""Links as the model reads them: Markdown inline links and `[[name]]` links (reference §4,
"Index links as Claude reads them", and the index styles of §12)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cpu_seconds, index_line, memory_text, write_index, write_memory
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tui.agents.indexfit import MemoryInfo, rebuild_index
from tui.app.memory_rows import build_rows
from tui.app.summaries import summarize
from tui.app.widgets.findings import fixes
from tui.claude.lines import split_lines
from tui.memory import curate
from tui.memory.audit import audit_store, memory_statuses
from tui.memory.index import parse_index
from tui.memory.links import (
    FoundLink,
    _parsed_links,
    _read_links,
    _scan,
    find_links,
    link_reading,
    wiki_names,
)
from tui.memory.store import load_store
from tui.memory.writes import apply_changes


@pytest.fixture
def store(claude_home) -> Path:
    return claude_home.store(folder="-home-me-proj")


def targets(raw: str) -> list[str | None]:
    return [link.file for link in parse_index(raw).links]


def kinds(findings) -> list[tuple[str, int | None]]:
    return [(f.kind, f.line) for f in findings]


# --- what is a link ----------------------------------------------------------------------


def test_link_inside_code_span_is_not_a_link():
    assert targets("- write links as `[text](url)` in the index") == []
    assert targets("- ``[a](a.md) and `b` `` then [c](c.md)") == ["c.md"]


def test_link_inside_fenced_code_is_not_a_link():
    assert targets("- [A](a.md)\n```md\n- [B](b.md)\n```\n~~~\n[C](c.md)\n~~~\n") == ["a.md"]


def test_link_inside_indented_code_is_not_a_link():
    assert targets("Example:\n\n    [B](b.md)\n") == []
    assert targets("-     [B](b.md)\n") == []  # five spaces after a list marker: code too


def test_link_in_a_nested_list_item_is_a_link():
    assert targets("- group\n    - [B](b.md)\n\t- [C](c.md)\n") == ["b.md", "c.md"]


def test_escaped_bracket_is_not_a_link():
    assert targets("- \\[draft](draft.md) is a template") == []


def test_link_inside_html_is_read_as_text_like_the_model_reads_it():
    assert targets("<details>\n- [B](b.md)\n</details>\n") == ["b.md"]


def test_link_target_may_hold_spaces():
    assert targets("- [Notes](my notes.md) — spaces as written") == ["my notes.md"]


def test_link_target_in_angle_brackets_may_hold_spaces():
    assert targets("- [Notes](<my notes.md>) — a") == ["my notes.md"]


def test_link_target_is_percent_decoded():
    assert targets("- [Notes](my%20notes.md) — a") == ["my notes.md"]


def test_link_anchor_names_the_file():
    assert targets("- [Deploy](deploy.md#rollback) — b") == ["deploy.md"]


def test_link_title_is_not_part_of_the_target():
    raw = ('- [A](a.md "hover") [B](b b.md \'hover\') [C](<c.md> (hover))\n'
           "- [D](d.md  'x') — e")
    assert targets(raw) == ["a.md", "b b.md", "c.md", "d.md"]


def test_reference_style_link_names_its_definition():
    assert targets("- [Deploy][d] — how\n\n[d]: deploy%20notes.md \"t\"\n") == ["deploy notes.md"]


def test_reference_style_link_without_a_definition_is_no_link():
    assert targets("- [Deploy][d] — how\n- [d] and [e][] too\n") == []


def test_a_link_after_thousands_of_open_brackets_is_found():
    # The hostile-home fault that made `dream --dry-run` outlive its 10 s.
    raw = "[" * 100_000 + "](" * 50_000 + "[[a]]"
    assert [link.target for link in parse_index(raw, {"a": "a.md"}).links] == ["a"]


@pytest.mark.parametrize("title", [
    "… [[link]] …", '… result[["error"]] …', "a [b [c [d] c] b] a",
], ids=["wiki link in the text", "subscripts", "three levels"])
def test_link_text_may_hold_balanced_brackets_at_any_depth(title):
    line = f"- [{title}](file.md) — hook"
    assert [(link.title, link.target) for link in find_links(line)] == [(title, "file.md")]
    assert targets(line) == ["file.md"]


def test_link_text_brackets_are_followed_as_deep_as_markdown_it_follows_them():
    from markdown_it import MarkdownIt

    markdown = MarkdownIt("commonmark")
    for depth in range(25):
        line = "[a " + "[" * depth + "x" + "]" * depth + " b](f.md)"
        read_as_link = 'href="f.md"' in markdown.render(line)
        assert (targets(line) == ["f.md"]) == read_as_link, depth


def test_a_memory_linked_with_brackets_in_its_title_is_indexed_and_reached(store):
    write_memory(store, "errors.md", memory_text("errors"))
    write_memory(store, "hub.md", memory_text("hub", body="- [r[[\"e\"]] rows](deep.md)\n"))
    write_memory(store, "deep.md", memory_text("deep"))
    write_index(store, ["- [Handle result[[\"error\"]] in R](errors.md) — how",
                        "- [Hub [[all]]](hub.md) — more"])
    loaded = load_store(store)
    kinds_found = {f.kind for f in audit_store(loaded)}
    assert "unindexed" not in kinds_found and "beyond_cut" not in kinds_found
    statuses = memory_statuses(loaded)
    assert statuses["errors.md"].visible and statuses["deep.md"].linked_from == "hub.md"


def test_replace_links_replaces_a_link_with_brackets_in_its_text_whole():
    from tui.memory.links import replace_links

    line = "- [Fix [[wiki]] rows](fix.md) — see [b](b.md)"
    assert replace_links(line, lambda link: f"<{link.target}>") == "- <fix.md> — see <b.md>"


def test_template_placeholder_target_is_not_a_file():
    assert targets("- [Module notes]({module}_project.md) — one per module") == []


def test_links_out_of_code_on_a_code_line_keep_their_column():
    raw = "- `[x](x.md)` then [B](b.md) — b\n"
    [link] = parse_index(raw).links
    assert (link.file, raw[link.end - 1]) == ("b.md", ")")


def test_line_numbers_in_markdown_count_newlines_only():
    raw = "# Index\r\n`code`\rstill line 2\r\n\r\n- [A](a.md)\u2028 [[b]]\n"
    assert [(link.line, link.target) for link in parse_index(raw).links] == [(4, "a.md"), (4, "b")]


PIECES = ["[", "]", "(", ")", "[[", "]]", "a", "b c", " ", "  ", "\n", "\n\n", "- ", "# ", "> ",
          "1. ", ".md", '"', "'", "<", ">", "|", "*", "_", "!", ":", "\r", "\r\n", "\u2028", "\x85",
          "\x00", "{x}", "#s", "http:", "&amp;", "---", "===", "[t](x.md)", "[[n|alias]]",
          "[t](<a b.md>)", '[t](a "t")', "[t](a b.md)", "[t](a(b).md)", "[a [b] c]", "<!--", "-->"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_markdown_parser_and_line_scan_find_the_same_links(text):
    # The scan stands in for the parser where no Markdown-only syntax appears.
    assume(link_reading(text) == "scan")
    assert list(_scan(text)) == _parsed_links(text, split_lines(text))


CODE_PIECES = [*PIECES, "`", "``", "\\", "\\`", "\\[", "\\\\", "\n  \n", "\n```\n", "\n```py\n",
               "\n~~~\n", "\n````\n", "```", "\n  ```\n", "\n    ", "\t", "]: x", "&#96;", "- `",
               "\n- ", "\n   * ", "\n  + x`", "\n    - ", "\n- \n", "\n1. "]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(CODE_PIECES), max_size=50).map("".join))
def test_reading_code_spans_escapes_and_fences_finds_markdown_its_links(text):
    """A text markdown-it is not asked about (code spans and escapes read as paragraphs'
    content, fences at column 0 skipped) gives markdown-it's links, on the same lines; the
    column too, where the link's text is not also written elsewhere on its line."""
    found = _read_links(text)
    assume(found is not None and "[" in text)
    parsed = _parsed_links(text, split_lines(text))
    assert [(line, *rest) for line, _, *rest in found] == [
        (link.line, link.source, link.title, link.target, link.wiki) for link in parsed]
    lines = split_lines(text)
    for fields, link in zip(found, parsed, strict=True):
        if lines[link.line].count(link.source) == 1:
            assert fields == tuple(link)


REAL_BODY = """Run `make test` before pushing; see [[deploy-checklist]].

**Why:** `pytest -x` stopped at the first failure, and `[a](b)` in code is no link.

```sh
make lint  # [not](a-link.md)
    indented = [1]
```

- `src/app.py` holds the [entry point](app.md)
- a backslash \\[is](escaped.md) text
"""


def test_a_real_shaped_memory_with_code_is_read_without_markdown_it():
    assert link_reading(REAL_BODY) == "inline"
    assert [(link.line, link.target) for link in find_links(REAL_BODY)] == [
        (0, "deploy-checklist"), (9, "app.md")]
    assert find_links(REAL_BODY) == _parsed_links(REAL_BODY, split_lines(REAL_BODY))


@pytest.mark.parametrize("text", [
    "a `code\nover two lines [x](x.md)` b",  # a code span over a line break
    "- item\n  ```\n  [x](x.md)\n  ```\n",  # a fence inside a list item
    "text\n\n    [x](x.md) indented code\n",
    "[x][d]\n\n[d]: x.md\n",  # a reference definition
])
def test_only_what_the_block_structure_decides_is_left_to_markdown_it(text):
    assert link_reading(text) == "markdown"
    assert find_links(text) == _parsed_links(text, split_lines(text))


@pytest.mark.parametrize("line", [
    "[a](" * 20_000, "[" * 60_000, "[a](x" + " " * 30_000 + "y", "[a](x " + '"' * 30_000,
    "`[a](" * 10_000, "[[" * 30_000, "".join("`" * n + " [a](" for n in range(1, 600)),
    "`" + " [x]" * 50_000,
], ids=["open links", "brackets", "spaces", "quotes", "code spans", "wiki brackets",
        "backtick runs of every width", "an unclosed code span"])
def test_link_scan_stays_linear_on_pathological_lines(line):
    started = cpu_seconds()
    parse_index(line)
    assert cpu_seconds() - started < 2.0


def test_loaded_cut_is_untouched_by_links_in_code():
    raw = "- [A](a.md) — `[x](y)`\n```\n[B](b.md)\n```\n<!-- [C](c.md) -->\n"
    index = parse_index(raw)
    assert index.loaded == raw.replace("<!-- [C](c.md) -->\n", "").strip()
    assert targets(raw) == ["a.md"]


# --- [[name]] links --------------------------------------------------------------------------


def test_wiki_link_resolves_to_the_memory_named_so(store):
    write_memory(store, "feedback_x.md", memory_text(name="deploy-checklist"))
    write_index(store, ["- see [[deploy-checklist]]"])
    status = memory_statuses(load_store(store))["feedback_x.md"]
    assert (status.indexed, status.visible, status.index_line) == (True, True, 1)


def test_kebab_wiki_link_matches_a_snake_case_file(store):
    write_memory(store, "kebab_slug.md", memory_text(name="Kebab slug"))
    write_index(store, ["- [[kebab-slug]] — a", "- [[Kebab_Slug|the slug]] — b"])
    loaded = load_store(store)
    assert [link.file for link in loaded.index.links] == ["kebab_slug.md", "kebab_slug.md"]
    assert not audit_store(loaded, duplicates=False)


def test_wiki_link_prefers_a_name_over_another_files_stem():
    names = wiki_names([("deploy.md", "release-notes"), ("notes.md", "deploy")])
    index = parse_index("- [[deploy]]\n- [[release_notes]]\n- [[notes.md]]\n", names)
    assert [link.file for link in index.links] == ["notes.md", "deploy.md", "notes.md"]


def test_unmatched_wiki_link_is_never_dangling(store):
    write_memory(store, "a.md", memory_text(name="a"))
    write_index(store, [index_line("a.md"), "- [[future-idea]] — write this later"])
    findings = audit_store(load_store(store), duplicates=False)
    assert kinds(findings) == [("unmatched_wiki_link", 2)]
    assert findings[0].severity == "info"
    assert "[[future-idea]] names no memory yet" in findings[0].message


def test_unmatched_wiki_link_in_a_memory_body_is_an_info_finding_on_its_line(store):
    write_memory(store, "a.md", memory_text(
        name="a", body="Rule.\n**Why:** x.\n**How to apply:** y.\nSee [[b]] and [[later]].\n"
                       "`[[not-a-link]]`\n"))
    write_memory(store, "b.md", memory_text(name="b"))
    write_index(store, [index_line("a.md"), index_line("b.md")])
    findings = audit_store(load_store(store), duplicates=False)
    assert [(f.kind, f.file, f.line, f.target) for f in findings] == [
        ("unmatched_wiki_link", "a.md", 10, "later")
    ]


def test_projects_row_counts_memories_linked_by_wiki_name_as_indexed(store):
    write_memory(store, "feedback_x.md", memory_text(name="deploy-checklist"))
    write_memory(store, "kebab_slug.md", memory_text(name="kebab"))
    write_index(store, ["- [[deploy-checklist]]", "- [[kebab-slug]]", "- [[not-yet]]"])
    assert summarize(store).orphans == 0


def test_memory_with_an_unmatched_wiki_link_is_shown_ok(store):
    write_memory(store, "a.md", memory_text(name="a", body="Rule.\n**Why:** x.\n"
                                             "**How to apply:** y.\nSee [[later]].\n"))
    write_index(store, [index_line("a.md")])
    loaded = load_store(store)
    findings = audit_store(loaded, duplicates=False)
    [row] = build_rows(loaded, findings, memory_statuses(loaded))
    assert (kinds(findings), row.status) == ([("unmatched_wiki_link", 10)], "ok")
    assert fixes(findings[0]) == ()  # the Findings tab offers no key for it


def test_a_memory_with_an_error_of_its_own_reads_error_not_lint(store):
    write_memory(store, "a.md", memory_text(name="a", body="Token ghp_" + "R8kLq2Vn7TzX4mWp9Hs3Jd6Fb1Yc5Ng0Ue2A" + "\n"))
    write_memory(store, "b.md", memory_text(name="b", body="Fixed it yesterday.\n"))
    write_index(store, [index_line("a.md"), index_line("b.md")])
    loaded = load_store(store)
    rows = build_rows(loaded, audit_store(loaded, duplicates=False), memory_statuses(loaded))
    assert {row.file: row.status for row in rows} == {"a.md": "error", "b.md": "lint"}


# --- repairs never remove what is not a dangling link ----------------------------------------


def test_remove_dangling_keeps_wiki_link_lines(store):
    write_index(store, ["- [[future-idea]]", "- [[later]] and [Gone](gone.md)",
                        "- [Gone](gone.md) — old"])
    plan = curate.plan_remove_dangling(load_store(store))
    apply_changes(store, plan.changes, plan.label)
    assert (store / "MEMORY.md").read_text() == "- [[future-idea]]\n- [[later]] and [Gone](gone.md)\n"


def test_remove_dangling_keeps_code_span_pseudo_link_lines(store):
    write_index(store, ["- links look like `[text](url)`", "```", "[x](missing.md)", "```"])
    assert curate.plan_remove_dangling(load_store(store)).empty


def test_offline_dream_keeps_lines_of_unmatched_wiki_links():
    memory = MemoryInfo("a.md", "a", "about a", "user", 0.0, "---\nname: a\n---\n")
    rebuild = rebuild_index("- [[later]] — to write\n- [A](a.md)\n- [[a]] again\n", [memory])
    assert rebuild.unlinked == []
    assert rebuild.text.startswith("- [[later]] — to write\n- [A](a.md)\n")


def test_a_title_with_parentheses_moves_only_the_hook_into_the_topic_file():
    hook = "Sentry board for server rendering latency and errors, " * 3
    memory = MemoryInfo("dash.md", "Dashboard", "sentry board", "reference", 0.0,
                        "---\nname: dash\n---\n\nSentry.\n")
    rebuild = rebuild_index(f"- [Dashboard (Sentry)](dash.md) — {hook}\n", [memory])
    assert rebuild.shortened == ["dash.md"]
    assert rebuild.details == {"dash.md": [hook.strip()]}


def test_entries_moved_into_a_hub_move_what_the_index_said_once_and_nothing_else():
    """An index entry MEMORY.md has no room for goes into a hub, shortened, and keeps its
    words in its file, whole (not the shortened line's, cut with …) and once; a line the
    rebuild wrote itself moves nothing."""
    def memory(file: str, description: str = "") -> MemoryInfo:
        return MemoryInfo(file, file, description, "project", 0.0, f"# {file}\n")

    memories = [memory(f"m{n:03}.md", f"about {n}") for n in range(200)]
    described = " ".join(["the release train leaves on Thursdays, every step written down"] * 2)
    said = f"{described} and signed off"
    memories += [memory("late.md", described), memory("bare.md")]
    lines = [f"- [m{n:03}](m{n:03}.md) — about {n}" for n in range(200)]
    lines.append(f"- [Late](late.md) — {said}")
    rebuild = rebuild_index("\n".join(lines) + "\n", memories)
    assert rebuild.reached_by_hubs == {"index_project.md": ["late.md", "bare.md"]}
    assert "](late.md) — the release train" in rebuild.hubs["index_project.md"]
    assert rebuild.details == {"late.md": [said]}


def test_shorten_keeps_the_text_after_a_wiki_link(store):
    write_memory(store, "deploy.md", memory_text(name="deploy", description="deploys"))
    write_index(store, ["- [[deploy]] — " + "every step of the release in detail " * 6])
    plan = curate.plan_shorten_lines(load_store(store))
    changes = {change.file: change.after.decode() for change in plan.changes}
    assert changes["MEMORY.md"].startswith("- [[deploy]] — every step of the release")
    assert changes["deploy.md"].endswith("every step of the release in detail\n")
    assert "[[deploy]]" not in changes["deploy.md"]


def test_shorten_says_why_it_leaves_a_line_whose_words_come_before_its_link(store):
    write_memory(store, "ci.md", memory_text(name="ci", description="ci"))
    write_index(store, ["- " + "how the pipeline runs and why it is slow " * 5 + "[[ci]]"])
    plan = curate.plan_shorten_lines(load_store(store))
    assert plan.changes == ()
    assert plan.summary == ["Index line 1 says what it says before its link, and memtui "
                            "shortens only the words after a link; left as it is (edit it "
                            "by hand)."]


# --- the index styles real stores use (§12), through the CLI ---------------------------------


def link_styles_store(claude_home, tmp_path) -> tuple[Path, Path]:
    """A store in the index styles seen in users' committed stores."""
    project = tmp_path / "work" / "atlas"
    project.mkdir(parents=True)
    claude_home.session(project)
    store = claude_home.store(project)
    memories = {
        "user_role.md": memory_text("user-role", "the user runs the platform team", "user"),
        "feedback_testing.md": memory_text("testing-policy", "tests hit a real database"),
        "project_launch.md": memory_text("launch", "the spring launch", "project"),
        "reference_dashboards.md": memory_text("dashboards", "grafana boards", "reference"),
        "release notes.md": memory_text("release notes", "what shipped", "reference"),
        "hub.md": memory_text("hub", "a second-level index", "reference",
                              "- [Launch](project_launch.md)\n- [[dashboards]]\n"),
    }
    for file, text in memories.items():
        write_memory(store, file, text)
    write_index(store, [
        "# Memory index",
        "",
        "## User",
        "- [[user-role]] — who the user is",
        "## Feedback",
        "- [[testing_policy]] — how we test",
        "- Write links as `[text](url)`; topic files are named `{module}_project.md`",
        "## Project",
        "- [Launch](project_launch.md) — spring launch",
        "- [Per-module notes]({module}_project.md) — the naming template",
        "- [Agent notes](../.agent/notes.md) — kept outside memory",
        "## Reference",
        "- [Release notes](release notes.md) — spaces in the name",
        "- [Hub](hub.md) — links more memories",
        "- [Dashboards](<reference_dashboards.md> \"boards\")",
        "- [[incident-retro]] — to write after the retro",
        "- [Old](old_notes.md) — deleted by a dream",
    ])
    return project, store


def test_audit_and_projects_json_read_real_index_styles(claude_home, tmp_path):
    project, store = link_styles_store(claude_home, tmp_path)
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(claude_home.home)}

    def memtui(*argv: str):
        done = subprocess.run([sys.executable, "-m", "tui", *argv, "--json"], env=env,
                              capture_output=True, text=True, timeout=60)
        return done.returncode, json.loads(done.stdout)

    code, report = memtui("audit", str(project))
    _, projects = memtui("projects")

    assert code == 0  # a link made out of the store is a warning: every memory is seen
    assert {m["file"]: m["indexed"] for m in report["memories"]} == dict.fromkeys(
        ["feedback_testing.md", "hub.md", "project_launch.md", "reference_dashboards.md",
         "release notes.md", "user_role.md"], True)
    assert sorted((f["kind"], f["line"], f.get("target")) for f in report["findings"]) == [
        ("dangling", 17, "old_notes.md"),
        ("outside_store", 11, "../.agent/notes.md"),
        ("unmatched_wiki_link", 16, "incident-retro"),
    ]
    assert set(report) == {"store", "index", "memories", "cost", "findings", "target"}
    assert [p["memories"] for p in projects] == [6]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*PIECES, "`", "\n    "]), max_size=60).map("".join))
def test_a_huge_index_is_parsed_as_markdown_up_to_the_limit_then_scanned(text):
    """Past MARKDOWN_LIMIT characters the lines are scanned (a Markdown parse of 50 MB
    takes a minute): links before the line at the limit are the Markdown ones, the rest
    the scan's, on the right lines."""
    from tui.memory import links

    filler = "x" * 40 + "\n"
    head = filler * 30
    big = head + text + "\n" + text
    limit = len(head) + len(text)
    original = links.MARKDOWN_LIMIT
    links.MARKDOWN_LIMIT = limit
    try:
        found = find_links(big)
    finally:
        links.MARKDOWN_LIMIT = original
    first_scanned = big.count("\n", 0, limit) + 1
    expected = find_links(big[:limit]) + [
        FoundLink(line + first_scanned, *rest) for line, *rest in _scan(text)
    ]
    assert found == expected


def test_a_quote_inside_a_target_is_part_of_it_as_commonmark_reads_it():
    """`[x](JAVI'S.md)` is a link to JAVI'S.md for markdown-it (and Claude); a quote after a
    space still opens the link's title."""
    assert targets("- [J](a%20-%20JAVI'S.md) — c\n- [x](a\"b.md)\n") == ["a - JAVI'S.md", 'a"b.md']
    assert targets("- [x](ab.md 'its title') — JAVI'S\n") == ["ab.md"]
