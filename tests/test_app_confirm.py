"""The confirmation: its consequence first, its buttons and Cancel always on screen at 80x24,
the lines a change rewrites shown before and after; it opens on Cancel, answers to the
keyboard, and its footer says how."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import painted
from textual.app import App
from textual.widgets import Button, Static
from textual.widgets._footer import FooterKey

import tui.app
from tui.app.screens.confirm import APPLY, ConfirmScreen
from tui.app.widgets.key_footer import KeyFooter

LONG = "a hook long enough to wrap at eighty columns, " * 4


@dataclass(frozen=True)
class Plan:
    label: str
    summary: list[str]
    pushed_out: tuple[str, ...] = ()
    options: tuple[str, ...] = ()


RELINK_MANY = Plan(
    "relink 39 memories",
    [f"Move the index line for feedback_{n}.md up from line {200 + n}." for n in range(39)],
    pushed_out=tuple(f"reference_{n}.md" for n in range(9)),
    options=("remove dangling", "shorten long lines", "move an entry out"),
)
SHORTEN = Plan("shorten 1 index line", [
    f"Index line 2 (the whole hook is kept in a.md under \"## Index note\"):\n"
    f"  before: - [Title: kept](a.md) — {LONG}\n  after:  - [Title: kept](a.md) — a hook…"])


class DialogApp(App[None]):
    CSS_PATH = Path(tui.app.__file__).parent / "app.tcss"

    def __init__(self, plan: Plan) -> None:
        super().__init__()
        self.plan = plan
        self.choices: list[str | None] = []

    def on_mount(self) -> None:
        self.push_screen(ConfirmScreen(self.plan), self.choices.append)


async def test_the_consequence_leads_and_every_button_is_on_screen_at_80x24():
    app = DialogApp(RELINK_MANY)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        pushed = screen.query_one("#confirm-pushed", Static)
        summary = screen.query_one("#confirm-summary")
        assert str(pushed.content).startswith(
            "Applying this would push these entries past Claude's cut:\n  reference_0.md")
        assert "… and 5 more, listed below" in str(pushed.content)
        assert screen.query_one("#confirm-title").region.y < pushed.region.y < summary.region.y
        for button in screen.query(Button):
            assert button.region.bottom <= 24 and button.region.right <= 80, button.id
        assert summary.max_scroll_y > 0  # the 39 entries scroll; the rest stays in place
        assert {str(b.label) for b in screen.query(Button)} == {
            "Remove dangling (1)", "Shorten long lines (2)", "Move an entry out (3)",
            "Apply anyway", "Cancel (esc)"}
        await pilot.press("y")  # pushing entries out takes the button, not a stray key
        assert app.screen is screen
        await pilot.click("#cancel")
        assert app.choices == [None]


@pytest.mark.parametrize(("answer", "choice"), [
    ("click #apply", APPLY), ("click #option-1", "shorten long lines"),
    ("press 3", "move an entry out"), ("press escape", None)])
async def test_apply_anyway_or_make_room_first_by_mouse_or_key(answer, choice):
    """A number picks its option, as its button says; there is no fourth."""
    app = DialogApp(RELINK_MANY)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4")
        how, what = answer.split()
        await getattr(pilot, how)(what)
        assert app.choices == [choice]


async def test_a_shortened_line_shows_before_and_after_under_each_other():
    app = DialogApp(SHORTEN)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        summary = app.screen.query_one("#confirm-summary Static", Static)
        lines = painted(summary.content, summary.content_region.width, wrap=True).splitlines()
        before = next(n for n, line in enumerate(lines) if "before:" in line)
        after = next(n for n, line in enumerate(lines) if "after:" in line)
        column = lines[before].index("- [Title: kept]")
        assert lines[after].index("- [Title: kept]") == column
        # The long "before" line wraps under itself, not under its label.
        assert all(line[:column].strip() == "" for line in lines[before + 1:after])
        await pilot.press("y")
        assert app.choices == [APPLY]


def footer_keys(screen) -> list[str]:
    return [f"{key.key_display} {key.description}"
            for key in screen.query_one(KeyFooter).query(FooterKey)]


@pytest.mark.parametrize(("plan", "keys"), [
    (SHORTEN, ["⏎ Cancel", "esc Cancel", "y Apply", "←→ Choose", "f1 Help"]),
    (RELINK_MANY, ["⏎ Cancel", "esc Cancel", "←→ Choose", "1 Remove dangling",
                   "2 Shorten long lines", "f1 Help"]),
])
async def test_the_footer_shows_the_dialogs_choices_not_the_screens_underneath(plan, keys):
    """The store's keys (r Relink, e Edit…) do nothing while a confirmation is open; y is
    not offered when only "Apply anyway" applies; at 80 columns the choices that fit."""
    app = DialogApp(plan)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert footer_keys(app.screen) == keys
        footer = app.screen.query_one(KeyFooter)
        for button in app.screen.query(Button):  # the footer takes no button's row
            assert button.region.bottom <= footer.region.y, button.id


async def test_a_dialog_opens_on_cancel_and_enter_presses_the_focused_button():
    """The relink confirmation could not be answered from the keyboard: no button had
    focus and enter did nothing. It opens on Cancel, the safe choice; the arrows move to
    "Apply anyway", and the footer says what enter presses."""
    app = DialogApp(RELINK_MANY)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.focused is screen.query_one("#cancel", Button)
        await pilot.press("left")
        await pilot.pause()
        assert screen.focused.id == "apply"
        assert footer_keys(screen)[0] == "⏎ Apply anyway"
        await pilot.press("right")
        assert screen.focused.id == "cancel"
        await pilot.press("enter")
        assert app.choices == [None]
    app = DialogApp(RELINK_MANY)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("left", "enter")
        assert app.choices == [APPLY]


async def test_the_arrows_scroll_what_will_change_whatever_button_has_focus():
    app = DialogApp(RELINK_MANY)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        summary = app.screen.query_one("#confirm-summary")
        await pilot.press("down", "down", "pagedown")
        await pilot.pause()
        assert summary.scroll_y == 12
        assert app.screen.focused.id == "cancel"


async def test_f1_is_shown_and_opens_the_help_over_a_confirmation(claude_home, tmp_path):
    """A confirmation is modal, so the app's own keys stop at it: F1 is its own key there,
    shown in its footer, and esc closes the help before it cancels anything."""
    from app_home import build_app_home, open_first_store
    from conftest import snapshot

    from tui.app.app import MemtuiApp

    fixture = build_app_home(claude_home, tmp_path)
    before = snapshot(fixture.store)
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(80, 24)) as pilot:
        store = await open_first_store(app, pilot, fixture)
        await pilot.press("d")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert footer_keys(dialog) == ["⏎ Cancel", "esc Cancel", "y Apply", "←→ Choose",
                                       "f1 Help"]
        await pilot.press("f1")
        await pilot.pause()
        assert app.screen is dialog and dialog.query("HelpPanel")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is dialog and not dialog.query("HelpPanel")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is store
    assert snapshot(fixture.store) == before
