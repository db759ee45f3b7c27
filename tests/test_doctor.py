"""`memtui doctor`: each cause of "memory is not working" built in a temp home, then found.

Every test runs the real CLI on a config home of its own and reads the JSON report: the
check's id, its status and its fix. Nothing here leaves the machine (see test_doctor_online).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import (
    add_worktree,
    index_line,
    make_repo,
    memory_text,
    real,
    snapshot,
    write_index,
    write_memory,
)
from doctor_home import (
    KEY,
    build_project,
    checks_of,
    memtui,
    run_doctor,
    settings,
)
from test_history_transcripts import START, Session, blind_overwrite

from tui import cli
from tui.claude import paths
from tui.doctor.report import CHECK_IDS
from tui.words import plural


@pytest.fixture
def project(fake_home, claude_home):
    return build_project(fake_home, claude_home)


# --- the report ---------------------------------------------------------------------------


def test_a_healthy_project_passes_with_every_check_in_the_stated_shape(project, capsys):
    claude, root, store = project
    set_lock(store, "", 30 * 3600)
    before = snapshot(claude.home, recursive=True), os.stat(store / paths.LOCK_NAME).st_mtime_ns
    code, report, _ = run_doctor(claude, root, capsys)
    # read only: not a byte or a lock mtime of Claude Code's changes
    assert (snapshot(claude.home, recursive=True),
            os.stat(store / paths.LOCK_NAME).st_mtime_ns) == before

    assert code == 0
    assert set(report) == {"project", "store", "checks"}
    assert (report["project"], report["store"]) == (str(root), str(store))
    assert [c["id"] for c in report["checks"]] == [i for i in CHECK_IDS if i != "api_probe"]
    for check in report["checks"]:
        assert set(check) == {"id", "status", "message", "fix"}
        assert check["status"] in {"ok", "warn", "skip"}, check
        assert check["message"]
    assert checks_of(report)["index_size"]["status"] == "ok"
    assert " has 1 line and " in checks_of(report)["index_size"]["message"]  # not "1 lines"


def test_human_report_shows_fixes_and_exits_1_on_a_failure(project, capsys, monkeypatch):
    claude, root, _ = project
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    code = cli.main(["--config-dir", str(claude.home), "doctor", str(root)])
    out = capsys.readouterr().out

    assert code == 1
    assert "FAIL  auto_memory" in out
    assert "fix: unset CLAUDE_CODE_DISABLE_AUTO_MEMORY" in out
    assert "1 failed" in out


def test_bad_usage_exits_2_with_one_sentence(project, capsys, tmp_path):
    claude, _, _ = project
    code = cli.main(["--config-dir", str(claude.home), "doctor", str(tmp_path / "nowhere" / "x")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("memtui: ") and err.count("\n") == 1 and "Traceback" not in err
    assert cli.main(["doctor", "--bogus"]) == 2


def test_a_folder_name_whose_checkout_is_gone_finds_the_folders_sessions(claude_home, capsys, tmp_path):
    """`memtui doctor <folder>` for a project `memtui projects` lists as `no store`: the
    session checks read that folder's transcripts instead of skipping for want of any."""
    gone = tmp_path / "spike"  # never created: the checkout was thrown away
    claude_home.session(gone)
    claude_home.session(gone)
    code, report, _ = run_doctor(claude_home, paths.sanitize(str(gone)), capsys)
    assert code in (0, 1)
    extraction = checks_of(report)["extraction"]
    assert extraction["status"] != "skip", extraction
    assert "newest 2 sessions" in extraction["message"]


def test_a_stranded_store_that_does_not_exist_gets_no_audit_to_run(claude_home, capsys, tmp_path):
    """The memory_dir check of a folder whose checkout is gone says so once, and offers no
    `memtui audit` of a store that is not there (that command would only say so)."""
    gone = tmp_path / "spike"
    claude_home.session(gone)
    _, report, _ = run_doctor(claude_home, paths.sanitize(str(gone)), capsys)
    memory_dir = checks_of(report)["memory_dir"]
    assert memory_dir["status"] == "warn"
    assert "stranded" in memory_dir["message"]
    assert memory_dir["message"].count("no session") == 1, memory_dir["message"]
    assert memory_dir["fix"] is None


# --- auto_memory and settings ---------------------------------------------------------------


def test_auto_memory_off_by_variable_fails_and_names_it(project, capsys, monkeypatch):
    claude, root, _ = project
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "true")
    code, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["auto_memory"]
    assert code == 1
    assert check["status"] == "fail"
    assert "CLAUDE_CODE_DISABLE_AUTO_MEMORY=true" in check["message"]
    assert check["fix"] == "unset CLAUDE_CODE_DISABLE_AUTO_MEMORY"


