"""Attention: scaled_dot_product, flash_attention, mha, gqa, mqa.

All five share one definition (`ops.attention`) and differ in heads, causality and
length. Every configuration names S, Hq, Hkv and D, so kernels and templates can
treat them alike.
"""
from __future__ import annotations

import numpy as np

from .. import ops, sampling
from ..core import EdgeCases, Ops, Task, TensorSpec
from ..tolerance import U, Tolerance
from .attention_error import attention_bound
from .weight_bias import KEYS, LIMIT, MIN_KEYS, PHASES, many_keys, score_margin
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
    tol = Tolerance(3 * U, 2.0 ** -16, basis="P @ V accumulated in fp32, the product, the normalisation and the "
                    "output each stored in bf16 (rtol 3u), plus an allowance from the inputs: the bf16 score, "
                    "argument s - max and weight move each weight by up to u (abs(s) + scale sum_d abs(q_d k_d) + "
                    "abs(s - max) + 1), which moves o by sum_j p_j E_j abs(v_j - o), and a running bf16 accumulator "
                    "rounds once per block of 32 keys or more (tasks/level2/attention_error.py)")
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
                ("spiked_scores", self.spiked(d, rng, base)), ("two_keys", self.two_keys(d, rng, base)),
                ("many_keys", many_keys(d, rng, base, self.causal))]

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

    def two_keys(self, d, rng, base) -> dict:
        """Every query sees two keys that matter: one at score 0 and one at -g, g drawn
        from 0.02..0.75 per query (all fractions of g log2(e), where approximate exps are
        off by different amounts), the others at -40..-100 (weight below e^-40). Values
        of the first kind of key are +1, of the second -r_d, with r_d spread over
        1..e^0.8 across the head's columns, so that some column of every query has an
        output near 0 and an error of the second key's weight shows undamped: with exact
        scores and no averaging over keys, an exp that is off by 1-6% moves it by several
        times what the roundings of a correct kernel can (the scale 1/sqrt(D) and a
        score -g stay exact for D = 16, 64, within 2u g for D = 32). The keys that matter
        lie in one aligned block of 32 in the first half of the sequence."""
        s, hq, hkv, dh = d["S"], d["Hq"], d["Hkv"], d["D"]
        n = min(dh - 1, 8)
        # all in one aligned block of 32 keys, so that a running bf16 accumulator sees the
        # pair's output (near 0) change once, not each key's large value
        start = 32 * int(rng.integers(0, max(1, s // 64)))
        hot = start + rng.choice(32, size=n, replace=False)
        cols = rng.choice(dh, size=n + 1, replace=False)
        low, col = cols[0], cols[1:]
        first = np.zeros(n, dtype=bool)
        first[rng.choice(n, size=n // 2, replace=False)] = True
        k = base["k"].reshape(s, hkv, dh).copy()
        k[:, :, cols] = 0.0
        k[:, :, low] = 1.0
        k[hot, :, low] = 0.0
        k[hot, :, col] = 1.0
        r = np.exp(0.8 * (rng.permutation(dh) + rng.random(dh)) / dh)
        v = base["v"].reshape(s, hkv, dh).copy()
        v[hot[first]] = 1.0
        v[hot[~first]] = -r
        q = np.zeros((s, hq, dh))
        q[:, :, cols] = -rng.uniform(40.0, 100.0, (s, hq, 1)) * np.sqrt(dh)    # every key low ...
        g = rng.uniform(0.02, 0.75, (s, hq))
        for i in range(s):
            seen = hot <= i if self.causal else np.ones(n, dtype=bool)
            for h in range(hq):
                for kind, score in ((first, 0.0), (~first, -g[i, h])):
                    pick = np.flatnonzero(seen & kind)
                    if pick.size:
                        q[i, h, col[rng.choice(pick)]] = score * np.sqrt(dh)    # ... but two
        return {"q": q.reshape(s, hq * dh), "k": k.reshape(s, hkv * dh), "v": v.reshape(s, hkv * dh)}

    def family_check(self, family, x, d, outputs):
        return score_margin(x, d, outputs["o"], self.causal) if family == "many_keys" else None

    def family_rules(self, d):
        return [f"On the edge case `many_keys` (every query sees up to {KEYS} keys within a few units of its "
                f"maximum score, each with a value that is 1 in a column of its own), o[i, that column] is "
                f"the weight the kernel gave the key; grouped by the fraction of (s - max) log2(e) into "
                f"{PHASES} bins, the weights' log-errors (minus their query's mean) must average within "
                f"{LIMIT / U:.2f}u of 0 in every bin of {MIN_KEYS} keys or more: roundings err both ways, an "
                f"approximate exp does not (tasks/level2/weight_bias.py)."]

    def error_allowance(self, x, d, output):
        return attention_bound(x["q"], x["k"], x["v"], d["Hq"], d["Hkv"], 1.0 / np.sqrt(d["D"]), self.causal)

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
