"""The activations an MLP kernel computed, read back from its output on the `many_units`
edge family, and whether their errors depend on exp's argument (tasks/exp_bias.py).

In ffn's and swiglu's `coherent_hidden` an approximate exp of about 1% is within the
roundings a correct chain may make on one element (tasks/README.md), so the element bound
lets it through. `many_units` reads the activation of every (token, hidden unit) instead:
the hidden units come in pairs with the same weights into the pre-activations, so the same
activation, and the down projection (`twin_down`), drawn like a random one, gives the two
units of a pair opposite columns but for one pair per output column j, whose columns differ
by m in row j alone: y[s, j] is m times the kernel's activation of that pair. Each
pre-activation is a negative offset plus a sum of `PRODUCTS` products of random entries (so
that a correct kernel's roundings take every value rather than a grid's few), in the range
where exp's error reaches the activation almost undamped. The check
(`activation_margin`): log(y / (m act)) in units of u, averaged over the elements in each bin
of the fraction of exp's argument times log2(e), stays within `LIMIT` of zero.

Why pairs and not a dense well-conditioned mixing of Dm units whose inverse the check
applies: y is stored in bf16, so each y[s, j] is off by up to u of itself, and a mixing
spreads that over every unit it reads, u of the mix's size where a unit's own activation may
be a hundredth of it; on `units_near_zero` (activations near 0) the emulated correct ffn
kernel read back that way (with a random b2) failed, with activations of the wrong sign, and
swiglu's came to 0.86 of the limit (tasks/README.md). A pair's two columns cancel
in real arithmetic, so y[s, j] is one activation and is rounded relative to itself, as
through an identity, while no entry of the down projection is zero or stands out.

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

from kernelcraft.simulators.numerics import round_bf16

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


def units(d: dict, rng: np.random.Generator, offsets: tuple[float, float], spread: float = SPREAD,
          gain: float = 2.0):
    """(x, w_pre, w_down, c, (first, second)): x with a column c of ones and `PRODUCTS`
    random columns; the hidden units in pairs (first[i], second[i]) with the same row of
    w_pre, an offset (from `offsets`) in column c and random entries (within `spread`) in
    those columns (zero elsewhere); w_down from `twin_down`, reading up to Dm pairs."""
    s, dm, f = d["S"], d["Dm"], d["F"]
    cols = rng.permutation(dm)[:PRODUCTS + 1]
    c, k = cols[0], cols[1:]
    x = np.zeros((s, dm))
    x[:, c] = 1.0
    x[:, k] = rng.uniform(-0.6, 0.6, (s, PRODUCTS))
    w = np.zeros((f, dm))
    w[:, c] = rng.uniform(*offsets, f)
    w[:, k] = rng.uniform(-spread, spread, (f, PRODUCTS))
    first, second = twins(rng, f)
    w[second] = w[first]
    return x, w, twin_down(rng, dm, f, first, second, np.arange(dm), gain), c, (first, second)


def twins(rng: np.random.Generator, f: int) -> tuple[np.ndarray, np.ndarray]:
    """The hidden units in random pairs (first[i], second[i])."""
    order = rng.permutation(f)
    return order[0:f - f % 2:2], order[1:f - f % 2:2]


def twin_down(rng: np.random.Generator, dm: int, f: int, first, second, outs, gain: float) -> np.ndarray:
    """A down projection [dm, f] drawn like a random one (`sampling.weights`: entries of
    gain / sqrt(f), none zero, none special) whose pairs of columns (first[i], second[i])
    cancel, g and -g, but for one pair per output column in `outs` (as many as there are
    pairs), whose two columns differ by m = +-2^k (about 1.5 gain / sqrt(f)) in that row,
    both entries bf16 numbers: when the two units of a pair have the same activation a (the
    same pre-activation), y[:, j] = m a exactly for the pair read in row j (a power of two
    adds no rounding), and every other pair adds nothing."""
    scale = gain / np.sqrt(f)
    w = rng.standard_normal((dm, f)) * scale
    w[:, second] = -w[:, first]
    outs = rng.permutation(np.asarray(outs))[:len(first)]
    read = rng.choice(len(first), size=outs.size, replace=False)
    step = 2.0 ** np.round(np.log2(1.5 * scale))
    for j, p in zip(outs, read):
        m = step * rng.choice([-1.0, 1.0])
        while True:                        # both entries bf16 numbers that differ by m exactly
            top = float(round_bf16(np.float32(rng.standard_normal() * scale + m)))
            if top not in (0.0, m) and float(round_bf16(np.float32(top - m))) == top - m:
                break
        w[j, first[p]], w[j, second[p]] = top, -(top - m)
    return w


def read_pairs(pre_rows: np.ndarray, w_down: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(unit, out, m) of `twin_down`'s read pairs: one unit of the pair, the output column it
    reaches and the pair's difference there (y[:, out] = m act[:, unit]), from the bf16
    inputs; None if the inputs do not have that structure (every unit one of two with the
    same row of `pre_rows`, its weights into the pre-activations, and down columns that
    cancel but in at most one row, a row no other pair reaches)."""
    f = w_down.shape[1]
    _, group, count = np.unique(pre_rows, axis=0, return_inverse=True, return_counts=True)
    group = np.asarray(group).ravel()
    if f % 2 or (count != 2).any():
        return None
    order = np.argsort(group, kind="stable")
    a, b = order[0::2], order[1::2]
    diff = w_down[:, a] + w_down[:, b]
    live = diff != 0
    pairs = np.flatnonzero(live.any(axis=0))
    if (live.sum(axis=0) > 1).any() or pairs.size == 0:
        return None
    out = live[:, pairs].argmax(axis=0)
    if np.unique(out).size != out.size:
        return None
    return a[pairs], out, diff[out, pairs]


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
