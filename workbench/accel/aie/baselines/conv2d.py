"""conv2d as contractions: for every output row, blocks of 8 output pixels x 32 output
channels accumulate, over the KH x KW filter taps, (pixels x Cin) @ w[i, j] (Cin x Cout)
with VMMAC.BF16 (matmul.py). The DMA tiles the shifted input pixels and the tap's
weights; a last, partial block of a row computes 8 pixels and writes back only the
valid ones."""
from __future__ import annotations

from .asm import Asm
from .matmul import (A0_BUF, A1_BUF, COLS, a_descriptor, b_rows_descriptor, c_descriptor, chunk, k_steps,
                     stage_block, zero_accumulators)
from .template import Ctx, Template

PIXELS = 8


def check_conv(ctx: Ctx, p: dict) -> str | None:
    d = ctx.dims
    if d["Cout"] % COLS or d["Cin"] % 8 or chunk(d["Cin"]) != d["Cin"]:
        return f"needs Cout % {COLS} == 0 and Cin a multiple of 8 up to 256"
    return None


def _block(asm: Asm, d: dict, cout_blocks: int, c_bds: tuple[str, str | None], hooks=None) -> None:
    """One block of 8 pixels: every column block, every tap; r1 = the block's input
    offset (tap 0, 0), r3 = its output offset. `hooks` = (prefetch, epilogue) as in
    matmul.contraction (r2 = the block's first output channel; free: r4, r5, r8, r14,
    r15, and after staging the accumulators and x registers)."""
    w, cin, cout = d["W"], d["Cin"], d["Cout"]
    prefetch, epilogue = hooks or (None, None)
    asm.op("MOVI r2, 0")
    with asm.loop(cout_blocks, f"blocks of {COLS} output channels"):
        if prefetch:
            prefetch(asm)
        zero_accumulators(asm)
        for i in range(d["KH"]):
            for j in range(d["KW"]):
                asm.li("r10", (i * w + j) * cin)
                asm.op("ADD r9, r1, r10", f"tap ({i}, {j}): input pixels")
                asm.li("r10", 4 * cin)
                asm.op("ADD r11, r9, r10")
                asm.li("r10", (i * d["KW"] + j) * cin * cout)
                asm.op("ADD r12, r2, r10", "the tap's weights")
                asm.op("DMAIN 0, ATAP, r9, r0")
                asm.op("DMAIN 1, ATAP, r11, r6")
                asm.op("DMAIN 1, BTAP, r12, r0")
                asm.op("ACQ l0, 3", "pixels and weights landed")
                k_steps(asm, cin)
        stage_block(asm)
        if epilogue:
            epilogue(asm)
        strip0, strip1 = c_bds
        asm.op(f"DMAOUT 0, {strip0}, r3, r0")
        if strip1:
            asm.op("ADD r9, r3, r7")
            asm.op(f"DMAOUT 1, {strip1}, r9, r13")
        asm.op(f"ACQ l1, {2 if strip1 else 1}", "block read by the DMA")
        asm.op(f"ADDI r2, r2, {COLS}")
        asm.op(f"ADDI r3, r3, {COLS}")
    asm.li("r10", cout_blocks * COLS)
    asm.op("SUB r3, r3, r10")


def _generate(ctx: Ctx, asm: Asm, p: dict) -> None:
    generate_conv(ctx, asm)


def generate_conv(ctx: Ctx, asm: Asm, hooks=None) -> None:
    """The convolution of x by w into y, with optional per-block (prefetch, epilogue)."""
    d = ctx.dims
    h, w, cin, cout = d["H"], d["W"], d["Cin"], d["Cout"]
    oh, ow = h - d["KH"] + 1, w - d["KW"] + 1
    a_descriptor(asm, "ATAP", ctx.addr("x"), cin, cin)
    b_rows_descriptor(asm, "BTAP", ctx.addr("w"), cout, cin)
    full, tail = divmod(ow, PIXELS)
    c_full = c_descriptor(asm, "CFULL", ctx.addr("y"), cout)
    tails = (None, None)
    if tail:
        t0 = c_descriptor(asm, "CTAIL0", ctx.addr("y"), cout, rows=min(4, tail))
        t1 = c_descriptor(asm, "CTAIL1", ctx.addr("y"), cout, rows=tail - 4) if tail > 4 else None
        tails = (t0, t1)
    asm.op("MOVI r1, 0", "input offset of the block")
    asm.op("MOVI r3, 0", "output offset of the block")
    asm.li("r6", A1_BUF - A0_BUF)
    asm.li("r7", 4 * cout, "output: second strip")
    asm.op("MOVI r13, 256")
    blocks = full + (1 if tail else 0)
    with asm.loop(oh, "output rows"):
        if full:
            with asm.loop(full, f"blocks of {PIXELS} pixels"):
                _block(asm, d, cout // COLS, (c_full, c_full), hooks)
                asm.li("r10", PIXELS * cin)
                asm.op("ADD r1, r1, r10")
                asm.li("r10", PIXELS * cout)
                asm.op("ADD r3, r3, r10")
        if tail:
            _block(asm, d, cout // COLS, tails, hooks)
            asm.li("r10", PIXELS * cin)
            asm.op("ADD r1, r1, r10")
            asm.li("r10", tail * cout)
            asm.op("ADD r3, r3, r10")
        asm.li("r10", (w - blocks * PIXELS) * cin, "to the next input row")
        asm.op("ADD r1, r1, r10")


TEMPLATE = Template(task="conv2d", generate=_generate, params={}, space={}, doc=__doc__, check=check_conv)
