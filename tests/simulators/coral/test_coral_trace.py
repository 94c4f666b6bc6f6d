"""Traced runs: same results as untraced ones, and undo/redo rebuilds every state."""
import copy

import numpy as np
from coral_kit import run

from kernelcraft.simulators.coral.tracing import redo, undo

SRC = """
    la a0, d
    li a1, 4
    vsetvli t0, a1, e32, m1, ta, ma
    vle32.v v1, (a0)
    vfadd.vv v2, v1, v1
    vse32.v v2, (a0)
    li t1, 7
    sw t1, 16(a0)
    flw fa0, 0(a0)
    fadd.s fa1, fa0, fa0
    frflags a2
    ebreak
    .data
d: .float 1.5, 2.5, 0.1, 4
   .word 0
"""


def test_traced_run_matches_untraced_and_steps_undo_redo():
    plain = run(SRC)
    traced = run(SRC, trace=True)
    assert traced.cycles == plain.cycles and traced.retired == plain.retired
    assert np.array_equal(traced.memories["dtcm"], plain.memories["dtcm"])
    assert traced.registers["x"] == plain.registers["x"] and traced.registers["f"] == plain.registers["f"]
    assert len(traced.trace) == traced.retired
    assert [s.cycle for s in traced.trace] == sorted(s.cycle for s in traced.trace)
    spaces = {c.space for s in traced.trace for c in s.changes}
    assert {"x", "f", "v", "csr", "dtcm"} <= spaces
    mem, regs = copy.deepcopy(traced.memories), copy.deepcopy(traced.registers)
    for step in reversed(traced.trace):
        undo(step, mem, regs)
    start = run("ebreak\n" + SRC.split("ebreak")[1])          # the initial image: data only
    assert np.array_equal(mem["dtcm"], start.memories["dtcm"])
    assert regs["x"][10] == 0 and not regs["v"].any()
    for step in traced.trace:
        redo(step, mem, regs)
    assert np.array_equal(mem["dtcm"], traced.memories["dtcm"]) and regs["x"] == traced.registers["x"]


def test_fixed_point_csrs_are_traced_and_undone():
    src = """
    li a1, 4
    vsetvli t0, a1, e8, m1, ta, ma
    csrwi vxrm, 2
    li t1, 100
    vmv.v.x v1, t1
    vsadd.vv v2, v1, v1
    ebreak
    """
    traced = run(src, trace=True)
    assert traced.registers["vxrm"] == 2 and traced.registers["vxsat"] == 1
    csr = {(c.address, c.old, c.new) for s in traced.trace for c in s.changes if c.space == "csr"}
    assert (4, 0, 2) in csr and (5, 0, 1) in csr            # vxrm, vxsat
    regs = copy.deepcopy(traced.registers)
    mem = copy.deepcopy(traced.memories)
    for step in reversed(traced.trace):
        undo(step, mem, regs)
    assert regs["vxrm"] == 0 and regs["vxsat"] == 0


def test_read_change_recovers_every_old_value():
    """An RTL's trace records what was written, not what was there: read_change on a
    replay from the start state (core.trace.fill_old) gives back the model's old values."""
    from kernelcraft.simulators.coral.tracing import read_change
    from kernelcraft.simulators.core.trace import fill_old
    traced = run(SRC, trace=True)
    mem, regs = copy.deepcopy(traced.memories), copy.deepcopy(traced.registers)
    for step in reversed(traced.trace):
        undo(step, mem, regs)
    olds = [c.old for s in traced.trace for c in s.changes]
    for s in traced.trace:
        for c in s.changes:
            c.old = None
    fill_old(traced.trace, mem, regs, read_change, redo)
    got = [c.old for s in traced.trace for c in s.changes]
    assert len(got) == len(olds) > 10
    for a, b in zip(olds, got):
        assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
