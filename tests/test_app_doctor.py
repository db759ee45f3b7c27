"""The doctor in the app: `w` on the projects and store screens, and the store's line when a
check fails. The app must work at 80x24."""

from __future__ import annotations

from app_home import build_app_home
from conftest import painted, settle
from textual.geometry import Region
from textual.widgets import Static
from waiting import PATIENCE, pilot_until

from tui.app.app import MemtuiApp
from tui.app.screens.doctor import DoctorScreen
from tui.app.screens.store import StoreScreen
from tui.claude.discovery import discover
from tui.doctor.report import CHECK_IDS


def shown(screen, selector: str, width: int = 76) -> str:
    text = painted(screen.query_one(selector, Static).content, width, wrap=True)
    return " ".join(text.split())  # as read, whatever the wrapping


def footer_text(app) -> str:
    return " ".join(str(key.description) for key in app.screen.query("FooterKey"))


async def test_w_on_the_projects_screen_opens_the_report_at_80x24(claude_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert "Doctor" in footer_text(app)
        await pilot.press("w")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, DoctorScreen)
        assert screen.report is not None
        assert [c.id for c in screen.report.checks] == [i for i in CHECK_IDS if i != "api_probe"]
        status = shown(screen, "#doctor-status")
        assert "1 failed" in status  # the fixture's index is one line past the cut
        report = shown(screen, "#doctor-report")
        assert report.startswith("FAIL index_size")  # what needs fixing comes first
        assert "fix: memtui --config-dir" in report and "--loaded shows the cut" in report
        assert "Back" in footer_text(app)
        await pilot.press("escape")
        assert type(app.screen).__name__ == "ProjectsScreen"


