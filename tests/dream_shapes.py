"""Stores in the shapes where a dream loses or bends a fact (issue 40).

Each builder writes one shape seen in public memory stores that users committed (their
statistics and layout, not their text: every line here was written for this project) into
an empty memory dir, and returns the store-relative paths of the `.md` files Claude Code's
recursive scan reads there (every `.md` but `MEMORY.md`), as `real_shapes` builders do.

Where a shape is about dates, the files get mtimes on purpose: a file's mtime is when it was
last touched (a later edit, a sync, a copy), often days or months after the day its file
name, a heading or its frontmatter says it was written.
"""

from __future__ import annotations

import base64
import os
import random
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

# The files of a shape that are no memories, though the scan reads them.
NOT_MEMORIES = ("README.md", "CLAUDE.md", "notes.secret.md")
TRADE_CODES = 40
CONTACT_CARDS = 30
DAILY_NOTES = 20
SESSION_NOTES = 12
INDEX_PROJECTS = 36  # six index lines each: with the preamble, past the 200-line cut


def _stamp(day: str) -> float:
    """An ISO date or date-time, read as UTC, as a timestamp."""
    moment = datetime.fromisoformat(day)
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


class _Store:
    """Writes files into one store and remembers the ones the scan reads."""

    def __init__(self, root: Path):
        self.root = root
        self.scanned: list[str] = []

    def write(self, file: str, text: str, touched: str = "2026-06-01T09:00") -> None:
        path = self.root / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (_stamp(touched), _stamp(touched)))
        if file.endswith(".md") and path.name != "MEMORY.md":
            self.scanned.append(file)

    def memory(self, file: str, description: str, kind: str, body: str,
               touched: str = "2026-06-01T09:00", extra: str = "") -> None:
        name = file.rsplit("/", 1)[-1].removesuffix(".md")
        head = f"---\nname: {name}\ndescription: {description}\ntype: {kind}\n{extra}---\n\n"
        self.write(file, head + body, touched)

    def index(self, lines: Iterable[str]) -> None:
        self.write("MEMORY.md", "\n".join(lines) + "\n")


def _line(file: str, hook: str) -> str:
    return f"- [{file.rsplit('/', 1)[-1].removesuffix('.md')}]({file}) — {hook}"


# --- dates a file name, a heading or a sentence fixes -----------------------------------------


SESSION_TOPICS = ("retry control in the uploader", "tooltip icons of the editor",
                  "export button on the invoice page", "login redirect after SSO",
                  "CSV quoting of the report", "dark mode contrast", "search ranking weights",
                  "rate limits of the public API")
FAILURES = ("the staging proxy cut uploads at 10 MB", "the icon font was cached",
            "the PDF renderer ran out of memory", "the SSO callback URL was stale",
            "Excel read the semicolons as columns", "two tokens shared one colour")


def dated_session_notes(store: Path) -> list[str]:
    """Models stores of dated session notes (one held 400 `session_2026-05-28_<topic>.md`,
    others `project_session_20260507.md`, `project_status_2026_04_30_evening.md` handoffs):
    relative words whose day the file name, a dated heading, the frontmatter or the same
    sentence fixes, in files whose mtime is days to months later."""
    s = _Store(store)
    s.memory("project_session_20260507.md", "what the 7 May session settled", "project",
             "## What happened\n- Moved the billing cron to 06:00 today.\n"
             "- Tomorrow: ship the invoice export.\n", touched="2026-08-05T10:00")
    s.memory("project_status_2026_04_30_evening.md", "evening handoff of 30 April", "project",
             "Recorders stopped at 23:40.\n\n## TOMORROW MORNING — first things to do\n"
             "1. Restart the recorder.\n2. Compare the tick counts with the exchange.\n",
             touched="2026-05-02T19:38")
    s.memory("project_last_session.md", "the last session's state", "project",
             "# Last session — 2026-05-06 (evening: outreach)\n\n"
             "- Day 40 was May 4 in Springfield; day 42 is in progress today.\n\n"
             "### From this evening's session\n- Drafted three letters, none sent.\n",
             touched="2026-05-07T01:03", extra="ended: 2026-05-06T22:30:00Z\n")
    s.memory("project_gateway_restart.md", "gateway restart and its check", "project",
             "## Verification (post-restart, 2026-05-19)\n\n"
             "- Health endpoint answers in 40 ms.\n- Confirmed working today.\n",
             touched="2026-05-29T08:00")
    s.memory("project_cache_state.md", "cache state", "project",
             "**No shared cache today.** As of 2026-05-19 every worker keeps its own.\n",
             touched="2026-06-20T08:00")
    for number in range(SESSION_NOTES):
        day, topic = 10 + number, SESSION_TOPICS[number % len(SESSION_TOPICS)]
        file = f"session_2026-05-{day:02}_{topic.split()[0]}-{number}.md"
        s.memory(file, f"session of 2026-05-{day:02}: {topic}", "project",
                 f"- Worked on the {topic} today; the fix lands tomorrow.\n"
                 f"- Yesterday's attempt failed: {FAILURES[number % len(FAILURES)]}.\n",
                 touched=f"2026-07-{day:02}T12:00")
    s.index(_line(file, "what that session left") for file in sorted(s.scanned))
    return s.scanned


