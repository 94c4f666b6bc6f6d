"""Transformer decoder blocks: decoder_block_llama and decoder_block_t5 (pre-norm)."""
from __future__ import annotations

import numpy as np

from .. import ops, sampling
from ..core import EdgeCases, Ops, Task, TensorSpec
from ..tolerance import DEEP
from ..level1.rowwise import NEG_MAX
from ..level2.attention import LAYOUT, attention_ops
from ..level2.rope import ROPE_RULE

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


def block_edges(base: dict, rng) -> list[tuple[str, dict]]:
    x = base["x"]
    return [("outlier_features", {**base, "x": sampling.outlier_features(rng, x, factor=16.0)}),
            ("repeated_tokens", {**base, "x": np.broadcast_to(x[:1], x.shape).copy()})]


class DecoderBlockLlama(Task):
    tol = DEEP
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
        return block_edges(base, rng) + [("far_positions", {**base, "cos": cos, "sin": sin})]

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
    tol = DEEP
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
        return block_edges(base, rng) + [("strong_position_bias", strong)]

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
