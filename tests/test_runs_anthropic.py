"""Runs with the anthropic engine against a scripted fake Messages API."""

from __future__ import annotations

import os
import threading
from dataclasses import replace

import pytest
from conftest import index_line, memory_text, snapshot, write_index, write_memory
from fake_anthropic import Scripted, failure, reply, text, tool

from tui.agents.client import ClientConfig
from tui.agents.dream import PHASES, run_dream
from tui.agents.extract import MAX_TURNS, run_extract
from tui.agents.result import CANCELLED, FAILED, SUCCEEDED, conclude
from tui.claude.paths import LOCK_NAME


def config(fake, **changes) -> ClientConfig:
    return replace(ClientConfig(api_key="test-key", base_url=fake.url, retry_delay=0.01),
                   **changes)


@pytest.fixture
def store(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "deploy.md", memory_text("deploy", "how we deploy", "project",
                                                 "Deploys go out on Fridays.\n"), mtime=1e9)
    write_memory(store, "deploy_copy.md", memory_text("deploy", "how we deploy", "project",
                                                      "Deploys go out on Fridays.\n"), mtime=1e9)
    write_index(store, [index_line("deploy.md"), index_line("deploy_copy.md")])
    return store


MERGED = memory_text("deploy", "how we deploy", "project",
                     "Deploys go out on Fridays, never on holidays.\n")


def full_dream_script(fake) -> None:
    fake.queue(
        reply(tool("list_files"), tool("read_file", path="MEMORY.md")),
        reply(text("Two files say the same thing.")),
        reply(tool("grep_transcripts", pattern="holiday")),
        reply(text("Holidays matter.")),
        reply(tool("write_file", path="deploy.md", content=MERGED),
              tool("delete_file", path="deploy_copy.md")),
        reply(text("Merged the copy into deploy.md.")),
        reply(tool("write_file", path="MEMORY.md", content=index_line("deploy.md") + "\n")),
        reply(text("Index has one line now.")),
    )


@pytest.mark.parametrize("stream", [True, False])
def test_full_dream_runs_every_phase_and_applies_then_undoes_byte_for_byte(fake, store, stream):
    full_dream_script(fake)
    before = snapshot(store, recursive=True)
    result = run_dream(store, engine="anthropic", config=config(fake, stream=stream))

    assert result.status == SUCCEEDED, result.error
    assert [p.name for p in result.phases] == list(PHASES)
    assert all(p.status == "done" and p.tokens_in > 0 for p in result.phases)
    assert [p.tool_calls for p in result.phases] == [2, 1, 2, 1]
    kinds = {d.file: d.kind for d in result.changeset.files}
    assert kinds == {"MEMORY.md": "modified", "deploy.md": "modified",
                     "deploy_copy.md": "archived"}
    held = snapshot(store, recursive=True)
    assert held.pop(LOCK_NAME) == str(os.getpid()).encode()  # held while under review
    assert held == before  # nothing is written before apply
    started = result.lease.started

    outcome = conclude(result, apply=True)
    assert set(outcome.applied) == set(kinds) and not outcome.refused
    assert (store / "deploy.md").read_text() == MERGED
    assert not (store / "deploy_copy.md").exists()
    lock = store / LOCK_NAME
    assert lock.read_text() == ""  # no live holder left behind
    assert lock.stat().st_mtime == started  # "last consolidated" = when the run started

    from tui.agents.changeset import undo_changeset

    assert undo_changeset(store)
    assert snapshot(store, recursive=True) == before  # the lock too: it did not exist before the dream


def test_auth_header_and_bearer_token_are_both_accepted(fake, store):
    full_dream_script(fake)
    result = run_dream(store, engine="anthropic",
                       config=config(fake, api_key=None, auth_token="test-key"))
    assert result.status == SUCCEEDED, result.error
    assert fake.requests[0]["auth"] == "test-key"


def test_rejected_key_is_one_sentence_and_leaves_store_and_lock_untouched(fake, store):
    before = snapshot(store, recursive=True)
    result = run_dream(store, engine="anthropic", config=config(fake, api_key="wrong"))
    assert result.status == FAILED
    assert result.error.startswith("The API rejected the key (401)")
    assert result.phases[0].status == "failed"
    assert snapshot(store, recursive=True) == before  # the lock did not exist and was removed again


def test_base_url_ending_in_v1_names_the_fix(fake, store):
    result = run_dream(store, engine="anthropic", config=config(fake, base_url=fake.url + "/v1"))
    assert result.status == FAILED
    assert "ends in /v1" in result.error and f"set it to {fake.url}" in result.error