def date_lookalike_words(store: Path) -> list[str]:
    """Models Korean, Japanese and Chinese stores (about half their files) and Portuguese,
    Dutch, German and Spanish ones, where words that look like dates are durations and
    rules (60일 뒤, 10年後, 20日前), UI labels and report titles (오늘의 브리핑, CAIXA HOJE …
    Δ vs ontem), formulas (今日成本 = …), other words (Dutch *hier* "here", German *Morgen*
    "morning") or the subject of the note (a parser of hoy/mañana)."""
    s = _Store(store)
    s.memory("feedback_refund_rule.md", "환불 규칙: 구매 후 60일 뒤에는 받지 않는다", "feedback",
             "환불은 구매일로부터 60일 뒤에는 받지 않는다.\n"
             "홈 상단 카드 제목은 '오늘의 브리핑'으로 고정한다.\n"
             "**Why:** 정산 주기가 60일이다.\n**How to apply:** 환불 문의에 기간부터 확인한다.\n")
    s.memory("feedback_invariants.md", "構造かデータかの判断基準", "feedback",
             "判断基準: 「10年後もこれは成り立つか？」 Yes なら構造に、迷うならデータに。\n"
             "目標: 3年後(2029-05)に年商10億円。\n")
    s.memory("reference_cost_formula.md", "成本線的遞迴公式", "reference",
             "- 遞迴成本: 今日成本 = (昨日成本 × 持股 + 收盤 × 淨買) ÷ 持股\n"
             "- 均線條件: MA200 高於 20日前。\n")
    s.memory("project_kantoor.md", "waar de spullen op kantoor liggen", "project",
             "De reservesleutel ligt hier in de la onder de printer.\n"
             "Wij werken hier alleen met de testomgeving, nooit met productie.\n")
    s.memory("reference_relatorio_caixa.md", "títulos fixos do relatório de caixa", "reference",
             "Seção do relatório: CAIXA HOJE … Δ vs ontem (não mudar o título).\n"
             "Fórmula: saldo_hoje = saldo_ontem + entradas − saídas.\n")
    s.memory("user_tagesanker.md", "Tagesablauf des Nutzers", "user",
             "**Morgen-Puffer:** mindestens 45 Minuten zwischen Aufstehen und erstem Termin.\n"
             "Die Heute-Ansicht zeigt nur offene Aufgaben.\n")
    s.memory("project_parser_fechas.md", "el extractor de fechas", "project",
             "El extractor reconoce hoy/mañana/ayer y los nombres de los meses en 4 idiomas.\n")
    s.index(_line(file, "규칙 · ルール · regel") for file in sorted(s.scanned))
    return s.scanned


# --- the index ---------------------------------------------------------------------------------


STATUS_FACTS = ("exports run nightly at 02:00 UTC", "the queue drains in under a minute",
                "billing moved to the new ledger", "search reindex takes 40 minutes",
                "mobile build is blocked on signing keys", "the webhook retries five times",
                "staging mirrors production data weekly")
