"""Feed-forward blocks: ffn (GELU, with biases) and swiglu (LLaMA MLP, no biases)."""
from __future__ import annotations

from .. import ops, sampling
from ..core import EdgeCases, Ops, Task, TensorSpec
from ..tolerance import DEEP

INTERMEDIATES = """\
Accumulate matrix products in fp32; intermediates may be stored in bf16."""


class Ffn(Task):
    tol = DEEP
    name = "ffn"
    level = 2
    title = "Feed-forward block (GELU)"
    description = f"""\
y = gelu(x @ w1^T + b1) @ w2^T + b2 (the transformer MLP of GPT-2/BERT; PyTorch weight layout [out, in]),
with gelu the tanh approximation: gelu(z) = z * sigmoid(gelu_c1 * (z + gelu_c2 * z^3)),
gelu_c1 = 2*sqrt(2/pi), gelu_c2 = 0.044715 (= 0.5 z (1 + tanh(sqrt(2/pi) (z + 0.044715 z^3)))).
Inputs x [S, Dm], w1 [F, Dm], b1 [F], w2 [Dm, F], b2 [Dm], bf16; output y [S, Dm] bf16.
{INTERMEDIATES}
Constants: one = 1.0, gelu_c1, gelu_c2, neg_gelu_c1 = -gelu_c1."""
    configs = {
        "C1": {"S": 64, "Dm": 64, "F": 128},
        "C2": {"S": 64, "Dm": 128, "F": 256},
        "C3": {"S": 128, "Dm": 128, "F": 512},
        "C4": {"S": 128, "Dm": 256, "F": 512},
        "C5": {"S": 128, "Dm": 256, "F": 1024},
        "H1": {"S": 192, "Dm": 192, "F": 576},
    }

    def specs_in(self, d):
        s, dm, f = d["S"], d["Dm"], d["F"]
        return [TensorSpec("x", (s, dm), doc="activations"),
                TensorSpec("w1", (f, dm), doc="up projection [out, in]"),
                TensorSpec("b1", (f,), doc="up bias"),
                TensorSpec("w2", (dm, f), doc="down projection [out, in]"),
                TensorSpec("b2", (dm,), doc="down bias")]

    def specs_out(self, d):
        return [TensorSpec("y", (d["S"], d["Dm"]), doc="block output")]

    def consts(self, d):
        return {"one": 1.0, "gelu_c1": ops.GELU_C1, "gelu_c2": ops.GELU_C2, "neg_gelu_c1": -ops.GELU_C1}

    def make(self, d, rng):
        s, dm, f = d["S"], d["Dm"], d["F"]
        return {"x": sampling.activations(rng, (s, dm)),
                "w1": sampling.weights(rng, f, dm), "b1": sampling.shifts(rng, f, 0.5),
                "w2": sampling.weights(rng, dm, f, gain=2.0), "b2": sampling.shifts(rng, dm, 0.5)}

    def edges(self, d, rng) -> EdgeCases:
        base = self.make(d, rng)
        return [("large_preactivations", {**base, "x": base["x"] * 8.0}),
                ("outlier_features", {**base, "x": sampling.outlier_features(rng, base["x"], factor=16.0)}),
                ("mostly_negative_preactivations", {**base, "b1": base["b1"] - 2.0})]

    def compute(self, x, d):
        h = ops.gelu(ops.linear(x["x"], x["w1"], x["b1"]))
        return {"y": ops.linear(h, x["w2"], x["b2"])}

    def ops(self, d):
        s, dm, f = d["S"], d["Dm"], d["F"]
        # b1, gelu (6 ops as in the gelu task), b2; exp and reciprocal per hidden element
        return Ops(macs=2 * s * dm * f, vector=7 * s * f + s * dm, special=2 * s * f)


class Swiglu(Task):
    tol = DEEP
    name = "swiglu"
    level = 2
    title = "SwiGLU feed-forward block (LLaMA MLP)"
    description = f"""\
y = (silu(x @ w_gate^T) * (x @ w_up^T)) @ w_down^T, with silu(z) = z / (1 + exp(-z)) and * element-wise
(the LLaMA MLP; PyTorch weight layout [out, in]; no biases).
Inputs x [S, Dm], w_gate [F, Dm], w_up [F, Dm], w_down [Dm, F], bf16; output y [S, Dm] bf16.
{INTERMEDIATES}
Constants: one = 1.0, neg_one = -1.0."""
    configs = {
        "C1": {"S": 64, "Dm": 64, "F": 128},
        "C2": {"S": 64, "Dm": 128, "F": 256},
        "C3": {"S": 128, "Dm": 128, "F": 384},
        "C4": {"S": 128, "Dm": 256, "F": 512},
        "C5": {"S": 128, "Dm": 256, "F": 768},
        "H1": {"S": 192, "Dm": 320, "F": 448},
    }

    def specs_in(self, d):
        s, dm, f = d["S"], d["Dm"], d["F"]
        return [TensorSpec("x", (s, dm), doc="activations"),
                TensorSpec("w_gate", (f, dm), doc="gate projection [out, in]"),
                TensorSpec("w_up", (f, dm), doc="up projection [out, in]"),
                TensorSpec("w_down", (dm, f), doc="down projection [out, in]")]

    def specs_out(self, d):
        return [TensorSpec("y", (d["S"], d["Dm"]), doc="block output")]

    def consts(self, d):
        return {"one": 1.0, "neg_one": -1.0}

    def make(self, d, rng):
        s, dm, f = d["S"], d["Dm"], d["F"]
        return {"x": sampling.activations(rng, (s, dm)),
                "w_gate": sampling.weights(rng, f, dm), "w_up": sampling.weights(rng, f, dm),
                "w_down": sampling.weights(rng, dm, f, gain=2.0)}

    def edges(self, d, rng) -> EdgeCases:
        base = self.make(d, rng)
        return [("large_preactivations", {**base, "x": base["x"] * 8.0}),
                ("outlier_features", {**base, "x": sampling.outlier_features(rng, base["x"], factor=16.0)}),
                ("tiny_inputs", {**base, "x": base["x"] * 2.0 ** -20})]

    def compute(self, x, d):
        g = ops.silu(x["x"] @ x["w_gate"].T)
        return {"y": (g * (x["x"] @ x["w_up"].T)) @ x["w_down"].T}

    def ops(self, d):
        s, dm, f = d["S"], d["Dm"], d["F"]
        # silu (1 + e, z * r), gate * up; exp and reciprocal per hidden element
        return Ops(macs=3 * s * dm * f, vector=3 * s * f, special=2 * s * f)

