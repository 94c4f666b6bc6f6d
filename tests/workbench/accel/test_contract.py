"""One contract every registered accelerator passes (the product's and the test-only
toy, tests/accelerators/toy/, which plugs in with one registry line): assemble, run,
manual, budget, errors, trace undo/redo, evaluation of a trivial task, the debugger's
model.

Programs come from each accelerator's own relu baseline, so the contract needs nothing
per accelerator beyond its registry record."""
import dataclasses

import numpy as np
import pytest

from kernelcraft.simulators.core.backend import RunResult
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import AssemblyError, BudgetExceeded
from kernelcraft.tasks import get_task
from kernelcraft.workbench.accel import NAMES, get_accel, registered
from kernelcraft.workbench.evaluation import evaluate
from kernelcraft.workbench.layout import build_image
from kernelcraft.workbench.tui.model.debugger import DebugSession
from kernelcraft.workbench.tui.model.timeline import Timeline

TASK, CONFIG = "relu", "C1"
ACCELS = registered()


def test_the_toy_is_registered_beside_the_product_accelerators():
    assert "toy" in ACCELS and set(NAMES) <= set(ACCELS) and "toy" not in NAMES


def _setup(name):
    acc = get_accel(name)
    hw = acc.default_config()
    task = get_task(TASK)
    source = acc.baseline(TASK, CONFIG, hw)
    program = acc.assemble(source, source_name="relu.asm", config=hw)
    inputs = task.generate(CONFIG, 1)
    image = build_image(acc.layout(task, CONFIG, hw), inputs)
    return acc, hw, source, program, image


@pytest.mark.parametrize("name", ACCELS)
def test_assemble_and_run(name):
    acc, hw, _, program, image = _setup(name)
    assert 0 < len(program) <= acc.imem_limit(hw)
    assert acc.disassemble(program.words).strip()
    manual = acc.manual(hw)
    assert manual.startswith("<!-- Generated") and program.instrs[0].mnemonic in manual
    r = acc.backend().run(program, image, hw, Budget())
    assert isinstance(r, RunResult) and r.error is None and r.stop in ("end", "break")
    assert r.retired > 0 and r.cycles > 0 and r.unit_busy
    assert set(acc.checked_memories) <= set(r.memories)


@pytest.mark.parametrize("name", ACCELS)
def test_the_budget_stops_every_machine_with_one_text(name):
    acc, hw, _, program, image = _setup(name)
    full = acc.backend().run(program, image, hw, Budget())
    half = full.retired // 2
    r = acc.backend().run(program, image, hw, Budget(max_instructions=half))
    assert isinstance(r.error, BudgetExceeded) and r.stop == "error" and r.retired == half
    assert f"the program did not finish within {half} " in r.error.message
    assert r.error.message.endswith("or raise the budget") and r.error.where.line > 0
    assert {f.name for f in dataclasses.fields(r)} == {f.name for f in dataclasses.fields(full)}


@pytest.mark.parametrize("name", ACCELS)
def test_assembly_errors_name_the_line(name):
    acc, hw, source, *_ = _setup(name)
    with pytest.raises(AssemblyError) as e:
        acc.assemble(source + "\nthis_is_no_instruction r1, r2\n", source_name="bad.asm", config=hw)
    bad = len(source.split("\n")) + 1
    assert [d.line for d in e.value.diagnostics] == [bad] and "bad.asm" in str(e.value)


def _same_state(memories, registers, result, spaces) -> None:
    """Every memory, and every register the trace records (a state may also report
    values derived from those, e.g. coral's vtype_text, which its view re-derives)."""
    for mem, values in result.memories.items():
        assert np.array_equal(memories[mem], values), mem
    for reg in spaces & set(result.registers):
        assert np.array_equal(np.asarray(registers[reg]), np.asarray(result.registers[reg])), reg


@pytest.mark.parametrize("name", ACCELS)
def test_trace_steps_back_and_forth(name):
    acc, hw, _, program, image = _setup(name)
    plain = acc.backend().run(program, image, hw, Budget())
    loaded = acc.backend().run(program, image, hw, Budget(max_instructions=0))
    traced = acc.backend().run(program, image, hw, Budget(), trace=True)
    assert (traced.cycles, traced.retired) == (plain.cycles, plain.retired)
    tracing = acc.tracing_module()
    line = Timeline(acc.name, traced, tracing.undo, tracing.redo)
    spaces = {ch.space for step in traced.trace for ch in step.changes}
    assert spaces & set(traced.registers), "the trace records no register"
    _same_state(line.memories, line.registers, loaded, spaces)     # every step undone: the image
    line.goto(line.length)
    _same_state(line.memories, line.registers, plain, spaces)
    line.goto(line.length // 2)
    line.goto(0)
    _same_state(line.memories, line.registers, loaded, spaces)


@pytest.mark.parametrize("name", ACCELS)
def test_evaluating_the_baseline_of_a_trivial_task(name):
    acc, hw, source, *_ = _setup(name)
    ev = evaluate(name, TASK, CONFIG, source, seeds=[1], edge_cases=False)
    assert ev.status == "passed" and ev.cycles > 0 and ev.lower_bound <= ev.cycles
    empty = evaluate(name, TASK, CONFIG, source.split("\n")[0] + "\n", seeds=[1], edge_cases=False)
    assert not empty.passed


@pytest.mark.parametrize("name", ACCELS)
def test_the_debugger_steps_the_kernel(name):
    _, _, source, *_ = _setup(name)
    s = DebugSession.start(name, TASK, CONFIG, source, seed=1)
    assert s.length > 0 and s.view is not None
    assert not any(o.comparison.passed for o in s.outputs())      # outputs start poisoned
    s.goto(s.length)
    assert all(o.comparison.passed for o in s.outputs())
    s.step(-1)
    assert s.position == s.length - 1 and s.current_line() is not None
    s.goto(0)
    assert s.position == 0
