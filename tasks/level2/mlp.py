"""Feed-forward blocks: ffn (GELU, with biases) and swiglu (LLaMA MLP, no biases)."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from .. import ops, sampling
from ..core import EdgeCases, Ops, Task, TensorSpec
from ..error_model import merged_twins, product_error, stored
from ..tolerance import U, Tolerance
from .activation_bias import (LIMIT, NEAR_ZERO, STEP_LIMIT, activation_margin, crossing_margin,
                              read_pairs, units)
from ..exp_bias import EDGE, FLOOR, MIN_COUNT, PHASES

# The activation chains of Level 1 (tasks/README.md): silu and gelu store four roundings of
# their element, and gelu's argument carries 4u of itself, which exp turns into an error of
# 4u |z t sigmoid(t) sigmoid(-t)| (t the argument).
ACT_RTOL = 4 * U
MLP_BASIS = ("the down projection's output stored in bf16 (rtol 1u), plus an allowance carried through the chain from the "
             "inputs: pre-activations accumulated in fp32 and stored in bf16 (the bias add stored again), the activation's "
             "four roundings as at Level 1 plus the pre-activation's error times its slope, {extra}and the hidden state "
             "through abs(w) of the down projection (hidden units with the same weights computed alike: through the "
             "sum of their columns; tasks/level2/mlp.py)")

INTERMEDIATES = """\
Accumulate matrix products in fp32; intermediates may be stored in bf16."""


def coherent(rng, s: int, dm: int, f: int, lo: float, hi: float):
    """An edge family where an activation's error adds up instead of averaging out: every
    hidden unit of token s has the same pre-activation z_s (drawn from lo..hi, negative,
    where exp's error reaches the activation undamped), exactly: x has one non-zero
    column c, and the up projection's column c is 1. The down projection is positive, so
    the output is z's activation times a sum of positive terms. Returns (x, c)."""
    c = int(rng.integers(0, dm))
    x = np.zeros((s, dm))
    x[:, c] = rng.uniform(lo, hi, s)
    return x, c


def many_units_rules(act: str) -> list[str]:
    return [f"On the edge case `many_units` (the hidden units come in pairs with the same pre-activation "
            f"weights, whose down projection columns cancel but for one pair per output column j, whose two "
            f"columns differ by m in row j alone, so y[s, j] / m is the kernel's {act} of that pair), grouped by "
            f"the fraction of exp's argument times log2(e) into {PHASES} bins, log(y / (m {act}(z))) in units of "
            f"u must average within "
            f"{LIMIT / U:.2f}u of 0 in every bin of {MIN_COUNT} elements or more: roundings err both ways, an "
            f"approximate exp does not (tasks/level2/activation_bias.py).",
            f"On the edge case `units_near_zero` (the same read-back, pre-activations near 0), over the units "
            f"whose exp argument a has {Fraction(FLOOR)} <= abs(a) < {Fraction(EDGE)}, the mean of "
            f"log(y / (m {act}(z))) in units of u over those with a < 0 must be within {STEP_LIMIT / U:.2f}u of its "
            f"mean over those with a > 0 (with {MIN_COUNT} units or more on each side): exp is continuous where "
            f"its argument crosses 0, "
            f"an approximation of 2^f that does not reach 2 at f = 1 is not (tasks/level2/activation_bias.py)."]


def read_back(family: str):
    """The check of an MLP read-back family (`many_units`, `units_near_zero`), or None."""
    return {"many_units": activation_margin, "units_near_zero": crossing_margin}.get(family)


def swiglu_error(x, w_gate, w_up, w_down, dx=None) -> np.ndarray:
    """The error bound of (silu(x w_gate^T) * (x w_up^T)) w_down^T before its store, x
    within `dx` (None: exact): the chain of `Swiglu` (tasks/README.md)."""
    g, up = x @ w_gate.T, x @ w_up.T
    dg = stored(g, product_error(x, w_gate, dx))
    du = stored(up, product_error(x, w_up, dx))
    sig = ops.sigmoid(g)
    act = g * sig
    dact = np.abs(sig * (1 + g * (1 - sig))) * dg + ACT_RTOL * np.abs(act)
    h = act * up
    dh = stored(h, np.abs(up) * dact + np.abs(act) * du)
    return product_error(h, w_down, dh, merged_twins(np.column_stack([w_gate, w_up]), w_down))


class Ffn(Task):
    tol = Tolerance(U, 2.0 ** -16, basis=MLP_BASIS.format(extra=""))
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
                ("mostly_negative_preactivations", {**base, "b1": base["b1"] - 2.0}),
                ("coherent_hidden", self.coherent(d, rng, base)),
                ("many_units", self.many_units(d, rng)),
                ("units_near_zero", self.many_units(d, rng, near_zero=True))]

    def many_units(self, d, rng, near_zero: bool = False) -> dict:
        """activation_bias's families: pre-activations about -1.5..0 (`units_near_zero`:
        about -0.12..0.12, so exp's argument is about -0.2..0.2), b1 = 0 and b2 = 0 (a
        bias would round y, or the pre-activation, at its own scale, not the unit's)."""
        r, w = (v / ops.GELU_C1 for v in NEAR_ZERO)
        x, w1, w2, _, _ = units(d, rng, (-r, r), w) if near_zero else units(d, rng, (-0.9, -0.5))
        return {"x": x, "w1": w1, "b1": np.zeros(d["F"]), "w2": w2, "b2": np.zeros(d["Dm"])}

    def family_check(self, family, x, d, outputs):
        check = read_back(family)
        found = check and not x["b1"].any() and not x["b2"].any() and read_pairs(x["w1"], x["w2"])
        if not found:
            return None                    # not the family's structure: nothing to read
        unit, out, m = found
        y = np.asarray(outputs["y"], np.float64).reshape(d["S"], d["Dm"])
        return check(x["x"] @ x["w1"][unit].T, y[:, out] / m, "gelu", "the activations read back from y")

    def family_rules(self, d):
        return many_units_rules("gelu")

    def coherent(self, d, rng, base) -> dict:
        """`coherent`'s family: z_s from -2..-0.25, b1 = 0 and b2 = 0."""
        x, c = coherent(rng, d["S"], d["Dm"], d["F"], -2.0, -0.25)
        w1 = base["w1"].copy()
        w1[:, c] = 1.0
        return {"x": x, "w1": w1, "b1": np.zeros_like(base["b1"]), "w2": np.abs(base["w2"]),
                "b2": np.zeros_like(base["b2"])}

    def compute(self, x, d):
        h = ops.gelu(ops.linear(x["x"], x["w1"], x["b1"]))
        return {"y": ops.linear(h, x["w2"], x["b2"])}

    def error_allowance(self, x, d, output):
        xw = x["x"] @ x["w1"].T
        z = xw + x["b1"]
        dz = stored(z, stored(xw, product_error(x["x"], x["w1"])))
        t = ops.GELU_C1 * (z + ops.GELU_C2 * z ** 3)
        sig = ops.sigmoid(t)
        a = z * sig
        slope = sig + z * sig * (1 - sig) * ops.GELU_C1 * (1 + 3 * ops.GELU_C2 * z * z)
        da = np.abs(slope) * dz + ACT_RTOL * (np.abs(a) + np.abs(z * t * sig * (1 - sig)))
        twins = merged_twins(np.column_stack([x["w1"], x["b1"]]), x["w2"])
        return stored(a @ x["w2"].T, product_error(a, x["w2"], da, twins))

    def ops(self, d):
        s, dm, f = d["S"], d["Dm"], d["F"]
        # b1, gelu (6 ops as in the gelu task), b2; exp and reciprocal per hidden element
        return Ops(macs=2 * s * dm * f, vector=7 * s * f + s * dm, special=2 * s * f)


