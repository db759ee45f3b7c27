"""A page opened in headless chromium, watched through the DevTools protocol: every request
it makes, its WebSockets and the frames they receive, and what the browser logs.

Every host but 127.0.0.1 is made unresolvable, as on a machine with no network.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class PageVisit:
    requests: list[str] = field(default_factory=list)  # every URL the page asked for
    sockets: list[str] = field(default_factory=list)  # every WebSocket it opened
    frames: int = 0  # WebSocket frames it received
    log: list[str] = field(default_factory=list)  # the browser's log and console errors


def visit(url: str, until_frames: int, timeout: float = 30.0) -> PageVisit:
    """Open `url` and watch it until its WebSockets received `until_frames` frames (or
    `timeout` seconds passed)."""
    return asyncio.run(_visit(url, until_frames, timeout))


async def _visit(url: str, until_frames: int, timeout: float) -> PageVisit:
    import aiohttp

    # Chromium's helper processes may still be writing the profile as it is removed.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        browser = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--remote-debugging-port=0", f"--user-data-dir={profile}",
             "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            devtools = _devtools_url(browser)
            async with aiohttp.ClientSession() as client, \
                    client.ws_connect(devtools, max_msg_size=0) as socket:
                return await _watch(socket, url, until_frames, timeout)
        finally:
            stop(browser)


def stop(process: subprocess.Popen) -> None:
    """Ask a process to end; kill it if it has not within 10 s. A process that leads a
    group of its own (chromium and its helpers) ends with its group."""
    leads = _leads_group(process)
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if leads:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # helpers that outlived it
        except (ProcessLookupError, PermissionError):
            pass


def _leads_group(process: subprocess.Popen) -> bool:
    try:
        return os.getpgid(process.pid) == process.pid
    except ProcessLookupError:
        return False


def _devtools_url(browser: subprocess.Popen) -> str:
    for line in browser.stderr:
        found = re.search(r"DevTools listening on (ws://\S+)", line)
        if found:
            return found.group(1)
    raise RuntimeError("chromium exited before it listened for DevTools")


async def _watch(socket, url: str, until_frames: int, timeout: float) -> PageVisit:
    visit = PageVisit()
    calls = 0

    async def call(method: str, params: dict | None = None, session: str | None = None) -> int:
        nonlocal calls
        calls += 1
        message = {"id": calls, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        await socket.send_json(message)
        return calls

    created = await call("Target.createTarget", {"url": "about:blank"})
    attached = enabled = session = None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and visit.frames < until_frames:
        try:
            message = await asyncio.wait_for(socket.receive_json(), timeout=1)
        except TimeoutError:
            continue
        if message.get("id") == created:
            attached = await call("Target.attachToTarget",
                                  {"targetId": message["result"]["targetId"], "flatten": True})
        elif message.get("id") == attached:
            session = message["result"]["sessionId"]
            for method in ("Log.enable", "Runtime.enable", "Network.enable"):
                enabled = await call(method, session=session)
        elif message.get("id") == enabled:  # watching everything: only now the page loads
            await call("Page.navigate", {"url": url}, session=session)
        event, params = message.get("method"), message.get("params", {})
        if event == "Network.requestWillBeSent":
            visit.requests.append(params["request"]["url"])
        elif event == "Network.webSocketCreated":
            visit.sockets.append(params["url"])
        elif event == "Network.webSocketFrameReceived":
            visit.frames += 1
        elif event == "Log.entryAdded":
            visit.log.append(params["entry"]["text"])
        elif event == "Runtime.consoleAPICalled" and params.get("type") == "error":
            visit.log.append(" ".join(str(arg.get("value")) for arg in params["args"]))
        elif event == "Runtime.exceptionThrown":
            visit.log.append(str(params["exceptionDetails"].get("text")))
    return visit