def test_unknown_model_says_which_setting_to_change(fake, store):
    fake.queue(failure(404, "not_found_error"))
    result = run_dream(store, engine="anthropic", config=config(fake, model="claude-nope"))
    assert result.status == FAILED
    assert "'claude-nope' was not found" in result.error and "ANTHROPIC_MODEL" in result.error


def test_a_slow_api_times_out_with_one_sentence(fake, store):
    fake.queue(Scripted([text("late")], delay=1.0))
    result = run_dream(store, engine="anthropic", config=config(fake, timeout=0.2))
    assert result.status == FAILED and "did not answer within 0.2 s" in result.error
    assert not (store / LOCK_NAME).exists()


def test_overloaded_then_success_retries_and_says_so(fake, store):
    fake.queue(failure(529, "overloaded_error"))
    full_dream_script(fake)
    result = run_dream(store, engine="anthropic", config=config(fake))
    assert result.status == SUCCEEDED, result.error
    retries = [line.text for line in result.log if line.kind == "retry"]
    assert retries and "overloaded (529)" in retries[0]


def test_connection_refused_is_one_sentence(store):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cfg = ClientConfig(api_key="k", base_url=f"http://127.0.0.1:{port}")
    result = run_dream(store, engine="anthropic", config=cfg)
    assert result.status == FAILED and result.error.startswith("Could not connect")


def test_escaping_writes_are_refused_and_nothing_outside_staging_changes(fake, store, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("keep me\n")
    os.symlink(outside / "secret.md", store / "linked.md")
    fake.queue(
        reply(tool("write_file", path="../../x.md", content="escape"),
              tool("write_file", path=str(outside / "abs.md"), content="escape"),
              tool("write_file", path="linked.md", content="through the link"),
              tool("write_file", path=LOCK_NAME, content="123"),
              tool("write_file", path="notes.txt", content="not markdown")),
        reply(text("done")),
        reply(text("nothing")), reply(text("nothing")), reply(text("nothing")),
    )
    before_outside = snapshot(tmp_path / "outside", recursive=True)
    before_store = snapshot(store, recursive=True)
    result = run_dream(store, engine="anthropic", config=config(fake))

    assert result.status == SUCCEEDED, result.error
    assert len(result.refusals) == 5
    refused_log = [line.text for line in result.log if line.kind == "refused"]
    assert len(refused_log) == 5
    tool_results = fake.requests[1]["body"]["messages"][-1]["content"]
    assert all(block.get("is_error") for block in tool_results)
    assert snapshot(outside, recursive=True) == before_outside
    assert not (tmp_path / "x.md").exists() and not (store.parent.parent / "x.md").exists()
    assert result.changeset.empty
    conclude(result, apply=True)
    after = snapshot(store, recursive=True)
    assert after.pop(LOCK_NAME) == b""
    assert after == before_store


def test_cancel_mid_phase_rolls_the_lock_back_and_applies_nothing(fake, store):
    lock = store / LOCK_NAME
    lock.write_text("")
    os.utime(lock, (1_000_000, 1_000_000))
    cancel = threading.Event()
    fake.on_request = lambda number: cancel.set() if number == 3 else None
    full_dream_script(fake)
    before = snapshot(store, recursive=True)
    result = run_dream(store, engine="anthropic", config=config(fake), cancel=cancel)

    assert result.status == CANCELLED
    statuses = [p.status for p in result.phases]
    assert statuses == ["done", "cancelled", "pending", "pending"]
    assert snapshot(store, recursive=True) == before
    assert lock.stat().st_mtime == 1_000_000 and lock.read_text() == ""


def _session(claude_home, tmp_path, texts):
    from conftest import user_record

    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    records = [user_record(str(cwd), t) for t in texts]
    return claude_home.session(cwd, *records)


def test_extract_turn_budget_exhausted_reports_topics_left(fake, claude_home, tmp_path,
                                                           monkeypatch):
    store = claude_home.store(tmp_path / "project")
    transcript = _session(claude_home, tmp_path, ["Always run ruff.", "Use pnpm not npm."])
    fake.queue(reply(tool("plan_topics", topics=["ruff before commits", "pnpm not npm"])),
               *[reply(tool("list_files")) for _ in range(MAX_TURNS - 2)],
               reply(tool("write_file", path="feedback_ruff.md", topic="ruff before commits",
                          content=memory_text("ruff", "run ruff", "feedback"))))
    result = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                         engine="anthropic", config=config(fake))

    assert result.status == SUCCEEDED, result.error
    assert len(fake.requests) == MAX_TURNS
    assert result.topics_left == ("pnpm not npm",)
    assert any("pnpm not npm" in note for note in result.changeset.notes)
    assert {d.file for d in result.changeset.files} == {"feedback_ruff.md", "MEMORY.md"}
    assert "feedback_ruff.md" in (result.changeset.files[0].after or b"").decode()
    assert not (store / "feedback_ruff.md").exists()


