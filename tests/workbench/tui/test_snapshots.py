"""Snapshots of the main screens on the sample store at a fixed terminal size.

Regenerate after an intended change with `pytest tests/workbench/tui/test_snapshots.py
--snapshot-update` and look at the report before committing the new SVGs."""
from __future__ import annotations

import shutil

import pytest
from conftest import SIZE, wait_for

from workbench.tui.app import KernelCraftApp
from workbench.tui.screens.debugger import DebuggerScreen
from workbench.tui.screens.picker import PickerScreen
from workbench.tui.screens.run import RunScreen


@pytest.fixture
def app(sample_db, tmp_path, monkeypatch):
    # A relative path, so the store's name on screen is the same on every machine.
    shutil.copy(sample_db, tmp_path / "traces.db")
    monkeypatch.chdir(tmp_path)
    return KernelCraftApp("traces.db")


async def picker_loaded(pilot):
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.loaded)


async def run_loaded(pilot, run_id: int = 1):
    app = pilot.app
    await picker_loaded(pilot)
    app.screen.query_one("#runs").move_to_run(run_id)
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, RunScreen)
                   and app.screen.finished_reading and app.screen.index is not None)


def test_picker(snap_compare, app):
    assert snap_compare(app, terminal_size=SIZE, run_before=picker_loaded)


def test_run_view_with_feedback(snap_compare, app):
    async def before(pilot):
        await run_loaded(pilot)
        await pilot.press("right", "3")
    assert snap_compare(app, terminal_size=SIZE, run_before=before)



def test_debugger(snap_compare, app):
    async def before(pilot):
        await run_loaded(pilot)
        await pilot.press("right", "d")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, DebuggerScreen)
                       and pilot.app.screen.session is not None, timeout=10)
        await pilot.press(*["right"] * 16)
    assert snap_compare(app, terminal_size=SIZE, run_before=before)


def test_help(snap_compare, app):
    async def before(pilot):
        await run_loaded(pilot)
        await pilot.press("question_mark")
    assert snap_compare(app, terminal_size=SIZE, run_before=before)
