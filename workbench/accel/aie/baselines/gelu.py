"""gelu: y = x / (1 + exp(neg_gelu_c1 * (x + gelu_c2 * x^3))) in fp32 accumulator lanes."""
from __future__ import annotations

from .elementwise import elementwise_template


def _body(r):
    x, y, a, b = r["x"], r["y"], r["a"], r["b"]
    return [f"VUPS.BF16 {a}, {x}",            # x
            f"AMUL.F32 {b}, {a}, {a}",        # x^2
            f"AMUL.F32 {b}, {b}, {a}",        # x^3
            f"AMUL.F32 {b}, {b}, acc6",       # c2 x^3
            f"AADD.F32 {b}, {b}, {a}",        # x + c2 x^3
            f"AMUL.F32 {b}, {b}, acc5",       # -c1 (x + c2 x^3)
            f"VPWL.EXP {b}, {b}",
            f"AADD.F32 {b}, {b}, acc7",       # 1 + exp(...)
            f"VPWL.RCP {b}, {b}",
            f"AMUL.F32 {b}, {b}, {a}",
            f"VSRS.BF16 {y}, {b}"]


TEMPLATE = elementwise_template("gelu", body=_body, constants=("one", "gelu_c2", "neg_gelu_c1"))
