"""silu: y = x / (1 + exp(-x)) in fp32 accumulator lanes, rounded once to bf16."""
from __future__ import annotations

from .elementwise import elementwise_template


def _body(r):
    x, y, a, b = r["x"], r["y"], r["a"], r["b"]
    return [f"VUPS.BF16 {a}, {x}",            # x (fp32)
            f"AMUL.F32 {b}, {a}, acc6",       # -x
            f"VPWL.EXP {b}, {b}",             # exp(-x)
            f"AADD.F32 {b}, {b}, acc7",       # 1 + exp(-x)
            f"VPWL.RCP {b}, {b}",             # sigmoid(x)
            f"AMUL.F32 {b}, {b}, {a}",        # x * sigmoid(x)
            f"VSRS.BF16 {y}, {b}"]


TEMPLATE = elementwise_template("silu", body=_body, constants=("one", "neg_one"))
