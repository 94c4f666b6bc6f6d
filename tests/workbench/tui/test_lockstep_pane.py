"""The model | RTL pane pair, without Verilator: the second backend is any backend
registered in workbench.rtlcheck (here the plena functional model standing in for an
RTL: a trace without old values, no build step), so nothing in the debugger assumes
plena's RTL. At the first divergence the field that differs is marked on both sides
(the instruction, its issue cycle, or the location and each side's value there), and
each side's loop stack is shown."""
from __future__ import annotations

import asyncio

import numpy as np
import pytest
from tui_kit import screen_text, wait_for

from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.tui.app import KernelCraftApp
from kernelcraft.workbench.tui.model.debugger import DebugSession
from kernelcraft.workbench.tui.model.lockstep import lockstep_lines
from kernelcraft.workbench.tui.screens.debugger import DebuggerScreen

ACCEL = get_accel("plena")
HW = ACCEL.default_config()
SOURCE = ACCEL.baseline("relu", "C1", HW)


class ModelAsRTL:
    """A backend as an RTL's looks to the debugger: runs the program traced and
    returns what each instruction wrote without the values before (fill_old recovers
    them). `corrupt(trace)` changes its trace as a defect would; `loops=False` drops
    the loop stack from it, as a trace that does not record it."""

    name = "stand-in-rtl"

    def __init__(self, corrupt=None, loops: bool = True):
        self.corrupt, self.loops = corrupt, loops

    def run(self, program, image, hw, budget, trace=False):
        result = ACCEL.backend().run(program, image, hw, budget, trace=trace)
        for step in result.trace:
            step.changes = [ch for ch in step.changes if self.loops or ch.space != "LOOPS"]
            for ch in step.changes:
                ch.old = None
        if self.corrupt:
            self.corrupt(result.trace)
        return result


def session(rtl: ModelAsRTL) -> DebugSession:
    s = DebugSession.start("plena", "relu", "C1", SOURCE, seed=2)
    s.attach(s.run_rtl(rtl))
    return s


def marked(lines) -> str:
    """The pane's lines with the marked ("bad") text in <angle brackets>."""
    return "\n".join("".join(f"<{g.text}>" if g.role == "bad" else g.text for g in line)
                     for line in lines)


def vsram_writer(trace, after: int = 20):
    step = next(s for s in trace if s.step > after and any(c.space == "vsram" for c in s.changes))
    return step, next(c for c in step.changes if c.space == "vsram")


def flip_vsram(trace):
    _, ch = vsram_writer(trace)
    ch.new = np.array(ch.new).copy()
    ch.new[3] ^= 0x40


@pytest.mark.parametrize("width", [100, 40])
def test_the_differing_element_is_marked_with_each_sides_value(width):
    s = session(ModelAsRTL(flip_vsram))
    step, ch = vsram_writer(s.main.steps)
    element = ch.address + 3
    s.goto_divergence()
    assert s.lockstep.field() == ("vsram", element)
    text = marked(lockstep_lines(s, width, 12, fmt="hex"))
    model_bits = f"0x{int(np.asarray(ch.new)[3]):04X}"
    rtl_bits = f"0x{int(np.asarray(ch.new)[3]) ^ 0x40:04X}"
    assert f"<first divergence, at #{step.step}><: vsram[{element}]>" in text
    assert f"<≠ vsram[{element}] ><{model_bits}>" in text
    assert f"<≠ vsram[{element}] ><{rtl_bits}>" in text
    # only that field is marked: not the instruction, its pc or its cycle
    assert f"<{step.text}>" not in text and "<pc " not in text and "< cycle" not in text
    s.step(-1)                                           # before it: named, nothing marked
    text = marked(lockstep_lines(s, width, 12))
    assert f"diverge at #{step.step} (ahead; D jumps)" in text and "<" not in text


def test_a_register_write_and_an_issue_cycle_are_marked_where_they_differ():
    def reg(trace):
        ch = next(c for st in trace[15:] for c in st.changes if c.space == "gp")
        ch.new += 1
    s = session(ModelAsRTL(reg))
    s.goto_divergence()
    space, n = s.lockstep.field()
    assert space == "gp"
    text = marked(lockstep_lines(s, 100, 9))
    assert text.count(f"<≠ gp[{n}] >") == 2

    def late(trace):
        trace[5].cycle += 1
    s = session(ModelAsRTL(late))
    s.goto_divergence()
    assert s.lockstep.field() == "cycle"
    text = marked(lockstep_lines(s, 100, 9))
    cycle = s.main.steps[5].cycle
    assert f"< cycle {cycle}>" in text and f"< cycle {cycle + 1}>" in text
    assert "≠" not in text


