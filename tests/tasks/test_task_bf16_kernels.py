"""The tolerance policy against kernels: the emulated correct bf16 kernels pass every
task, configuration and edge case through `compare`, and every known-wrong variant of
`tasks.wrong_variants` fails every evaluation draw (margins from tasks.calibrate)."""
import pytest

from kernelcraft.tasks import all_tasks, bf16_kernels as K
from kernelcraft.tasks.calibrate import calibrate
from kernelcraft.tasks.tolerance import compare
from kernelcraft.tasks.wrong_variants import VARIANTS

CASES = [(t, c) for t in all_tasks() for c in t.configs]
IDS = [f"{t.name}-{c}" for t, c in CASES]


@pytest.mark.parametrize("task,config", CASES, ids=IDS)
def test_correct_bf16_kernel_passes(task, config):
    cases = [("seed 11", task.generate(config, 11))] + task.edge_cases(config, 11)
    for label, x in cases:
        ref, got = task.reference(x, config), K.run(task.name, x, task.dims(config))
        for s in task.outputs(config):
            c = compare(got[s.name], ref[s.name], task.tolerance(config, s.name),
                        task.allowance(x, config, s.name))
            assert c.passed, f"{label}: {c.summary()} first mismatches {c.first_mismatches[:3]}"


@pytest.mark.parametrize("task,config", CASES, ids=IDS)
def test_margins_correct_below_one_wrong_above(task, config):
    m = calibrate(task, seeds=1, configs=[config], gaps=False)
    assert m.correct < 1, f"correct kernel at {m.correct:.3g} of the bound ({m.correct_at})"
    for name, (q, where) in m.wrong.items():
        assert q > 1, f"wrong variant {name} passes: margin {q:.3g} ({where})"


def test_every_task_has_a_catalogue_of_wrong_variants():
    assert {t.name for t in all_tasks()} == set(VARIANTS)
    assert all(len(v) >= 1 for v in VARIANTS.values())
