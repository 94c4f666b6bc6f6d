"""`kernelcraft debug --accel coral|aie PROG --rtl`: a bare program stepped on the
functional model and the RTL together, as plena's are (test_debug_command.py). The
RTLs run on the small configurations their own tests build (tests/rtl/coral and
tests/rtl/aie conftest: one cached Verilator build each). Coral's RTL traces every
write, so a wrong value is marked at its instruction; aie's traces bundles and issue
cycles only, so its writes are checked in the end states (rtl-check's compare_runs)."""
from __future__ import annotations

import numpy as np
import pytest
from test_debug_command import args, drive, rtl_attached
from tui_kit import screen_text, wait_for

from kernelcraft.isa.aie import default_config as aie_config
from kernelcraft.isa.coral import default_config as coral_config
from kernelcraft.simulators.aie_rtl.backend import AieRTL
from kernelcraft.simulators.aie_rtl.randprog import DIFF_CONFIG as AIE_CONFIG
from kernelcraft.simulators.coral_rtl.backend import CoralRTL
from kernelcraft.simulators.coral_rtl.randprog import TEST_CONFIG as CORAL_CONFIG
from kernelcraft.workbench.tui.cli import debugger_screen
from kernelcraft.workbench.tui.screens.debugger import DebuggerScreen

CORAL_PROG = """    la x7, d
    li x5, 7
    addi x6, x5, 3
    sw x6, 8(x7)
    lw x8, 8(x7)
    fcvt.s.w f1, x8
    csrwi fflags, 1
    ebreak
    .data
d: .word 0, 0, 0, 0
"""
AIE_PROG = """MOVI r1, 40
ADDI r2, r1, 2
PADDI p4, p0, 64
ST r2, [p4], 4
LD r3, [p4]
NOP
HALT
"""


def hw_args(config: dict) -> list[str]:
    return [a for k, v in config.items() for a in ("--hw", f"{k}={v}")]


def same_state(a, b) -> bool:
    return all(np.array_equal(a.memories[k], b.memories[k]) for k in a.memories) and all(
        np.array_equal(np.asarray(a.registers[k]), np.asarray(b.registers[k]))
        for k in a.registers)


class WrongX6(CoralRTL):
    """The real coral RTL with the value its `addi` wrote to x6 changed (in its trace and
    its final registers), as a defect in the hardware would."""

    def run_many(self, jobs, config):
        results = super().run_many(jobs, config)
        for r in results:
            step = next(s for s in r.trace if any(c.space == "x" and c.address == 6
                                                  for c in s.changes))
            ch = next(c for c in step.changes if c.space == "x" and c.address == 6)
            ch.new ^= 0x100
            r.registers["x"][6] ^= 0x100
            self.step = step.step
        return results


class WrongByte(AieRTL):
    """The real aie RTL ending with one data-memory byte changed: its trace (bundles and
    issue cycles) still agrees, only the end states can tell."""

    def run_many(self, jobs, config):
        results = super().run_many(jobs, config)
        for r in results:
            r.memories["dm"] = r.memories["dm"].copy()
            r.memories["dm"][64] ^= 0x01
        return results


@pytest.fixture
def coral_prog(tmp_path):
    path = tmp_path / "scalar.s"
    path.write_text(CORAL_PROG)
    return str(path)


@pytest.fixture
def aie_prog(tmp_path):
    path = tmp_path / "scalar.asm"
    path.write_text(AIE_PROG)
    return str(path)