def test_auto_memory_off_by_setting_names_file_and_line(project, capsys):
    claude, root, _ = project
    user = settings(claude.home / "settings.json", {"model": "x", "autoMemoryEnabled": False})
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["auto_memory"]
    assert check["status"] == "fail"
    assert f"{user}:3" in check["message"]
    assert check["fix"].startswith(f'set "autoMemoryEnabled": true in {user}')


def test_the_settings_flag_file_counts_first(project, capsys, tmp_path):
    claude, root, _ = project
    settings(claude.home / "settings.json", {"autoMemoryEnabled": True})
    flag = settings(tmp_path / "flag.json", {"autoMemoryEnabled": False})
    code = cli.main(["--config-dir", str(claude.home), "--settings", str(flag), "doctor",
                     str(root), "--json"])
    check = checks_of(json.loads(capsys.readouterr().out))["auto_memory"]
    assert code == 1
    assert check["status"] == "fail" and f"{flag}:2 (the --settings file)" in check["message"]


def test_variable_set_to_a_false_word_wins_over_the_setting(project, capsys, monkeypatch):
    claude, root, _ = project
    settings(claude.home / "settings.json", {"autoMemoryEnabled": False})
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0")
    _, report, _ = run_doctor(claude, root, capsys)
    assert checks_of(report)["auto_memory"]["status"] == "ok"


def test_variable_in_the_settings_env_block_switches_memory_off(project, capsys):
    claude, root, _ = project
    local = settings(root / ".claude" / "settings.local.json",
                     {"env": {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}})
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["auto_memory"]
    assert check["status"] == "fail"
    assert str(local) in check["message"] and str(local) in check["fix"]


def test_keys_from_shared_guides_are_named_with_the_key_claude_reads(project, capsys):
    claude, root, _ = project
    user = settings(claude.home / "settings.json", {
        "autoMemory": True,
        "autoDream": {"enabled": True, "minHours": 12, "minSessions": 2},
    })
    code, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["settings_keys"]
    assert code == 0  # a warning, not a failure
    assert check["status"] == "warn"
    assert f'"autoMemory" at {user}:2' in check["message"]
    assert "remote flag" in check["message"]
    assert f'replace "autoMemory" with "autoMemoryEnabled": true in {user}' in check["fix"]
    assert f'replace "autoDream" with "autoDreamEnabled": true in {user}' in check["fix"]


def test_a_settings_file_that_is_not_json_is_reported(project, capsys):
    claude, root, _ = project
    (claude.home / "settings.json").write_text('{"autoMemoryEnabled": false,}', encoding="utf-8")
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["settings_keys"]
    assert check["status"] == "warn"
    assert "is not valid JSON" in check["message"]


# --- memory_dir ------------------------------------------------------------------------------


def test_checked_in_memory_directory_is_reported_as_ignored(project, capsys):
    claude, root, store = project
    checked_in = settings(root / ".claude" / "settings.json",
                          {"autoMemoryDirectory": "~/notes/shop-memory"})
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["memory_dir"]
    assert report["store"] == str(store)  # not followed
    assert check["status"] == "warn"
    assert f"{checked_in}:2 is ignored by design" in check["message"]
    assert "settings.local.json" in check["fix"]


def test_checked_in_memory_directory_pointing_at_ssh_fails(project, capsys):
    claude, root, _ = project
    settings(root / ".claude" / "settings.json", {"autoMemoryDirectory": "~/.ssh/memory"})
    code, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["memory_dir"]
    assert code == 1
    assert check["status"] == "fail"
    assert "~/.ssh" in check["message"]
    assert check["fix"].startswith('remove "autoMemoryDirectory" from')


def test_memory_directory_in_etc_fails_and_outside_home_warns(project, capsys, tmp_path):
    claude, root, _ = project
    local = settings(root / ".claude" / "settings.local.json",
                     {"autoMemoryDirectory": "/etc/claude-memory"})
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["memory_dir"]
    assert check["status"] == "fail"
    assert report["store"] == "/etc/claude-memory"
    assert check["fix"] == f'remove "autoMemoryDirectory" from {local}'

    settings(local, {"autoMemoryDirectory": str(tmp_path / "elsewhere")})
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["memory_dir"]
    assert check["status"] == "warn"
    assert "outside your home directory" in check["message"]


# --- model access (offline) ------------------------------------------------------------------


