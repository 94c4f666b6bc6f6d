"""softmax over each row: the row maximum (bf16, exact), the sum of exp(x - max) in fp32,
then exp(x - max) * (1 / sum), recomputing the exponentials."""
from __future__ import annotations

from .rowwise import RowKit, rowwise_template


def _row(k: RowKit) -> None:
    a = k.asm
    a.op("MOVP p2, r3")
    a.op("VLD x2, [p2], 64", "running maximum starts at the first chunk")
    k.over_chunks(lambda: (a.op("VLD x0, [p2], 64"), a.op("VMAX.BF16 x2, x2, x0")), skip_first=True)
    a.op("VREDMAX.BF16 x2, x2", "row maximum in every lane")
    a.op("VUPS.BF16 acc6, x2")
    a.op("ABCST acc5, r0", "sum = 0")

    def exp_sum():
        a.op("VLD x0, [p2], 64")
        a.op("VUPS.BF16 acc0, x0")
        a.op("ASUB.F32 acc0, acc0, acc6")
        a.op("VPWL.EXP acc0, acc0")
        a.op("AADD.F32 acc5, acc5, acc0")
    k.over_chunks(exp_sum)
    a.op("AREDADD.F32 acc5, acc5")
    a.op("VPWL.RCP acc5, acc5", "1 / sum")

    def scale():
        a.op("VLD x0, [p2], 64")
        a.op("VUPS.BF16 acc0, x0")
        a.op("ASUB.F32 acc0, acc0, acc6")
        a.op("VPWL.EXP acc0, acc0")
        a.op("AMUL.F32 acc0, acc0, acc5")
        a.op("VSRS.BF16 x1, acc0")
        a.op("VST x1, [p1], 64")
    k.over_chunks(scale)


TEMPLATE = rowwise_template("softmax", _row, constants=())