def test_debug_coral_rtl_steps_in_lockstep_to_the_end_and_agrees(coral_prog):
    screen = debugger_screen(args("--accel", "coral", coral_prog, "--rtl", *hw_args(CORAL_CONFIG)))

    async def script(app, pilot, dbg):
        assert await wait_for(pilot, lambda: rtl_attached(dbg), timeout=120)
        await pilot.pause(0.1)
        text = screen_text(app)
        assert "coral-model" in text and "coral-rtl" in text
        assert "agree on every instruction" in text
        s = dbg.session
        for _ in range(5):                                     # `la` is two instructions
            await pilot.press("l")
            assert same_state(s.main, s.timelines[1]), s.position
        assert s.timelines[1].position == 5
        text = screen_text(app)
        assert "coral-model #4 sw x6, 8(x7)" in text and "coral-rtl #4 sw x6, 8(x7)" in text
        assert text.count("dtcm[8] 4 el [10, 0, ...]") == 2    # the store's bytes, each side
        await pilot.press("end")
        assert s.timelines[1].at_end and s.main.at_end and same_state(s.main, s.timelines[1])
        await pilot.press("h", "h")                            # and back, both sides
        assert s.timelines[1].position == s.length - 2 and same_state(s.main, s.timelines[1])
        await pilot.press("end")
        text = " ".join(screen_text(app).split())
        assert "coral-rtl: agrees" in text and "ended by the program's own ebreak" in text
        assert any("agrees with the model on every one of 9 instructions" in n.message
                   for n in app._notifications)
    drive(screen, script, (80, 24), timeout=120)


def test_a_diverging_coral_rtl_is_marked_at_the_right_instruction():
    rtl = WrongX6()
    screen = DebuggerScreen("coral", "", "", CORAL_PROG, hw=coral_config(**CORAL_CONFIG),
                            rtl=True, rtl_backend=rtl, source_name="scalar.s")

    async def script(app, pilot, dbg):
        assert await wait_for(pilot, lambda: rtl_attached(dbg), timeout=120)
        await pilot.pause(0.1)
        s = dbg.session
        assert s.position == rtl.step + 1                     # jumped to just after it
        assert s.lockstep.field() == ("x", 6)
        text = screen_text(app)
        assert f"first divergence, at #{rtl.step}: x6" in text
        assert "≠ x[6] 10" in text and "≠ x[6] 266" in text    # each side's value
        assert f"coral-rtl: diverges at #{rtl.step}" in text
        assert "x6: model 0x0000000a, RTL 0x0000010a" in text
        await pilot.press("0")
        assert f"diverge at #{rtl.step} (ahead; D jumps)" in screen_text(app)
        await pilot.press("D")
        assert s.position == rtl.step + 1
    drive(screen, script, (160, 45), timeout=120)


def test_debug_aie_rtl_steps_in_lockstep_and_agrees_at_the_end(aie_prog):
    screen = debugger_screen(args("--accel", "aie", aie_prog, "--rtl", *hw_args(AIE_CONFIG)))

    async def script(app, pilot, dbg):
        assert await wait_for(pilot, lambda: rtl_attached(dbg), timeout=120)
        await pilot.pause(0.1)
        text = screen_text(app)
        assert "aie-model" in text and "aie-rtl" in text
        assert "agree on every bundle and at the end" in text
        await pilot.press("l", "l", "l", "l")
        s = dbg.session
        assert s.timelines[1].position == 4
        text = screen_text(app)
        assert "aie-model #3 ST r2, [p4], 4" in text and "aie-rtl #3 ST r2, [p4], 4" in text
        # its registers between the ends are not known: not shown as if they were
        assert "(registers known at the end only)" in text and "r2=42" not in text.split("aie-rtl")[-1]
        await pilot.press("end")
        assert s.timelines[1].at_end and "aie-rtl: agrees" in screen_text(app)
        assert any("agrees with the model on every one of 7 bundles" in n.message
                   for n in app._notifications)
    drive(screen, script, (80, 24), timeout=120)


def test_an_aie_rtl_that_ends_in_another_state_is_not_called_agreeing(aie_prog):
    screen = DebuggerScreen("aie", "", "", AIE_PROG, hw=aie_config(**AIE_CONFIG), rtl=True,
                            rtl_backend=WrongByte(), source_name="scalar.asm")

    async def script(app, pilot, dbg):
        assert await wait_for(pilot, lambda: rtl_attached(dbg), timeout=120)
        await pilot.pause(0.1)
        s = dbg.session
        assert s.lockstep.divergence is None and not s.lockstep.agree
        text = screen_text(app)
        assert "aie-rtl: differs at the end" in text
        assert "every bundle agrees; the end states differ: dm[64]" in text
        await pilot.press("l", "l", "l", "l")
        assert "(its trace records no writes: compared at the end)" in screen_text(app)
        assert any(n.title == "end states differ" and "dm[64]" in n.message
                   for n in app._notifications)
    drive(screen, script, (160, 45), timeout=120)
