"""The activations an MLP kernel computed, read back from its output on the `many_units`
edge family, and whether their errors depend on exp's argument (tasks/exp_bias.py).

In ffn's and swiglu's `coherent_hidden` an approximate exp of about 1% is within the
roundings a correct chain may make on one element (tasks/README.md), so the element bound
lets it through. `many_units` reads the activation of every (token, hidden unit) instead:
the first Dm hidden units feed the output through an identity down projection (the others
are 0 and add exact zeros), so y[s, j] is the kernel's activation of unit j, and each
pre-activation is a negative offset plus a sum of `PRODUCTS` products of random entries (so
that a correct kernel's roundings take every value rather than a grid's few), in the range
where exp's error reaches the activation almost undamped. The check
(`activation_margin`): log(y / act) in units of u, averaged over the elements in each bin
of the fraction of exp's argument times log2(e), stays within `LIMIT` of zero.

The degree-3 Taylor exp (0.56%, 1.43u) escapes that check: its error grows as f^4, so the
bin f in [0.75, 1) averages 0.3-0.45u less its mean over the bins, within the fixed pattern a
correct chain leaves (0.30u for GELU's: where exp's argument is on a bf16 grid whose steps
move exp by a whole number of its own ulps, its roundings repeat instead of averaging out).
`units_near_zero` reads the same units with pre-activations within about 0.1 of 0, where
exp's argument crosses 0 and its fraction wraps from 1 to 0: an approximation of 2^f that
does not meet 2 at f = 1 jumps there by its error at the end of the interval (damped by
sigmoid to half), while the argument's bf16 grid is fine enough there for a correct kernel's
roundings to be continuous (`crossing_margin`, tasks/exp_bias.py `wrap_margin`).
"""
from __future__ import annotations

import numpy as np

from .. import ops
from ..exp_bias import FLOOR, phase_margin, wrap_margin
from ..tolerance import U

LIMIT = 0.5 * U                 # largest mean log-error of a bin
STEP_LIMIT = 0.3 * U            # largest step of the log-errors where exp's argument crosses 0
PRODUCTS = 4                    # products in a pre-activation besides its offset
SPREAD = 0.6                    # the products' random entries are within SPREAD
NEAR_ZERO = (0.1, 0.1)          # `units_near_zero`: offsets and product weights within these
                                # (silu; gelu's argument is 1.6 z: 1/1.6 of both), so that
                                # the units spread smoothly over exp_bias' windows


def units(d: dict, rng: np.random.Generator, offsets: tuple[float, float], spread: float = SPREAD):
    """(x, w_pre, w_down, c): x with a column c of ones and `PRODUCTS` random columns;
    w_pre's first Dm rows an offset (from `offsets`) in column c and random entries
    (within `spread`) in those columns (zero elsewhere, and in every other row); w_down the
    identity on the first Dm units."""
    s, dm, f = d["S"], d["Dm"], d["F"]
    cols = rng.permutation(dm)[:PRODUCTS + 1]
    c, k = cols[0], cols[1:]
    x = np.zeros((s, dm))
    x[:, c] = 1.0
    x[:, k] = rng.uniform(-0.6, 0.6, (s, PRODUCTS))
    w = np.zeros((f, dm))
    w[:dm, c] = rng.uniform(*offsets, dm)
    w[np.ix_(np.arange(dm), k)] = rng.uniform(-spread, spread, (dm, PRODUCTS))
    down = np.zeros((dm, f))
    down[np.arange(dm), np.arange(dm)] = 1.0
    return x, w, down, c


def readable(w_down: np.ndarray) -> bool:
    dm = w_down.shape[0]
    return bool((w_down[:, :dm] == np.eye(dm)).all() and not w_down[:, dm:].any())


def log_errors(pre: np.ndarray, y: np.ndarray, act: str) -> tuple[np.ndarray, np.ndarray]:
    """(log(y / act(pre)) in units of u, exp's argument) of every element whose exp argument
    is FLOOR or more from 0; act "gelu" (exp's argument -t with gelu's t) or "silu" (-pre).
    Nearer 0 a pre-activation is a sum that cancels (on aie's LLaMA block `many_units` once
    drew one that is exactly 0, which the kernel's silu rightly gives as 0 and float64 as
    -5e-17), and its fp32 rounding, not the activation, sets the element's relative error."""
    pre = np.asarray(pre, np.float64)
    if act == "gelu":
        arg = -ops.GELU_C1 * (pre + ops.GELU_C2 * pre ** 3)
        want = ops.gelu(pre)
    else:
        arg, want = -pre, ops.silu(pre)
    with np.errstate(all="ignore"):
        err = np.log(np.asarray(y, np.float64).reshape(want.shape) / want) / U
    live = (want != 0) & (np.abs(arg) >= FLOOR)
    return err[live], arg[live]


def activation_margin(pre: np.ndarray, y: np.ndarray, act: str, what: str) -> tuple[float, str]:
    """(largest |mean log-error| of a bin / LIMIT, what it means) of `y` against
    act(pre) ("gelu" or "silu"): `many_units`' check."""
    return phase_margin(*log_errors(pre, y, act), LIMIT / U, what)


def crossing_margin(pre: np.ndarray, y: np.ndarray, act: str, what: str) -> tuple[float, str]:
    """(|step of the log-errors where exp's argument crosses 0| / STEP_LIMIT, what it means):
    `units_near_zero`'s check."""
    return wrap_margin(*log_errors(pre, y, act), STEP_LIMIT / U, what)
