"""batch_matmul: c[i] = a[i] @ b[i]: the gemm kernel once per batch element, bases moved in a0..a2."""
from __future__ import annotations

from .matmul import Operands, contraction_template


def _batches(ctx) -> list[Operands]:
    d = ctx.dims
    a, b, c = ctx.addr("a"), ctx.addr("b"), ctx.addr("c")
    return [Operands(a + i * d["M"] * d["K"], b + i * d["K"] * d["N"], c + i * d["M"] * d["N"])
            for i in range(d["B"])]


TEMPLATE = contraction_template(
    "batch_matmul",
    dims=lambda ctx: (ctx.dims["M"], ctx.dims["K"], ctx.dims["N"]),
    batches=_batches,
    transposed=False,
)