DECISIONS = ("chose Postgres over SQLite for concurrent writers",
             "kept the REST API, no GraphQL", "retries back off exponentially to 10 minutes",
             "feature flags live in the config repo", "one deploy a day, never on Friday",
             "logs keep 14 days, metrics 13 months")
WHYS = ("an outage showed the gap.", "the user asked for it twice.",
        "the old way lost data once.", "it halves the bill.", "review time doubled before.")


def index_with_headings_over_the_cut(store: Path) -> list[str]:
    """Models indexes of 249 lines under 61 headings and of 548 under 69: headings that hold
    facts (a strict policy, a project's path and phases with a date), bullets of prose under
    project headings that link nothing (the stack, the bot API), link lines among them,
    over the 200-line cut. Projects six apart share a status fact and a decision: notes of
    different projects, not duplicates."""
    s = _Store(store)
    lines = ["# Memory", "", "Facts first; one line per memory below.", "",
             "## 배포 규칙 (엄격 적용)", "- main에 직접 푸시하지 않는다. 리뷰 후에만 머지.",
             "- 금요일 오후에는 배포하지 않는다.", "",
             "## Git branch policy (strict)",
             "- Every change on a feature branch; merge only after an explicit go.", ""]
    stacks = ["Python 3.12, talks to users through the Telegram Bot API",
              "Go 1.22 service behind nginx, Postgres 16", "TypeScript, Next.js 15 on Vercel",
              "Rust CLI, releases through cargo-dist"]
    for number in range(INDEX_PROJECTS):
        project = f"agent-{number:02}"
        lines += [f"### {number}. {project} (`~/src/{project}`) — {number % 6 + 1} phases done "
                  f"(2026-05-{number % 28 + 1:02})",
                  f"- {stacks[number % len(stacks)]}",
                  f"- Deploys from the `release-{number}` branch only"]
        for part, fact in (("status", STATUS_FACTS[number % len(STATUS_FACTS)]),
                           ("decisions", DECISIONS[number % len(DECISIONS)])):
            file = f"project_{project.replace('-', '_')}_{part}.md"
            s.memory(file, f"{project} {part}: {fact}", "project",
                     f"{project}: {fact} (phase {number % 6 + 1}, owner #{number * 37 % 101}).\n"
                     f"**Why:** {WHYS[(number + len(part)) % len(WHYS)]}\n"
                     f"**How to apply:** check `~/src/{project}` before changing it.\n")
            lines.append(_line(file, f"{project} {part}: where it stands"))
        lines.append("")
    s.index(lines)
    return s.scanned


def dangling_lines_holding_facts(store: Path) -> list[str]:
    """Models indexes whose lines point at files that are not there (177 of one store's 215
    lines; a table index of dated daily files in another; links leaving the store for
    `../plans/`): each hook is the only copy of its fact."""
    s = _Store(store)
    s.memory("user_role.md", "a solo founder running two products", "user", "Runs sales too.\n")
    s.memory("feedback_tests.md", "tests hit a real database", "feedback",
             "Use the real database.\n**Why:** mocks hid a migration bug.\n"
             "**How to apply:** every integration test.\n")
    s.index([
        "# Memory", "",
        _line("user_role.md", "who the user is"),
        _line("feedback_tests.md", "integration tests hit a real database"),
        _line("incident_2026_05_14.md", "Immediate: revoke the deploy token + rotate the "
              "database passwords + fix the SQL injection in /search + turn CSRF checks on"),
        _line("skills/release/SKILL.md", "cuts a release: bumps the version, writes the "
              "changelog from merged PRs, tags, drafts the announcement"),
        "- [Rollout plan](../plans/2026-04-28-rollout.md) — plans live beside the store", "",
        "| day | what |", "|---|---|",
        "| [2026-08-07](2026-08-07.md) | maturity review, risk threshold raised to 0.7 |",
        "| [2026-08-06](2026-08-06.md) | remediation plan agreed with the auditor |",
    ])
    return s.scanned


# --- vaults ----------------------------------------------------------------------------------


