"""batch_matmul: c[i] = a[i] @ b[i], one VMMAC contraction (matmul.py) per batch."""
from __future__ import annotations

from .matmul import Gemm, contraction_template


def _gemms(ctx):
    d = ctx.dims
    m, k, n = d["M"], d["K"], d["N"]
    return [Gemm(m, k, n, ctx.addr("a") + i * m * k, ctx.addr("b") + i * k * n, ctx.addr("c") + i * m * n)
            for i in range(d["B"])]


TEMPLATE = contraction_template("batch_matmul", _gemms)