def test_another_instruction_marks_the_instruction_itself():
    def jump(trace):
        trace[7].pc += 1
        trace[7].text = "S_ADDI_INT gp0, gp0, 0"
    s = session(ModelAsRTL(jump))
    s.goto_divergence()
    assert s.lockstep.field() == "pc"
    text = marked(lockstep_lines(s, 100, 9))
    assert "<S_ADDI_INT gp0, gp0, 0>" in text and f"<pc {s.main.steps[7].pc + 1}>" in text


def test_each_sides_loop_stack_is_shown_and_a_trace_without_it_says_so():
    s = session(ModelAsRTL())
    # inside relu C1's loop: the body pc of each open loop, on both sides
    k = next(st.step for st in s.main.steps
             if any(c.space == "LOOPS" and len(c.new) for c in st.changes))
    s.goto(k + 1)
    stack = " ".join(map(str, s.main.registers["LOOPS"]))
    text = marked(lockstep_lines(s, 100, 9))
    assert text.count(f"loops {stack}") == 2 and stack
    s.goto(0)
    assert "nothing retired yet" in marked(lockstep_lines(s, 100, 9))
    s.goto(3)
    assert marked(lockstep_lines(s, 100, 9)).count("loops -") == 2

    s = session(ModelAsRTL(loops=False))
    s.goto(k + 1)
    text = marked(lockstep_lines(s, 100, 9))
    assert f"loops {stack}" in text and "loops: not in its trace" in text


def drive(screen, script, size):
    async def go():
        app = KernelCraftApp(None, debug=screen)
        async with app.run_test(size=size) as pilot:
            assert await wait_for(pilot, lambda: screen.session is not None, timeout=30)
            await script(app, pilot, screen)
    asyncio.run(go())


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
def test_any_registered_rtl_backend_is_stepped_beside_the_model(size, monkeypatch):
    """The debugger takes the RTL backend the accelerator's registry record names (its
    `rtl` field), with no build state to report, and marks the differing field."""
    import dataclasses
    import kernelcraft.workbench.accel.plena as plena
    rec = plena.ACCELERATOR
    monkeypatch.setattr(plena, "ACCELERATOR", dataclasses.replace(
        rec, rtl=dataclasses.replace(rec.rtl, backend=f"{__name__}:FlippedRTL")))
    screen = DebuggerScreen("plena", "relu", "C1", SOURCE, seed=2, rtl=True)

    async def script(app, pilot, dbg):
        assert await wait_for(pilot, lambda: len(dbg.session.timelines) > 1, timeout=30)
        await pilot.pause(0.1)
        s = dbg.session
        step, ch = vsram_writer(s.main.steps)
        assert s.timelines[1].backend == "stand-in-rtl"
        assert s.position == step.step + 1
        text = screen_text(app)
        assert f"≠ vsram[{ch.address + 3}]" in text and "stand-in-rtl" in text
        assert f"stand-in-rtl: diverges at #{step.step}" in " ".join(text.split())
        await pilot.press("l")
        assert s.timelines[1].position == step.step + 2
        assert "≠" not in screen_text(app)
    drive(screen, script, size)


class FlippedRTL(ModelAsRTL):
    def __init__(self):
        super().__init__(flip_vsram)


def test_a_backend_that_retires_more_is_named_at_the_end_of_the_other():
    def stop_early(trace):
        del trace[-4:]
    s = session(ModelAsRTL(stop_early))
    n = s.timelines[1].length
    assert s.lockstep.divergence.step == n and s.lockstep.field() == "pc"
    s.goto_divergence()
    assert s.position == n + 1 and s.lockstep.at_divergence
    text = marked(lockstep_lines(s, 100, 9))
    assert f"<first divergence, at #{n}>" in text and "the model goes on with" in text


def test_writes_beyond_the_pane_are_counted():
    from copy import copy

    from kernelcraft.workbench.tui.model.lockstep import side_lines
    s = session(ModelAsRTL())
    step = next(st for st in s.main.steps if st.changes and st.changes[0].space == "gp")
    step.changes += [copy(step.changes[0]) for _ in range(3)]       # four writes in all
    s.goto(step.step + 1)
    lines = [marked([ln]) for ln in side_lines(s.main, 4)]
    assert lines[2].startswith("gp[") and lines[3] == "... 3 more writes"
    assert len(side_lines(s.main, 9)) == 6 and "more" not in marked(side_lines(s.main, 9))