async def test_store_screen_says_when_a_check_fails_and_w_opens_the_report(claude_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    env = {**fixture.env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}
    project = discover(fixture.home, env).projects[0]
    app = MemtuiApp(fixture.home, env)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(StoreScreen(project))
        await settle(app, pilot)
        banner = app.screen.query_one("#doctor-banner", Static)
        assert banner.display and banner.region.height == 1  # one line at 80 columns
        text = shown(app.screen, "#doctor-banner")
        assert text == "Doctor: 2 failed (auto_memory, index_size) · w shows why and the fix"
        await pilot.press("w")
        await settle(app, pilot)
        assert isinstance(app.screen, DoctorScreen)
        assert app.screen.report.check("auto_memory").status == "fail"
        assert "unset CLAUDE_CODE_DISABLE_AUTO_MEMORY" in shown(app.screen, "#doctor-report")


async def test_the_doctors_line_goes_once_a_change_outside_the_store_screen_fixes_its_cause(
        claude_home, tmp_path):
    """The line said "Doctor: 2 failed" after a dream and a merge had fixed both causes,
    until the app restarted. It follows every load of the store: here MEMORY.md is cut back
    inside the limits by another writer (a run, a merge, Claude Code)."""
    fixture = build_app_home(claude_home, tmp_path)
    project = discover(fixture.home, fixture.env).projects[0]
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(StoreScreen(project))
        await settle(app, pilot)
        banner = app.screen.query_one("#doctor-banner", Static)
        assert shown(app.screen, "#doctor-banner") == (
            "Doctor: 1 failed (index_size) · w shows why and the fix")
        index = fixture.store / "MEMORY.md"
        lines = index.read_text(encoding="utf-8").splitlines()
        index.write_text("\n".join(lines[:150]) + "\n", encoding="utf-8")
        assert await pilot_until(pilot, lambda: not banner.display)


async def test_no_line_on_the_store_screen_when_nothing_fails(claude_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    lines = (fixture.store / "MEMORY.md").read_text(encoding="utf-8").splitlines()
    (fixture.store / "MEMORY.md").write_text("\n".join(lines[:150]) + "\n", encoding="utf-8")
    project = discover(fixture.home, fixture.env).projects[0]
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(StoreScreen(project))
        await settle(app, pilot)
        assert not app.screen.query_one("#doctor-banner", Static).display


async def test_probe_key_runs_the_online_check(claude_home, tmp_path, fake):
    from fake_anthropic import reply, text

    fixture = build_app_home(claude_home, tmp_path)
    env = {**fixture.env, "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": fake.api_key}
    app = MemtuiApp(fixture.home, env)
    fake.queue(reply(text("p")))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        assert app.screen.report.check("api_probe") is None
        assert fake.requests == []
        await pilot.press("p")
        await settle(app, pilot)
        assert app.screen.report.check("api_probe").status == "ok"
        assert len(fake.requests) == 1


def test_the_report_writes_the_home_directory_as_a_tilde_and_nothing_else():
    from tui.app.screens.doctor import homed

    text = "rm /home/me/.claude/x/.consolidate-lock; /home/me2/y and /home/me stay"
    assert homed(text, "/home/me") == (
        "rm ~/.claude/x/.consolidate-lock; /home/me2/y and /home/me stay")


async def test_the_reports_ages_follow_the_apps_clock(claude_home, tmp_path):
    """The app's fixed clock (demo, screenshots) is the doctor's too: the time since the
    last consolidation is counted from it, not from the wall clock."""
    import os

    fixture = build_app_home(claude_home, tmp_path)
    lock = fixture.store / ".consolidate-lock"
    lock.write_text("")
    consolidated = 1_790_000_000.0
    os.utime(lock, (consolidated, consolidated))
    app = MemtuiApp(fixture.home, fixture.env, now=consolidated + 10 * 3600)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        assert "10.0 h ago" in shown(app.screen, "#doctor-report", width=116)


async def test_a_long_path_in_the_report_wraps_whole_at_80_columns(claude_home, tmp_path):
    """A path wider than the terminal (the fix's command above all) is folded onto the next
    line, never cut with an ellipsis: the user copies it into a shell."""
    deep = tmp_path / ("a-rather-long-folder-name-for-the-checkout-" * 2).rstrip("-")
    fixture = build_app_home(claude_home, deep)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        report = app.screen.query_one("#doctor-report", Static)
        painted = [strip.text.rstrip() for strip in
                   report.render_lines(Region(0, 0, report.size.width, report.size.height))]
        index = str(fixture.store / "MEMORY.md")
        assert len(index) > 80
        assert not any(line.endswith("…") for line in painted)
        assert index in "".join(line.strip() for line in painted)


async def test_w_on_a_project_whose_folder_is_gone_reports_on_its_sessions(claude_home, tmp_path):
    """A project listed as `no store` (its sessions ran in a folder deleted since) gets a
    report, not "the checks could not run", and the report sees its sessions."""
    gone = tmp_path / "spike"  # never created: the folder was thrown away
    claude_home.session(gone)
    claude_home.session(gone)
    app = MemtuiApp(claude_home.home, claude_home.env)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, DoctorScreen)
        assert screen.report is not None, shown(screen, "#doctor-status")
        assert screen.report.check("extraction").status != "skip"


async def test_the_lock_line_follows_the_lock_lapsing_while_the_report_is_open(
        claude_home, tmp_path, monkeypatch):
    """Claude Code's lock is held for 60 minutes at most: no file changes when the hour
    runs out, yet the report must not go on saying a dream holds it."""
    import os
    import time
    import types

    from tui import doctor
    from tui.claude import lock as lock_module

    fixture = build_app_home(claude_home, tmp_path)
    (fixture.store / ".consolidate-lock").write_text(str(os.getpid()))  # a live holder
    project = discover(fixture.home, fixture.env).projects[0]
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(StoreScreen(project))
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        assert "dream_lock A dream holds" in shown(app.screen, "#doctor-report", width=116)
        # The hour runs out: the clocks the lock and the doctor read move past it, and no
        # file changes (however long the machine took to get here).
        hour_later = types.SimpleNamespace(time=lambda: time.time() + 3600)
        monkeypatch.setattr(lock_module, "time", hour_later)
        monkeypatch.setattr(doctor, "time", hour_later)
        assert await pilot_until(pilot, lambda: "older than 60 minutes, so the lock is free" in
                                 shown(app.screen, "#doctor-report", width=116))
        report = shown(app.screen, "#doctor-report", width=116)
        assert "older than 60 minutes, so the lock is free" in report
        assert "A dream holds" not in report


async def test_a_rerun_is_not_undone_by_the_slow_probe_it_replaced(claude_home, tmp_path,
                                                                    monkeypatch):
    """p, then F5 after fixing what failed: Textual cancels the probe's run, but its thread
    runs on, and its report, made before the fix, must not land over the rerun's."""
    import threading

    from tui.app.screens import doctor

    fixture = build_app_home(claude_home, tmp_path)
    project = discover(fixture.home, fixture.env).projects[0]
    real_doctor = doctor.run_doctor
    probing, release = threading.Event(), threading.Event()

    probed = threading.Event()

    def slow_probe(app, target, project, online):
        report = real_doctor(app, target, project, False)
        if online:
            probing.set()
            release.wait(PATIENCE)
            probed.set()
        return report

    monkeypatch.setattr(doctor, "run_doctor", slow_probe)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(DoctorScreen(str(fixture.store), project))
        await settle(app, pilot)
        assert app.screen.report.check("index_size").status == "fail"
        await pilot.press("p")
        while not probing.is_set():
            await pilot.pause(0.05)
        (fixture.store / "MEMORY.md").write_text(
            "- [Testing](feedback_testing.md) — real database in integration tests\n",
            encoding="utf-8")
        await pilot.press("f5")
        await settle(app, pilot)
        assert app.screen.report.check("index_size").status == "ok"
        release.set()
        assert await pilot_until(pilot, probed.is_set)
        await pilot.pause(0.5)  # time for its report to land, were it posted
        await settle(app, pilot)
        assert app.screen.report.check("index_size").status == "ok"
        assert "FAIL index_size" not in shown(app.screen, "#doctor-report", width=116)


async def test_a_lock_taken_during_a_probe_keeps_the_probes_answer(claude_home, tmp_path, fake,
                                                                    monkeypatch):
    """The lock watcher waits for a run under way: rechecking at once would replace the
    probe's run, and its answer would never be shown."""
    import os
    import threading

    from fake_anthropic import reply, text

    from tui.app.screens import doctor

    fixture = build_app_home(claude_home, tmp_path)
    env = {**fixture.env, "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": fake.api_key}
    project = discover(fixture.home, env).projects[0]
    fake.queue(reply(text("p")))
    real_doctor = doctor.run_doctor
    probing, release = threading.Event(), threading.Event()

    def slow_probe(app, target, project, online):
        if online:
            probing.set()
            release.wait(PATIENCE)
        return real_doctor(app, target, project, online)

    real_lock_seen = doctor.lock_seen
    looks = []

    def counted_lock_seen(store):
        looks.append(store)
        return real_lock_seen(store)

    monkeypatch.setattr(doctor, "run_doctor", slow_probe)
    monkeypatch.setattr(doctor, "lock_seen", counted_lock_seen)
    app = MemtuiApp(fixture.home, env)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(DoctorScreen(str(fixture.store), project))
        await settle(app, pilot)
        await pilot.press("p")
        while not probing.is_set():
            await pilot.pause(0.05)
        (fixture.store / ".consolidate-lock").write_text(str(os.getpid()))  # a dream starts
        looked = len(looks)
        assert await pilot_until(pilot, lambda: len(looks) >= looked + 2)  # the watcher saw it
        release.set()
        await settle(app, pilot)  # the probe's run ends
        assert await pilot_until(pilot, lambda: "A dream holds" in shown(
            app.screen, "#doctor-report", width=116))
        await settle(app, pilot)
        assert app.screen.report.check("api_probe").status == "ok"
        assert "A dream holds" in shown(app.screen, "#doctor-report", width=116)
        assert len(fake.requests) == 1
