"""Row-wise reductions over the last axis of x [rows, cols]: softmax, layer_norm, rms_norm."""
from __future__ import annotations

import numpy as np

from .. import ops, sampling
from ..core import EdgeCases, Ops, Task, TensorSpec
from ..tolerance import U, Tolerance
from .elementwise import FLOOR, signs

CONFIGS = {
    "C1": {"rows": 4, "cols": 64},
    "C2": {"rows": 16, "cols": 128},
    "C3": {"rows": 32, "cols": 512},
    "C4": {"rows": 64, "cols": 1024},
    "C5": {"rows": 256, "cols": 2048},
    "H1": {"rows": 24, "cols": 1216},
}

NEG_MAX = -3.4028234663852886e38   # lowest finite fp32: a start value for running maxima


def row_scaled(rng, d, offset_ratio: tuple[float, float], std: tuple[float, float]) -> np.ndarray:
    """Rows with std in `std` (log-uniform) and mean = +-ratio * std, ratio in `offset_ratio`."""
    shape = (d["rows"], d["cols"])
    s = np.exp(rng.uniform(np.log(std[0]), np.log(std[1]), (d["rows"], 1)))
    mean = signs(rng, (d["rows"], 1)) * rng.uniform(*offset_ratio, (d["rows"], 1)) * s
    return mean + s * rng.standard_normal(shape)


class RowTask(Task):
    level = 1
    configs = CONFIGS

    def specs_out(self, d):
        return [TensorSpec("y", (d["rows"], d["cols"]), doc=f"{self.name} of each row")]


class Softmax(RowTask):
    name = "softmax"
    title = "Row softmax"
    tol = Tolerance(3 * U, U / 2, "row_max",
                    basis="exp, the reciprocal and the final product: three roundings of the element; "
                    "the stored argument x - m is off by u abs(x - m), which exp makes a relative error, "
                    "so p * u abs(x - m) = u p ln(p_max / p) <= (u / e) p_max of the row")
    description = """\
y[i, j] = exp(x[i, j] - m_i) / sum_k exp(x[i, k] - m_i), with m_i = max_k x[i, k]: softmax over
the last axis (each row independently). Subtracting the row maximum is required: edge cases
contain logits whose exp overflows or underflows fp32.
Input x [rows, cols] bf16; output y [rows, cols] bf16.
Constants: neg_max = lowest finite fp32 (start value of a running maximum), one = 1.0."""

    def specs_in(self, d):
        return [TensorSpec("x", (d["rows"], d["cols"]), doc="logits")]

    def consts(self, d):
        return {"neg_max": NEG_MAX, "one": 1.0}

    def make(self, d, rng):
        return {"x": sampling.activations(rng, (d["rows"], d["cols"]), offset=3.0, spread=2.0)}

    def edges(self, d, rng) -> EdgeCases:
        shape = (d["rows"], d["cols"])
        base = rng.normal(0.0, 2.0, shape)
        large = base + signs(rng, (d["rows"], 1)) * rng.uniform(100.0, 1000.0, (d["rows"], 1))
        uniform = base.copy()
        uniform[::2] = rng.normal(0.0, 5.0, (uniform[::2].shape[0], 1))   # constant rows
        peaked = base.copy()
        hot = rng.integers(0, d["cols"], d["rows"])
        peaked[np.arange(d["rows"]), hot] += rng.uniform(20.0, 40.0, d["rows"])
        # two spikes per row at random columns (any tile), +100..+200 and 1..3 less: exp
        # overflows unless the kernel subtracts the maximum of the whole row, and a kernel
        # that clamps exp's argument gives the two the same weight
        spiked = base.copy()
        rows = np.arange(d["rows"])
        pairs = np.array([rng.choice(d["cols"], 2, replace=False) for _ in rows])
        lift = rng.uniform(100.0, 200.0, d["rows"])
        spiked[rows, pairs[:, 0]] = base[rows, pairs[:, 0]] + lift
        spiked[rows, pairs[:, 1]] = spiked[rows, pairs[:, 0]] - rng.uniform(1.0, 3.0, d["rows"])
        return [("large_logits", {"x": large}), ("uniform_rows", {"x": uniform}),
                ("peaked_rows", {"x": peaked}), ("spiked_rows", {"x": spiked})]

    def compute(self, x, d):
        return {"y": ops.softmax(x["x"], axis=-1)}

    def ops(self, d):
        r, n = d["rows"], d["cols"]
        return Ops(vector=4 * r * n, special=r * n + r)  # max, x - m, sum, * (1/s); exp, 1/s per row


