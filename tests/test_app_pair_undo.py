"""`u` and `U` on the store screen after a move: one key takes back (and puts back) both
stores the move changed, whichever of the two stores is open."""

from __future__ import annotations

from app_home import build_app_home, open_first_store
from conftest import index_line, memory_text, settle, write_index, write_memory

from tui.app.app import MemtuiApp
from tui.memory.store import load_store
from tui.memory.transfer import apply_transfer, plan_transfer


def state(*stores):
    return {store: {p.name: (p.read_bytes(), p.stat().st_mtime_ns)
                    for p in sorted(store.iterdir()) if p.is_file()} for store in stores}


async def test_u_undoes_both_stores_of_a_move_and_U_redoes_them(claude_home, tmp_path):
    fixture = build_app_home(claude_home, tmp_path)
    other_project = tmp_path / "work" / "api"
    other_project.mkdir()
    other = claude_home.store(other_project)
    write_memory(other, "style.md", memory_text("style", "code style"))
    write_index(other, [index_line("style.md", "Style")])
    before = state(fixture.store, other)
    transfer = plan_transfer(load_store(fixture.store), ["user_role.md"], load_store(other), {},
                             move=True)
    apply_transfer(fixture.store, other, transfer)
    moved = state(fixture.store, other)
    assert (other / "user_role.md").exists() and not (fixture.store / "user_role.md").exists()
    app = MemtuiApp(fixture.home, fixture.env)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_first_store(app, pilot, fixture)
        await pilot.press("u")
        await settle(app, pilot)
        assert state(fixture.store, other) == before
        said = [n.message for n in app._notifications]
        assert any(f"in both {fixture.store} and {other}" in message
                   or f"in both {other} and {fixture.store}" in message for message in said), said
        await pilot.press("U")
        await settle(app, pilot)
        assert state(fixture.store, other) == moved
