"""Traces: one step per bundle with its issue cycle and every change (old and new), DMA
completions included; tracing never changes results or cycles."""
import numpy as np

from aie_kit import bf, image, run

SRC = """
.bd A, ext=0, loc=0, n0=32, rel=l0
    DMAIN 0, A, r0, r0 || MOVI r1, 64
    ACQ l0, 1 || MOVP p1, r1
    LOOP 2
        VLD x0, [p0], 64 || VUPS.BF16 acc0, x0
    ENDLOOP
    VSRS.BF16 x1, acc0 || SETRM FLOOR
    VST x1, [p1], 64
"""


def test_trace_has_one_step_per_bundle_and_same_results():
    img = image(ext={0: bf(np.arange(32))})
    plain, traced = run(SRC, img), run(SRC, img, trace=True)
    assert plain.cycles == traced.cycles and np.array_equal(plain.memories["dm"], traced.memories["dm"])
    steps = traced.trace
    assert len(steps) == traced.retired == 7
    assert [s.pc for s in steps] == [0, 1, 2, 3, 3, 4, 5]
    assert all(b.cycle > a.cycle for a, b in zip(steps, steps[1:]))
    spaces = {c.space for s in steps for c in s.changes}
    assert {"r", "p", "x", "acc", "dm", "lock", "LOOPS", "RM"} <= spaces
    acq = steps[1]
    dm = next(c for c in acq.changes if c.space == "dm")
    assert dm.address == 0 and np.array_equal(dm.new[:64].view(np.uint16), bf(np.arange(32)))
    lock = [c for c in acq.changes if c.space == "lock"]
    assert [(c.old, c.new) for c in lock] == [(0, 1), (1, 0)]          # released, then acquired


def test_changes_replay_to_the_final_state():
    img = image(ext={0: bf(np.arange(32))})
    r = run(SRC, img, trace=True)
    regs = {"r": [0] * 16, "p": [0] * 8}
    for s in r.trace:
        for c in s.changes:
            if c.space in regs:
                assert regs[c.space][c.address] == c.old
                regs[c.space][c.address] = c.new
    assert regs["r"] == r.registers["r"] and regs["p"] == r.registers["p"]


def test_undo_redo_step_a_snapshot_between_the_ends():
    import copy

    from kernelcraft.simulators.aie.tracing import redo, undo
    img = image(ext={0: bf(np.arange(32))})
    r = run(SRC, img, trace=True)
    mem = {k: v.copy() for k, v in r.memories.items()}
    regs = copy.deepcopy(r.registers)
    for step in reversed(r.trace):
        undo(step, mem, regs)
    assert not mem["dm"].any() and regs["r"] == [0] * 16 and not regs["x"].any()
    assert regs["locks"] == [0] * 16 and regs["RM"] == 2
    for step in r.trace:
        redo(step, mem, regs)
    assert np.array_equal(mem["dm"], r.memories["dm"]) and np.array_equal(regs["acc"], r.registers["acc"])
    assert regs["p"] == r.registers["p"] and regs["LOOPS"] == []


def test_the_debugger_steps_an_aie_kernel():
    from kernelcraft.workbench.accel import get_accel
    from kernelcraft.workbench.tui.model.debugger import DebugSession
    hw = get_accel("aie").default_config()
    src = get_accel("aie").baseline("relu", "C1", hw)
    s = DebugSession.start("aie", "relu", "C1", src, seed=3)
    n = s.main.length
    assert n > 10
    s.main.goto(n)
    assert all(o.comparison.passed for o in s.outputs())
    s.main.goto(0)
    assert not any(o.comparison.passed for o in s.outputs())


def test_read_change_recovers_every_old_value():
    """An RTL's trace records what was written, not what was there: read_change on a
    replay from the start state (core.trace.fill_old) gives back the model's old values."""
    import copy

    from kernelcraft.simulators.aie.tracing import read_change, redo, undo
    from kernelcraft.simulators.core.trace import fill_old
    r = run(SRC, image(ext={0: bf(np.arange(32))}), trace=True)
    mem, regs = {k: v.copy() for k, v in r.memories.items()}, copy.deepcopy(r.registers)
    for step in reversed(r.trace):
        undo(step, mem, regs)
    olds = [c.old for s in r.trace for c in s.changes]
    for s in r.trace:
        for c in s.changes:
            c.old = None
    fill_old(r.trace, mem, regs, read_change, redo)
    got = [c.old for s in r.trace for c in s.changes]
    assert len(got) == len(olds) > 10
    for a, b in zip(olds, got):
        assert type(a) is type(b) and (np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b)
