"""`tui.forked`: a function run in a forked child, its result or nothing, never a hang or a
process left behind."""

from __future__ import annotations

import os
import threading
import time

from tui.forked import fork_call


def reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def _big(size: int) -> bytes:
    return b"x" * size


def _fails() -> None:
    raise RuntimeError("a bug in the child")


def test_the_result_comes_back_whole_even_past_the_pipe():
    child = fork_call(_big, 5 << 20)  # five times the pipe: the child waits for the reader
    assert child.result(30) == b"x" * (5 << 20)
    assert reaped(child.pid)


def test_a_child_that_fails_gives_no_result_and_is_reaped():
    child = fork_call(_fails)
    assert child.result(30) is None
    assert reaped(child.pid)


def test_a_child_that_takes_too_long_is_stopped():
    child = fork_call(time.sleep, 60)
    started = time.monotonic()
    assert not child.ready(0)
    assert child.result(0.3) is None
    assert time.monotonic() - started < 30  # not the 60 s the child would take
    assert reaped(child.pid)


def test_no_fork_while_another_thread_runs():
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert fork_call(_big, 1) is None
    finally:
        stop.set()
        thread.join()
    assert fork_call(_big, 1).result(30) == b"x"


def test_a_shared_map_is_in_order_and_does_here_what_the_child_did_not(monkeypatch):
    from tui import forked

    assert forked.map_shared(abs, [-1, -2], [-3, -4, -5], 30) == [1, 2, 3, 4, 5]
    real_fork = forked.fork_call
    monkeypatch.setattr(forked, "fork_call", lambda *args: real_fork(_fails))
    assert forked.map_shared(abs, [-1], [-2, -3], 30) == [1, 2, 3]
