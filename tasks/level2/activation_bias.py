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
"""
from __future__ import annotations

import numpy as np

from .. import ops
from ..exp_bias import phase_margin
from ..tolerance import U

LIMIT = 0.5 * U                 # largest mean log-error of a bin
PRODUCTS = 4                    # products in a pre-activation besides its offset


def units(d: dict, rng: np.random.Generator, offsets: tuple[float, float]):
    """(x, w_pre, w_down, c): x with a column c of ones and `PRODUCTS` random columns;
    w_pre's first Dm rows an offset (from `offsets`) in column c and random entries in
    those columns (zero elsewhere, and in every other row); w_down the identity on the
    first Dm units."""
    s, dm, f = d["S"], d["Dm"], d["F"]
    cols = rng.permutation(dm)[:PRODUCTS + 1]
    c, k = cols[0], cols[1:]
    x = np.zeros((s, dm))
    x[:, c] = 1.0
    x[:, k] = rng.uniform(-0.6, 0.6, (s, PRODUCTS))
    w = np.zeros((f, dm))
    w[:dm, c] = rng.uniform(*offsets, dm)
    w[np.ix_(np.arange(dm), k)] = rng.uniform(-0.6, 0.6, (dm, PRODUCTS))
    down = np.zeros((dm, f))
    down[np.arange(dm), np.arange(dm)] = 1.0
    return x, w, down, c


def readable(w_down: np.ndarray) -> bool:
    dm = w_down.shape[0]
    return bool((w_down[:, :dm] == np.eye(dm)).all() and not w_down[:, dm:].any())


def activation_margin(pre: np.ndarray, y: np.ndarray, act: str, what: str) -> tuple[float, str]:
    """(largest |mean log-error| of a bin / LIMIT, what it means) of `y` against
    act(pre) ("gelu" or "silu"), exp's argument being -t with gelu's t, or -pre."""
    pre = np.asarray(pre, np.float64)
    if act == "gelu":
        arg = -ops.GELU_C1 * (pre + ops.GELU_C2 * pre ** 3)
        want = ops.gelu(pre)
    else:
        arg, want = -pre, ops.silu(pre)
    with np.errstate(all="ignore"):
        err = np.log(np.asarray(y, np.float64).reshape(want.shape) / want) / U
    live = want != 0
    return phase_margin(err[live], arg[live], LIMIT / U, what)
