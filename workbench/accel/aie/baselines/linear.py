"""linear: y = x @ w^T + b; the DMA transposes w's tiles, the accumulators start at the bias."""
from __future__ import annotations

from .matmul import Gemm, contraction_template

TEMPLATE = contraction_template(
    "linear", lambda ctx: [Gemm(ctx.dims["M"], ctx.dims["K"], ctx.dims["N"], ctx.addr("x"),
                                ctx.addr("w"), ctx.addr("y"), transposed=True, bias=ctx.addr("b"))])
