"""Attention: scaled_dot_product, flash_attention, mha, gqa, mqa.

All five share one definition (`ops.attention`) and differ in heads, causality and
length. Every configuration names S, Hq, Hkv and D, so kernels and templates can
treat them alike.
"""
from __future__ import annotations

import numpy as np

from .. import ops, sampling
from ..core import EdgeCases, Ops, Task, TensorSpec
from ..tolerance import DEEP
from ..level1.rowwise import NEG_MAX

LAYOUT = """\
Tensors are [S, heads*D], row s = token s, head h in columns h*D .. h*D + D - 1."""


def attention_rule(causal: bool, scale: str = "scale = 1/sqrt(D)") -> str:
    mask = ("Causal: query i attends to keys j <= i only (later keys get probability 0)."
            if causal else "Not causal: every query attends to every key.")
    return f"""\
For each query head h with key/value head g = h // (Hq / Hkv):
  scores[i, j] = scale * sum_d q[i, h*D + d] * k[j, g*D + d]      ({scale})
  p[i, :] = softmax_j(scores[i, :])   (subtract the row maximum before exp)
  o[i, h*D + d] = sum_j p[i, j] * v[j, g*D + d]
{mask}"""


def pairs(d: dict, causal: bool) -> int:
    """(query, key) pairs per head that take part in the softmax."""
    s = d["S"]
    return s * (s + 1) // 2 if causal else s * s


def attention_ops(d: dict, causal: bool) -> Ops:
    """QK^T and PV contractions over the live pairs; per live score: max, subtract, sum
    (3) and exp; scale folded into q (1 per q element), normalisation (1 per output
    element), one reciprocal per query row."""
    hq, dh = d["Hq"], d["D"]
    n = pairs(d, causal) * hq
    qo = d["S"] * hq * dh
    return Ops(macs=2 * n * dh, vector=3 * n + 2 * qo, special=n + d["S"] * hq)


class Attention(Task):
    tol = DEEP
    level = 2
    causal = False

    def specs_in(self, d):
        return [TensorSpec("q", (d["S"], d["Hq"] * d["D"]), doc="queries"),
                TensorSpec("k", (d["S"], d["Hkv"] * d["D"]), doc="keys"),
                TensorSpec("v", (d["S"], d["Hkv"] * d["D"]), doc="values")]

    def specs_out(self, d):
        return [TensorSpec("o", (d["S"], d["Hq"] * d["D"]), doc="attention output")]

    def consts(self, d):
        return {"scale": 1.0 / np.sqrt(d["D"]), "neg_max": NEG_MAX, "one": 1.0}

    def make(self, d, rng):
        s, hq, hkv, dh = d["S"], d["Hq"], d["Hkv"], d["D"]
        # scores of standard deviation ~1 (|s| up to ~8), values sharing a mean direction
        return {"q": sampling.activations(rng, (s, hq * dh), offset=0.3, spread=1.5),
                "k": sampling.activations(rng, (s, hkv * dh), offset=0.3, spread=1.5),
                "v": sampling.shared_mean(rng, sampling.activations(rng, (s, hkv * dh)))}

    def edges(self, d, rng) -> EdgeCases:
        """Scores stay within |s| < ~10: bf16 scores carry an absolute error of |s| * 2^-9,
        which exp turns into a relative error, so larger scores are ill-posed in bf16."""
        s, hq, hkv, dh = d["S"], d["Hq"], d["Hkv"], d["D"]
        base = self.make(d, rng)
        # each query head points at one key: a unit direction with score gap ~8
        k = rng.standard_normal((s, hkv, dh))
        k /= np.linalg.norm(k, axis=-1, keepdims=True)
        target = rng.integers(0, s, s)
        if self.causal:
            target = (rng.random(s) * (np.arange(s) + 1)).astype(int)   # a key j <= i
        group = hq // hkv
        q = np.repeat(k[target], group, axis=1) * 8.0 * np.sqrt(dh)
        peaked = {"q": q.reshape(s, hq * dh), "k": k.reshape(s, hkv * dh), "v": base["v"]}
        same_k = {**base, "k": np.broadcast_to(base["k"][:1], base["k"].shape).copy()}
        outliers = {**base, "v": sampling.outlier_features(rng, base["v"], factor=16.0)}
        return [("peaked_attention", peaked), ("identical_keys", same_k), ("outlier_values", outliers),
                ("spiked_scores", self.spiked(d, rng, base))]

    def spiked(self, d, rng, base) -> dict:
        """A few keys at random positions (any tile), each with its own key dimension;
        every query aims at two of the keys it sees (one if it sees one), scoring them
        A = +140..+200 and A - 20..40, and the others exactly 0. exp overflows unless the
        kernel subtracts the maximum over all the keys the query sees, and a kernel that
        clamps exp's argument instead gives both spikes the same weight. The gap keeps the
        case well-posed in bf16 (a score near 200 is off by up to ~1 after rounding, which
        moves the second key's weight e^-20 or less by a factor e): a query's output is its
        larger spike's value (uniform attention if it sees no spike)."""
        s, hq, hkv, dh = d["S"], d["Hq"], d["Hkv"], d["D"]
        n = min(dh, 8, s - 1)
        hot = rng.choice(np.arange(1, s), size=n, replace=False)
        col = rng.choice(dh, size=n, replace=False)
        k = base["k"].reshape(s, hkv, dh).copy()
        k[:, :, col] = 0.0
        k[hot, :, col] = 1.0
        q = np.zeros((s, hq, dh))
        top = rng.uniform(140.0, 200.0, s)
        gap = rng.uniform(20.0, 40.0, s)
        for i in range(s):
            seen = np.flatnonzero(hot <= i) if self.causal else np.arange(n)
            for h in range(hq):
                aim = rng.choice(seen, size=min(2, seen.size), replace=False)
                for a, score in zip(aim, (top[i], top[i] - gap[i])):
                    q[i, h, col[a]] = score * np.sqrt(dh)
        return {"q": q.reshape(s, hq * dh), "k": k.reshape(s, hkv * dh), "v": base["v"]}

    def compute(self, x, d):
        o = ops.attention(x["q"], x["k"], x["v"], d["Hq"], d["Hkv"], 1.0 / np.sqrt(d["D"]), self.causal)
        return {"o": o}

    def ops(self, d):
        return attention_ops(d, self.causal)