@pytest.mark.parametrize(("url", "fixed"), [
    ("https://gateway.example.com/v1", "https://gateway.example.com"),
    ("https://gateway.example.com/v1/", "https://gateway.example.com"),
    ("https://gateway.example.com/", "https://gateway.example.com"),
])
def test_base_url_ending_in_v1_or_slash_fails_with_the_corrected_url(
        project, capsys, monkeypatch, url, fixed):
    claude, root, _ = project
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    code, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["api_base_url"]
    assert code == 1
    assert check["status"] == "fail"
    assert check["fix"] == f"export ANTHROPIC_BASE_URL={fixed}"


def test_base_url_in_claude_settings_env_is_checked_too(project, capsys):
    claude, root, _ = project
    user = settings(claude.home / "settings.json",
                    {"env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:4000/v1"}})
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["api_base_url"]
    assert check["status"] == "fail"
    assert str(user) in check["message"] and "used by Claude Code" in check["message"]


@pytest.mark.parametrize(("value", "problem"), [
    (KEY + "\n", "a newline at the end"),
    (" " + KEY, "a space at the start"),
    (f'"{KEY}"', "wrapped in quotes"),
])
def test_key_with_whitespace_or_quotes_fails_without_showing_the_key(
        project, capsys, monkeypatch, value, problem):
    claude, root, _ = project
    monkeypatch.setenv("ANTHROPIC_API_KEY", value)
    code, report, output = run_doctor(claude, root, capsys)
    check = checks_of(report)["api_key"]
    assert code == 1
    assert check["status"] == "fail"
    assert problem in check["message"]
    assert f"{len(value)} characters, starting {value[:4]!r}" in check["message"]
    assert KEY not in output and KEY[4:20] not in output

    code = cli.main(["--config-dir", str(claude.home), "doctor", str(root)])
    human = capsys.readouterr()
    assert KEY[4:20] not in human.out + human.err


def test_both_key_kinds_set_warns(project, capsys, monkeypatch):
    claude, root, _ = project
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token-" + KEY)
    _, report, output = run_doctor(claude, root, capsys)
    check = checks_of(report)["api_key"]
    assert check["status"] == "warn"
    assert "Both ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN" in check["message"]
    assert KEY[4:20] not in output


def test_custom_endpoint_without_a_model_warns_and_a_spaced_model_fails(project, capsys, monkeypatch):
    claude, root, _ = project
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://gateway.example.com")
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["api_model"]
    assert check["status"] == "warn"
    assert check["fix"].startswith("export ANTHROPIC_MODEL=")

    monkeypatch.setenv("ANTHROPIC_MODEL", "claude-sonnet-4-5 ")
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["api_model"]
    assert check["status"] == "fail"
    assert check["fix"] == "export ANTHROPIC_MODEL=claude-sonnet-4-5"


def test_proxy_on_localhost_with_nothing_listening_fails(project, capsys, monkeypatch,
                                                         refused_port):
    claude, root, _ = project
    port = refused_port
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{port}")
    code, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["proxy"]
    assert code == 1
    assert check["status"] == "fail"
    assert f"127.0.0.1:{port}" in check["message"]
    assert check["fix"] == f"start the proxy on port {port}, or unset HTTPS_PROXY"


def test_proxy_on_localhost_that_listens_is_ok(project, capsys, monkeypatch):
    claude, root, _ = project
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        monkeypatch.setenv("HTTPS_PROXY", f"http://localhost:{server.getsockname()[1]}")
        _, report, _ = run_doctor(claude, root, capsys)
    assert checks_of(report)["proxy"]["status"] == "ok"


def credentials(claude, expires: datetime) -> str:
    token = "sk-ant-oat01-" + uuid.uuid4().hex
    (claude.home / ".credentials.json").write_text(json.dumps({"claudeAiOauth": {
        "accessToken": token, "refreshToken": "sk-ant-ort01-" + uuid.uuid4().hex,
        "expiresAt": int(expires.timestamp() * 1000), "scopes": ["user:inference"],
    }}), encoding="utf-8")
    return token


def test_expired_oauth_login_beside_a_key_warns_and_never_shows_the_token(
        project, capsys, monkeypatch):
    claude, root, _ = project
    token = credentials(claude, datetime.now(UTC) - timedelta(days=2))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    _, report, output = run_doctor(claude, root, capsys)
    check = checks_of(report)["oauth"]
    assert check["status"] == "warn"
    assert "expired" in check["message"] and "ANTHROPIC_API_KEY" in check["message"]
    assert "claude /login" in check["fix"]
    assert token not in output and token[13:] not in output


def test_valid_oauth_login_is_ok(project, capsys, monkeypatch):
    claude, root, _ = project
    credentials(claude, datetime.now(UTC) + timedelta(hours=5))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    _, report, _ = run_doctor(claude, root, capsys)
    assert checks_of(report)["oauth"]["status"] == "ok"


