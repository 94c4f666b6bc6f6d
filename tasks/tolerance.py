"""The correctness policy: one tolerance per output dtype, and the comparison.

An element passes if |y - r| <= rtol * |r| + atol_scale * rms(r), with rms taken over
the whole output tensor (its finite elements). The reasoning behind the numbers is in
tasks/README.md, "Tolerance policy"; they were set from the error analysis there and
are not adjusted to let any particular kernel through.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol_scale: float


# bf16 (unit roundoff u = 2^-8): rtol = 8u covers a chain of bf16 roundings of the
# element itself (each <= u; exp turns an argument's rounding into relative error);
# atol_scale = 16u of the output's rms covers errors that do not shrink with the
# element: contractions and differences of bf16-stored intermediates, whose error is
# ~0.5% of rms in the deepest tasks with tails near 3% (tasks/README.md).
# fp32 (u = 2^-24): reordered fp32 sums of up to ~2^10 terms.
TOLERANCES: dict[str, Tolerance] = {
    "bf16": Tolerance(rtol=2.0 ** -5, atol_scale=2.0 ** -4),
    "fp32": Tolerance(rtol=2.0 ** -14, atol_scale=2.0 ** -13),
}

# A reference whose spread is below this fraction of its rms is a degenerate task:
# a constant output would come close to passing.
NEAR_CONSTANT_RATIO = 0.1

MAX_MISMATCHES = 10


@dataclass
class Comparison:
    passed: bool
    frac_match: float
    max_abs_err: float
    max_rel_err: float            # over elements with r != 0
    rms_ref: float
    per_row: list[tuple[int, int, float]] = field(default_factory=list)   # (row, n_bad, max_abs_err)
    first_mismatches: list[tuple[tuple[int, ...], float, float, float]] = field(default_factory=list)
    n_elems: int = 0
    n_bad: int = 0

    def summary(self) -> str:
        state = "PASS" if self.passed else "FAIL"
        return (f"{state}: {self.n_elems - self.n_bad}/{self.n_elems} elements within tolerance "
                f"({100 * self.frac_match:.2f}%), max abs err {self.max_abs_err:.4g}, "
                f"max rel err {self.max_rel_err:.4g}, rms(ref) {self.rms_ref:.4g}")


def tolerance_for(dtype: str) -> Tolerance:
    try:
        return TOLERANCES[dtype]
    except KeyError:
        raise KeyError(f"no tolerance for dtype {dtype!r}; dtypes: {', '.join(TOLERANCES)}") from None


def rms(a: np.ndarray) -> float:
    a = np.asarray(a, dtype=np.float64)
    a = a[np.isfinite(a)]
    return float(np.sqrt(np.mean(a * a))) if a.size else 0.0


def near_constant(reference: np.ndarray) -> bool:
    """True if the reference is (almost) the same value everywhere, zeros included."""
    r = np.asarray(reference, dtype=np.float64)
    r = r[np.isfinite(r)]
    scale = rms(r)
    if r.size < 2 or scale == 0.0:
        return True
    return float(np.std(r)) < NEAR_CONSTANT_RATIO * scale


def _check(y: np.ndarray, r: np.ndarray, tol: Tolerance, scale: float):
    """(ok, |error|, bound) per element: the one tolerance rule."""
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(y - r)
        bound = tol.rtol * np.abs(r) + tol.atol_scale * scale
        ok = np.where(np.isfinite(r), np.isfinite(y) & (err <= bound),
                      (y == r) | (np.isnan(y) & np.isnan(r)))
    return ok, err, bound


def within(output: np.ndarray, reference: np.ndarray, dtype: str) -> np.ndarray:
    """Per element of `reference`'s shape: is `output` within tolerance (compare's rule)."""
    r = np.asarray(reference, dtype=np.float64)
    y = np.asarray(output, dtype=np.float64).reshape(r.shape)
    return _check(y, r, tolerance_for(dtype), rms(r))[0]


def compare(output: np.ndarray, reference: np.ndarray, dtype: str) -> Comparison:
    """Element-wise check of `output` against the float64 `reference` under the
    policy of `dtype`. Non-finite outputs fail where the reference is finite; where
    the reference is non-finite the output must be the same value (NaN for NaN)."""
    tol = tolerance_for(dtype)
    y = np.asarray(output, dtype=np.float64)
    r = np.asarray(reference, dtype=np.float64)
    if y.shape != r.shape:
        if y.size != r.size:
            raise ValueError(f"output has shape {y.shape} ({y.size} elements), reference has "
                             f"{r.shape} ({r.size} elements): the kernel's output region is the wrong size")
        y = y.reshape(r.shape)
    scale = rms(r)
    ok, err, bound = _check(y, r, tol, scale)
    finite_r = np.isfinite(r)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.where(finite_r & np.isfinite(y), err, np.where(ok, 0.0, np.inf))
        nz = finite_r & (r != 0)
        rel = np.where(nz, err / np.where(nz, np.abs(r), 1.0), 0.0)

    n = int(r.size)
    bad = ~ok
    n_bad = int(bad.sum())
    rows2d = r.reshape(1, -1) if r.ndim < 2 else r.reshape(-1, r.shape[-1])
    bad2d, err2d = bad.reshape(rows2d.shape), err.reshape(rows2d.shape)
    per_row = [(i, int(b), float(e)) for i, (b, e) in
               enumerate(zip(bad2d.sum(axis=1), err2d.max(axis=1, initial=0.0)))]
    mism = []
    for flat in np.flatnonzero(bad.reshape(-1))[:MAX_MISMATCHES]:
        idx = tuple(int(i) for i in np.unravel_index(flat, r.shape))
        mism.append((idx, float(y[idx]), float(r[idx]), float(bound[idx]) if finite_r[idx] else 0.0))
    return Comparison(
        passed=n_bad == 0,
        frac_match=(n - n_bad) / n if n else 1.0,
        max_abs_err=float(err.max(initial=0.0)),
        max_rel_err=float(rel.max(initial=0.0)),
        rms_ref=scale,
        per_row=per_row,
        first_mismatches=mism,
        n_elems=n,
        n_bad=n_bad,
    )
