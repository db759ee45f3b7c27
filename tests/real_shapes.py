"""Synthetic memory stores in the shapes real users' stores take.

Reference section 12 lists what public stores look like; each builder here writes one of
those shapes into an empty memory dir, from text written for this project (no third-party
file is copied). A builder returns the store-relative paths of the memory files Claude
Code's recursive scan reads there (every `.md` below the store except `MEMORY.md`), worked
out by the builder itself, so a test can hold memtui to exactly that list.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path

BOM = "\ufeff"
NOT_A_UUID = "session-20260526-065224"
# A GitHub token's shape, built at run time so no scanner takes this file for a leak.
FAKE_TOKEN = "ghp" + "_" + "Tq4Wm9Zr2Lx7Vb1Nc6Hs3Jd8Fk5Yp0Ge2uAx"  # made up, shaped like a real one
VAULT_NOTES = 3_000
VAULT_AREAS = ("infra", "billing", "search", "mobile", "design", "hiring", "ops", "data")
SECOND_LEVEL_TOPICS = 24


def utf16_width(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class _Writer:
    """Writes files into one store and remembers which of them are memories."""

    def __init__(self, store: Path, *, bom: bool = False, crlf: bool = False):
        self.store = store
        self.bom = bom
        self.crlf = crlf
        self.memories: list[str] = []

    def write(self, file: str, text: str) -> Path:
        path = self.store / file
        path.parent.mkdir(parents=True, exist_ok=True)
        if self.crlf:
            text = text.replace("\n", "\r\n")
        path.write_bytes(((BOM if self.bom else "") + text).encode("utf-8"))
        if file.endswith(".md") and path.name != "MEMORY.md" and ".git/" not in file:
            self.memories.append(file)
        return path

    def memory(self, file: str, head: str, body: str = "") -> Path:
        return self.write(file, f"---\n{head}---\n\n{body}")

    def index(self, lines: Iterable[str], file: str = "MEMORY.md") -> Path:
        return self.write(file, "\n".join(lines) + "\n")


def _flat(name: str, description: str, kind: str, extra: str = "") -> str:
    return f"name: {name}\ndescription: {description}\ntype: {kind}\n{extra}"


def _nested(name: str, description: str, kind: str, metadata_line: str = "metadata:") -> str:
    return (
        f"name: {name}\ndescription: {description}\n{metadata_line}\n  type: {kind}\n"
        f"  node_type: memory\n  originSessionId: {uuid.UUID(int=7)}\n"
        "  modified: 2026-05-26T06:52:24.000Z\n"
    )


WHY_HOW = "**Why:** it went wrong once.\n**How to apply:** every time.\n"


# --- frontmatter ---------------------------------------------------------------------------


def mixed_frontmatter(store: Path) -> list[str]:
    """Flat and nested frontmatter in one store, with the variants seen in the wild."""
    w = _Writer(store)
    w.memory("user_role.md", _flat("user_role", "backend engineer on payments", "user"),
             "Knows Go.\n")
    w.memory("feedback_testing.md",
             _nested("feedback-testing", "integration tests hit a real database", "feedback"),
             f"Use the real database.\n{WHY_HOW}")
    # `metadata: ` with a trailing space, as one rewrite leaves it.
    w.memory("project_launch.md",
             _nested("project-launch", "the launch freezes merges", "project", "metadata: "),
             f"Merges freeze on 2026-06-01.\n{WHY_HOW}")
    w.memory("reference_grafana.md", _flat(
        "reference_grafana", "latency dashboards", "reference",
        f"originSessionId: {NOT_A_UUID}\noriginEpoch: 1780000000\n"
        "modified: 2026-05-26T06:52:24Z\nnode_type: memory\n"),
        "grafana.internal/d/latency\n")
    # Issue #63989: a rewrite blanked `name` and dropped `description` and `type`.
    w.memory("project_blank.md",
             f'name: ""\nmetadata:\n  node_type: memory\n  originSessionId: {NOT_A_UUID}\n',
             "What was this about?\n")
    w.index(f"- [{file.removesuffix('.md')}]({file}) — a memory" for file in sorted(w.memories))
    return w.memories


def foreign_types_and_cjk_names(store: Path) -> list[str]:
    """Types outside the four, and names that are titles (often CJK) rather than slugs."""
    w = _Writer(store)
    for kind in ("pattern", "technique", "state", "handoff"):
        w.memory(f"{kind}_notes.md", _flat(f"{kind} notes", f"a {kind} worth keeping", kind),
                 "Body.\n")
    titles = {
        "project_deploy.md": ("部署流程", "生产环境部署需要两人审批"),
        "feedback_tests.md": ("테스트 정책", "통합 테스트는 실제 데이터베이스를 사용한다"),
        "reference_runbook.md": ("デプロイ手順", "本番デプロイの手順書はウィキにある"),
    }
    for file, (name, description) in titles.items():
        kind = file.split("_", 1)[0]
        w.memory(file, _flat(name, description, kind), f"本文。\n{WHY_HOW}")
    lines = [f"- [{titles.get(f, (f,))[0]}]({f}) — 说明" for f in sorted(w.memories)]
    w.index(lines)
    return w.memories


def bom_on_every_file(store: Path) -> list[str]:
    """A UTF-8 byte-order mark on every file, the index included."""
    w = _Writer(store, bom=True)
    w.memory("user_role.md", _flat("user_role", "a data engineer", "user"), "Likes SQL.\n")
    w.memory("feedback_style.md", _flat("feedback_style", "short answers", "feedback"), WHY_HOW)
    w.index(["- [User role](user_role.md) — who the user is",
             "- [Style](feedback_style.md) — how to answer"])
    return w.memories


def crlf_files(store: Path) -> list[str]:
    """Windows line endings in every file."""
    w = _Writer(store, crlf=True)
    w.memory("user_role.md", _flat("user_role", "a .NET developer", "user"), "Uses Rider.\n")
    w.memory("project_port.md", _flat("project_port", "porting to .NET 9", "project"), WHY_HOW)
    w.index(["# Memory", "", "- [User role](user_role.md) — who the user is",
             "- [Port](project_port.md) — the port to .NET 9"])
    return w.memories


def negative_signal_description(store: Path) -> list[str]:
    """A quoted phrase followed by more text: invalid YAML Claude Code's retry leaves broken."""
    w = _Writer(store)
    w.memory("feedback_lease.md",
             'name: feedback_lease\ndescription: "Short-term lease type" is a NEGATIVE signal\n'
             "type: feedback\n", WHY_HOW)
    w.index(["- [Lease signal](feedback_lease.md) — lease type is a negative signal"])
    return w.memories