# --- the dream -------------------------------------------------------------------------------


def set_lock(store: Path, body: str, age_seconds: float) -> Path:
    lock = store / paths.LOCK_NAME
    lock.write_text(body, encoding="utf-8")
    stamp = time.time() - age_seconds
    os.utime(lock, (stamp, stamp))
    return lock


def sessions_in(claude, cwd: Path, count: int, age_seconds: float = 60) -> None:
    for _ in range(count):
        claude.session(cwd, mtime=time.time() - age_seconds)


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_dream_gates_open_after_24h_and_5_sessions(project, capsys):
    claude, root, store = project
    set_lock(store, "", 30 * 3600)
    sessions_in(claude, root, 5)
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["dream_gates"]
    assert check["status"] == "ok"
    assert "30.0 h ago" in check["message"]
    assert "5 sessions since" in check["message"]
    assert "both gates are open" in check["message"]
    assert "remotely" in check["message"]


@pytest.mark.parametrize(("lock_hours", "sessions", "sessions_before_lock", "open_"), [
    (23.5, 9, 0, False),  # 24 h have not passed
    (25, 4, 0, False),  # four sessions since
    (25, 4, 3, False),  # sessions older than the lock do not count
    (None, 5, 0, True),  # never consolidated: the time gate is open, every session counts
])
def test_dream_gates_need_24_hours_and_5_sessions_newer_than_the_lock(
        project, capsys, lock_hours, sessions, sessions_before_lock, open_):
    """Reference §7: hours since the lock's mtime >= 24, and transcripts of the cwd's folder
    whose mtime is newer than the lock's >= 5."""
    claude, root, store = project
    if lock_hours is not None:
        set_lock(store, "", lock_hours * 3600)
        sessions_in(claude, root, sessions_before_lock, age_seconds=(lock_hours + 1) * 3600)
    sessions_in(claude, root, sessions)
    _, report, _ = run_doctor(claude, root, capsys)
    message = checks_of(report)["dream_gates"]["message"]
    assert f"{plural(sessions, 'session')} since" in message
    assert ("both gates are open" in message) is open_
    assert ("the automatic dream is waiting" in message) is not open_


def test_sessions_spread_over_worktrees_keep_the_session_gate_shut(tmp_path, claude_home, capsys):
    repo = make_repo(tmp_path / "shop")
    tree = real(add_worktree(repo, tmp_path / "shop-wt", "feature"))
    root = real(tmp_path / "shop")
    store = claude_home.store(root)
    set_lock(store, "", 48 * 3600)
    sessions_in(claude_home, root, 2)
    sessions_in(claude_home, tree, 4)
    _, report, _ = run_doctor(claude_home, root, capsys)
    check = checks_of(report)["dream_gates"]
    assert check["status"] == "warn"
    assert "2 sessions since" in check["message"] and "6 across" in check["message"]
    assert check["fix"] == memtui(claude_home, "dream", root)


def test_auto_dream_switched_off_warns(project, capsys):
    claude, root, _ = project
    user = settings(claude.home / "settings.json", {"autoDreamEnabled": False})
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["dream_gates"]
    assert check["status"] == "warn"
    assert f'"autoDreamEnabled": false in {user}:2' in check["message"]


def test_lock_with_a_dead_pid_is_stale_with_the_fix(project, capsys):
    claude, root, store = project
    pid = dead_pid()
    lock = set_lock(store, str(pid), 10 * 60)
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["dream_lock"]
    assert check["status"] == "warn"
    assert f"process {pid}, which is not running" in check["message"]
    assert "10 min old" in check["message"]
    assert check["fix"].startswith(f"rm {lock}")


def test_old_lock_of_a_finished_dream_is_fine(project, capsys):
    claude, root, store = project
    set_lock(store, str(dead_pid()), 3 * 24 * 3600)
    _, report, _ = run_doctor(claude, root, capsys)
    assert checks_of(report)["dream_lock"]["status"] == "ok"


def test_lock_held_by_a_live_process_is_a_running_dream(project, capsys):
    claude, root, store = project
    # This process, running since before the lock was written. Not init with an older lock:
    # on a machine booted minutes ago, init started after that lock, as a reused PID would.
    set_lock(store, str(os.getpid()), 0)
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["dream_lock"]
    assert check["status"] == "ok"
    assert f"process {os.getpid()} (running)" in check["message"]


