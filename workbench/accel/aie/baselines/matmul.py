"""Shared template for contractions C = A @ B with VMMAC.BF16 (gemm, batch_matmul,
linear; conv2d builds on the same pieces).

Output blocks of 8 rows x 32 columns live in eight accumulators (two 4-row strips x
four 8-column tiles). For each block, K is walked in chunks of up to 256: the DMA brings
the block's A rows into data memory as 4x8 tiles (64 bytes each) and B's chunk as 8x8
tiles (128 bytes each), and the core runs one k-tile per step: ten loads (two A tiles,
four B tile pairs) and eight VMMAC.BF16. The block is rounded to bf16 into a staging
buffer and written back by DMA, which is waited for. Buffers sit in separate banks.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .asm import Asm
from .template import Ctx, Template

A0_BUF, A1_BUF = 8192, 57344                 # the two A strips (banks 1 and 7)
B_BUF, B_STEP = 16384, 8192                 # B tile j at B_BUF + j * B_STEP (banks 2..5)
C_BUF, BIAS_BUF = 49152, 49664              # staging and bias tiles (bank 6)
MAX_CHUNK = 256
ROWS, COLS = 8, 32                           # output block


def chunk(k: int) -> int:
    """The largest multiple of 8 dividing k, at most MAX_CHUNK."""
    return max(c for c in range(8, MAX_CHUNK + 1, 8) if k % c == 0)


def a_descriptor(asm: Asm, name: str, ext: int, row_stride: int, kc: int) -> str:
    """One 4-row strip of A (rows row_stride words apart) as kc/8 tiles of 4x8."""
    return asm.bd(name, ext=ext, loc=A0_BUF, n0=8, n1=4, s1=row_stride, ls1=16, n2=kc // 8, s2=8,
                  ls2=64, rel="l0")


def b_rows_descriptor(asm: Asm, name: str, ext: int, row_stride: int, kc: int) -> str:
    """kc rows x 32 columns of a row-major B as four columns of 8x8 tiles."""
    return asm.bd(name, ext=ext, loc=B_BUF, n0=8, n1=kc, s1=row_stride, ls1=16, n2=4, s2=8,
                  ls2=B_STEP, rel="l0")


def c_descriptor(asm: Asm, name: str, ext: int, row_stride: int, rows: int = 4) -> str:
    """One strip of the staged block (`rows` of its 4 rows) back to C."""
    return asm.bd(name, ext=ext, loc=C_BUF, n0=8, n1=rows, s1=row_stride, ls1=16, n2=4, s2=8,
                  ls2=64, rel="l1")


def k_steps(asm: Asm, kc: int) -> None:
    """The inner loop over the kc / 8 k-tiles of a chunk; pointers p0/p1 (A strips) and
    p2..p5 (B tile columns) walk their buffers."""
    asm.op(f"MOVPI p0, {A0_BUF}")
    asm.op(f"MOVPI p1, {A1_BUF}")
    for j in range(4):
        asm.op(f"MOVPI p{2 + j}, {B_BUF + j * B_STEP}")
    with asm.loop(kc // 8, "k-tiles"):
        # in program order: each multiply comes after the loads of its operands, so the
        # in-order packer can put it in a bundle with later loads
        for op in ("VLD x0, [p0], 64", "VLD x4, [p2], 64", "VLD x1, [p1], 64", "VLD x5, [p2], 64",
                   "VLD x6, [p3], 64", "VLD x8, [p4], 64", "VMMAC.BF16 acc0, x0, y2",
                   "VLD x7, [p3], 64", "VLD x9, [p4], 64", "VMMAC.BF16 acc4, x1, y2",
                   "VLD x10, [p5], 64", "VLD x11, [p5], 64", "VMMAC.BF16 acc1, x0, y3",
                   "VMMAC.BF16 acc5, x1, y3", "VMMAC.BF16 acc2, x0, y4", "VMMAC.BF16 acc6, x1, y4",
                   "VMMAC.BF16 acc3, x0, y5", "VMMAC.BF16 acc7, x1, y5"):
            asm.op(op)


def zero_accumulators(asm: Asm) -> None:
    for t in range(8):
        asm.op(f"ABCST acc{t}, r0")


def stage_block(asm: Asm) -> None:
    """Round the eight accumulators to bf16 into the staging buffer (strip-major)."""
    asm.op(f"MOVPI p6, {C_BUF}")
    for t in range(8):
        asm.op(f"VSRS.BF16 x{12 + t % 4}, acc{t}")
        asm.op(f"VST x{12 + t % 4}, [p6], 64")


@dataclass
class Gemm:
    """One contraction: C[M, N] = A[M, K] @ B[K, N] with A rows `a_stride` words apart,
    B row-major (rows `b_stride` apart) or given as W [N, K] (`transposed`, W's rows
    `b_stride` apart), C rows `c_stride` apart (each stride defaults to the dense one);
    optional bias [N] added to every row."""

    m: int
    k: int
    n: int
    a: int
    b: int
    c: int
    transposed: bool = False
    bias: int | None = None
    a_stride: int | None = None
    b_stride: int | None = None
    c_stride: int | None = None

    @property
    def sa(self) -> int:
        return self.a_stride or self.k

    @property
    def sb(self) -> int:
        return self.b_stride or (self.k if self.transposed else self.n)

    @property
    def sc(self) -> int:
        return self.c_stride or self.n


def contraction(asm: Asm, g: Gemm, base: Gemm | None = None, tag: str = "",
                prefetch: Callable[[Asm], None] | None = None,
                epilogue: Callable[[Asm], None] | None = None) -> None:
    """Emit the loops of one contraction. Its descriptors (named with `tag`, so several
    contractions of different shapes can live in one program) are made for `base` (the
    first of a batch of equal shapes, default g) and reused: g's addresses enter as
    run-time offsets from base's. `prefetch(asm)` runs at the start of every output
    block (r3 = the block's C offset, r12 = the second strip's distance, r13 = its
    staging distance); `epilogue(asm)` after the block is staged as bf16 in C_BUF and
    before it is written back (free then: accumulators, x registers, r14, r15, p6, p7)."""
    base = base or g
    kc = chunk(g.k)
    m, k, n = g.m, g.k, g.n
    # descriptors with the same fields are shared (Asm.bd), so contractions of one shape
    # and base (e.g. base addresses 0: every address a run-time offset) share them
    a_bd = a_descriptor(asm, f"ACH{tag}", base.a, base.sa, kc)
    if g.transposed:
        b_bd = asm.bd(f"WTCH{tag}", ext=base.b, loc=B_BUF, n0=1, n1=kc, s1=1, ls1=16, n2=8, s2=base.sb,
                      ls2=2, rel="l0")
    else:
        b_bd = b_rows_descriptor(asm, f"BCH{tag}", base.b, base.sb, kc)
    c_bd = c_descriptor(asm, f"CBLK{tag}", base.c, base.sc)
    bias_bd = None
    if g.bias is not None:
        bias_bd = asm.bd(f"BIAS{tag}", ext=base.bias, loc=BIAS_BUF, n0=8, n1=4, s1=0, ls1=16, n2=4,
                         s2=8, ls2=64, rel="l0")
    transfers = 2 + (4 if g.transposed else 1)
    b_chunk_step = kc if g.transposed else kc * g.sb
    b_col_step = COLS * g.sb if g.transposed else COLS
    # offsets from the descriptors' addresses: r1 A, r2 B, r3 C, r4 bias column
    asm.li("r1", g.a - base.a)
    asm.li("r2", g.b - base.b)
    asm.li("r3", g.c - base.c)
    asm.li("r4", (g.bias or 0) - (base.bias or 0))
    asm.li("r5", 4 * g.sa, "A: second strip")
    asm.li("r6", A1_BUF - A0_BUF, "data memory: second strip")
    asm.li("r7", kc)
    asm.li("r8", b_chunk_step)
    asm.li("r12", 4 * g.sc, "C: second strip")
    asm.op("MOVI r13, 256")
    with asm.loop(m // ROWS, f"blocks of {ROWS} rows"):
        with asm.loop(n // COLS, f"blocks of {COLS} columns"):
            if prefetch:
                prefetch(asm)
            if bias_bd:
                asm.op(f"DMAIN 1, {bias_bd}, r4, r0")
                asm.op("ACQ l0, 1", "bias tiles landed")
                asm.op(f"MOVPI p6, {BIAS_BUF}")
                for j in range(4):
                    asm.op("VLD x12, [p6], 64")
                    asm.op(f"VUPS.BF16 acc{j}, x12")
                    asm.op(f"VUPS.BF16 acc{4 + j}, x12")
            else:
                zero_accumulators(asm)
            with asm.loop(k // kc, f"chunks of {kc}"):
                asm.op("ADD r9, r1, r5")
                asm.op(f"DMAIN 0, {a_bd}, r1, r0")
                asm.op(f"DMAIN 1, {a_bd}, r9, r6")
                if g.transposed:
                    for j in range(4):
                        asm.li("r10", j * 8 * g.sb)
                        asm.op("ADD r10, r2, r10")
                        asm.li("r11", j * B_STEP)
                        asm.op(f"DMAIN {j % 2}, {b_bd}, r10, r11")
                else:
                    asm.op(f"DMAIN 1, {b_bd}, r2, r0")
                asm.op(f"ACQ l0, {transfers}", "A and B chunks landed")
                k_steps(asm, kc)
                asm.op("ADD r1, r1, r7")
                asm.op("ADD r2, r2, r8")
            stage_block(asm)
            if epilogue:
                epilogue(asm)
            asm.op("ADD r9, r3, r12")
            asm.op(f"DMAOUT 0, {c_bd}, r3, r0")
            asm.op(f"DMAOUT 1, {c_bd}, r9, r13")
            asm.op("ACQ l1, 2", "block read by the DMA")
            # next column block: A back to the block's first chunk, B to the next columns
            asm.li("r10", k)
            asm.op("SUB r1, r1, r10")
            asm.li("r10", b_col_step - (k // kc) * b_chunk_step)
            asm.op("ADD r2, r2, r10")
            asm.op(f"ADDI r3, r3, {COLS}")
            asm.op(f"ADDI r4, r4, {COLS}")
        # next row block: A down 8 rows, B and bias back to column 0, C to the next rows
        asm.li("r10", ROWS * g.sa)
        asm.op("ADD r1, r1, r10")
        asm.li("r10", (n // COLS) * b_col_step)
        asm.op("SUB r2, r2, r10")
        asm.li("r10", ROWS * g.sc - n)
        asm.op("ADD r3, r3, r10")
        asm.li("r4", (g.bias or 0) - (base.bias or 0))


def check_shape(m: int, k: int, n: int) -> str | None:
    if m % ROWS or n % COLS or k % 8:
        return f"needs M % {ROWS} == 0, N % {COLS} == 0 and K % 8 == 0 (got M={m}, K={k}, N={n})"
    return None


def contraction_template(task: str, gemms, doc: str = "") -> Template:
    """`gemms(ctx)` lists the contractions of the task (one per batch)."""

    def generate(ctx: Ctx, asm: Asm, p: dict) -> None:
        gs = gemms(ctx)
        for i, g in enumerate(gs):
            asm.comment(f"contraction {i}: M={g.m} K={g.k} N={g.n}")
            contraction(asm, g, gs[0])

    def check(ctx: Ctx, p: dict) -> str | None:
        gs = gemms(ctx)
        if any((g.m, g.k, g.n, g.transposed) != (gs[0].m, gs[0].k, gs[0].n, gs[0].transposed) for g in gs):
            return "the contractions of a task must have one shape"
        return next((c for g in gs if (c := check_shape(g.m, g.k, g.n))), None)

    return Template(task=task, generate=generate, params={}, space={}, doc=doc or __doc__, check=check)
