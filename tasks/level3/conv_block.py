"""conv_block: 3x3 convolution, folded batch norm (per-channel scale and shift), ReLU."""
from __future__ import annotations

import numpy as np

from .. import ops, sampling
from ..core import EdgeCases, Ops, Task, TensorSpec
from ..tolerance import U, Tolerance, rms
from ..level1.conv import CONV_LAYOUT, conv_edges, feature_map, out_hw


class ConvBlock(Task):
    tol = Tolerance(U, 2.0 ** -16, basis="the convolution accumulated in fp32 and stored in bf16 (u of itself, plus u "
                    "rms(conv) for the order of a long fp32 sum, as conv2d), times scale and plus shift each stored "
                    "in bf16: one rounding of the element plus an allowance of (2u abs(conv) + u rms(conv)) abs(scale) "
                    "per element, since shift can cancel conv * scale; ReLU is exact")
    name = "conv_block"
    level = 3
    title = "Convolution + folded batch norm + ReLU"
    description = f"""\
y[oh, ow, co] = max(0, conv[oh, ow, co] * scale[co] + shift[co]), where
conv[oh, ow, co] = sum_{{i < 3, j < 3, ci < Cin}} x[oh + i, ow + j, ci] * w[i, j, ci, co]
(a batch norm folded into scale = gamma / sqrt(var + eps) and shift = beta - mean * scale).
{CONV_LAYOUT}
Inputs x [H, W, Cin], w [3, 3, Cin, Cout], scale [Cout], shift [Cout], bf16; output y [OH, OW, Cout] bf16.
Accumulate the convolution in fp32. No constants."""
    configs = {
        "C1": {"H": 6, "W": 6, "Cin": 64, "Cout": 64, "KH": 3, "KW": 3},
        "C2": {"H": 8, "W": 8, "Cin": 64, "Cout": 128, "KH": 3, "KW": 3},
        "C3": {"H": 10, "W": 10, "Cin": 128, "Cout": 128, "KH": 3, "KW": 3},
        "C4": {"H": 12, "W": 12, "Cin": 128, "Cout": 256, "KH": 3, "KW": 3},
        "C5": {"H": 16, "W": 16, "Cin": 128, "Cout": 256, "KH": 3, "KW": 3},
        "H1": {"H": 13, "W": 10, "Cin": 192, "Cout": 128, "KH": 3, "KW": 3},
    }

    def specs_in(self, d):
        return [TensorSpec("x", (d["H"], d["W"], d["Cin"]), doc="image, HWC"),
                TensorSpec("w", (d["KH"], d["KW"], d["Cin"], d["Cout"]), doc="filters"),
                TensorSpec("scale", (d["Cout"],), doc="folded batch-norm scale"),
                TensorSpec("shift", (d["Cout"],), doc="folded batch-norm shift")]

    def specs_out(self, d):
        return [TensorSpec("y", (*out_hw(d), d["Cout"]), doc="block output, HWC")]

    def make(self, d, rng):
        fan_in = d["KH"] * d["KW"] * d["Cin"]
        return {"x": feature_map(rng, (d["H"], d["W"], d["Cin"])),
                "w": rng.standard_normal((d["KH"], d["KW"], d["Cin"], d["Cout"])) / np.sqrt(fan_in),
                "scale": np.exp(rng.uniform(-np.log(2.0), np.log(2.0), d["Cout"])),
                "shift": sampling.shifts(rng, d["Cout"], 0.5)}

    def edges(self, d, rng) -> EdgeCases:
        base = self.make(d, rng)
        params = {k: base[k] for k in ("w", "scale", "shift")}
        cases = conv_edges(rng, base["x"], {"w": base["w"]})
        cases = [(label, {**params, **x}) for label, x in cases]
        # most pre-activations below zero: few survivors, which must be exact
        return cases + [("mostly_negative", {**base, "shift": base["shift"] - 1.5})]

    def compute(self, x, d):
        z = ops.conv2d(x["x"], x["w"]) * x["scale"] + x["shift"]
        return {"y": ops.relu(z)}

    def error_allowance(self, x, d, output):
        conv = ops.conv2d(x["x"], x["w"])
        return (2 * U * np.abs(conv) + U * rms(conv)) * np.abs(x["scale"])

    def ops(self, d):
        oh, ow = out_hw(d)
        out = oh * ow * d["Cout"]
        return Ops(macs=out * d["KH"] * d["KW"] * d["Cin"], vector=3 * out)   # * scale, + shift, max
