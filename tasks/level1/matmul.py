"""Contractions: gemv, gemm, batch_matmul, linear (fp32 accumulation expected)."""
from __future__ import annotations

import numpy as np

from .. import ops, sampling
from ..core import EdgeCases, Ops, Task, TensorSpec
from ..tolerance import U, Tolerance

# fp32 accumulation then one bf16 store: u of the element; any fp32 summation order over
# K <= ~2^11 terms moves the sum by far less than u * rms(r) (K^1.5 2^-24 in the worst case).
CONTRACTION = Tolerance(U, U, basis="fp32 accumulation in any order and one bf16 store of the result")

ACCUMULATE = "Accumulate in fp32; round only the final result to bf16."


def zero_every(x: np.ndarray, axis: int, step: int = 4, start: int = 1) -> np.ndarray:
    x = x.copy()
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(start, None, step)
    x[tuple(idx)] = 0.0
    return x


class Gemv(Task):
    tol = CONTRACTION
    name = "gemv"
    level = 1
    title = "Matrix-vector product"
    description = f"""\
y = A @ x: y[m] = sum_k a[m, k] * x[k].
Inputs a [M, K] (row-major), x [K], bf16; output y [M] bf16. {ACCUMULATE} No constants."""
    configs = {
        "C1": {"M": 64, "K": 64},
        "C2": {"M": 128, "K": 256},
        "C3": {"M": 256, "K": 512},
        "C4": {"M": 512, "K": 1024},
        "C5": {"M": 1024, "K": 2048},
        "H1": {"M": 448, "K": 1344},
    }

    def specs_in(self, d):
        return [TensorSpec("a", (d["M"], d["K"]), doc="matrix"), TensorSpec("x", (d["K"],), doc="vector")]

    def specs_out(self, d):
        return [TensorSpec("y", (d["M"],), doc="a @ x")]

    def make(self, d, rng):
        return {"a": sampling.weights(rng, d["M"], d["K"]),
                "x": sampling.activations(rng, (d["K"],), offset=1.0, spread=2.0)}

    def edges(self, d, rng) -> EdgeCases:
        a, x = self.make(d, rng).values()
        return [("outlier_features", {"a": a, "x": sampling.outlier_features(rng, x)}),
                ("small_integers", {"a": sampling.small_integers(rng, a.shape),
                                    "x": sampling.small_integers(rng, x.shape)}),
                ("zero_rows", {"a": zero_every(a, 0), "x": zero_every(x, 0, step=3)})]

    def compute(self, x, d):
        return {"y": x["a"] @ x["x"]}

    def ops(self, d):
        return Ops(macs=d["M"] * d["K"])


class Gemm(Task):
    tol = CONTRACTION
    name = "gemm"
    level = 1
    title = "Matrix-matrix product"
    description = f"""\
C = A @ B: c[m, n] = sum_k a[m, k] * b[k, n].
Inputs a [M, K], b [K, N] (both row-major), bf16; output c [M, N] bf16. {ACCUMULATE} No constants."""
    configs = {
        "C1": {"M": 64, "K": 64, "N": 64},
        "C2": {"M": 64, "K": 128, "N": 128},
        "C3": {"M": 128, "K": 256, "N": 256},
        "C4": {"M": 256, "K": 256, "N": 512},
        "C5": {"M": 256, "K": 512, "N": 512},
        "H1": {"M": 192, "K": 320, "N": 448},
    }

    def specs_in(self, d):
        return [TensorSpec("a", (d["M"], d["K"]), doc="left operand"),
                TensorSpec("b", (d["K"], d["N"]), doc="right operand")]

    def specs_out(self, d):
        return [TensorSpec("c", (d["M"], d["N"]), doc="a @ b")]

    def make(self, d, rng):
        return {"a": sampling.activations(rng, (d["M"], d["K"])),
                "b": sampling.weights(rng, d["N"], d["K"]).T}

    def edges(self, d, rng) -> EdgeCases:
        a, b = self.make(d, rng).values()
        return [("outlier_features", {"a": sampling.outlier_features(rng, a), "b": b}),
                ("small_integers", {"a": sampling.small_integers(rng, a.shape),
                                    "b": sampling.small_integers(rng, b.shape)}),
                ("zero_rows_and_cols", {"a": zero_every(a, 0), "b": zero_every(b, 1)})]

    def compute(self, x, d):
        return {"c": x["a"] @ x["b"]}

    def ops(self, d):
        return Ops(macs=d["M"] * d["K"] * d["N"])


