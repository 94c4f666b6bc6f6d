"""The aie RTL's reductions (rtl/aie/aie_reduce.v: AREDADD.F32, AREDADD.I32, VREDMAX.BF16)
and its function unit (rtl/aie/aie_pwl.v: VPWL.EXP, VPWL.RCP, VPWL.RSQRT) on 100,352 lane
values each (3,136 vectors of 32), random and special.

The reductions against an
independent reference in numpy float64/int64 (fp32 sums in the halving order, each
addition rounded once to fp32 from its float64 sum, which is exact enough: 53 >= 2*24 + 2
bits; max with NaN winning and +0 above -0) and against the functional model
(bit-identical memories, registers and cycles). The function unit against
simulators/aie/numerics.py's pwl_exp, pwl_rcp and pwl_rsqrt, which define its numerics
(the tables of isa/aie/functions.toml, fp32 rounding at each step), and against the
functional model. Two operations issue back to back in every loop bundle pair, so the
units' pipelines hold several at once.

The operands reach the tile as in test_vector_units.py: DMAIN in 1 KB blocks, the
reduction of each vector, DMAOUT of the broadcast results."""
from __future__ import annotations

import numpy as np
import pytest

from kernelcraft.isa.aie.model import get_spec
from kernelcraft.simulators.aie import numerics as nx
from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie_rtl.compare import compare_runs
from kernelcraft.simulators.core.backend import MemoryImage

from .test_vector_units import F32_SPECIAL, SPECIAL, _canon32, _f64, _first_bad, _run_both

VECTORS = 3_136                  # 100,352 lanes
BLOCK = 1024                     # bytes per DMA block (one bank of the small config)


def reduce_program(op: str, cfg, lane_bytes: int):
    """Each 1 KB block of vectors in by DMA, `op` of every vector (two in flight at
    once), the results out by DMA to the words after the operands."""
    acc = lane_bytes == 4
    reg, load, store, step = ("acc", "ALD", "AST", 128) if acc else ("x", "VLD", "VST", 64)
    words = VECTORS * step // 2
    per_block = BLOCK // step
    src = f"""
.bd A, ext=0, loc=0, n0={BLOCK // 2}, rel=l0
.bd Y, ext={words}, loc=2048, n0={BLOCK // 2}, rel=l1
    MOVI r1, 0
    LOOP {words // (BLOCK // 2)}
        DMAIN 0, A, r1, r0
        ACQ l0, 1
        MOVPI p0, 0
        MOVPI p2, 2048
        LOOP {per_block // 2}
            {load} {reg}0, [p0], {step}
            {load} {reg}1, [p0], {step}
            {op} {reg}2, {reg}0
            {op} {reg}3, {reg}1
            {store} {reg}2, [p2], {step}
            {store} {reg}3, [p2], {step}
        ENDLOOP
        DMAOUT 0, Y, r1, r0
        ACQ l1, 1
        ADDI r1, r1, {BLOCK // 2}
    ENDLOOP
"""
    return assemble(src, f"{op}.asm", cfg), words


def f32_vectors(seed: int) -> np.ndarray:
    """(VECTORS, 32) fp32 bit patterns: random; special values scattered into random
    lanes; sums that cancel (x and -x pairs); nearby exponents; huge values (overflow)."""
    rng = np.random.default_rng(seed)
    v = rng.integers(0, 1 << 32, (VECTORS, 32), dtype=np.uint64).astype(np.uint32)
    v[:600] = rng.choice(F32_SPECIAL, (600, 32))
    v[600:1200] = np.where(rng.random((600, 32)) < 0.1, rng.choice(F32_SPECIAL, (600, 32)), v[600:1200])
    near = (rng.integers(-4, 5, (600, 32)) + 127).astype(np.uint32) << 23
    v[1200:1800] = (v[1200:1800] & 0x807FFFFF) | near
    half = v[1800:2200, :16]
    v[1800:2200, 16:] = half ^ 0x80000000            # x[i] + x[i+16] = 0 at the first level
    v[2200:2400] = (v[2200:2400] & 0x807FFFFF) | (np.uint32(254) << 23)
    v[2400:2600] = (v[2400:2600] & 0x807FFFFF) | (rng.integers(0, 3, (200, 32)).astype(np.uint32) << 23)
    return v


def f32_tree_reference(v: np.ndarray) -> np.ndarray:
    x = _f64(v.copy()).reshape(v.shape)
    with np.errstate(all="ignore"):
        n = x.shape[1]
        while n > 1:
            n //= 2
            x = (x[:, :n] + x[:, n:]).astype(np.float32).astype(np.float64)
    return _canon32(x[:, 0])


