"""Shared template for row-wise tasks over x [rows, cols] (softmax, layer_norm, rms_norm).

Blocks of R whole rows (R a divisor of rows with R * cols <= 8192 words) are brought
into data memory by DMA and waited for; per-column vectors (gamma, beta) once at the
start. Each row is then processed in passes over its 32-lane chunks (statistics first,
then the output), written to an output buffer and sent back by DMA, whose completion is
waited for before the buffer is reused. Row statistics stay in fp32 accumulator lanes.
"""
from __future__ import annotations

from typing import Callable

from .asm import Asm
from .elementwise import load_constants
from .template import Ctx, Template

IN_BUF, OUT_BUF, VEC_BUF = 8192, 24576, 40960     # separate banks; vectors 4 KB apart
BLOCK_WORDS = 8192
LANES = 32


class RowKit:
    """What a row body needs: the chunk count and loops over the current row's chunks.
    r3 holds the row's first byte in the input buffer, p1 walks the output buffer."""

    def __init__(self, asm: Asm, cols: int, vectors: tuple[str, ...]):
        self.asm = asm
        self.chunks = cols // LANES
        self.cols = cols
        self.vectors = vectors

    def over_chunks(self, body: Callable[[], None], with_vectors: bool = False, skip_first: bool = False) -> None:
        """`body()` once per chunk of the row (the first chunk left out with skip_first);
        p2 walks the row, p4/p5 the parameter vectors when `with_vectors`."""
        a = self.asm
        if not skip_first:
            a.op("MOVP p2, r3")
        if with_vectors:
            for i, _ in enumerate(self.vectors):
                a.op(f"MOVPI p{4 + i}, {VEC_BUF + 4096 * i}")
        with a.loop(self.chunks - (1 if skip_first else 0)):
            body()


def _rows_per_block(rows: int, cols: int, block_words: int = BLOCK_WORDS) -> int:
    best = 1
    for r in range(1, rows + 1):
        if rows % r == 0 and r * cols <= block_words:
            best = r
    return best


def _check(ctx: Ctx, p: dict) -> str | None:
    rows, cols = ctx.task.inputs(ctx.config)[0].shape
    if cols % LANES:
        return f"cols {cols} must be a multiple of {LANES}"
    if cols > BLOCK_WORDS or cols * 2 > 4096:
        return f"cols {cols} does not fit the buffers"
    return None


def row_pass(ctx: Ctx, asm: Asm, row_body: Callable[[RowKit], None], constants: tuple[str, ...],
             vectors: dict[str, int], src: int, dst: int, rows: int, cols: int,
             absolute: bool = False, block_words: int = BLOCK_WORDS) -> None:
    """x [rows, cols] at `src` -> y at `dst`, `vectors` (name -> address) loaded once.
    With `absolute`, descriptors have address 0 and every address is a run-time offset,
    so passes of one shape share them (a Level-3 kernel runs several)."""
    load_constants(ctx, asm, constants, ("acc7", "acc6", "acc5", "acc4"))
    for i, (name, addr) in enumerate(vectors.items()):
        d = asm.bd(f"{name.upper()}IN", ext=0 if absolute else addr, loc=VEC_BUF + 4096 * i, n0=cols,
                   rel="l2")
        if absolute:
            asm.li("r1", addr)
        asm.op(f"DMAIN {i % 2}, {d}, {'r1' if absolute else 'r0'}, r0")
    if vectors:
        asm.op(f"ACQ l2, {len(vectors)}", "parameter vectors landed")
    r = _rows_per_block(rows, cols, block_words)
    words = r * cols
    xin = asm.bd("XIN", ext=0 if absolute else src, loc=IN_BUF, n0=words, rel="l0")
    yout = asm.bd("YOUT", ext=0 if absolute else dst, loc=OUT_BUF, n0=words, rel="l1")
    kit = RowKit(asm, cols, tuple(vectors))
    out = "r5" if absolute else "r1"
    if absolute:
        asm.li("r1", src, "input address of the block")
        asm.li("r5", dst, "output address of the block")
    else:
        asm.op("MOVI r1, 0", "external offset of the block")
    asm.li("r2", words)
    asm.li("r4", 2 * cols, "bytes per row")
    with asm.loop(rows // r, f"blocks of {r} rows"):
        asm.op(f"DMAIN 0, {xin}, r1, r0")
        asm.op("ACQ l0, 1", "block landed")
        asm.op(f"MOVI r3, {IN_BUF}")
        asm.op(f"MOVPI p1, {OUT_BUF}")
        with asm.loop(r, "rows of the block"):
            row_body(kit)
            asm.op("ADD r3, r3, r4", "next row")
        asm.op(f"DMAOUT 0, {yout}, {out}, r0")
        asm.op("ACQ l1, 1", "buffer read by the DMA")
        asm.op("ADD r1, r1, r2")
        if absolute:
            asm.op("ADD r5, r5, r2")


def rowwise_template(task: str, row_body: Callable[[RowKit], None], constants: tuple[str, ...],
                     vectors: tuple[str, ...] = (), doc: str = "") -> Template:
    """`row_body(kit)` emits the code of one row (input at r3, output through p1).
    Constants are loaded into acc7, acc6, ... in order."""

    def generate(ctx: Ctx, asm: Asm, p: dict) -> None:
        x, y = ctx.task.inputs(ctx.config)[0], ctx.task.outputs(ctx.config)[0]
        rows, cols = x.shape
        row_pass(ctx, asm, row_body, constants, {n: ctx.addr(n) for n in vectors}, ctx.addr(x.name),
                 ctx.addr(y.name), rows, cols)

    return Template(task=task, generate=generate, params={}, space={}, doc=doc or __doc__,
                    check=_check)
