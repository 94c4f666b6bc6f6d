"""plena convolution baselines: conv2d and depthwise_conv.

Every configuration (held-out ones included) passes on two seeds and the edge cases;
the outputs equal, bit for bit, what the templates' documented arithmetic gives
(conv2d: fp32 accumulation of MLEN-chunk dot products in the snake's order, one
bf16 rounding; depthwise: bf16 products summed in fp32, one rounding); the pixel
loop visits pixels and alternating bodies in order; tuning candidates stay correct and
the pipelined ones are faster; parameters and shapes that do not fit are refused
with a message saying why; other hardware configurations work."""
import itertools
import re

import numpy as np
import pytest

from kernelcraft.simulators.numerics import matmul_tree, round_bf16
from kernelcraft.tasks import get_task
from kernelcraft.workbench.accel import get_accel
from kernelcraft.workbench.accel.plena.baselines import templates
from kernelcraft.workbench.accel.plena.baselines.asm import Asm
from kernelcraft.workbench.accel.plena.baselines.conv import Image, pixel_passes
from kernelcraft.workbench.accel.plena.baselines.conv2d import Plan as ConvPlan
from kernelcraft.workbench.accel.plena.baselines.depthwise_conv import Plan as DepthwisePlan
from kernelcraft.workbench.evaluation import evaluate

TASKS = ("conv2d", "depthwise_conv")
ACCEL = get_accel("plena")
HW = ACCEL.default_config()


def render(task, config, hw=HW, **params):
    return templates()[task].render(get_task(task), config, hw, **params)


def run(task, config, params=None, seeds=(1,), edge_cases=False, keep_outputs=False, hw=HW):
    return evaluate("plena", task, config, render(task, config, hw, **(params or {})), hw=hw,
                    seeds=list(seeds), edge_cases=edge_cases, compare_baseline=False,
                    keep_outputs=keep_outputs)


@pytest.mark.parametrize("task,config", [(t, c) for t in TASKS for c in get_task(t).configs])
def test_baseline_correct_on_every_configuration(task, config):
    ev = run(task, config, seeds=(1, 2), edge_cases=True)
    assert ev.passed, [(s.label, s.frac_match, s.error) for s in ev.sets if not s.passed]
    assert len(ev.sets) > 2                                   # the edge cases ran too
    assert not any(s.outside_writes for s in ev.sets)
    assert ev.lower_bound <= ev.cycles and not ev.impossible
    assert ev.code_size < HW.IMEM_SIZE // 8


def _inputs(task, config, seed):
    return {k: v.astype(np.float32) for k, v in get_task(task).generate(config, seed).items()}


def _conv2d_emulation(x, w, plan):
    """fp32 MV_ACC over the k-tiles in each pass's order (pass i of a chunk runs body
    i % len(bodies)), rounded once."""
    mlen, img = HW.MLEN, plan.img
    rows = np.stack([x[i:i + img.oh, j:j + img.ow].reshape(img.outputs, plan.cin)
                     for i, j in img.taps], axis=1)              # (P, taps, Cin)
    rows = rows.reshape(img.outputs, plan.n, mlen)              # k-tile t = tap * Cin/MLEN + c
    wk = w.reshape(plan.n, mlen, plan.cout)
    bodies = plan.passes()
    y = np.empty((img.outputs, plan.cout), np.float32)
    for j in range(plan.coc):
        cols = slice(j * mlen, (j + 1) * mlen)
        for phase, (order, _) in enumerate(bodies):
            pixels = np.arange(phase, img.outputs, len(bodies))
            acc = np.zeros((len(pixels), mlen), np.float32)
            for t in order:
                acc = (acc + matmul_tree(rows[pixels, t], wk[t][:, cols])).astype(np.float32)
            y[pixels, cols] = round_bf16(acc)
    return y.reshape(img.oh, img.ow, plan.cout)


