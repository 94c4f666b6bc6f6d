"""conv_block: relu(conv2d(x, w) * scale + shift) per output channel: the conv2d
template (conv2d.py) with the folded batch norm and ReLU fused into its epilogue.
Each block's 32 channels of scale and shift arrive (as bias tiles, one row repeated
over a tile's four rows) while the block computes; per staged vector: an exact bf16
product with scale, plus shift in fp32, one rounding, then max with zero.
Tunable: `unroll` of the epilogue."""
from __future__ import annotations

from .asm import Asm
from .conv2d import check_conv, generate_conv
from .epilogues import OTHER_BUF, VECTORS
from .matmul import C_BUF
from .template import Ctx, Template, dm_problem

SCALE_BUF, SHIFT_BUF = OTHER_BUF, OTHER_BUF + 256       # four tiles each


def _hooks(ctx: Ctx, asm: Asm, unroll: int):
    for name, src, buf in (("SCALE", "scale", SCALE_BUF), ("SHIFT", "shift", SHIFT_BUF)):
        asm.bd(name, ext=ctx.addr(src), loc=buf, n0=8, n1=4, s1=0, ls1=16, n2=4, s2=8, ls2=64, rel="l2")

    def prefetch(a: Asm) -> None:
        a.op("DMAIN 0, SCALE, r2, r0", "this block's channels of scale")
        a.op("DMAIN 1, SHIFT, r2, r0", "and shift")

    def epilogue(a: Asm) -> None:
        a.op("ACQ l2, 2", "scale and shift landed")
        a.op("VBCST.16 x15, r0", "zero")
        a.op(f"MOVPI p5, {C_BUF}")
        a.op(f"MOVPI p6, {C_BUF}")
        for half in range(VECTORS // 4):        # the two strips use the same four tiles
            a.op(f"MOVPI p4, {SCALE_BUF}")
            a.op(f"MOVPI p7, {SHIFT_BUF}")
            with a.loop(4 // unroll, "tiles of a strip"):
                for k in range(unroll):
                    a.op(f"VLD x{4 * k}, [p5], 64")
                    a.op(f"VLD x{4 * k + 1}, [p4], 64")
                    a.op(f"VLD x{4 * k + 2}, [p7], 64")
                # staged x, scale, shift -> x{4k+3} = max(0, x * scale + shift), lanes interleaved
                for step in ("VMUL.BF16 acc{a}, x{x}, x{s}", "VUPS.BF16 acc{b}, x{t}",
                             "AADD.F32 acc{a}, acc{a}, acc{b}", "VSRS.BF16 x{y}, acc{a}",
                             "VMAX.BF16 x{y}, x{y}, x15", "VST x{y}, [p6], 64"):
                    for k in range(unroll):
                        a.op(step.format(a=2 * k, b=2 * k + 1, x=4 * k, s=4 * k + 1, t=4 * k + 2, y=4 * k + 3))
    return prefetch, epilogue


def _generate(ctx: Ctx, asm: Asm, p: dict) -> None:
    generate_conv(ctx, asm, _hooks(ctx, asm, p["unroll"]))


def _check(ctx: Ctx, p: dict) -> str | None:
    if p["unroll"] not in (1, 2):
        return "unroll must be 1 or 2"
    return dm_problem(ctx) or check_conv(ctx, p)


TEMPLATE = Template(task="conv_block", generate=_generate, params={"unroll": 1},
                    space={"unroll": (1, 2)}, doc=__doc__, check=_check)
