"""The correctness policy: a tolerance per task (per output), and the comparison.

An element passes if |y - r| <= rtol * |r| + atol_scale * S, where S is a scale of the
reference: rms(r) over the whole output tensor ("rms") or the largest |r| of the
element's row, i.e. over the last axis ("row_max"). Every task states its own
`Tolerance` (the `tol` attribute of `tasks.core.Task`), derived from the depth of its
chain of bf16 roundings; the derivations are in tasks/README.md, "Tolerance policy",
and in each tolerance's `basis`. They are confirmed with the emulated correct kernels
and a catalogue of known-wrong ones (`python -m kernelcraft.tasks.calibrate`), never adjusted to
let or stop a particular kernel.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

U = 2.0 ** -8          # bf16 unit roundoff: the largest relative error of one rounding
SCALES = ("rms", "row_max")


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol_scale: float
    scale: str = "rms"           # what atol_scale multiplies: "rms" or "row_max" (see above)
    basis: str = ""              # the error analysis it comes from, one sentence

    def __post_init__(self):
        if self.scale not in SCALES:
            raise ValueError(f"tolerance scale {self.scale!r}: expected one of {', '.join(SCALES)}")

    def describe(self) -> str:
        what = "rms(r)" if self.scale == "rms" else "row max abs(r)"
        return f"rtol {units(self.rtol)}, atol {units(self.atol_scale)} x {what}"


    def explain(self, output: str) -> str:
        """The rule for one output in words and numbers, as an agent is shown it."""
        what = ("rms(r), the root mean square of the whole reference tensor" if self.scale == "rms"
                else "the largest abs(r) in the element's row")
        return (f"`{output}`: abs(y - r) <= rtol * abs(r) + atol * S, with rtol = {units(self.rtol)} = "
                f"{self.rtol:.6g} and atol = {units(self.atol_scale)} = {self.atol_scale:.6g}, S = {what}"
                f".{' Why: ' + self.basis + '.' if self.basis else ''}")


def units(v: float) -> str:
    """A bound in units of u (2u, 0.5u), or as a power of two when far below u."""
    if v == 0 or v >= U / 8:
        return f"{v / U:g}u"
    return f"2^{np.log2(v):g}"


# Level 2/3: correct kernels store every intermediate in bf16 (scores, probabilities,
# hidden states, projections) and accumulate in fp32. Chains of up to ~8 roundings of
# the element (rtol 8u); contractions over stored intermediates and residual sums give
# errors that scale with the output's typical size, not the element: error std 0.2-0.75%
# of rms(r), tails near 3% in the deepest tasks (atol 16u). The decoder blocks take per
# element the smaller of this and their composed chain (level3/decoder.py). tasks/README.md.
DEEP = Tolerance(8 * U, 16 * U, basis="bf16 storage of every intermediate and fp32 accumulation: up to ~8 "
                 "roundings per element and contractions over stored intermediates (tails ~3% of rms)")

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
    tolerance: str = ""           # the bound applied, e.g. "rtol 4u, atol 1u x rms(r)"

    def summary(self) -> str:
        state = "PASS" if self.passed else "FAIL"
        return (f"{state}: {self.n_elems - self.n_bad}/{self.n_elems} elements within tolerance "
                f"({100 * self.frac_match:.2f}%), max abs err {self.max_abs_err:.4g}, "
                f"max rel err {self.max_rel_err:.4g}, rms(ref) {self.rms_ref:.4g}")


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


def atol(reference: np.ndarray, tol: Tolerance) -> np.ndarray | float:
    """The absolute part of the bound: atol_scale times rms(r), or times each row's
    largest finite |r| (broadcast over the row)."""
    r = np.asarray(reference, dtype=np.float64)
    if tol.scale == "rms":
        return tol.atol_scale * rms(r)
    a = np.where(np.isfinite(r), np.abs(r), 0.0)
    return tol.atol_scale * (a.max(axis=-1, keepdims=True) if r.ndim else a)


def bound(reference: np.ndarray, tol: Tolerance, allowance=None) -> np.ndarray:
    """The largest |y - r| each element may have under `tol`, plus the task's
    per-element `allowance` (absolute errors its error model derives from the inputs,
    `Task.allowance`), if any."""
    r = np.asarray(reference, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        b = tol.rtol * np.abs(r) + atol(r, tol)
        return b if allowance is None else b + np.asarray(allowance, dtype=np.float64).reshape(r.shape)


def _check(y: np.ndarray, r: np.ndarray, tol: Tolerance, allowance=None):
    """(ok, |error|, bound) per element: the one tolerance rule, shared by `compare`
    and `within`."""
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(y - r)
        b = np.broadcast_to(bound(r, tol, allowance), r.shape)
        ok = np.where(np.isfinite(r), np.isfinite(y) & (err <= b),
                      (y == r) | (np.isnan(y) & np.isnan(r)))
    return ok, err, b


def within(output: np.ndarray, reference: np.ndarray, tol: Tolerance, allowance=None) -> np.ndarray:
    """Per element of `reference`'s shape: is `output` within tolerance (compare's rule)."""
    r = np.asarray(reference, dtype=np.float64)
    y = np.asarray(output, dtype=np.float64).reshape(r.shape)
    return _check(y, r, tol, allowance)[0]


def compare(output: np.ndarray, reference: np.ndarray, tol: Tolerance, allowance=None) -> Comparison:
    """Element-wise check of `output` against the float64 `reference` under `tol`
    (a task's tolerance: `task.tolerance(config, name)`) and the task's `allowance` for
    these inputs (`task.allowance(inputs, config, name)`, None for most tasks). Non-finite outputs fail where
    the reference is finite; where the reference is non-finite the output must be the
    same value (NaN for NaN)."""
    if not isinstance(tol, Tolerance):
        raise TypeError(f"compare needs the task's Tolerance (task.tolerance(config, output)), "
                        f"got {tol!r}")
    y = np.asarray(output, dtype=np.float64)
    r = np.asarray(reference, dtype=np.float64)
    if y.shape != r.shape:
        if y.size != r.size:
            raise ValueError(f"output has shape {y.shape} ({y.size} elements), reference has "
                             f"{r.shape} ({r.size} elements): the kernel's output region is the wrong size")
        y = y.reshape(r.shape)
    scale = rms(r)
    ok, err, bound_ = _check(y, r, tol, allowance)
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
        mism.append((idx, float(y[idx]), float(r[idx]), float(bound_[idx]) if finite_r[idx] else 0.0))
    return Comparison(
        passed=n_bad == 0,
        frac_match=(n - n_bad) / n if n else 1.0,
        max_abs_err=float(err.max(initial=0.0)),
        max_rel_err=float(rel.max(initial=0.0)),
        rms_ref=scale,
        tolerance=tol.describe(),
        per_row=per_row,
        first_mismatches=mism,
        n_elems=n,
        n_bad=n_bad,
    )


def worst_ratio(output: np.ndarray, reference: np.ndarray, tol: Tolerance, allowance=None) -> float:
    """max |y - r| / bound over the elements (1.0 = at the bound; inf where a value
    that must be finite, or equal to a non-finite reference, is not)."""
    y = np.asarray(output, dtype=np.float64).reshape(np.shape(reference))
    r = np.asarray(reference, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        b = np.broadcast_to(bound(r, tol, allowance), r.shape)
        err = np.abs(y - r)
        q = np.where(b > 0, err / np.where(b > 0, b, 1.0), np.where(err == 0, 0.0, np.inf))
        finite_r = np.isfinite(r)
        same = (y == r) | (np.isnan(y) & np.isnan(r))
        q = np.where(finite_r, np.where(np.isfinite(y), q, np.inf), np.where(same, 0.0, np.inf))
    return float(q.max(initial=0.0))
