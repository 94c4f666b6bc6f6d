"""Transformer decoder blocks: decoder_block_llama and decoder_block_t5 (pre-norm)."""
from __future__ import annotations

import numpy as np

from .. import ops, sampling
from ..core import EdgeCases, Ops, Task, TensorSpec
from ..tolerance import DEEP, U, Tolerance, rms
from ..level1.rowwise import NEG_MAX
from ..level2.activation_bias import NEAR_ZERO, PRODUCTS, read_pairs, twin_down, twins
from ..level2.attention import LAYOUT, attention_ops
from ..level2.mlp import many_units_rules, read_back
from ..level2.weight_bias import KEYS, LIMIT, LOW, MIN_KEYS, PHASES, SCORE_COLS, head_errors
from ..exp_bias import phase_margin
from ..level2.rope import ROPE_RULE
from .decoder_error import block_error

BLOCK_NOTES = """\
Weights use the PyTorch layout [out, in] (a @ w^T). Accumulate matrix products in fp32;
intermediates (normalised activations, q/k/v, scores, probabilities, hidden states) may be
stored in bf16; keep row statistics (sums of squares, maxima, sums) in fp32."""


def block_specs(d: dict, ffn: list[TensorSpec], extra: list[TensorSpec]) -> list[TensorSpec]:
    s, dm = d["S"], d["Dm"]
    return [TensorSpec("x", (s, dm), doc="residual stream in"),
            TensorSpec("attn_norm", (dm,), doc="RMSNorm gain before attention"),
            TensorSpec("wq", (dm, dm), doc="query projection [H*D, Dm]"),
            TensorSpec("wk", (dm, dm), doc="key projection [H*D, Dm]"),
            TensorSpec("wv", (dm, dm), doc="value projection [H*D, Dm]"),
            TensorSpec("wo", (dm, dm), doc="output projection [Dm, H*D]"),
            TensorSpec("ffn_norm", (dm,), doc="RMSNorm gain before the FFN"),
            *ffn, *extra]


def check_heads(configs: dict) -> dict:
    for name, d in configs.items():
        assert d["H"] * d["D"] == d["Dm"], f"config {name}: H*D must equal Dm"
    return configs


# rtol u for the output's store, atol a floor; the allowance is the smaller of the deep-chain
# bound's remainder and the composed chain (`decoder_error.block_error`).
BLOCK_TOL = Tolerance(U, 2.0 ** -16, basis=(
    "the output stored in bf16 (rtol 1u) plus the smaller of two allowances: the deep-chain bound "
    f"({DEEP.describe()}, bf16 storage of every intermediate: tails ~3% of rms) and the chain of the block's "
    "parts composed from the inputs (rmsnorm, the projections, RoPE, attention, the residual, the FFN: "
    "tasks/level3/decoder_error.py), which is the tighter where the block's intermediates are exact"))


def block_allowance(task, x: dict, d: dict) -> np.ndarray:
    r = task.compute(x, d)["y"]
    deep = (DEEP.rtol - BLOCK_TOL.rtol) * np.abs(r) + (DEEP.atol_scale - BLOCK_TOL.atol_scale) * rms(r)
    return np.minimum(deep, block_error(x, d, task.name == "decoder_block_llama", task.eps))


# Rows whose squares and mean are exact (every value k/8 with at most 4 significant bits, so
# its square is a bf16 number): the sum of squares is Dm, rmsnorm divides by sqrt(1 + eps),
# and x r rounds back to x. Fillers take the columns the structure leaves free.
FILL = (2.0, 1.0, 0.5, 0.25, 0.125)