# --- old stores and index styles -----------------------------------------------------------


def old_store_without_frontmatter(store: Path) -> list[str]:
    """An early store: no frontmatter anywhere, the index holding the content itself, and a
    large topic file that was never linked."""
    w = _Writer(store)
    w.index([
        "# Project memory", "",
        "## Build", "- Use `make dev` to start; the API listens on 8080.",
        "- Tests need Docker running.", "",
        "## Conventions", "- Commit messages in the imperative.",
        "- See [deploy notes](deploy.md) for the release train.",
    ])
    w.write("deploy.md", "# Deploy\n\nThe release train leaves on Tuesdays.\n")
    paragraph = ("The ingestion service batches events by tenant and flushes every five "
                 "seconds or at 1,000 events, whichever comes first.\n")
    w.write("architecture_notes.md", "# Architecture\n\n" + paragraph * 500)  # ~60 KB
    return w.memories


FACTS = {
    "user": ("writes Go at work and Rust at home", "reviews pull requests on Friday mornings",
             "prefers terse answers without preamble"),
    "feedback": ("never mock the database in integration tests",
                 "run ruff and mypy before every commit", "squash merge feature branches only"),
    "project": ("billing moves to Stripe in June 2026", "the mobile app drops iOS 15 support",
                "search reindexes nightly at 02:00 UTC"),
    "reference": ("latency dashboards live in Grafana", "incident runbooks live in Notion",
                  "bug tickets are tracked in Linear"),
}


