"""Which relative dates are dates of the memory's own prose, and the day its text says
they were written: the one judgement the audit's `relative_date` finding and the dream's
rewriting share (tui/memory/date_prose.py, tui/memory/written_on.py).

Every line below is shaped like one seen in public memory stores, where reading the date
words alone cried wolf on nearly half of what it reported.
"""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import index_line, memory_text, write_index, write_memory

from tui.memory.audit import audit_store
from tui.memory.date_prose import classified, date_references
from tui.memory.dates import relative_dates
from tui.memory.store import load_store
from tui.memory.written_on import Headings, day_of_name

# (what the words are there, why they are no date of the prose as tui/memory/date_prose.py
# names it, the memory's file, its text)
NOT_DATES = [
    ("a slash command", "name", "project_market.md", "Run /market-tomorrow after the close.\n"),
    ("a file name", "link or file name", "project_ui.md",
     "The card lives in today-timeline.tsx now.\n"),
    ("a command-line flag", "name", "project_cli.md", "Pass --today to the report script.\n"),
    ("the frontmatter", "frontmatter", "reference_market.md",
     "---\nname: market-tomorrow\ndescription: what the market will do tomorrow\n"
     "type: reference\n---\n\nNothing else.\n"),
    ("60 days after purchase", "duration", "project_domain.md",
     "등록기관: Porkbun (구매 60일 뒤 Cloudflare로 이전 가능)\n"),
    ("a span of days", "duration", "project_cash.md",
     "The plan made +29.3% in 9 days of backtests.\n"),
    ("Dutch hier is here", "nl text", "project_nl.md",
     "De code staat hier en werkt goed, het is niet kapot.\n"),
    ("a short Dutch line", "language unsure", "project_nl.md", "Staat hier en daar.\n"),
    ("a rule naming the words", "link or file name", "feedback_words.md",
     "Never write tonight/tomorrow in a report; give the date.\n"),
    ("a rule naming the words", "mention", "feedback_words.md",
     "Avoid words like tomorrow in reports.\n"),
    ("a formula", "formula", "project_drive.md", "Filter on modifiedTime=今日 only.\n"),
    ("a report's field names", "title", "project_caixa.md", "CAIXA HOJE menos o saldo.\n"),
    ("a report's field names", "formula", "project_caixa.md", "Saldo Δ vs ontem.\n"),
    ("a UI label", "label", "project_dashboard.md", "Today: 3 tasks, 2 calls.\n"),
    ("an emoji-led report title", "title", "reference_tabs.md", "5. 🔥 今日快照\n"),
    ("a Korean compound name", "name", "project_home.md", "오늘의발견 섹션을 맨 위에 둔다.\n"),
    ("a quoted message", "quote", "project_user.md",
     "\"I barely slept last night,\" the user wrote.\n"),
    ("a quoted message", "quote", "project_user.md", "She said: “we ship tomorrow” and left.\n"),
    ("a reply template", "template", "project_reminder.md",
     "Reply in and I start tonight for {{target_date}}.\n"),
    ("a state now in a general rule", "now", "project_readme.md",
     "The README shows what the tool does today.\n"),
    ("today's date", "rule", "feedback_schedule.md",
     "Check today's date before scheduling anything.\n"),
    ("the sentence already has its date", "dated", "project_incident.md",
     "It broke twice today (2026-06-26) under load.\n"),
    ("a table of fields", "table", "project_report.md", "| Today | 3 |\n"),
    ("a heading", "heading", "project_plan.md", "## Tomorrow's plan\n"),
    ("a blockquote", "quote", "project_chat.md", "> we ship tomorrow\n"),
    ("an agenda question", "question", "project_standup.md", "1. 昨天完成了什麼？\n"),
    ("a procedure in a feedback memory", "now", "feedback_rows.md",
     "## Always check the ex-dividend date (2026-05-27)\n\n- 抓今日當日 row 再比對。\n"),
    ("no single day", "vague", "project_pnpm.md", "We recently moved to pnpm.\n"),
    ("a checklist step", "procedure", "project_sop.md",
     "- [ ] Review last month's occupancy rate.\n"),
    ("an HTML comment", "comment", "project_review.md", "<!-- anything flagged this month -->\n"),
    ("a span of time", "duration", "project_launch.md", "She will focus on it over the next week.\n"),
    ("a rule's condition", "rule", "project_lease_2026-05-23.md",
     "If there is no response, deduct the cost from next month's rent.\n"),
    ("a hypothetical", "rule", "project_nft.md",
     "## 2026-08-10\n\nA matrix built today would encode the churn.\n"),
    ("an adjective, not a deed", "now", "project_service.md",
     "No dedicated screen exists for it today.\n"),
    ("an email drafted under an Email N heading", "draft", "project_outreach_emails.md",
     "## Email 1 — Thousand Hills Realty (Branson, MO)\n\n**To:** ytoro@example.com\n"
     "**Subject:** 12-month furnished rental offer\n\nHi Y. Toro,\n\n"
     "My VA John spoke with Melanie this afternoon about **139 Woodland Drive**.\n"),
    ("an email after its Subject: line", "draft", "project_tour.md",
     "**Subject:** Tour request — 4 units\n\nHi Dana,\n\n"
     "We toured the first unit yesterday and loved it.\n"),
    ("a reply template under its heading", "draft", "reference_replies.md",
     "### Reply template\n\nThanks! I'll send the signed lease tomorrow.\n"),
    ("a template named before its use", "draft", "feedback_dispatch.md",
     "## Template for Next Dispatch\n\n1. Summarise what you did today.\n"),
    ("a voicemail script", "draft", "reference_calls.md",
     "## 2. Voicemail Script — 25 Seconds Max\n\nHi, it's Sam, we spoke yesterday.\n"),
    ("a Spanish reply template", "draft", "reference_respuestas.md",
     "## Plantilla de respuesta\n\nGracias, le envío el contrato mañana con los datos.\n"),
    ("a German reply template", "draft", "reference_antworten.md",
     "## Antwortvorlage\n\nIch schicke Ihnen die Unterlagen morgen.\n"),
    ("a Chinese reply template", "draft", "reference_reply.md",
     "### 回复模板\n\n我明天把合同发给您。\n"),
    ("a Japanese mail draft", "draft", "reference_mail.md",
     "## メール下書き\n\n明日、資料をお送りします。\n"),
]