def bf16_vectors(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.integers(0, 1 << 16, (VECTORS, 32), dtype=np.uint32).astype(np.uint16)
    v[:600] = rng.choice(SPECIAL, (600, 32))
    v[600:1200] = np.where(rng.random((600, 32)) < 0.05, rng.choice(SPECIAL, (600, 32)), v[600:1200])
    v[1200:1400] = rng.choice(np.array([0x0000, 0x8000], np.uint16), (200, 32))   # zeros only
    v[1400:1600] = v[1400:1600] | 0x8000                                        # negatives only
    return v


def bf16_max_reference(v: np.ndarray) -> np.ndarray:
    f = (v.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    m = f.max(axis=1)
    pos_zero = ((f == 0) & ~np.signbit(f)).any(axis=1)
    m = np.where(m == 0, np.where(pos_zero, 0.0, -0.0), m)
    bits = (m.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return np.where(np.isnan(f).any(axis=1), np.uint16(0x7FC0), bits)


@pytest.mark.parametrize("op", ["AREDADD.F32", "AREDADD.I32"])
def test_accumulator_reductions_on_100k_lanes(op, diff_cfg, aie_build):
    v = f32_vectors(30 if op == "AREDADD.F32" else 31)
    prog, words = reduce_program(op, diff_cfg, 4)
    rtl, model = _run_both(prog, MemoryImage().put("ext", 0, v.ravel().view(np.uint16)), diff_cfg)
    got = np.asarray(rtl.memories["ext"][words:2 * words]).view(np.uint32).reshape(VECTORS, 32)
    if op == "AREDADD.F32":
        want = f32_tree_reference(v)
    else:
        want = (v.view(np.int32).astype(np.int64).sum(axis=1) & 0xFFFFFFFF).astype(np.uint32)
    report = _first_bad(got, np.repeat(want[:, None], 32, axis=1), np.repeat(v[:, :1], 32, axis=1))
    assert report is None, f"{op}: {report}"
    assert not compare_runs(model, rtl), [d.format() for d in compare_runs(model, rtl)]


def test_bf16_max_reduction_on_100k_lanes(diff_cfg, aie_build):
    v = bf16_vectors(32)
    prog, words = reduce_program("VREDMAX.BF16", diff_cfg, 2)
    rtl, model = _run_both(prog, MemoryImage().put("ext", 0, v.ravel()), diff_cfg)
    got = np.asarray(rtl.memories["ext"][words:2 * words]).reshape(VECTORS, 32)
    want = bf16_max_reference(v)
    report = _first_bad(got, np.repeat(want[:, None], 32, axis=1), np.repeat(v[:, :1], 32, axis=1))
    assert report is None, f"VREDMAX.BF16: {report}"
    assert not compare_runs(model, rtl), [d.format() for d in compare_runs(model, rtl)]


PWL = {"VPWL.EXP": nx.pwl_exp, "VPWL.RCP": nx.pwl_rcp, "VPWL.RSQRT": nx.pwl_rsqrt}


def pwl_vectors(op: str, seed: int) -> np.ndarray:
    """Random fp32 bit patterns (every class) with the special values first; for EXP
    most lanes where it is not 0 or inf (|x| < 100, and tiny ones on both sides of 0,
    and the range edges); for RSQRT mostly positive."""
    rng = np.random.default_rng(seed)
    n = VECTORS * 32
    x = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    special = np.concatenate((F32_SPECIAL, np.array([0x7F000000, 0x7E800000, 0x00800001, 0x80800000,
                                                     0xFE800000], np.uint32)))
    if op == "VPWL.EXP":
        m = rng.random(n) < 0.6
        x[m] = rng.uniform(-100, 100, m.sum()).astype(np.float32).view(np.uint32)
        m = rng.random(n) < 0.1
        x[m] = rng.uniform(-1e-6, 1e-6, m.sum()).astype(np.float32).view(np.uint32)
        edges = np.array([-87.3, -87.33655, -87.4, -88.0, 88.72, 88.7228, 88.8, -1e-10, 1e-10, -0.0,
                          0.5, -0.5, 1.0, -1.0], np.float32).view(np.uint32)
        special = np.concatenate((special, edges))
    elif op == "VPWL.RSQRT":
        x[rng.random(n) < 0.8] &= 0x7FFFFFFF
    x[:special.size] = special
    return x.reshape(VECTORS, 32)


@pytest.mark.parametrize("op", list(PWL))
def test_function_unit_on_100k_lanes(op, diff_cfg, aie_build):
    v = pwl_vectors(op, 40 + list(PWL).index(op))
    prog, words = reduce_program(op, diff_cfg, 4)
    rtl, model = _run_both(prog, MemoryImage().put("ext", 0, v.ravel().view(np.uint16)), diff_cfg)
    got = np.asarray(rtl.memories["ext"][words:2 * words]).view(np.uint32).reshape(VECTORS, 32)
    off, slope = get_spec().tables[op.split(".")[1]][:2]
    want = PWL[op](v.view(np.float32), off, slope).astype(np.float32)
    want = np.where(np.isnan(want), np.uint32(0x7FC00000), want.view(np.uint32))
    report = _first_bad(got, want, v)
    assert report is None, f"{op}: {report}"
    assert not compare_runs(model, rtl), [d.format() for d in compare_runs(model, rtl)]