def index_under_type_headings(store: Path) -> list[str]:
    """Index entries grouped under a heading per type."""
    w = _Writer(store)
    lines = []
    for kind, facts in FACTS.items():
        lines += [f"## {kind.capitalize()}", ""]
        for number, fact in enumerate(facts):
            file = f"{kind}_{number}.md"
            w.memory(file, _flat(f"{kind}_{number}", fact, kind),
                     f"{fact.capitalize()}.\n**Why:** {fact}.\n**How to apply:** mind it.\n")
            lines.append(f"- [{kind} {number}]({file}) — {fact}")
        lines.append("")
    w.index(lines)
    return w.memories


CJK_WORDS = ("支付 迁移 供应商 部署 审批 数据库 缓存 索引 告警 回滚 租户 配额 账单 搜索 队列 "
             "重试 超时 日志 指标 权限 证书 域名 网关 镜像 集群 节点 备份 恢复 灰度 发布").split()
LATIN_WORDS = ("payments migration provider deploy approval database cache index alerting "
               "rollback tenant quota billing search queue retry timeout logging metrics "
               "permissions certificate domain gateway image cluster node backup restore "
               "canary release").split()


def long_index_lines(store: Path) -> list[str]:
    """CJK in half the files and a third of the index lines over 150 characters."""
    w = _Writer(store)
    pick = random.Random(12).sample
    lines = []
    for number in range(30):
        cjk = number % 2 == 0
        words = pick(CJK_WORDS if cjk else LATIN_WORDS, 6)
        description = "".join(words) if cjk else " ".join(words)
        w.memory(f"project_{number:02}.md", _flat(f"project_{number:02}", description, "project"),
                 f"{description}\n**Why:** {description}.\n**How to apply:** check {number}.\n")
        # Every third line carries a paragraph where a hook should be.
        hook = "; ".join([description] * (12 if number % 3 == 0 else 1))
        lines.append(f"- [Project {number}](project_{number:02}.md) — {hook}")
    w.index(lines)
    return w.memories


def second_level_index(store: Path) -> list[str]:
    """MEMORY.md links a topic index, which links the topic files (relative to itself)."""
    w = _Writer(store)
    w.memory("user_role.md", _flat("user_role", "a platform engineer", "user"), "Runs k8s.\n")
    topics = []
    for number in range(SECOND_LEVEL_TOPICS):
        file = f"topic_{number:02}.md"
        w.memory(f"topics/{file}",
                 _flat(f"topic_{number:02}", f"service {number} runbook", "reference"),
                 f"Service {number} restarts with `svc restart {number}`.\n")
        topics.append(f"- [Service {number}]({file}) — runbook")
    w.memory("topics/index.md", _flat("topics", "every service runbook", "reference"),
             "\n".join(topics) + "\n")
    w.index(["- [User role](user_role.md) — who the user is",
             "- [Runbooks](topics/index.md) — one per service, listed there"])
    return w.memories


ARCHIVED_NOTES = 12


def unlinked_archive_index(store: Path) -> list[str]:
    """A second-level index nothing links (`MEMORY-archive.md`, where old entries were moved
    to make room) listing archived notes; one of them a loaded memory links too."""
    w = _Writer(store)
    w.memory("user_role.md", _flat("user_role", "an SRE", "user"),
             "Runs the pager. Old outages: [2024 outage](archive_00.md).\n")
    archived = []
    for number in range(ARCHIVED_NOTES):
        file = f"archive_{number:02}.md"
        w.memory(file, _flat(f"archive_{number:02}", f"outage {number} notes", "project"), WHY_HOW)
        archived.append(f"- [Outage {number}]({file}) — what broke")
    w.memory("MEMORY-archive.md", _flat("memory-archive", "entries moved out of the index",
                                        "reference"), "\n".join(archived) + "\n")
    w.index(["- [User role](user_role.md) — who the user is"])
    return w.memories


CYCLE_NOTES = 5


def cycle_of_unreachable_notes(store: Path) -> list[str]:
    """Notes that link each other in a ring, by `[[name]]`, none linked from anywhere
    Claude starts: each is linked, and none is reached."""
    w = _Writer(store)
    w.memory("user_role.md", _flat("user_role", "a data engineer", "user"), "Owns Airflow.\n")
    for number in range(CYCLE_NOTES):
        following = (number + 1) % CYCLE_NOTES
        w.memory(f"notes/ring-{number}.md",
                 _flat(f"ring-{number}", f"pipeline note {number}", "reference"),
                 f"Next: [[ring-{following}]]\n")
    w.index(["- [User role](user_role.md) — who the user is"])
    return w.memories


