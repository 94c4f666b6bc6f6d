"""The aie RTL's multiply-accumulate unit (rtl/aie/aie_mac.v) and integer SRS/UPS on at
least 100,000 operands each, against an independent reference in numpy float64 / int64
(every fp32 operation rounded once to nearest even from its float64 result, which is
exact for one bf16 product and correctly rounded for one fp32 addition; the tile's
summation order; NaN results canonical) and against the functional model (bit-identical
memories, registers, cycles and stalls).

As in test_vector_units, the operands reach the tile by DMA in blocks and the results
leave the same way."""
from __future__ import annotations

import numpy as np
import pytest

from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie_rtl.compare import compare_runs
from kernelcraft.simulators.core.backend import MemoryImage

from .test_vector_units import (SPECIAL, F32_SPECIAL, _canon32, _first_bad, _run_both,
                                f32_operands, operands, words)

NL = 100_352                     # lane-wise triples: 392 blocks of 256
BLOCK = 256                      # lanes per block: 1 KB of fp32 accumulators


def _bf64(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _r32(x: np.ndarray) -> np.ndarray:
    """float64 -> the nearest fp32 (ties to even, subnormals kept), as float64."""
    with np.errstate(all="ignore"):
        return x.astype(np.float32).astype(np.float64)


def lane_program(op: str, cfg, n: int):
    """acc (fp32), a and b (bf16) streams: ALD, two VLDs, `op` acc0, x0, x1, AST."""
    src = f"""
.bd C, ext=0, loc=0, n0={2 * BLOCK}, rel=l0
.bd A, ext={2 * n}, loc=1024, n0={BLOCK}, rel=l0
.bd B, ext={3 * n}, loc=1536, n0={BLOCK}, rel=l0
.bd Y, ext={4 * n}, loc=2048, n0={2 * BLOCK}, rel=l1
    MOVI r1, 0
    MOVI r2, 0
    LOOP {n // BLOCK}
        DMAIN 0, C, r1, r0
        DMAIN 1, A, r2, r0
        DMAIN 1, B, r2, r0
        ACQ l0, 3
        MOVPI p0, 0
        MOVPI p1, 1024
        MOVPI p2, 1536
        MOVPI p3, 2048
        LOOP {BLOCK // 32}
            ALD acc0, [p0], 128
            VLD x0, [p1], 64
            VLD x1, [p2], 64
            {op} acc0, x0, x1
            AST acc0, [p3], 128
        ENDLOOP
        DMAOUT 0, Y, r1, r0
        ACQ l1, 1
        ADDI r1, r1, {2 * BLOCK}
        ADDI r2, r2, {BLOCK}
    ENDLOOP
"""
    return assemble(src, f"{op}.asm", cfg)


def lane_reference(op: str, c: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    p = _r32(_bf64(a) * _bf64(b))
    acc = c.view(np.float32).astype(np.float64)
    with np.errstate(all="ignore"):
        y = p if op == "VMUL.BF16" else _r32(acc + p) if op == "VMAC.BF16" else _r32(acc - p)
    return _canon32(y)


@pytest.mark.parametrize("op", ["VMUL.BF16", "VMAC.BF16", "VMSC.BF16"])
def test_bf16_multiply_lanes_on_100k_operands(op, diff_cfg, aie_build):
    seed = 30 + ["VMUL.BF16", "VMAC.BF16", "VMSC.BF16"].index(op)
    a, b = operands(seed)
    c, _ = f32_operands(seed)
    # accumulators near the products' magnitude (cancellation, carries, ties)
    near = _r32(_bf64(a[60_000:80_000]) * _bf64(b[60_000:80_000])).astype(np.float32)
    c[60_000:80_000] = near.view(np.uint32) ^ np.uint32(0x80000000) * (np.arange(20_000) % 2).astype(np.uint32)
    image = MemoryImage().put("ext", 0, words(c)).put("ext", 2 * NL, a).put("ext", 3 * NL, b)
    rtl, model = _run_both(lane_program(op, diff_cfg, NL), image, diff_cfg)
    got = np.asarray(rtl.memories["ext"][4 * NL:6 * NL]).view(np.uint32)
    report = _first_bad(got, lane_reference(op, c, a, b), c, a, b)
    assert report is None, report
    assert not compare_runs(model, rtl), [d.format() for d in compare_runs(model, rtl)]


NT = 3200                        # VMMAC.BF16 tiles: 819,200 products, 102,400 lanes
TB = 8                           # tiles per block


def tile_reference(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """acc + the 4x8 @ 8x8 tile product, each dot product summed by halving over k."""
    A = _bf64(a).reshape(-1, 4, 8)
    B = _bf64(b).reshape(-1, 8, 8)
    p = _r32(A[:, :, :, None] * B[:, None, :, :])          # t, m, k, n
    with np.errstate(all="ignore"):
        s = _r32(p[:, :, :4] + p[:, :, 4:])
        s = _r32(s[:, :, :2] + s[:, :, 2:])
        s = _r32(s[:, :, 0] + s[:, :, 1])                   # t, m, n
        y = _r32(c.view(np.float32).astype(np.float64) + s.reshape(-1))
    return _canon32(y)


def test_bf16_matrix_multiply_accumulate_on_800k_products(diff_cfg, aie_build):
    rng = np.random.default_rng(40)
    a = rng.integers(0, 1 << 16, 32 * NT, dtype=np.uint32).astype(np.uint16)
    b = rng.integers(0, 1 << 16, 64 * NT, dtype=np.uint32).astype(np.uint16)
    # most tiles from ordinary magnitudes (random patterns are mostly huge or tiny), so
    # the sums cancel and round; specials sprinkled over the first tiles
    ordinary = lambda n: ((rng.integers(0x3A00, 0x4400, n) | (rng.integers(0, 2, n) << 15))
                          .astype(np.uint16))
    a[32 * 400:], b[64 * 400:] = ordinary(32 * (NT - 400)), ordinary(64 * (NT - 400))
    a[:4000] = rng.choice(SPECIAL, 4000)
    b[8000:12_000] = rng.choice(SPECIAL, 4000)
    c = np.concatenate([f32_operands(41)[0], f32_operands(42)[0]])[:32 * NT]
    c[32 * 800:] = (rng.normal(0, 4, 32 * (NT - 800)).astype(np.float32)).view(np.uint32)
    c[:1000] = rng.choice(F32_SPECIAL, 1000)
    n = NT // TB
    src = f"""
.bd C, ext=0, loc=0, n0=512, rel=l0
.bd A, ext={64 * NT}, loc=1024, n0=256, rel=l0
.bd B, ext={96 * NT}, loc=2048, n0=512, rel=l0
.bd Y, ext={160 * NT}, loc=3072, n0=512, rel=l1
    MOVI r1, 0
    MOVI r2, 0
    LOOP {n}
        DMAIN 0, C, r1, r0
        DMAIN 1, A, r2, r0
        DMAIN 0, B, r1, r0
        ACQ l0, 3
        MOVPI p0, 0
        MOVPI p1, 1024
        MOVPI p2, 2048
        MOVPI p3, 3072
        LOOP {TB}
            ALD acc1, [p0], 128
            VLD x0, [p1], 64
            VLD x2, [p2], 64
            VLD x3, [p2], 64
            VMMAC.BF16 acc1, x0, y1
            AST acc1, [p3], 128
        ENDLOOP
        DMAOUT 0, Y, r1, r0
        ACQ l1, 1
        ADDI r1, r1, 512
        ADDI r2, r2, 256
    ENDLOOP
"""
    prog = assemble(src, "vmmac.asm", diff_cfg)
    image = (MemoryImage().put("ext", 0, words(c)).put("ext", 64 * NT, a)
             .put("ext", 96 * NT, b))
    rtl, model = _run_both(prog, image, diff_cfg)
    got = np.asarray(rtl.memories["ext"][160 * NT:224 * NT]).view(np.uint32)
    lane = np.arange(32 * NT)
    report = _first_bad(got, tile_reference(c, a, b), lane)
    assert report is None, "VMMAC.BF16 (lane index): " + report
    assert not compare_runs(model, rtl), [d.format() for d in compare_runs(model, rtl)]


# --- integer lanes: VMAC.I16 -> VSRS.I16 (every rounding mode) -> VUPS.I16; VMMAC.I8 ----

IB = 128                         # lanes per block


def srs_reference(v: np.ndarray, shift: int, mode: np.ndarray, bits: int) -> np.ndarray:
    """int64 shift-round-saturate: floor, half up, half to even, half away from zero."""
    q = v >> shift
    r = v - (q << shift)
    half = 1 << (shift - 1)
    tie = r == half
    up = np.select([mode == 0, mode == 1, mode == 2],
                   [np.zeros_like(tie), r >= half, (r > half) | (tie & (q % 2 == 1))],
                   (r > half) | (tie & (v >= 0)))
    return np.clip(q + up, -(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def test_int16_mac_srs_ups_on_100k_lanes(diff_cfg, aie_build):
    rng = np.random.default_rng(50)
    c = rng.integers(-(1 << 31), 1 << 31, NL, dtype=np.int64).astype(np.int32)
    a = rng.integers(-(1 << 15), 1 << 15, NL, dtype=np.int64).astype(np.int16)
    b = rng.integers(-(1 << 15), 1 << 15, NL, dtype=np.int64).astype(np.int16)
    c[:30_000] = rng.integers(-(1 << 20), 1 << 20, 30_000)        # in range of int16 after >> 7
    a[:2000], b[:2000] = -(1 << 15), -(1 << 15)                    # the largest product
    c[40_000:60_000] = (rng.integers(-5000, 5000, 20_000) << 7) + 64 - \
        (a[40_000:60_000].astype(np.int64) * b[40_000:60_000]).astype(np.int32)   # ties
    groups = "".join(f"""
            SETRM {mode}
            ALD acc0, [p0], 128
            VLD x0, [p1], 64
            VLD x1, [p2], 64
            VMAC.I16 acc0, x0, x1
            VSRS.I16 x2, acc0, 7
            VUPS.I16 acc1, x2, 3
            AST acc0, [p3], 128
            VST x2, [p4], 64
            AST acc1, [p5], 128""" for mode in range(4))
    # transfers that run at once (C with A and B; Y and U with S) use different banks: the
    # RTL's DMA does not arbitrate a data-memory port between its channels
    src = f"""
.bd C, ext=0, loc=0, n0={2 * IB}, rel=l0
.bd A, ext={2 * NL}, loc=1024, n0={IB}, rel=l0
.bd B, ext={3 * NL}, loc=1280, n0={IB}, rel=l0
.bd Y, ext={4 * NL}, loc=512, n0={2 * IB}, rel=l1
.bd S, ext={6 * NL}, loc=2048, n0={IB}, rel=l1
.bd U, ext={7 * NL}, loc=1536, n0={2 * IB}, rel=l1
    MOVI r1, 0
    MOVI r2, 0
    LOOP {NL // IB}
        DMAIN 0, C, r1, r0
        DMAIN 1, A, r2, r0
        DMAIN 1, B, r2, r0
        ACQ l0, 3
        MOVPI p0, 0
        MOVPI p1, 1024
        MOVPI p2, 1280
        MOVPI p3, 512
        MOVPI p4, 2048
        MOVPI p5, 1536{groups}
        DMAOUT 0, Y, r1, r0
        DMAOUT 1, S, r2, r0
        DMAOUT 0, U, r1, r0
        ACQ l1, 3
        ADDI r1, r1, {2 * IB}
        ADDI r2, r2, {IB}
    ENDLOOP
"""
    prog = assemble(src, "int16.asm", diff_cfg)
    image = (MemoryImage().put("ext", 0, c.view(np.uint16)).put("ext", 2 * NL, a.view(np.uint16))
             .put("ext", 3 * NL, b.view(np.uint16)))
    rtl, model = _run_both(prog, image, diff_cfg)
    ext = np.asarray(rtl.memories["ext"])
    y = (c.astype(np.int64) + a.astype(np.int64) * b).astype(np.int32)
    report = _first_bad(ext[4 * NL:6 * NL].view(np.int32), y, c, a, b)
    assert report is None, "VMAC.I16: " + report
    mode = (np.arange(NL) // 32) % 4
    s = srs_reference(y.astype(np.int64), 7, mode, 16).astype(np.int16)
    report = _first_bad(ext[6 * NL:7 * NL].view(np.int16), s, y, mode)
    assert report is None, "VSRS.I16: " + report
    u = (s.astype(np.int64) << 3).astype(np.int32)
    report = _first_bad(ext[7 * NL:9 * NL].view(np.int32), u, s)
    assert report is None, "VUPS.I16: " + report
    assert not compare_runs(model, rtl), [d.format() for d in compare_runs(model, rtl)]


def test_int8_matrix_multiply_accumulate_and_srs_ups(diff_cfg, aie_build):
    """VMMAC.I8 (4x16 @ 16x8 on 3,200 tiles: 1.6 M products), VMUL.I8 on half registers,
    VSRS.I8 into a half register and VUPS.I8 back."""
    nt = 3200
    rng = np.random.default_rng(51)
    c = rng.integers(-(1 << 31), 1 << 31, 32 * nt, dtype=np.int64).astype(np.int32)
    a = rng.integers(-128, 128, 64 * nt, dtype=np.int64).astype(np.int8)
    b = rng.integers(-128, 128, 128 * nt, dtype=np.int64).astype(np.int8)
    a[:6400], b[:12_800] = -128, -128
    src = f"""
.bd C, ext=0, loc=0, n0=512, rel=l0
.bd A, ext={64 * nt}, loc=1024, n0=256, rel=l0
.bd B, ext={96 * nt}, loc=2048, n0=512, rel=l0
.bd Y, ext={160 * nt}, loc=3072, n0=512, rel=l1
.bd Z, ext={224 * nt}, loc=0, n0=512, rel=l1
    MOVI r1, 0
    MOVI r2, 0
    LOOP {nt // TB}
        DMAIN 0, C, r1, r0
        DMAIN 1, A, r2, r0
        DMAIN 0, B, r1, r0
        ACQ l0, 3
        MOVPI p0, 0
        MOVPI p1, 1024
        MOVPI p2, 2048
        MOVPI p3, 3072
        LOOP {TB}
            ALD acc1, [p0]
            VLD x0, [p1], 64
            VLD x2, [p2], 64
            VLD x3, [p2], 64
            VMMAC.I8 acc1, x0, y1
            VMUL.I8 acc2, w5, w0
            AST acc1, [p3], 128
            VSRS.I8 w9, acc2, 4
            VUPS.I8 acc3, w9, 2
            AST acc3, [p0], 128
        ENDLOOP
        DMAOUT 0, Y, r1, r0
        DMAOUT 1, Z, r1, r0
        ACQ l1, 2
        ADDI r1, r1, 512
        ADDI r2, r2, 256
    ENDLOOP
"""
    prog = assemble(src, "int8.asm", diff_cfg)
    image = (MemoryImage().put("ext", 0, c.view(np.uint16)).put("ext", 64 * nt, a.view(np.uint16))
             .put("ext", 96 * nt, b.view(np.uint16)))
    rtl, model = _run_both(prog, image, diff_cfg)
    ext = np.asarray(rtl.memories["ext"])
    A = a.astype(np.int64).reshape(nt, 4, 16)
    B = b.astype(np.int64).reshape(nt, 16, 8)
    y = (c.astype(np.int64) + (A @ B).reshape(-1)).astype(np.int32)
    report = _first_bad(ext[160 * nt:224 * nt].view(np.int32), y, np.arange(32 * nt))
    assert report is None, "VMMAC.I8 (lane index): " + report
    # VMUL.I8 acc2, w5 (high half of x2: B's lanes 32..63), w0 (low half of x0: A's 0..31)
    p = b.astype(np.int64).reshape(nt, 128)[:, 32:64] * a.astype(np.int64).reshape(nt, 64)[:, :32]
    s = srs_reference(p, 4, np.full(p.shape, 2), 8)               # RM starts HALF_EVEN
    u = (s << 2).astype(np.int32).reshape(-1)
    report = _first_bad(ext[224 * nt:288 * nt].view(np.int32), u, np.arange(32 * nt))
    assert report is None, "VMUL.I8 -> VSRS.I8 -> VUPS.I8 (lane index): " + report
    assert not compare_runs(model, rtl), [d.format() for d in compare_runs(model, rtl)]