def obsidian_vault_with_templates(store: Path) -> list[str]:
    """Models a 3,187-note Obsidian vault used as the memory folder: contact cards from one
    template that differ only by licence number and name, tag pages one per trade code
    with the same template and a Dataview `LIST FROM` in a fence, daily notes of different
    days (YESTERDAY, tonight), templates with `{{date}}`, a map of content, `.obsidian/`."""
    s = _Store(store)
    s.write(".obsidian/app.json", '{"alwaysUpdateLinks": true}\n')
    s.write("Templates/Daily Note.md",
            "# {{date}}\n\n## Today's Focus\n\n1. \n2. \n\n## Done\n\n- \n")
    s.write("Templates/Weekly Review.md",
            "# Week of {{date}}\n\n## Biggest Win This Week\n\n## Top 3 Priorities Next Week\n")
    s.write("MOCs/Pipeline.md", "# Pipeline\n\nWhat is actually moving this week.\n\n"
            "```dataview\nTABLE status FROM #contractor WHERE status = \"warm\"\n```\n")
    codes = [f"C{number}" for number in range(10, 10 + TRADE_CODES)]
    for code in codes:
        s.write(f"Topics/Trades/{code}.md",
                f"---\ntype: trade\ntags: [\"#trade/{code.lower()}\"]\n---\n\n# {code}\n\n"
                f"All contractors with this trade classification.\n\n## Linked notes\n"
                f"```dataview\nLIST FROM #trade/{code.lower()}\n```\n")
    pick = random.Random(40)
    for number in range(CONTACT_CARDS):
        # The first two cards differ only by their numbers: two businesses all the same.
        twins = number < 2
        licence = 1_100_003 + 17 * number
        name = f"{'SUMMIT' if twins else pick.choice(('HARBOR', 'CEDAR', 'ATLAS'))} ROOFING {number}"
        city = "Upland" if twins else pick.choice(("Ontario", "Pomona", "Chino"))
        s.write(f"Contacts/Contractors/{licence} - {name}.md",
                f"---\ntype: contractor\nlicense_num: {licence}\nbusiness_name: {name}\n"
                f"trade: C39\ncity: {city}\nstatus: unworked\ntags:\n  - \"#contractor\"\n"
                f"  - \"#trade/c39\"\n---\n\n# {name}\n\nLicense **{licence}** — C39 in "
                f"[[{city}]]\n\n## Links\n- Trade: [[C39]]\n")
    for number in range(DAILY_NOTES):
        day = f"2026-06-{number + 1:02}"
        s.write(f"Daily Notes/{day}.md",
                f"# {day}\n\n## YESTERDAY\n- Called {number + 3} landlords, {number % 4} warm.\n\n"
                f"## Today's Focus\n1. Follow-ups go out tonight.\n2. Cap is 8 a day.\n",
                touched=f"2026-06-{min(number + 4, 30):02}T22:00")
    s.index(["# Memory Index", "", "## Projects",
             "- [Pipeline](MOCs/Pipeline.md) — what is moving this week", "",
             "## Resources", "- [Daily template](Templates/Daily Note.md) — the daily note's shape",
             "", "## Communication Preferences", "- Ask before diving in",
             "- Bullet points over paragraphs"])
    return s.scanned


# --- words that are names, quotes and templates -----------------------------------------------


def slash_commands_and_date_named_files(store: Path) -> list[str]:
    """Models descriptions and bodies that name slash commands and files whose names hold
    date words (`/market-tomorrow`, `today-timeline.tsx`, a `yesterday-scores` template and
    its "Yesterday's Scores" title), and a rule that forbids such words."""
    s = _Store(store)
    s.memory("reference_market_commands.md",
             "Run /market-tomorrow after the close for the next session's watchlist; "
             "/market-today during the session", "reference",
             "The command lives in `.claude/commands/market-tomorrow.md`.\n")
    s.memory("project_timeline_ui.md", "the timeline view's files", "project",
             "The timeline view is `web/src/views/today-timeline.tsx`; its test is "
             "today-timeline.test.tsx.\n")
    s.memory("project_scores_template.md", "the scores templates", "project",
             "### Add \"Yesterday's Scores\" template\n"
             "- Wired into every surface following the pattern of the yesterday-scores "
             "template.\n")
    s.memory("feedback_commit_words.md", "commit messages carry dates, not day words",
             "feedback", "Never write the words tonight or tomorrow in a commit message; "
             "write the date.\n**Why:** history is read months later.\n"
             "**How to apply:** every commit.\n")
    s.memory("feedback_standup.md", "/standup-today posts the summary to #team", "feedback",
             "Run /standup-today once, after the first push of the day.\n")
    s.index(_line(file, "commands and files") for file in sorted(s.scanned))
    return s.scanned


