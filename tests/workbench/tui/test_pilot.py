"""Every screen driven with the keyboard, on the sample store, asserting what is
shown: the picker (filter, sort, search), a run (steps, reasoning, diff, feedback,
re-execution, replay, next/previous run), the debugger, help and the palette."""
from __future__ import annotations

import asyncio
import hashlib
import re

from tui_kit import SIZE, screen_text, wait_for

from kernelcraft.workbench.tui.app import KernelCraftApp
from kernelcraft.workbench.tui.screens.debugger import DebuggerScreen
from kernelcraft.workbench.tui.screens.help import HelpScreen
from kernelcraft.workbench.tui.screens.picker import PickerScreen
from kernelcraft.workbench.tui.screens.run import RunScreen


def drive(db, script, size=SIZE, **kw):
    async def go():
        app = KernelCraftApp(db, **kw)
        async with app.run_test(size=size) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen)
                           and app.screen.loaded)
            await script(app, pilot)
    asyncio.run(go())


async def open_run(app, pilot, run_id: int) -> RunScreen:
    picker = app.screen
    picker.query_one("#runs").move_to_run(run_id)
    await pilot.press("enter")
    assert await wait_for(pilot, lambda: isinstance(app.screen, RunScreen)
                          and app.screen.trace is not None)
    return app.screen


def test_picker_lists_filters_sorts_and_searches(sample_db):
    async def script(app, pilot):
        text = screen_text(app)
        assert "3 runs" in text and "(viewed read-only; n starts a run that records" in text
        for needle in ("✓ succeeded", "◌ interrupted", "scripted/sample-model", "autotune",
                       "relu", "softmax", "4/6", "1.00x", "6,500/870", "$0.0464"):
            assert needle in text, needle
        picker = app.screen
        assert [r.run.id for r in picker.shown] == [3, 2, 1]
        await pilot.press("f", *"status:succeeded", "enter")
        assert [r.run.id for r in picker.shown] == [2, 1]
        assert "2 shown" in screen_text(app)
        await pilot.press("f", "ctrl+a", "ctrl+k", *"colour:red")
        assert "unknown filter field 'colour'" in screen_text(app)
        await pilot.press("ctrl+a", "ctrl+k", "enter")
        await pilot.press("s")                                  # id -> status
        assert picker.sort_key == "status"
        await pilot.press("S")
        assert picker.descending is False
        assert app.run_order == [r.run.id for r in picker.shown]
        # full-text search, and a hit opens its run at the step holding it
        await pilot.press("slash", *"fourth row", "enter")
        assert await wait_for(pilot, lambda: getattr(app.screen.query_one("#search"),
                                                     "hits", None))
        assert "fourth" in screen_text(app) and "run    1" in screen_text(app)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, RunScreen)
                              and app.screen.trace is not None)
        run = app.screen
        assert run.run_id == 1
        hit = app.screen_stack[-2].query_one("#search").hits[0]
        step = run.trace.steps[run.index]
        assert step.first_seq <= hit.seq <= step.last_seq
    drive(sample_db, script)


def test_run_view_keys_reexecution_help_and_nothing_written(sample_copy):
    before = hashlib.sha256(sample_copy.read_bytes()).hexdigest()

    async def script(app, pilot):
        run = await open_run(app, pilot, 1)
        assert run.index == 0 and "system prompt" in screen_text(app)
        await pilot.press("right")
        text = screen_text(app)
        assert run.index == 1 and "step 1 (2/6)" in text
        assert "ReLU is elementwise" in text and "→ write_code" in text
        assert "kernel version 1 (written at this step)" in text
        await pilot.press("r")
        assert "ReLU is elementwise" not in screen_text(app)
        assert "reasoning hidden" in screen_text(app)
        await pilot.press("r", "right", "right", "2")
        text = screen_text(app)
        assert run.index == 3 and "version 1 → 2" in text and "(+1 -1)" in text
        assert re.search(r"│ -\s+C_LOOP_START gp14, 3", text)
        assert re.search(r"│ \+\s+C_LOOP_START gp14, 4", text)
        await pilot.press("left", "left", "3")
        text = screen_text(app)
        assert "run_eval C2 kernel v1: failed" in text and "output error of run_eval" in text
        assert "✗" in text                                    # bad rows in the heat map
        await pilot.press("$")
        assert run.trace.steps[run.index].number == -1 and "run succeeded" in screen_text(app)
        await pilot.press("0")
        assert run.index == 0
        # re-execute a step's evaluation and compare it with the recording
        await pilot.press("x")                                  # the prompt: nothing to do
        assert any("no recorded evaluation" in n.message for n in app._notifications)
        await pilot.press("right", "x")
        assert await wait_for(pilot, lambda: run.reexec, timeout=10)
        text = screen_text(app)
        assert "identical to the recording" in text
        assert "output error per tile, re-executed on seed 100" in text
        # help lists every binding, and the palette offers them as commands
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        app.screen.query_one("#help").scroll_end(animate=False)   # the list scrolls
        await pilot.pause(0.1)
        text += screen_text(app)
        for b in type(run).BINDINGS + type(app).BINDINGS:
            assert b.id in text, b.id
        await pilot.press("escape")
        assert app.screen is run
        commands = [c.title for c in app.get_system_commands(run)]
        assert {"Step ▶", "Reasoning", "Replay", "Re-execute", "Debug"} <= set(commands)
        await pilot.press("escape")
        assert isinstance(app.screen, PickerScreen)
    drive(sample_copy, script)
    assert hashlib.sha256(sample_copy.read_bytes()).hexdigest() == before


