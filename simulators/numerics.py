"""Numerics shared by every accelerator: bf16 and fp32, written once.

This module *is* the specification the RTL matches bit for bit (see
`isa/plena/README.md`, "Numerics"). Every function is vectorised numpy on float32
arrays, and each step is one IEEE binary32 operation with round-to-nearest-even, so
the same sequence of operations in synthesizable logic gives the same bits.

Conventions: bf16 values travel as uint16 bit patterns in memories and as float32
arrays holding bf16-exact values inside computations. Every NaN a function returns is
the canonical quiet NaN, except the internal sums (`tree_sum`, `dot`, `matmul_tree`),
whose NaN payloads are unspecified: their results only leave a unit through a
rounding or register write that canonicalises.
"""
from __future__ import annotations

import math as _math
import struct as _struct

import numpy as np

# exp's constants are ISA data: the manual prints them
from kernelcraft.isa.numerics import EXP2_COEFFS, LN2_HI, LN2_LO, LOG2E  # noqa: F401 (re-exported)

F32 = np.float32
CANON_NAN_F32 = np.uint32(0x7FC00000)
CANON_NAN_BF16 = np.uint16(0x7FC0)

np.seterr(all="ignore")  # IEEE special values are results here, not errors


def f32(x) -> np.ndarray:
    return np.asarray(x, dtype=F32)


def canon(x: np.ndarray) -> np.ndarray:
    """Replace every NaN with the canonical quiet NaN."""
    x = f32(x)
    nan = np.isnan(x)
    if np.count_nonzero(nan):
        x = x.copy() if x.ndim else x
        x = np.where(nan, CANON_NAN_F32.view(F32), x).astype(F32)
    return x