def quoted_messages_and_templates(store: Path) -> list[str]:
    """Models reply playbooks and quoted messages: a user's words quoted ("I barely slept
    last night"), reply templates beside `{{target_date}}` placeholders ('Reply "in" and I
    start tonight'), a report's table of labels, and code that says `date.today()`."""
    s = _Store(store)
    s.memory("reference_reply_playbook.md", "reply templates for interested leads", "reference",
             "## Templates\n\n"
             "> Hi {{first_name}}, your slot on {{target_date}} is held. Reply \"in\" and I "
             "start tonight.\n\n"
             "> No answer by tomorrow noon and the slot goes to the next person.\n")
    s.memory("feedback_tone.md", "short answers when the user is tired", "feedback",
             "The user wrote: \"I barely slept last night, keep it short today.\"\n"
             "**Why:** long answers went unread.\n**How to apply:** under ten lines then.\n")
    s.memory("reference_daily_report.md", "the daily report's sections", "reference",
             "| Section | Shows |\n|---|---|\n| Today | cash in and out since midnight |\n"
             "| Δ vs yesterday | change against the previous close |\n")
    s.memory("reference_reminder_code.md", "how reminders are chosen", "reference",
             "```python\nif entry.day == date.today():\n    send_reminder(\"tomorrow\")\n```\n")
    s.index(_line(file, "playbooks and formats") for file in sorted(s.scanned))
    return s.scanned


def non_memories_in_the_store(store: Path) -> list[str]:
    """Models memory folders that are also repositories: a README.md, a CLAUDE.md copied
    in, and an OpenSSL-encrypted `notes.secret.md` (its base64 body starts `U2FsdGVkX1`,
    "Salted__") beside real memories."""
    s = _Store(store)
    s.memory("user_role.md", "a researcher who writes Rust", "user", "Prefers terse answers.\n")
    s.memory("feedback_units.md", "SI units in every table", "feedback",
             "Use SI units.\n**Why:** mixed units broke a plot.\n**How to apply:** tables.\n")
    s.write("README.md", "# Memory\n\nSynced between machines with sync.sh.\n")
    s.write("CLAUDE.md", "Keep answers short.\nRun the tests before committing.\n")
    secret = b"Salted__" + random.Random(40).randbytes(8 + 96)
    body = base64.b64encode(secret).decode()
    s.write("notes.secret.md", "\n".join(body[i:i + 64] for i in range(0, len(body), 64)) + "\n")
    s.index([_line("user_role.md", "who the user is"),
             _line("feedback_units.md", "SI units in every table")])
    return s.scanned


SHAPES: dict[str, Callable[[Path], list[str]]] = {
    builder.__name__: builder
    for builder in (
        dated_session_notes, date_lookalike_words, index_with_headings_over_the_cut,
        dangling_lines_holding_facts, obsidian_vault_with_templates,
        slash_commands_and_date_named_files, quoted_messages_and_templates,
        non_memories_in_the_store,
    )
}


def build(store: Path, shape: str) -> list[str]:
    store.mkdir(parents=True, exist_ok=True)
    files = SHAPES[shape](store)
    assert len(files) == len(set(files)), "a builder wrote a file twice"
    return sorted(files)


def build_all(root: Path) -> dict[str, Path]:
    """Every shape in a store of its own under `root`, named after the shape."""
    stores = {shape: root / shape / "memory" for shape in SHAPES}
    for shape, store in stores.items():
        build(store, shape)
    return stores
