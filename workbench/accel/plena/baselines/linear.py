"""linear: y = x @ w^T + b, w [N, K]: w's tiles used transposed (M_TMV), bias added per output row."""
from __future__ import annotations

from .matmul import Operands, contraction_template

TEMPLATE = contraction_template(
    "linear",
    dims=lambda ctx: (ctx.dims["M"], ctx.dims["K"], ctx.dims["N"]),
    batches=lambda ctx: [Operands(ctx.addr("x"), ctx.addr("w"), ctx.addr("y"))],
    transposed=True,
    bias="b",
)
