"""softmax over each row: running max, exp(x - max) with its sum, then scale by 1/sum."""
from __future__ import annotations

from .rowwise import RowKit, rowwise_template


def _row(k: RowKit) -> None:
    a, f = k.asm, k.f
    a(f"S_ADD_FP f3, {f['neg_max']}, f0", "m = lowest fp32")
    k.over_chunks(lambda c, v: a(f"V_RED_MAX f3, {c}, 0", "m = max(m, chunk)"))
    a("S_ADD_FP f4, f0, f0", "s = 0")

    def exp_sum(c, v):
        a(f"V_SUB_VF {c}, {c}, f3, 0, 0", "x - m")
        a(f"V_EXP_V {c}, {c}, 0")
        a(f"V_RED_SUM f4, {c}", "s += sum(chunk)")
    k.over_chunks(exp_sum)
    a("S_RECI_FP f5, f4", "1 / s")
    k.over_chunks(lambda c, v: a(f"V_MUL_VF {c}, {c}, f5, 0"))


TEMPLATE = rowwise_template("softmax", _row, constants=("neg_max",))
