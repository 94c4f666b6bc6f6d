"""Shared template for row-wise elementwise tasks (x [M, N] -> y [M, N]).

Work is cut into units of R = HBM_V_PREFETCH_AMOUNT rows x VLEN columns. A group of
`depth` units is prefetched into `depth` Vector SRAM slots, then each unit is
computed in place row by row and stored. depth = 1 (the baseline) waits for every
transfer; larger depths keep the DMA channel busy while the vector unit works.
"""
from __future__ import annotations

from typing import Callable

from .asm import Asm
from .template import Ctx, Template

# Register plan shared by elementwise bodies.
ROWBLOCK, PF_OFF, ST_OFF, ROW, SLOT, SCRATCH = "gp1", "gp2", "gp3", "gp4", "gp5", "gp8"
TMPS = ("gp6", "gp7", "gp9")
OUTER, INNER, ROWLOOP = "gp12", "gp13", "gp14"
FREGS = ("f1", "f2", "f3", "f4", "f5", "f6", "f7")

Body = Callable[[Asm, str, tuple[str, ...], dict[str, str]], None]


def _check(ctx: Ctx, p: dict) -> str | None:
    (x,) = [t for t in ctx.task.inputs(ctx.config)][:1]
    m, n = x.shape[0], x.shape[-1]
    hw, depth = ctx.hw, p["depth"]
    r = hw.HBM_V_PREFETCH_AMOUNT
    if m % r or n % hw.VLEN:
        return f"shape {x.shape} must have rows divisible by {r} and columns by VLEN={hw.VLEN}"
    if (n // hw.VLEN) % depth:
        return f"depth {depth} must divide the {n // hw.VLEN} column chunks"
    if (depth * r + len(TMPS)) > hw.VSRAM_ROWS:
        return f"depth {depth} needs more than the {hw.VSRAM_ROWS} Vector SRAM rows"
    return None


def elementwise_template(task: str, body: Body, constants: tuple[str, ...],
                         doc: str = "", in_place_rows: bool = True) -> Template:
    """`body(asm, row, tmps, fregs)` computes one row in place; `row` holds the row's
    Vector SRAM address, `tmps` hold addresses of scratch rows, `fregs` maps each
    constant name to the f register holding it."""

    def generate(ctx: Ctx, asm: Asm, p: dict) -> None:
        hw = ctx.hw
        x_name = ctx.task.inputs(ctx.config)[0].name
        y_name = ctx.task.outputs(ctx.config)[0].name
        m, n = ctx.task.inputs(ctx.config)[0].shape[0], ctx.task.inputs(ctx.config)[0].shape[-1]
        r, vlen, depth = hw.HBM_V_PREFETCH_AMOUNT, hw.VLEN, p["depth"]
        chunks = n // vlen
        fregs = dict(zip(constants, FREGS))
        for name, f in fregs.items():
            asm(f"S_LD_FP {f}, gp0, {ctx.const(name)}", f"{f} = {name}")
        tmp_base = depth * r * vlen
        for i, t in enumerate(TMPS):
            asm.li(t, tmp_base + i * vlen, "scratch row")
        asm.li(SCRATCH, n, "HBM row stride")
        asm("C_SET_STRIDE_REG " + SCRATCH)
        asm.set_hbm_base("a0", ctx.addr(x_name), SCRATCH)
        asm.set_hbm_base("a1", ctx.addr(y_name), SCRATCH)
        asm(f"S_ADDI_INT {ROWBLOCK}, gp0, 0")
        with asm.loop(OUTER, m // r, "row blocks"):
            asm(f"S_ADDI_INT {PF_OFF}, {ROWBLOCK}, 0")
            asm(f"S_ADDI_INT {ST_OFF}, {ROWBLOCK}, 0")
            with asm.loop(INNER, chunks // depth, "column chunk groups"):
                asm(f"S_ADDI_INT {SLOT}, gp0, 0")
                for _ in range(depth):
                    asm(f"H_PREFETCH_V {SLOT}, {PF_OFF}, a0, 1, 0")
                    asm(f"S_ADDI_INT {PF_OFF}, {PF_OFF}, {vlen}")
                    asm(f"S_ADDI_INT {SLOT}, {SLOT}, {r * vlen}")
                asm(f"S_ADDI_INT {ROW}, gp0, 0")
                asm(f"S_ADDI_INT {SLOT}, gp0, 0")
                for _ in range(depth):
                    with asm.loop(ROWLOOP, r, "rows of the unit"):
                        body(asm, ROW, TMPS, fregs)
                        asm(f"S_ADDI_INT {ROW}, {ROW}, {vlen}")
                    asm(f"H_STORE_V {SLOT}, {ST_OFF}, a1, 1, 0")
                    asm(f"S_ADDI_INT {ST_OFF}, {ST_OFF}, {vlen}")
                    asm(f"S_ADDI_INT {SLOT}, {SLOT}, {r * vlen}")
            asm.addi(ROWBLOCK, ROWBLOCK, r * n, scratch=SCRATCH)

    return Template(task=task, generate=generate, params={"depth": 1},
                    space={"depth": (1, 2, 4, 8)}, doc=doc or __doc__, check=_check)