class LayerNorm(RowTask):
    name = "layer_norm"
    title = "Layer normalization"
    tol = Tolerance(5 * U, FLOOR, basis="x - mean, x_hat = xc * rstd, x_hat * gamma: three roundings plus about "
                    "u from rstd, relative to x_hat * gamma = r - beta, and the final + beta: so 4.5u abs(r) plus "
                    "an allowance of 3.5u abs(beta) per column (beta can cancel x_hat * gamma)")

    def error_allowance(self, x, d, output):
        return 3.5 * U * np.abs(x["beta"])
    eps = 1e-5
    description = """\
y[i, :] = (x[i, :] - mean_i) / sqrt(var_i + eps) * gamma + beta, over the last axis, with
mean_i = (1/cols) sum_j x[i, j] and var_i = (1/cols) sum_j (x[i, j] - mean_i)^2 (population
variance), eps = 1e-5 inside the square root. Keep the row statistics in fp32 and subtract the
mean before squaring: edge cases have rows whose mean is many standard deviations from zero.
Inputs x [rows, cols], gamma [cols], beta [cols], all bf16; output y [rows, cols] bf16.
Constants: eps = 1e-5, inv_n = 1/cols, one = 1.0."""

    def specs_in(self, d):
        return [TensorSpec("x", (d["rows"], d["cols"]), doc="activations"),
                TensorSpec("gamma", (d["cols"],), doc="gain"),
                TensorSpec("beta", (d["cols"],), doc="shift")]

    def consts(self, d):
        return {"eps": self.eps, "inv_n": 1.0 / d["cols"], "one": 1.0}

    def make(self, d, rng):
        return {"x": sampling.activations(rng, (d["rows"], d["cols"]), offset=1.0, spread=3.0),
                "gamma": sampling.gains(rng, d["cols"]), "beta": sampling.shifts(rng, d["cols"])}

    def edges(self, d, rng) -> EdgeCases:
        def case(x):
            return {"x": x, "gamma": sampling.gains(rng, d["cols"]), "beta": sampling.shifts(rng, d["cols"])}
        const = row_scaled(rng, d, (0.0, 1.0), (0.5, 2.0))
        const[::2] = rng.normal(0.0, 3.0, (const[::2].shape[0], 1))      # zero variance: y = beta
        return [("large_offset", case(row_scaled(rng, d, (6.0, 8.0), (0.5, 2.0)))),
                ("constant_rows", case(const)),
                ("tiny_variance", case(row_scaled(rng, d, (0.0, 1.0), (3e-4, 3e-3)))),
                ("large_magnitudes", case(row_scaled(rng, d, (0.0, 1.0), (1e3, 3e4))))]

    def compute(self, x, d):
        return {"y": ops.layer_norm(x["x"], x["gamma"], x["beta"], self.eps)}

    def ops(self, d):
        r, n = d["rows"], d["cols"]
        # sum, x - mean, square, sum, * rstd, * gamma, + beta; sqrt and reciprocal per row
        return Ops(vector=7 * r * n, special=2 * r)


class RmsNorm(RowTask):
    name = "rms_norm"
    title = "RMS normalization"
    tol = Tolerance(3 * U, FLOOR, basis="x * rstd and * gamma: two roundings of the element, rstd from "
                    "the fp32 mean of stored squares (about u); no cancellation")
    eps = 1e-6
    description = """\
y[i, :] = x[i, :] / sqrt(ms_i + eps) * gamma, with ms_i = (1/cols) sum_j x[i, j]^2 over the
last axis and eps = 1e-6 inside the square root (no mean subtraction, no shift).
Inputs x [rows, cols], gamma [cols], bf16; output y [rows, cols] bf16.
Constants: eps = 1e-6, inv_n = 1/cols, one = 1.0."""

    def specs_in(self, d):
        return [TensorSpec("x", (d["rows"], d["cols"]), doc="activations"),
                TensorSpec("gamma", (d["cols"],), doc="gain")]

    def consts(self, d):
        return {"eps": self.eps, "inv_n": 1.0 / d["cols"], "one": 1.0}

    def make(self, d, rng):
        return {"x": sampling.activations(rng, (d["rows"], d["cols"]), offset=1.0, spread=3.0),
                "gamma": sampling.gains(rng, d["cols"])}

    def edges(self, d, rng) -> EdgeCases:
        def case(x):
            return {"x": x, "gamma": sampling.gains(rng, d["cols"])}
        zero = row_scaled(rng, d, (0.0, 1.0), (0.5, 2.0))
        zero[::2] = 0.0
        return [("zero_rows", case(zero)),
                ("tiny_scale", case(row_scaled(rng, d, (0.0, 1.0), (3e-4, 3e-3)))),
                ("large_offset", case(row_scaled(rng, d, (6.0, 8.0), (0.5, 2.0)))),
                ("large_magnitudes", case(row_scaled(rng, d, (0.0, 1.0), (1e3, 3e4))))]

    def compute(self, x, d):
        return {"y": ops.rms_norm(x["x"], x["gamma"], self.eps)}

    def ops(self, d):
        r, n = d["rows"], d["cols"]
        return Ops(vector=4 * r * n, special=2 * r)     # square, sum, * rstd, * gamma
