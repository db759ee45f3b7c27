"""A model-driven run is bounded: files, bytes and tool calls capped, searches linear-time and
cancellable, and whatever goes wrong ends the run in one sentence with the lock rolled back."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import replace

import pytest
from conftest import cpu_seconds, index_line, memory_text, snapshot, write_index, write_memory
from fake_anthropic import reply, text, tool

from tui.agents import staging as staging_module
from tui.agents.client import ClientConfig
from tui.agents.dream import run_dream
from tui.agents.result import FAILED, SUCCEEDED
from tui.agents.staging import Staging, Toolbox
from tui.claude.lock import read_lock
from tui.claude.paths import LOCK_NAME


def config(fake, **changes) -> ClientConfig:
    return replace(ClientConfig(api_key="test-key", base_url=fake.url, retry_delay=0.01),
                   **changes)


def quiet_phases(fake, count: int = 3) -> None:
    """The phases after the first: the model has nothing more to do."""
    fake.queue(*[reply(text("Nothing to do here.")) for _ in range(count)])


@pytest.fixture
def store(claude_home, tmp_path):
    store = claude_home.store(tmp_path / "project")
    write_memory(store, "deploy.md", memory_text("deploy", "how we deploy", "project"))
    write_index(store, [index_line("deploy.md")])
    (store / LOCK_NAME).write_bytes(b"4242\n")
    os.utime(store / LOCK_NAME, (1_600_000_000, 1_600_000_000))
    return store


def lock_as_before(store) -> bool:
    lock = read_lock(store)
    return lock.body == b"4242\n" and lock.mtime == 1_600_000_000


def test_a_run_creating_too_many_files_stops_at_the_cap_and_says_so(fake, store, monkeypatch):
    monkeypatch.setattr(staging_module, "MAX_FILES_CREATED", 5)
    writes = [tool("write_file", path=f"note_{n}.md", content=f"note {n}\n") for n in range(8)]
    fake.queue(reply(*writes), reply(text("Done.")))
    quiet_phases(fake)

    result = run_dream(store, engine="anthropic", config=config(fake))

    assert result.status == SUCCEEDED, result.error
    created = [f.file for f in result.changeset.files if f.kind == "created"]
    assert len(created) == 5
    assert "The run reached its cap of 5 new files; no more are created" in result.changeset.notes
    refused = [block for block in fake.requests[1]["body"]["messages"][-1]["content"]
               if block.get("is_error")]
    assert len(refused) == 3  # the model is told, each time


def test_a_run_writing_too_many_bytes_stops_at_the_cap(fake, store, monkeypatch):
    monkeypatch.setattr(staging_module, "MAX_BYTES_WRITTEN", 1000)
    fake.queue(reply(tool("write_file", path="big.md", content="x" * 2000)), reply(text("Ok.")))
    quiet_phases(fake)

    result = run_dream(store, engine="anthropic", config=config(fake))

    assert [f.file for f in result.changeset.files if f.kind == "created"] == []
    assert "The run reached its cap of 1,000 bytes written; no more is written" in result.changeset.notes


def test_a_run_past_its_tool_call_cap_ends_and_keeps_what_it_did(fake, store, monkeypatch):
    monkeypatch.setattr(staging_module, "MAX_TOOL_CALLS", 3)
    fake.queue(reply(*[tool("list_files") for _ in range(2)],
                     tool("write_file", path="kept.md", content="kept\n"),
                     tool("list_files")))

    result = run_dream(store, engine="anthropic", config=config(fake))

    assert result.status == SUCCEEDED
    assert [f.file for f in result.changeset.files] == ["kept.md"]
    assert "The run reached its cap of 3 tool calls and was stopped there" in result.changeset.notes
    assert len(fake.requests) == 1  # no further turn was asked for


def test_a_catastrophic_pattern_searches_in_linear_time(store, tmp_path):
    folder = tmp_path / "transcripts"
    folder.mkdir()
    line = json.dumps({"type": "user", "message": {"content": "a" * 5000 + "!"}})
    (folder / "3f1c9a7e-0000-4000-8000-000000000001.jsonl").write_text((line + "\n") * 200)
    staging = Staging.create(store)
    try:
        toolbox = Toolbox(staging, [folder], lambda kind, text: None)
        started = cpu_seconds()
        result = toolbox.call("grep_transcripts", {"pattern": "(a+)+$"})
        assert cpu_seconds() - started < 2.0
        assert result.text == "no matches"
        # A pattern RE2 cannot read is searched for as text, not a traceback.
        assert toolbox.call("grep_transcripts", {"pattern": "(?<=a)!"}).text == "no matches"
    finally:
        staging.discard()


def test_a_search_stops_when_the_run_is_cancelled(store, tmp_path):
    folder = tmp_path / "transcripts"
    folder.mkdir()
    line = json.dumps({"type": "user", "message": {"content": "nothing to see"}})
    (folder / "3f1c9a7e-0000-4000-8000-000000000002.jsonl").write_text((line + "\n") * 100_000)
    staging = Staging.create(store)
    cancel = threading.Event()
    cancel.set()
    try:
        toolbox = Toolbox(staging, [folder], lambda kind, text: None, cancel)
        result = toolbox.call("grep_transcripts", {"pattern": "needle"})
        assert result.text == "[search stopped: cancelled]"
    finally:
        staging.discard()


def test_content_with_a_lone_surrogate_is_refused_to_the_model_not_a_traceback(fake, store):
    fake.queue(reply(tool("write_file", path="odd.md", content="bad \ud800 text")),
               reply(text("Sorry.")))
    quiet_phases(fake)

    result = run_dream(store, engine="anthropic", config=config(fake, stream=False))

    assert result.status == SUCCEEDED, result.error
    assert "odd.md" not in [f.file for f in result.changeset.files]
    answer = fake.requests[1]["body"]["messages"][-1]["content"][0]
    assert answer["is_error"] and "not valid Unicode" in answer["content"]


def test_an_index_that_is_a_directory_ends_the_run_in_one_sentence(store):
    (store / "MEMORY.md").unlink()
    (store / "MEMORY.md").mkdir()
    before = snapshot(store, recursive=True)

    result = run_dream(store, engine="offline")

    assert result.status == FAILED
    assert result.error.startswith("The run stopped at ")
    assert result.error.endswith(f"/memory/MEMORY.md (the run's copy of {store}/MEMORY.md): it "
                                 "is a folder where a file is needed, so nothing was applied; "
                                 "move it aside and try again.")
    assert "\n" not in result.error
    assert lock_as_before(store)
    assert snapshot(store, recursive=True) == before