def test_replay_then_next_and_previous_run(sample_db):
    async def script(app, pilot):
        run = await open_run(app, pilot, 2)
        total = run.trace.events
        await pilot.press("p")
        assert run.replay is not None and run.trace.events < total
        assert "REPLAY playing 1x" in screen_text(app)
        await pilot.press("plus")
        assert run.replay["speed"] == 2
        run.replay["speed"] = 64                               # 8 s of recorded run in 0.1 s
        assert await wait_for(pilot, lambda: run.trace.events == total, timeout=5)
        assert run.replay["paused"]
        await pilot.press("p")                                  # back to the recorded run
        assert run.replay is None and run.trace.events == total
        # the next and previous runs, in the picker's order
        await pilot.press("L")
        assert await wait_for(pilot, lambda: isinstance(app.screen, RunScreen)
                              and app.screen.run_id == 1)
        await pilot.press("H", "H")
        assert await wait_for(pilot, lambda: app.screen.run_id == 3)
        await pilot.press("H")
        assert any("no further run" in n.message for n in app._notifications)
        assert run.run_id == 2
    drive(sample_db, script)


def test_debugger_steps_runs_and_shows_memory(sample_db):
    async def script(app, pilot):
        run = await open_run(app, pilot, 1)
        await pilot.press("right", "d")
        assert await wait_for(pilot, lambda: isinstance(app.screen, DebuggerScreen)
                              and app.screen.session is not None, timeout=10)
        dbg = app.screen
        s = dbg.session
        assert s.input_label == "seed 100" and s.position == 0
        assert any("the evaluation failed on: seed 100" in n.message for n in app._notifications)
        text = screen_text(app)
        assert "instruction 0/" in text and "next: pc 0 line 2" in text
        assert "y[4160..8255] output" in text                   # the output region, poisoned
        await pilot.press("right", "right", "right")
        assert s.position == 3
        await pilot.press("left")
        assert s.position == 2
        await pilot.press("c")                                  # no breakpoint: to the end
        assert s.position == s.length
        text = screen_text(app)
        assert "ran to the end" in text and "out of tolerance" in text   # the wrong kernel
        await pilot.press("0")
        dbg.query_one("#debug-source").cursor = 21             # V_MAX_VF
        await pilot.press("b", "c")
        assert s.current_line() == 21 and 21 in dbg.breakpoints
        await pilot.press("c")
        assert s.current_line() == 21 and s.position > 0
        await pilot.press("v")
        assert dbg.fmt == "fp32"
        await pilot.press("v", "v")
        assert dbg.fmt == "hex" and "0xFFFF" in screen_text(app)
        await pilot.press("m")
        # the header: the memory, what is out of tolerance or changed, then its size
        assert dbg.memory == "vsram" and "65,536 cells of bf16" in screen_text(app)
        assert dbg.query_one("#debug-memory").text.startswith("vsram  ")
        await pilot.press("a", *"x", "enter")
        assert dbg.memory == "hbm" and dbg.addresses["hbm"] == 0
        await pilot.press("a", *"0x140", "enter")
        assert dbg.addresses["hbm"] == 0x140
        await pilot.press("a", *"nowhere", "enter")
        assert any("neither an address" in n.message for n in app._notifications)
        await pilot.press("escape")
        assert app.screen is run
        # a kernel that does not assemble is named, and nothing can be stepped
        app.push_screen(DebuggerScreen("plena", "relu", "C1", "V_NOPE gp1\n"))
        assert await wait_for(pilot, lambda: any("does not assemble" in n.message
                                                 for n in app._notifications))
        assert "cannot debug" in screen_text(app) and "V_NOPE" in screen_text(app)
        await pilot.press("right", "c", "m")                   # no crash
    drive(sample_db, script)


def test_keymap_remaps_a_binding(sample_db):
    async def script(app, pilot):
        run = await open_run(app, pilot, 1)
        await pilot.press("n", "n")
        assert run.index == 2
    drive(sample_db, script, keymap={"run.next_step": "n"})


