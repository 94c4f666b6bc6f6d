"""The tolerance policy against kernels: the emulated correct bf16 kernels pass every
task, configuration and edge case through `compare`, and every known-wrong variant of
`tasks.wrong_variants` fails every evaluation draw (margins from tasks.calibrate)."""
import pytest

from kernelcraft.tasks import all_tasks, bf16_kernels as K
from kernelcraft.tasks.calibrate import calibrate
from kernelcraft.tasks.tolerance import compare
from kernelcraft.tasks.wrong_variants import ATTENTION as ATTENTION_TASKS, VARIANTS

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
        found = task.family_margin(label, x, config, got)      # the family's own check
        assert found is None or found[0] <= 1, f"{label}: {found}"


@pytest.mark.parametrize("task,config", CASES, ids=IDS)
def test_margins_correct_below_one_wrong_above(task, config):
    m = calibrate(task, seeds=1, configs=[config], gaps=False)
    assert m.correct < 1, f"correct kernel at {m.correct:.3g} of the bound ({m.correct_at})"
    for name, (q, where) in m.wrong.items():
        assert q > 1, f"wrong variant {name} passes: margin {q:.3g} ({where})"


def test_every_task_has_a_catalogue_of_wrong_variants():
    assert {t.name for t in all_tasks()} == set(VARIANTS)
    assert all(len(v) >= 1 for v in VARIANTS.values())


ATTENTION = [(t, c) for t in all_tasks() if t.name in ATTENTION_TASKS for c in ("C1", "H1")]


@pytest.mark.parametrize("task,config", ATTENTION, ids=[f"{t.name}-{c}" for t, c in ATTENTION])
def test_attention_that_normalises_p_first_passes(task, config):
    """The statement read literally (P = softmax stored in bf16, then P @ V) stores each
    weight twice: an honest kernel the attention bound must let through. A per-store
    bound (half an ulp, exact weights exact) would catch exp_taylor3 on `two_keys` and
    fail this kernel by 7-15x there (tasks/README.md); `many_keys`' check of the weights'
    bias catches exp_taylor3 instead, and lets this kernel through too."""
    d = task.dims(config)
    for label, x in [("seed 5", task.generate(config, 5))] + task.edge_cases(config, 5):
        got = K.attention(x["q"], x["k"], x["v"], d["Hq"], d["Hkv"], 1.0 / d["D"] ** 0.5, task.causal,
                          p_first=True)
        c = compare(got, task.reference(x, config)["o"], task.tolerance(config, "o"), task.allowance(x, config, "o"))
        assert c.passed, f"{label}: {c.summary()}"
        found = task.family_margin(label, x, config, {"o": got})
        assert found is None or found[0] <= 1, f"{label}: {found}"
