"""rms_norm over each row: fp32 mean of squares, rstd, then gain."""
from __future__ import annotations

from .rowwise import TMP, RowKit, rowwise_template


def row(k: RowKit) -> None:
    a, f = k.asm, k.f
    a("S_ADD_FP f4, f0, f0")

    def square_sum(c, v):
        a(f"V_MUL_VV {TMP}, {c}, {c}, 0")
        a(f"V_RED_SUM f4, {TMP}")
    k.over_chunks(square_sum)
    a(f"S_MUL_FP f4, f4, {f['inv_n']}", "mean square")
    a(f"S_ADD_FP f4, f4, {f['eps']}")
    a("S_SQRT_FP f4, f4")
    a("S_RECI_FP f4, f4", "rstd")

    def scale(c, v):
        a(f"V_MUL_VF {c}, {c}, f4, 0")
        a(f"V_MUL_VV {c}, {c}, {v['gamma']}, 0")
    k.over_chunks(scale, vectors=("gamma",))


TEMPLATE = rowwise_template("rms_norm", row, constants=("eps", "inv_n"), vectors=("gamma",))
