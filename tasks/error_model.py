"""Building blocks of per-element error bounds (float64, from a task's inputs): what
storing a value in bf16 and accumulating a product in fp32 can cost a correct kernel.
Used by the tasks whose bounds follow their own chains (tasks/README.md, "Tolerance
policy")."""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators.numerics import round_bf16

from .tolerance import U

FP32_U = 2.0 ** -24


def half_ulp(m) -> np.ndarray:
    """Half the bf16 spacing of the binade holding magnitude m: the largest error of
    rounding to nearest any value of magnitude at most m. bf16 keeps 8 significant bits,
    so in [2^e, 2^(e+1)) the spacing is 2^(e-7); below 2^-126 (subnormal) it stays 2^-133.
    It is u m at a power of two and about half of that just below the next one."""
    m = np.asarray(m, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        e = np.floor(np.log2(np.where(m > 0, m, 1.0)))
        return np.where(m > 0, np.where(np.isfinite(m), 2.0 ** (np.maximum(e, -126.0) - 8.0), np.inf), 0.0)


def stored(y: np.ndarray, err) -> np.ndarray:
    """The error bound of bf16(y~) against y, for any y~ within `err` of y: the upstream
    error plus the rounding, which is at most half an ulp of |y~| <= |y| + err (`half_ulp`:
    u |y~| where y~'s binade starts, half of that at its top; u |y~| for every y~
    counted up to twice the rounding a correct kernel can make) and at most the distance
    from y~ to bf16(y), a bf16 number within dist(y) + err of it (so an exactly
    representable y that arrives exactly stays exact, as the structured edge cases need)."""
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        # (+ an fp32 ulp: y reaches bf16 through fp32)
        dist = np.abs(round_bf16(y.astype(np.float32)).astype(np.float64) - y) + FP32_U * np.abs(y)
    return err + np.minimum(half_ulp(np.abs(y) + err), dist + err)


def product_error(a: np.ndarray, w: np.ndarray, err_a=None, w_err=None) -> np.ndarray:
    """The error bound of a @ w^T accumulated in fp32 in any order (w [out, in] exact):
    the input errors carried through |w| (|w_err| if given: `merged_twins`), and K 2^-24
    of sum |a w| for the order."""
    k = a.shape[-1]
    out = k * FP32_U * (np.abs(a) @ np.abs(w).T)
    return out if err_a is None else out + np.abs(err_a) @ np.abs(w if w_err is None else w_err).T


def merged_twins(pre_rows: np.ndarray, w: np.ndarray) -> np.ndarray:
    """w [out, F] with the columns of hidden units that have the same weights into their
    pre-activations (the same row of `pre_rows`) summed into one of them and zero for the
    others: a kernel computes one activation, with one error, from the same weights and
    inputs, so the errors of such units reach the output through the sum of their columns
    (which cancel in the MLP read-back families, tasks/level2/activation_bias.py). w
    itself if no two units are alike, as in every random draw."""
    _, first, inverse = np.unique(pre_rows, axis=0, return_index=True, return_inverse=True)
    if first.size == w.shape[1]:
        return w
    merged = np.zeros_like(w)
    np.add.at(merged.T, first[np.asarray(inverse).ravel()], w.T)
    return merged


FN = 2.0 ** -16          # exp, reciprocal and sqrt of the hardware (a few fp32 ulp; aie's tables 2^-17)


def rms_norm_error(x: np.ndarray, gain: np.ndarray, eps: float, dx=0.0) -> np.ndarray:
    """The error bound of rmsnorm(x) * gain for x within `dx` of its value: squares stored
    (or not) in bf16, their mean and r = 1 / sqrt(mean + eps) in fp32 (sqrt and reciprocal
    a few fp32 ulp each), then either bf16(bf16(x r) gain) or bf16(x bf16(r gain)), the
    larger of the two. Rows whose squares and mean are exact give r within fp32 ulps, and
    an x r that is a bf16 number then stays exact (`stored`)."""
    x = np.asarray(x, dtype=np.float64)
    dx = np.broadcast_to(np.asarray(dx, dtype=np.float64), x.shape)
    n = x.shape[-1]
    sq = x * x
    ms = sq.mean(axis=-1, keepdims=True)
    dms = stored(sq, 2 * np.abs(x) * dx + dx * dx).mean(axis=-1, keepdims=True) + (n + 2) * FP32_U * ms
    v = ms + eps
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = dms / v
        er = np.where(ratio < 0.5, 1.0 / np.sqrt(np.maximum(1.0 - ratio, 0.5)) - 1.0, np.inf) + FP32_U + 2 * FN
    r = 1.0 / np.sqrt(v)
    dr = r * er
    g = np.abs(gain)
    t = stored(x * r, np.abs(x) * dr + dx * (r + dr))
    first = stored(x * r * gain, g * t)
    w = stored(np.broadcast_to(r * gain, x.shape), g * dr)
    second = stored(x * r * gain, np.abs(x) * w + dx * (np.abs(r * gain) + w))
    return np.maximum(first, second)


def rope_error(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, heads: int, dx) -> np.ndarray:
    """The error bound of RoPE (tasks/level2/rope.py) on x within `dx`: x cos and
    rotate_half(x) sin stored, and their sum stored."""
    s, width = x.shape
    d = width // heads
    xh, eh = x.reshape(s, heads, d), np.broadcast_to(dx, x.shape).reshape(s, heads, d)
    rot = np.concatenate([-xh[..., d // 2:], xh[..., :d // 2]], axis=-1)
    erot = np.concatenate([eh[..., d // 2:], eh[..., :d // 2]], axis=-1)
    c, sn = cos[:, None, :], sin[:, None, :]
    a = stored(xh * c, eh * np.abs(c))
    b = stored(rot * sn, erot * np.abs(sn))
    return stored(xh * c + rot * sn, a + b).reshape(s, width)
