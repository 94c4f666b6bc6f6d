"""layer_norm over each row: fp32 mean, centred variance, rstd, then gain and shift."""
from __future__ import annotations

from .rowwise import TMP, RowKit, rowwise_template


def _row(k: RowKit) -> None:
    a, f = k.asm, k.f
    a("S_ADD_FP f4, f0, f0")
    k.over_chunks(lambda c, v: a(f"V_RED_SUM f4, {c}"))
    a(f"S_MUL_FP f4, f4, {f['inv_n']}", "mean")
    k.over_chunks(lambda c, v: a(f"V_SUB_VF {c}, {c}, f4, 0, 0", "x - mean"))
    a("S_ADD_FP f5, f0, f0")

    def square_sum(c, v):
        a(f"V_MUL_VV {TMP}, {c}, {c}, 0")
        a(f"V_RED_SUM f5, {TMP}")
    k.over_chunks(square_sum)
    a(f"S_MUL_FP f5, f5, {f['inv_n']}", "variance")
    a(f"S_ADD_FP f5, f5, {f['eps']}")
    a("S_SQRT_FP f5, f5")
    a("S_RECI_FP f5, f5", "rstd")

    def scale_shift(c, v):
        a(f"V_MUL_VF {c}, {c}, f5, 0")
        a(f"V_MUL_VV {c}, {c}, {v['gamma']}, 0")
        a(f"V_ADD_VV {c}, {c}, {v['beta']}, 0")
    k.over_chunks(scale_shift, vectors=("gamma", "beta"))


TEMPLATE = rowwise_template("layer_norm", _row, constants=("eps", "inv_n"), vectors=("gamma", "beta"))
