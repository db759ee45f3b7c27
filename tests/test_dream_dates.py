"""The offline dream writes a relative date as the day it means only when every witness of
the day it was written agrees: a date in the file's name or a heading above it, the
journal's snapshots, the transcript of the Write that added it. Never the mtime or the
frontmatter `modified`; never text the dream wrote itself (tui/agents/datefix.py)."""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import index_line, memory_text, user_record, write_index, write_memory

from tui.agents.dream import run_dream
from tui.agents.result import conclude
from tui.history.journal import Journal

LATE_MAY = dt.datetime(2026, 5, 29, 12).timestamp()


def dream(store):
    result = run_dream(store, engine="offline")
    conclude(result, apply=True)
    return result


def said(result) -> str:
    return "\n".join(line.text for line in result.log)


def test_a_date_is_written_as_the_day_its_heading_gives_not_the_mtime(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    body = ("## Verification (post-restart, 2026-05-19)\n\n- Logs are clean.\n"
            "- Confirmed working today.\n")
    write_memory(store, "project_restart.md", memory_text("restart", "restart", "project", body),
                 mtime=LATE_MAY)
    result = dream(store)
    assert "- Confirmed working 2026-05-19.\n" in (store / "project_restart.md").read_text()
    assert ("'today' → '2026-05-19' (written 2026-05-19: the heading 'Verification "
            "(post-restart, 2026-05-19)')") in said(result)


def test_a_dated_file_name_is_the_day_not_the_frontmatter_modified(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    text = memory_text("session", "the session", "project",
                       "The migration failed yesterday.\n", form="nested").replace(
        "modified: 2026-01-02T03:04:05.000Z", "modified: 2026-08-05T10:00:00.000Z")
    write_memory(store, "project_session_20260507.md", text, mtime=LATE_MAY)
    dream(store)
    assert "The migration failed 2026-05-06.\n" in (
        store / "project_session_20260507.md").read_text()


def test_a_date_nothing_dates_is_left_as_written_and_the_run_says_why(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    text = memory_text("flaky", "flaky e2e", "project", "The suite started flaking yesterday.\n")
    write_memory(store, "project_flaky.md", text, mtime=LATE_MAY)
    result = dream(store)
    assert (store / "project_flaky.md").read_text() == text
    assert ("project_flaky.md line 7: left 'yesterday' as written: nothing says which day it "
            "was written") in said(result)


def test_date_words_that_are_no_date_of_the_prose_are_never_touched(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    body = ("## Session 2026-05-07\n\n"
            "- Run /market-tomorrow after the close; the card is today-timeline.tsx.\n"
            "- \"I barely slept last night,\" the user wrote.\n"
            "- Reply in and I start tonight for {{target_date}}.\n"
            "- 구매 60일 뒤 Cloudflare로 이전 가능.\n"
            "- Never write tonight/tomorrow in a report.\n"
            "| Today | 3 |\n")
    text = memory_text("market-tomorrow", "what /market-tomorrow says", "project", body)
    write_memory(store, "project_market.md", text, mtime=LATE_MAY)
    result = dream(store)
    assert (store / "project_market.md").read_text() == text
    assert "left" not in said(result) and "→" not in said(result)



def test_a_drafted_email_keeps_its_words_while_the_memory_s_own_date_is_written(
        claude_home, tmp_path):
    """An email drafted in a memory is the email's words: its "this afternoon" is the day it
    is sent, not a day the memory tells of."""
    store = claude_home.store(tmp_path / "project")
    body = ("# Outbound Emails (2026-05-08)\n\nWe drafted all six today.\n\n"
            "## Email 1 — Thousand Hills Realty (Branson, MO)\n\n**To:** ytoro@example.com\n"
            "**Subject:** 12-month furnished rental offer for 139 Woodland Drive\n\n"
            "Hi Y. Toro,\n\nMy VA John spoke with Melanie this afternoon about the house.\n\n"
            "If it is still open, I'll send the lease back tomorrow.\n")
    write_memory(store, "project_outreach_emails.md",
                 memory_text("outreach", "outbound emails", "project", body), mtime=LATE_MAY)
    dream(store)
    text = (store / "project_outreach_emails.md").read_text()
    assert "We drafted all six 2026-05-08.\n" in text
    assert "spoke with Melanie this afternoon about" in text
    assert "I'll send the lease back tomorrow.\n" in text

@pytest.fixture
def transcripts(claude_home, monkeypatch):
    """The config home whose transcripts the dream reads (as it would the user's)."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude_home.home))
    return claude_home


def _write_record(cwd, store, file, content, when, original=None):
    """The transcript record of a Write (or, with `original`, an Edit) to a memory file."""
    result = {"type": "create" if original is None else "update", "filePath": str(store / file),
              "content": content, "structuredPatch": [], "originalFile": original}
    return user_record(str(cwd), "", timestamp=when.astimezone().isoformat(),
                       toolUseResult=result)


def test_the_transcript_of_the_write_says_when_a_line_was_written(transcripts, tmp_path):
    claude_home = transcripts
    cwd = tmp_path / "project"
    cwd.mkdir()
    store = claude_home.store(cwd)
    before = memory_text("freeze", "the freeze", "project", "The schema is frozen.\n")
    after = before + "The freeze was moved to tomorrow.\n"
    write_memory(store, "project_freeze.md", after, mtime=LATE_MAY)
    claude_home.session(cwd,
                        _write_record(cwd, store, "project_freeze.md", before,
                                      dt.datetime(2026, 3, 2, 9)),
                        _write_record(cwd, store, "project_freeze.md", after,
                                      dt.datetime(2026, 3, 10, 15), original=before))
    result = dream(store)
    assert "The freeze was moved to 2026-03-11.\n" in (store / "project_freeze.md").read_text()
    assert "(written 2026-03-10: the transcript of session" in said(result)


def test_a_line_written_in_the_small_hours_is_left_as_written(transcripts, tmp_path):
    claude_home = transcripts
    cwd = tmp_path / "project"
    cwd.mkdir()
    store = claude_home.store(cwd)
    text = memory_text("freeze", "the freeze", "project", "We will pick it up tomorrow.\n")
    write_memory(store, "project_freeze.md", text, mtime=LATE_MAY)
    claude_home.session(cwd, _write_record(cwd, store, "project_freeze.md", text,
                                           dt.datetime(2026, 3, 10, 1, 30)))
    result = dream(store)
    assert (store / "project_freeze.md").read_text() == text
    assert "shows it written at 2026-03-10 01:30" in said(result)


def test_witnesses_that_disagree_leave_the_date_as_written(transcripts, tmp_path):
    claude_home = transcripts
    cwd = tmp_path / "project"
    cwd.mkdir()
    store = claude_home.store(cwd)
    text = memory_text("restart", "restart", "project",
                       "## Verification (2026-05-19)\n\nWe rolled it back yesterday.\n")
    write_memory(store, "project_restart.md", text, mtime=LATE_MAY)
    claude_home.session(cwd, _write_record(cwd, store, "project_restart.md", text,
                                           dt.datetime(2026, 5, 28, 15)))
    result = dream(store)
    assert (store / "project_restart.md").read_text() == text
    assert ("its witnesses disagree: the heading 'Verification (2026-05-19)' says 2026-05-19 "
            "(it would read '2026-05-18'); the transcript of session") in said(result)
    assert "says 2026-05-28 (it would read '2026-05-27')" in said(result)


def test_the_journal_dates_a_line_first_seen_between_two_snapshots_of_one_day(
        claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    head = memory_text("freeze", "the freeze", "project", "The schema is frozen.\n")
    write_memory(store, "project_freeze.md", head)
    journal = Journal(store)
    journal.snapshot("first look", source="external", when=dt.datetime(2026, 3, 10, 9).timestamp())
    write_memory(store, "project_freeze.md", head + "It was unfrozen yesterday.\n", mtime=LATE_MAY)
    journal.snapshot("seen again", source="external", when=dt.datetime(2026, 3, 10, 18).timestamp())
    result = dream(store)
    assert "It was unfrozen 2026-03-09.\n" in (store / "project_freeze.md").read_text()
    assert "(written 2026-03-10: the journal)" in said(result)


def test_the_journal_dates_nothing_across_days_nor_what_memtui_wrote(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    head = memory_text("freeze", "the freeze", "project", "The schema is frozen.\n")
    write_memory(store, "project_freeze.md", head)
    write_memory(store, "project_other.md", head)
    journal = Journal(store)
    journal.snapshot("first look", source="external", when=dt.datetime(2026, 3, 2, 9).timestamp())
    write_memory(store, "project_freeze.md", head + "It was unfrozen yesterday.\n", mtime=LATE_MAY)
    write_memory(store, "project_other.md", head + "It broke yesterday.\n", mtime=LATE_MAY)
    journal.snapshot("a week later", source="external",
                     when=dt.datetime(2026, 3, 10, 9).timestamp())
    journal.snapshot("memtui moved it", source="memtui",
                     when=dt.datetime(2026, 3, 10, 10).timestamp())
    result = dream(store)
    assert "It was unfrozen yesterday.\n" in (store / "project_freeze.md").read_text()
    assert "It broke yesterday.\n" in (store / "project_other.md").read_text()
    assert "left 'yesterday' as written" in said(result)


# --- what the dream wrote itself ----------------------------------------------------------


def test_text_the_dream_wrote_is_never_rewritten(claude_home, tmp_path):
    """A second dream must change nothing: the index lines it copied in, the blocks it
    merged and its own hub files hold sentences written elsewhere, on another day."""
    store = claude_home.store(tmp_path / "project")
    body = ("The deploy failed yesterday.\n\nFrom the index: rolled back yesterday after the "
            "alert\n\n(merged from project_old.md)\nThe cache was flushed yesterday.\n")
    write_memory(store, "project_session_20260507.md",
                 memory_text("session", "the session", "project", body), mtime=LATE_MAY)
    notes = "---\nname: index_notes\ndescription: notes\ntype: reference\n---\n\n- moved yesterday\n"
    write_memory(store, "index_notes.md", notes, mtime=LATE_MAY)
    write_index(store, [index_line("project_session_20260507.md"), index_line("index_notes.md")])
    dream(store)
    text = (store / "project_session_20260507.md").read_text()
    assert "The deploy failed 2026-05-06.\n" in text
    assert "From the index: rolled back yesterday after the alert\n" in text
    assert "(merged from project_old.md)\nThe cache was flushed yesterday.\n" in text
    assert (store / "index_notes.md").read_text() == notes


def test_a_second_dream_rewrites_no_date_the_first_copied_from_the_index(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "project_session_20260507.md",
                 memory_text("session", "the session", "project", "The deploy failed.\n"),
                 mtime=LATE_MAY)
    hook = ("the deploy failed yesterday on the payments cluster, " +
            "with a long account of what the on-call engineer tried and why " * 3)
    write_index(store, [index_line("project_session_20260507.md", "Session", hook)])
    dream(store)
    first = (store / "project_session_20260507.md").read_text()
    assert "From the index: " in first and "yesterday" in first
    again = run_dream(store, engine="offline")
    dated = [f.path for f in again.changeset.files if f.path == "project_session_20260507.md"]
    assert dated == []
