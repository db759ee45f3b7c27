"""The Review screen at 80x24: what a run could not do is read whole, the files stay in view."""

from __future__ import annotations

from app_home import demo_app, open_review
from conftest import HeldFirstCall, settle
from textual.geometry import Region
from waiting import pilot_until

from tui.agents.dream import run_dream
from tui.app.widgets.virtual_table import VirtualTable


def painted_words(widget) -> str:
    """Every line the widget paints (scrolled into view or not), as one run of words."""
    lines = widget.render_lines(Region(0, 0, *widget.outer_size))
    return " ".join(" ".join(strip.text.split()) for strip in lines)


def words(text: str) -> str:
    return " ".join(text.split())


async def test_at_80_columns_notes_and_index_lines_wrap_instead_of_being_cut(tmp_path):
    app, webapp = demo_app(tmp_path / "demo")
    result = run_dream(webapp.store, engine="offline")  # past the cut: long notes
    changeset = result.changeset
    assert changeset.notes and changeset.index_before.cut

    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(app, pilot, result)
        summary = painted_words(screen.query_one("#review-summary"))
        for note in changeset.notes:
            assert words(f"Note: {note}") in summary
        before = changeset.index_before
        assert f"cut by {before.cut}: Claude loads only {before.loaded_lines} lines" in summary
        assert "within the limits: Claude loads all of it" in summary
        files = screen.query_one("#review-files", VirtualTable)
        assert files.size.height >= 8  # the header and at least 7 files under the summary


def footer_keys(screen) -> set[str]:
    from textual.widgets._footer import FooterKey

    return {key.key_display for key in screen.query(FooterKey)}


async def test_the_footer_offers_what_can_be_done_now_and_applying_shows_progress(
        tmp_path, monkeypatch):
    """After applying, the footer still offered `a Apply` and `space Accept/reject`, and a
    dream's apply took seconds with nothing on screen. Before: a and space, no undo; while
    applying: a progress bar, no keys but help; after: u, and esc."""
    from tui.agents import result as run_result

    app, webapp = demo_app(tmp_path / "demo")
    result = run_dream(webapp.store, engine="offline")
    held_apply = HeldFirstCall(run_result.conclude)
    monkeypatch.setattr(run_result, "conclude", held_apply)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_review(app, pilot, result)
        progress = screen.query_one("#review-progress")
        assert {"a", "space", "esc"} <= footer_keys(screen) and "u" not in footer_keys(screen)
        assert not progress.display
        await pilot.press("a")
        assert await pilot_until(pilot, lambda: progress.display and progress.region.height == 1)
        assert footer_keys(screen) == {"f1"}
        summary = painted_words(screen.query_one("#review-summary"))
        assert f"Applying {len(screen.accepted)} files …" in summary
        held_apply.release()
        await settle(app, pilot)
        assert await pilot_until(pilot, lambda: screen.outcome is not None and not progress.display)
        assert screen.outcome.applied
        assert {"u", "esc"} <= footer_keys(screen)
        assert not {"a", "space"} & footer_keys(screen)
        await pilot.press("space", "a")  # dead keys do nothing either
        await settle(app, pilot)
        assert screen.outcome.applied and not screen.working