@pytest.mark.parametrize(("what", "why", "file", "text"), NOT_DATES,
                         ids=[row[0] for row in NOT_DATES])
def test_date_words_that_are_not_a_date_of_the_memory_s_prose_are_no_date(what, why, file, text):
    assert relative_dates(text), "the date words are there"
    assert {reason for _, reason in classified(text, file)} == {why}
    assert date_references(text, file) == []


DATES = [
    ("project_schema.md", "We froze the schema yesterday.\n", ["yesterday"]),
    ("project_demo.md", "The demo moved to next Thursday.\n", ["next Thursday"]),
    ("project_flaky.md", "Fixed the flaky test today.\n", ["today"]),
    ("project_deploy.md", "The deploy will happen tomorrow.\n", ["tomorrow"]),
    ("project_search.md", "上周 the team agreed to move search.\n", ["上周"]),
    ("project_schema.md", "어제 스키마를 고정했다.\n", ["어제"]),
    ("project_team.md", "Das Team hat es gestern entschieden.\n", ["gestern"]),
    ("project_nl.md", "Gisteren hebben we de code hier neergezet.\n", []),  # hier: here
    ("project_session_20260507.md", "Nothing new today.\n", ["today"]),  # a dated note
    ("project_recorder.md", "Wait a week (the recorder was fixed today).\n", ["today"]),
    ("project_status_2026_05_18.md", "Review today's invites if they still need action.\n",
     ["today"]),  # the condition governs what follows it, not the day
    # About drafts, in the memory's own words: a plural, a heading whose noun is another.
    ("project_campaign.md", "## Email Campaigns\n\nWe paused the campaign yesterday.\n",
     ["yesterday"]),
    ("project_outreach.md", "# Outbound Emails\n\nWe sent all six yesterday.\n", ["yesterday"]),
    ("project_contact.md", "### cPanel Contact Email — All 3 Locations Updated\n\n"
     "We changed it yesterday.\n", ["yesterday"]),
    ("project_deploy.md", "## Deploy Script\n\nWe fixed the deploy script yesterday.\n",
     ["yesterday"]),
    ("project_outreach.md", "## Research\n\n- Subject: 2-4 words, lowercase\n"
     "- We tested the subject lines yesterday.\n", ["yesterday"]),  # a field, not a mail
    ("project_outreach.md", "**Subject:** Hello\n\nSee you tomorrow.\n\n---\n\n"
     "We sent it yesterday.\n", ["yesterday"]),  # the mail ends at the rule
    ("project_outreach.md", "## Email 1\n\nSee you tomorrow.\n\n## Notes\n\n"
     "We sent it yesterday.\n", ["yesterday"]),  # the draft ends at the next heading
]


@pytest.mark.parametrize(("file", "text", "phrases"), DATES, ids=[row[1][:30] for row in DATES])
def test_dates_told_of_in_the_memory_s_own_prose_are_found(file, text, phrases):
    assert [reference.found.phrase for reference in date_references(text, file)] == phrases


