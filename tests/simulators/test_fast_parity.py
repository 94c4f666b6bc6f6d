"""Every fast path is an optimisation, never a semantics: each accelerator's Level-1
baselines (and runs cut by the budget or stopped by a fault) give identical memories,
registers, cycles, retired counts, stalls, unit activity, per-address execution counts
and errors with `Budget(fast=True)` and `Budget(fast=False)`."""
import numpy as np
import pytest

from kernelcraft.simulators.core.budget import Budget
from kernelcraft.tasks import all_tasks
from kernelcraft.workbench.accel import NAMES, get_accel
from kernelcraft.workbench.layout import build_image

CONFIGS = ("C1", "C2")


def _same(a, b):
    assert a.error is None and b.error is None or str(a.error) == str(b.error)
    assert (a.cycles, a.retired, a.stop) == (b.cycles, b.retired, b.stop)
    assert a.stalls == b.stalls and a.unit_busy == b.unit_busy
    assert a.counts is not None and a.counts == b.counts, "execution counts differ"
    assert a.memories.keys() == b.memories.keys()
    for name in a.memories:
        assert np.array_equal(a.memories[name], b.memories[name]), f"memory {name} differs"
    assert repr(a.registers) == repr(b.registers)


def _cells():
    for accel in NAMES:
        templates = get_accel(accel).baseline_templates()
        for task in all_tasks():
            if task.level == 1 and task.name in templates:
                for config in CONFIGS:
                    yield accel, task, config


@pytest.mark.parametrize("accel, task, config", list(_cells()),
                         ids=lambda v: getattr(v, "name", v))
def test_baseline_runs_the_same_with_fast_paths_off(accel, task, config):
    a = get_accel(accel)
    hw = a.default_config()
    program = a.assemble(a.baseline(task.name, config, hw), source_name="baseline", config=hw)
    image = build_image(a.layout(task, config, hw), task.generate(config, 11))
    fast = a.backend().run(program, image, hw, Budget(max_instructions=50_000_000))
    slow = a.backend().run(program, image, hw, Budget(max_instructions=50_000_000, fast=False))
    assert fast.error is None, str(fast.error)
    _same(fast, slow)
    # the same program cut by the budget inside its loops
    cut = max(1, fast.retired // 3 + 7)
    _same(a.backend().run(program, image, hw, Budget(max_instructions=cut)),
          a.backend().run(program, image, hw, Budget(max_instructions=cut, fast=False)))


@pytest.mark.parametrize("kw", [{"max_instructions": -1}, {"check_every": 0},
                                {"wall_seconds": 0}, {"max_instructions": 1.5}])
def test_a_budget_that_cannot_run_is_refused_in_one_place(kw):
    # plena once failed with an internal KeyError on max_instructions=-1, coral ran nothing
    from kernelcraft.simulators.core.errors import ConfigError
    with pytest.raises(ConfigError, match=next(iter(kw))):
        Budget(**kw)