def test_lock_naming_a_process_started_after_it_was_written_is_not_held(project, capsys):
    import subprocess
    import sys

    from tui.claude.lock import process_start

    claude, root, store = project
    later = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        lock = set_lock(store, str(later.pid), 0)
        started = process_start(later.pid)
        os.utime(lock, (started - 5 * 60,) * 2)  # five minutes before it started
        _, report, _ = run_doctor(claude, root, capsys)
    finally:
        later.kill()
        later.wait()
    check = checks_of(report)["dream_lock"]
    assert check["status"] == "warn"
    assert f"names process {later.pid}, which started after the lock was written" in \
        check["message"]


def test_lock_that_is_a_directory_or_in_the_future_fails(project, capsys):
    claude, root, store = project
    (store / paths.LOCK_NAME).mkdir()
    code, report, _ = run_doctor(claude, root, capsys)
    assert code == 1
    assert checks_of(report)["dream_lock"]["status"] == "fail"
    (store / paths.LOCK_NAME).rmdir()

    set_lock(store, "", -5 * 3600)
    _, report, _ = run_doctor(claude, root, capsys)
    assert checks_of(report)["dream_lock"]["status"] == "fail"
    gates = checks_of(report)["dream_gates"]
    assert gates["status"] == "fail" and gates["fix"].startswith('touch -d "25 hours ago"')


# --- the index -------------------------------------------------------------------------------


def test_index_past_its_cut_fails_naming_the_hidden_entries(project, capsys):
    claude, root, store = project
    lines = []
    for number in range(230):
        write_memory(store, f"note_{number:03}.md", memory_text(name=f"note {number}"))
        lines.append(index_line(f"note_{number:03}.md"))
    write_index(store, lines)
    code, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["index_size"]
    assert code == 1
    assert check["status"] == "fail"
    assert "230 lines" in check["message"]
    assert "from line 201 on" in check["message"]
    assert "30 entries the model never sees (note_200.md" in check["message"]
    assert "--loaded" in check["fix"]


def test_long_index_lines_warn_with_their_numbers(project, capsys):
    claude, root, store = project
    write_index(store, [index_line("testing.md"), index_line("testing.md", hook="x" * 170)])
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["index_size"]
    assert check["status"] == "warn"
    assert "1 line is over 150 characters (line 2)" in check["message"]


# --- extraction and compaction ---------------------------------------------------------------


def prompt(session: Session, text: str) -> None:
    session._record("user", message={"role": "user", "content": text})


def test_main_agent_writing_memory_itself_is_reported_per_turn(project, capsys):
    claude, root, store = project
    session = Session(claude, root, "main", START)
    prompt(session, "let's fix the billing tests")
    prompt(session, "remember: never mock the clock")
    session.write(store / "feedback_clock.md", memory_text(name="clock"), None)
    session._record("system", subtype="memory_saved",
                    writtenPaths=[str(store / "testing.md")])
    session.save()
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["extraction"]
    assert check["status"] == "warn"
    assert "in 1 turn the main agent wrote memory itself" in check["message"]
    assert "in turn 2" in check["message"]
    assert "1 memory_saved event," in check["message"]
    assert check["fix"] == memtui(claude, "extract", session.id, "--force")


def test_sessions_and_turns_past_those_quoted_are_counted(project, capsys):
    claude, root, store = project
    for number, turns in enumerate((1, 1, 1, 6)):
        session = Session(claude, root, f"main-{number}", START + timedelta(hours=number))
        for turn in range(turns):
            prompt(session, f"remember fact {turn}")
            session.write(store / f"fact_{number}_{turn}.md", memory_text(name="fact"), None)
        session.save()
    _, report, _ = run_doctor(claude, root, capsys)
    message = checks_of(report)["extraction"]["message"]
    assert "in 9 turns the main agent wrote memory itself" in message
    assert "in turns 1, 2, 3, 4, 5 and 1 more" in message
    assert message.endswith("; and 1 more session).")


@pytest.mark.parametrize("names", [("main",), ("first", "second")],
                         ids=["one session", "two saving at the same moment"])
def test_extraction_saving_normally_is_ok_with_its_time(project, capsys, names):
    claude, root, store = project
    for name in names:  # one start: two sessions' records share every timestamp
        session = Session(claude, root, name, START)
        prompt(session, "hello")
        saved = session._record("system", subtype="memory_saved",
                                writtenPaths=[str(store / "testing.md")])
        session.save()
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["extraction"]
    assert check["status"] == "ok"
    assert (f"{plural(len(names), 'memory_saved event')}, the last extraction saved memory at "
            f"{saved['timestamp']}") in check["message"]