def bf16_bits_to_f32(bits) -> np.ndarray:
    """bf16 bit patterns (uint16) to float32, exactly."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(F32)


_U32_1, _U32_16 = np.uint32(1), np.uint32(16)
_U32_BIAS, _U32_HIGH = np.uint32(0x7FFF), np.uint32(0xFFFF0000)


def _rne16(u: np.ndarray) -> np.ndarray:
    """u + 0x7FFF + bit 16 of u (mod 2**32): adding this bias then dropping the low 16
    bits rounds an fp32 bit pattern to bf16, nearest even (in place on a fresh array)."""
    r = u >> _U32_16
    r &= _U32_1
    r += _U32_BIAS
    r += u
    return r


def f32_to_bf16_bits(x) -> np.ndarray:
    """float32 to bf16 bit patterns: round to nearest even; overflow gives inf;
    subnormals are kept; NaN becomes 0x7FC0."""
    x = f32(x)
    bits = _rne16(x.view(np.uint32)) >> _U32_16
    bits = bits.astype(np.uint16)
    nan = np.isnan(x)
    if np.count_nonzero(nan):
        bits = np.where(nan, CANON_NAN_BF16, bits).astype(np.uint16)
    return bits


def round_bf16(x) -> np.ndarray:
    """float32 to the nearest bf16 value, returned as float32 (bf16-exact); the same
    rounding as `f32_to_bf16_bits`, without leaving 32-bit words."""
    x = f32(x)
    r = _rne16(x.view(np.uint32))
    r &= _U32_HIGH
    r = r.view(F32)
    nan = np.isnan(x)
    if np.count_nonzero(nan):
        r = np.where(nan, CANON_NAN_F32.view(F32), r).astype(F32)
    return r


def fmax(a, b) -> np.ndarray:
    """max with NaN propagation and max(-0, +0) = +0."""
    a, b = f32(a), f32(b)
    r = np.maximum(a, b)
    both_zero = (a == 0) & (b == 0)
    return canon(np.where(both_zero, a + b, r).astype(F32))


def fmin(a, b) -> np.ndarray:
    """min with NaN propagation and min(-0, +0) = -0."""
    a, b = f32(a), f32(b)
    r = np.minimum(a, b)
    both_zero = (a == 0) & (b == 0)
    return canon(np.where(both_zero, -((-a) + (-b)), r).astype(F32))


def exp(x) -> np.ndarray:
    """exp in fp32 by the manual's algorithm: exp(x) = 2**n * 2**f with n = floor(x*LOG2E)
    and f recovered from the two-part reduction r = x - n*LN2_HI - n*LN2_LO (so that the
    rounding of x*LOG2E does not reach f), f = r*LOG2E; 2**f by the polynomial."""
    x = f32(x)
    t = x * LOG2E
    n = np.floor(t)
    r = x - n * LN2_HI                    # exact: n*LN2_HI fits 24 bits, x is close to it
    r -= n * LN2_LO
    frac = r * LOG2E                      # in [0, 1) up to rounding at the ends
    p = np.full_like(frac, EXP2_COEFFS[-1])
    for c in EXP2_COEFFS[-2::-1]:
        p *= frac                         # fp32, rounded at every step
        p += c
    # 2**n built from its exponent field (n clipped to the normal range; NaN lanes are
    # replaced below): p * 2**n is one fp32 multiplication, exact unless it overflows.
    scale = ((np.clip(n, -126, 127).astype(np.int32) + 127) << 23).view(F32)
    r = p * scale
    r = np.where(t >= 128, F32(np.inf), r)
    r = np.where(t < -126, F32(0.0), r)
    return canon(np.where(np.isnan(x), F32(np.nan), r))


def reciprocal(x) -> np.ndarray:
    """1 / x, IEEE fp32 division with round-to-nearest-even."""
    return canon((F32(1.0) / f32(x)).astype(F32))


def sqrt(x) -> np.ndarray:
    """IEEE fp32 square root with round-to-nearest-even (negative -> NaN, -0 -> -0)."""
    return canon(np.sqrt(f32(x)).astype(F32))


_BF16_TABLES: dict = {}


def bf16_table(fn) -> np.ndarray:
    """round_bf16(fn(x)) for every bf16 bit pattern x, as float32[65536] (made once per
    `fn` and kept: `bf16_unary` and the plena model's fast paths look results up in it)."""
    table = _BF16_TABLES.get(fn)
    if table is None:
        every = bf16_bits_to_f32(np.arange(1 << 16, dtype=np.uint32).astype(np.uint16))
        table = _BF16_TABLES[fn] = round_bf16(fn(every))
    return table


def bf16_unary(fn, x) -> np.ndarray:
    """round_bf16(fn(x)) for bf16-exact float32 `x`, by table lookup.

    A bf16 operand has only 65,536 values, so the result of a unary function is a
    fixed table; building it once with `fn` itself keeps the bits identical to
    computing `round_bf16(fn(x))` directly, at a fraction of the cost per call."""
    return bf16_table(fn)[f32(x).view(np.uint32) >> 16]


def tree_sum(x, axis: int = -1) -> np.ndarray:
    """Sum along `axis` by repeated halving, x[i] + x[i + L/2], fp32 RNE at each step.
    The length must be a power of two."""
    x = f32(x)
    if axis not in (-1, x.ndim - 1):
        x = np.moveaxis(x, axis, -1)
    n = x.shape[-1]
    if n & (n - 1):
        raise ValueError(f"tree_sum needs a power-of-two length, got {n}")
    while n > 1:
        n //= 2
        x = x[..., :n] + x[..., n:]          # float32 + float32: one RNE addition each
    return x[..., 0]


def dot(a, b, axis: int = -1) -> np.ndarray:
    """Products (exact for bf16 inputs) summed by `tree_sum` along `axis`."""
    return tree_sum((f32(a) * f32(b)).astype(F32), axis=axis)


def matmul_tree(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a (..., M, K) @ b (..., K, N) with each output a `dot` over K in tree order."""
    prod = f32(a)[..., :, :, None] * f32(b)[..., None, :, :]    # (..., M, K, N)
    k = prod.shape[-2]
    if k & (k - 1):
        raise ValueError(f"matmul_tree needs a power-of-two K, got {k}")
    while k > 1:                          # tree_sum's halving, along K in place
        k //= 2
        prod = prod[..., :k, :] + prod[..., k:, :]
    return prod[..., 0, :]


def max_reduce(x) -> np.ndarray:
    """Maximum along the last axis with `fmax`'s rules (NaN if any element is NaN,
    +0 beats -0). Those rules make max associative and commutative, so this equals any
    reduction tree of `fmax`, including the RTL's."""
    x = f32(x)
    m = x.max(axis=-1)
    zero = m == 0
    if np.any(zero):
        has_pos_zero = ((x == 0) & ~np.signbit(x)).any(axis=-1)
        m = np.where(zero, np.where(has_pos_zero, F32(0.0), F32(-0.0)), m).astype(F32)
    return canon(m)


def softmax(x) -> np.ndarray:
    """Softmax along the last axis (length a power of two): d = x - x.max (fp32),
    e = exp(d), s = tree_sum(e), r = reciprocal(s), result e * r (fp32), NaN canonical."""
    x = f32(x)
    e = exp((x - max_reduce(x)[..., None]).astype(F32))
    r = reciprocal(tree_sum(e))
    return canon((e * r[..., None]).astype(F32))


# --- scalar fp32 on Python floats (the scalar fp unit) -----------------------------
# Python floats are binary64. For fp32 operands, one binary64 operation (+ - * / sqrt)
# followed by rounding to binary32 gives the correctly rounded binary32 result, because
# 53 >= 2*24 + 2 (double rounding is innocuous), so these agree bit for bit with the
# vectorised functions above while running at Python-scalar speed.

_F32_STRUCT = _struct.Struct("<f")
_NAN = float("nan")          # packs to the canonical 0x7FC00000


def round_f32(x: float) -> float:
    """Round a Python float to the nearest fp32 value (RNE): overflow gives +-inf,
    subnormals are kept, NaN becomes the canonical NaN."""
    if x != x:
        return _NAN
    try:
        return _F32_STRUCT.unpack(_F32_STRUCT.pack(x))[0]
    except OverflowError:        # rounds past the largest finite fp32
        return _math.copysign(_math.inf, x)


def max_f32(a: float, b: float) -> float:
    """Scalar `fmax`: NaN if either is NaN, max(-0, +0) = +0."""
    if a != a or b != b:
        return _NAN
    if a == b:
        return b if _math.copysign(1.0, a) < 0 else a
    return a if a > b else b


def recip_f32(x: float) -> float:
    """Scalar `reciprocal`: 1/+-0 = +-inf, 1/+-inf = +-0."""
    if x == 0:
        return _math.copysign(_math.inf, x)
    return round_f32(1.0 / x)


def sqrt_f32(x: float) -> float:
    """Scalar `sqrt`: negative (and NaN) -> NaN, sqrt(-0) = -0."""
    if x != x or x < 0:
        return _NAN
    return round_f32(_math.sqrt(x))


_EXP_C = [float(c) for c in EXP2_COEFFS[-2::-1]]
_EXP_TOP, _LOG2E, _LN2_HI, _LN2_LO = (float(v) for v in (EXP2_COEFFS[-1], LOG2E, LN2_HI, LN2_LO))


def exp_f32(x: float) -> float:
    """Scalar `exp` of an fp32 value: `exp`'s steps one by one, each fp32 operation a
    binary64 one rounded to fp32 (exact, as above), its special cases first."""
    if x != x:
        return _NAN
    t = round_f32(x * _LOG2E)
    if t >= 128:
        return _math.inf
    if t < -126:
        return 0.0
    n = float(_math.floor(t))             # -126..127: 2**n is exact
    r = round_f32(x - round_f32(n * _LN2_HI))
    r = round_f32(r - round_f32(n * _LN2_LO))
    frac = round_f32(r * _LOG2E)
    p = _EXP_TOP
    for c in _EXP_C:
        p = round_f32(round_f32(p * frac) + c)
    return round_f32(p * 2.0 ** n)
