"""Demo memories: realistic developer memories built from small phrase tables.

Every choice comes from a seeded `random.Random`, so a build is reproducible. The webapp
store is made to show every finding memtui reports; the other stores are small and healthy.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass

from rapidfuzz import fuzz, process, utils

FORMS = ("none", "flat", "nested")
_YAML_SPECIAL = re.compile(r"[:#\[\]{}&*!|>'\"%@`,?]|^\s|\s$")


@dataclass(frozen=True)
class MemorySpec:
    file: str
    type: str | None
    title: str
    description: str | None
    body: str
    form: str = "flat"
    hook: str = ""  # the index line's text after the link; defaults to the description
    age_days: float = 30.0  # how long ago it was last written

    @property
    def index_line(self) -> str:
        return f"- [{self.title}]({self.file}) — {self.hook or self.description or self.title}"


def _scalar(value: str) -> str:
    return json.dumps(value, ensure_ascii=False) if _YAML_SPECIAL.search(value) else value


def render(memory: MemorySpec, session_id: str, modified: str) -> str:
    """The file text in the memory's frontmatter form (none, flat or nested)."""
    body = memory.body.strip() + "\n"
    if memory.form == "none":
        return f"# {memory.title}\n\n{body}"
    lines = ["---", f"name: {_scalar(memory.title)}"]
    if memory.form == "nested":
        lines[1] = f"name: {re.sub(r'[^a-z0-9]+', '-', memory.title.lower()).strip('-')}"
    if memory.description is not None:
        lines.append(f"description: {_scalar(memory.description)}")
    if memory.form == "flat":
        if memory.type:
            lines.append(f"type: {memory.type}")
    else:
        lines += ["metadata:", f"  type: {memory.type}", "  node_type: memory",
                  f"  originSessionId: {session_id}", f"  modified: {modified}"]
    return "\n".join([*lines, "---", "", body])