def test_compaction_after_unsaved_messages_warns_with_the_extract_command(project, capsys):
    claude, root, store = project
    session = Session(claude, root, "main", START)
    prompt(session, "first")
    session._record("system", subtype="memory_saved", writtenPaths=[str(store / "testing.md")])
    for text in ("second", "third", "fourth"):
        prompt(session, text)
    boundary = session._record("system", subtype="compact_boundary",
                               content="Conversation compacted",
                               compactMetadata={"trigger": "auto", "preTokens": 167094})
    session._record("user", isCompactSummary=True,
                    message={"role": "user", "content": "This session is being continued"})
    prompt(session, "fifth")
    session.save()
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["compaction"]
    assert check["status"] == "warn"
    assert f"compacted at {boundary['timestamp']} with 3 user messages" in check["message"]
    # The save before them is in what extract reads: it extracts them only when forced.
    assert check["fix"] == memtui(claude, "extract", session.id, "--force")


def test_compaction_right_after_a_save_is_fine(project, capsys):
    claude, root, store = project
    session = Session(claude, root, "main", START)
    prompt(session, "first")
    session._record("system", subtype="memory_saved", writtenPaths=[str(store / "testing.md")])
    session._record("system", subtype="compact_boundary", content="Conversation compacted")
    session.save()
    _, report, _ = run_doctor(claude, root, capsys)
    assert checks_of(report)["compaction"]["status"] == "ok"


def test_a_dreams_memory_saved_is_not_an_extraction_save(project, capsys):
    """Reference §8: a dream's `memory_saved` carries `verb: "Improved"`; it says nothing
    about extraction, so it neither counts as a save nor covers the messages before it."""
    claude, root, store = project
    session = Session(claude, root, "main", START)
    for text in ("first", "second"):
        prompt(session, text)
    session._record("system", subtype="memory_saved", verb="Improved",
                    writtenPaths=[str(store / "testing.md")])
    boundary = session._record("system", subtype="compact_boundary",
                               content="Conversation compacted")
    session.save()
    _, report, _ = run_doctor(claude, root, capsys)
    checks = checks_of(report)
    assert "0 memory_saved events" in checks["extraction"]["message"]
    assert checks["compaction"]["status"] == "warn"
    assert f"compacted at {boundary['timestamp']} with 2 user messages" in (
        checks["compaction"]["message"])


def test_memory_changed_through_bash_does_not_skip_extraction(project, capsys):
    """Reference §6 and §8: extraction skips a turn only when the main agent wrote a memory
    file with Write or Edit; a Bash command touching memory shows only as its command
    string, and Claude Code's check does not read it."""
    claude, root, store = project
    session = Session(claude, root, "main", START)
    prompt(session, "remember: never mock the clock")
    command = f"echo '- never mock the clock' >> {store / 'testing.md'}"
    session._tool("Bash", {"command": command, "description": "append to memory"},
                  {"stdout": "", "stderr": "", "interrupted": False}, "")
    session._record("system", subtype="memory_saved", writtenPaths=[str(store / "testing.md")])
    session.save()
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["extraction"]
    assert check["status"] == "ok"
    assert "wrote memory itself" not in check["message"]
    assert "1 memory_saved event," in check["message"]


# --- worktrees -------------------------------------------------------------------------------


def test_worktrees_overwriting_each_other_fail_with_the_lost_update(worktrees, capsys):
    claude, tree_a, tree_b, store = worktrees
    _, b, memory = blind_overwrite(worktrees)
    code, report, _ = run_doctor(claude, store, capsys)
    check = checks_of(report)["worktrees"]
    assert code == 1
    assert check["status"] == "fail"
    assert "1 lost update, 1 line in all" in check["message"]
    assert f"session {b.id[:8]} in {tree_b}" in check["message"]
    assert memtui(claude, "watch", store) in check["fix"] and "autoMemoryDirectory" in check["fix"]


def test_worktrees_writing_in_overlapping_periods_warn(worktrees, capsys):
    claude, tree_a, tree_b, store = worktrees
    a = Session(claude, tree_a, "feature-a", START)
    b = Session(claude, tree_b, "feature-b", START + timedelta(seconds=30))
    a.write(store / "a.md", "a\n", None)
    b.write(store / "b.md", "b\n", None)
    a.clock = b.clock = START + timedelta(minutes=10)
    a.write(store / "a.md", "a2\n", "a\n")
    b.write(store / "b.md", "b2\n", "b\n")
    a.save()
    b.save()
    _, report, _ = run_doctor(claude, store, capsys)
    check = checks_of(report)["worktrees"]
    assert check["status"] == "warn"
    assert str(tree_a) in check["message"] and str(tree_b) in check["message"]
    assert check["fix"].startswith(memtui(claude, "watch", store))


