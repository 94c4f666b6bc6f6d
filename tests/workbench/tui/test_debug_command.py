"""`kernelcraft debug`: the debugger on any kernel file (a task kernel on a seed or an
edge case, a bare program on an exec-style memory image), with the plena RTL stepped
in lockstep beside the model on a small hardware configuration (its Verilator build
is cached and shared with test_debugger_rtl.py), at 80x24 and 160x45."""
from __future__ import annotations

import asyncio

import pytest
from test_debugger_rtl import HW, SOURCE, DivergingRTL
from tui_kit import screen_text, wait_for

from kernelcraft.simulators.plena_rtl.randprog import DIFF_CONFIG
from kernelcraft.tasks import get_task
from kernelcraft.workbench.cli import build_parser, main
from kernelcraft.workbench.tui.app import KernelCraftApp
from kernelcraft.workbench.tui.cli import debugger_screen
from kernelcraft.workbench.tui.screens.debugger import DebuggerScreen

HW_ARGS = [a for k, v in DIFF_CONFIG.items() for a in ("--hw", f"{k}={v}")]


def args(*argv):
    return build_parser().parse_args(["debug", *argv])


def drive(screen, script, size=(80, 24), timeout=60):
    async def go():
        app = KernelCraftApp(None, debug=screen)
        async with app.run_test(size=size) as pilot:
            assert await wait_for(pilot, lambda: screen.session is not None
                                  or "cannot debug" in screen_text(app), timeout=20)
            await script(app, pilot, screen)
    asyncio.run(go())


def rtl_attached(screen):
    return screen.session is not None and len(screen.session.timelines) > 1


@pytest.fixture
def kernel(tmp_path):
    path = tmp_path / "relu.asm"
    path.write_text(SOURCE)
    return str(path)


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
def test_debug_rtl_steps_in_lockstep_to_the_end_and_agrees(kernel, size):
    screen = debugger_screen(args("--accel", "plena", "--task", "relu", "--config", "C1",
                                  kernel, "--rtl", "--seed", "3", *HW_ARGS))

    async def script(app, pilot, dbg):
        assert await wait_for(pilot, lambda: rtl_attached(dbg), timeout=60)
        await pilot.pause(0.1)
        text = screen_text(app)
        assert "plena-model" in text and "plena-rtl" in text
        assert "agree on every instruction" in text
        await pilot.press("l", "l", "l")
        assert dbg.session.timelines[1].position == 3
        assert "#2 " in screen_text(app)                   # the retired instruction, each side
        await pilot.press("end")
        assert dbg.session.timelines[1].at_end and dbg.session.main.at_end
        text = " ".join(screen_text(app).split())        # the status wraps at 80 columns
        assert "ran to the end" in text and "plena-rtl: agrees" in text
        assert any("agrees with the model on every one of" in n.message
                   for n in app._notifications)
        await pilot.press("escape")                        # nothing below: quits
        await pilot.pause(0.1)
        assert app._exit_renderables is not None or not app.is_running
    drive(screen, script, size)


def test_a_diverging_rtl_is_shown_at_the_right_instruction():
    rtl = DivergingRTL(at=2)
    screen = DebuggerScreen("plena", "relu", "C1", SOURCE, seed=3, hw=HW, rtl=True,
                            rtl_backend=rtl)

    async def script(app, pilot, dbg):
        assert await wait_for(pilot, lambda: rtl_attached(dbg), timeout=60)
        await pilot.pause(0.1)
        s = dbg.session
        assert s.position == rtl.step + 1                  # jumped to just after it
        step = s.main.steps[rtl.step]
        text = screen_text(app)
        assert "first divergence" in text
        assert f"#{rtl.step} {step.text}" in text
        assert f"plena-rtl: diverges at #{rtl.step}" in text
        assert any(f"diverges at instruction #{rtl.step}" in n.message for n in app._notifications)
        await pilot.press("0")
        assert f"diverge at #{rtl.step} (ahead; D jumps)" in screen_text(app)
        await pilot.press("D")
        assert s.position == rtl.step + 1
    drive(screen, script, (160, 45))


