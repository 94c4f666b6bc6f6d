"""The aie RTL's vector units on at least 100,000 operands (pairs) each, against an
independent reference in numpy float64 (IEEE 754: fp32 add/subtract/multiply rounded once
to nearest even from the exact float64 result, subnormals kept; max/min with NaN
propagating and -0 < +0; bf16 rounding to 8 significant bits, nearest even, by
frexp/rint; NaN results as the canonical NaN), and against the functional model
(bit-identical memories, registers and cycles).

The operands reach the tile the way a kernel's do: DMAIN from external memory in blocks,
the vector operation on every 32-lane vector, DMAOUT back; so the DMA engine moves about
0.6 MB per unit here."""
from __future__ import annotations

import numpy as np
import pytest

from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie.machine import AieModel
from kernelcraft.simulators.aie_rtl.backend import AieRTL
from kernelcraft.simulators.aie_rtl.compare import compare_runs
from kernelcraft.simulators.core.backend import Job, MemoryImage
from kernelcraft.simulators.core.budget import Budget

N = 100_352                     # operand pairs: 196 blocks of 512 words
SPECIAL = np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x7F81, 0x0001, 0x8001,
                    0x007F, 0x0080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80], np.uint16)


def operands(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random bf16 bit patterns (every class), every pair of special values first, and
    pairs of equal magnitude and opposite sign."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 1 << 16, N, dtype=np.uint32).astype(np.uint16)
    b = rng.integers(0, 1 << 16, N, dtype=np.uint32).astype(np.uint16)
    sa, sb = np.meshgrid(SPECIAL, SPECIAL)
    k = sa.size
    a[:k], b[:k] = sa.ravel(), sb.ravel()
    a[k:2 * k + 1000], b[k:2 * k + 1000] = a[k:2 * k + 1000], a[k:2 * k + 1000] ^ 0x8000
    close = rng.integers(0, 4, 20_000).astype(np.uint16)   # neighbours: one ulp apart
    a[50_000:70_000], b[50_000:70_000] = a[50_000:70_000], a[50_000:70_000] + close
    return a, b


def reference(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IEEE max/min in float64 (exact for bf16), NaN as the canonical 0x7FC0."""
    fa = (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    fb = (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if op == "VMAX.BF16":
        y = np.where(fa > fb, fa, fb)
        y = np.where((fa == 0) & (fb == 0), np.where(np.signbit(fa) & np.signbit(fb), -0.0, 0.0), y)
    else:
        y = np.where(fa < fb, fa, fb)
        y = np.where((fa == 0) & (fb == 0), np.where(np.signbit(fa) | np.signbit(fb), -0.0, 0.0), y)
    bits = (y.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return np.where(np.isnan(fa) | np.isnan(fb), np.uint16(0x7FC0), bits)


def stream_program(op: str, cfg, n_words: int, load: str, store: str, step: int, name: str):
    """Two operand streams of n_words external words each (at 0 and n_words) in 1 KB
    blocks by DMA (channels in0, in1), `op` on each register's worth loaded with `load`,
    stored with `store` (`step` bytes), the results back by DMA (out0) to 2 * n_words."""
    w = 512                                           # words per block
    src = f"""
.bd A, ext=0, loc=0, n0={w}, rel=l0
.bd B, ext={n_words}, loc=1024, n0={w}, rel=l0
.bd Y, ext={2 * n_words}, loc=2048, n0={w}, rel=l1
    MOVI r1, 0
    LOOP {n_words // w}
        DMAIN 0, A, r1, r0
        DMAIN 1, B, r1, r0
        ACQ l0, 2
        MOVPI p0, 0
        MOVPI p1, 1024
        MOVPI p2, 2048
        LOOP {1024 // step}
            {load} {name}0, [p0], {step}
            {load} {name}1, [p1], {step}
            {op} {name}2, {name}0, {name}1
            {store} {name}2, [p2], {step}
        ENDLOOP
        DMAOUT 0, Y, r1, r0
        ACQ l1, 1
        ADDI r1, r1, {w}
    ENDLOOP
"""
    return assemble(src, f"{op}.asm", cfg)


def program(op: str, cfg):
    return stream_program(op, cfg, N, "VLD", "VST", 64, "x")


@pytest.mark.parametrize("op", ["VMAX.BF16", "VMIN.BF16"])
def test_bf16_max_min_on_100k_operands(op, diff_cfg, aie_build):
    a, b = operands(1 if op == "VMAX.BF16" else 2)
    image = MemoryImage()
    image.put("ext", 0, a)
    image.put("ext", N, b)
    prog = program(op, diff_cfg)
    budget = Budget(max_instructions=10_000_000)
    rtl = AieRTL().run_many([Job(prog, image, budget, False)], diff_cfg)[0]
    assert rtl.error is None, rtl.error
    got = np.asarray(rtl.memories["ext"][2 * N:3 * N])
    want = reference(op, a, b)
    bad = np.flatnonzero(got != want)
    assert not bad.size, (f"{bad.size} of {N} differ from IEEE; first: a=0x{a[bad[0]]:04X} "
                          f"b=0x{b[bad[0]]:04X} RTL 0x{got[bad[0]]:04X} reference 0x{want[bad[0]]:04X}")
    model = AieModel().run(prog, image, diff_cfg, budget)
    assert not compare_runs(model, rtl), [d.format() for d in compare_runs(model, rtl)]


# --- fp32 accumulator lanes and the bf16 conversions ----------------------------------

NF = 100_352                    # fp32 operand pairs: 392 blocks of 256
FBLOCK = 256                    # fp32 values per 1 KB block (a bank of the small config)
F32_SPECIAL = np.array([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001,
                        0x7F800001, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF,
                        0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x3F808000, 0x3F818000, 0x33800000,
                        0x4B800000, 0x3F7FFFFF], np.uint32)


def f32_operands(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 1 << 32, NF, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, NF, dtype=np.uint64).astype(np.uint32)
    sa, sb = np.meshgrid(F32_SPECIAL, F32_SPECIAL)
    k = sa.size
    a[:k], b[:k] = sa.ravel(), sb.ravel()
    # nearby exponents (cancellation, carries) and products near the subnormal range
    e = rng.integers(-3, 4, 30_000).astype(np.int64)
    a[1000:31_000] = (a[1000:31_000] & 0x807FFFFF) | (0x3F800000 & 0x7F800000)
    b[1000:31_000] = (b[1000:31_000] & 0x807FFFFF) | ((127 + e) << 23).astype(np.uint32)
    a[40_000:50_000] = (a[40_000:50_000] & 0x807FFFFF) | (np.uint32(40) << 23)
    b[40_000:50_000] = (b[40_000:50_000] & 0x807FFFFF) | (np.uint32(60) << 23)
    return a, b


def _f64(bits: np.ndarray) -> np.ndarray:
    return bits.view(np.float32).astype(np.float64)


def _canon32(y: np.ndarray) -> np.ndarray:
    bits = y.astype(np.float32).view(np.uint32)
    return np.where(np.isnan(y), np.uint32(0x7FC00000), bits)


def bf16_round(x: np.ndarray) -> np.ndarray:
    """float64 values (fp32-exact) to bf16 bits: nearest even at 8 significant bits,
    subnormals on the 2**-133 grid, overflow to infinity, NaN canonical."""
    with np.errstate(all="ignore"):
        m, e = np.frexp(x)
        y = np.ldexp(np.rint(np.ldexp(m, 8)), e - 8)
        tiny = np.abs(x) < 2.0 ** -126
        y = np.where(tiny, np.rint(x * 2.0 ** 133) * 2.0 ** -133, y)
        y = np.where(np.abs(y) >= 2.0 ** 128, np.copysign(np.inf, x), y)
        bits = (y.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), bits)


def f32_reference(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    fa, fb = _f64(a), _f64(b)
    with np.errstate(all="ignore"):
        if op == "AADD.F32":
            return _canon32(fa + fb)
        if op == "ASUB.F32":
            return _canon32(fa - fb)
        if op == "AMUL.F32":
            return _canon32(fa * fb)
    y = np.where(fa > fb, fa, fb)                                     # AMAX.F32
    y = np.where((fa == 0) & (fb == 0), np.where(np.signbit(fa) & np.signbit(fb), -0.0, 0.0), y)
    return np.where(np.isnan(fa) | np.isnan(fb), np.uint32(0x7FC00000), _canon32(y))


def words(v32: np.ndarray) -> np.ndarray:
    return v32.view(np.uint16)


def acc_program(op: str, cfg):
    """fp32 pairs: ALD both, `op`, AST (128 bytes a step)."""
    return stream_program(op, cfg, 2 * NF, "ALD", "AST", 128, "acc")


def _run_both(prog, image, cfg):
    budget = Budget(max_instructions=10_000_000)
    rtl = AieRTL().run_many([Job(prog, image, budget, False)], cfg)[0]
    assert rtl.error is None, rtl.error
    model = AieModel().run(prog, image, cfg, budget)
    return rtl, model


def _first_bad(got, want, *ops):
    bad = np.flatnonzero(got != want)
    if not bad.size:
        return None
    i = bad[0]
    return (f"{bad.size} of {got.size} differ from the float64 reference; first at {i}: "
            + " ".join(f"0x{int(o[i]):X}" for o in ops) + f" -> RTL 0x{int(got[i]):X}, "
            f"reference 0x{int(want[i]):X}")


@pytest.mark.parametrize("op", ["AADD.F32", "ASUB.F32", "AMUL.F32", "AMAX.F32"])
def test_fp32_accumulator_lanes_on_100k_operands(op, diff_cfg, aie_build):
    a, b = f32_operands(10 + ["AADD.F32", "ASUB.F32", "AMUL.F32", "AMAX.F32"].index(op))
    image = MemoryImage().put("ext", 0, words(a)).put("ext", 2 * NF, words(b))
    rtl, model = _run_both(acc_program(op, diff_cfg), image, diff_cfg)
    got = np.asarray(rtl.memories["ext"][4 * NF:6 * NF]).view(np.uint32)
    report = _first_bad(got, f32_reference(op, a, b), a, b)
    assert report is None, report
    assert not compare_runs(model, rtl), [d.format() for d in compare_runs(model, rtl)]


def test_srs_and_ups_bf16_on_100k_operands(diff_cfg, aie_build):
    """VSRS.BF16 (fp32 accumulator lanes -> bf16, nearest even) on 100k fp32 values, and
    VUPS.BF16 (bf16 -> fp32, exact) back on the rounded results."""
    a, _ = f32_operands(20)
    blocks, w = NF // FBLOCK, 2 * FBLOCK
    src = f"""
.bd A, ext=0, loc=0, n0={w}, rel=l0
.bd Y, ext={2 * NF}, loc=2048, n0={FBLOCK}, rel=l1
.bd Z, ext={3 * NF}, loc=1024, n0={w}, rel=l1
    MOVI r1, 0
    MOVI r2, 0
    LOOP {blocks}
        DMAIN 0, A, r1, r0
        ACQ l0, 1
        MOVPI p0, 0
        MOVPI p2, 2048
        MOVPI p1, 1024
        LOOP {FBLOCK // 32}
            ALD acc0, [p0], 128
            VSRS.BF16 x0, acc0
            VUPS.BF16 acc1, x0
            VST x0, [p2], 64
            AST acc1, [p1], 128
        ENDLOOP
        DMAOUT 0, Y, r2, r0
        DMAOUT 1, Z, r1, r0
        ACQ l1, 2
        ADDI r1, r1, {w}
        ADDI r2, r2, {FBLOCK}
    ENDLOOP
"""
    prog = assemble(src, "srs_ups.asm", diff_cfg)
    rtl, model = _run_both(prog, MemoryImage().put("ext", 0, words(a)), diff_cfg)
    ext = np.asarray(rtl.memories["ext"])
    srs = ext[2 * NF:3 * NF]
    want = bf16_round(_f64(a))
    report = _first_bad(srs, want, a)
    assert report is None, "VSRS.BF16: " + report
    ups = ext[3 * NF:5 * NF].view(np.uint32)
    widened = (want.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    report = _first_bad(ups, _canon32(widened), want)
    assert report is None, "VUPS.BF16: " + report
    assert not compare_runs(model, rtl), [d.format() for d in compare_runs(model, rtl)]
