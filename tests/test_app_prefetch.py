"""The discovery `memtui` begins in a child process before Textual loads (tui.app.prefetch):
the app shows what that child found, for the home it was made for, and never depends on it."""

from __future__ import annotations

import time

from app_home import build_app_home
from conftest import settle
from test_forked import reaped
from waiting import PATIENCE

from tui.app import prefetch
from tui.app.app import MemtuiApp
from tui.app.disk import home_signature
from tui.claude.discovery import discover


def test_the_child_finds_what_discovery_finds(claude_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    early = prefetch.start(fixture.home, fixture.env, None)
    found = early.take(fixture.home, fixture.env, None)
    assert found.inventory.projects == discover(fixture.home, fixture.env).projects
    assert found.signature == home_signature(fixture.home, found.inventory.projects)
    assert reaped(early.child.pid)
    assert early.take(fixture.home, fixture.env, None) is None  # once: a rescan looks again


def test_a_discovery_for_another_home_or_settings_is_not_used(claude_home, make_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    other = make_home()
    early = prefetch.start(fixture.home, fixture.env, None)
    assert early.take(other.home, fixture.env, None) is None
    assert reaped(early.child.pid)
    early = prefetch.start(fixture.home, fixture.env, None)
    assert early.take(fixture.home, fixture.env, tmp_path / "settings.json") is None


def test_a_child_that_fails_leaves_the_app_to_discover(claude_home, tmp_path, monkeypatch):
    fixture = build_app_home(claude_home, tmp_path)

    def broken(*_args):
        raise RuntimeError("a bug in discovery")

    monkeypatch.setattr(prefetch, "discover", broken)
    early = prefetch.start(fixture.home, fixture.env, None)
    assert early.take(fixture.home, fixture.env, None) is None
    assert reaped(early.child.pid)


def test_a_child_that_hangs_is_killed_and_reaped(claude_home, tmp_path, monkeypatch):
    fixture = build_app_home(claude_home, tmp_path)
    monkeypatch.setattr(prefetch, "discover", lambda *_args: time.sleep(60))
    monkeypatch.setattr(prefetch, "WAIT_SECONDS", 0.3)
    early = prefetch.start(fixture.home, fixture.env, None)
    started = time.monotonic()
    assert early.take(fixture.home, fixture.env, None) is None
    assert time.monotonic() - started < 30  # not the 60 s the child would take
    assert reaped(early.child.pid)


def test_closing_an_untaken_prefetch_stops_its_child(claude_home, tmp_path, monkeypatch):
    fixture = build_app_home(claude_home, tmp_path)
    monkeypatch.setattr(prefetch, "discover", lambda *_args: time.sleep(60))
    early = prefetch.start(fixture.home, fixture.env, None)
    early.close()
    assert reaped(early.child.pid)


async def test_a_finished_prefetch_gives_the_rows_with_no_discovery_of_their_own(
        claude_home, tmp_path, monkeypatch):
    from tui.app.screens import projects

    fixture = build_app_home(claude_home, tmp_path)
    early = prefetch.start(fixture.home, fixture.env, None)
    assert early.child.ready(PATIENCE)
    calls = []
    real_discover = projects.discover
    monkeypatch.setattr(projects, "discover",
                        lambda *args: calls.append(args) or real_discover(*args))
    app = MemtuiApp(fixture.home, fixture.env, prefetched=early)
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.screen.query_one("#projects")
        await settle(app, pilot)
        assert str(table.rows[0].cells[0]).endswith("work/shop")
        assert [str(cell) for cell in table.rows[0].cells][1] == "5"  # the stores read too
        assert calls == [] and early.child.done
        await pilot.press("f5")  # a rescan discovers afresh
        await settle(app, pilot)
        assert len(calls) == 1


async def test_a_prefetch_still_running_at_mount_is_waited_for(claude_home, tmp_path,
                                                               monkeypatch):
    fixture = build_app_home(claude_home, tmp_path)
    real_discover = prefetch.discover

    def slow_discover(*args):
        time.sleep(1)
        return real_discover(*args)

    monkeypatch.setattr(prefetch, "discover", slow_discover)
    early = prefetch.start(fixture.home, fixture.env, None)
    app = MemtuiApp(fixture.home, fixture.env, prefetched=early)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.screen.query_one("#projects").rows
        assert early.child.done
