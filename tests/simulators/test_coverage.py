"""RunResult.counts, how many times each address retired (aie: bundles), and the set of
them, RunResult.coverage, are what a traced run steps through (tracing takes no fast path
and records each retired instruction on its own), with the fast paths on and off: on every Level-1 baseline at C1
and on each model's random-program generators, whole, cut by the budget and stopped by a
fault. (Every test comparing runs with `speed.same` or test_fast_parity's `_same` also
compares the counts.)"""
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

from kernelcraft.simulators.core.budget import Budget
from kernelcraft.tasks import all_tasks
from kernelcraft.workbench.accel import NAMES, get_accel
from kernelcraft.workbench.layout import build_image

sys.path.insert(0, str(Path(__file__).resolve().parent / "coral"))
from test_coral_fast_random import looped  # noqa: E402


def _check(model, program, image, cfg, limit: int = 5_000_000, cut: bool = True) -> object:
    """Fast, stepped and traced runs of `program` (and, with `cut`, the same cut by the
    budget) agree on the execution counts, and they are how often the trace stepped
    through each address."""
    fast = None
    for cut in (limit, None) if cut else (limit,):
        if cut is None:
            if fast.retired < 3:
                break
            cut = fast.retired // 2 + 1
        runs = [model().run(program, image, cfg, Budget(max_instructions=cut)),
                model().run(program, image, cfg, Budget(max_instructions=cut, fast=False)),
                model().run(program, image, cfg, Budget(max_instructions=cut), trace=True)]
        traced = dict(Counter(s.pc for s in runs[2].trace))
        for r, how in zip(runs, ("fast", "stepped", "traced")):
            assert r.coverage == frozenset(traced), (
                f"{how} run, budget {cut}: coverage differs from the trace "
                f"by {sorted(r.coverage ^ frozenset(traced))[:10]}")
            assert r.counts == traced, (f"{how} run, budget {cut}: counts differ from the trace at " +
                                        str([(a, r.counts.get(a), traced.get(a)) for a in
                                             sorted(r.counts.keys() | traced.keys())
                                             if r.counts.get(a) != traced.get(a)][:10]))
        assert {str(r.error) for r in runs} == {str(runs[0].error)}
        fast = fast or runs[0]
    return fast


def _baselines():
    for accel in NAMES:
        templates = get_accel(accel).baseline_templates()
        for task in all_tasks():
            if task.level == 1 and task.name in templates:
                yield accel, task


@pytest.mark.parametrize("accel, task", list(_baselines()), ids=lambda v: getattr(v, "name", v))
def test_baseline_coverage_is_what_a_trace_steps_through(accel, task):
    a = get_accel(accel)
    hw = a.default_config()
    program = a.assemble(a.baseline(task.name, "C1", hw), source_name="baseline", config=hw)
    image = build_image(a.layout(task, "C1", hw), task.generate("C1", 11))
    run = _check(a.backend, program, image, hw, 50_000_000, cut=False)   # (cuts: test_fast_parity)
    assert run.error is None and run.coverage      # (a baseline runs all its code: no dead paths)


@pytest.mark.parametrize("seed", range(6))
def test_plena_random_programs(seed):
    from kernelcraft.isa.plena import default_config
    from kernelcraft.simulators.plena.machine import PlenaModel
    from kernelcraft.simulators.plena_rtl.randprog import DIFF_CONFIG, ProgramGenerator
    cfg = default_config(**DIFF_CONFIG)
    (_, program, image), = ProgramGenerator(cfg).programs([seed])
    _check(PlenaModel, program, image, cfg)


@pytest.mark.parametrize("seed", range(6))
def test_coral_random_programs(seed):
    from kernelcraft.isa.coral import default_config
    from kernelcraft.simulators.coral.assembler import assemble
    from kernelcraft.simulators.coral.machine import CoralModel
    from kernelcraft.simulators.core.backend import MemoryImage
    from kernelcraft.simulators.coral_rtl.randprog import TEST_CONFIG, random_program
    cfg = default_config(**TEST_CONFIG)
    _check(CoralModel, assemble(random_program(seed), f"random-{seed}.s", cfg), MemoryImage(), cfg)
    # the conformance mixes in a loop (self loops, loop plans), some stopped by a fault
    rng = random.Random(seed)
    trips = rng.randint(3, 40)
    source = looped(seed + 1, trips, seed % 2 == 0, rng.choice([None, rng.randint(1, trips)]))
    cfg = default_config()
    _check(CoralModel, assemble(source, "loop.s", cfg), MemoryImage(), cfg)


@pytest.mark.parametrize("seed", range(6))
def test_aie_random_programs(seed):
    from kernelcraft.isa.aie import default_config
    from kernelcraft.simulators.aie.assembler import assemble
    from kernelcraft.simulators.aie.machine import AieModel
    from kernelcraft.simulators.aie_rtl.randprog import (DIFF_CONFIG, random_dma_program,
                                                         random_failing_load_program, random_program)
    cfg = default_config(**DIFF_CONFIG)
    for make in (random_program, random_failing_load_program, random_dma_program):
        source, image = make(seed, cfg)
        _check(AieModel, assemble(source, "random.s", cfg), image, cfg)


def test_random_programs_leave_code_unexecuted():
    """The generators' runs are not all whole programs: skipped branches, code after a
    stop, faults. (Else coverage would be the program and the tests above prove little.)"""
    from kernelcraft.isa.plena import default_config
    from kernelcraft.simulators.plena.machine import PlenaModel
    from kernelcraft.simulators.plena_rtl.randprog import DIFF_CONFIG, ProgramGenerator
    cfg = default_config(**DIFF_CONFIG)
    partial = [len(PlenaModel().run(p, img, cfg).coverage) < len(p)
               for _, p, img in ProgramGenerator(cfg).programs(range(6))]
    assert any(partial)