def test_rtl_build_state_is_shown_while_it_runs(kernel):
    """Until the RTL's trace is in, the pane says what it is doing and for how long."""
    class SlowRTL(DivergingRTL):
        def run_many(self, jobs, config):
            import time
            time.sleep(1.5)
            return super().run_many(jobs, config)

    screen = DebuggerScreen("plena", "relu", "C1", SOURCE, hw=HW, rtl=True, rtl_backend=SlowRTL())

    async def script(app, pilot, dbg):
        assert await wait_for(pilot, lambda: "running the traced RTL (simulator built)"
                              in screen_text(app), timeout=10)
        assert " s" in screen_text(app).split("simulator built)")[1][:8], screen_text(app)
        assert await wait_for(pilot, lambda: rtl_attached(dbg), timeout=60)
    drive(screen, script, (160, 45))


def test_closing_while_the_rtl_runs_leaves_no_thread_behind(kernel):
    """The build-state watcher must end with the app: before it did, quitting before the
    RTL's trace arrived left it polling, and asyncio's exit waited for it forever."""
    import threading
    import time

    class SlowRTL(DivergingRTL):
        def run_many(self, jobs, config):
            time.sleep(3)
            return super().run_many(jobs, config)

    screen = DebuggerScreen("plena", "relu", "C1", SOURCE, hw=HW, rtl=True, rtl_backend=SlowRTL())

    async def script(app, pilot, dbg):
        assert await wait_for(pilot, lambda: "simulator built" in screen_text(app), timeout=10)

    done = threading.Event()
    worker = threading.Thread(target=lambda: (drive(screen, script, (160, 45)), done.set()),
                              daemon=True)
    worker.start()
    worker.join(timeout=90)
    assert done.is_set(), "the app did not close: a worker thread outlived it"


def test_debug_an_edge_case_and_refuse_a_wrong_one(kernel):
    name = get_task("relu").edge_cases("C1", 0)[0][0]
    screen = debugger_screen(args("--accel", "plena", "--task", "relu", "--config", "C1",
                                  kernel, "--edge", name, *HW_ARGS))

    async def script(app, pilot, dbg):
        assert f"edge: {name}" in screen_text(app)
        await pilot.press("end")
        assert dbg.session.outputs()[0].comparison.passed
    drive(screen, script)

    screen = debugger_screen(args("--accel", "plena", "--task", "relu", "--config", "C1",
                                  kernel, "--edge", "no-such-case"))

    async def refused(app, pilot, dbg):
        assert "no edge case 'no-such-case'" in screen_text(app)
    drive(screen, refused)


def test_debug_a_bare_program_on_an_exec_image(tmp_path):
    prog = tmp_path / "p.asm"
    prog.write_text("S_LD_INT gp1, gp0, 3\nS_ADDI_INT gp2, gp1, 5\n")
    screen = debugger_screen(args("--accel", "plena", str(prog), "--set", "int_mem:3=37"))

    async def script(app, pilot, dbg):
        text = screen_text(app)
        assert "plena p.asm" in text                   # the file's name: 80 columns
        await pilot.press("end")
        assert dbg.session.main.registers["gp"][2] == 42
        assert "ran to the end: 2 instructions" in " ".join(screen_text(app).split())
    drive(screen, script)


def test_debug_usage_errors_are_named(kernel, capsys, monkeypatch):
    import dataclasses
    import kernelcraft.workbench.accel.aie as record       # an accelerator without RTL: aie's taken away
    monkeypatch.setattr(record, "ACCELERATOR", dataclasses.replace(record.ACCELERATOR, rtl=None))
    assert main(["debug", "--accel", "plena", "--task", "relu", kernel]) == 2
    assert "needs both --task and --config" in capsys.readouterr().err
    assert main(["debug", "--accel", "plena", "--task", "relu", "--config", "C9", kernel]) == 2
    assert "no configuration 'C9'" in capsys.readouterr().err
    assert main(["debug", "--accel", "aie", "--task", "relu", "--config", "C1", kernel,
                 "--rtl"]) == 2
    assert "has no RTL yet" in capsys.readouterr().err
    assert main(["debug", "--accel", "plena", kernel, "--edge", "x"]) == 2
    assert "--edge needs --task" in capsys.readouterr().err
    assert main(["debug", "--accel", "plena", "--task", "relu", "--config", "C1", kernel,
                 "--edge-seed", "4"]) == 2
    assert "give --edge NAME too" in capsys.readouterr().err
    # no terminal under pytest: says what to use instead
    assert main(["debug", "--accel", "plena", "--task", "relu", "--config", "C1", kernel]) == 2
    assert "needs an interactive terminal" in capsys.readouterr().err
