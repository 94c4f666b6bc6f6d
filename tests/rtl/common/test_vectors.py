"""The bench's random operands really reach the corners the units must get right:
rounding ties, overflow, gradual underflow, cancellation, exp's range limits. (A
test that only drew easy operands would pass a unit that rounds ties the wrong way.)"""
from __future__ import annotations

import numpy as np

F32, F64 = np.float32, np.float64


def _ties(exact: np.ndarray, rounded: np.ndarray) -> np.ndarray:
    """Where an exactly known value lies halfway between two neighbouring fp32 values."""
    lo = np.nextafter(rounded, F32(-np.inf)).astype(F64)
    hi = np.nextafter(rounded, F32(np.inf)).astype(F64)
    r = rounded.astype(F64)
    return np.isfinite(r) & ((exact == (r + lo) / 2) | (exact == (r + hi) / 2))


def _operands(vectors, unit, *names):
    vec = vectors.make(unit, 20261202)
    return [vec.columns[n].view(F32) for n in names]


def test_multiply_vectors_reach_ties_overflow_and_underflow(vectors):
    a, b = _operands(vectors, "fp32_mul", "a", "b")
    finite = np.isfinite(a) & np.isfinite(b) & (a != 0) & (b != 0)
    exact = a.astype(F64) * b.astype(F64)              # exact: 48-bit significands
    r = (a * b).astype(F32)
    assert (_ties(exact, r) & finite).sum() >= 200
    assert (np.isinf(r) & finite).sum() >= 1000          # overflow
    assert ((r == 0) & finite).sum() >= 1000             # underflow to zero
    sub = (r != 0) & (np.abs(r) < np.finfo(F32).tiny) & finite
    assert sub.sum() >= 1000                              # subnormal results


def test_add_vectors_reach_ties_and_cancellation(vectors):
    a, b, sub = _operands(vectors, "fp32_add", "a", "b", "sub")
    b = np.where(sub.view(np.uint32) == 1, -b, b)
    s = a.astype(F64) + b.astype(F64)
    exact = np.isfinite(s) & ((s - a.astype(F64)) == b.astype(F64))
    r = (a + b).astype(F32)
    assert (_ties(s, r) & exact).sum() >= 200
    cancel = exact & (a != 0) & (np.abs(r) < np.abs(a) * F32(2.0 ** -20))
    assert cancel.sum() >= 1000
    assert ((r == 0) & (a != 0) & exact).sum() >= 100     # x + (-x)


def test_bf16_rounding_vectors_reach_ties_of_both_parities(vectors):
    (a,) = _operands(vectors, "fp32_to_bf16", "a")
    bits = a.view(np.uint32)
    tie = (bits & 0xFFFF) == 0x8000
    assert (tie & ((bits >> 16) & 1 == 0)).sum() >= 1000
    assert (tie & ((bits >> 16) & 1 == 1)).sum() >= 1000


def test_exp_vectors_straddle_both_range_limits(vectors):
    (x,) = _operands(vectors, "fp32_exp", "x")
    t = x * vectors.nx.LOG2E
    assert ((t >= 127.9) & (t < 128)).sum() >= 100 and ((t >= 128) & (t < 128.1)).sum() >= 100
    assert ((t >= -126) & (t < -125.9)).sum() >= 100 and ((t < -126) & (t > -126.1)).sum() >= 100
    assert ((np.abs(t) < 1) & (t != 0)).sum() >= 1000


def test_reciprocal_vectors_reach_subnormal_results_and_overflow(vectors):
    (x,) = _operands(vectors, "fp32_recip", "x")
    finite = np.isfinite(x) & (x != 0)
    r = (F32(1) / x).astype(F32)
    assert ((r != 0) & (np.abs(r) < np.finfo(F32).tiny) & finite).sum() >= 1000
    assert (np.isinf(r) & finite).sum() >= 1000