LOADED_NOTES = 200  # entries filling the 200-line cut; the two after them fall past it


def second_level_index_past_the_cut(store: Path) -> list[str]:
    """An index over its 200 lines: past the cut, a topic hub (its topics unreached) and an
    entry that a loaded memory links as well (reached through it)."""
    w = _Writer(store)
    lines = []
    for number in range(LOADED_NOTES):
        file = f"note_{number:03}.md"
        body = "See also [Late entry](late_entry.md).\n" if number == 0 else "Noted.\n"
        w.memory(file, _flat(f"note_{number:03}", f"note {number}", "reference"), body)
        lines.append(f"- [Note {number}]({file}) — a note")
    w.memory("late_entry.md", _flat("late_entry", "indexed late, linked by note 0", "reference"),
             "Late.\n")
    w.memory("hubs/late_hub.md", _flat("late_hub", "runbooks, indexed late", "reference"),
             "- [Restart](restart.md)\n- [Failover](failover.md)\n")
    w.memory("hubs/restart.md", _flat("restart", "how to restart", "reference"), "Restart.\n")
    w.memory("hubs/failover.md", _flat("failover", "how to fail over", "reference"), "Fail.\n")
    lines += ["- [Late entry](late_entry.md) — past the cut", "- [Hub](hubs/late_hub.md) — past it"]
    w.index(lines)
    return w.memories


def escaped_pipes_in_tables(store: Path) -> list[str]:
    """An index kept as a Markdown table (as Obsidian writes one): an aliased `[[name|alias]]`
    link has its pipe escaped there, `[[name\\|alias]]`."""
    w = _Writer(store)
    w.memory("deploy_checklist.md", _flat("deploy-checklist", "what to check before deploy",
                                          "reference"), "Check the canary.\n")
    w.memory("on_call_rotation.md", _flat("on-call-rotation", "who is on call", "reference"),
             "| when | see |\n|---|---|\n| paging | [[deploy-checklist\\|the checklist]] |\n")
    w.memory("pager_policy.md", _flat("pager-policy", "when to page", "reference"), "Page.\n")
    w.index(["| memory | why |", "|---|---|",
             "| [[on-call-rotation\\|On call]] | who to page |",
             "| [[pager-policy\\|Paging]] | when to page |"])
    return w.memories


def wiki_links_to_snake_case(store: Path) -> list[str]:
    """`[[kebab-slug]]` links naming `snake_case.md` files, and one that names nothing yet."""
    w = _Writer(store)
    w.memory("deploy_checklist.md", _flat("deploy-checklist", "what to check before deploy",
                                          "reference"), "Check the canary.\n")
    w.memory("on_call_rotation.md", _flat("on-call-rotation", "who is on call", "reference"),
             "See [[deploy-checklist]] before paging.\n")
    w.index(["- [[deploy-checklist]] — before every deploy",
             "- [[on-call-rotation]] — who to page",
             "- [[capacity-plan]] — to write once the numbers are in"])
    return w.memories


def template_placeholder(store: Path) -> list[str]:
    """An index line naming a file pattern, not a file."""
    w = _Writer(store)
    w.memory("billing_project.md", _flat("billing_project", "billing module state", "project"),
             WHY_HOW)
    w.index(["- [Billing](billing_project.md) — where billing stands",
             "- [Module template]({module}_project.md) — one file per module, named so"])
    return w.memories


def links_leaving_the_store(store: Path) -> list[str]:
    """An index line pointing at a file beside the store, not in it."""
    w = _Writer(store)
    w.memory("user_role.md", _flat("user_role", "an SRE", "user"), "On call weekly.\n")
    w.index(["- [User role](user_role.md) — who the user is",
             "- [Agent notes](../.agent/x.md) — kept by another tool"])
    return w.memories


