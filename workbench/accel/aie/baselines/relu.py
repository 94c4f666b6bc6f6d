"""relu: y = max(x, 0) on bf16 lanes (max against a zero vector)."""
from __future__ import annotations

from .elementwise import elementwise_template

TEMPLATE = elementwise_template(
    "relu",
    body=lambda r: [f"VMAX.BF16 {r['y']}, {r['x']}, x15"],
    setup=lambda asm: asm.op("VBCST.16 x15, r0", "x15 = +0.0"),
)
