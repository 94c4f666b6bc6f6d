"""gemv: y = A @ x. Blocks of 32 rows of A are brought into data memory transposed by
the DMA (one word per run: 32 rows become the 32 lanes of a vector per column k), in
chunks of up to 256 columns; x is loaded once. Per column k one multiply-accumulate
adds A[rows, k] * x[k] (x[k] broadcast by VLDB) into the block's 32 lanes; the block's
results are stored and all of y is written back at the end."""
from __future__ import annotations

from .asm import Asm
from .template import Ctx, Template

A_BUF, X_BUF, Y_BUF = 8192, 40960, 49152
ROWS = 32
MAX_CHUNK = 256


def _chunk(k: int) -> int:
    return max(c for c in range(1, MAX_CHUNK + 1) if k % c == 0)


def _check(ctx: Ctx, p: dict) -> str | None:
    m, k = ctx.dims["M"], ctx.dims["K"]
    if m % ROWS:
        return f"M = {m} must be a multiple of {ROWS}"
    if k * 2 > Y_BUF - X_BUF or m * 2 > ctx.hw.DM_SIZE - Y_BUF:
        return "x or y does not fit data memory"
    return None


def _generate(ctx: Ctx, asm: Asm, p: dict) -> None:
    m, k = ctx.dims["M"], ctx.dims["K"]
    kc = _chunk(k)
    xin = asm.bd("XIN", ext=ctx.addr("x"), loc=X_BUF, n0=k, rel="l2")
    acol = asm.bd("ACOLS", ext=ctx.addr("a"), loc=A_BUF, n0=1, n1=ROWS, s1=k, ls1=2, n2=kc, s2=1,
                  ls2=64, rel="l0")
    yout = asm.bd("YOUT", ext=ctx.addr("y"), loc=Y_BUF, n0=m, rel="l1")
    asm.op(f"DMAIN 1, {xin}, r0, r0")
    asm.op("ACQ l2, 1", "x landed")
    asm.op("MOVI r1, 0", "external offset of the chunk")
    asm.li("r5", ROWS * k - k, "from the end of a block's row to the next block")
    asm.op(f"MOVPI p1, {Y_BUF}")
    with asm.loop(m // ROWS, f"blocks of {ROWS} rows"):
        asm.op("ABCST acc0, r0")
        asm.op(f"MOVPI p3, {X_BUF}")
        with asm.loop(k // kc, f"chunks of {kc} columns"):
            asm.op(f"DMAIN 0, {acol}, r1, r0")
            asm.op("ACQ l0, 1", "columns landed")
            asm.op(f"MOVPI p0, {A_BUF}")
            with asm.loop(kc, "columns"):
                asm.op("VLD x0, [p0], 64", "A[block rows, k]")
                asm.op("VLDB x1, [p3], 2", "x[k] in every lane")
                asm.op("VMAC.BF16 acc0, x0, x1")
            asm.op(f"ADDI r1, r1, {kc}" if kc < 2048 else "NOP")
        asm.op("ADD r1, r1, r5")
        asm.op("VSRS.BF16 x2, acc0")
        asm.op("VST x2, [p1], 64")
    asm.op(f"DMAOUT 0, {yout}, r0, r0")


TEMPLATE = Template(task="gemv", generate=_generate, params={}, space={}, doc=__doc__, check=_check)
