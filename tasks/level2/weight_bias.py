"""The attention weights a kernel used, read back from its outputs on the `many_keys`
edge family, and whether their errors depend on exp's argument (tasks/exp_bias.py).

An element-wise bound cannot tell an exp that is off by up to half a percent (a degree-3
polynomial for 2^f) from the bf16 roundings an honest kernel makes: each weight of a
correct kernel may be off by about as much (tasks/README.md). The sign of the error tells
them apart.

`many_keys`: every query sees up to `KEYS` keys that matter (scores within a few units of
its maximum, each a sum of `SCORE_COLS` products of random entries), and each of those
keys has a value that is 1 in a column of its own and 0 elsewhere, so the output in key
j's column is the kernel's weight w_j. The check (`score_margin`): the log-errors
log(w_j / p_j) in units of u, minus their mean over the key's query (which takes out the
normalisation, common to a query's keys) and their straight line in the score, averaged
over the keys in each bin of the fraction of (s_j - max) log2(e), stay within `LIMIT` of
zero.

Measured (100 draws per task on C1, the smallest configurations, with the emulated
kernels of tasks.bf16_kernels): a correct bf16 kernel's largest bin is 0.45 of LIMIT or
less (the fixed pattern of rounding exp of bf16 arguments to bf16, and noise), the
degree-3 Taylor exp's 1.54 or more, the 1% fix-up's 3.04 or more. `python -m
kernelcraft.tasks.calibrate` reports the margins on every configuration.
"""
from __future__ import annotations

import numpy as np

from ..exp_bias import MIN_COUNT as MIN_KEYS, PHASES, phase_margin
from ..tolerance import U

LIMIT = 0.3 * U                 # largest mean log-error of a bin
SCORE_COLS = 4                  # products in a key's score
SPREAD = 1.0                    # the query's entries are within SPREAD sqrt(D)
KEYS = 32                       # keys that matter per query, at most
LOW = (40.0, 100.0)             # the other keys' scores are -LOW: weights below e^-40


def many_keys(d: dict, rng: np.random.Generator, base: dict, causal: bool) -> dict:
    """The family's inputs (see the module's docstring); `base`: a random input set whose
    other columns are kept. The keys that matter lie in one aligned block of 32 (the
    first, for a causal task: early queries see fewer of them)."""
    s, hq, hkv, dh = d["S"], d["Hq"], d["Hkv"], d["D"]
    m = SCORE_COLS
    n = min(dh - 1 - m, KEYS, s)
    start = 0 if causal else 32 * int(rng.integers(0, max(1, s // 32)))
    hot = np.sort(start + rng.choice(min(32, s - start), size=n, replace=False))
    cols = rng.permutation(dh)
    low, col, sc = cols[0], cols[1:n + 1], cols[n + 1:n + 1 + m]
    k = base["k"].reshape(s, hkv, dh).copy()
    k[:, :, cols[:n + 1 + m]] = 0.0
    k[:, :, low] = 1.0
    k[hot, :, low] = 0.0
    # scores are sums of m products of random entries, so that their low bits, and the
    # roundings of a correct kernel, take every value rather than a grid's few
    k[np.ix_(hot, np.arange(hkv), sc)] = rng.uniform(-1.0, 1.0, (n, hkv, m))
    v = base["v"].reshape(s, hkv, dh).copy()
    v[:, :, col] = 0.0
    v[hot] = 0.0
    v[hot, :, col] = 1.0
    q = np.zeros((s, hq, dh))
    q[:, :, low] = -rng.uniform(*LOW, (s, hq)) * np.sqrt(dh)
    q[:, :, sc] = rng.uniform(-1.0, 1.0, (s, hq, m)) * SPREAD * np.sqrt(dh)
    return {"q": q.reshape(s, hq * dh), "k": k.reshape(s, hkv * dh), "v": v.reshape(s, hkv * dh)}


def log_errors(x: dict, d: dict, o: np.ndarray, causal: bool):
    """(residual, score) of every readable key: log(w_j / p_j) minus its query's mean, in
    units of u, and s_j - max (`head_errors`)."""
    s, hq, hkv, dh = d["S"], d["Hq"], d["Hkv"], d["D"]
    q = np.asarray(x["q"], np.float64).reshape(s, hq, dh)
    k = np.asarray(x["k"], np.float64).reshape(s, hkv, dh)
    v = np.asarray(x["v"], np.float64).reshape(s, hkv, dh)
    o = np.asarray(o, np.float64).reshape(s, hq, dh)
    found = []
    for h in range(hq):
        g = h // (hq // hkv)
        sc = (q[:, h] @ k[:, g].T) / np.sqrt(dh)
        if causal:
            sc = np.where(np.arange(s)[None, :] <= np.arange(s)[:, None], sc, -np.inf)
        found.append(head_errors(sc, v[:, g], o[:, h]))
    return tuple(np.concatenate(part) for part in zip(*found))


def head_errors(sc: np.ndarray, v: np.ndarray, o: np.ndarray, readable: np.ndarray | None = None):
    """One head's (residual, score) pairs: scores sc [S, S] (-inf where masked), values v
    [S, D], the kernel's output o [S, D]; `readable` [S, D]: where o can be read (all of
    it if None). A key is readable when its score is within 10 of its query's maximum and
    its value is 1 in one column and 0 elsewhere, a column no other such key uses."""
    s = sc.shape[0]
    none = np.zeros(0), np.zeros(0)
    mx = sc.max(axis=1)
    live = sc > mx[:, None] - 10.0
    keys = np.flatnonzero(live.any(axis=0))
    vk = v[keys]
    one_hot = (np.count_nonzero(vk, axis=1) == 1) & (vk.max(axis=1) == 1.0)
    col = vk.argmax(axis=1)
    if not one_hot.any() or np.unique(col[one_hot]).size < one_hot.sum():
        return none                        # not the family's structure: nothing to read
    ok = live[:, keys] & one_hot[None, :]
    if readable is not None:
        ok &= readable[:, col]
    i, j = np.nonzero(ok)
    if i.size == 0:
        return none
    ex = np.exp(sc - mx[:, None])
    p = ex[i, keys[j]] / ex.sum(axis=1)[i]
    with np.errstate(all="ignore"):
        e = np.log(o[i, col[j]] / p) / U
    mean = np.bincount(i, e, minlength=s) / np.maximum(np.bincount(i, minlength=s), 1)
    return e - mean[i], sc[i, keys[j]] - mx[i]


def score_margin(x: dict, d: dict, o: np.ndarray, causal: bool) -> tuple[float, str]:
    """(largest |mean log-error| of a bin / LIMIT, what it means): above 1 fails."""
    r, sc = log_errors(x, d, o, causal)
    return phase_margin(r, sc, LIMIT / U,
                        "the weights read back from o (log-errors relative to their query's mean)")