@pytest.mark.parametrize("config", ["C3", "C4", "H1"])        # resident; snake, even OW; snake, odd OW
def test_conv2d_is_fp32_accumulation_in_the_schedules_order(config):
    ev = run("conv2d", config, seeds=(7,), keep_outputs=True)
    x = _inputs("conv2d", config, 7)
    d = get_task("conv2d").dims(config)
    plan = ConvPlan(HW, Image(d["H"], d["W"], d["KH"], d["KW"]), d["Cin"], d["Cout"], 0)
    assert plan.snake == (config != "C3")
    np.testing.assert_array_equal(ev.sets[0].outputs["y"]["got"], _conv2d_emulation(x["x"], x["w"], plan))


def _depthwise_products(x, w):
    kh, kw = w.shape[:2]
    oh, ow = x.shape[0] - kh + 1, x.shape[1] - kw + 1
    return [round_bf16((x[i:i + oh, j:j + ow] * w[i, j]).astype(np.float32))
            for i, j in Image(1, 1, kh, kw).taps]


def test_depthwise_is_bf16_products_summed_in_fp32_rounded_once():
    ev = run("depthwise_conv", "H1", seeds=(7,), keep_outputs=True)
    x = _inputs("depthwise_conv", "H1", 7)
    products = _depthwise_products(x["x"], x["w"])
    acc = np.zeros_like(products[0])
    for p in products:
        acc = (acc + p).astype(np.float32)
    np.testing.assert_array_equal(ev.sets[0].outputs["y"]["got"], round_bf16(acc))


def test_depthwise_twosum_is_the_documented_compensated_sum():
    ev = run("depthwise_conv", "H1", {"sum": "twosum"}, seeds=(7,), keep_outputs=True)
    x = _inputs("depthwise_conv", "H1", 7)

    def op(v):                                  # one vector instruction: fp32, then bf16
        return round_bf16(v.astype(np.float32))
    products = _depthwise_products(x["x"], x["w"])
    s, e = products[0], None
    for p in products[1:]:
        s2 = op(s + p)
        b = op(s2 - s)
        q = op(op(s - op(s2 - b)) + op(p - b))
        e = q if e is None else op(e + q)
        s = s2
    np.testing.assert_array_equal(ev.sets[0].outputs["y"]["got"], op(s + e))


def _expand(asm_text):
    """The body markers of emitted code in execution order (hardware loops unrolled)."""
    lines = [ln.strip() for ln in asm_text.splitlines()]

    def block(i):
        out = []
        while i < len(lines):
            ln = lines[i]
            if ln.startswith("C_LOOP_START"):
                count = int(re.match(r"C_LOOP_START \w+, (\d+)", ln).group(1))
                body, i = block(i + 1)
                out += body * count
            elif ln.startswith("C_LOOP_END"):
                return out, i + 1
            elif ln.startswith("; mark "):
                out.append(ln[len("; mark "):])
                i += 1
            else:
                i += 1
        return out, i
    return block(0)[0]


@pytest.mark.parametrize("oh,ow,k,last", [(3, 5, 2, True), (4, 4, 2, False), (5, 3, 1, True),
                                          (2, 1, 2, True), (1, 1, 2, True), (3, 7, 3, False)])
def test_pixel_passes_visit_pixels_in_order_with_alternating_bodies(oh, ow, k, last):
    asm = Asm(HW)
    bodies = [lambda i=i: asm.comment(f"mark b{i}") for i in range(k)]
    pixel_passes(asm, Image(oh + 1, ow + 1, 2, 2), bodies, lambda: asm.comment("mark row"),
                 "gp12", "gp13", last=(lambda ph: asm.comment(f"mark last{ph}")) if last else None)
    want = []
    for p in range(oh * ow):
        final = last and p == oh * ow - 1
        want.append(f"last{p % k}" if final else f"b{p % k}")
        if p % ow == ow - 1 and not final:
            want.append("row")
    assert _expand(asm.text()) == want


# Pipelined candidates: correct everywhere they are tried, and faster.
FASTER = [("conv2d", "C3", {"early": 1}), ("depthwise_conv", "C4", {"buffers": 2}),
          ("depthwise_conv", "H1", {"buffers": 2}), ("depthwise_conv", "C4", {"sum": "twosum"})]