def targets_with_spaces(store: Path) -> list[str]:
    """File names with spaces, linked in the forms Markdown allows, and once bare."""
    w = _Writer(store)
    for file in ("deploy notes.md", "on call.md", "raw notes.md"):
        w.memory(file, _flat(file.removesuffix(".md"), f"about {file}", "reference"), "Notes.\n")
    w.index(["- [Deploy notes](<deploy notes.md>) — angle brackets",
             "- [On call](on%20call.md) — percent-encoded",
             "- [Raw notes](raw notes.md) — written bare"])
    return w.memories


def link_in_a_code_span(store: Path) -> list[str]:
    """The index explains its own format inside a code span: not a link."""
    w = _Writer(store)
    w.memory("user_role.md", _flat("user_role", "a designer", "user"), "Uses Figma.\n")
    w.index(["Entries look like `[Title](file.md) — hook`, one line each.", "",
             "- [User role](user_role.md) — who the user is"])
    return w.memories


def plaintext_token_in_the_index(store: Path) -> list[str]:
    """A credential pasted into an index line."""
    w = _Writer(store)
    w.memory("reference_api.md", _flat("reference_api", "the billing API", "reference"),
             "Base URL https://billing.example.invalid\n")
    w.index([f"- [Billing API](reference_api.md) — key {FAKE_TOKEN}"])
    return w.memories


# --- layouts -------------------------------------------------------------------------------


def topics_and_skills_subfolders(store: Path) -> list[str]:
    """Memories only in subfolders, linked as `topics/x.md`: no memory at the top level."""
    w = _Writer(store)
    for file, kind in (("topics/api.md", "reference"), ("topics/database.md", "reference"),
                       ("skills/review.md", "feedback"), ("skills/deploy/steps.md", "project")):
        stem = file.rsplit("/", 1)[-1].removesuffix(".md")
        w.memory(file, _flat(stem, f"the {stem} notes", kind), f"About {stem}.\n{WHY_HOW}")
    w.index(["- [API](topics/api.md) — endpoints and auth",
             "- [Database](topics/database.md) — schema notes",
             "- [Review](skills/review.md) — how reviews go"])
    return w.memories  # skills/deploy/steps.md is left unlinked


def memory_folder_is_a_git_repository(store: Path) -> list[str]:
    """The memory folder is a git checkout with a README, a CLAUDE.md and sync scripts."""
    import git

    w = _Writer(store)
    w.memory("user_role.md", _flat("user_role", "a researcher", "user"), "Writes Rust.\n")
    w.index(["- [User role](user_role.md) — who the user is"])
    w.write("README.md", "# My Claude memory\n\nSynced across machines with scripts/sync.sh.\n")
    w.write("CLAUDE.md", "Keep memories short.\n")
    w.write("scripts/sync.sh", "#!/bin/sh\ngit pull --rebase && git push\n")
    w.write(".gitignore", "*.tmp\n")
    repo = git.Repo.init(store, initial_branch="main")
    repo.index.add([p.relative_to(store).as_posix() for p in sorted(store.rglob("*"))
                    if p.is_file() and ".git" not in p.relative_to(store).parts])
    repo.index.commit("memory")
    # git keeps no Markdown of its own, but other tools write there: never a memory.
    w.write(".git/info/notes.md", "not a memory\n")
    return w.memories


def obsidian_vault(store: Path) -> list[str]:
    """An Obsidian-like vault: thousands of notes in folders, area notes listing them,
    `[[wiki]]` links between notes, and the vault's own settings folder."""
    w = _Writer(store)
    w.write(".obsidian/app.json", '{"legacyEditor": false}\n')
    w.write(".obsidian/workspace.json", '{"main": {}}\n')
    per_area = VAULT_NOTES // len(VAULT_AREAS)
    index = []
    for area in VAULT_AREAS:
        listed = []
        for number in range(per_area):
            slug = f"{area}-note-{number:04}"
            neighbour = f"{area}-note-{(number + 1) % per_area:04}"
            w.write(f"notes/{area}/{slug}.md",
                    f"---\nname: {slug}\ndescription: {area} finding {number}\ntype: reference\n"
                    f"---\n\n{area} observation {number * 7919 % 10007} see [[{neighbour}]]\n")
            if number % 2 == 0:  # area notes list every other note; the rest only by wiki link
                listed.append(f"- [{slug}]({slug}.md)")
        w.write(f"notes/{area}/_area.md",
                f"---\nname: {area}\ndescription: the {area} area\ntype: reference\n---\n\n"
                + "\n".join(listed) + "\n")
        index.append(f"- [{area}](notes/{area}/_area.md) — the {area} area")
    w.index(index)
    return w.memories


