"""gemm: c = a @ b with the shared VMMAC contraction (matmul.py)."""
from __future__ import annotations

from .matmul import Gemm, contraction_template

TEMPLATE = contraction_template(
    "gemm", lambda ctx: [Gemm(ctx.dims["M"], ctx.dims["K"], ctx.dims["N"], ctx.addr("a"),
                              ctx.addr("b"), ctx.addr("c"))])
