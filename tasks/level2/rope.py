"""Rotary position embedding (rotate-half convention) with cos/sin tables as inputs."""
from __future__ import annotations

import numpy as np

from .. import ops, sampling
from ..core import EdgeCases, Ops, Task, TensorSpec
from ..tolerance import U, Tolerance

ROPE_RULE = """\
For each head h (columns h*D .. h*D + D - 1 of a row) and half = D/2:
  out[s, h*D + i]        = x[s, h*D + i] * cos[s, i]        - x[s, h*D + half + i] * sin[s, i]
  out[s, h*D + half + i] = x[s, h*D + half + i] * cos[s, half + i] + x[s, h*D + i] * sin[s, half + i]
for i < half, i.e. out = x * cos + rotate_half(x) * sin with rotate_half([a, b]) = [-b, a]
(the rotate-half / GPT-NeoX convention, not the interleaved one). cos and sin [S, D] hold
cos/sin of p * 10000^(-2 (i mod half) / D) for the row's position p, so their two halves are equal."""


class Rope(Task):
    tol = Tolerance(U, 2.0 ** -16, basis="x * cos, rotate_half(x) * sin and their sum are each stored in bf16: "
                    "one rounding of the element plus an allowance of u (1 + u) (abs(x cos) + abs(rotate_half(x) sin)) "
                    "per element, since the two products can cancel")
    name = "rope"
    level = 2
    title = "Rotary position embedding"
    description = f"""\
Apply RoPE to every head of x [S, H*D] (row s = token at position p0 + s, heads side by side).
{ROPE_RULE}
Inputs x [S, H*D], cos [S, D], sin [S, D], bf16; output y [S, H*D] bf16. No constants."""
    configs = {
        "C1": {"S": 64, "H": 1, "D": 64},
        "C2": {"S": 64, "H": 8, "D": 16},
        "C3": {"S": 128, "H": 8, "D": 32},
        "C4": {"S": 256, "H": 8, "D": 64},
        "C5": {"S": 256, "H": 32, "D": 64},
        "H1": {"S": 192, "H": 10, "D": 32},
    }

    def specs_in(self, d):
        return [TensorSpec("x", (d["S"], d["H"] * d["D"]), doc="queries or keys, heads side by side"),
                TensorSpec("cos", (d["S"], d["D"]), doc="cos table per position"),
                TensorSpec("sin", (d["S"], d["D"]), doc="sin table per position")]

    def specs_out(self, d):
        return [TensorSpec("y", (d["S"], d["H"] * d["D"]), doc="rotated x")]

    def make(self, d, rng):
        cos, sin = sampling.rope_tables(rng, d["S"], d["D"])
        return {"x": sampling.activations(rng, (d["S"], d["H"] * d["D"])), "cos": cos, "sin": sin}

    def edges(self, d, rng) -> EdgeCases:
        x = sampling.activations(rng, (d["S"], d["H"] * d["D"]))
        far = sampling.rope_tables_at(int(rng.integers(30000, 60000)), d["S"], d["D"])
        start = sampling.rope_tables_at(0, d["S"], d["D"])
        return [("far_positions", {"x": x, "cos": far[0], "sin": far[1]}),
                ("from_position_zero", {"x": x, "cos": start[0], "sin": start[1]}),
                ("outlier_features", {"x": sampling.outlier_features(rng, x), "cos": far[0], "sin": far[1]})]

    def compute(self, x, d):
        return {"y": ops.rope(x["x"], x["cos"], x["sin"], d["H"])}

    def error_allowance(self, x, d, output):
        s, heads, dh = d["S"], d["H"], d["D"]
        a = np.abs(x["x"]).reshape(s, heads, dh)
        swapped = np.concatenate([a[..., dh // 2:], a[..., :dh // 2]], axis=-1)    # abs(rotate_half(x))
        out = a * np.abs(x["cos"])[:, None] + swapped * np.abs(x["sin"])[:, None]
        return U * (1 + U) * out.reshape(s, heads * dh)     # (1 + u): the sum rounds the rounded products

    def ops(self, d):
        return Ops(vector=3 * d["S"] * d["H"] * d["D"])   # two products and one sum per element