TAG_CODES = tuple(f"{letter}{number:02}" for letter in "ABCDEF" for number in (7, 12, 33, 41, 58))
DAILY_TEMPLATE = """---
title: "Daily {day}"
created: {day}
type: daily
tags: [daily, journal]
---

# {day}

## Tasks
- [ ]

## Log
{log}
## Linked today
```dataview
LIST FROM "" WHERE file.cday = date({day})
SORT file.name
```
"""
TAG_PAGE = """---
tags: [tag-page]
code: {code}
---

# tag-{code}

Notes filed under #{code}:

```dataview
LIST FROM #{code}
SORT file.mtime DESC
```
"""
TRADE_CLASSES = ("A B C39", "B C39", "ASB B C39", "ASB C39", "A B C10 C39", "B C10 C39")
TRADE_PAGE = """---
type: trade
tags: ["#trade/{slug}"]
---

# {heading}

Every contractor holding these license classes.

## Linked notes
```dataview
LIST FROM #trade/{slug}
```
"""
CONTACT_CARD = """---
name: {name}
license: "{license}"
tags: [contact, trade]
---

## Contact
- Phone:
- Email:

## Notes
Does the wiring on the Elm Street kitchen; books two weeks ahead.
Prefers texts to calls.
"""
KITCHEN = """---
tags: [{tags}]
status: active
---

# Kitchen remodel

Budget agreed with the contractor: cabinets first, then the counters.
The electrician ([[Jordan Lee - electrician]]) needs the walls open by the 20th.
Keep the old oak floor; sand and oil it once the cabinets are in.
The window over the sink stays where it is (load-bearing wall).
Paint: warm white on the walls, the ceiling one shade lighter.

```dataview
LIST FROM #kitchen
SORT file.name
```
{extra}"""


def template_vault(store: Path) -> list[str]:
    """An Obsidian-style vault made from templates, beside Claude's memories: daily notes of
    different days (some of them just the template), tag pages one per code, trade pages
    one per set of license classes (`A B C39`, `B C39`: no number tells them apart), two contact
    cards alike but for their license numbers, a project note with its older copy in the
    archive (every line of it in the current one), and two reworded notes on one topic."""
    w = _Writer(store)
    w.write("Templates/Daily.md", DAILY_TEMPLATE.format(day="{{date}}", log="- \n"))
    logs = ["- Inbox zero.\n", "", "- Called the electrician about the [[Kitchen remodel]].\n",
            "- Compared the quotes with [[Archive/Kitchen remodel]].\n"]
    for day in range(1, 31):
        w.write(f"Daily/2026-05-{day:02}.md",
                DAILY_TEMPLATE.format(day=f"2026-05-{day:02}", log=logs[day % len(logs)]))
    for code in TAG_CODES:
        w.write(f"Tags/tag-{code}.md", TAG_PAGE.format(code=code))
    for classes in TRADE_CLASSES:  # codes without a digit: `A B C39` and `B C39` differ
        w.write(f"Trades/{classes}.md", TRADE_PAGE.format(
            slug=classes.lower().replace(" ", "-"), heading=classes.replace(" ", " | ")))
    for trade, license in (("electrician", "EL-40213"), ("plumber", "PL-77120")):
        w.write(f"Contacts/Jordan Lee - {trade}.md",
                CONTACT_CARD.format(name=f"Jordan Lee - {trade}", license=license))
    w.write("Projects/Kitchen remodel.md", KITCHEN.format(
        tags="project, kitchen",
        extra="\nCounters ordered; delivery on 2026-06-12.\n"))
    w.write("Archive/Kitchen remodel.md", KITCHEN.format(tags="project, archive", extra=""))
    w.memory("feedback_backups.md", _flat("backups", "back up the vault before a bulk edit",
                                          "feedback"),
             "Back up the whole vault before any bulk edit or plugin update.\n"
             "**Why:** a plugin update once rewrote every daily note's frontmatter.\n"
             "**How to apply:** copy the vault folder first, then run the edit.\n")
    w.memory("feedback_vault_backup.md", _flat("vault-backup", "back up the vault first",
                                               "feedback"),
             "Always back up the vault before a bulk edit or a plugin update.\n"
             "**Why:** a plugin update once rewrote every daily note's frontmatter.\n"
             "**How to apply:** copy the vault folder first, then run the edit.\n")
    w.index(["- [Backups](feedback_backups.md) — back up the vault before a bulk edit",
             "- [Kitchen, first plan](Archive/Kitchen%20remodel.md) — as first agreed"])
    return w.memories


