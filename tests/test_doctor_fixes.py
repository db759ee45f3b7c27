"""`memtui doctor`'s printed fixes, applied literally: each case is built, its check read,
the fix applied word for word as printed (a shell command in a shell, a memtui command
through the CLI as typed at a terminal answering "y", a settings edit exactly where the
fix names it), and the check read again: it must pass.

Also the cases an outside review found wrong: assistant mode's dream, a memory directory
path taken by a file, proxy passwords, the probe sending what Claude Code sends, and a
settings file with a UTF-8 byte order mark.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ClaudeHome, memory_text
from doctor_home import build_project, checks_of, memtui, run_doctor, settings
from fake_anthropic import FakeAnthropic, reply, text
from test_doctor import prompt
from test_history_transcripts import START, Session

from tui import cli


@pytest.fixture
def project(fake_home, claude_home):
    return build_project(fake_home, claude_home)


def check_of(claude, root, capsys, check_id: str, *extra: str) -> dict:
    _, report, output = run_doctor(claude, root, capsys, *extra)
    check = checks_of(report)[check_id]
    check["output"] = output
    return check


REMOVE = object()


def _json_edit(path: Path, *keys: str, value=REMOVE) -> None:
    """Set (or remove) one key of a settings file, nested keys first to last."""
    raw = path.read_bytes()
    bom = raw.startswith(b"\xef\xbb\xbf")
    data = json.loads(raw.decode("utf-8-sig"))
    holder = data
    for key in keys[:-1]:
        holder = holder[key]
    if value is REMOVE:
        holder.pop(keys[-1])
    else:
        holder[keys[-1]] = value
    path.write_text(("\ufeff" if bom else "") + json.dumps(data, indent=2) + "\n",
                    encoding="utf-8")


def apply(fix: str, monkeypatch, capsys) -> None:
    """Do what one printed fix says, word for word (several, joined by "; ", in turn)."""
    for step in fix.split("; "):
        if step.startswith(("export ", "unset ")):
            name = re.match(r"(?:export|unset) (\w+)", step).group(1)
            shell = subprocess.run(["bash", "-c", f'{step}; printf %s "${{{name}-<unset>}}"'],
                                   capture_output=True, text=True, check=True, env=os.environ)
            if shell.stdout == "<unset>":
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, shell.stdout)
        elif step.startswith("mv "):
            subprocess.run(["bash", "-c", step], check=True)
        elif step.startswith("memtui "):
            _typed_at_a_terminal(shlex.split(step)[1:], capsys)
        elif found := re.fullmatch(r'remove "(\w+)" from the "env" block of (\S+)', step):
            name, file = found.groups()
            _json_edit(Path(file), "env", name)
        elif found := re.fullmatch(r'set "(\w+)": (\S+) in (\S+)(?: \(.*\))?', step):
            key, value, file = found.groups()
            _json_edit(Path(file), key, value=json.loads(value))
        elif found := re.fullmatch(r'set (\w+) to "(.*)" \("env" in (\S+)\)', step):
            name, value, file = found.groups()
            _json_edit(Path(file), "env", name, value=value)
        else:
            raise AssertionError(f"a fix this test cannot apply literally: {step!r}")


def _typed_at_a_terminal(argv: list[str], capsys) -> None:
    """A memtui command as a user runs it: at a terminal, answering "y" to its question."""
    with pytest.MonkeyPatch.context() as terminal:
        terminal.setattr(sys.stdin, "isatty", lambda: True, raising=False)
        terminal.setattr(sys.stdout, "isatty", lambda: True, raising=False)
        terminal.setattr("builtins.input", lambda question="": "y")
        code = cli.main(argv)
    output = capsys.readouterr()
    assert code == 0, output


# --- assistant mode ----------------------------------------------------------------------


def test_assistant_mode_in_settings_turns_the_automatic_dream_off(project, capsys, monkeypatch):
    claude, root, _ = project
    user = settings(claude.home / "settings.json", {"assistant": True})
    check = check_of(claude, root, capsys, "dream_gates")
    assert check["status"] == "warn"
    assert f'Assistant mode is on ("assistant": true in {user}:2)' in check["message"]
    assert "the automatic dream does not run" in check["message"]
    setting, _, run_now = check["fix"].partition(", or run ")
    assert run_now == memtui(claude, "dream", root)

    apply(setting, monkeypatch, capsys)
    assert check_of(claude, root, capsys, "dream_gates")["status"] == "ok"


# --- the memory directory's path taken by a file ------------------------------------------


@pytest.mark.parametrize("kind", ["a regular file", "a symlink to a file"])
def test_a_memory_directory_path_that_is_a_file_fails_and_its_fix_moves_it_aside(
        fake_home, claude_home, capsys, monkeypatch, tmp_path, kind):
    claude, root, store = build_project(fake_home, claude_home)
    for file in store.iterdir():
        file.unlink()
    store.rmdir()
    if kind == "a regular file":
        store.write_text("notes kept in the wrong place\n", encoding="utf-8")
        kept = store
    else:
        kept = tmp_path / "elsewhere.md"
        kept.write_text("notes kept in the wrong place\n", encoding="utf-8")
        store.symlink_to(kept)
    check = check_of(claude, root, capsys, "memory_dir")
    assert check["status"] == "fail"
    assert f"is {kind}" in check["message"]
    assert "does not exist yet" not in check["message"]
    aside = Path(f"{store}.not-a-directory")
    assert check["fix"] == shlex.join(["mv", "-n", "--", str(store), str(aside)])

    apply(check["fix"], monkeypatch, capsys)
    after = check_of(claude, root, capsys, "memory_dir")
    assert after["status"] == "ok", after
    assert "Claude Code creates it at the first save" in after["message"]
    assert aside.read_text(encoding="utf-8") == "notes kept in the wrong place\n"
    if kind != "a regular file":
        assert aside.is_symlink() and kept.read_text(encoding="utf-8")  # the target untouched


def test_moving_the_file_aside_never_overwrites_an_earlier_one(project, capsys):
    claude, root, store = project
    for file in store.iterdir():
        file.unlink()
    store.rmdir()
    store.write_text("second\n", encoding="utf-8")
    Path(f"{store}.not-a-directory").write_text("first\n", encoding="utf-8")
    check = check_of(claude, root, capsys, "memory_dir")
    assert check["fix"].endswith(shlex.quote(f"{store}.not-a-directory-2"))


# --- proxies: passwords never printed, fixes where the proxy is set -------------------------


def test_a_proxy_password_is_never_printed(project, capsys, monkeypatch, refused_port):
    claude, root, _ = project
    port = refused_port
    monkeypatch.setenv("HTTPS_PROXY", f"http://alice:PROXYPASS99@127.0.0.1:{port}")
    check = check_of(claude, root, capsys, "proxy")
    assert check["status"] == "fail"
    assert f"HTTPS_PROXY=http://alice:***@127.0.0.1:{port}" in check["message"]
    assert "PROXYPASS99" not in check["output"]
    code = cli.main(["--config-dir", str(claude.home), "doctor", str(root)])
    assert code == 1 and "PROXYPASS99" not in capsys.readouterr().out


def test_a_proxy_password_is_never_printed_by_the_probe(project, capsys, monkeypatch, fake,
                                                        refused_port):
    claude, root, _ = project
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)
    monkeypatch.setenv("HTTP_PROXY", f"http://alice:PROXYPASS99@127.0.0.1:{refused_port}")
    check = check_of(claude, root, capsys, "api_probe", "--online")
    assert check["status"] == "fail" and "through the proxy" in check["message"]
    assert "alice:***@" in check["message"]
    assert "PROXYPASS99" not in check["output"]
    assert fake.requests == []


def test_the_probe_goes_through_the_proxy_of_a_settings_env_block_unless_no_proxy(
        project, capsys, monkeypatch, fake, refused_port):
    claude, root, _ = project
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)
    user = settings(claude.home / "settings.json",
                    {"env": {"HTTP_PROXY": f"http://127.0.0.1:{refused_port}"}})
    check = check_of(claude, root, capsys, "api_probe", "--online")
    assert check["status"] == "fail" and f'"env" in {user}' in check["message"]
    assert fake.requests == []  # it went to the proxy Claude Code would use

    fake.queue(reply(text("p")))
    settings(user, {"env": {"HTTP_PROXY": f"http://127.0.0.1:{refused_port}",
                            "NO_PROXY": "127.0.0.1"}})
    assert check_of(claude, root, capsys, "api_probe", "--online")["status"] == "ok"
    assert len(fake.requests) == 1


def test_a_proxy_set_in_a_settings_env_block_is_fixed_in_that_file(project, capsys, monkeypatch,
                                                                   refused_port):
    claude, root, _ = project
    user = settings(claude.home / "settings.json",
                    {"env": {"HTTPS_PROXY": f"http://127.0.0.1:{refused_port}"}})
    check = check_of(claude, root, capsys, "proxy")
    assert check["status"] == "fail"
    start, _, remove = check["fix"].partition(", or ")
    assert remove == f'remove "HTTPS_PROXY" from the "env" block of {user}'

    apply(remove, monkeypatch, capsys)
    assert check_of(claude, root, capsys, "proxy")["status"] == "ok"


def test_a_proxy_set_in_a_settings_file_and_the_shell_is_removed_from_both(
        project, capsys, monkeypatch, refused_port):
    claude, root, _ = project
    port = refused_port
    user = settings(claude.home / "settings.json",
                    {"env": {"HTTPS_PROXY": f"http://127.0.0.1:{port}"}})
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{port}")
    check = check_of(claude, root, capsys, "proxy")
    remove = check["fix"].partition(", or ")[2]
    assert remove == f'remove "HTTPS_PROXY" from the "env" block of {user}; unset HTTPS_PROXY'
    apply(remove, monkeypatch, capsys)
    assert check_of(claude, root, capsys, "proxy")["status"] == "ok"


# --- --online probes what Claude Code would use ---------------------------------------------


def test_the_probe_uses_the_base_url_key_and_model_of_a_settings_env_block(
        project, capsys, monkeypatch):
    """A /v1 base URL set in settings, not in the shell: the probe goes there (and gets
    404), not to api.anthropic.com; its fix, applied in that file, makes it answer."""
    claude, root, _ = project
    with FakeAnthropic(accepts="x-api-key") as gateway:
        gateway.queue(reply(text("p")))
        user = settings(claude.home / "settings.json", {"env": {
            "ANTHROPIC_BASE_URL": gateway.url + "/v1", "ANTHROPIC_API_KEY": gateway.api_key,
            "ANTHROPIC_MODEL": "claude-gateway-1"}})
        check = check_of(claude, root, capsys, "api_probe", "--online")
        assert [r["path"] for r in gateway.requests] == ["/v1/v1/messages"]
        assert check["status"] == "fail" and "ends in /v1" in check["message"]
        assert check["fix"] == f'set ANTHROPIC_BASE_URL to "{gateway.url}" ("env" in {user})'

        apply(check["fix"], monkeypatch, capsys)
        check = check_of(claude, root, capsys, "api_probe", "--online")
        assert check["status"] == "ok", check
        request = gateway.requests[-1]
        assert request["body"]["model"] == "claude-gateway-1"
        assert "(ANTHROPIC_MODEL (\"env\" in" in check["message"]


@pytest.mark.parametrize(("variable", "header"), [
    ("ANTHROPIC_API_KEY", "x-api-key"), ("ANTHROPIC_AUTH_TOKEN", "bearer")])
def test_the_probe_authenticates_as_claude_code_does(project, capsys, monkeypatch, variable,
                                                     header):
    """ANTHROPIC_API_KEY goes as `x-api-key`, ANTHROPIC_AUTH_TOKEN as `Authorization:
    Bearer` (the SDK alone would send the key as a bearer token): a gateway taking only
    one of them accepts the probe as it accepts Claude Code."""
    claude, root, _ = project
    with FakeAnthropic(accepts=header) as gateway:
        gateway.queue(reply(text("p")))
        monkeypatch.setenv("ANTHROPIC_BASE_URL", gateway.url)
        monkeypatch.setenv(variable, gateway.api_key)
        check = check_of(claude, root, capsys, "api_probe", "--online")
        assert check["status"] == "ok", check
        [request] = gateway.requests
    if header == "x-api-key":
        assert (request["x_api_key"], request["authorization"]) == (gateway.api_key, None)
    else:
        assert (request["x_api_key"], request["authorization"]) == (
            None, f"Bearer {gateway.api_key}")


def test_both_credentials_go_as_claude_code_sends_them(project, capsys, monkeypatch):
    claude, root, _ = project
    with FakeAnthropic() as gateway:
        gateway.queue(reply(text("p")))
        monkeypatch.setenv("ANTHROPIC_BASE_URL", gateway.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", gateway.api_key)
        monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "token-for-the-gateway")
        check_of(claude, root, capsys, "api_probe", "--online")
        [request] = gateway.requests
    assert request["x_api_key"] == gateway.api_key
    assert request["authorization"] == "Bearer token-for-the-gateway"


def test_memtuis_own_runs_authenticate_as_claude_code_does(project, capsys, monkeypatch):
    """A dream against a gateway that takes only `x-api-key`: it gets through."""
    claude, root, store = project
    with FakeAnthropic(accepts="x-api-key") as gateway:
        gateway.queue(*[reply(text("Nothing to change."))] * 4)  # one reply per phase
        monkeypatch.setenv("ANTHROPIC_BASE_URL", gateway.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", gateway.api_key)
        code = cli.main(["--config-dir", str(claude.home), "dream", str(store), "--engine",
                         "anthropic", "--json", "--dry-run"])
        result = json.loads(capsys.readouterr().out)
        assert gateway.requests and all(r["x_api_key"] == gateway.api_key
                                        and r["authorization"] is None
                                        for r in gateway.requests)
    assert code == 0 and result["status"] == "succeeded", (result.get("error"), result.get("log"))


# --- the other fixes, applied literally ----------------------------------------------------


def test_a_checked_in_memory_directory_fix_names_the_config_homes_settings(
        project, capsys, monkeypatch):
    """With CLAUDE_CONFIG_DIR set, the user's settings are $CLAUDE_CONFIG_DIR/settings.json,
    not ~/.claude/settings.json: the fix names that file, and moving the line there works."""
    claude, root, _ = project
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude.home))
    checked_in = settings(root / ".claude" / "settings.json",
                          {"autoMemoryDirectory": "~/notes/shop-memory"})
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["memory_dir"]
    assert check["status"] == "warn"
    user = claude.home / "settings.json"
    assert check["fix"] == (f"to use it, move the line to {root / '.claude'}/settings.local.json "
                            f"or {user}; else remove it")
    assert "~/.claude" not in check["fix"]

    _json_edit(checked_in, "autoMemoryDirectory")  # the move: out of the checked-in file...
    settings(user, {"autoMemoryDirectory": "~/notes/shop-memory"})  # ...and in, as named
    _, report, _ = run_doctor(claude, root, capsys)
    check = checks_of(report)["memory_dir"]
    assert check["status"] == "ok", check
    assert report["store"] == str(Path.home() / "notes" / "shop-memory")


def test_the_compaction_fix_extracts_the_messages_it_warned_about(project, capsys, monkeypatch):
    """The session saved memory before the messages the compaction dropped: a plain
    `memtui extract` would refuse the range; the printed command extracts it."""
    claude, root, store = project
    session = Session(claude, root, "main", START)
    prompt(session, "first")
    session._record("system", subtype="memory_saved", writtenPaths=[str(store / "testing.md")])
    prompt(session, "From now on always run the linter before committing.")
    session._record("system", subtype="compact_boundary", content="Conversation compacted")
    session.save()
    check = check_of(claude, root, capsys, "compaction")
    assert check["status"] == "warn"
    assert check["fix"] == memtui(claude, "extract", session.id, "--force")
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")  # a shell that never heard of this home

    apply(check["fix"], monkeypatch, capsys)
    assert check_of(claude, root, capsys, "compaction")["status"] == "ok"
    saved = [path.read_text(encoding="utf-8") for path in store.glob("*.md")]
    assert any("run the linter before committing" in text for text in saved)


def test_the_extraction_fix_extracts_the_turns_the_agent_wrote_in(project, capsys,
                                                                   monkeypatch):
    claude, root, store = project
    session = Session(claude, root, "main", START)
    prompt(session, "Always pin dependency versions in this repo.")
    session.write(store / "feedback_clock.md", memory_text(name="clock"), None)
    session.save()
    check = check_of(claude, root, capsys, "extraction")
    assert check["status"] == "warn"
    assert check["fix"] == memtui(claude, "extract", session.id, "--force")

    apply(check["fix"], monkeypatch, capsys)
    assert check_of(claude, root, capsys, "extraction")["status"] == "ok"


def test_a_fix_on_the_default_config_home_names_none(fake_home, capsys, monkeypatch):
    """~/.claude needs no --config-dir: the printed command is the plain one, and it runs as
    printed in a shell without CLAUDE_CONFIG_DIR."""
    (fake_home / ".claude" / "projects").mkdir(parents=True)
    claude = ClaudeHome(fake_home / ".claude")
    claude, root, store = build_project(fake_home, claude)
    session = Session(claude, root, "main", START)
    for number in range(12):
        prompt(session, f"message {number}")
    session.save()
    check = check_of(claude, root, capsys, "extraction")
    assert check["fix"] == f"memtui extract {session.id}"
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")

    apply(check["fix"], monkeypatch, capsys)
    assert check_of(claude, root, capsys, "extraction")["status"] == "ok"


# --- a settings file with a UTF-8 byte order mark -------------------------------------------


def test_a_settings_file_with_a_bom_is_read_as_claude_code_reads_it(project, capsys):
    """Claude Code's settings loader parses with safeParseJSON, which strips a leading
    U+FEFF before JSON.parse (Node's readFileSync(…, 'utf8') keeps it, and JSON.parse alone
    would reject it): the file's settings apply. memtui reads it the same, and says so."""
    claude, root, _ = project
    user = claude.home / "settings.json"
    user.write_bytes(b"\xef\xbb\xbf" + json.dumps({"autoMemoryEnabled": False}).encode())
    _, report, _ = run_doctor(claude, root, capsys)
    checks = checks_of(report)
    assert checks["auto_memory"]["status"] == "fail"  # the setting is read: memory is off
    assert str(user) in checks["auto_memory"]["message"]
    keys = checks["settings_keys"]
    assert keys["status"] == "ok"
    assert "is not valid JSON" not in keys["message"]
    assert (f"{user} starts with a UTF-8 byte order mark, which Claude Code drops before "
            "parsing: the file is read as if the mark were not there") in keys["message"]


def test_a_settings_flag_file_with_a_bom_is_usable(project, capsys, tmp_path):
    claude, root, _ = project
    flag = tmp_path / "flag.json"
    flag.write_bytes(b"\xef\xbb\xbf" + json.dumps({"autoMemoryEnabled": False}).encode())
    code = cli.main(["--config-dir", str(claude.home), "--settings", str(flag), "doctor",
                     str(root), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert str(flag) in checks_of(report)["auto_memory"]["message"]
