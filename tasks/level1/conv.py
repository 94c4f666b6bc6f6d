"""Convolutions on one NHWC image: conv2d and depthwise_conv (stride 1, no padding)."""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators.numerics import round_bf16

from .. import ops, sampling
from ..core import EdgeCases, Ops, Task, TensorSpec
from ..error_model import FP32_U
from ..tolerance import U, Tolerance
from .matmul import CONTRACTION

CONV_LAYOUT = """\
x is one image in HWC layout (row-major: x[h, w, c] at (h*W + w)*C + c); stride 1, no padding,
so OH = H - KH + 1 and OW = W - KW + 1."""


def feature_map(rng: np.random.Generator, shape: tuple[int, int, int]) -> np.ndarray:
    """Image features with a per-channel mean and scale."""
    c = shape[-1]
    mean = rng.uniform(-0.5, 0.5, c)
    scale = np.exp(rng.uniform(-np.log(2.0), np.log(2.0), c))
    return mean + scale * rng.standard_normal(shape)


def conv_edges(rng, x: np.ndarray, weights: dict[str, np.ndarray]) -> EdgeCases:
    """outlier channels, exact small integers, and a spatially constant image."""
    flat = np.broadcast_to(x[:1, :1, :], x.shape).copy()
    ints = {k: sampling.small_integers(rng, v.shape, hi=3) for k, v in weights.items()}
    return [("outlier_channels", {"x": sampling.outlier_features(rng, x), **weights}),
            ("small_integers", {"x": sampling.small_integers(rng, x.shape, hi=3), **ints}),
            ("constant_image", {"x": flat, **weights})]