@pytest.mark.parametrize("task,config,params", FASTER)
def test_pipelined_candidate_is_correct_and_faster(task, config, params):
    base = run(task, config)
    ev = run(task, config, params, seeds=(3,), edge_cases=True)
    assert base.passed and ev.passed
    assert ev.cycles < base.cycles


@pytest.mark.parametrize("task", TASKS)
def test_every_candidate_is_correct(task):
    """The whole search space on a configuration with two channel chunks."""
    t = templates()[task]
    names = sorted(t.space)
    for values in itertools.product(*(t.space[n] for n in names)):
        params = dict(zip(names, values))
        ev = run(task, "C3", params, seeds=(5,))
        assert ev.passed, (params, ev.status, ev.error)


def test_parameter_problems_are_explained():
    with pytest.raises(ValueError, match=r"conv2d template on C1: early=2 must be 0 or 1"):
        render("conv2d", "C1", early=2)
    with pytest.raises(ValueError, match=r"depthwise_conv template on C1: buffers=3 must be 1 or 2"):
        render("depthwise_conv", "C1", buffers=3)
    with pytest.raises(ValueError, match=r"sum='fp16' must be one of 'matrix', 'twosum'"):
        render("depthwise_conv", "C1", sum="fp16")
    small = ACCEL.default_config(VSRAM_ROWS=512)
    with pytest.raises(ValueError, match=r"buffers=2 needs 923 Vector SRAM rows .*\+ 1 work rows\); "
                                         r"VSRAM_ROWS=512: use buffers=1"):
        render("depthwise_conv", "C5", small, buffers=2)
    with pytest.raises(KeyError, match="no parameter"):
        render("conv2d", "C1", buffers=2)


def test_shape_problems_are_explained():
    img = Image(8, 8, 3, 3)
    assert "multiples of MLEN=64" in ConvPlan(HW, img, 96, 64, 0).check()
    assert "positive multiple of VLEN=64" in DepthwisePlan(HW, img, 100, 1, "matrix", 0).check()
    assert "no output pixel" in ConvPlan(HW, Image(2, 8, 3, 3), 64, 64, 0).check()
    msg = ConvPlan(HW, Image(32, 32, 3, 3), 128, 64, 0).check()
    assert "image (2048 rows)" in msg and "VSRAM_ROWS=1024" in msg
    assert "need at least that many" in DepthwisePlan(HW, Image(3, 4, 3, 3), 64, 1, "matrix", 0).check()
    assert "VLEN == MLEN" in ConvPlan(ACCEL.default_config(VLEN=32), img, 64, 64, 0).check()
    assert ConvPlan(HW, img, 64, 64, 0).check() is None
    assert "FP_MEM_SIZE=64: use sum='twosum'" in DepthwisePlan(ACCEL.default_config(FP_MEM_SIZE=64),
                                                                img, 64, 1, "matrix", 3).check()
    assert DepthwisePlan(HW, img, 64, 2, "twosum", 0).check() is None


HARDWARE = [("H1", dict(MSRAM_TILES=5)),                        # snake with n > 2 * slots
            ("H1", dict(MLEN=32, VLEN=32, HLEN=8, BLEN=8)),
            ("H1", dict(HBM_V_PREFETCH_AMOUNT=8, HBM_V_WRITEBACK_AMOUNT=2, MSRAM_TILES=32, HBM_BW=64)),
            ("C1", dict(HBM_V_PREFETCH_AMOUNT=16, HBM_V_WRITEBACK_AMOUNT=8)),   # tensors < one transfer
            ("C2", dict(HBM_V_PREFETCH_AMOUNT=1, HBM_V_WRITEBACK_AMOUNT=1))]


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("config,overrides", HARDWARE)
def test_templates_follow_the_hardware_configuration(task, config, overrides):
    hw = ACCEL.default_config(**overrides)
    space = templates()[task].space
    for params in ({}, {name: values[-1] for name, values in space.items()}):
        ev = run(task, config, params, seeds=(2,), hw=hw)
        assert ev.passed, (overrides, params, ev.status, ev.error)
        assert not ev.sets[0].outside_writes