class Swiglu(Task):
    tol = Tolerance(U, 2.0 ** -16, basis=MLP_BASIS.format(extra="the product with the up projection stored in bf16, "))
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
                ("tiny_inputs", {**base, "x": base["x"] * 2.0 ** -20}),
                ("coherent_hidden", self.coherent(d, rng, base)),
                ("many_units", self.many_units(d, rng)),
                ("units_near_zero", self.many_units(d, rng, near_zero=True))]

    def many_units(self, d, rng, near_zero: bool = False) -> dict:
        """activation_bias's families: gate pre-activations about -2.6..-0.2 (`units_near_zero`:
        about -0.2..0.2); the up projection of every unit a power of two, 1/2..4 (x's column
        of ones, the same for both units of a pair), so that h / up is the unit's silu exactly."""
        r, w = NEAR_ZERO
        x, wg, wd, c, (first, second) = units(d, rng, (-r, r), w) if near_zero else units(d, rng, (-2.0, -0.8))
        wu = np.zeros_like(wg)
        wu[:, c] = 2.0 ** rng.integers(-1, 3, d["F"])
        wu[second] = wu[first]
        return {"x": x, "w_gate": wg, "w_up": wu, "w_down": wd}

    def family_check(self, family, x, d, outputs):
        check = read_back(family)
        found = check and read_pairs(np.column_stack([x["w_gate"], x["w_up"]]), x["w_down"])
        if not found:
            return None                    # not the family's structure: nothing to read
        unit, out, m = found
        up = x["x"] @ x["w_up"][unit].T
        if not (up > 0).all() or (np.log2(up) % 1).any():       # not powers of two: not the family
            return None
        y = np.asarray(outputs["y"], np.float64).reshape(d["S"], d["Dm"])
        return check(x["x"] @ x["w_gate"][unit].T, y[:, out] / m / up, "silu",
                     "the activations read back from y / up")

    def family_rules(self, d):
        return many_units_rules("silu")

    def coherent(self, d, rng, base) -> dict:
        """`coherent`'s family: gate pre-activations from -4..-0.5; x's column c + 1 is 1
        and w_up is positive there (zero in column c), so every hidden unit has the sign
        of its silu."""
        x, c = coherent(rng, d["S"], d["Dm"], d["F"], -4.0, -0.5)
        c1 = (c + 1) % d["Dm"]
        x[:, c1] = 1.0
        wg, wu = base["w_gate"].copy(), base["w_up"].copy()
        wg[:, c], wg[:, c1] = 1.0, 0.0
        wu[:, c], wu[:, c1] = 0.0, np.abs(wu[:, c1]) * np.sqrt(d["Dm"]) + 0.25
        return {"x": x, "w_gate": wg, "w_up": wu, "w_down": np.abs(base["w_down"])}

    def error_allowance(self, x, d, output):
        return swiglu_error(x["x"], x["w_gate"], x["w_up"], x["w_down"])      # its one store: rtol

    def compute(self, x, d):
        g = ops.silu(x["x"] @ x["w_gate"].T)
        return {"y": (g * (x["x"] @ x["w_up"].T)) @ x["w_down"].T}

    def ops(self, d):
        s, dm, f = d["S"], d["Dm"], d["F"]
        # silu (1 + e, z * r), gate * up; exp and reciprocal per hidden element
        return Ops(macs=3 * s * dm * f, vector=3 * s * f, special=2 * s * f)