def unit_rows(rng, carriers: np.ndarray, cols: list[int], dm: int, fill=FILL) -> np.ndarray:
    """Rows [S, dm] with `carriers[:, i]` in column cols[i] and a sum of squares of exactly
    dm: the rest from `fill` (FILL: squares 4 .. 1/64, random signs and columns)."""
    s = carriers.shape[0]
    x = np.zeros((s, dm))
    free = np.setdiff1d(np.arange(dm), cols)
    for i in range(s):
        x[i, cols] = carriers[i]
        rest = dm - float(np.sum(carriers[i] ** 2))
        vals = []
        for f in fill:
            n = int(rest // (f * f))
            vals += [f] * n
            rest -= n * f * f
        assert rest == 0 and len(vals) <= free.size, (rest, len(vals))
        at = rng.choice(free, size=len(vals), replace=False)
        x[i, at] = np.asarray(vals) * rng.choice([-1.0, 1.0], size=len(vals))
    return x


# Gate pre-activations -m/8 for the m in 4..32 with at most 4 significant bits (odd part < 16).
FOUR_BITS = np.array([m for m in range(4, 33) if m // (m & -m) < 16])


def block_edges(base: dict, rng) -> list[tuple[str, dict]]:
    x = base["x"]
    return [("outlier_features", {**base, "x": sampling.outlier_features(rng, x, factor=16.0)}),
            ("repeated_tokens", {**base, "x": np.broadcast_to(x[:1], x.shape).copy()})]


class DecoderBlockLlama(Task):
    tol = BLOCK_TOL
    name = "decoder_block_llama"
    level = 3
    title = "LLaMA decoder block"
    eps = 1e-5
    description = f"""\
One pre-norm LLaMA decoder layer on x [S, Dm] (Dm = H*D; row s = token at position p0 + s):
  h  = rmsnorm(x) * attn_norm           rmsnorm(z) = z / sqrt(mean(z^2 over the row) + eps), eps = 1e-5
  q  = rope(h @ wq^T),  k = rope(h @ wk^T),  v = h @ wv^T
  a  = causal multi-head attention(q, k, v) with H heads of size D, scale 1/sqrt(D)
  x2 = x + a @ wo^T
  g  = rmsnorm(x2) * ffn_norm
  y  = x2 + (silu(g @ w_gate^T) * (g @ w_up^T)) @ w_down^T,   silu(z) = z / (1 + exp(-z))
RoPE, applied to q and k (x below stands for q or k):
{ROPE_RULE}
Attention: query i attends to keys j <= i; scores = q_h k_h^T / sqrt(D), softmax over keys
(subtract the row maximum), a_h = P v_h.
{LAYOUT}
{BLOCK_NOTES}
Inputs x [S, Dm], attn_norm [Dm], wq/wk/wv/wo [Dm, Dm], ffn_norm [Dm], w_gate [F, Dm], w_up [F, Dm],
w_down [Dm, F], cos [S, D], sin [S, D], bf16; output y [S, Dm] bf16.
Constants: eps = 1e-5, inv_dm = 1/Dm, scale = 1/sqrt(D), neg_max = lowest finite fp32, one = 1.0, neg_one = -1.0."""
    configs = check_heads({
        "C1": {"S": 64, "Dm": 64, "H": 2, "D": 32, "F": 128},
        "C2": {"S": 64, "Dm": 128, "H": 2, "D": 64, "F": 256},
        "C3": {"S": 128, "Dm": 128, "H": 4, "D": 32, "F": 384},
        "C4": {"S": 128, "Dm": 256, "H": 4, "D": 64, "F": 512},
        "C5": {"S": 256, "Dm": 256, "H": 4, "D": 64, "F": 512},
        "H1": {"S": 192, "Dm": 192, "H": 6, "D": 32, "F": 512},
    })

    def specs_in(self, d):
        s, dm, f, dh = d["S"], d["Dm"], d["F"], d["D"]
        ffn = [TensorSpec("w_gate", (f, dm), doc="gate projection"),
               TensorSpec("w_up", (f, dm), doc="up projection"),
               TensorSpec("w_down", (dm, f), doc="down projection")]
        tables = [TensorSpec("cos", (s, dh), doc="RoPE cos table"), TensorSpec("sin", (s, dh), doc="RoPE sin table")]
        return block_specs(d, ffn, tables)

    def specs_out(self, d):
        return [TensorSpec("y", (d["S"], d["Dm"]), doc="residual stream out")]

    def consts(self, d):
        return {"eps": self.eps, "inv_dm": 1.0 / d["Dm"], "scale": 1.0 / np.sqrt(d["D"]),
                "neg_max": NEG_MAX, "one": 1.0, "neg_one": -1.0}

    def make(self, d, rng):
        s, dm, f, dh = d["S"], d["Dm"], d["F"], d["D"]
        cos, sin = sampling.rope_tables(rng, s, dh)
        return {"x": sampling.activations(rng, (s, dm)),
                "attn_norm": sampling.gains(rng, dm),
                "wq": sampling.weights(rng, dm, dm), "wk": sampling.weights(rng, dm, dm),
                "wv": sampling.weights(rng, dm, dm), "wo": sampling.weights(rng, dm, dm),
                "ffn_norm": sampling.gains(rng, dm),
                "w_gate": sampling.weights(rng, f, dm), "w_up": sampling.weights(rng, f, dm),
                "w_down": sampling.weights(rng, dm, f, gain=2.0),
                "cos": cos, "sin": sin}

    def edges(self, d, rng) -> EdgeCases:
        base = self.make(d, rng)
        cos, sin = sampling.rope_tables_at(int(rng.integers(30000, 60000)), d["S"], d["D"])
        return block_edges(base, rng) + [("far_positions", {**base, "cos": cos, "sin": sin}),
                                         ("coherent_hidden", self.coherent(d, rng, base)),
                                         ("many_units", self.many_units(d, rng, base)),
                                         ("units_near_zero", self.many_units(d, rng, base, near_zero=True))]

    def many_units(self, d, rng, base, near_zero: bool = False) -> dict:
        """swiglu's `many_units` inside the block: the output projection is zero, so x2 = x;
        x's rows are `unit_rows` carrying a column of ones (c) and `PRODUCTS` columns of
        multiples of 1/8, so rmsnorm leaves them as they are (to eps), and 0 in half of the
        other columns (R). The hidden units come in pairs with the same gate (an offset on
        column c plus products of those columns and random weights) and up projection (2^k
        on column c), and the down projection (`twin_down`) takes one pair's activation to
        each column in R and cancels every other pair: y[:, R] is the kernel's silu times
        up times the pair's m, and the other columns are x. Gate pre-activations about
        -2.6..-0.2, or with `near_zero` (`units_near_zero`) offsets and weights within 0.1
        (NEAR_ZERO): about -0.2..0.2."""
        s, dm, f = d["S"], d["Dm"], d["F"]
        order = rng.permutation(dm)
        cols, outs = order[:PRODUCTS + 1], np.sort(order[PRODUCTS + 1:PRODUCTS + 1 + dm // 2])
        c, k = cols[0], cols[1:]
        carriers = np.concatenate([np.ones((s, 1)), rng.integers(-6, 7, (s, PRODUCTS)) / 8.0,
                                   np.zeros((s, outs.size))], axis=1)
        x = unit_rows(rng, carriers, [int(v) for v in np.concatenate([cols, outs])], dm)
        gain = base["ffn_norm"].copy()
        gain[cols] = 1.0
        wg, wu = np.zeros((f, dm)), np.zeros((f, dm))
        offsets, spread = ((-NEAR_ZERO[0], NEAR_ZERO[0]), NEAR_ZERO[1]) if near_zero else ((-2.0, -0.8), 0.6)
        wg[:, c] = rng.uniform(*offsets, f)
        wg[:, k] = rng.uniform(-spread, spread, (f, PRODUCTS))
        wu[:, c] = 2.0 ** rng.integers(-1, 3, f)
        first, second = twins(rng, f)
        wg[second], wu[second] = wg[first], wu[first]
        wd = twin_down(rng, dm, f, first, second, outs, gain=2.0)
        return {**base, "x": x, "ffn_norm": gain, "wo": np.zeros((dm, dm)), "w_gate": wg, "w_up": wu,
                "w_down": wd}

    def family_check(self, family, x, d, outputs):
        check = read_back(family)
        found = check and not x["wo"].any() and read_pairs(np.column_stack([x["w_gate"], x["w_up"]]), x["w_down"])
        if not found:
            return None                    # not the family's structure: nothing to read
        unit, out, m = found
        g = ops.rms_norm(x["x"], x["ffn_norm"], self.eps)
        up = g @ x["w_up"][unit].T
        live = (x["x"][:, out] == 0) & (up != 0)
        y = np.asarray(outputs["y"], np.float64).reshape(d["S"], d["Dm"])[:, out] / m
        return check((g @ x["w_gate"][unit].T)[live], y[live] / up[live], "silu",
                     "the activations read back from y / up")

    def family_rules(self, d):
        return [r.replace("(the hidden units come in pairs", "(the output projection is zero, y's column j "
                          "is x's where x is 0 plus the pair's, and the hidden units come in pairs")
                for r in many_units_rules("silu")]

    def coherent(self, d, rng, base) -> dict:
        """swiglu's `coherent_hidden` inside the block: the output projection is zero, so
        x2 = x exactly; x's rows are `unit_rows`, so rmsnorm leaves them exact; column c
        carries the gate pre-activation z_s (-4..-0.5, a multiple of 1/8) of every hidden
        unit of token s, column c1 is 1 and feeds the up projection (positive), and the
        down projection is positive: an approximate exp in SiLU moves every output of the
        token by the same relative amount instead of averaging out."""
        s, dm, f = d["S"], d["Dm"], d["F"]
        c, c1 = (int(v) for v in rng.choice(dm, size=2, replace=False))
        z = -rng.choice(FOUR_BITS, size=s) / 8.0
        x = unit_rows(rng, np.stack([z, np.ones(s)], axis=1), [c, c1], dm)
        gain = base["ffn_norm"].copy()
        gain[[c, c1]] = 1.0
        wg, wu = np.zeros((f, dm)), np.zeros((f, dm))
        wg[:, c] = 1.0
        wu[:, c1] = 4.0 * np.abs(base["w_up"][:, c1]) * np.sqrt(dm) + 2.0
        return {**base, "x": x, "ffn_norm": gain, "wo": np.zeros((dm, dm)), "w_gate": wg, "w_up": wu,
                "w_down": np.abs(base["w_down"])}

    def error_allowance(self, x, d, output):
        return block_allowance(self, x, d)

    def compute(self, x, d):
        h = ops.rms_norm(x["x"], x["attn_norm"], self.eps)
        q = ops.rope(h @ x["wq"].T, x["cos"], x["sin"], d["H"])
        k = ops.rope(h @ x["wk"].T, x["cos"], x["sin"], d["H"])
        a = ops.attention(q, k, h @ x["wv"].T, d["H"], d["H"], 1.0 / np.sqrt(d["D"]), causal=True)
        x2 = x["x"] + a @ x["wo"].T
        g = ops.rms_norm(x2, x["ffn_norm"], self.eps)
        return {"y": x2 + (ops.silu(g @ x["w_gate"].T) * (g @ x["w_up"].T)) @ x["w_down"].T}

    def ops(self, d):
        s, dm, f = d["S"], d["Dm"], d["F"]
        att = attention_ops({"S": s, "Hq": d["H"], "Hkv": d["H"], "D": d["D"]}, causal=True)
        # 2 rmsnorms (4 per element), rope on q and k (3 each), 2 residual adds, swiglu (3 per hidden)
        return Ops(macs=4 * s * dm * dm + att.macs + 3 * s * dm * f,
                   vector=8 * s * dm + 6 * s * dm + att.vector + 2 * s * dm + 3 * s * f,
                   special=4 * s + att.special + 2 * s * f)


class DecoderBlockT5(Task):
    tol = BLOCK_TOL
    name = "decoder_block_t5"
    level = 3
    title = "T5 decoder block (self-attention and FFN)"
    eps = 1e-6
    description = f"""\
One pre-norm T5 decoder layer on x [S, Dm] (Dm = H*D), self-attention and feed-forward sub-layers
(the cross-attention sub-layer is not part of this task):
  h  = rmsnorm(x) * attn_norm           rmsnorm(z) = z / sqrt(mean(z^2 over the row) + eps), eps = 1e-6
  q  = h @ wq^T,  k = h @ wk^T,  v = h @ wv^T
  a  = causal multi-head attention with H heads of size D, NO 1/sqrt(D) scaling, plus the position bias:
       scores_h[i, j] = q_h[i] . k_h[j] + bias[h, i, j] for j <= i (keys j > i are masked out),
       P_h = softmax over j (subtract the row maximum),  a_h = P_h v_h
  x2 = x + a @ wo^T
  g  = rmsnorm(x2) * ffn_norm
  y  = x2 + relu(g @ w_in^T) @ w_out^T
{LAYOUT}
bias [H, S, S] is the relative position bias (already expanded from T5's buckets).
{BLOCK_NOTES}
Inputs x [S, Dm], attn_norm [Dm], wq/wk/wv/wo [Dm, Dm], ffn_norm [Dm], w_in [F, Dm], w_out [Dm, F],
bias [H, S, S], bf16; output y [S, Dm] bf16.
Constants: eps = 1e-6, inv_dm = 1/Dm, neg_max = lowest finite fp32, one = 1.0."""
    configs = check_heads({
        "C1": {"S": 64, "Dm": 64, "H": 2, "D": 32, "F": 256},
        "C2": {"S": 64, "Dm": 128, "H": 2, "D": 64, "F": 256},
        "C3": {"S": 128, "Dm": 128, "H": 4, "D": 32, "F": 512},
        "C4": {"S": 128, "Dm": 256, "H": 4, "D": 64, "F": 512},
        "C5": {"S": 256, "Dm": 256, "H": 4, "D": 64, "F": 768},
        "H1": {"S": 192, "Dm": 192, "H": 6, "D": 32, "F": 448},
    })

    def specs_in(self, d):
        s, dm, f = d["S"], d["Dm"], d["F"]
        ffn = [TensorSpec("w_in", (f, dm), doc="FFN input projection"),
               TensorSpec("w_out", (dm, f), doc="FFN output projection")]
        return block_specs(d, ffn, [TensorSpec("bias", (d["H"], s, s), doc="relative position bias per head")])

    def specs_out(self, d):
        return [TensorSpec("y", (d["S"], d["Dm"]), doc="residual stream out")]

    def consts(self, d):
        return {"eps": self.eps, "inv_dm": 1.0 / d["Dm"], "neg_max": NEG_MAX, "one": 1.0}

    def make(self, d, rng, bias_scale: float = 1.0):
        s, dm, f, dh = d["S"], d["Dm"], d["F"], d["D"]
        # T5 folds 1/sqrt(D) into the query weights' initialisation instead of the scores.
        return {"x": sampling.activations(rng, (s, dm)),
                "attn_norm": sampling.gains(rng, dm),
                "wq": sampling.weights(rng, dm, dm, gain=1.0 / np.sqrt(dh)),
                "wk": sampling.weights(rng, dm, dm),
                "wv": sampling.weights(rng, dm, dm), "wo": sampling.weights(rng, dm, dm),
                "ffn_norm": sampling.gains(rng, dm),
                "w_in": sampling.weights(rng, f, dm), "w_out": sampling.weights(rng, dm, f, gain=2.0),
                "bias": sampling.t5_position_bias(rng, d["H"], s, scale=bias_scale)}

    def edges(self, d, rng) -> EdgeCases:
        base = self.make(d, rng)
        strong = self.make(d, rng, bias_scale=3.0)
        return block_edges(base, rng) + [("strong_position_bias", strong),
                                         ("two_keys", self.two_keys(d, rng, base)),
                                         ("many_keys", self.many_keys(d, rng, base))]

    def many_keys(self, d, rng, base) -> dict:
        """The attention tasks' `many_keys` inside the block (tasks/level2/weight_bias.py).
        x's rows are `unit_rows` (rmsnorm leaves them exact): per head SCORE_COLS columns
        of random multiples of 1/8 in [-1, 1], the head's query and key dimensions, so a
        score is a sum of products of random entries (plus a bias in [-1, 0] rounded to
        bf16); n hot keys among the first 32 rows, key t with a 1 in column R[0, t]; the
        value projection gives hot key t a 1 in column R[h, t] of every head h's slice; the
        other keys' bias is -40..-100. x is 0 in the columns R but for the hot keys' ones,
        the output projection is I and the FFN's zero: y[i, R[h, t]] is the weight query i
        gave key t in head h, where x[i, that column] is 0."""
        s, dm, heads, dh = d["S"], d["Dm"], d["H"], d["D"]
        m = SCORE_COLS
        # free columns for the fill: dm // 64 eights and at most 3 of each smaller size
        n = min(KEYS, dh, s, (dm - heads * m - dm // 64 - 18) // heads)
        hot = np.sort(rng.choice(min(32, s), size=n, replace=False))
        reads = np.stack([h * dh + rng.choice(dh, size=n, replace=False) for h in range(heads)])
        carr = rng.choice(np.setdiff1d(np.arange(dm), reads), size=(heads, m), replace=False)
        ind = np.zeros((s, n))
        ind[hot, np.arange(n)] = 1.0
        rand = rng.integers(-8, 9, (s, heads * m)) / 8.0
        cols = np.concatenate([reads[0], reads[1:].ravel(), carr.ravel()])
        carriers = np.concatenate([ind, np.zeros((s, (heads - 1) * n)), rand], axis=1)
        x = unit_rows(rng, carriers, [int(c) for c in cols], dm, fill=(8.0, 4.0, *FILL))
        gain = base["attn_norm"].copy()
        gain[reads[0]] = 1.0
        gain[carr.ravel()] = 1.0
        wq, wv = np.zeros((dm, dm)), np.zeros((dm, dm))
        for h in range(heads):
            wq[h * dh + np.arange(m), carr[h]] = 1.0
            wv[reads[h], reads[0]] = 1.0
        bias = -rng.uniform(*LOW, (heads, s, s))
        bias[:, :, hot] = -rng.uniform(0.0, 1.0, (heads, s, n))
        return {**base, "x": x, "attn_norm": gain, "wq": wq, "wk": wq.copy(), "wv": wv,
                "wo": np.eye(dm), "w_out": np.zeros_like(base["w_out"]), "bias": bias}

    def family_check(self, family, x, d, outputs):
        dm, heads, dh, s = d["Dm"], d["H"], d["D"], d["S"]
        if family != "many_keys" or x["w_out"].any() or not (x["wo"] == np.eye(dm)).all():
            return None                    # not the family's structure: nothing to read
        # a correct kernel's rmsnorm gives x * attn_norm back exactly on these rows
        hx = x["x"] * x["attn_norm"]
        q, k, v = hx @ x["wq"].T, hx @ x["wk"].T, hx @ x["wv"].T
        y = np.asarray(outputs["y"], np.float64).reshape(s, dm)
        causal = np.tril(np.ones((s, s), bool))
        found = []
        for h in range(heads):
            part = slice(h * dh, (h + 1) * dh)
            sc = np.where(causal, q[:, part] @ k[:, part].T + x["bias"][h], -np.inf)
            found.append(head_errors(sc, v[:, part], y[:, part], readable=x["x"][:, part] == 0))
        r, arg = (np.concatenate(p) for p in zip(*found))
        return phase_margin(r, arg, LIMIT / U, "the weights read back from y (log-errors relative to "
                            "their query's mean)")

    def family_rules(self, d):
        return [f"On the edge case `many_keys` (the output projection is the identity and the FFN's "
                f"zero, and every query sees up to {KEYS} keys within a few units of its maximum score, "
                f"each with a value that is 1 in a column of its own), y[i, that column] is the weight the "
                f"kernel gave the key where x[i, that column] is 0; grouped by the fraction of "
                f"(s - max) log2(e) into {PHASES} bins, the weights' log-errors (minus their query's "
                f"mean) must average within {LIMIT / U:.2f}u of 0 in every bin of {MIN_KEYS} keys or "
                f"more: roundings err both ways, an approximate exp does not (tasks/level2/weight_bias.py)."]

    def two_keys(self, d, rng, base) -> dict:
        """The attention tasks' `two_keys` inside the block, set by the position bias: the
        query and key projections are zero, so the scores are the bias exactly; every
        query i >= 1 sees, among the first 32 keys, one key of the first kind at 0 and one
        of the second at -g (g = 0.02..0.75), the others at -40..-100. x's rows are
        `unit_rows` whose column ca is 1 for a key of the first kind and cb for the second
        (rmsnorm leaves them exact), and the value projection makes the values +1 and -r_d
        (r_d over 1..e^0.8 across a head's columns), so some column of every query's
        output is near 0 and an error of the second key's weight shows undamped. The
        output projection is 8 I and the FFN's is zero: y = x + 8 a."""
        s, dm, heads, dh = d["S"], d["Dm"], d["H"], d["D"]
        ca, cb = (int(v) for v in rng.choice(dm, size=2, replace=False))
        kind = rng.integers(0, 2, s).astype(bool)            # True: the first kind (+1)
        kind[0], kind[1] = True, False
        x = unit_rows(rng, np.stack([kind, ~kind], axis=1).astype(float), [ca, cb], dm)
        gain = base["attn_norm"].copy()
        gain[[ca, cb]] = 1.0
        wv = np.zeros((dm, dm))
        wv[:, ca] = 1.0
        wv[:, cb] = -np.concatenate([np.exp(0.8 * (rng.permutation(dh) + rng.random(dh)) / dh)
                                     for _ in range(heads)])
        bias = -rng.uniform(40.0, 100.0, (heads, s, s))
        g = rng.uniform(0.02, 0.75, (heads, s))
        first, second = np.flatnonzero(kind[:32]), np.flatnonzero(~kind[:32])
        for i in range(1, s):
            for h in range(heads):
                bias[h, i, rng.choice(first[first <= i])] = 0.0
                bias[h, i, rng.choice(second[second <= i])] = -g[h, i]
        bias[:, 0, 0] = 0.0
        zero = np.zeros((dm, dm))
        return {**base, "x": x, "attn_norm": gain, "wq": zero, "wk": zero, "wv": wv, "wo": 8.0 * np.eye(dm),
                "w_out": np.zeros_like(base["w_out"]), "bias": bias}

    def error_allowance(self, x, d, output):
        return block_allowance(self, x, d)

    def compute(self, x, d):
        h = ops.rms_norm(x["x"], x["attn_norm"], self.eps)
        a = ops.attention(h @ x["wq"].T, h @ x["wk"].T, h @ x["wv"].T, d["H"], d["H"], 1.0,
                          causal=True, bias=x["bias"])
        x2 = x["x"] + a @ x["wo"].T
        g = ops.rms_norm(x2, x["ffn_norm"], self.eps)
        return {"y": x2 + ops.relu(g @ x["w_in"].T) @ x["w_out"].T}

    def ops(self, d):
        s, dm, f = d["S"], d["Dm"], d["F"]
        att = attention_ops({"S": s, "Hq": d["H"], "Hkv": d["H"], "D": d["D"]}, causal=True)
        n = att.special - s * d["H"]                     # live scores
        # attention as in the attention tasks, without the q scaling, plus one bias add per score
        att_vec = att.vector - s * dm + n
        # 2 rmsnorms (4 per element), 2 residual adds, relu per hidden element
        return Ops(macs=4 * s * dm * dm + att.macs + 2 * s * dm * f,
                   vector=8 * s * dm + att_vec + 2 * s * dm + s * f,
                   special=4 * s + att.special)