def test_outside_a_dated_note_today_is_a_day_only_where_something_was_done():
    """"Today" alone mostly says "now": a date only in a clause that tells of a deed."""
    assert date_references("X does not exist today.\n", "project_x.md") == []
    [reference] = date_references("The recorder was fixed today.\n", "project_x.md")
    assert reference.found.phrase == "today"


# --- the day the text says a line was written ---------------------------------------------


def written(text: str, file: str = "project_notes.md") -> list[dt.date | None]:
    return [reference.written and reference.written.day
            for reference in date_references(text, file)]


def test_a_dated_heading_above_a_line_says_when_it_was_written():
    text = ("# Restart notes\n\n## Verification (post-restart, 2026-05-19)\n\n"
            "- Checked the logs.\n- Confirmed working today.\n")
    assert written(text) == [dt.date(2026, 5, 19)]


def test_a_subsection_takes_the_date_of_the_section_around_it():
    text = "## 2026-05-19\n\n### Deploy\n\nShipped the fix today.\n"
    assert written(text) == [dt.date(2026, 5, 19)]


@pytest.mark.parametrize(("file", "day"), [
    ("project_session_20260507.md", dt.date(2026, 5, 7)),
    ("logs/2026/05/2026-05-07.md", dt.date(2026, 5, 7)),
    ("2026-05-07-notes.md", dt.date(2026, 5, 7)),
    ("project_status_2026_05_01_midday.md", dt.date(2026, 5, 1)),
    ("archive/2026-06-17/working-memory.md", None),  # a folder's date: when it was filed
])
def test_a_date_in_the_file_s_name_says_when_it_was_written(file, day):
    named = day_of_name(file)
    assert (named.day if named else None) == day


@pytest.mark.parametrize(("why", "text"), [
    ("a date to come", "## Deadline 2026-06-30\n\nWe decided yesterday to keep it.\n"),
    ("a bound, not a day", "## Notes (post-2026-05-01)\n\nWe decided yesterday to keep it.\n"),
    ("written after midnight", "## Wrap-up (2026-05-05 ~01:00)\n\nWe decided yesterday.\n"),
    ("a section about tomorrow", "# 2026-05-04\n\n## Action items for tomorrow\n\n"
                                 "- Check what arrived yesterday.\n"),
    ("a section of several days", "# Week (2026-05-01)\n\n## 2026-05-03\n\nx\n\n## Open\n\n"
                                  "We decided yesterday.\n"),
    ("two dates", "## 2026-05-01 → 2026-05-03\n\nWe decided yesterday.\n"),
])
def test_a_heading_whose_date_is_not_the_day_of_writing_dates_nothing(why, text):
    assert written(text) == [None]


def test_a_file_name_and_a_heading_that_disagree_date_nothing():
    text = "## Session 2026-05-09\n\nWe decided yesterday.\n"
    assert written(text, "project_session_20260507.md") == [None]


def test_headings_inside_a_code_fence_are_not_headings():
    text = "## 2026-05-19\n```\n# 2026-01-01\n```\nShipped today.\n"
    assert Headings(text).around(4).day == dt.date(2026, 5, 19)


# --- the audit --------------------------------------------------------------------------------


def test_the_audit_reports_only_dates_of_the_memory_s_prose_and_names_their_anchor(tmp_path):
    store = tmp_path / "projects" / "-p" / "memory"
    store.mkdir(parents=True)
    for number, (_, _, file, text) in enumerate(NOT_DATES):
        kind = file.partition("_")[0]
        body = text if text.startswith("---") else memory_text(f"m{number}", "x", kind, text)
        write_memory(store, f"{number:02d}_{file}", body)
    write_memory(store, "project_session_20260507.md",
                 memory_text("session", "the session", "project", "The deploy failed yesterday.\n"))
    write_memory(store, "project_flaky.md",
                 memory_text("flaky", "flaky e2e", "project", "The suite started flaking yesterday.\n"))
    write_index(store, [index_line(path.name) for path in sorted(store.glob("*.md"))
                        if path.name != "MEMORY.md"])
    findings = {f.file: f for f in audit_store(load_store(store)) if f.kind == "relative_date"}
    assert sorted(findings) == ["project_flaky.md", "project_session_20260507.md"]
    assert findings["project_session_20260507.md"].message == (
        "project_session_20260507.md says 'yesterday'; its name project_session_20260507.md "
        "dates it 2026-05-07: `memtui dream` can write the day")
    assert findings["project_flaky.md"].message == (
        "project_flaky.md says 'yesterday'; nothing in the file says which day it was written")
    assert {f.severity for f in findings.values()} == {"info"}
