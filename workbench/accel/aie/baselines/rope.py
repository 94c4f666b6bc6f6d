"""rope: y = x * cos + rotate_half(x) * sin on every head, rows in blocks.

The DMA does the data movement: each block of rows arrives twice, as it is and with
every head's halves swapped (rotate_half without its sign), and cos/sin rows arrive
tiled to whole vectors (D < 32: the row repeated across the vector). Per row, sin is
multiplied by a sign vector (-1 on the first half of a head, +1 on the second; exact),
then every vector of the row is x * cos + swapped * signed sin: two exact bf16 products
and one fp32 sum, rounded once. Tunable: `block`, the most words of x per block."""
from __future__ import annotations

from .asm import Asm
from .template import Ctx, Template, dm_problem

X_BUF, XR_BUF, Y_BUF, C_BUF, S_BUF = 8192, 16384, 24576, 32768, 40960   # one bank each
BANK = 8192
LANES = 32
NEG_ONE, ONE = 0xBF80, 0x3F80               # bf16 -1.0 and 1.0


def _unit(d: int) -> int:
    """Words handled with one set of coefficient vectors: a head, or one vector of heads."""
    return max(d, LANES)


def _rows(s: int, w: int, d: int, block: int) -> int:
    fits = [r for r in range(1, s + 1) if s % r == 0 and r * w <= block and r * _unit(d) * 2 <= BANK]
    return max(fits) if fits else 0


def check_rope(s: int, h: int, d: int, block: int) -> str | None:
    w = h * d
    if d not in (16, 32) and d % 64:
        return f"needs D = 16, 32 or a multiple of 64 (got {d})"
    if w % LANES or _unit(d) > 4 * LANES:
        return f"needs H*D a multiple of {LANES} and D <= 128"
    if 2 * block > BANK or not _rows(s, w, d, block):
        return f"block {block} must hold a row and fit one {BANK}-byte bank"
    return None


def _check(ctx: Ctx, p: dict) -> str | None:
    return dm_problem(ctx) or check_rope(ctx.dims["S"], ctx.dims["H"], ctx.dims["D"], p["block"])


def _generate(ctx: Ctx, asm: Asm, p: dict) -> None:
    d = ctx.dims
    rope_pass(asm, ctx.addr("x"), ctx.addr("y"), ctx.addr("cos"), ctx.addr("sin"), d["S"], d["H"], d["D"],
              p["block"])


