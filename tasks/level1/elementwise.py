"""Element-wise activations on x [rows, cols]: silu, relu, gelu."""
from __future__ import annotations

import numpy as np

from .. import ops, sampling
from ..core import EdgeCases, Ops, Task, TensorSpec
from ..tolerance import U, Tolerance

# Outputs that underflow (|r| below ~1e-38, e.g. x * exp(x) for x < -87) may come out as
# zero: an absolute floor far below any value the bound is meant to judge.
FLOOR = 2.0 ** -16

CONFIGS = {
    "C1": {"rows": 4, "cols": 64},
    "C2": {"rows": 16, "cols": 256},
    "C3": {"rows": 64, "cols": 512},
    "C4": {"rows": 128, "cols": 1024},
    "C5": {"rows": 256, "cols": 2048},
    "H1": {"rows": 36, "cols": 1344},
}


def log_uniform(rng: np.random.Generator, lo: float, hi: float, shape) -> np.ndarray:
    return np.exp(rng.uniform(np.log(lo), np.log(hi), shape))


def signs(rng: np.random.Generator, shape) -> np.ndarray:
    return rng.choice([-1.0, 1.0], size=shape)


class Elementwise(Task):
    level = 1
    configs = CONFIGS
    fn: staticmethod                                   # the float64 activation, set by each task

    def specs_in(self, d):
        return [TensorSpec("x", (d["rows"], d["cols"]), doc="input activations")]

    def specs_out(self, d):
        return [TensorSpec("y", (d["rows"], d["cols"]), doc=f"{self.name}(x)")]

    def make(self, d, rng):
        return {"x": sampling.activations(rng, (d["rows"], d["cols"]), offset=1.0, spread=3.0)}

    def edges(self, d, rng) -> EdgeCases:
        shape = (d["rows"], d["cols"])
        tiny = signs(rng, shape) * log_uniform(rng, 1e-30, 1e-20, shape)
        tiny[rng.random(shape) < 0.25] = 0.0
        tiny[rng.random(shape) < 0.1] = -0.0
        large = signs(rng, shape) * log_uniform(rng, 8.0, 3e4, shape)
        # exp(-x) leaves fp32 range near |x| = 88: the formula must still give x or 0.
        boundary = signs(rng, shape) * rng.uniform(60.0, 120.0, shape)
        # where cheap approximations fail: the negative tail (x * exp(x), so the relative
        # error of exp shows undamped) and +-1.5..4 (GELU's cubic term, sigmoid(k x) fits)
        n = d["rows"] * d["cols"]
        hot = np.concatenate([rng.uniform(-12.0, -4.0, n - 2 * (n // 3)), rng.uniform(-4.0, -1.5, n // 3),
                              rng.uniform(1.5, 4.0, n // 3)])
        return [("tiny_and_signed_zeros", {"x": tiny}),
                ("large_magnitudes", {"x": large}),
                ("exp_range_boundary", {"x": boundary}),
                ("approximation_hotspots", {"x": rng.permutation(hot).reshape(shape)})]

    def compute(self, x, d):
        return {"y": self.fn(x["x"])}


class Silu(Elementwise):
    name = "silu"
    title = "SiLU activation"
    description = """\
y = silu(x) = x * sigmoid(x) = x / (1 + exp(-x)), element-wise.
Input x [rows, cols] bf16; output y [rows, cols] bf16.
Constants: one = 1.0, neg_one = -1.0."""
    fn = staticmethod(ops.silu)
    tol = Tolerance(4 * U, FLOOR, basis="exp, 1 + e, the reciprocal and x * r are each stored in bf16: "
                    "four roundings of the element itself; the argument -x is exact")

    def consts(self, d):
        return {"one": 1.0, "neg_one": -1.0}

    def ops(self, d):
        n = d["rows"] * d["cols"]
        return Ops(vector=2 * n, special=2 * n)       # 1 + e, x * r; exp, reciprocal


class Relu(Elementwise):
    name = "relu"
    title = "ReLU activation"
    description = """\
y = relu(x) = max(x, 0), element-wise.
Input x [rows, cols] bf16; output y [rows, cols] bf16. No constants."""
    fn = staticmethod(ops.relu)
    tol = Tolerance(U, FLOOR, basis="a selection: exact; one rounding allowed")

    def edges(self, d, rng) -> EdgeCases:
        cases = super().edges(d, rng)
        x = sampling.activations(rng, (d["rows"], d["cols"]))
        x[::2] = -np.abs(x[::2])                      # every other row entirely negative
        return cases + [("negative_rows", {"x": x})]

    def ops(self, d):
        return Ops(vector=d["rows"] * d["cols"])


class Gelu(Elementwise):
    name = "gelu"
    title = "GELU activation (tanh approximation)"
    description = """\
y = gelu(x) = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), element-wise,
which is exactly y = x * sigmoid(gelu_c1 * (x + gelu_c2 * x^3)) = x / (1 + exp(-gelu_c1 * (x + gelu_c2 * x^3)))
with gelu_c1 = 2*sqrt(2/pi) and gelu_c2 = 0.044715.
Input x [rows, cols] bf16; output y [rows, cols] bf16.
Constants: one = 1.0, gelu_c1, gelu_c2, neg_gelu_c1 = -gelu_c1."""
    fn = staticmethod(ops.gelu)
    tol = Tolerance(4 * U, FLOOR, basis="exp, 1 + e, the reciprocal and x * r: four roundings of the element; "
                    "plus an allowance of 4u abs(x z sigmoid(z) sigmoid(-z)) per element: the stored argument "
                    "z = c1 (x + c2 x^3) is off by up to ~4u relative (five roundings, two damped by c2 x^2 / (1 + c2 x^2))")

    def error_allowance(self, x, d, output):
        # ~4u relative error of the stored argument z, times dy/dz = x sigmoid(z) sigmoid(-z)
        xx = x["x"]
        z = ops.GELU_C1 * (xx + ops.GELU_C2 * xx ** 3)
        with np.errstate(over="ignore"):
            s = 1.0 / (1.0 + np.exp(-z))
        return 4 * U * np.abs(xx * z * s * (1.0 - s))

    def consts(self, d):
        return {"one": 1.0, "gelu_c1": ops.GELU_C1, "gelu_c2": ops.GELU_C2, "neg_gelu_c1": -ops.GELU_C1}

    def ops(self, d):
        n = d["rows"] * d["cols"]
        # x*x, *c, +c1, *x (argument), 1 + e, x * r; exp, reciprocal
        return Ops(vector=6 * n, special=2 * n)
