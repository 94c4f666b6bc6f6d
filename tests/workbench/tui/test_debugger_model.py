"""The debugger's model without any UI: states reached forwards, backwards and by
jumps are identical; breakpoints; changed locations; outputs against the reference;
errors named; two backends compared in lockstep."""
from __future__ import annotations

import numpy as np
import pytest

from kernelcraft.simulators.core.budget import Budget
from kernelcraft.tasks import get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.layout import build_image
from kernelcraft.workbench.tui.model.debugger import DebugSession, DebugSetupError
from kernelcraft.workbench.tui.model.timeline import Timeline

ACCEL = get_accel("plena")
HW = ACCEL.default_config()


@pytest.fixture(scope="module")
def gemm():
    return DebugSession.start("plena", "gemm", "C3", ACCEL.baseline("gemm", "C3", HW), seed=5)


def snapshot(timeline: Timeline):
    regs = {k: (np.array(v) if isinstance(v, (list, np.ndarray)) else v)
            for k, v in timeline.registers.items()}
    return {k: v.copy() for k, v in timeline.memories.items()}, regs


def same(a, b) -> bool:
    (ma, ra), (mb, rb) = a, b
    return (all(np.array_equal(ma[k], mb[k], equal_nan=True) for k in ma)
            and ra.keys() == rb.keys()
            and all(np.array_equal(np.asarray(ra[k]), np.asarray(rb[k]), equal_nan=True)
                    for k in ra))


def test_first_state_is_the_loaded_image(gemm):
    """Undoing every recorded change gives exactly what a run stopped before its first
    instruction holds: the memory image, zero registers."""
    task = get_task("gemm")
    image = build_image(ACCEL.layout(task, "C3", HW), task.generate("C3", 5))
    program = ACCEL.assemble(gemm.source, config=HW)
    before = ACCEL.backend().run(program, image, HW, Budget(max_instructions=0))
    gemm.goto(0)
    mem, regs = snapshot(gemm.main)
    assert all(np.array_equal(mem[k], before.memories[k]) for k in mem)
    assert regs["gp"].tolist() == before.registers["gp"]


