"""`memtui serve`: the app's web page answers on the port it was given, and loads nothing
from another host."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

import browser_page
import pytest
from waiting import PATIENCE

pytest.importorskip("textual_serve", reason="textual-serve is not installed")



def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str, server: subprocess.Popen) -> str:
    """The page at `url`, retried while the server starts; fails if it dies or never answers."""
    deadline = time.monotonic() + PATIENCE
    while True:
        assert server.poll() is None, f"memtui serve exited early:\n{server.stdout.read()}"
        try:
            with urllib.request.urlopen(url, timeout=PATIENCE / 3) as response:
                assert response.status == 200
                assert response.headers.get_content_type() == "text/html"
                return response.read().decode("utf-8")
        except OSError:  # not listening yet, or too slow to answer (URLError, a timeout)
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@contextmanager
def serving(home) -> Iterator[tuple[str, subprocess.Popen]]:
    """`memtui serve` on a free port of 127.0.0.1: (its URL, its process)."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tui", "--config-dir", str(home),
         "serve", "--port", str(port), "--host", "127.0.0.1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        yield f"http://127.0.0.1:{port}/", server
    finally:
        browser_page.stop(server)


def test_serve_answers_with_the_app_page(claude_home):
    with serving(claude_home.home) as (url, server):
        page = fetch(url, server)
    port = urllib.parse.urlsplit(url).port
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


# --- nothing from another host: the page shows memory contents --------------------------

# Where a page, a stylesheet or a script names something to load.
_PAGE_REFERENCES = re.compile(r"""\b(?:src|href)\s*=\s*["']([^"']+)["']|url\(\s*["']?([^"')]+)""")
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_ABSOLUTE = re.compile(r"""["'`((](?:https?|wss?):(//[^"'`)\s]+)""")


def fetched(url: str) -> tuple[str, str]:
    """(the Content-Security-Policy header, the body) of a page the server is up for."""
    with urllib.request.urlopen(url, timeout=PATIENCE / 3) as response:
        return (response.headers.get("Content-Security-Policy", ""),
                response.read().decode("utf-8", errors="replace"))


def test_the_served_page_and_what_it_loads_name_no_other_host(claude_home):
    """Issue: the page linked fonts.googleapis.com. Every URL in the page, its stylesheets
    and scripts is on this server, and the browser is told to allow nothing else."""
    with serving(claude_home.home) as (url, server):
        page = fetch(url, server)
        own = urllib.parse.urlsplit(url).netloc
        policy, _ = fetched(url)
        loaded, texts = set(), {url: page}
        for reference in _references(page):
            target = urllib.parse.urljoin(url, reference)
            assert urllib.parse.urlsplit(target).netloc == own, reference
            loaded.add(target)
        for target in sorted(loaded):
            _, texts[target] = fetched(target)
            if target.endswith(".css"):
                for reference in _references(_CSS_COMMENT.sub("", texts[target])):
                    assert urllib.parse.urlsplit(
                        urllib.parse.urljoin(target, reference)).netloc == own, reference
    assert {urllib.parse.urlsplit(t).path.rsplit(".", 1)[-1] for t in loaded} >= {"css", "js"}
    for target, text in texts.items():
        if target.endswith(".css"):
            text = _CSS_COMMENT.sub("", text)
        elsewhere = [match for match in _ABSOLUTE.findall(text)
                     if not match.startswith(f"//{own}") and match != "//www.w3.org/2000/svg"]
        assert elsewhere == [], target
    assert "googleapis" not in page
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == f"'self' http://{own}"
    assert directives["connect-src"] == f"'self' http://{own} ws://{own}"


def _references(text: str) -> list[str]:
    return [first or second for first, second in _PAGE_REFERENCES.findall(text)
            if not (first or second).startswith(("data:", "#", "{{"))]


@pytest.mark.skipif(browser_page.CHROMIUM is None, reason="chromium is not installed")
def test_the_app_runs_in_a_browser_with_no_network(claude_home):
    """In chromium, with every host but this one unresolvable: the page asks this server
    alone, its WebSocket carries the app, and the browser blocks and misses nothing."""
    with serving(claude_home.home) as (url, server):
        fetch(url, server)
        visit = browser_page.visit(url, until_frames=5)
    own = urllib.parse.urlsplit(url).netloc
    assert visit.requests and all(urllib.parse.urlsplit(r).netloc == own
                                  for r in visit.requests), visit.requests
    assert any("/static/fonts/RobotoMono" in r for r in visit.requests)  # its font, from here
    assert [urllib.parse.urlsplit(s).netloc for s in visit.sockets] == [own]
    assert visit.frames >= 5, visit
    blocked = [line for line in visit.log
               if "Content Security Policy" in line or "ERR_NAME_NOT_RESOLVED" in line]
    assert blocked == []


def test_on_a_terminal_the_servers_colours_show_and_a_requests_data_is_shown_as_text(
        claude_home):
    """The banner and the request log are the server's own output, coloured; a header a
    request brings (here a C1 control, which some terminals obey) is data."""
    import os
    import pty
    import select

    port = free_port()
    terminal, side = pty.openpty()
    server = subprocess.Popen(
        [sys.executable, "-m", "tui", "--config-dir", str(claude_home.home),
         "serve", "--port", str(port), "--host", "127.0.0.1"],
        stdin=side, stdout=side, stderr=side, env={**os.environ, "TERM": "xterm-256color"})
    os.close(side)
    shown = b""

    def read_until(wanted: bytes) -> None:
        nonlocal shown
        deadline = time.monotonic() + PATIENCE
        while wanted not in shown and time.monotonic() < deadline:
            if select.select([terminal], [], [], 0.2)[0]:
                shown += os.read(terminal, 65536)

    try:
        fetch(f"http://127.0.0.1:{port}/", server)  # listening: the banner is out
        with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE) as request:
            request.sendall(b"GET /missing HTTP/1.1\r\nHost: here\r\n"
                            b"User-Agent: \xc2\x9b31mhostile\r\nConnection: close\r\n\r\n")
            while request.recv(65536):
                pass
        read_until(b"hostile")
    finally:
        browser_page.stop(server)
        os.close(terminal)
    text = shown.decode("utf-8", "replace")
    assert "Press Ctrl+C to quit" in text and "/missing" in text
    assert "\x1b[" in text and "\u241b" not in text  # colours sent, not shown as ␛[
    assert "<U+009B>31mhostile" in text and "\x9b" not in text
