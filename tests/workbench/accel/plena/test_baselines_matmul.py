"""plena contraction baselines: gemv, gemm, batch_matmul, linear.

Every configuration (held-out ones included) passes on two seeds and the edge cases;
the outputs equal, bit for bit, fp32 accumulation over MLEN-chunk dot products with
one bf16 rounding; tuning candidates stay correct and the pipelined ones are faster;
parameters and shapes that do not fit are refused with a message saying why."""
import itertools

import numpy as np
import pytest

from kernelcraft.simulators.numerics import matmul_tree, round_bf16
from kernelcraft.tasks import get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.accel.plena.baselines import templates
from kernelcraft.workbench.accel.plena.baselines.gemv import Plan as GemvPlan
from kernelcraft.workbench.accel.plena.baselines.matmul import Plan
from kernelcraft.workbench.evaluation import evaluate

TASKS = ("gemv", "gemm", "batch_matmul", "linear")
ACCEL = get_accel("plena")
HW = ACCEL.default_config()


def render(task, config, **params):
    return templates()[task].render(get_task(task), config, HW, **params)


def run(task, config, params=None, seeds=(1,), edge_cases=False, keep_outputs=False):
    return evaluate("plena", task, config, render(task, config, **(params or {})), seeds=list(seeds),
                    edge_cases=edge_cases, compare_baseline=False, keep_outputs=keep_outputs)


@pytest.mark.parametrize("task,config", [(t, c) for t in TASKS for c in get_task(t).configs])
def test_baseline_correct_on_every_configuration(task, config):
    ev = run(task, config, seeds=(1, 2), edge_cases=True)
    assert ev.passed, [(s.label, s.frac_match, s.error) for s in ev.sets if not s.passed]
    assert len(ev.sets) > 2                                   # the edge cases ran too
    assert not any(s.outside_writes for s in ev.sets)
    assert ev.lower_bound <= ev.cycles and not ev.impossible
    assert ev.code_size < HW.IMEM_SIZE // 4


def _emulate(x, w_kn, bias=None):
    """fp32 accumulation of per-MLEN-chunk tree dot products, one bf16 rounding (plus one
    for the bias add, which is a bf16 vector operation)."""
    mlen = HW.MLEN
    acc = np.zeros((x.shape[0], w_kn.shape[1]), np.float32)
    for k0 in range(0, x.shape[1], mlen):
        acc = (acc + matmul_tree(x[:, k0:k0 + mlen], w_kn[k0:k0 + mlen])).astype(np.float32)
    y = round_bf16(acc)
    return y if bias is None else round_bf16((y + bias.astype(np.float32)).astype(np.float32))


@pytest.mark.parametrize("task,config", [("gemv", "H1"), ("gemm", "H1"), ("batch_matmul", "C2"),
                                         ("linear", "C2")])
def test_numerics_are_fp32_accumulation_rounded_once(task, config):
    ev = run(task, config, seeds=(7,), keep_outputs=True)
    (out,) = ev.sets[0].outputs.values()
    x = {k: v.astype(np.float32) for k, v in get_task(task).generate(config, 7).items()}
    if task == "gemv":
        want = _emulate(x["x"][None, :], x["a"].T)[0]
    elif task == "gemm":
        want = _emulate(x["a"], x["b"])
    elif task == "batch_matmul":
        want = np.stack([_emulate(a, b) for a, b in zip(x["a"], x["b"])])
    else:
        want = _emulate(x["x"], x["w"].T, x["b"])
    np.testing.assert_array_equal(out["got"], want)


# A double-buffered candidate per task: correct everywhere it is tried, and faster.
# (gemm H1: since prefetches queue in the RTL's DMA engine, double buffering gains
# little there; rows 8 ahead 1 is 0.3% faster than the baseline, rows 32 ahead 1 no more.)
FASTER = [("gemv", "C4", {"ahead": 1}), ("gemv", "H1", {"ahead": 1, "tiles": 8}),
          ("gemm", "C3", {"ahead": 1}), ("gemm", "H1", {"ahead": 1, "rows": 8}),
          ("batch_matmul", "C2", {"ahead": 1}), ("linear", "H1", {"ahead": 1, "rows": 8})]


@pytest.mark.parametrize("task,config,params", FASTER)
def test_pipelined_candidate_is_correct_and_faster(task, config, params):
    base = run(task, config)
    ev = run(task, config, params, seeds=(3,), edge_cases=True)
    assert base.passed and ev.passed
    assert ev.cycles < base.cycles


@pytest.mark.parametrize("task", TASKS)
def test_every_fitting_candidate_is_correct(task):
    """The whole search space on a small configuration: each candidate either renders a
    correct kernel or is refused by the template's check with a reason."""
    t = templates()[task]
    names = sorted(t.space)
    refused = 0
    for values in itertools.product(*(t.space[n] for n in names)):
        params = dict(zip(names, values))
        try:
            src = render(task, "C2", **params)
        except ValueError as e:
            assert "C2" in str(e) and any(n in str(e) for n in names), str(e)
            refused += 1
            continue
        ev = evaluate("plena", task, "C2", src, seeds=[5], edge_cases=False, compare_baseline=False)
        assert ev.passed, (params, ev.status, ev.error)
    assert refused < len(list(itertools.product(*(t.space[n] for n in names))))


def test_parameter_problems_are_explained():
    with pytest.raises(ValueError, match=r"gemm template on C1: rows=6 must be a positive multiple"):
        render("gemm", "C1", rows=6)
    with pytest.raises(ValueError, match=r"rows=128 must divide M=64; try one of \[4, 8, 16, 32, 64\]"):
        render("gemm", "C1", rows=128)
    with pytest.raises(ValueError, match=r"ahead=2 must be 0 or 1"):
        render("linear", "C1", ahead=2)
    with pytest.raises(ValueError, match=r"needs \d+ Vector SRAM rows .* VSRAM_ROWS=1024: use fewer rows"):
        render("linear", "C5", rows=64, ahead=1)
    with pytest.raises(ValueError, match=r"tiles=1 must be 0 \(all\) or between 2 and MSRAM_TILES=16 \(ahead=1 splits"):
        render("gemv", "C1", tiles=1, ahead=1)
    with pytest.raises(KeyError, match="no parameter"):
        render("gemv", "C1", rows=4)


def test_shape_problems_are_explained():
    assert "multiples of MLEN=64" in Plan(HW, 64, 100, 64, 16, 0, False, False).check()
    msg = Plan(HW, 64, 64 * 17, 64, 16, 0, True, False).check()
    assert "17 tiles" in msg and "MSRAM_TILES=16" in msg and "at most 1024" in msg
    assert "multiples of MLEN=64" in GemvPlan(HW, 96, 64, 16, 0).check()
    assert Plan(HW, 64, 64, 64, 16, 0, False, False).check() is None


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("overrides", [dict(BLEN=8, HBM_BW=64, MSRAM_TILES=8, VSRAM_ROWS=768),
                                       dict(HBM_V_PREFETCH_AMOUNT=8, HBM_V_WRITEBACK_AMOUNT=2, MSRAM_TILES=32)])
def test_templates_follow_the_hardware_configuration(task, overrides):
    hw = ACCEL.default_config(**overrides)
    for params in ({}, {"ahead": 1}):
        src = templates()[task].render(get_task(task), "H1", hw, **params)
        ev = evaluate("plena", task, "H1", src, seeds=[2], edge_cases=False, hw=hw, compare_baseline=False)
        assert ev.passed, (overrides, params, ev.status, ev.error)
