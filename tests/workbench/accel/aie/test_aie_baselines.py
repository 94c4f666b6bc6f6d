"""aie template-compiler baselines: every Level-1 task passes on its two smallest
configurations with two seeds and every edge case (the full sweep over all
configurations is recorded in workbench/accel/aie/README.md); contractions equal, bit for
bit, the fp32 order the manual states; shapes that do not fit are refused clearly."""
import numpy as np
import pytest

from kernelcraft.simulators.aie.numerics import mmul_bf16
from kernelcraft.simulators.numerics import round_bf16
from kernelcraft.tasks import all_tasks, get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.accel.aie.baselines import baseline_source, templates
from kernelcraft.workbench.evaluation import evaluate

ACCEL = get_accel("aie")
HW = ACCEL.default_config()
LEVEL1 = [t.name for t in all_tasks(1)]


def run(task, config, seeds=(1,), edge_cases=False, keep_outputs=False, source=None):
    src = source or baseline_source(task, config, HW)
    return evaluate("aie", task, config, src, seeds=list(seeds), edge_cases=edge_cases,
                    compare_baseline=False, keep_outputs=keep_outputs)


def test_every_level1_task_has_a_template():
    assert set(LEVEL1) <= set(templates())


@pytest.mark.parametrize("task,config", [(t, c) for t in LEVEL1 for c in ("C1", "C2")])
def test_baseline_correct_on_small_configurations_with_edge_cases(task, config):
    ev = run(task, config, seeds=(1, 2), edge_cases=True)
    assert ev.passed, [(s.label, s.frac_match, s.error) for s in ev.sets if not s.passed]
    assert len(ev.sets) > 2 and not any(s.outside_writes for s in ev.sets)
    assert ev.lower_bound <= ev.cycles and not ev.impossible
    assert ev.code_size <= HW.IMEM_WORDS


@pytest.mark.parametrize("task,config", [("softmax", "H1"), ("layer_norm", "C2"), ("gemv", "C2"),
                                         ("depthwise_conv", "H1"), ("silu", "C2")])
def test_odd_shapes_pass(task, config):
    ev = run(task, config)
    assert ev.passed, [(s.label, s.frac_match, s.error) for s in ev.sets]


def _tile_order(a, b, c0):
    """acc = c0, then + (tree-summed 4x8x8 tile products) for each k-tile in order."""
    m, k = a.shape
    acc = np.broadcast_to(c0, (m, b.shape[1])).astype(np.float32).copy()
    for k0 in range(0, k, 8):
        for i in range(0, m, 4):
            for j in range(0, b.shape[1], 8):
                t = mmul_bf16(a[i:i + 4, k0:k0 + 8], b[k0:k0 + 8, j:j + 8])
                acc[i:i + 4, j:j + 8] = (acc[i:i + 4, j:j + 8] + t).astype(np.float32)
    return acc


def test_gemm_and_linear_bits_follow_the_stated_order():
    x = {k: v.astype(np.float32) for k, v in get_task("gemm").generate("C2", 3).items()}
    ev = run("gemm", "C2", seeds=(3,), keep_outputs=True)
    got = ev.sets[0].outputs["c"]["got"]
    assert np.array_equal(got, round_bf16(_tile_order(x["a"], x["b"], np.float32(0))))
    x = {k: v.astype(np.float32) for k, v in get_task("linear").generate("C1", 4).items()}
    ev = run("linear", "C1", seeds=(4,), keep_outputs=True)
    got = ev.sets[0].outputs["y"]["got"]
    assert np.array_equal(got, round_bf16(_tile_order(x["x"], x["w"].T.copy(), x["b"])))


def test_gemv_bits_are_a_sequential_fp32_sum():
    x = {k: v.astype(np.float32) for k, v in get_task("gemv").generate("C1", 5).items()}
    ev = run("gemv", "C1", seeds=(5,), keep_outputs=True)
    acc = np.zeros(x["a"].shape[0], np.float32)
    for k in range(x["a"].shape[1]):
        acc = (acc + (x["a"][:, k] * x["x"][k]).astype(np.float32)).astype(np.float32)
    assert np.array_equal(ev.sets[0].outputs["y"]["got"], round_bf16(acc))


def test_a_kernel_that_writes_nothing_or_zeros_fails():
    ev = run("relu", "C1", source="NOP\n")
    assert ev.status == "failed" and ev.frac_match == 0.0
    src = (".bd Z, ext=%d, loc=4096, n0=256, rel=l0\nDMAOUT 0, Z, r0, r0\nACQ l0, 1\n"
           % ACCEL.layout(get_task("relu"), "C1", HW).region("y").address)
    assert not run("relu", "C1", source=src).passed


def test_writes_outside_the_declared_regions_are_reported():
    layout = ACCEL.layout(get_task("relu"), "C1", HW)
    y = layout.region("y")
    guard = y.address + y.reserved
    stray = f".bd STRAY, ext={guard}, loc=4096, n0=8, rel=l5\nMOVI r1, 0x3F80\nVBCST.16 x3, r1\n" \
            "MOVPI p6, 4096\nVST x3, [p6]\nDMAOUT 1, STRAY, r0, r0\nACQ l5, 1\n"
    ev = run("relu", "C1", source=baseline_source("relu", "C1", HW) + stray)
    assert ev.frac_match == 1.0 and not ev.passed       # right outputs, wrong kernel
    mem, first, count = ev.sets[0].outside_writes[0]
    assert (mem, first, count) == ("ext", guard, 8)
    assert f"writes outside the declared regions: ext[{guard}:{guard + 8}]" in ev.sets[0].stray


@pytest.mark.parametrize("where", ["guard", "input"])
def test_zeros_written_where_the_kernel_may_not_fail(where):
    """Zeros (data memory starts zeroed) DMAed over the guard after y or into input x."""
    layout = ACCEL.layout(get_task("relu"), "C1", HW)
    y, x = layout.region("y"), layout.region("x")
    at = y.address + y.reserved if where == "guard" else x.address + 32
    stray = f".bd STRAY, ext={at}, loc=8192, n0=8, rel=l5\nDMAOUT 1, STRAY, r0, r0\nACQ l5, 1\n"
    ev = run("relu", "C1", source=baseline_source("relu", "C1", HW) + stray)
    assert ev.frac_match == 1.0 and not ev.passed
    s = ev.sets[0]
    if where == "input":
        assert s.input_writes == [("ext", at, 8, "x")] and f"x at ext[{at}:{at + 8}]" in s.stray
    else:
        assert s.outside_writes == [("ext", at, 8)] and not s.input_writes


def test_templates_refuse_what_does_not_fit():
    with pytest.raises(ValueError, match="unroll must be"):
        baseline_source("silu", "C1", HW, unroll=4)
    with pytest.raises(KeyError, match="no parameter"):
        baseline_source("gemm", "C1", HW, tile=3)
    with pytest.raises(KeyError, match="no aie baseline"):
        baseline_source("no_such_task", "C1", HW)


def test_unrolled_elementwise_is_correct_and_faster():
    base = run("gelu", "C2")
    fast = run("gelu", "C2", source=baseline_source("gelu", "C2", HW, unroll=2, block=4096))
    assert base.passed and fast.passed and fast.cycles < base.cycles * 0.75
