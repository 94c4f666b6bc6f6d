"""Snapshots of the main screens on the sample store at 80x24 (laid out for it first)
and at 160x45.

Regenerate after an intended change with `pytest tests/workbench/tui/test_snapshots.py
--snapshot-update` and look at the report before committing the new SVGs."""
from __future__ import annotations

import shutil

import pytest
from tui_kit import screen_text, wait_for

from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.tui.app import KernelCraftApp
from kernelcraft.workbench.tui.screens.debugger import DebuggerScreen
from kernelcraft.workbench.tui.screens.picker import PickerScreen
from kernelcraft.workbench.tui.screens.run import RunScreen


SIZES = [(80, 24), (160, 45)]


@pytest.fixture(params=SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def size(request):
    return request.param


@pytest.fixture
def app(sample_db, tmp_path, monkeypatch):
    # A relative path, so the store's name on screen is the same on every machine.
    shutil.copy(sample_db, tmp_path / "traces.db")
    monkeypatch.chdir(tmp_path)
    return KernelCraftApp("traces.db")


@pytest.fixture
def rtl_app(rtl_db, tmp_path, monkeypatch):
    shutil.copy(rtl_db, tmp_path / "traces.db")
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


def test_picker(snap_compare, app, size):
    assert snap_compare(app, terminal_size=size, run_before=picker_loaded)


def test_run_view_with_feedback(snap_compare, app, size):
    async def before(pilot):
        await run_loaded(pilot)
        await pilot.press("right", "3")
    assert snap_compare(app, terminal_size=size, run_before=before)


def test_rtl_run_view_final(snap_compare, rtl_app, size):
    """A run with --rtl at its final scoring: the RTL cell in the header, the build in
    the timeline, both backends' verdicts and the first divergence."""
    async def before(pilot):
        await run_loaded(pilot)
        await pilot.press("end")
    assert snap_compare(rtl_app, terminal_size=size, run_before=before)


def test_debugger(snap_compare, app, size):
    async def before(pilot):
        await run_loaded(pilot)
        await pilot.press("right", "d")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, DebuggerScreen)
                       and pilot.app.screen.session is not None, timeout=10)
        await pilot.press(*["right"] * 16)
        pilot.app.clear_notifications()        # toasts time out: not part of the picture
        await pilot.pause(0.1)
    assert snap_compare(app, terminal_size=size, run_before=before)


async def debugger_on(pilot, accel: str, task: str, config: str, *keys: str):
    """The debugger on `accel`'s baseline for task/config (seed 1), after `keys`."""
    acc = get_accel(accel)
    await picker_loaded(pilot)
    pilot.app.push_screen(DebuggerScreen(accel, task, config,
                                         acc.baseline(task, config, acc.default_config()), seed=1))
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, DebuggerScreen)
                   and pilot.app.screen.session is not None, timeout=20)
    await pilot.press(*keys)


def test_debugger_coral(snap_compare, app, size):
    """vtype/vl, the v registers per element at SEW (v8.. loaded by the vle32.v), DTCM by
    byte address."""
    async def before(pilot):
        await debugger_on(pilot, "coral", "relu", "C1", *["right"] * 8, "r", "r")
    assert snap_compare(app, terminal_size=size, run_before=before)


def test_debugger_aie(snap_compare, app, size):
    """The ACQ bundle waiting for the first DMA transfer: its slots, the wait, the stall
    counters, slot use and the transfer in flight."""
    async def before(pilot):
        await debugger_on(pilot, "aie", "relu", "C1", "right", "right", "right")
    assert snap_compare(app, terminal_size=size, run_before=before)


def test_help(snap_compare, app, size):
    async def before(pilot):
        await run_loaded(pilot)
        await pilot.press("question_mark")
    assert snap_compare(app, terminal_size=size, run_before=before)


def rtl_debugger(snap_compare, size, *keys, rtl_backend=None, screen=None):
    """`kernelcraft debug ... --rtl` on a small plena configuration (or `screen`) once
    the RTL is in (the build is cached; test_debugger_rtl.py shares it), after `keys`."""
    from test_debugger_rtl import HW, SOURCE
    screen = screen or DebuggerScreen("plena", "relu", "C1", SOURCE, seed=3, hw=HW, rtl=True,
                                      rtl_backend=rtl_backend)

    async def before(pilot):
        await wait_for(pilot, lambda: screen.session is not None
                       and len(screen.session.timelines) > 1, timeout=60)
        await pilot.press(*keys)
        pilot.app.clear_notifications()         # toasts time out: not part of the picture
        await pilot.pause(0.1)
    return snap_compare(KernelCraftApp(None, debug=screen), terminal_size=size,
                        run_before=before)


def test_debug_command_with_the_rtl(snap_compare, size):
    """The model | RTL pane pair after a few steps."""
    assert rtl_debugger(snap_compare, size, "l", "l", "l", "l", "l")


def test_compare_runs(snap_compare, app, size):
    from kernelcraft.workbench.tui.screens.compare import CompareScreen

    async def before(pilot):
        await run_loaded(pilot)
        pilot.app.push_screen(CompareScreen(1, 2))
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, CompareScreen)
                       and pilot.app.screen.traces)
    assert snap_compare(app, terminal_size=size, run_before=before)


def test_debug_command_at_an_rtl_divergence(snap_compare, size):
    """The RTL patched to write another value: the debugger at the first divergence,
    the differing element and each side's value marked, the loop stacks beside."""
    from test_debugger_rtl import DivergingRTL
    assert rtl_debugger(snap_compare, size, rtl_backend=DivergingRTL(at=2))


def test_debug_coral_at_an_rtl_divergence(snap_compare, size):
    """A coral scalar program beside its RTL patched to write another x6: the
    instruction, the register and each side's value marked."""
    from test_debugger_lockstep_coral_aie import CORAL_CONFIG, CORAL_PROG, WrongX6

    from kernelcraft.isa.coral import default_config
    screen = DebuggerScreen("coral", "", "", CORAL_PROG, hw=default_config(**CORAL_CONFIG),
                            rtl=True, rtl_backend=WrongX6(), source_name="scalar.s")
    assert rtl_debugger(snap_compare, size, screen=screen)


def test_debug_aie_with_the_rtl(snap_compare, size):
    """An aie scalar program beside its RTL, whose trace records no writes."""
    from test_debugger_lockstep_coral_aie import AIE_CONFIG, AIE_PROG

    from kernelcraft.isa.aie import default_config
    screen = DebuggerScreen("aie", "", "", AIE_PROG, hw=default_config(**AIE_CONFIG),
                            rtl=True, source_name="scalar.asm")
    assert rtl_debugger(snap_compare, size, "l", "l", "l", "l", screen=screen)


def test_leaderboard(snap_compare, app, size):
    from kernelcraft.workbench.tui.screens.leaderboard import LeaderboardScreen

    async def before(pilot):
        await picker_loaded(pilot)
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, LeaderboardScreen)
                       and "every run that ended" in screen_text(pilot.app), timeout=10)
        await pilot.pause(0.2)
    assert snap_compare(app, terminal_size=size, run_before=before)


def test_new_run_dialog(snap_compare, app, size):
    from kernelcraft.workbench.tui.screens.new_run import NewRunScreen

    async def before(pilot):
        await picker_loaded(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, NewRunScreen))
        await pilot.pause(0.2)
    assert snap_compare(app, terminal_size=size, run_before=before)
