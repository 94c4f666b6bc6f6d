"""Whether a kernel's errors depend on the fraction of exp's argument.

exp(a) is computed as 2^n 2^f, with f the fraction of a log2(e), and an approximation of
2^f errs by a function of f, the same way for every element with that f (a degree-3 Taylor
polynomial: 0 at f = 0, -0.56% as f -> 1; the bit trick with a quadratic fix-up: up to
+1.1% in mid-range). Round-to-nearest errs both ways whatever f is. So on an edge family
where a kernel's result can be read back element by element, with each element's exp
argument known, a correct kernel's errors average to zero in every bin of f, and an
approximate exp's do not, even where each error is within the element bound. The inputs of
such a family must make a correct kernel's roundings take every value (sums of products of
random entries, not a grid's few), or its fixed rounding pattern shows as a bias.

What varies smoothly with the argument is taken out first (the errors' least-squares line in
the argument): a constant of the chain rounded once (GELU's sqrt(2/pi) stored in bf16 is
off by 0.13%, which moves exp by that fraction of its argument) errs the same way for every
element and is no sign of an approximate exp; an error periodic in the fraction is.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

PHASES = 4                      # bins of the fraction of a log2(e)
MIN_COUNT = 200                 # bins with fewer elements are not judged


def phase_margin(err: np.ndarray, arg: np.ndarray, limit: float, what: str) -> tuple[float, str]:
    """(largest |mean of `err`| over the bins of the fraction of `arg` log2(e) / `limit`,
    what it means); `err` in units of u, one per element read back, `arg` its exp argument.
    Above 1 fails."""
    if err.size == 0:
        return 0.0, ""
    if not np.all(np.isfinite(err)):
        return float("inf"), f"{what}: some are zero, of the wrong sign or not finite"
    arg = np.asarray(arg, np.float64)
    if np.ptp(arg) > 0:
        err = err - np.polyval(np.polyfit(arg, err, 1), arg)
    t = arg / np.log(2.0)
    b = np.minimum(np.floor((t - np.floor(t)) * PHASES).astype(int), PHASES - 1)
    counts = np.bincount(b, minlength=PHASES)
    means = np.bincount(b, err, minlength=PHASES) / np.maximum(counts, 1)
    means[counts < MIN_COUNT] = 0.0
    worst = int(np.abs(means).argmax())
    m = float(means[worst])
    return abs(m) / limit, (
        f"{what} err by {m:+.2f}u on average (beyond a straight line in the argument) for the "
        f"{counts[worst]} whose exp argument a has a fraction of a log2(e) in [{worst / PHASES:.2f}, "
        f"{(worst + 1) / PHASES:.2f}); rounding to nearest errs both ways at every argument and keeps "
        f"this within {limit:.2f}u: exp's error depends on its argument")


# Where exp's argument crosses 0 its fraction wraps from 1 to 0, and there an approximation of
# 2^f that does not meet 2 at f = 1 jumps by its whole error at the end of the interval (the
# degree-3 Taylor polynomial: 0.56%), while the bins of f above average that error with the
# smaller ones nearby. Near 0 the bf16 grid of the argument is far finer than exp's output grid,
# so a correct kernel's roundings of exp take every value on both sides, without the fixed
# patterns that runs of bf16 arguments one output ulp apart leave near the other wraps
# (a = n ln 2, n != 0). What stays are the roundings of the chain's values near constants (e
# near 1, 1 + e near 2, 1 / (1 + e) near 1/2), sawtooths in a with periods of 2^-8..2^-6, which
# windows several periods wide average out where the elements are spread smoothly over a.
FLOOR = 2.0 ** -9               # windows FLOOR <= |a| < EDGE on either side of 0; below FLOOR a
EDGE = 5 / 64                   # pre-activation is a sum that cancels, whose fp32 rounding is
                                # a large part of it


def wrap_margin(err: np.ndarray, arg: np.ndarray, limit: float, what: str) -> tuple[float, str]:
    """(|mean of `err` over the elements whose argument is in the window below 0 less its
    mean over those in the window above| / `limit`, what it means); `err` in units of u,
    `arg` each element's exp argument. Above 1 fails. A smooth error (a constant of the
    chain rounded once) moves it by its slope times EDGE only."""
    arg = np.asarray(arg, np.float64)
    near = (np.abs(arg) >= FLOOR) & (np.abs(arg) < EDGE)
    below, above = near & (arg < 0), near & (arg > 0)
    nb, na = int(below.sum()), int(above.sum())
    if min(nb, na) < MIN_COUNT:
        return 0.0, ""
    if not np.all(np.isfinite(err[near])):
        return float("inf"), f"{what}: some are zero, of the wrong sign or not finite"
    step = float(err[below].mean() - err[above].mean())
    lo, hi = Fraction(FLOOR), Fraction(EDGE)
    return abs(step) / limit, (
        f"{what} err by {step:+.2f}u more on average for the {nb} whose exp argument a is in "
        f"(-{hi}, -{lo}], where a log2(e) has a fraction near 1, than for the {na} in [{lo}, {hi}), "
        f"where it is near 0; rounding errs alike on both sides and keeps this within {limit:.2f}u: "
        f"exp jumps where its argument crosses 0")