def test_an_index_left_over_the_limits_gets_one_corrective_turn_then_a_prune(fake, store):
    long_index = "\n".join(index_line("deploy.md", f"deploy {n}") for n in range(250)) + "\n"
    fake.queue(
        reply(text("ok")), reply(text("ok")), reply(text("ok")),
        reply(tool("write_file", path="MEMORY.md", content=long_index)),
        reply(text("Index rewritten.")),
        reply(text("I think it is fine.")),  # the corrective turn changes nothing
    )
    result = run_dream(store, engine="anthropic", config=config(fake))
    assert result.status == SUCCEEDED, result.error
    assert len(fake.requests) == 6
    assert "limits" in fake.requests[-1]["body"]["messages"][-1]["content"][-1]["text"]
    assert result.phases[-1].note == "index pruned deterministically"
    index = next(d for d in result.changeset.files if d.file == "MEMORY.md").after.decode()
    from tui.memory.index import parse_index

    loaded = parse_index(index)
    assert loaded.cut is None and {link.file for link in loaded.links} == {
        "deploy.md", "deploy_copy.md"}


def test_the_models_words_stream_in_before_each_whole_reply_is_logged(fake, store):
    from tui.agents.events import LogLine, ModelText

    full_dream_script(fake)
    events = []
    result = run_dream(store, engine="anthropic", config=config(fake), listener=events.append)

    assert result.status == SUCCEEDED, result.error
    pieces: list[str] = []
    replies = []
    for event in events:
        if isinstance(event, ModelText):
            pieces.append(event.text)
        elif isinstance(event, LogLine) and event.kind == "model":
            replies.append((event.phase, "".join(pieces)))
            assert len(pieces) > 1  # word by word, not the reply at once
            pieces = []
    assert ("Consolidate", "Merged the copy into deploy.md.") in replies
    assert not pieces  # every streamed piece ended up in a logged reply


@pytest.mark.parametrize("stream", [True, False])
def test_the_cli_shows_each_reply_once_whether_streamed_or_not(fake, store, stream, capsys):
    from tui.cli.runs import _Printer

    full_dream_script(fake)
    printer = _Printer(quiet=False)
    result = run_dream(store, engine="anthropic", config=config(fake, stream=stream),
                       listener=printer)

    assert result.status == SUCCEEDED, result.error
    lines = capsys.readouterr().err.splitlines()
    assert lines.count("    model: Merged the copy into deploy.md.") == 1
    assert lines.count("    model: Index has one line now.") == 1
    assert any(line.startswith("▸ Consolidate") for line in lines)


def test_extract_with_no_new_messages_asks_the_model_nothing(fake, claude_home, tmp_path):
    claude_home.store(tmp_path / "project")
    transcript = _session(claude_home, tmp_path, ["Always run ruff."])
    fake.queue(reply(tool("plan_topics", topics=["ruff"])),
               reply(tool("write_file", path="feedback_ruff.md", topic="ruff",
                          content=memory_text("ruff", "run ruff", "feedback"))),
               reply(text("Done.")))
    first = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                        engine="anthropic", config=config(fake))
    assert first.status == SUCCEEDED, first.error
    conclude(first, True)
    asked = len(fake.requests)

    again = run_extract(transcript.stem, home=claude_home.home, env=claude_home.env,
                        engine="anthropic", config=config(fake))
    assert again.status == SUCCEEDED, again.error
    assert len(fake.requests) == asked, "the model was paid to read nothing"
    assert again.changeset.empty and (again.tokens_in, again.tokens_out) == (0, 0)
    assert any("No new messages since the last extraction" in n for n in again.changeset.notes)


@pytest.mark.parametrize("command", ["extract", "dream"])
def test_the_cli_prints_an_api_error_once(fake, store, claude_home, tmp_path, monkeypatch,
                                          capsys, command):
    from tui import cli

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude_home.home))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "wrong")
    if command == "extract":
        argv = ["extract", _session(claude_home, tmp_path, ["Always run ruff."]).stem]
    else:
        argv = ["dream", str(store)]
    assert cli.main([*argv, "--engine", "anthropic", "--yes"]) == 2
    out, err = capsys.readouterr()
    said = (out + err).count("The API rejected the key (401)")
    assert said == 1, out + err
    assert f"memtui: {command}: The API rejected the key (401)" in err
