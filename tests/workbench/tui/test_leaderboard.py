"""The leaderboard, opened from the run picker with `l`: the report's tables for all
runs and then per sweep, the published figures beside ours; Esc goes back."""
from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tui_kit import screen_text, wait_for

from kernelcraft.workbench.store import TraceStore
from kernelcraft.workbench.store import sweeps as sweep_rows
from kernelcraft.workbench.tui.app import KernelCraftApp
from kernelcraft.workbench.tui.screens.leaderboard import LeaderboardScreen
from kernelcraft.workbench.tui.screens.picker import PickerScreen

sys.path.insert(0, str(Path(__file__).parents[1] / "report"))
from fixture_store import build  # noqa: E402


def test_leaderboard_from_the_picker(tmp_path):
    db = build(tmp_path / "traces.db")
    with TraceStore(db) as store:              # one sweep holding the aie run only
        sweep_rows.open_sweep(store, "sw-test", {"grid": {}})
        cell = {"key": "autotune|aie|relu|C1|r0", "model": "autotune", "accel": "aie",
                "task": "relu", "config": "C1", "rep": 0}
        with store._transaction() as conn:
            sweep_rows._upsert(conn, "sw-test", cell, "succeeded", run_id=6)

    async def go():
        app = KernelCraftApp(db)
        async with app.run_test(size=(160, 60)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.loaded)
            await pilot.press("l")
            assert await wait_for(pilot, lambda: isinstance(app.screen, LeaderboardScreen)
                                  and "6 runs" in screen_text(app))
            text = screen_text(app)
            for needle in ("Cells solved within budget", "GPT-5.2 (published)", "37/50",
                           "3/5", "Per model, accelerator and level", "every run that ended"):
                assert needle in text, needle
            groups = app.screen.query_one("#table-groups")    # wider than the screen
            labels = [str(c.label) for c in groups.columns.values()]
            ma = next(groups.get_row_at(i) for i in range(groups.row_count)
                      if groups.get_row_at(i)[0] == "m/a")
            assert ma[labels.index("fast_1.5")] == "20%" and ma[labels.index("solved")] == "3"
            await pilot.press("w")
            assert await wait_for(pilot, lambda: "1 run (sweep sw-test)" in screen_text(app))
            assert "3/5" not in screen_text(app)
            await pilot.press("escape")
            assert await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
    asyncio.run(go())