def rope_pass(asm: Asm, x: int, y: int, cos_at: int, sin_at: int, s: int, h: int, d: int,
              block: int) -> None:
    """y [S, H*D] = rope(x) with tables cos, sin [S, D]. Descriptors have address 0 and
    every address is a run-time offset (r1 x, r5 y, r2 the tables' row), so passes of
    one shape share them."""
    w, half, unit = h * d, d // 2, _unit(d)
    nv = unit // LANES                       # vectors per unit (1 or D/32)
    rows = _rows(s, w, d, block)
    xin = asm.bd("XIN", ext=0, loc=X_BUF, n0=rows * w, rel="l0")
    xrot = asm.bd("XROT", ext=half, loc=XR_BUF, n0=half, n1=2, s1=-half, ls1=2 * half,
                  n2=rows * h, s2=d, ls2=2 * d, rel="l0")
    if d < LANES:                            # each row repeated to fill a vector
        table = asm.bd("TABLE", ext=0, loc=C_BUF, n0=d, n1=LANES // d, s1=0, ls1=2 * d,
                       n2=rows, s2=d, ls2=2 * LANES, rel="l0")
    else:
        table = asm.bd("TABLE", ext=0, loc=C_BUF, n0=rows * d, rel="l0")
    yout = asm.bd("YOUT", ext=0, loc=Y_BUF, n0=rows * w, rel="l1")
    # sign vectors: x14 = -1, x15 = +1, x13 = -1 on the first half of each head (D <= 32)
    asm.op(f"MOVI r1, {NEG_ONE}")
    asm.op("VBCST.16 x14, r1")
    asm.op(f"MOVI r1, {ONE}")
    asm.op("VBCST.16 x15, r1")
    if d <= LANES:
        asm.op(f"VALIGN x13, x14, x15, {2 * (LANES - half)}", "half lanes of -1, then +1")
        if d == 16:
            asm.op("VSHUF x13, x13, x13, CATLO", "the pattern once per head")
    signs = ["x13"] if d <= LANES else ["x14" if j < nv // 2 else "x15" for j in range(nv)]
    cos = [f"x{6 + j}" for j in range(nv)] if nv > 1 else ["x6"]
    sins = [f"x{10 - nv + j}" for j in range(nv)] if nv > 1 else ["x8"]
    if nv > 2:                               # D = 128: four vectors per head
        cos, sins = ["x6", "x7", "x8", "x9"], ["x10", "x11", "x12", "x3"]
    coef_step = 2 * unit if d >= LANES else 2 * LANES
    asm.li("r1", x, "x address of the block")
    asm.li("r5", y, "y address of the block")
    asm.li("r2", cos_at, "cos address of the block")
    asm.li("r6", sin_at - cos_at)
    asm.li("r7", S_BUF - C_BUF)
    asm.li("r3", rows * w)
    asm.li("r4", rows * d)
    with asm.loop(s // rows, f"blocks of {rows} rows"):
        asm.op("DMAIN 0, {}, r1, r0".format(xin))
        asm.op(f"DMAIN 1, {xrot}, r1, r0")
        asm.op(f"DMAIN 0, {table}, r2, r0")
        asm.op("ADD r8, r2, r6")
        asm.op(f"DMAIN 1, {table}, r8, r7")
        asm.op("ACQ l0, 4", "block, its rotation and the tables landed")
        for i, reg in enumerate(("p0", "p1", "p2")):
            asm.op(f"MOVPI {reg}, {(X_BUF, XR_BUF, Y_BUF)[i]}")
        asm.op(f"MOVPI p3, {C_BUF}")
        asm.op(f"MOVPI p4, {S_BUF}")
        with asm.loop(rows, "rows"):
            for j in range(nv):
                asm.op(f"VLD {cos[j]}, [p3], 64")
                asm.op(f"VLD {sins[j]}, [p4], 64")
                asm.op(f"VMUL.BF16 acc{4 + j % 4}, {sins[j]}, {signs[j]}")
                asm.op(f"VSRS.BF16 {sins[j]}, acc{4 + j % 4}", "signed sin (exact)")
            if coef_step != 64 * nv:
                asm.op(f"PADDI p3, p3, {coef_step - 64 * nv}")
                asm.op(f"PADDI p4, p4, {coef_step - 64 * nv}")
            with asm.loop(w // unit, "heads (or vectors of heads) of the row"):
                for j in range(nv):
                    # alternate registers so the next vector's loads need not wait
                    xa, xr, out = ("x0", "x1", "x2") if j % 2 == 0 else ("x4", "x5", "x13")
                    asm.op(f"VLD {xa}, [p0], 64")
                    asm.op(f"VLD {xr}, [p1], 64")
                    asm.op(f"VMUL.BF16 acc{2 * (j % 2)}, {xa}, {cos[j]}")
                    asm.op(f"VMUL.BF16 acc{2 * (j % 2) + 1}, {xr}, {sins[j]}")
                    asm.op(f"AADD.F32 acc{2 * (j % 2)}, acc{2 * (j % 2)}, acc{2 * (j % 2) + 1}")
                    asm.op(f"VSRS.BF16 {out}, acc{2 * (j % 2)}")
                    asm.op(f"VST {out}, [p2], 64")
        asm.op(f"DMAOUT 0, {yout}, r5, r0")
        asm.op("ACQ l1, 1", "block read by the DMA")
        asm.op("ADD r1, r1, r3")
        asm.op("ADD r5, r5, r3")
        asm.op("ADD r2, r2, r4")


TEMPLATE = Template(task="rope", generate=_generate, params={"block": 2048},
                    space={"block": (1024, 2048, 4096)}, doc=__doc__, check=_check)
