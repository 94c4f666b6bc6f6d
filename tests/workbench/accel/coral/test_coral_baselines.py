"""coral's template-compiler baselines: every Level-1 task has one; each is correct on
fresh seeds and the edge cases (C1 here; every configuration, held-out included, is
checked by `kernelcraft suite --accel coral`), fits ITCM on every configuration,
renders deterministically, and refuses parameters that do not fit with a reason."""
import pytest

from kernelcraft.tasks import all_tasks, get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.evaluation import evaluate

ACCEL = get_accel("coral")
HW = ACCEL.default_config()
LEVEL1 = [t.name for t in all_tasks(1)]


def test_every_level1_task_has_a_template():
    assert set(LEVEL1) <= set(ACCEL.baseline_templates())


@pytest.mark.parametrize("task", LEVEL1)
def test_baseline_passes_c1_with_edge_cases(task):
    src = ACCEL.baseline(task, "C1", HW)
    ev = evaluate("coral", task, "C1", src, seeds=[11, 12], edge_cases=True, compare_baseline=False)
    assert ev.passed, (ev.status, ev.error, [(s.label, s.outputs) for s in ev.sets if not s.passed])
    assert all(not s.outside_writes for s in ev.sets)
    assert not ev.impossible and ev.cycles >= ev.lower_bound


@pytest.mark.parametrize("task", ["relu", "softmax", "rms_norm", "depthwise_conv"])
def test_baseline_passes_the_held_out_configuration(task):
    src = ACCEL.baseline(task, "H1", HW)
    ev = evaluate("coral", task, "H1", src, seeds=[5], edge_cases=True, compare_baseline=False)
    assert ev.passed, (ev.status, ev.error)


def test_baselines_fit_itcm_and_render_deterministically():
    for task in LEVEL1:
        for config in get_task(task).configs:
            src = ACCEL.baseline(task, config, HW)
            assert src == ACCEL.baseline(task, config, HW)
            program = ACCEL.assemble(src, source_name="b.s", config=HW)
            assert len(program) <= ACCEL.imem_limit(HW), (task, config, len(program))


def test_baselines_follow_the_hardware_configuration():
    hw = ACCEL.default_config(VLEN=256)
    for task in ("silu", "gemm", "layer_norm"):
        ev = evaluate("coral", task, "C1", ACCEL.baseline(task, "C1", hw), hw=hw, seeds=[2], edge_cases=False,
                      compare_baseline=False)
        assert ev.passed, (task, ev.error)


def test_parameters_that_do_not_fit_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="do not fit v8..v31"):
        ACCEL.baseline("gemm", "C1", HW, mr=4, lmul=8)
    with pytest.raises(ValueError, match="lmul must be one of"):
        ACCEL.baseline("relu", "C1", HW, lmul=3)
    with pytest.raises(KeyError, match="no parameter"):
        ACCEL.baseline("relu", "C1", HW, bogus=1)


def test_tuning_space_candidates_render_and_assemble():
    for task, t in ACCEL.baseline_templates().items():
        for name, values in t.space.items():
            for v in values:
                try:
                    src = ACCEL.baseline(task, "C1", HW, **{name: v})
                except ValueError:
                    continue                        # a candidate the check refuses, with a reason
                ACCEL.assemble(src, source_name="c.s", config=HW)