# --- nothing leaves the machine ----------------------------------------------------------------


def test_without_online_no_connection_is_made(project, capsys, monkeypatch, fake):
    claude, root, _ = project
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)
    attempts: list[object] = []
    real_connect = socket.socket.connect

    def record(self, address):
        attempts.append(address)
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", record)
    code, report, _ = run_doctor(claude, root, capsys)
    assert code == 0
    assert "api_probe" not in checks_of(report)
    assert fake.requests == []
    assert attempts == []


# --- more of each check ----------------------------------------------------------------------


def test_assistant_mode_daily_logs_mean_no_automatic_dream(project, capsys, monkeypatch):
    """Only a model distills daily logs: without a key the dream the fix runs is offline,
    and the fix says what that one leaves."""
    claude, root, store = project
    write_memory(store, "logs/2026/11/2026-11-29.md", "- 09:14 the user prefers pnpm\n")
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["dream_gates"]
    assert check["status"] == "warn"
    assert "assistant-mode daily logs (logs/2026/11/2026-11-29.md" in check["message"]
    assert check["fix"] == memtui(claude, "dream", root) + (
        " (with no key memtui dreams offline: it consolidates the store and leaves the daily "
        "logs to a dream with a model, --engine anthropic)")

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    _, report, _ = run_doctor(claude, root, capsys)
    assert checks_of(report)["dream_gates"]["fix"] == memtui(claude, "dream", root)


def test_lock_holding_no_pid_warns(project, capsys):
    claude, root, store = project
    lock = set_lock(store, "not-a-pid", 5 * 60)
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["dream_lock"]
    assert check["status"] == "warn"
    assert "holds no process id" in check["message"]
    assert check["fix"].startswith(f"rm {lock}")


def test_memory_path_override_is_named_as_the_source(project, capsys, monkeypatch, fake_home):
    claude, root, _ = project
    elsewhere = fake_home / "memory-override"
    monkeypatch.setenv("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", str(elsewhere))
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["memory_dir"]
    assert report["store"] == str(elsewhere)
    assert check["status"] == "ok"
    assert "set by CLAUDE_COWORK_MEMORY_PATH_OVERRIDE" in check["message"]


