"""Shared template for element-wise tasks (x [rows, cols] -> y, the same shape).

The tensor is treated as one flat run of words, cut into blocks of `block` words (a
last, shorter block if needed). Each block is brought into data memory by DMA, waited
for, transformed one 32-lane vector at a time (load, the task's body, store) and written
back by DMA, whose completion is waited for before the buffers are reused. `unroll`
vectors are processed side by side (their operations interleaved, each on its own
registers), which hides latencies, when it divides the block's vectors; the baseline
uses 1.
"""
from __future__ import annotations

from typing import Callable

from .asm import Asm
from .template import Ctx, Template

# Data-memory buffers in separate banks (8 KB each at the default DM_SIZE).
IN_BUF, OUT_BUF = 8192, 24576
LANES = 32

# A body is a list of steps; each step maps a lane's register names to one operation.
Regs = dict[str, str]
Body = Callable[[Regs], list[str]]


def lane_regs(k: int) -> Regs:
    """Registers of lane k of an unrolled body: vectors x(2k), x(2k+1); accumulators
    acc(2k), acc(2k+1). Constants live in acc6, acc7 and x15 (so at most 3 lanes)."""
    return {"x": f"x{2 * k}", "y": f"x{2 * k + 1}", "a": f"acc{2 * k}", "b": f"acc{2 * k + 1}"}


def load_constants(ctx: Ctx, asm: Asm, names: tuple[str, ...], targets: tuple[str, ...]) -> None:
    """fp32 task constants from data memory into all lanes of accumulators."""
    for name, acc in zip(names, targets):
        asm.op(f"MOVPI p7, {ctx.const(name)}")
        asm.op("LD r9, [p7]")
        asm.op(f"ABCST {acc}, r9", f"{acc} = {name}")


def side_by_side(asm: Asm, body: Body, lanes: int, src: str, dst: str) -> None:
    """`lanes` vectors loaded through pointer `src`, `body` on each (operations
    interleaved, each lane on its own registers), stored through `dst`."""
    regs = [lane_regs(k) for k in range(lanes)]
    for r in regs:
        asm.op(f"VLD {r['x']}, [{src}], 64")
    steps = [body(r) for r in regs]
    for i in range(len(steps[0])):
        for s in steps:
            asm.op(s[i])
    for r in regs:
        asm.op(f"VST {r['y']}, [{dst}], 64")


def _check(ctx: Ctx, p: dict) -> str | None:
    n = ctx.task.inputs(ctx.config)[0].size
    hw = ctx.hw
    if n % LANES:
        return f"{n} elements are not a whole number of {LANES}-lane vectors"
    if p["block"] % LANES or p["block"] * 2 > min(OUT_BUF - IN_BUF, hw.DM_SIZE - OUT_BUF):
        return f"block {p['block']} must be a multiple of {LANES} words and fit a {OUT_BUF - IN_BUF}-byte buffer"
    if p["unroll"] not in (1, 2, 3):
        return "unroll must be 1, 2 or 3"
    return None


def elementwise_template(task: str, body: Body, constants: tuple[str, ...] = (),
                         setup: Callable[[Asm], None] | None = None, doc: str = "") -> Template:
    """`body(regs)` gives the operations that turn the vector loaded into regs['x'] into
    the result in regs['y'] (scratch: regs['a'], regs['b']); constants are loaded into
    acc7, acc6, ... in order; `setup(asm)` emits anything else needed once."""

    def generate(ctx: Ctx, asm: Asm, p: dict) -> None:
        x = ctx.task.inputs(ctx.config)[0]
        y = ctx.task.outputs(ctx.config)[0]
        n, block, u = x.size, p["block"], p["unroll"]
        load_constants(ctx, asm, constants, ("acc7", "acc6", "acc5"))
        if setup:
            setup(asm)
        full, tail = divmod(n, block)
        asm.op("MOVI r1, 0", "external offset of the block")
        for count, words in ((full, block), (1 if tail else 0, tail)):
            if not count:
                continue
            xin = asm.bd(f"XIN{words}", ext=ctx.addr(x.name), loc=IN_BUF, n0=words, rel="l0")
            yout = asm.bd(f"YOUT{words}", ext=ctx.addr(y.name), loc=OUT_BUF, n0=words, rel="l1")
            with asm.loop(count, f"blocks of {words} words"):
                asm.op(f"DMAIN 0, {xin}, r1, r0")
                asm.op("ACQ l0, 1", "block landed")
                asm.op(f"MOVPI p0, {IN_BUF}")
                asm.op(f"MOVPI p1, {OUT_BUF}")
                vectors = words // LANES
                lanes = u if vectors % u == 0 else 1
                with asm.loop(vectors // lanes, "vectors of the block"):
                    side_by_side(asm, body, lanes, "p0", "p1")
                asm.op(f"DMAOUT 0, {yout}, r1, r0")
                asm.op("ACQ l1, 1", "buffer read by the DMA")
                asm.op(f"ADDI r1, r1, {words}" if words < 2048 else f"MOVI r2, {words}")
                if words >= 2048:
                    asm.op("ADD r1, r1, r2")

    return Template(task=task, generate=generate, params={"block": 2048, "unroll": 1},
                    space={"block": (1024, 2048, 4096), "unroll": (1, 2, 3)},
                    doc=doc or __doc__, check=_check)