def cancelling_taps(rng, d) -> dict[str, np.ndarray]:
    """Pixels 128 + s (s an integer in -15..15) and filters of signed powers of two
    (1/2 .. 4) in pairs +a, -a at random taps per channel (a zero tap when their number
    is odd): every product and every fp32 sum is exact, and the 128s cancel, so y (sum
    of s w, tens) is far below the partial sums (hundreds, where bf16's spacing is 2-8).
    A correct kernel rounds once; one that keeps its running sum in bf16 is off by
    several units wherever a partial sum rounds, whatever its order of taps."""
    n = d["KH"] * d["KW"]
    mags = 2.0 ** rng.integers(-1, 3, (n // 2, d["C"]))
    taps = np.concatenate([mags, -mags, np.zeros((n % 2, d["C"]))])
    taps = np.take_along_axis(taps, rng.permuted(np.tile(np.arange(n)[:, None], d["C"]), axis=0), 0)
    return {"x": 128.0 + sampling.small_integers(rng, (d["H"], d["W"], d["C"]), hi=15),
            "w": taps.reshape(d["KH"], d["KW"], d["C"])}


def out_hw(d) -> tuple[int, int]:
    return d["H"] - d["KH"] + 1, d["W"] - d["KW"] + 1


class Conv2d(Task):
    tol = CONTRACTION
    name = "conv2d"
    level = 1
    title = "2-D convolution"
    description = f"""\
y[oh, ow, co] = sum_{{i < KH, j < KW, ci < Cin}} x[oh + i, ow + j, ci] * w[i, j, ci, co].
{CONV_LAYOUT}
Inputs x [H, W, Cin], w [KH, KW, Cin, Cout] (row-major), bf16; output y [OH, OW, Cout] bf16.
Accumulate in fp32; round only the final result to bf16. No constants."""
    configs = {
        "C1": {"H": 4, "W": 4, "Cin": 64, "Cout": 64, "KH": 3, "KW": 3},
        "C2": {"H": 6, "W": 6, "Cin": 64, "Cout": 64, "KH": 3, "KW": 3},
        "C3": {"H": 8, "W": 8, "Cin": 64, "Cout": 128, "KH": 3, "KW": 3},
        "C4": {"H": 10, "W": 10, "Cin": 128, "Cout": 128, "KH": 3, "KW": 3},
        "C5": {"H": 16, "W": 16, "Cin": 128, "Cout": 128, "KH": 3, "KW": 3},
        "H1": {"H": 11, "W": 7, "Cin": 192, "Cout": 64, "KH": 3, "KW": 3},
    }

    def specs_in(self, d):
        return [TensorSpec("x", (d["H"], d["W"], d["Cin"]), doc="image, HWC"),
                TensorSpec("w", (d["KH"], d["KW"], d["Cin"], d["Cout"]), doc="filters")]

    def specs_out(self, d):
        return [TensorSpec("y", (*out_hw(d), d["Cout"]), doc="convolution, HWC")]

    def make(self, d, rng):
        fan_in = d["KH"] * d["KW"] * d["Cin"]
        return {"x": feature_map(rng, (d["H"], d["W"], d["Cin"])),
                "w": rng.standard_normal((d["KH"], d["KW"], d["Cin"], d["Cout"])) / np.sqrt(fan_in)}

    def edges(self, d, rng) -> EdgeCases:
        x, w = self.make(d, rng).values()
        return conv_edges(rng, x, {"w": w})

    def compute(self, x, d):
        return {"y": ops.conv2d(x["x"], x["w"])}

    def ops(self, d):
        oh, ow = out_hw(d)
        return Ops(macs=oh * ow * d["Cout"] * d["KH"] * d["KW"] * d["Cin"])


class DepthwiseConv(Task):
    tol = Tolerance(U, U, basis="fp32 accumulation and one bf16 store as gemm, plus per element what "
                    "rounding each of its products to bf16 moves it by: each channel's products are "
                    "element-wise vector products, which a vector unit with bf16 results (plena) stores "
                    "before summing")
    name = "depthwise_conv"
    level = 1
    title = "Depthwise 2-D convolution"
    description = f"""\
y[oh, ow, c] = sum_{{i < KH, j < KW}} x[oh + i, ow + j, c] * w[i, j, c] (each channel filtered alone).
{CONV_LAYOUT}
Inputs x [H, W, C], w [KH, KW, C] (row-major), bf16; output y [OH, OW, C] bf16.
Accumulate in fp32 (the products may be rounded to bf16 first); round the result to bf16. No constants."""
    configs = {
        "C1": {"H": 6, "W": 6, "C": 64, "KH": 3, "KW": 3},
        "C2": {"H": 8, "W": 8, "C": 64, "KH": 3, "KW": 3},
        "C3": {"H": 10, "W": 10, "C": 128, "KH": 3, "KW": 3},
        "C4": {"H": 14, "W": 14, "C": 256, "KH": 3, "KW": 3},
        "C5": {"H": 16, "W": 16, "C": 512, "KH": 3, "KW": 3},
        "H1": {"H": 13, "W": 9, "C": 320, "KH": 3, "KW": 3},
    }

    def specs_in(self, d):
        return [TensorSpec("x", (d["H"], d["W"], d["C"]), doc="image, HWC"),
                TensorSpec("w", (d["KH"], d["KW"], d["C"]), doc="one filter per channel")]

    def specs_out(self, d):
        return [TensorSpec("y", (*out_hw(d), d["C"]), doc="depthwise convolution, HWC")]

    def make(self, d, rng):
        return {"x": feature_map(rng, (d["H"], d["W"], d["C"])),
                "w": rng.standard_normal((d["KH"], d["KW"], d["C"])) / np.sqrt(d["KH"] * d["KW"])}

    def edges(self, d, rng) -> EdgeCases:
        x, w = self.make(d, rng).values()
        return conv_edges(rng, x, {"w": w}) + [("cancelling_taps", cancelling_taps(rng, d))]

    def compute(self, x, d):
        return {"y": ops.depthwise_conv(x["x"], x["w"])}

    def error_allowance(self, x, d, output):
        """Exactly what storing each product in bf16 moves the sum by, at most (the
        kernel may or may not store them), and the fp32 sum's order: a bound of u per
        product instead let a sum kept in bf16 pass (tasks/README.md)."""
        w = x["w"]
        kh, kw = w.shape[:2]
        p = ops.windows(x["x"], kh, kw) * np.moveaxis(w, -1, 0)[None, None]
        moved = np.abs(round_bf16(p.astype(np.float32)).astype(np.float64) - p).sum(axis=(-2, -1))
        return moved + (kh * kw - 1) * FP32_U * np.abs(p).sum(axis=(-2, -1))

    def ops(self, d):
        oh, ow = out_hw(d)
        return Ops(macs=oh * ow * d["C"] * d["KH"] * d["KW"])
