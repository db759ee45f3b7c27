"""Credentials in memory: a `secret` error naming the kind and line, never the secret; the
app redacts them through the normal safe, undoable write."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import memory_text, painted, settle, snapshot, write_index, write_memory
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.memory.audit import audit_store
from tui.memory.curate import plan_redact_secrets
from tui.memory.secrets import find_secrets
from tui.memory.store import load_store
from tui.memory.writes import apply_changes, undo_last

GITHUB = "ghp_" + "R8kLq2Vn7TzX4mWp9Hs3Jd6Fb1Yc5Ng0Ue2A"  # fake, random-looking
AWS = "AKIA" + "Q3ZV7MJ2LR5TXN4B"
PASSWORD = "s3cretpass"
IBM_KEY = "Wq4Rz8Tn2Lp6Vx0Kb5Hm9Jc3Fd7Gs1Ya4Ue8Pk2No6Qi"  # 44 characters


@pytest.fixture
def store(claude_home, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    store = claude_home.store(project)
    write_index(store, ["# Memory",
                        f"- [CI](reference_ci.md) — the CI token is {GITHUB}\r",
                        "- [DB](project_db.md) — staging database"])
    write_memory(store, "reference_ci.md", memory_text("ci", "CI", "reference", "Uses Actions.\n"))
    write_memory(store, "project_db.md", memory_text(
        "db", "staging db", "project",
        f"Connect with postgres://admin:{PASSWORD}@db.internal:5432/app\nKey id {AWS}.\n"))
    return store


@pytest.mark.parametrize("line", [
    "Run the whole suite before pushing; it caught bugs.",
    "Fixed in commit 3f1c9a7e2b8d4c6f0a1e9b7d5c3a1f0e2d4c6b8a.",
    "The file lives at /home/user/projects/some-long-path/deeply/nested/file.md",
    "Session 4b9d2d55-0000-4000-8000-000000000001 wrote it.",
    "See https://docs.example.com/guide/getting-started#install for details.",
])
def test_ordinary_memory_text_is_not_a_secret(line):
    assert list(find_secrets(line)) == []


def test_each_credential_is_an_error_naming_kind_and_line_never_the_secret(store):
    findings = [f for f in audit_store(load_store(store)) if f.kind == "secret"]

    where = sorted((f.file, f.line, f.message.split(" on line")[0]) for f in findings)
    assert where == [("MEMORY.md", 2, "GitHub Token"),
                     ("project_db.md", 7, "Basic Auth Credentials"),
                     ("project_db.md", 8, "AWS Access Key")]
    assert all(f.severity == "error" for f in findings)
    for finding in findings:
        for secret in (GITHUB, AWS, PASSWORD):
            assert secret not in finding.message


def test_the_cli_reports_secrets_without_printing_them(store, claude_home):
    for extra in ([], ["--json"]):
        result = subprocess.run(
            [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
             "audit", str(store), *extra], capture_output=True, text=True,
            env={**os.environ, **claude_home.env}, timeout=60)
        assert result.returncode == 1
        for secret in (GITHUB, AWS, PASSWORD):
            assert secret not in result.stdout + result.stderr
    kinds = [f["kind"] for f in json.loads(result.stdout)["findings"]]
    assert kinds.count("secret") == 3


def test_redacting_changes_only_the_secrets_and_undo_brings_them_back(store):
    before = snapshot(store)
    plan = plan_redact_secrets(load_store(store))

    assert plan.summary == ["Redact the GitHub Token on line 2 of MEMORY.md.",
                            "Redact the Basic Auth Credentials on line 7 of project_db.md.",
                            "Redact the AWS Access Key on line 8 of project_db.md."]
    apply_changes(store, plan.changes, plan.label)

    after = snapshot(store)
    assert after["MEMORY.md"] == before["MEMORY.md"].replace(GITHUB.encode(), b"[REDACTED]")
    assert b"\r\n" in after["MEMORY.md"]  # line endings kept
    assert after["project_db.md"] == before["project_db.md"].replace(
        PASSWORD.encode(), b"[REDACTED]").replace(AWS.encode(), b"[REDACTED]")
    assert after["reference_ci.md"] == before["reference_ci.md"]
    assert not [f for f in audit_store(load_store(store)) if f.kind == "secret"]
    undo_last(store)
    assert snapshot(store) == before


def test_a_symlinked_memory_does_not_stop_redacting_the_rest_of_the_store(store, tmp_path):
    """memtui writes no file through a link; one in the store (here to a shared note holding
    a key) is named in the plan and left, and every other secret is still redacted."""
    shared = tmp_path / "shared-notes" / "style.md"
    shared.parent.mkdir()
    shared.write_text(memory_text("style", "shared style", "feedback", f"Deploy key {AWS}\n"))
    (store / "shared_style.md").symlink_to(shared)
    (store / "alias_ci.md").symlink_to("reference_ci.md")  # a second name: no note for it
    before = shared.read_bytes()

    plan = plan_redact_secrets(load_store(store))

    assert plan.label == "redact 3 secrets"
    assert plan.summary[-1] == ("shared_style.md is a symlink, and memtui writes only "
                                "regular files: redact its 1 secret in the file it points to.")
    assert not any("alias_ci.md" in line for line in plan.summary)
    apply_changes(store, plan.changes, plan.label)
    left = [f.file for f in audit_store(load_store(store)) if f.kind == "secret"]
    assert left == ["shared_style.md"]
    assert shared.read_bytes() == before and (store / "shared_style.md").is_symlink()


def test_a_symlinked_index_does_not_stop_redacting_the_memories(store, tmp_path):
    shared = tmp_path / "shared-index.md"
    shared.write_bytes((store / "MEMORY.md").read_bytes())  # the CI token is on its line 2
    (store / "MEMORY.md").unlink()
    (store / "MEMORY.md").symlink_to(shared)
    (store / "broken.md").symlink_to(tmp_path / "nowhere.md")
    before = shared.read_bytes()

    plan = plan_redact_secrets(load_store(store))

    assert [change.file for change in plan.changes] == ["project_db.md"]
    assert plan.summary[0] == ("MEMORY.md is a symlink, and memtui writes only regular files: "
                               "redact its 1 secret in the file it points to.")
    apply_changes(store, plan.changes, plan.label)
    assert shared.read_bytes() == before and (store / "MEMORY.md").is_symlink()


async def test_x_in_the_app_redacts_after_showing_what_it_will_do(store, claude_home):
    from tui.app.app import MemtuiApp
    from tui.app.screens.confirm import ConfirmScreen
    from tui.app.screens.store import StoreScreen
    from tui.claude.discovery import discover

    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(120, 40)) as pilot:
        project = next(p for p in discover(claude_home.home, claude_home.env).projects
                       if p.store == store)
        app.push_screen(StoreScreen(project))
        await settle(app, pilot)
        await pilot.press("X")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        shown = "".join(painted(widget.content) for widget in app.screen.query("Static"))
        assert "Redact the GitHub Token on line 2 of MEMORY.md." in shown
        assert GITHUB not in shown
        await pilot.press("y")
        await settle(app, pilot)
    assert GITHUB.encode() not in (store / "MEMORY.md").read_bytes()


def test_a_huge_index_is_screened_by_blocks_and_still_finds_every_secret():
    """Lines go to the rules only where one RE2 screen of all of them says a rule could
    match; secrets at a block's first and last line and deep in a 10,000-line index count."""
    lines = [f"- [Entry {n}](feedback_testing_{n}.md) — hook" for n in range(10_000)]
    for number in (0, 1999, 2000, 9999):
        lines[number] = f"{GITHUB} pasted here"
    lines[5000] = "ibm_cloud_iam_key = " + IBM_KEY  # a rule whose lookbehind RE2 cannot read
    found = [(hit.kind, hit.line) for hit in find_secrets("\n".join(lines))]
    assert ("GitHub Token", 1) in found and ("GitHub Token", 10_000) in found
    assert [line for kind, line in found if kind == "GitHub Token"] == [1, 2000, 2001, 10_000]
    assert ("IBM Cloud IAM Key", 5001) in found


