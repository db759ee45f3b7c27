"""The offline extractor keeps only what is worth a memory: a rule or a fact with content of
its own that the user typed. On the demo, the doctor's `memtui extract … --force` wrote a
memory whose whole rule was "That." (from "Please remember that."), and on a real
transcript a compaction hook's output, pasted by Claude Code into a user message, became
three feedback memories."""

from __future__ import annotations

import pytest
from conftest import SHARED_TRANSCRIPTS, user_record

from tui.agents.conversation import Message, read_messages
from tui.agents.extract import run_extract
from tui.agents.instructions import find_instructions, typed_text


def said(*texts: str) -> list[Message]:
    return [Message(f"m{n}", "user", text, "2026-05-04T10:00:00Z") for n, text in enumerate(texts)]


def rules(*texts: str) -> list[tuple[str, str]]:
    candidates, _ = find_instructions(said(*texts))
    return [(candidate.type, candidate.rule) for candidate in candidates]


@pytest.mark.parametrize("text, expected", [
    # "Remember that." points at the sentence before it: that sentence is the memory.
    ("不要用 mock，集成测试要连真实的数据库。Please remember that.",
     [("feedback", "不要用 mock，集成测试要连真实的数据库。")]),
    ("Errors should be one sentence that tells the user what to do. Remember that for this "
     "project.", [("feedback", "Errors should be one sentence that tells the user what to do.")]),
    ("The staging database is shared with the demo site. Remember that.",
     [("project", "The staging database is shared with the demo site.")]),
    # A task first, then the rule: the rule alone (and 1.80 ends no sentence).
    ("Bump the MSRV check to 1.80 and remember to always run cargo clippy before committing.",
     [("feedback", "Always run cargo clippy before committing.")]),
    ("use pnpm not npm — and run the tests for the checkout package.",
     [("feedback", "Use pnpm not npm.")]),
    ("remember: always run the linter before saying a task is done",
     [("feedback", "Always run the linter before saying a task is done")]),
    ("Remember that the billing service only deploys on Tuesdays.",
     [("project", "The billing service only deploys on Tuesdays.")]),
    ("Also: use `pnpm` not `npm` in this repo, npm broke the lockfile last time.",
     [("feedback", "Use `pnpm` not `npm` in this repo, npm broke the lockfile last time.")]),
    ("We never deploy on Fridays.", [("feedback", "We never deploy on Fridays.")]),
    ("以后统一用 pnpm 安装依赖，因为锁文件是 pnpm 的。",
     [("feedback", "以后统一用 pnpm 安装依赖，因为锁文件是 pnpm 的。")]),
])
def test_a_rule_with_content_of_its_own_is_kept_as_the_user_meant_it(text, expected):
    assert rules(text) == expected


@pytest.mark.parametrize("text, reason", [
    ("Remember that.", "it points at nothing said before it"),
    ("That's it. Remember that.", "nothing of its own: a pronoun or a fragment"),
    ("Why is it slow? Remember that.", "a question"),
    ("Don't add new dependencies for this.", "about the task at hand, not a lasting rule"),
    ("Never mind, use the old API for now.", "about the task at hand, not a lasting rule"),
    ("Can you always use pnpm?", "a question"),
    ("Should we never squash merges", "a question"),
    ("We don't know why the e2e suite fails on CI.",
     "it tells what someone knows or thinks, not what to do"),
    ("Never again.", "nothing of its own: a pronoun or a fragment"),
    ("Don't", "too short to hold a rule"),
])
def test_what_is_no_memory_is_left_out_with_its_reason(text, reason):
    candidates, left_out = find_instructions(said(text))
    assert candidates == []
    assert [entry.reason for entry in left_out] == [reason]


@pytest.mark.parametrize("text", [
    "It always fails on the first run.",  # reports: the rule word starts no clause
    "I don't know why the e2e suite fails.",
    "The error says \"don't retry\" and exits.",  # a quotation
    "The log prints `never cache this` twice.",  # code
    "Fix it:\n```\n// never use global state here\nalways(retry)\n```",  # fenced code
    "> Never push to main\nwhat does this mean",  # a quoted line
    "Please fix the build.",
])
def test_rule_words_in_reports_quotes_and_code_make_no_candidate(text):
    assert find_instructions(said(text)) == ([], [])


def test_text_claude_code_wrote_into_a_user_message_is_not_the_users():
    """A compaction's hook output arrives as a user message (`<local-command-stdout>`, with
    terminal colours): its "Do NOT use TodoWrite" became a feedback memory."""
    hook = ("<local-command-stdout>\x1b[2mCompacted\x1b[22m\n"
            "\x1b[2m- **Prohibited**: Do NOT use TodoWrite for task tracking\x1b[22m\n"
            "\x1b[2m- Persistence you don't need beats lost context\x1b[22m</local-command-stdout>")
    assert typed_text(hook).strip() == ""
    notification = ("<task-notification><summary>never retry</summary></task-notification>\n"
                    "Always run the e2e suite in CI mode.")
    assert rules(hook, notification) == [("feedback", "Always run the e2e suite in CI mode.")]
    command = ("<command-name>/review</command-name>\n<command-args>always check the "
               "migrations folder first</command-args>")
    assert rules(command) == [("feedback", "Always check the migrations folder first")]


def test_an_extraction_that_finds_nothing_worth_a_memory_writes_nothing_and_says_so(
        claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    cwd = str(tmp_path / "project")
    (tmp_path / "project").mkdir(exist_ok=True)
    transcript = claude_home.session(cwd, user_record(cwd, "Why is the build slow? Don't add "
                                                           "new dependencies for this."),
                                     user_record(cwd, "Please remember that."))
    before = sorted(path.name for path in store.iterdir())

    result = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                         engine="offline")

    assert result.changeset.files == ()
    assert sorted(path.name for path in store.iterdir()) == before
    (note,) = [note for note in result.changeset.notes if "worth a memory" in note]
    assert note.startswith("Nothing worth a memory in 3 messages: no rule or fact the user "
                           "asked to keep; left out: “Don't add new dependencies for this.” "
                           "(about the task at hand, not a lasting rule)")
    assert note.endswith("Nothing is written.")


def test_rules_remembered_already_write_nothing_and_say_so(claude_home, tmp_path):
    from conftest import index_line, memory_text, write_index, write_memory

    store = claude_home.store(tmp_path / "project")
    write_memory(store, "feedback_push.md", memory_text(
        "push", "Never push to main", "feedback", "Never push to main directly.\n"))
    write_index(store, [index_line("feedback_push.md")])
    cwd = str(tmp_path / "project")
    (tmp_path / "project").mkdir(exist_ok=True)
    transcript = claude_home.session(cwd, user_record(cwd, "never push to main directly"))

    result = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                         engine="offline")

    assert result.changeset.files == ()
    assert ("Nothing new worth a memory: 1 rule in these messages is remembered already, so "
            "nothing is written.") in result.changeset.notes


@pytest.mark.skipif(not SHARED_TRANSCRIPTS.is_dir(),
                    reason=f"real transcripts not available at {SHARED_TRANSCRIPTS}")
def test_the_real_transcripts_hold_no_rule_worth_a_memory():
    """Judged by hand: the 24 messages typed in these sessions are tasks ("create the
    beads"), reports ("mix phx.server doesnt seem to start") and questions ("did you
    push?"), none a lasting rule. Three sentences of a hook's output were taken for rules."""
    found = []
    for path in sorted(SHARED_TRANSCRIPTS.rglob("*.jsonl")):
        candidates, _ = find_instructions(read_messages(path))
        found += [candidate.rule for candidate in candidates]
    assert found == []
