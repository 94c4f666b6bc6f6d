"""Building blocks of per-element error bounds (float64, from a task's inputs): what
storing a value in bf16 and accumulating a product in fp32 can cost a correct kernel.
Used by the tasks whose bounds follow their own chains (tasks/README.md, "Tolerance
policy")."""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators.numerics import round_bf16

from .tolerance import U

FP32_U = 2.0 ** -24


def stored(y: np.ndarray, err) -> np.ndarray:
    """The error bound of bf16(y~) against y, for any y~ within `err` of y: the upstream
    error plus the rounding, which is at most u |y~| and at most the distance from y~ to
    bf16(y), a bf16 number within dist(y) + err of it (so an exactly representable y
    that arrives exactly stays exact, as the structured edge cases need)."""
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        # (+ an fp32 ulp: y reaches bf16 through fp32)
        dist = np.abs(round_bf16(y.astype(np.float32)).astype(np.float64) - y) + FP32_U * np.abs(y)
    return err + np.minimum(U * (np.abs(y) + err), dist + err)


def product_error(a: np.ndarray, w: np.ndarray, err_a=None) -> np.ndarray:
    """The error bound of a @ w^T accumulated in fp32 in any order (w [out, in] exact):
    the input errors carried through |w|, and K 2^-24 of sum |a w| for the order."""
    k = a.shape[-1]
    out = k * FP32_U * (np.abs(a) @ np.abs(w).T)
    return out if err_a is None else out + np.abs(err_a) @ np.abs(w).T