class BatchMatmul(Task):
    tol = CONTRACTION
    name = "batch_matmul"
    level = 1
    title = "Batched matrix product"
    description = f"""\
C[i] = A[i] @ B[i] for each batch i: c[i, m, n] = sum_k a[i, m, k] * b[i, k, n].
Inputs a [B, M, K], b [B, K, N] (row-major, batch outermost), bf16; output c [B, M, N] bf16.
{ACCUMULATE} No constants."""
    configs = {
        "C1": {"B": 2, "M": 64, "K": 64, "N": 64},
        "C2": {"B": 4, "M": 64, "K": 64, "N": 128},
        "C3": {"B": 4, "M": 128, "K": 128, "N": 128},
        "C4": {"B": 8, "M": 128, "K": 128, "N": 256},
        "C5": {"B": 8, "M": 128, "K": 256, "N": 256},
        "H1": {"B": 3, "M": 192, "K": 128, "N": 320},
    }

    def specs_in(self, d):
        return [TensorSpec("a", (d["B"], d["M"], d["K"]), doc="left operands"),
                TensorSpec("b", (d["B"], d["K"], d["N"]), doc="right operands")]

    def specs_out(self, d):
        return [TensorSpec("c", (d["B"], d["M"], d["N"]), doc="a[i] @ b[i]")]

    def make(self, d, rng):
        return {"a": sampling.activations(rng, (d["B"], d["M"], d["K"])),
                "b": rng.standard_normal((d["B"], d["K"], d["N"])) / np.sqrt(d["K"])}

    def edges(self, d, rng) -> EdgeCases:
        a, b = self.make(d, rng).values()
        return [("outlier_features", {"a": sampling.outlier_features(rng, a), "b": b}),
                ("small_integers", {"a": sampling.small_integers(rng, a.shape),
                                    "b": sampling.small_integers(rng, b.shape)}),
                ("zero_rows_and_cols", {"a": zero_every(a, 1), "b": zero_every(b, 2)})]

    def compute(self, x, d):
        return {"c": x["a"] @ x["b"]}

    def ops(self, d):
        return Ops(macs=d["B"] * d["M"] * d["K"] * d["N"])


class Linear(Task):
    tol = Tolerance(2 * U, U, basis="the stored product x w^T (u relative to x w^T = r - b) and the stored "
                    "sum with b (u): 2u abs(r) plus an allowance of u abs(b) per column, and fp32 accumulation as gemm")

    def error_allowance(self, x, d, output):
        return U * np.abs(x["b"])
    name = "linear"
    level = 1
    title = "Linear layer"
    description = f"""\
y = x @ W^T + b: y[m, n] = sum_k x[m, k] * w[n, k] + b[n] (PyTorch nn.Linear layout, W [out, in]).
Inputs x [M, K], w [N, K], b [N], bf16; output y [M, N] bf16. {ACCUMULATE} No constants."""
    configs = {
        "C1": {"M": 64, "K": 64, "N": 64},
        "C2": {"M": 64, "K": 256, "N": 128},
        "C3": {"M": 128, "K": 256, "N": 512},
        "C4": {"M": 128, "K": 512, "N": 512},
        "C5": {"M": 128, "K": 1024, "N": 512},
        "H1": {"M": 192, "K": 448, "N": 320},
    }

    def specs_in(self, d):
        return [TensorSpec("x", (d["M"], d["K"]), doc="activations"),
                TensorSpec("w", (d["N"], d["K"]), doc="weight [out, in]"),
                TensorSpec("b", (d["N"],), doc="bias")]

    def specs_out(self, d):
        return [TensorSpec("y", (d["M"], d["N"]), doc="x @ w^T + b")]

    def make(self, d, rng):
        return {"x": sampling.activations(rng, (d["M"], d["K"])),
                "w": sampling.weights(rng, d["N"], d["K"]),
                "b": sampling.shifts(rng, d["N"], scale=0.5)}

    def edges(self, d, rng) -> EdgeCases:
        x, w, b = self.make(d, rng).values()
        return [("outlier_features", {"x": sampling.outlier_features(rng, x), "w": w, "b": b}),
                ("small_integers", {"x": sampling.small_integers(rng, x.shape),
                                    "w": sampling.small_integers(rng, w.shape),
                                    "b": sampling.small_integers(rng, b.shape, hi=16)}),
                ("zero_rows_and_cols", {"x": zero_every(x, 0), "w": zero_every(w, 0), "b": b})]

    def compute(self, x, d):
        return {"y": ops.linear(x["x"], x["w"], x["b"])}

    def ops(self, d):
        return Ops(macs=d["M"] * d["K"] * d["N"], vector=d["M"] * d["N"])