def render_index(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


# --- phrase tables -------------------------------------------------------------------------

PEOPLE = ("Priya", "Marcus", "Lena", "Tomás", "Aiko", "Dmitri", "Fatima", "Jonah", "Sofia",
          "Kwame", "Ines", "Raj")
CHANNELS = ("#webapp-dev", "#payments-oncall", "#frontend", "#infra-help", "#release-train",
            "#search-team", "#data-platform")
COMPONENTS = (
    ("checkout", "Checkout"), ("search", "Search"), ("auth", "Login and SSO"),
    ("billing", "Billing"), ("notifications", "Notifications"), ("uploads", "Image uploads"),
    ("admin", "Admin dashboard"), ("flags", "Feature flags"), ("ratelimit", "Rate limiter"),
    ("sessions", "Session store"), ("email", "Email templates"), ("export", "CSV export"),
    ("webhooks", "Outgoing webhooks"), ("i18n", "Translations"), ("onboarding", "Onboarding"),
    ("analytics", "Analytics events"), ("cdn", "Image CDN"), ("gateway", "API gateway"),
    ("jobs", "Background jobs"), ("cache", "Response cache"), ("graphql", "GraphQL schema"),
    ("mobile", "Mobile web"), ("a11y", "Accessibility"), ("ssr", "Server rendering"),
    ("presence", "Presence (websockets)"), ("audit", "Audit log"), ("invoices", "Invoice PDFs"),
    ("teams", "Team invites"),
)
CHOICES = (
    ("server-side pagination", "infinite scroll"),
    ("Postgres advisory locks", "Redis locks"),
    ("a nightly batch", "a streaming consumer"),
    ("Zod schemas at the API edge", "hand-written validators"),
    ("optimistic updates", "a spinner on every save"),
    ("a feature flag per tenant", "one global toggle"),
    ("idempotency keys on every POST", "client-side de-duplication"),
    ("signed URLs that expire after 15 minutes", "public bucket paths"),
    ("SQS with a dead-letter queue", "cron-driven retries"),
    ("CSS modules", "a utility-class framework"),
    ("cursor-based ids", "offset pagination"),
    ("a read replica for reports", "the primary database"),
    ("server-sent events", "long polling"),
    ("React Query caching", "a hand-rolled store"),
    ("soft deletes with a 30-day purge", "hard deletes"),
)
WHYS = (
    "the old approach double-charged three customers during the {month} incident",
    "legal asked for an audit trail after the SOC 2 review",
    "{person} measured a p95 of {ms} ms with the alternative on the staging board",
    "the mobile team depends on the current response shape until their {month} release",
    "support tickets about it dropped by a third once it shipped",
    "the vendor contract caps us at {n} requests a minute",
    "it was the root cause of the outage written up in WEB-{ticket}",
    "product wants parity with the iOS app before the pricing launch",
    "a migration on the large tenants took {n} minutes and locked the table",
    "{person} owns the on-call rotation for it and asked to keep it boring",
    "the accessibility audit flagged the previous behaviour as a blocker",
    "it keeps the staging and production configs identical",
)
HOWS = (
    "check with {person} in {channel} before changing it",
    "keep new behaviour behind the `{slug}_v2` flag until the rollout reaches 100%",
    "add a regression test under `tests/{slug}/` whenever this code changes",
    "mention WEB-{ticket} in the PR description so the history stays linked",
    "run `pnpm test:{slug}` locally; CI runs it only nightly",
    "prefer extending the existing module over adding a parallel one",
    "ask before touching the database schema for it",
    "treat a change here as a release-note item",
    "update the runbook link in the README when the flow changes",
)
INCIDENTS = (
    ("returned stale prices for about {n} minutes", "a cache key that ignored the currency"),
    ("dropped events after a deploy", "a consumer that acknowledged before writing"),
    ("sent duplicate emails to {n} users", "a retry without an idempotency key"),
    ("timed out for large tenants", "an N+1 query in the serializer"),
    ("logged users out across devices", "a session secret rotated without overlap"),
    ("served broken thumbnails", "a CDN rule that stripped the query string"),
    ("showed another team's data in a dropdown", "a missing tenant filter in one resolver"),
    ("paged on-call {n} times in one night", "an alert threshold set on the average, not p99"),
)
DASHBOARDS = ("Grafana", "Datadog", "Metabase", "Sentry", "Honeycomb")
FACTS = (
    "{label} is owned by {person}; reviews from {other} are also accepted.",
    "{label} has a hard budget of {ms} ms at p95 on the API side.",
    "{label} is still on the legacy Express router; the migration is tracked in WEB-{ticket}.",
    "{label} ships every Tuesday with the release train, never on Fridays.",
    "{label} has {n} known flaky tests; they are quarantined with `@flaky` and listed in WEB-{ticket}.",
    "{label} reads its settings from `config/{slug}.yaml`, not from environment variables.",
)


def _fill(template: str, rng: random.Random, slug: str = "", label: str = "") -> str:
    return template.format(
        person=rng.choice(PEOPLE), other=rng.choice(PEOPLE), channel=rng.choice(CHANNELS),
        month=rng.choice(("March", "April", "June", "August", "October")),
        ms=rng.choice((120, 180, 250, 400, 800)), n=rng.choice((3, 7, 12, 40, 90, 300)),
        ticket=rng.randint(1000, 4999), slug=slug, label=label,
    )


def _in_sentence(label: str) -> str:
    """A component's name mid-sentence: lower case, acronyms kept ("API gateway")."""
    return " ".join(word if sum(c.isupper() for c in word) > 1 else word.lower()
                    for word in label.split(" "))


def _generated(rng: random.Random) -> list[MemorySpec]:
    """The bulk: decisions, incidents, facts and references for each component."""
    out: list[MemorySpec] = []
    for slug, label in COMPONENTS:
        choice, alt = rng.choice(CHOICES)
        out.append(MemorySpec(
            f"project_{slug}_decision.md", "project", f"{label}: {choice}",
            f"Why {_in_sentence(label)} uses {choice} instead of {alt}",
            f"{label} uses {choice}, not {alt}.\n\n"
            f"**Why:** {_fill(rng.choice(WHYS), rng, slug)}.\n\n"
            f"**How to apply:** {_fill(rng.choice(HOWS), rng, slug)}.",
        ))
        what, cause = rng.choice(INCIDENTS)
        what = _fill(what, rng)
        out.append(MemorySpec(
            f"project_{slug}_incident.md", "project", f"{label} incident",
            f"{label} {what}; root cause was {cause}",
            f"{label} {what} (postmortem WEB-{rng.randint(1000, 4999)}). "
            f"Root cause: {cause}.\n\n"
            f"**Why:** {_fill(rng.choice(WHYS), rng, slug)}.\n\n"
            f"**How to apply:** {_fill(rng.choice(HOWS), rng, slug)}.",
        ))
        fact = _fill(rng.choice(FACTS), rng, slug, label)
        out.append(MemorySpec(
            f"project_{slug}_facts.md", "project", f"{label} facts", fact,
            f"{fact}\n\n**Why:** {_fill(rng.choice(WHYS), rng, slug)}.\n\n"
            f"**How to apply:** {_fill(rng.choice(HOWS), rng, slug)}.",
        ))
        board = rng.choice(DASHBOARDS)
        number = rng.randint(10, 99)
        out.append(MemorySpec(
            f"reference_{slug}_dashboard.md", "reference", f"{label} dashboard ({board})",
            f"{board} board for {_in_sentence(label)} latency and errors",
            f"{board}: https://{board.lower()}.acme-internal.dev/d/{slug}-{number} "
            f"(panel '{label} p95'). Alerts for {_in_sentence(label)} page {_fill('{person}', rng)} "
            f"first, then {_fill('{channel}', rng)}.",
        ))
        out.append(MemorySpec(
            f"reference_{slug}_tracker.md", "reference", f"{label} issues",
            f"Where {_in_sentence(label)} bugs and runbooks live",
            f"Bugs: Linear project WEB, label `{slug}`. Runbook: "
            f"https://wiki.acme-internal.dev/runbooks/{slug}. "
            f"Escalation: {_fill('{channel}', rng)}, owner {_fill('{person}', rng)}.",
        ))
        rule_why = _fill(rng.choice(WHYS), rng, slug)
        out.append(MemorySpec(
            f"feedback_{slug}_reviews.md", "feedback", f"Reviewing {_in_sentence(label)} changes",
            f"What the user wants checked before any {_in_sentence(label)} change lands",
            f"For {_in_sentence(label)} changes, {_fill(rng.choice(HOWS), rng, slug)}.\n\n"
            f"**Why:** {rule_why}.\n\n"
            f"**How to apply:** say in the summary which of these checks ran.",
        ))
        for number in range(3):
            fact = _fill(rng.choice(FACTS), rng, slug, label)
            choice, alt = rng.choice(CHOICES)
            out.append(MemorySpec(
                f"project_{slug}_note_{number + 1}.md", "project", f"{label} note {number + 1}",
                f"{label}: {choice} over {alt}",
                f"{fact} For {_in_sentence(label)} we settled on {choice} over {alt}.\n\n"
                f"**Why:** {_fill(rng.choice(WHYS), rng, slug)}.\n\n"
                f"**How to apply:** {_fill(rng.choice(HOWS), rng, slug)}.",
            ))
    return out


def _comparable(memory: MemorySpec) -> str:
    """The text memtui's duplicate check compares, tokens pre-sorted so that a plain ratio
    equals its token-sort ratio."""
    text = utils.default_process(f"{memory.description or ''} {' '.join(memory.body.split())[:400]}")
    return " ".join(sorted(text.split()))


def _distinct(memories: list[MemorySpec], limit: int, cutoff: float = 85.0) -> list[MemorySpec]:
    """Keep memories that are not near-duplicates of one already kept (the demo has one
    intended duplicate pair; generated text must not add accidental ones)."""
    kept: list[MemorySpec] = []
    texts: list[str] = []
    for memory in memories:
        text = _comparable(memory)
        if process.extractOne(text, texts, scorer=fuzz.ratio,
                              score_cutoff=cutoff) is None:
            kept.append(memory)
            texts.append(text)
        if len(kept) == limit:
            break
    return kept


HANDWRITTEN = (
    MemorySpec(
        "user_role.md", "user", "User role",
        "Senior full-stack engineer on the webapp team; strong in Go and Postgres, newer to React",
        "Senior full-stack engineer on the webapp team since 2023. Deep Go and Postgres "
        "experience; newer to React and the frontend build. Explain frontend tooling choices, "
        "skip explanations of SQL.",
        form="flat",
    ),
    MemorySpec(
        "user_preferences.md", "user", "How the user likes answers",
        "Short answers, diffs over prose, no summaries of what was just done",
        "Prefers short answers and a diff over a description of the diff. Does not want a "
        "recap at the end of each task. Works in Berlin time (CET); standup is at 09:30.",
        form="nested",
    ),
    MemorySpec(
        "feedback_testing.md", "feedback", "Integration tests use a real database",
        "Integration tests hit a real Postgres; 不要用 mock for the data layer",
        "Integration tests must hit a real Postgres (`docker compose up db`); 不要用 mock for "
        "the repository layer.\n\n**Why:** a mocked repository hid a broken migration that "
        "reached production in the March release.\n\n**How to apply:** use the `db` fixture "
        "from `tests/conftest.ts`; mocks are fine only for third-party HTTP APIs.",
        form="nested",
    ),
    MemorySpec(
        "feedback_linter.md", "feedback", "Run the linter before finishing",
        "Always run `pnpm lint` before saying a task is done",
        "Always run `pnpm lint` (and fix what it reports) before saying a task is done.\n\n"
        "**Why:** the user kept finding lint failures in CI after \"done\".\n\n"
        "**How to apply:** run it as the last step, after the tests.",
        form="flat",
    ),
    MemorySpec(
        "feedback_pnpm.md", "feedback", "Use pnpm",
        "Use pnpm, never npm or yarn, in this repository",
        "Use pnpm, never npm or yarn, in this repository: `pnpm install`, `pnpm add -D`.\n\n"
        "**Why:** npm rewrote the lockfile and broke the workspace links.\n\n"
        "**How to apply:** every install or script command goes through pnpm.",
        form="flat",
    ),
    MemorySpec(
        "feedback_use_pnpm.md", "feedback", "pnpm only",
        "Use pnpm, never npm or yarn, in this repo",
        "Use pnpm, never npm or yarn, in this repo: `pnpm install`, `pnpm add -D`.\n\n"
        "**Why:** npm rewrote the lockfile and broke the workspace links.\n\n"
        "**How to apply:** every install or script command goes through pnpm.",
        form="nested",
    ),
    MemorySpec(
        "feedback_commit_style.md", "feedback", "Commit messages",
        "Conventional commits with the Linear ticket in the footer",
        "Use conventional commits (`feat(checkout): …`) with `Refs: WEB-1234` in the footer.\n\n"
        "**How to apply:** one logical change per commit; never amend pushed commits.",
        form="flat",
    ),
    MemorySpec(
        "project_release_freeze.md", "project", "Release freeze",
        "Release freeze before the pricing launch; hotfixes only",
        "The release freeze starts next Thursday; after that only hotfixes approved by "
        "Marcus merge to main.\n\n**Why:** the pricing launch needs a stable week.\n\n"
        "**How to apply:** land feature work before the freeze or keep it behind a flag.",
        form="nested",
    ),
    MemorySpec(
        "project_flaky_e2e.md", "project", "Flaky checkout e2e",
        "The checkout e2e suite started flaking after the Playwright bump",
        "The checkout e2e suite started flaking yesterday after the Playwright bump to 1.49; "
        "the failures are timeouts on the 3-D Secure iframe.\n\n**Why:** it blocks merges "
        "when it fails twice.\n\n**How to apply:** rerun once; if it fails again, check WEB-4211.",
        form="flat",
    ),
    MemorySpec(
        "project_search_backend.md", "project", "Search backend move",
        "Search moves from Elasticsearch to Meilisearch",
        "上周 the team agreed to move search from Elasticsearch to Meilisearch; Aiko owns the "
        "migration.\n\n**Why:** the Elasticsearch cluster costs more than the rest of staging.\n\n"
        "**How to apply:** new search features target the Meilisearch adapter only.",
        form="flat",
    ),
    MemorySpec(
        "oncall_notes.md", "note", "On-call notes",
        "What to check first when paged for the webapp",
        "When paged: check the Grafana 'webapp-overview' board, then Sentry release health, "
        "then the queue depth in SQS. Most pages in the last quarter were the image CDN.",
        form="flat",
    ),
    MemorySpec(
        "reference_status_page.md", "reference", "Status page", None,
        "Public status page: https://status.acme.dev (Statuspage). Incidents are posted by "
        "whoever is incident commander; templates live in the wiki.",
        form="flat",
    ),
)

# Long hooks: index entries over 150 and over 200 characters.
LONG_HOOKS = {
    "project_checkout_decision.md": (
        "checkout keeps its own pricing rules because the tax service cannot price bundles "
        "yet, see the decision record and the follow-up ticket for details"
    ),
    "project_billing_incident.md": (
        "billing incident: the invoice job retried without an idempotency key and charged "
        "customers twice; refunds were issued manually by support over two days and the job "
        "now refuses to run without a key, see WEB-2210"
    ),
    "reference_gateway_dashboard.md": (
        "gateway dashboards: the Datadog board has latency per route, the Grafana board has "
        "saturation per pod, and the Sentry project has the 5xx traces; on-call should open "
        "all three before paging the platform team"
    ),
    "feedback_i18n_reviews.md": (
        "translations: never concatenate translated strings, always use ICU messages with "
        "named placeholders so that right-to-left locales and plurals work properly"
    ),
}

# Written by the demo's sessions (see sessions.py), oldest first.
CREATED_RECENTLY = ("project_search_backend.md", "feedback_pnpm.md", "feedback_linter.md")

DANGLING = (
    "- [Old CDN migration](project_old_cdn.md) — moved images from the old CDN to the new bucket",
    "- [Storybook conventions](feedback_storybook.md) — stories live beside components",
    "- [Payment provider sandbox](reference_stripe_sandbox.md) — test cards and webhooks",
)


@dataclass(frozen=True)
class StorePlan:
    memories: tuple[MemorySpec, ...]
    index: tuple[str, ...]

    @classmethod
    def fully_indexed(cls, memories: tuple[MemorySpec, ...]) -> StorePlan:
        """Every memory with its own index line, in order: a healthy store."""
        return cls(memories, tuple(m.index_line for m in memories))


def webapp_plan(total: int = 230, unindexed: int = 12) -> StorePlan:
    """~230 memories; the index runs past the cut, misses some files, names missing ones."""
    rng = random.Random(20260101)
    bulk = _distinct(_generated(rng), total - len(HANDWRITTEN))
    # Legacy files without frontmatter are a minority; the rest alternate flat and nested.
    forms = ["none" if i % 7 == 0 else FORMS[1 + i % 2] for i in range(len(bulk))]
    bulk = [
        MemorySpec(m.file, m.type, m.title, m.description, m.body, form,
                   LONG_HOOKS.get(m.file, ""))
        for m, form in zip(bulk, forms, strict=True)
    ]
    # Handwritten memories are spread through the history; the ones sessions created
    # recently are appended last, so they are the first the loaded cut drops.
    older = [m for m in HANDWRITTEN if m.file not in CREATED_RECENTLY]
    ordered = list(bulk)
    for position, memory in enumerate(older):
        ordered.insert(position * len(bulk) // len(older), memory)
    ordered += sorted((m for m in HANDWRITTEN if m.file in CREATED_RECENTLY),
                      key=lambda m: CREATED_RECENTLY.index(m.file))
    count = len(ordered)
    dated = [
        MemorySpec(m.file, m.type, m.title, m.description, m.body, m.form, m.hook,
                   age_days=round(12 + 108 * (count - 1 - i) / (count - 1), 3))
        for i, m in enumerate(ordered)
    ]
    # A dream dropped some pointers; extraction later wrote files it never indexed.
    skipped = {dated[i].file for i in range(5, count, count // unindexed)[:unindexed]}
    index = [m.index_line for m in dated if m.file not in skipped]
    for offset, line in enumerate(DANGLING):
        index.insert(40 + offset * 50, line)
    return StorePlan(tuple(dated), tuple(index))


def healthy_plan() -> StorePlan:
    """A small store well inside every limit (the cli-tool project)."""
    memories = (
        MemorySpec("user_role.md", "user", "User role",
                   "Maintains the release CLI in Rust; knows clap and tokio well",
                   "Maintains the release CLI (Rust, clap, tokio). Prefers `cargo nextest`.",
                   age_days=40),
        MemorySpec("feedback_errors.md", "feedback", "Error messages",
                   "Every user-facing error is one sentence with the fix",
                   "Every user-facing error is one sentence that says what to do.\n\n"
                   "**Why:** users paste errors into tickets verbatim.\n\n"
                   "**How to apply:** wrap errors with `anyhow::Context` at the command layer.",
                   age_days=30),
        MemorySpec("feedback_snapshots.md", "feedback", "Snapshot tests",
                   "CLI output is tested with insta snapshots, reviewed with cargo insta",
                   "CLI output is covered by `insta` snapshots.\n\n**Why:** help text regressions "
                   "slipped through twice.\n\n**How to apply:** run `cargo insta review` and "
                   "commit the `.snap` files with the change.", age_days=21),
        MemorySpec("project_signing.md", "project", "Release signing",
                   "Release binaries are signed with cosign keyless in CI",
                   "Release binaries are signed with cosign (keyless) in the release workflow.\n\n"
                   "**Why:** the security review in 2026-09 required provenance.\n\n"
                   "**How to apply:** never publish from a laptop; tag and let CI release.",
                   age_days=12),
        MemorySpec("reference_ci.md", "reference", "CI and releases",
                   "GitHub Actions workflows and the crates.io page",
                   "CI: `.github/workflows/ci.yml`; releases: `release.yml`. Crate page: "
                   "https://crates.io/crates/acme-release.", age_days=8),
        MemorySpec("project_msrv.md", "project", "Minimum Rust version",
                   "MSRV is 1.80, checked by a CI job",
                   "The minimum supported Rust version is 1.80.\n\n**Why:** the Debian package "
                   "builds with the distro toolchain.\n\n**How to apply:** no newer std APIs "
                   "without raising the MSRV in Cargo.toml and the CI matrix.", age_days=3),
    )
    return StorePlan.fully_indexed(memories)


def resting_plan() -> StorePlan:
    """A store whose transcripts were all swept: a notes app nobody opened for weeks."""
    memories = (
        MemorySpec("project_sync.md", "project", "Sync design",
                   "Notes sync through CRDTs (Automerge), no server-side merge",
                   "Notes sync through Automerge documents; the server only stores blobs.\n\n"
                   "**Why:** offline edits on two devices must never lose text.\n\n"
                   "**How to apply:** every new field goes into the Automerge schema first.",
                   age_days=70),
        MemorySpec("feedback_swiftui.md", "feedback", "SwiftUI previews",
                   "Keep every view previewable with fixture data",
                   "Every SwiftUI view needs a working preview with fixture data.\n\n"
                   "**Why:** the designer reviews screens from previews.\n\n"
                   "**How to apply:** add a `#Preview` with `Note.samples`.", age_days=64),
        MemorySpec("reference_testflight.md", "reference", "TestFlight",
                   "TestFlight group 'Friends' gets every build",
                   "TestFlight: group 'Friends' gets every build from the `beta` lane.",
                   age_days=58),
    )
    return StorePlan.fully_indexed(memories)


def stranded_plan() -> StorePlan:
    """Written by a newer build into a per-worktree store that nothing will load again."""
    memories = (
        MemorySpec("project_auth_tokens.md", "project", "Refresh token rotation",
                   "Refresh tokens rotate on every use; reuse revokes the family",
                   "Refresh tokens rotate on every use; presenting an old one revokes the whole "
                   "token family.\n\n**Why:** required by the security review of the SSO work.\n\n"
                   "**How to apply:** keep `token_family_id` on every refresh token row.",
                   form="nested", age_days=4),
        MemorySpec("feedback_auth_tests.md", "feedback", "Auth tests",
                   "Auth flows are tested against the local Keycloak, not a stub",
                   "Auth flows are tested against the local Keycloak container, never a stub.\n\n"
                   "**Why:** the stub accepted expired tokens.\n\n"
                   "**How to apply:** `docker compose up keycloak` before `pnpm test:auth`.",
                   form="nested", age_days=3),
    )
    return StorePlan.fully_indexed(memories)
