"""The demo's sessions: who worked where, what they asked, which memories they wrote.

Every transcript folder discovery must handle is here: the main checkout, a subdirectory,
live worktrees, a deleted worktree (mapped only by its memory writes), another project,
and a folder whose cwd is gone with no memory write at all.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tui.claude.paths import sanitize
from tui.demo.sessionlog import SessionLog, demo_uuid

DAY = 86_400.0


@dataclass(frozen=True)
class Places:
    """Real paths (already normalized) the sessions ran in, and the stores they used."""

    projects: Path
    webapp: str
    frontend: str
    feature_auth: str
    fix_cache: str
    deleted_worktree: str
    cli_tool: str
    gone_project: str
    webapp_store: Path
    stranded_store: Path
    cli_store: Path


class _Writer:
    def __init__(self, places: Places, now: float) -> None:
        self.places = places
        self.now = now
        self.written: dict[str, float] = {}

    def session(self, cwd: str, key: str, days_ago: float, branch: str = "main") -> SessionLog:
        log = SessionLog(demo_uuid("session", key), cwd, branch, self.now - days_ago * DAY)
        log.snapshot()
        return log

    def save(self, log: SessionLog, *, cut_short: bool = False) -> Path:
        for path, when in log.touched.items():
            self.written[path] = max(when, self.written.get(path, when))
        folder = self.places.projects / sanitize(log.cwd)
        return log.dump(folder / f"{log.session_id}.jsonl", cut_short=cut_short)


def _flaky_versions(final: str) -> tuple[str, str]:
    """(before, the main checkout's edit) of the memory a worktree session overwrote."""
    detail = "; the failures are timeouts on the 3-D Secure iframe"
    before = final.replace(detail, "")
    theirs = before.rstrip("\n") + "\n\nAiko pinned Playwright to 1.48 on main until WEB-4211 lands.\n"
    return before, theirs


def write_sessions(places: Places, now: float, webapp: dict[str, str],
                   stranded: dict[str, str], cli: dict[str, str]) -> None:
    w = _Writer(places, now)
    store = places.webapp_store

    def mem(name: str) -> str:
        return str(store / name)

    log = w.session(places.webapp, "webapp-1", 8.5)
    log.user("The checkout e2e tests keep timing out locally. Can you look? "
             "Also: use pnpm not npm in this repo, npm broke the lockfile last time.")
    log.say("I'll check the Playwright config first, and I'll remember the pnpm rule.")
    log.write(mem("feedback_pnpm.md"), webapp["feedback_pnpm.md"], None)
    log.say("Saved. The timeouts come from the 3-D Secure iframe waiting on the sandbox.")
    log.summary("Checkout e2e timeouts and the pnpm rule")
    w.save(log)

    log = w.session(places.webapp, "webapp-2", 6.1)
    log.user("remember to always run the linter before you tell me you're done")
    index = webapp["MEMORY.md"]
    log.read(mem("MEMORY.md"), index[: index.index("- [Run the linter")])
    log.write(mem("feedback_linter.md"), webapp["feedback_linter.md"], None)
    log.say("Noted: I'll run `pnpm lint` as the last step of every task.")
    log.user("Find where the cache headers for /api/products are set.")
    log.say("I'll ask an Explore agent to search the API package.")
    agent = SessionLog(log.session_id, places.webapp, "main", log.clock, agent_id="a3f9c1e")
    agent.user("Find where Cache-Control headers are set for /api/products in api/.")
    agent.say("They are set in api/server.ts by the products route; no middleware overrides them.")
    agent.dump(places.projects / sanitize(places.webapp) / log.session_id / "subagents"
               / "agent-a3f9c1e.jsonl")
    log.say("The headers are set in `api/server.ts` by the products route.")
    log.title("Linter rule and product cache headers")
    w.save(log)

    before_testing = webapp["feedback_testing.md"].replace("; 不要用 mock for the data layer", "")
    log = w.session(places.webapp, "webapp-3", 3.4)
    log.user("Refactor the order repository to use the new query builder.")
    log.say("Starting with `api/orders/repository.ts`.")
    log.compact("This session is being continued from a previous conversation that ran out "
                "of context. Summary: the order repository now uses the query builder; "
                "integration tests still pending.")
    log.user("不要用 mock，集成测试要连真实的数据库。Please remember that.")
    log.read(mem("feedback_testing.md"), before_testing)
    log.write(mem("feedback_testing.md"), webapp["feedback_testing.md"], before_testing)
    log.say("Updated the testing memory: integration tests use the real Postgres from docker compose.")
    log.title("Order repository refactor")
    w.save(log)

    flaky = webapp["project_flaky_e2e.md"]
    before, main_edit = _flaky_versions(flaky)
    log = w.session(places.webapp, "webapp-4", 1.3)
    log.user("From now on put every new migration behind a feature flag, and don't touch "
             "the legacy billing module without asking me first.")
    log.read(mem("project_flaky_e2e.md"), before)
    log.write(mem("project_flaky_e2e.md"), main_edit, before)
    log.say("Understood. I also noted the Playwright pin in the flaky-e2e memory.")
    log.memory_saved(mem("project_release_freeze.md"), mem("MEMORY.md"))
    w.save(log)

    log = w.session(places.fix_cache, "fix-cache-1", 1.35, branch="fix-cache")
    log.worktree_state(places.webapp, "fix-cache")
    log.user("The product cache serves stale prices after a currency switch. Fix it.")
    log.read(mem("project_flaky_e2e.md"), before)
    log.say("The cache key ignores the currency; adding it. I'll also record the e2e detail.")
    log.clock += 0.1 * DAY  # long-running session: its write lands after the main checkout's
    log.write(mem("project_flaky_e2e.md"), flaky, main_edit)
    log.say("Done: the cache key includes the currency, with a regression test.")
    w.save(log)

    for key, days_ago, text in (
        ("frontend-1", 5.2, "Make the product grid keyboard accessible. Keep answers short, "
                            "I only want the diff."),
        ("frontend-2", 2.1, "Why does the frontend build take 90 seconds? Don't add new "
                            "dependencies for this."),
    ):
        log = w.session(places.frontend, key, days_ago)
        log.user(text)
        log.read(mem("user_preferences.md"), webapp["user_preferences.md"])
        log.say("Here is the diff.")
        if key == "frontend-1":
            log.memory_saved(mem("user_preferences.md"))
        w.save(log)

    for key, days_ago, files in (("auth-1", 4.2, ["project_auth_tokens.md"]),
                                 ("auth-2", 1.9, ["feedback_auth_tests.md"])):
        log = w.session(places.feature_auth, key, days_ago, branch="feature-auth")
        log.user("Implement refresh token rotation for the SSO login. Test against the "
                 "local Keycloak, not a stub.")
        for name in files:
            log.write(str(places.stranded_store / name), stranded[name], None)
        log.say("Rotation is in place; reuse of an old token revokes the family.")
        w.save(log)

    for key, days_ago in (("sse-1", 10.3), ("sse-2", 9.6)):
        log = w.session(places.deleted_worktree, key, days_ago, branch="spike-sse")
        log.worktree_state(places.webapp, "spike-sse")
        log.user("Spike: replace long polling with server-sent events for presence.")
        log.say("SSE works behind the gateway once buffering is off.")
        if key == "sse-1":
            log.write(mem("project_search_backend.md"), webapp["project_search_backend.md"], None)
        else:
            log.memory_saved(mem("oncall_notes.md"))
        w.save(log)

    log = w.session(places.webapp, "webapp-5", 0.05)
    log.user("use pnpm not npm — and run the tests for the checkout package.")
    log.say("Running `pnpm --filter checkout test`.")
    log.say("All 214 tests pass.")
    w.save(log, cut_short=True)

    cli_store = places.cli_store
    for key, days_ago, text, name in (
        ("cli-1", 7.4, "Errors should be one sentence that tells the user what to do. "
                       "Remember that for this project.", "feedback_errors.md"),
        ("cli-2", 2.6, "Bump the MSRV check to 1.80 and remember to always run cargo clippy "
                       "before committing.", None),
    ):
        log = w.session(places.cli_tool, key, days_ago)
        log.user(text)
        if name:
            log.write(str(cli_store / name), cli[name], None)
        else:
            log.memory_saved(str(cli_store / "project_msrv.md"))
        log.say("Done.")
        w.save(log)

    for key, days_ago in (("gone-1", 21.0), ("gone-2", 19.5)):
        log = w.session(places.gone_project, key, days_ago)
        log.user("Try Apollo federation for the catalogue service; just a spike, throw it away after.")
        log.say("The gateway composes both subgraphs; the spike is in `gateway/`.")
        w.save(log)

    # A memory file's mtime is the moment the last session wrote it.
    for path, when in w.written.items():
        os.utime(path, (when, when))