def test_every_way_to_a_state_gives_the_same_state(gemm):
    n = gemm.length
    assert n > 10000            # long enough for jumps that restore a snapshot
    targets = [1, 7, n // 3, n // 2, n - 1]
    forward = {}
    gemm.goto(0)
    for t in targets:                         # stepping forwards
        gemm.goto(t)
        forward[t] = snapshot(gemm.main)
    for t in reversed(targets):               # stepping backwards from the end
        gemm.goto(n)
        gemm.goto(t)
        assert same(snapshot(gemm.main), forward[t]), t
    gemm.goto(n // 2)
    for _ in range(25):
        gemm.step(1)
    for _ in range(25):
        gemm.step(-1)
    assert same(snapshot(gemm.main), forward[n // 2])


def test_last_state_is_the_run_result(gemm):
    gemm.goto(gemm.length)
    assert gemm.main.at_end and gemm.current_line() is None
    assert gemm.cycle() == gemm.main.result.cycles
    assert "ran to the end" in gemm.stop_reason


def test_outputs_fail_before_the_kernel_and_pass_after(gemm):
    gemm.goto(0)
    (out,) = gemm.outputs()
    assert out.name == "c" and not out.comparison.passed and out.comparison.frac_match == 0
    gemm.goto(gemm.length)
    (out,) = gemm.outputs()
    assert out.comparison.passed


def test_breakpoints_and_reverse(gemm):
    lines = {step.line for step in gemm.main.steps}
    mnemonic_line = next(s.line for s in gemm.main.steps if s.text.startswith("M_"))
    gemm.goto(0)
    gemm.run({mnemonic_line})
    first = gemm.position
    assert gemm.main.current().line == mnemonic_line
    assert all(s.line != mnemonic_line for s in gemm.main.steps[:first])
    gemm.run({mnemonic_line})
    assert gemm.position > first and gemm.current_line() == mnemonic_line
    gemm.run({mnemonic_line}, forward=False)
    assert gemm.position == first
    gemm.run(set(), forward=True)                    # no breakpoint: to the end
    assert gemm.position == gemm.length
    gemm.run(set(), forward=False)
    assert gemm.position == 0
    assert mnemonic_line in lines


def test_changed_locations_are_those_of_the_steps_moved_over(gemm):
    gemm.goto(0)
    step0 = gemm.main.steps[0]
    touched = gemm.step(1)
    (change,) = step0.changes
    assert touched.has(change.space, change.address) and touched.steps == 1
    # a long jump reports the output region as changed (the stores wrote it)
    out = gemm.layout.by_role("output")[0]
    touched = gemm.goto(gemm.length)
    assert touched.mask(out.memory, out.address, out.size).all()
    back = gemm.goto(gemm.length - 1)
    last = gemm.main.steps[-1]
    assert back.steps == 1 and all(back.has(c.space, c.address) for c in last.changes
                                   if c.space != "LOOPS")


def test_a_run_error_is_located_and_stepping_stops_there():
    src = "S_ADDI_INT gp1, gp0, 5\nS_ADDI_INT gp2, gp0, -64\nH_PREFETCH_V gp0, gp2, a0, 0, 0\n"
    s = DebugSession.start("plena", "relu", "C1", src, seed=1)
    assert s.length == 2
    s.goto(s.length)
    assert "stopped by an error after 2 instructions" in s.stop_reason
    assert s.current_line() == 3                       # the failing instruction's line
    s.step(-1)
    assert s.main.registers["gp"][1] == 5 and s.main.registers["gp"][2] == 0


def test_setup_errors_say_what_is_wrong():
    with pytest.raises(DebugSetupError, match=r"(?s)does not assemble.*kernel.asm:1:1"):
        DebugSession.start("plena", "relu", "C1", "NOT_AN_OP gp1\n")
    with pytest.raises(DebugSetupError, match="no configuration 'C9'"):
        DebugSession.start("plena", "relu", "C9", "")
    with pytest.raises(DebugSetupError, match="no edge case 'nope'.*edge cases: "):
        DebugSession.start("plena", "relu", "C1", ACCEL.baseline("relu", "C1", HW), edge="nope")


def test_a_budget_cut_trace_says_how_to_see_more():
    s = DebugSession.start("plena", "gemm", "C1", ACCEL.baseline("gemm", "C1", HW),
                           max_steps=100)
    assert s.length == 100
    assert "--max-steps" in s.stop_reason


def test_edge_case_inputs_are_labelled():
    task = get_task("relu")
    (name, _), *_ = task.edge_cases("C1", 0)
    s = DebugSession.start("plena", "relu", "C1", ACCEL.baseline("relu", "C1", HW), edge=name)
    assert s.input_label == f"edge: {name}"
    s.goto(s.length)
    assert s.outputs()[0].comparison.passed


def test_lockstep_agrees_on_identical_traces_and_names_the_first_difference():
    """The lockstep uses rtl-check's own trace comparison (one routine)."""
    src = ACCEL.baseline("relu", "C1", HW)
    a = DebugSession.start("plena", "relu", "C1", src, seed=2)
    b = DebugSession.start("plena", "relu", "C1", src, seed=2)
    a.attach(b.main)
    assert a.lockstep is not None and a.lockstep.divergence is None
    a.step(5)
    assert b.main.position == 5
    changed = src.replace("S_ADDI_INT gp5, gp5, 256", "S_ADDI_INT gp5, gp5, 128", 1)
    c = DebugSession.start("plena", "relu", "C1", changed, seed=2)
    e = DebugSession.start("plena", "relu", "C1", src, seed=2)
    e.attach(c.main)
    d = e.lockstep.divergence
    assert d is not None
    from kernelcraft.simulators.plena_rtl.compare import compare_traces
    same = compare_traces(a.main.steps, c.main.steps)
    assert d.step == same.step and same.format().split("\n")[0] in d.what
    assert "S_ADDI_INT gp5, gp5" in str(d)


def test_input_of_an_evaluation_is_its_first_failing_set():
    from kernelcraft.workbench.tui.model.debugger import InputChoice, input_of
    sets = [{"label": "seed 4", "passed": True}, {"label": "edge: huge", "passed": False},
            {"label": "seed 5", "passed": False}]
    assert input_of({"seeds": [4, 5], "result": {"sets": sets, "edge_seed": 77}}) == \
        InputChoice(edge="huge", edge_seed=77, failed=True)
    assert input_of({"seeds": [4, 5], "result": {"sets": sets[:1] + sets[2:]}}) == \
        InputChoice(seed=5, failed=True)
    assert input_of({"seeds": [4, 5], "result": {"sets": sets[:1]}}) == InputChoice(seed=4)
    assert input_of({"result": {"seed": 9, "outputs": {}}}) == InputChoice(seed=9)   # view_output
    assert input_of({"result": "error text"}) is None


def test_an_edge_case_named_with_its_edge_seed():
    """Edge cases drawn per evaluation are found by (edge seed, name): the same name
    holds other values under another seed, and the session runs the recorded ones."""
    task = get_task("relu")
    src = ACCEL.baseline("relu", "C1", HW)
    (name, x11), *_ = task.edge_cases("C1", 11)
    (_, x12), *_ = task.edge_cases("C1", 12)
    assert not all(np.array_equal(x11[k], x12[k]) for k in x11)
    s = DebugSession.start("plena", "relu", "C1", src, edge=name, edge_seed=11)
    assert s.input_label == f"edge: {name}"
    assert np.array_equal(s.reference["y"], task.reference(x11, "C1")["y"])
    with pytest.raises(DebugSetupError, match="no edge case 'nope'"):
        DebugSession.start("plena", "relu", "C1", src, edge="nope")
