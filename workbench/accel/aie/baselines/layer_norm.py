"""layer_norm: mean, then the variance of (x - mean) (both fp32), rstd = rsqrt(var + eps),
y = (x - mean) * rstd * gamma + beta."""
from __future__ import annotations

from .rowwise import RowKit, rowwise_template


def _row(k: RowKit) -> None:
    a = k.asm
    a.op("ABCST acc3, r0")

    def total():
        a.op("VLD x0, [p2], 64")
        a.op("VUPS.BF16 acc0, x0")
        a.op("AADD.F32 acc3, acc3, acc0")
    k.over_chunks(total)
    a.op("AREDADD.F32 acc3, acc3")
    a.op("AMUL.F32 acc3, acc3, acc6", "mean")
    a.op("ABCST acc2, r0")

    def squares():
        a.op("VLD x0, [p2], 64")
        a.op("VUPS.BF16 acc0, x0")
        a.op("ASUB.F32 acc0, acc0, acc3")
        a.op("AMUL.F32 acc0, acc0, acc0")
        a.op("AADD.F32 acc2, acc2, acc0")
    k.over_chunks(squares)
    a.op("AREDADD.F32 acc2, acc2")
    a.op("AMUL.F32 acc2, acc2, acc6", "variance")
    a.op("AADD.F32 acc2, acc2, acc7")
    a.op("VPWL.RSQRT acc2, acc2", "rstd")

    def out():
        a.op("VLD x0, [p2], 64")
        a.op("VLD x2, [p4], 64")
        a.op("VLD x3, [p5], 64")
        a.op("VUPS.BF16 acc0, x0")
        a.op("ASUB.F32 acc0, acc0, acc3")
        a.op("AMUL.F32 acc0, acc0, acc2")
        a.op("VUPS.BF16 acc1, x2")
        a.op("AMUL.F32 acc0, acc0, acc1")
        a.op("VUPS.BF16 acc1, x3")
        a.op("AADD.F32 acc0, acc0, acc1")
        a.op("VSRS.BF16 x1, acc0")
        a.op("VST x1, [p1], 64")
    k.over_chunks(out, with_vectors=True)


TEMPLATE = rowwise_template("layer_norm", _row, constants=("eps", "inv_n"), vectors=("gamma", "beta"))
