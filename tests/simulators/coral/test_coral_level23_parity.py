"""The fast paths on coral's Level-2/3 baselines: identical results, cycles, stalls,
unit activity and errors with `Budget(fast=False)` (every instruction stepped through
the timing path), whole and cut by the budget inside their loops. Stepping them takes
minutes on a loaded machine, so these run when asked for (`-m fullsize`); the
Level-1 baselines are checked in every run (tests/simulators/test_fast_parity.py)."""
import pytest

from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.speed import same
from kernelcraft.tasks import all_tasks, get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.layout import build_image

CORAL = get_accel("coral")
TASKS = [t for t in all_tasks() if t.level in (2, 3) and t.name in CORAL.baseline_templates()]


@pytest.fixture
def _opt_in(request):
    if "fullsize" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("every Level-2/3 coral baseline stepped (minutes): run with -m fullsize")


@pytest.mark.fullsize
@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_level23_baseline_runs_the_same_with_fast_paths_off(task, _opt_in):
    hw = CORAL.default_config()
    program = CORAL.assemble(CORAL.baseline(task.name, "C1", hw), source_name="baseline", config=hw)
    image = build_image(CORAL.layout(task, "C1", hw), task.generate("C1", 11))
    runs = [CORAL.backend().run(program, image, hw, Budget(max_instructions=50_000_000, fast=fast))
            for fast in (True, False)]
    assert runs[0].error is None, str(runs[0].error)
    assert same(*runs) == "", same(*runs)
    cut = runs[0].retired // 3 + 7
    runs = [CORAL.backend().run(program, image, hw, Budget(max_instructions=cut, fast=fast)) for fast in (True, False)]
    assert same(*runs) == "", same(*runs)


@pytest.mark.parametrize("task,family", [("scaled_dot_product", "two_keys"), ("gqa", "spiked_scores")])
def test_attention_with_tiny_weights_runs_the_same_with_fast_paths_off(task, family):
    """The keys at -40..-100 give weights of e^-40 and less: P @ V's loop has subnormal
    sums, whose flags the batched loop takes from the stepping semantics."""
    t, hw = get_task(task), CORAL.default_config()
    program = CORAL.assemble(CORAL.baseline(task, "C1", hw), source_name="baseline", config=hw)
    image = build_image(CORAL.layout(t, "C1", hw), dict(t.edge_cases("C1", 2))[family])
    runs = [CORAL.backend().run(program, image, hw, Budget(max_instructions=50_000_000, fast=fast))
            for fast in (True, False)]
    assert runs[0].error is None, str(runs[0].error)
    assert runs[0].registers["fflags"] & 2                 # underflow: subnormal sums were met
    assert same(*runs) == "", same(*runs)