def describe(what: str, causal: bool) -> str:
    return f"""\
{what}
{LAYOUT}
{attention_rule(causal)}
Inputs q [S, Hq*D], k [S, Hkv*D], v [S, Hkv*D], bf16; output o [S, Hq*D] bf16.
Accumulate matrix products in fp32; scores and probabilities may be stored in bf16.
Constants: scale = 1/sqrt(D), neg_max = lowest finite fp32 (running maximum / masked score), one = 1.0."""


class ScaledDotProduct(Attention):
    name = "scaled_dot_product"
    title = "Scaled dot-product attention (one head)"
    description = describe("o = softmax(q k^T / sqrt(D)) v for a single head (Hq = Hkv = 1), not causal.", False)
    configs = {
        "C1": {"S": 64, "Hq": 1, "Hkv": 1, "D": 32},
        "C2": {"S": 64, "Hq": 1, "Hkv": 1, "D": 64},
        "C3": {"S": 128, "Hq": 1, "Hkv": 1, "D": 64},
        "C4": {"S": 256, "Hq": 1, "Hkv": 1, "D": 32},
        "C5": {"S": 256, "Hq": 1, "Hkv": 1, "D": 64},
        "H1": {"S": 320, "Hq": 1, "Hkv": 1, "D": 64},
    }


class FlashAttention(Attention):
    name = "flash_attention"
    title = "Causal attention over long sequences (one head)"
    causal = True
    description = describe(
        "o = softmax(q k^T / sqrt(D) + causal mask) v for a single head (Hq = Hkv = 1) over long\n"
        "sequences: the S x S scores of the larger configurations (up to 1024 x 1024) are too large to\n"
        "keep on chip, so process keys in blocks with a running maximum and sum (online softmax).", True)
    configs = {
        "C1": {"S": 128, "Hq": 1, "Hkv": 1, "D": 64},
        "C2": {"S": 256, "Hq": 1, "Hkv": 1, "D": 64},
        "C3": {"S": 512, "Hq": 1, "Hkv": 1, "D": 64},
        "C4": {"S": 768, "Hq": 1, "Hkv": 1, "D": 64},
        "C5": {"S": 1024, "Hq": 1, "Hkv": 1, "D": 64},
        "H1": {"S": 704, "Hq": 1, "Hkv": 1, "D": 32},
    }


class Mha(Attention):
    name = "mha"
    title = "Multi-head attention"
    description = describe("Multi-head attention with Hq = Hkv heads (each head attends on its own), not causal.", False)
    configs = {
        "C1": {"S": 64, "Hq": 2, "Hkv": 2, "D": 32},
        "C2": {"S": 64, "Hq": 4, "Hkv": 4, "D": 16},
        "C3": {"S": 128, "Hq": 4, "Hkv": 4, "D": 32},
        "C4": {"S": 128, "Hq": 8, "Hkv": 8, "D": 64},
        "C5": {"S": 256, "Hq": 8, "Hkv": 8, "D": 64},
        "H1": {"S": 192, "Hq": 6, "Hkv": 6, "D": 32},
    }


class Gqa(Attention):
    name = "gqa"
    title = "Grouped-query attention"
    causal = True
    description = describe(
        "Grouped-query attention: Hq query heads share Hkv key/value heads in contiguous groups of\n"
        "Hq/Hkv (query heads g*Hq/Hkv .. (g+1)*Hq/Hkv - 1 use key/value head g), causal.", True)
    configs = {
        "C1": {"S": 64, "Hq": 4, "Hkv": 2, "D": 32},
        "C2": {"S": 128, "Hq": 8, "Hkv": 2, "D": 32},
        "C3": {"S": 128, "Hq": 8, "Hkv": 4, "D": 64},
        "C4": {"S": 256, "Hq": 8, "Hkv": 2, "D": 64},
        "C5": {"S": 256, "Hq": 16, "Hkv": 4, "D": 64},
        "H1": {"S": 192, "Hq": 12, "Hkv": 4, "D": 32},
    }


class Mqa(Attention):
    name = "mqa"
    title = "Multi-query attention"
    causal = True
    description = describe("Multi-query attention: all Hq query heads share one key/value head (Hkv = 1), causal.", True)
    configs = {
        "C1": {"S": 64, "Hq": 2, "Hkv": 1, "D": 64},
        "C2": {"S": 128, "Hq": 4, "Hkv": 1, "D": 64},
        "C3": {"S": 128, "Hq": 8, "Hkv": 1, "D": 64},
        "C4": {"S": 256, "Hq": 8, "Hkv": 1, "D": 64},
        "C5": {"S": 256, "Hq": 16, "Hkv": 1, "D": 64},
        "H1": {"S": 192, "Hq": 6, "Hkv": 1, "D": 64},
    }
