"""What a fused contraction does to its output block before writing it back (the
`epilogue` and `prefetch` hooks of matmul.contraction).

The block is staged in C_BUF as eight bf16 vectors (its 4x8 tiles, two strips of four);
an element-wise epilogue loads each, applies a Level-1 body (gelu, silu ...) in fp32
accumulator lanes and stores it back in place; a product epilogue multiplies it
element by element with the same block of another tensor, brought in by a prefetch
at the start of the block (so its transfer overlaps the contraction)."""
from __future__ import annotations

from typing import Callable

from .asm import Asm
from .elementwise import Body, load_constants, side_by_side
from .matmul import C_BUF, Gemm
from .template import Ctx

VECTORS = 8                 # 4x8 tiles in the staged 8 x 32 block
OTHER_BUF = 50176           # the other tensor's block (bank 6, after staging and bias)
OTHER_LOCK = "l2"


def staged_map(ctx: Ctx, body: Body, constants: tuple[str, ...], unroll: int) -> Callable[[Asm], None]:
    """Apply `body` (an element-wise Level-1 body) to every staged vector, `unroll`
    vectors side by side; constants go to acc7, acc6, acc5 as in elementwise.py."""
    if VECTORS % unroll or unroll > 2:
        raise ValueError(f"epilogue unroll {unroll} must be 1 or 2")

    def emit(asm: Asm) -> None:
        load_constants(ctx, asm, constants, ("acc7", "acc6", "acc5"))
        asm.op(f"MOVPI p6, {C_BUF}")
        asm.op(f"MOVPI p7, {C_BUF}")
        with asm.loop(VECTORS // unroll, "staged vectors"):
            side_by_side(asm, body, unroll, "p6", "p7")
    return emit


def other_block(asm: Asm, g: Gemm, other: int, op: str = "mul", base: Gemm | None = None
                ) -> tuple[Callable, Callable]:
    """(prefetch, epilogue) combining the staged block of contraction g (descriptors made
    for `base`) element-wise with the block at the same place of another tensor at
    `other` (rows g.sc apart): "mul", an exact bf16 product, or "add", an fp32 sum;
    rounded once to bf16."""
    base = base or g
    name = asm.bd("OTHER", ext=0, loc=OTHER_BUF, n0=8, n1=4, s1=g.sc, ls1=16, n2=4, s2=8, ls2=64,
                  rel=OTHER_LOCK)
    delta = other + base.c - g.c              # r3 + delta = the other block's address

    def prefetch(a: Asm) -> None:
        a.li("r15", delta)
        a.op("ADD r14, r3, r15")
        a.op(f"DMAIN 0, {name}, r14, r0", "the other tensor's block")
        a.op("ADD r14, r14, r12")
        a.op(f"DMAIN 1, {name}, r14, r13")

    def epilogue(a: Asm) -> None:
        a.op(f"ACQ {OTHER_LOCK}, 2", "the other block landed")
        a.op(f"MOVPI p5, {C_BUF}")
        a.op(f"MOVPI p6, {OTHER_BUF}")
        a.op(f"MOVPI p7, {C_BUF}")
        with a.loop(VECTORS, "staged vectors"):
            a.op("VLD x0, [p5], 64")
            a.op("VLD x1, [p6], 64")
            if op == "mul":
                a.op("VMUL.BF16 acc0, x0, x1")
            else:
                a.op("VUPS.BF16 acc0, x0")
                a.op("VUPS.BF16 acc1, x1")
                a.op("AADD.F32 acc0, acc0, acc1")
            a.op("VSRS.BF16 x2, acc0")
            a.op("VST x2, [p7], 64")
    return prefetch, epilogue
