"""git as a child process of sync: never a prompt, never waiting on a remote that does not
answer, never outliving memtui.

Every git runs in a process group of its own, so what it starts (`ssh`, a credential
helper, `git-remote-https`) is ended with it. A call that talks to the remote also runs
with connect and low-speed limits (ssh `ConnectTimeout`, `ServerAliveInterval`,
`BatchMode=yes`; http `GIT_HTTP_LOW_SPEED_*`) and `--progress`, and a watch on its output:
a transfer that is alive prints progress every second, so a call silent for
`STALL_SECONDS` is talking to a remote that never answers (a `git://` host has no limit of
its own), and its whole group is killed.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping
from functools import cache

STALL_SECONDS = 15.0  # silence before a network call is given up: a black hole, not a slow link
SSH_OPTIONS = ("-o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=5 "
               "-o ServerAliveCountMax=2")
# A transfer slower than 1 KB/s for 10 s is a remote that stopped answering.
HTTP_LIMITS = {"GIT_HTTP_LOW_SPEED_LIMIT": "1000", "GIT_HTTP_LOW_SPEED_TIME": "10"}


class Stalled(Exception):
    """A network call printed nothing for STALL_SECONDS; its processes were ended."""


def git_env(git_dir: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {**(os.environ if base is None else base), "GIT_DIR": git_dir,
           "GIT_TERMINAL_PROMPT": "0", "GIT_LITERAL_PATHSPECS": "1"}
    for name, value in HTTP_LIMITS.items():
        env.setdefault(name, value)
    # Never a prompt: a hook must not wait for one, and in the app it would land on the
    # screen. A command of the user's own (GIT_SSH_COMMAND, GIT_SSH, core.sshCommand) stays.
    if not (env.get("GIT_SSH_COMMAND") or env.get("GIT_SSH") or _configured_ssh()):
        env["GIT_SSH_COMMAND"] = f"ssh {SSH_OPTIONS}"
    return env


@cache
def _configured_ssh() -> bool:
    """Whether the user's git config names an ssh command (read once per process)."""
    env = {key: value for key, value in os.environ.items() if key != "GIT_DIR"}
    result = subprocess.run(["git", "config", "--get", "core.sshCommand"], env=env,
                            capture_output=True, stdin=subprocess.DEVNULL, process_group=0)
    return bool(result.stdout.strip())


def run_git(args: list[str], env: Mapping[str, str], stdin: bytes | None = None
            ) -> subprocess.CompletedProcess:
    """A local git command (no network), in its own process group."""
    return subprocess.run(["git", *args], env=env, capture_output=True, input=stdin,
                          stdin=None if stdin is not None else subprocess.DEVNULL,
                          process_group=0)


def run_network(args: list[str], env: Mapping[str, str], stall: float = STALL_SECONDS
                ) -> subprocess.CompletedProcess:
    """A git command that talks to the remote: its output collected while it prints
    anything at least every `stall` seconds; Stalled when it falls silent that long. Its
    process group is ended whatever happens (a signal, an exception) before this returns."""
    process = subprocess.Popen(["git", *args], env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, process_group=0)
    out, err = process.stdout.fileno(), process.stderr.fileno()
    chunks: dict[int, list[bytes]] = {out: [], err: []}
    try:
        with selectors.DefaultSelector() as selector:
            for pipe in (process.stdout, process.stderr):
                selector.register(pipe, selectors.EVENT_READ)
            heard = time.monotonic()
            while selector.get_map():
                events = selector.select(timeout=min(1.0, stall))
                for key, _ in events:
                    data = os.read(key.fd, 65536)
                    if data:
                        chunks[key.fd].append(data)
                    else:
                        selector.unregister(key.fileobj)
                if events:
                    heard = time.monotonic()
                elif time.monotonic() - heard > stall:
                    raise Stalled
        returncode = process.wait()
    finally:
        end_group(process)
        process.stdout.close()
        process.stderr.close()
    return subprocess.CompletedProcess(process.args, returncode, b"".join(chunks[out]),
                                       b"".join(chunks[err]))


def end_group(process: subprocess.Popen) -> None:
    """Kill what is left of the process's group (it and what it started) and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # all gone already
    process.wait()


# Lines that say what went wrong: git's, and ssh's own (printed before git's "Could not
# read from remote repository").
_CAUSES = ("fatal:", "error:", "ssh:", "Connection ", "Permission denied",
           "Host key verification failed", "kex_exchange_identification")


def first_cause(stderr: bytes) -> str:
    """git's first error line: the specific one (`'x' does not appear to be a git
    repository`, `ssh: connect to host ...`), not the advice printed after it."""
    lines = [line.strip() for line in stderr.decode(errors="replace").replace("\r", "\n")
             .splitlines() if line.strip()]
    causes = [line for line in lines if line.startswith(_CAUSES)]
    first = (causes or lines or ["git error"])[0]
    return first.removeprefix("fatal: ").removeprefix("error: ").rstrip(".")