def test_a_memory_path_override_with_a_tilde_is_refused_and_said_so(project, capsys,
                                                                    monkeypatch):
    """Reference §2: the variable is not `~/`-expanded, so `~/memory` is a relative path,
    which Claude Code refuses: the project keeps its default store."""
    claude, root, store = project
    monkeypatch.setenv("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "~/memory")
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["memory_dir"]
    assert report["store"] == str(store)
    assert check["status"] == "warn"
    assert ("Claude Code refuses CLAUDE_COWORK_MEMORY_PATH_OVERRIDE '~/memory' is relative"
            in check["message"])


def test_a_relative_memory_directory_is_refused_and_said_so(project, capsys):
    claude, root, store = project
    settings(claude.home / "settings.json", {"autoMemoryDirectory": "notes/memory"})
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["memory_dir"]
    assert report["store"] == str(store)  # the default, as Claude Code falls back to it
    assert check["status"] == "warn"
    assert "Claude Code refuses autoMemoryDirectory 'notes/memory'" in check["message"]
    assert "is relative" in check["message"]


def test_a_refused_memory_directory_is_not_replaced_by_the_next_files(project, capsys,
                                                                       fake_home):
    """Reference §2: Claude Code reads `autoMemoryDirectory` from the first settings file
    holding it; when that value is refused, the store is the default one, not the value of
    a file further down."""
    claude, root, store = project
    settings(root / ".claude" / "settings.local.json", {"autoMemoryDirectory": "notes/memory"})
    settings(claude.home / "settings.json", {"autoMemoryDirectory": str(fake_home / "mem")})
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["memory_dir"]
    assert report["store"] == str(store)
    assert "(the default, keyed by the project root" in check["message"]
    assert "Claude Code refuses autoMemoryDirectory 'notes/memory'" in check["message"]


def test_a_store_keyed_by_a_worktree_is_stranded(tmp_path, claude_home, capsys):
    repo = make_repo(tmp_path / "shop")
    tree = real(add_worktree(repo, tmp_path / "shop-wt", "feature"))
    stranded = claude_home.store(tree)  # newer builds were seen keying a store by the worktree
    write_memory(stranded, "testing.md", memory_text())
    write_index(stranded, [index_line("testing.md")])
    _, report, _ = run_doctor(claude_home, stranded, capsys)
    check = checks_of(report)["memory_dir"]
    assert report["store"] == str(stranded)
    assert check["status"] == "warn"
    assert f"is not the memory directory of {real(tmp_path / 'shop')}" in check["message"]
    assert "this store is stranded" in check["message"]
    assert check["fix"] == (f"{memtui(claude_home, 'fix', stranded, 'rescue')} copies its memories into "
                            f"{claude_home.store(real(tmp_path / 'shop'))} (memtui undo there "
                            "takes it back)")


def test_a_stranded_store_no_rescue_can_take_home_gets_no_rescue_command(claude_home, capsys):
    stranded = claude_home.store(folder="-home-me-gone-wt")  # no path, no session names one
    write_index(stranded, [index_line("testing.md")])
    _, report, _ = run_doctor(claude_home, stranded, capsys)
    check = checks_of(report)["memory_dir"]
    assert check["status"] == "warn"
    assert "a rescue finds no store for its memories: no path on this machine has its " \
           "folder name, and no session names the checkout it came from" in check["message"]
    assert check["fix"] is None


def test_a_boolean_setting_written_as_text_is_flagged(project, capsys):
    claude, root, _ = project
    user = settings(claude.home / "settings.json", {"autoMemoryEnabled": "false"})
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["settings_keys"]
    assert check["status"] == "warn"
    assert f"\"autoMemoryEnabled\" at {user}:2 is 'false', not true or false" in check["message"]
    assert checks_of(report)["auto_memory"]["status"] == "ok"  # text is no boolean: the default


def test_many_messages_and_no_save_warn_that_extraction_may_not_run(project, capsys):
    claude, root, _ = project
    session = Session(claude, root, "main", START)
    for number in range(12):
        prompt(session, f"task {number}")
    session.save()
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["extraction"]
    assert check["status"] == "warn"
    assert "12 user messages: 0 memory_saved events, no memory_saved record" in check["message"]
    assert check["fix"] == memtui(claude, "extract", session.id)


def test_a_memtui_extraction_past_the_compaction_clears_it(project, capsys):
    from tui.agents.conversation import save_cursor

    claude, root, _ = project
    session = Session(claude, root, "main", START)
    for text in ("first", "second"):
        prompt(session, text)
    session._record("system", subtype="compact_boundary", content="Conversation compacted")
    last = session._record("user", message={"role": "user", "content": "third"})
    path = session.save()
    _, report, _ = run_doctor(claude, root, capsys)
    assert checks_of(report)["compaction"]["status"] == "warn"

    save_cursor(session.id, path, last["uuid"])  # what `memtui extract` leaves
    _, report, _ = run_doctor(claude, root, capsys)
    assert checks_of(report)["compaction"]["status"] == "ok"


def test_memtuis_own_config_toml_is_checked_as_memtuis(project, capsys):
    from tui.agents.client import config_file

    claude, root, _ = project
    config_file().parent.mkdir(parents=True, exist_ok=True)
    config_file().write_text('[anthropic]\nbase_url = "https://gateway.example.com/v1"\n'
                             f'api_key = "{KEY} "\n', encoding="utf-8")
    _, report, output = run_doctor(claude, root, capsys)
    checks = checks_of(report)
    assert checks["api_base_url"]["status"] == "fail"
    assert "used by memtui" in checks["api_base_url"]["message"]
    assert checks["api_base_url"]["fix"] == (
        f'set base_url to "https://gateway.example.com" ([anthropic] in {config_file()})')
    assert checks["api_key"]["status"] == "fail"
    assert "a space at the end" in checks["api_key"]["message"]
    assert KEY[4:20] not in output


def test_a_config_toml_memtui_cannot_use_is_one_sentence_in_the_api_key_check(project, capsys):
    from tui.agents.client import config_file

    claude, root, _ = project
    config_file().parent.mkdir(parents=True, exist_ok=True)
    config_file().write_text('[anthropic]\nmodel = 5\n', encoding="utf-8")
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["api_key"]
    assert check["status"] == "fail"
    assert check["message"] == f"{config_file()}: `model` in [anthropic] must be a string."


def test_worktrees_stop_failing_once_every_lost_line_is_merged_back(worktrees, capsys):
    from tui import cli

    claude, tree_a, tree_b, store = worktrees
    blind_overwrite(worktrees)
    assert cli.main(["--config-dir", str(claude.home), "merge", str(store / "feedback_testing.md"), "--yes"]) == 0
    capsys.readouterr()

    code, report, _ = run_doctor(claude, store, capsys)

    check = checks_of(report)["worktrees"]
    assert check["status"] != "fail"
    assert "1 lost update found earlier, every line merged back" in check["message"]
