"""The error model of a correct bf16 attention kernel: a per-element bound on |o - r|.

The chain (tasks/README.md, "Tolerance policy"): scores s = scale q.k stored in bf16
(q may be scaled and stored first, or the product scaled after: either costs at most
u |s| + u scale sum_d |q_d k_d|); the argument z = s - m stored in bf16 (u |z|); the
weight e = exp(z) stored in bf16 (u of itself, and exp is accurate to a few fp32 ulp).
An error eta_j of the weight of key j (relative) moves the output by
sum_j p_j eta_j (v_j - o), so with |eta_j| <= E_j the output is off by at most
sum_j p_j E_j |v_j - o| (the "weights" term). P @ V accumulates in fp32; the product,
the normalisation and the output are stored in bf16 (rtol 3u of the task's Tolerance).
A kernel that keeps a running accumulator in bf16 (online softmax) rounds the partial
output once per key block: the "blocks" term below allows that for blocks of BLOCK keys
or more, counting a block's rounding only where its running output changes (a block of
negligible weight that leaves the running maximum alone adds nothing).

This is a worst case of aligned roundings, computed in float64 from the inputs; a
kernel that keeps more in fp32 is more accurate.
"""
from __future__ import annotations

import numpy as np

from ..error_model import FN
from ..tolerance import U

BLOCK = 32               # the smallest key block of a running bf16 accumulator allowed for
CHUNK = 1 << 19          # elements of |v_j - o_i| per step of the S x S x D weights term (4 MB)


def head_bound(qh, kh, vh, scale: float, causal: bool, bias=None, errs=None) -> np.ndarray:
    """The allowance of one head's output o [S, D] (float64 inputs). `errs`: bounds
    (dq, dk, dv) of errors the inputs already carry (a decoder block's projections); a
    score off by ds moves its weight by expm1(ds) of itself, a value's error reaches the
    output through p."""
    s_len = qh.shape[0]
    s = scale * (qh @ kh.T)
    a = scale * (np.abs(qh) @ np.abs(kh).T)
    if bias is not None:
        a = a + np.abs(s) + np.abs(bias)        # the product stored before the bias is added
        s = s + bias
    # (without a mask every pair is live: the selections by `live` are left out, which
    # changes no value)
    live = np.tri(s_len, kh.shape[0], dtype=bool) if causal else None
    if causal:
        s = np.where(live, s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    z = s - m
    e = np.exp(z)
    if causal:
        e = np.where(live, e, 0.0)
    p = e / e.sum(axis=-1, keepdims=True)
    o = p @ vh
    with np.errstate(invalid="ignore", over="ignore"):
        E = np.abs(s)                   # U (|s| + a + |s - m| + 1) + FN, summed in that order
        E += a
        E += np.abs(z, out=z)
        E += 1.0
        E *= U
        E += FN
        if causal:
            E = np.where(live, E, 0.0)
        if errs is not None:
            dq, dk, _ = errs
            ds = scale * (dq @ np.abs(kh).T + np.abs(qh) @ dk.T + dq @ dk.T)
            grow = np.expm1(ds * (1 + U))
            E = E + (np.where(live, grow, 0.0) if causal else grow)
    pe = p * E
    weights = np.empty_like(o)
    # |v_j - o_i| of a few queries at a time in one reused buffer (no page faults, mostly
    # in cache); the products are summed per query, so the bits do not depend on how many
    rows = min(max(1, CHUNK // vh.size), s_len)
    buf = np.empty((rows,) + vh.shape)
    for i in range(0, s_len, rows):
        dv = buf[:min(rows, s_len - i)]                                # [c, S, D]
        np.subtract(vh[None, :, :], o[i:i + rows, None, :], out=dv)
        np.abs(dv, out=dv)
        weights[i:i + rows] = np.einsum("cj,cjd->cd", pe[i:i + rows], dv, optimize=True)
    out = weights + blocks_term(s, p, vh) + FN * (p @ np.abs(vh))
    return out if errs is None else out + p @ errs[2]


def blocks_term(s, p, vh) -> np.ndarray:
    """Roundings of a running bf16 accumulator, once per key block of BLOCK keys: the
    block's product (u |P_b|), the rescaled accumulator where the running maximum moved
    (u |A_{b-1}|), and the sum (u |A_b|, or no more than the change itself: the old value
    is a bf16 number next to the new one)."""
    n = s.shape[1]
    total = np.zeros((s.shape[0], vh.shape[1]))
    prev = np.zeros_like(total)
    run_max = np.full((s.shape[0], 1), -np.inf)
    for j in range(0, n, BLOCK):
        part = p[:, j:j + BLOCK] @ vh[j:j + BLOCK]
        bmax = s[:, j:j + BLOCK].max(axis=-1, keepdims=True)
        moved = bmax > run_max
        run_max = np.maximum(run_max, bmax)
        acc = prev + part
        rescale = np.where(moved, U * np.abs(prev), 0.0)
        total += U * np.abs(part) + rescale + np.minimum(U * np.abs(acc), (1 + U) * np.abs(part) + rescale)
        prev = acc
    return total


def attention_bound(q, k, v, hq: int, hkv: int, scale: float, causal: bool, bias=None,
                    errs=None) -> np.ndarray:
    """The weights and blocks terms of every head, [S, Hq*D] (see the module doc); with
    `errs` (dq, dk, dv, the inputs' error bounds), their effect too."""
    s_len, d = q.shape[0], q.shape[1] // hq
    group = hq // hkv
    out = np.empty((s_len, hq * d))
    for h in range(hq):
        g = h // group
        qh, kh, vh = (t[:, c * d:(c + 1) * d] for t, c in ((q, h), (k, g), (v, g)))
        part = None if errs is None else tuple(e[:, c * d:(c + 1) * d] for e, c in zip(errs, (h, g, g)))
        out[:, h * d:(h + 1) * d] = head_bound(qh, kh, vh, scale, causal,
                                               None if bias is None else bias[h], part)
    return out
