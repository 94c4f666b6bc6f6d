"""Tracing: every retired instruction records its changes; replaying them backwards
from the final state gives the initial state exactly, and forwards the final state."""
import copy

import numpy as np

from plena_kit import image, run
from kernelcraft.simulators.plena.tracing import redo, undo

# Touches every kind of state: gp, f, a, the three status registers, every memory,
# every accumulator and the loop stack, with a masked write and a loop.
PROGRAM = """
    S_ADDI_INT gp1, gp0, 16
    C_SET_ADDR_REG a1, gp0, gp1
    C_SET_STRIDE_REG gp1
    C_SET_SCALE_REG gp1
    S_ADDI_INT gp2, gp0, 1
    C_SET_V_MASK_REG gp2
    H_PREFETCH_V gp0, gp0, a1, 1, 0
    S_ADDI_INT gp3, gp0, 64
    H_PREFETCH_M gp3, gp0, a0, 0, 0
    S_LD_FP f1, gp0, 0
    C_LOOP_START gp4, 3
        V_ADD_VF gp0, gp0, f1, 1
        V_RED_SUM f2, gp0
        S_ST_FP f2, gp4, 10
        S_ST_INT gp4, gp4, 0
    C_LOOP_END gp4
    S_MAP_V_FP gp1, gp0, 0
    M_MM 0, gp3, gp0
    M_MM_WO gp1, gp0, 2
    M_MV 0, gp3, gp0
    M_MV_WO gp0, 24
    M_BMM 0, gp3, gp0
    M_BMV 0, gp3, gp0
    M_BMV_WO gp0, 32
    H_STORE_V gp0, gp0, a1, 0, 0
    S_ADDI_INT gp5, gp0, 2
    V_SHFT_V gp1, gp1, gp5
    V_TOPK gp0, gp0, gp0, 0
"""


def snapshot(result):
    return copy.deepcopy(result.memories), copy.deepcopy(result.registers)


def assert_same(a, b):
    (mem_a, reg_a), (mem_b, reg_b) = a, b
    assert mem_a.keys() == mem_b.keys() and reg_a.keys() == reg_b.keys()
    for k in mem_a:
        assert mem_a[k].tobytes() == mem_b[k].tobytes(), k
    for k in reg_a:
        va, vb = reg_a[k], reg_b[k]
        if isinstance(va, np.ndarray):
            assert va.tobytes() == vb.tobytes(), k
        else:
            assert np.asarray(va, dtype=object).tolist() == np.asarray(vb, dtype=object).tolist(), k


def _image():
    return image(hbm={0: [(i % 17) - 8 for i in range(512)]},
                 fp_mem={0: [0.75] + [0.0] * 63}, vsram={0: [1, 2, 3, 4, 5, 6, 7, 8]},
                 int_mem={5: [99]})


def test_trace_replays_backwards_and_forwards_exactly():
    traced = run(PROGRAM, _image(), trace=True)
    initial = snapshot(run("", _image()))
    final = snapshot(traced)
    assert len(traced.trace) == traced.retired == 16 + 2 * 5 + 12

    state = snapshot(traced)
    for step in reversed(traced.trace):
        undo(step, *state)
    assert_same(state, initial)

    for step in traced.trace:
        redo(step, *state)
    assert_same(state, final)


def test_traced_and_untraced_runs_agree():
    traced, plain = run(PROGRAM, _image(), trace=True), run(PROGRAM, _image())
    assert plain.trace is None
    assert_same(snapshot(traced), snapshot(plain))
    assert (traced.cycles, traced.retired, traced.unit_busy, traced.stalls) == \
        (plain.cycles, plain.retired, plain.unit_busy, plain.stalls)


def test_steps_follow_program_order_and_loops():
    r = run(PROGRAM, _image(), trace=True)
    pcs = [s.pc for s in r.trace]
    assert pcs[:16] == list(range(16))
    assert pcs[16:26] == [11, 12, 13, 14, 15] * 2
    assert [s.step for s in r.trace] == list(range(len(r.trace)))
    assert all(a.cycle <= b.cycle for a, b in zip(r.trace, r.trace[1:]))
    first = r.trace[0]
    assert (first.line, first.text) == (2, "S_ADDI_INT gp1, gp0, 16")


def test_changes_name_space_address_old_and_new():
    r = run(PROGRAM, _image(), trace=True)
    by_pc = {s.pc: s for s in r.trace}
    (c,) = by_pc[0].changes
    assert (c.space, c.address, c.old, c.new) == ("gp", 1, 0, 16)
    (c,) = by_pc[2].changes
    assert (c.space, c.address, c.new) == ("csr", 0, 16)               # STRIDE
    masked = r.trace[11].changes[0]                                       # V_ADD_VF, mask 0b01
    assert masked.space == "vsram" and masked.address == 0
    assert masked.old[4:].tolist() == masked.new[4:].tolist()           # head 1 kept
    assert [ch.space for ch in by_pc[18].changes] == ["vsram", "vsram", "MM_ACC"]
    assert [ch.address for ch in by_pc[18].changes[:2]] == [18, 26]    # block rows
    start, last_end = by_pc[10].changes, by_pc[15].changes
    assert [(ch.space, ch.old, ch.new) for ch in start] == [("LOOPS", (), (11,)), ("gp", 0, 3)]
    assert [(ch.space, ch.old, ch.new) for ch in last_end] == [("gp", 1, 0), ("LOOPS", (11,), ())]


def test_gp0_writes_are_not_recorded():
    r = run("S_ADDI_INT gp0, gp0, 5\nS_ADD_FP f0, f0, f0", trace=True)
    assert [s.changes for s in r.trace] == [[], []]


def test_trace_of_a_failing_run_stops_before_the_failing_instruction():
    r = run("S_ADDI_INT gp1, gp0, 4\nV_ADD_VV gp1, gp0, gp0", trace=True, expect_ok=False)
    assert len(r.trace) == 1 and r.error.where.index == 1
