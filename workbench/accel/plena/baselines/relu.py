"""relu: y = max(x, 0), row blocks of HBM_V_PREFETCH_AMOUNT rows, one VLEN chunk at a time."""
from __future__ import annotations

from .elementwise import elementwise_template

TEMPLATE = elementwise_template(
    "relu",
    body=lambda asm, row, tmps, f: asm(f"V_MAX_VF {row}, {row}, f0, 0", "max(x, 0)"),
    constants=(),
)