def metrics_beside_memories(store: Path) -> list[str]:
    """`.jsonl` metrics files next to the memories: not memories."""
    w = _Writer(store)
    w.memory("user_role.md", _flat("user_role", "a data scientist", "user"), "Uses Polars.\n")
    w.index(["- [User role](user_role.md) — who the user is"])
    w.write("metrics.jsonl", '{"recalls": 3}\n')
    w.write("stats/2026-05.jsonl", '{"writes": 12}\n')
    return w.memories


def assistant_mode_logs(store: Path) -> list[str]:
    """Assistant mode: daily logs under logs/YYYY/MM/ and session notes, beside memories."""
    w = _Writer(store)
    w.memory("user_role.md", _flat("user_role", "a founder", "user"), "Runs sales.\n")
    w.index(["- [User role](user_role.md) — who the user is"])
    for day in (24, 25, 26):
        w.write(f"logs/2026/05/2026-05-{day}.md",
                f"- 09:{day} planned the day\n- 17:{day} shipped item {day}\n")
    w.write("sessions/2026-05-26-standup.md", "- standup notes for 2026-05-26\n")
    return w.memories


def team_memory(store: Path) -> list[str]:
    """team/ with its own index, one team memory left out of it."""
    w = _Writer(store)
    w.memory("user_role.md", _flat("user_role", "a tech lead", "user"), "Leads four.\n")
    w.index(["- [User role](user_role.md) — who the user is"])
    w.memory("team/conventions.md", _flat("conventions", "team code conventions", "feedback"),
             WHY_HOW)
    w.memory("team/oncall.md", _flat("oncall", "team on-call rules", "reference"), "Pager.\n")
    w.memory("team/release.md", _flat("release", "how the team releases", "project"), WHY_HOW)
    w.index(["- [Conventions](conventions.md) — code conventions",
             "- [On call](oncall.md) — on-call rules"], file="team/MEMORY.md")
    return w.memories


SHAPES: dict[str, Callable[[Path], list[str]]] = {
    builder.__name__: builder
    for builder in (
        mixed_frontmatter, foreign_types_and_cjk_names, bom_on_every_file, crlf_files,
        negative_signal_description, old_store_without_frontmatter, index_under_type_headings,
        long_index_lines, second_level_index, unlinked_archive_index, cycle_of_unreachable_notes,
        second_level_index_past_the_cut, escaped_pipes_in_tables, wiki_links_to_snake_case,
        template_placeholder,
        links_leaving_the_store, targets_with_spaces, link_in_a_code_span,
        plaintext_token_in_the_index, topics_and_skills_subfolders,
        memory_folder_is_a_git_repository, obsidian_vault, template_vault,
        metrics_beside_memories,
        assistant_mode_logs, team_memory,
    )
}


def long_lines(store: Path) -> list[int]:
    """The 1-based numbers of the index lines over 150 UTF-16 units."""
    lines = (store / "MEMORY.md").read_text(encoding="utf-8").lstrip(BOM).split("\n")
    return [number for number, line in enumerate(lines, start=1) if utf16_width(line) > 150]


def build(store: Path, shape: str) -> list[str]:
    store.mkdir(parents=True, exist_ok=True)
    files = SHAPES[shape](store)
    assert len(files) == len(set(files)), "a builder wrote a memory twice"
    return sorted(files)
