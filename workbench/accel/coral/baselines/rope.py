"""rope: per row, the four half-rows of the cos and sin tables are loaded once and every
head of the row is rotated against them (a strip of the half at a time when D/2 is
longer than a register group): y1 = x1 cos1 - x2 sin1, y2 = x2 cos2 + x1 sin2."""
from __future__ import annotations

from .template import Template


def rope_rows(asm, lmul, S, H, D, x, y, cos, sin):
    """y [S, H*D] = rope(x) with tables cos, sin [S, D] (addresses; y may equal x)."""
    half = D // 2
    c1, c2, s1, s2, x1, x2, ya = (f"v{i * lmul}" for i in range(7))   # nothing is masked: v0 is data
    asm.li("s0", x, "x row")
    asm.li("s1", y, "y row")
    asm.li("s2", cos, "cos row")
    asm.li("s3", sin, "sin row")
    with asm.loop("s4", S, "rows"):
        for reg, base in (("a0", "s0"), ("a1", "s1"), ("a3", "s2"), ("a4", "s3")):
            asm(f"mv {reg}, {base}")
        asm.li("a2", half)
        with asm.strip("a2", "t0", lmul, comment="a strip of the half row"):
            asm(f"vle32.v {c1}, (a3)")
            asm(f"vle32.v {s1}, (a4)")
            asm.addi("t2", "a3", 4 * half)
            asm(f"vle32.v {c2}, (t2)")
            asm.addi("t2", "a4", 4 * half)
            asm(f"vle32.v {s2}, (t2)")
            asm("mv a5, a0")
            asm("mv a6, a1")
            with asm.loop("t4", H, "heads"):
                asm(f"vle32.v {x1}, (a5)")
                asm.addi("t2", "a5", 4 * half)
                asm(f"vle32.v {x2}, (t2)")
                asm(f"vfmul.vv {ya}, {x2}, {s1}")
                asm(f"vfmsac.vv {ya}, {c1}, {x1}", "x1 cos1 - x2 sin1")
                asm(f"vfmul.vv {x1}, {x1}, {s2}")
                asm(f"vfmacc.vv {x1}, {c2}, {x2}", "x2 cos2 + x1 sin2")
                asm(f"vse32.v {ya}, (a6)")
                asm.addi("t2", "a6", 4 * half)
                asm(f"vse32.v {x1}, (t2)")
                asm.addi("a5", "a5", 4 * D)
                asm.addi("a6", "a6", 4 * D)
            asm("slli t1, t0, 2")
            for reg in ("a0", "a1", "a3", "a4"):
                asm(f"add {reg}, {reg}, t1")
        asm.addi("s0", "s0", 4 * H * D)
        asm.addi("s1", "s1", 4 * H * D)
        asm.addi("s2", "s2", 4 * D)
        asm.addi("s3", "s3", 4 * D)


def rope(ctx, asm, p):
    d = ctx.dims
    rope_rows(asm, p["lmul"], d["S"], d["H"], d["D"], ctx.addr("x"), ctx.addr("y"), ctx.addr("cos"),
              ctx.addr("sin"))


def _check(ctx, p):
    if 7 * p["lmul"] > 32:
        return f"lmul = {p['lmul']}: seven register groups do not fit v0..v31"
    return None


TEMPLATES = [
    Template("rope", rope, {"lmul": 4}, {"lmul": [1, 2, 4]},
             "per row: cos/sin halves in registers, every head rotated against them", _check),
]
