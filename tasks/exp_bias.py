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
