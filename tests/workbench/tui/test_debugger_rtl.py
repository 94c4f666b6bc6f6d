"""The debugger with the RTL beside the model (plena), without a UI: the RTL's trace
becomes a Timeline that steps back and forth like the model's, both move together,
and a divergence is found by rtl-check's own comparison at the right instruction.
A small hardware configuration keeps the Verilator build short and cached."""
from __future__ import annotations

import numpy as np
import pytest

from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.plena_rtl.backend import PlenaRTL
from kernelcraft.simulators.plena_rtl.randprog import DIFF_CONFIG
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.tui.model.debugger import DebugSession

HW = default_config(**DIFF_CONFIG)
SOURCE = get_accel("plena").baseline("relu", "C1", HW)


class DivergingRTL(PlenaRTL):
    """The real RTL, with the value written by the `at`-th instruction that writes Vector
    SRAM changed (in its trace and its final memory), as a defect in the hardware would."""

    def __init__(self, at: int = 0):
        super().__init__()
        self.at = at
        self.step = None

    def run_many(self, jobs, config):
        results = super().run_many(jobs, config)
        for r in results:
            writers = [s for s in r.trace if any(c.space == "vsram" for c in s.changes)]
            step = writers[self.at]
            ch = next(c for c in step.changes if c.space == "vsram")
            ch.new = np.array(ch.new).copy()
            ch.new[0] ^= 0x40
            r.memories["vsram"] = r.memories["vsram"].copy()
            later = [s for s in r.trace[step.step + 1:] for c in s.changes
                     if c.space == "vsram" and c.address == ch.address]
            if not later:
                r.memories["vsram"][ch.address] ^= 0x40
            self.step = step.step
        return results


@pytest.fixture(scope="module")
def session():
    s = DebugSession.start("plena", "relu", "C1", SOURCE, seed=3, hw=HW)
    s.attach(s.run_rtl(PlenaRTL()))
    return s


def _state(tl):
    return ({k: np.array(v, copy=True) for k, v in tl.memories.items()},
            {k: np.array(v, copy=True) for k, v in tl.registers.items()})


def _same(a, b):
    (ma, ra), (mb, rb) = a, b
    return all(np.array_equal(ma[k], mb[k]) for k in ma) and \
        all(np.array_equal(ra[k], rb[k]) for k in ra)


def test_rtl_steps_in_lockstep_with_the_model_and_agrees(session):
    assert session.timelines[1].backend == "plena-rtl"
    assert session.lockstep.divergence is None
    assert session.timelines[1].length == session.length
    for target in (0, 7, session.length // 2, session.length, 3):
        session.goto(target)
        assert session.timelines[1].position == target
        assert _same(_state(session.main), _state(session.timelines[1])), target
    assert session.goto_divergence() is None


def test_a_diverging_rtl_is_named_at_the_right_instruction():
    s = DebugSession.start("plena", "relu", "C1", SOURCE, seed=3, hw=HW)
    rtl = DivergingRTL(at=2)
    s.attach(s.run_rtl(rtl))
    d = s.lockstep.divergence
    assert d is not None and d.step == rtl.step
    assert f"retired instruction #{rtl.step}" in d.what and "vsram[" in d.what
    s.goto_divergence()
    assert s.position == rtl.step + 1 and s.lockstep.at_divergence
    # the two sides differ there, and agreed just before
    assert not np.array_equal(s.main.memories["vsram"], s.timelines[1].memories["vsram"])
    s.step(-1)
    assert np.array_equal(s.main.memories["vsram"], s.timelines[1].memories["vsram"])


def test_build_state_says_the_build_is_cached(session):
    state = PlenaRTL().build_state(HW)
    assert state.ready and state.describe() == "built (in the cache)"
