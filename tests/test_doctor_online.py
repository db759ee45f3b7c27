"""`memtui doctor --online`: one minimal Messages API call, its answer told apart.

Against the fake Messages API (tests/fake_anthropic.py) and a fake OpenAI-format server on
127.0.0.1; the real anthropic SDK makes the call.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from doctor_home import KEY, build_project, checks_of, run_doctor
from fake_anthropic import failure, reply, text


@pytest.fixture
def online(fake_home, claude_home, fake, monkeypatch):
    project = build_project(fake_home, claude_home)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)
    monkeypatch.setenv("ANTHROPIC_MODEL", "claude-test-1")
    return project, fake


def probe(claude, root, capsys) -> tuple[int, dict, str]:
    code, report, output = run_doctor(claude, root, capsys, "--online")
    return code, checks_of(report)["api_probe"], output


def test_a_working_endpoint_answers_a_one_token_request(online, capsys):
    (claude, root, _), fake = online
    fake.queue(reply(text("p")))
    code, check, _ = probe(claude, root, capsys)
    assert check["status"] == "ok", check
    assert code == 0
    [request] = fake.requests
    assert request["body"]["max_tokens"] == 1
    assert request["body"]["model"] == "claude-test-1"


def test_a_rejected_key_is_401_and_the_key_is_never_shown(online, capsys, monkeypatch):
    (claude, root, _), fake = online
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    code, check, output = probe(claude, root, capsys)
    assert code == 1
    assert check["status"] == "fail"
    assert "rejected the key (401)" in check["message"]
    assert fake.requests[0]["auth"] == KEY  # it was sent, to the endpoint only
    assert KEY[4:20] not in output


def test_a_base_url_ending_in_v1_gets_404_and_the_hint(online, capsys, monkeypatch):
    (claude, root, _), fake = online
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url + "/v1")
    _, check, _ = probe(claude, root, capsys)
    assert fake.requests[0]["path"] == "/v1/v1/messages"
    assert check["status"] == "fail"
    assert "ends in /v1" in check["message"]
    assert check["fix"] == f"export ANTHROPIC_BASE_URL={fake.url}"


def test_a_model_the_endpoint_does_not_serve(online, capsys):
    (claude, root, _), fake = online
    fake.queue(failure(404, "not_found_error", "model: claude-test-1"))
    _, check, _ = probe(claude, root, capsys)
    assert check["status"] == "fail"
    assert "does not serve model 'claude-test-1'" in check["message"]
    assert check["fix"].startswith("export ANTHROPIC_MODEL=")


@pytest.fixture
def openai_server():
    """An endpoint that answers every POST in OpenAI's chat-completion format."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            seen.append(self.path)
            raw = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt",
                              "choices": [{"index": 0, "finish_reason": "length",
                                           "message": {"role": "assistant", "content": "p"}}],
                              "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()


def test_an_openai_format_answer_is_named(online, capsys, monkeypatch, openai_server):
    (claude, root, _), _ = online
    url, seen = openai_server
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    _, check, _ = probe(claude, root, capsys)
    assert seen == ["/v1/messages"]
    assert check["status"] == "fail"
    assert "OpenAI format (`choices` instead of `content`)" in check["message"]


def test_a_refused_connection(online, capsys, monkeypatch, refused_port):
    (claude, root, _), _ = online
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{refused_port}")
    _, check, _ = probe(claude, root, capsys)
    assert check["status"] == "fail"
    assert check["message"].startswith("Could not connect to http://127.0.0.1:")


def test_a_local_proxy_that_is_not_running(online, capsys, monkeypatch, refused_port):
    (claude, root, _), fake = online
    port = refused_port
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{port}")
    _, check, _ = probe(claude, root, capsys)
    assert fake.requests == []
    assert check["status"] == "fail"
    assert "through the proxy" in check["message"]
    assert "unset" in check["fix"]


def test_no_key_means_no_probe(online, capsys, monkeypatch):
    (claude, root, _), fake = online
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    _, check, _ = probe(claude, root, capsys)
    assert check["status"] == "skip"
    assert fake.requests == []


def test_a_server_error_is_named_with_its_status(online, capsys):
    (claude, root, _), fake = online
    fake.queue(failure(529, "overloaded_error", "Overloaded"))
    _, check, _ = probe(claude, root, capsys)
    assert check["status"] == "fail"
    assert check["message"] == f"{fake.url} answered 529: Overloaded."
    assert check["fix"] == "try again later"
