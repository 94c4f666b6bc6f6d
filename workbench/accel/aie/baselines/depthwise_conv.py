"""depthwise_conv: channels are the 32 lanes. For each chunk of channels the filter taps
are loaded once; for each output row the KH input rows it needs come in as one 3-D DMA;
every output vector (one pixel, 32 channels) is KH x KW multiply-accumulates of input
and tap vectors (an address generator walks the taps), rounded to bf16 into a row
buffer that goes back by DMA."""
from __future__ import annotations

from .asm import Asm
from .template import Ctx, Template

BAND, W_BUF, ROW_BUF = 8192, 32768, 40960
BAND_BYTES = 16384
LANES = 32


def _chunk(d: dict) -> int:
    return max(c for c in range(LANES, d["C"] + 1, LANES)
               if d["C"] % c == 0 and d["KH"] * d["W"] * c * 2 <= BAND_BYTES)


def _check(ctx: Ctx, p: dict) -> str | None:
    d = ctx.dims
    if d["C"] % LANES:
        return f"C = {d['C']} must be a multiple of {LANES}"
    if d["KH"] * d["W"] * LANES * 2 > BAND_BYTES:
        return "an input band of one channel vector does not fit"
    return None


def _generate(ctx: Ctx, asm: Asm, p: dict) -> None:
    d = ctx.dims
    h, w, c, kh, kw = d["H"], d["W"], d["C"], d["KH"], d["KW"]
    oh, ow = h - kh + 1, w - kw + 1
    cc = _chunk(d)
    row = 2 * cc                                   # bytes per pixel in the buffers
    asm.bd("WTAPS", ext=ctx.addr("w"), loc=W_BUF, n0=cc, n1=kh * kw, s1=c, ls1=row, rel="l0")
    asm.bd("XBAND", ext=ctx.addr("x"), loc=BAND, n0=cc, n1=w, s1=c, n2=kh, s2=w * c, ls1=row,
           ls2=w * row, rel="l0")
    asm.bd("YROW", ext=ctx.addr("y"), loc=ROW_BUF, n0=cc, n1=ow, s1=c, ls1=row, rel="l1")
    # g0 walks the taps of one output pixel: kw pixels along the row, then the next row
    for field, value in (("INC", row), ("N1", kw), ("N2", 1), ("J2", w * row - (kw - 1) * row)):
        asm.li("r10", value)
        asm.op(f"GSET.{field} g0, r10")
    asm.op("MOVI r1, 0", "input offset: row and channel chunk")
    asm.op("MOVI r3, 0", "output offset")
    asm.op("MOVI r4, 0", "weight offset: channel chunk")
    with asm.loop(c // cc, f"chunks of {cc} channels"):
        asm.op("DMAIN 1, WTAPS, r4, r0")
        asm.op("ACQ l0, 1", "taps landed")
        with asm.loop(oh, "output rows"):
            asm.op("DMAIN 0, XBAND, r1, r0")
            asm.op("ACQ l0, 1", "input rows landed")
            asm.op(f"MOVI r5, {BAND}")
            asm.op(f"MOVPI p3, {ROW_BUF}")
            with asm.loop(ow, "output pixels"):
                asm.op(f"MOVI r6, {W_BUF}")
                with asm.loop(cc // LANES, "channel vectors"):
                    asm.op("MOVP p1, r5")
                    asm.op("MOVP p2, r6")
                    asm.op("ABCST acc0, r0")
                    for _ in range(kh * kw):
                        asm.op("VLD x0, [p1], g0")
                        asm.op(f"VLD x1, [p2], {row}")
                        asm.op("VMAC.BF16 acc0, x0, x1")
                    asm.op("VSRS.BF16 x2, acc0")
                    asm.op("VST x2, [p3], 64")
                    asm.op("ADDI r5, r5, 64")
                    asm.op("ADDI r6, r6, 64")
            asm.op("DMAOUT 0, YROW, r3, r0")
            asm.op("ACQ l1, 1", "row read by the DMA")
            asm.li("r10", w * c)
            asm.op("ADD r1, r1, r10")
            asm.li("r10", ow * c)
            asm.op("ADD r3, r3, r10")
        asm.li("r10", oh * w * c - cc)
        asm.op("SUB r1, r1, r10")
        asm.li("r10", oh * ow * c - cc)
        asm.op("SUB r3, r3, r10")
        asm.op(f"ADDI r4, r4, {cc}")


TEMPLATE = Template(task="depthwise_conv", generate=_generate, params={}, space={}, doc=__doc__,
                    check=_check)
