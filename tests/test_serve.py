"""`memtui serve`: the app's web page answers on the port it was given."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

pytest.importorskip("textual_serve", reason="textual-serve is not installed")

STARTUP_SECONDS = 15.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str, server: subprocess.Popen) -> str:
    """The page at `url`, retried while the server starts; fails if it dies or never answers."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        assert server.poll() is None, f"memtui serve exited early:\n{server.stdout.read()}"
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                assert response.status == 200
                assert response.headers.get_content_type() == "text/html"
                return response.read().decode("utf-8")
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_serve_answers_with_the_app_page(claude_home):
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tui", "--config-dir", str(claude_home.home),
         "serve", "--port", str(port), "--host", "127.0.0.1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        page = fetch(f"http://127.0.0.1:{port}/", server)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert page.lstrip().lower().startswith("<!doctype html")
    assert ">memtui<" in page  # the title `memtui serve` gives the page
    assert f"ws://127.0.0.1:{port}/ws" in page  # where the page will run the app


def test_serve_on_a_busy_port_says_so_in_one_sentence(capsys):
    import socket

    from tui.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--host", "127.0.0.1", "--port", str(port)]) == 2
    error = capsys.readouterr().err
    assert "Cannot serve on 127.0.0.1" in error and "Traceback" not in error


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_serve_on_a_port_that_cannot_be_says_so_in_one_sentence(capsys, port):
    from tui.cli import main

    assert main(["serve", "--host", "127.0.0.1", "--port", port]) == 2
    error = capsys.readouterr().err
    assert error == (f"memtui serve: argument --port: {port!r} is not a port number "
                     "(1-65535).\n")
