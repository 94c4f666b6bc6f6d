"""gemm: c = a @ b, a [M, K], b [K, N]: b's tiles in Matrix SRAM, rows of a streamed, M_MV."""
from __future__ import annotations

from .matmul import Operands, contraction_template

TEMPLATE = contraction_template(
    "gemm",
    dims=lambda ctx: (ctx.dims["M"], ctx.dims["K"], ctx.dims["N"]),
    batches=lambda ctx: [Operands(ctx.addr("a"), ctx.addr("b"), ctx.addr("c"))],
    transposed=False,
)
