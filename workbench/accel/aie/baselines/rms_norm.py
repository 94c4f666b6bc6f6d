"""rms_norm: the mean of squares in fp32 (bf16 products accumulated), r = rsqrt(ms + eps),
y = x * r * gamma."""
from __future__ import annotations

from .rowwise import RowKit, rowwise_template


def _row(k: RowKit) -> None:
    a = k.asm
    a.op("ABCST acc3, r0")
    k.over_chunks(lambda: (a.op("VLD x0, [p2], 64"), a.op("VMAC.BF16 acc3, x0, x0")))
    a.op("AREDADD.F32 acc3, acc3")
    a.op("AMUL.F32 acc3, acc3, acc6", "mean of squares")
    a.op("AADD.F32 acc3, acc3, acc7")
    a.op("VPWL.RSQRT acc3, acc3")

    def out():
        a.op("VLD x0, [p2], 64")
        a.op("VLD x2, [p4], 64")
        a.op("VUPS.BF16 acc0, x0")
        a.op("AMUL.F32 acc0, acc0, acc3")
        a.op("VUPS.BF16 acc1, x2")
        a.op("AMUL.F32 acc0, acc0, acc1")
        a.op("VSRS.BF16 x1, acc0")
        a.op("VST x1, [p1], 64")
    k.over_chunks(out, with_vectors=True)


TEMPLATE = rowwise_template("rms_norm", _row, constants=("eps", "inv_n"), vectors=("gamma",))
