"""Shared template for row-wise tasks over x [M, N] (softmax, layer_norm, rms_norm).

A block of R = HBM_V_PREFETCH_AMOUNT rows is brought into Vector SRAM whole: chunk c
of row r sits at row (c*R + r) of the block buffer. Per-column parameter vectors
(gamma, beta) are loaded once. The body then works on one row at a time with
hardware loops over its N / VLEN chunks, and the block is stored back.
"""
from __future__ import annotations

from typing import Callable

from .asm import Asm
from .template import Ctx, Template

ROWBLOCK, HBM_OFF, PTR, ROW, CHUNK, SCRATCH, TMP = "gp1", "gp2", "gp3", "gp4", "gp5", "gp8", "gp9"
VEC_PTRS = ("gp6", "gp7")
OUTER, XFER, ROWLOOP, CHUNKLOOP = "gp12", "gp13", "gp14", "gp15"
FREGS = ("f1", "f2", "f3", "f4", "f5", "f6", "f7")


class RowKit:
    """What a body needs: geometry, registers, and a helper for loops over chunks."""

    def __init__(self, asm: Asm, ctx: Ctx, fregs: dict[str, str], vec_bases: dict[str, int],
                 shape: tuple[int, int]):
        self.asm, self.hw = asm, ctx.hw
        self.rows, self.cols = shape
        self.r = ctx.hw.HBM_V_PREFETCH_AMOUNT
        self.chunks = self.cols // ctx.hw.VLEN
        self.f = fregs
        self.vec_bases = vec_bases

    def over_chunks(self, body: Callable[[str, dict[str, str]], None], vectors: tuple[str, ...] = ()):
        """Run `body(chunk_reg, vec_regs)` for every chunk of the current row; chunk_reg
        holds the chunk's Vector SRAM address, vec_regs[name] the matching chunk of
        each parameter vector."""
        asm, vlen = self.asm, self.hw.VLEN
        asm(f"S_ADDI_INT {CHUNK}, {ROW}, 0")
        regs = dict(zip(vectors, VEC_PTRS))
        for name, reg in regs.items():
            asm.li(reg, self.vec_bases[name])
        with asm.loop(CHUNKLOOP, self.chunks):
            body(CHUNK, regs)
            asm(f"S_ADDI_INT {CHUNK}, {CHUNK}, {self.r * vlen}")
            for reg in regs.values():
                asm(f"S_ADDI_INT {reg}, {reg}, {vlen}")


def _check(ctx: Ctx, p: dict, n_vectors: int, shape: tuple[int, int] | None = None) -> str | None:
    hw = ctx.hw
    m, n = shape or ctx.task.inputs(ctx.config)[0].shape
    r = hw.HBM_V_PREFETCH_AMOUNT
    if m % r or n % hw.VLEN:
        return f"shape {(m, n)} must have rows divisible by {r} and columns by VLEN={hw.VLEN}"
    chunks = n // hw.VLEN
    rows_needed = chunks * r + n_vectors * (-(-chunks // r) * r) + 1
    if rows_needed > hw.VSRAM_ROWS:
        return f"needs {rows_needed} Vector SRAM rows, have {hw.VSRAM_ROWS}"
    return None


def rowwise_template(task: str, row_body: Callable[[RowKit], None], constants: tuple[str, ...],
                     vectors: tuple[str, ...] = (), doc: str = "") -> Template:
    """`row_body(kit)` transforms the row whose first chunk address is in ROW, in place.
    `vectors` names per-column input vectors (e.g. gamma) loaded once."""

    def generate(ctx: Ctx, asm: Asm, p: dict) -> None:
        x, y = ctx.task.inputs(ctx.config)[0], ctx.task.outputs(ctx.config)[0]
        emit_rowwise(ctx, asm, row_body, ctx.addr(x.name), ctx.addr(y.name), x.shape,
                     {c: c for c in constants}, {v: ctx.addr(v) for v in vectors})

    return Template(task=task, generate=generate, params={}, space={}, doc=doc or __doc__,
                    check=lambda ctx, p: _check(ctx, p, len(vectors)))


def emit_rowwise(ctx: Ctx, asm: Asm, row_body: Callable[[RowKit], None], x_addr: int, y_addr: int,
                 shape: tuple[int, int], constants: dict[str, str], vectors: dict[str, int]) -> None:
    """The row-wise kernel on HBM x [M, N] -> y: `constants` maps the names the body uses
    to task constants, `vectors` the per-column vectors it reads to HBM addresses."""
    hw = ctx.hw
    m, n = shape
    r, vlen = hw.HBM_V_PREFETCH_AMOUNT, hw.VLEN
    chunks = n // vlen
    fregs = dict(zip(constants, FREGS))
    for name, f in fregs.items():
        asm(f"S_LD_FP {f}, gp0, {ctx.const(constants[name])}", f"{f} = {constants[name]}")
    block_rows = chunks * r
    vec_bases, base = {}, block_rows * vlen
    groups = -(-chunks // r)
    for i, (name, addr) in enumerate(vectors.items()):
        vec_bases[name] = base
        asm.set_hbm_base("a2", addr, SCRATCH)
        asm.li(PTR, base, f"{name} -> Vector SRAM {base}")
        asm(f"S_ADDI_INT {HBM_OFF}, gp0, 0")
        with asm.loop(XFER, groups, f"load {name}"):
            asm(f"H_PREFETCH_V {PTR}, {HBM_OFF}, a2, 0, 0")
            asm(f"S_ADDI_INT {PTR}, {PTR}, {r * vlen}")
            asm(f"S_ADDI_INT {HBM_OFF}, {HBM_OFF}, {r * vlen}")
        base += groups * r * vlen
    asm.li(TMP, base, "scratch row")
    asm.li(SCRATCH, n, "HBM row stride")
    asm(f"C_SET_STRIDE_REG {SCRATCH}")
    asm.set_hbm_base("a0", x_addr, SCRATCH)
    asm.set_hbm_base("a1", y_addr, SCRATCH)
    kit = RowKit(asm, ctx, fregs, vec_bases, shape)
    asm(f"S_ADDI_INT {ROWBLOCK}, gp0, 0")
    with asm.loop(OUTER, m // r, "row blocks"):
        for direction in ("load", "compute", "store"):
            if direction == "compute":
                asm(f"S_ADDI_INT {ROW}, gp0, 0")
                with asm.loop(ROWLOOP, r, "rows of the block"):
                    row_body(kit)
                    asm(f"S_ADDI_INT {ROW}, {ROW}, {vlen}")
                continue
            asm(f"S_ADDI_INT {PTR}, gp0, 0")
            asm(f"S_ADDI_INT {HBM_OFF}, {ROWBLOCK}, 0")
            op, areg = ("H_PREFETCH_V", "a0") if direction == "load" else ("H_STORE_V", "a1")
            with asm.loop(XFER, chunks, f"{direction} the block"):
                asm(f"{op} {PTR}, {HBM_OFF}, {areg}, 1, 0")
                asm(f"S_ADDI_INT {PTR}, {PTR}, {r * vlen}")
                asm(f"S_ADDI_INT {HBM_OFF}, {HBM_OFF}, {vlen}")
        asm.addi(ROWBLOCK, ROWBLOCK, r * n, scratch=SCRATCH)
