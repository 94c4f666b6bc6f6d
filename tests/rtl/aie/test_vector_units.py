"""The aie RTL's vector units on at least 100,000 operand pairs each, against an
independent reference (numpy float64, IEEE 754 max/min: NaN propagates, -0 < +0), and
against the functional model (bit-identical memories, equal cycles).

The operands reach the tile the way a kernel's do: DMAIN from external memory in blocks,
the vector operation on every 32-lane vector, DMAOUT back; so the DMA engine moves about
0.6 MB per unit here."""
from __future__ import annotations

import numpy as np
import pytest

from simulators.aie.assembler import assemble
from simulators.aie.machine import AieModel
from simulators.aie_rtl.backend import AieRTL
from simulators.aie_rtl.compare import compare_runs
from simulators.core.backend import Job, MemoryImage
from simulators.core.budget import Budget

N = 100_352                     # operand pairs: 196 blocks of 512
BLOCK = 512                     # words per DMA block (1 KB: one bank of the small config)
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


def program(op: str, cfg):
    blocks = N // BLOCK
    src = f"""
.bd A, ext=0, loc=0, n0={BLOCK}, rel=l0
.bd B, ext={N}, loc=1024, n0={BLOCK}, rel=l0
.bd Y, ext={2 * N}, loc=2048, n0={BLOCK}, rel=l1
    MOVI r1, 0
    LOOP {blocks}
        DMAIN 0, A, r1, r0
        DMAIN 1, B, r1, r0
        ACQ l0, 2
        MOVPI p0, 0
        MOVPI p1, 1024
        MOVPI p2, 2048
        LOOP {BLOCK // 32}
            VLD x0, [p0], 64
            VLD x1, [p1], 64
            {op} x2, x0, x1
            VST x2, [p2], 64
        ENDLOOP
        DMAOUT 0, Y, r1, r0
        ACQ l1, 1
        ADDI r1, r1, {BLOCK}
    ENDLOOP
"""
    return assemble(src, f"{op}.asm", cfg)


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