def test_the_screen_drops_lookarounds_and_keeps_classes():
    from tui.memory.secrets import _without_lookarounds

    assert _without_lookarounds(r"(?:(?<=\W)|(?<=^))ab[(?!)]c(?!\w)") == r"(?:|)ab[(?!)]c"
    assert _without_lookarounds(r"x(?=(a|b)\))y\(") == r"xy\("


SECRET_LINES = [f"token {GITHUB}", f"id {AWS}", "ibm_cloud_iam_key = " + IBM_KEY,
                f"postgres://admin:{PASSWORD}@db.internal:5432/app"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["clean", "secret", "huge clean", "huge secret"]),
                          st.integers(0, 3)), max_size=12))
def test_texts_screened_together_keep_every_text_holding_a_secret_in_order(shapes):
    """The audit screens a store's texts joined: no text with a secret is left out, and the
    ones kept come in the order given."""
    from tui.memory.secrets import screened

    texts = []
    for number, (shape, which) in enumerate(shapes):
        lines = ["Plain words about a deploy, nothing secret."] * (7000 if "huge" in shape else 5)
        if "secret" in shape:
            lines[which] = SECRET_LINES[which]
        texts.append((f"m{number}.md", "\n".join(lines)))
    kept = [name for name, _ in screened(texts)]
    holding = [name for name, text in texts if list(find_secrets(text))]
    assert set(holding) <= set(kept)
    assert kept == [name for name, _ in texts if name in kept]
    assert all(list(find_secrets(text)) == [] for name, text in texts if name not in kept)


def test_an_anthropic_key_in_memory_is_a_secret_and_never_synced_out():
    """detect-secrets knows OpenAI's keys but not Anthropic's, the one a Claude Code user
    is most likely to paste; `memtui sync` pushed such a memory to the remote."""
    key = "sk-ant-api03-" + "x7Qp2LmZ9vBn4Rt8" * 6 + "-aB3dEfAA"
    token = "sk-ant-oat01-" + "Hk3Jq9Wm2Zp7Lr5T" * 4
    text = f"Deploys use ANTHROPIC_API_KEY={key}\nThe CI login is {token}.\n"
    hits = list(find_secrets(text))
    assert [(hit.kind, hit.line) for hit in hits] == [("Anthropic API Key or token", 1),
                                                      ("Anthropic API Key or token", 2)]
    first, second = hits
    assert text.splitlines()[0][first.start:first.end] == key
    assert text.splitlines()[1][second.start:second.end] == token
    assert list(find_secrets("See the sk-ant- prefix in the docs, and sk-ant-api03-short.")) == []
