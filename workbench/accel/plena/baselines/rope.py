"""rope: y = x * cos + rotate_half(x) * sin on every head of x [S, H*D].

rotate_half moves elements across half a head with a sign, which the vector unit cannot
do, so the matrix unit does it: a constant signed permutation tile R (block-diagonal,
one block per head of D columns in a VLEN chunk; requires VLEN % D == 0) gives
rot = x_chunk @ R exactly (one +-1 per column). When D < VLEN, cos and sin rows are
broadcast to the VLEN/D heads of a chunk by a 0/1 replication tile E, also exact.
Then y = bf16(bf16(x * cos) + bf16(rot * sin)).

Rows move in blocks of `rows` rows (chunk c of row i at Vector SRAM row c*rows + i);
`ahead = 1` fetches the next block (x, cos, sin) into a second buffer while the
current one is computed.
"""
from __future__ import annotations

from .asm import Asm
from .consttile import Patterns, build_tile, ones
from .template import Ctx, Template

BLK, TOFF, PTR, HOFF, ROW, CH, CS, SCR, TMP, ETILE, CUR = (f"gp{i}" for i in range(1, 12))
OUTER, XFER, ROWLOOP, CHLOOP = "gp12", "gp13", "gp14", "gp15"


def _geometry(ctx: Ctx, p: dict, d: dict | None = None) -> dict:
    hw, d = ctx.hw, d or ctx.dims
    s, dh = d["S"], d["D"]
    width = d["H"] * dh
    chunks = width // hw.VLEN
    rows = p["rows"]
    narrow = dh < hw.VLEN
    table_rows = 4 if narrow else 2          # raw cos, sin (+ broadcast cos, sin)
    buf = chunks * rows + table_rows * rows
    return dict(s=s, dh=dh, width=width, chunks=chunks, rows=rows, narrow=narrow,
                buf=buf, bufs=2 if p["ahead"] else 1)


def check(ctx: Ctx, p: dict, d: dict | None = None) -> str | None:
    hw, g = ctx.hw, _geometry(ctx, p, d)
    r = hw.HBM_V_PREFETCH_AMOUNT
    if hw.VLEN % g["dh"] or g["dh"] % 2:
        return f"head size D={g['dh']} must be even and divide VLEN={hw.VLEN}"
    if g["width"] % hw.VLEN:
        return f"row width H*D={g['width']} must be a multiple of VLEN={hw.VLEN}"
    if g["rows"] % r or g["rows"] % hw.HBM_V_WRITEBACK_AMOUNT or g["s"] % g["rows"]:
        return (f"rows={g['rows']} must be a multiple of HBM_V_PREFETCH_AMOUNT={r} and "
                f"HBM_V_WRITEBACK_AMOUNT={hw.HBM_V_WRITEBACK_AMOUNT} and divide S={g['s']}")
    need = max(g["bufs"] * g["buf"] + 1, hw.MLEN)
    if need > hw.VSRAM_ROWS:
        return f"rows={g['rows']}, ahead={p['ahead']} needs {need} Vector SRAM rows; VSRAM_ROWS={hw.VSRAM_ROWS}"
    if len(ctx.layout.constants) + 3 * hw.MLEN + g["dh"] > hw.FP_MEM_SIZE:
        return f"the constant tiles' patterns need more than FP_MEM_SIZE={hw.FP_MEM_SIZE} entries"
    return None


def _tiles(a: Asm, ctx: Ctx, g: dict, scratch: int) -> None:
    """R at Matrix SRAM 0 and, for narrow heads, E at tile 1."""
    hw, dh, half = ctx.hw, g["dh"], g["dh"] // 2
    vlen = hw.VLEN
    ones(a, "f1", "f2")
    pat = Patterns(a, ctx, SCR)
    # zeros(VLEN) | +1 | zeros(VLEN-1) | -1 | zeros(VLEN-1): +1 at column c is the window at
    # VLEN - c, -1 at column c the window at 2*VLEN - c, all-zero the window at 0.
    sign = pat.pattern(3 * vlen, {vlen: "f1", 2 * vlen: "f2"})
    rot = [sign + vlen - (k + half) if k % dh < half else sign + 2 * vlen - (k - half)
           for k in range(hw.MLEN)]
    build_tile(a, pat, rot, sign, "gp0", 0, "a3", scratch, (PTR, HOFF))
    if g["narrow"]:
        # ones every D entries: the window at (D - k) % D has ones at columns = k mod D
        period = pat.pattern(vlen + dh, {i: "f1" for i in range(0, vlen + dh, dh)})
        rep = [period + (dh - k) % dh if k < dh else None for k in range(hw.MLEN)]
        a.li(ETILE, hw.MLEN * hw.MLEN)
        build_tile(a, pat, rep, sign, ETILE, hw.MLEN * vlen, "a3", scratch + hw.MLEN * vlen, (PTR, HOFF))


def _generate(ctx: Ctx, a: Asm, p: dict) -> None:
    emit_rope(ctx, a, p, {n: ctx.addr(n) for n in ("x", "y", "cos", "sin", "scratch")})


def emit_rope(ctx: Ctx, a: Asm, p: dict, at: dict[str, int], d: dict | None = None) -> None:
    """RoPE of the HBM tensor at at["x"] into at["y"] (may be the same) with tables at
    at["cos"], at["sin"]; at["scratch"] stages the constant tiles (2 MLEN x MLEN)."""
    hw, g = ctx.hw, _geometry(ctx, p, d)
    vlen, r, rows, chunks = hw.VLEN, hw.HBM_V_PREFETCH_AMOUNT, g["rows"], g["chunks"]
    _tiles(a, ctx, g, at["scratch"])
    a.set_hbm_base("a0", at["x"], SCR)
    a.set_hbm_base("a1", at["y"], SCR)
    a.set_hbm_base("a4", at["cos"], SCR)
    a.set_hbm_base("a5", at["sin"], SCR)
    buf = g["buf"] * vlen
    table = chunks * rows * vlen            # raw cos rows, then raw sin, then broadcast cos, sin
    tmp = g["bufs"] * buf
    a.li(TMP, tmp, "scratch row")

    def stride(n):
        a.li(SCR, n)
        a(f"C_SET_STRIDE_REG {SCR}", f"STRIDE = {n}")

    def fetch(base: str, xoff: str, toff: str) -> None:
        """x block at xoff, cos/sin rows at toff into the buffer at `base`."""
        stride(g["width"])
        a(f"S_ADDI_INT {PTR}, {base}, 0")
        a(f"S_ADDI_INT {HOFF}, {xoff}, 0")
        with a.loop(XFER, chunks, "x block, chunk by chunk"):
            for i in range(0, rows, r):
                a.addi(CS, HOFF, i * g["width"], scratch=SCR)
                a(f"H_PREFETCH_V {PTR}, {CS}, a0, 1, 0")
                a(f"S_ADDI_INT {PTR}, {PTR}, {r * vlen}")
            a(f"S_ADDI_INT {HOFF}, {HOFF}, {vlen}")
        stride(g["dh"])
        for areg in ("a4", "a5"):
            a(f"S_ADDI_INT {HOFF}, {toff}, 0")
            for _ in range(0, rows, r):
                a(f"H_PREFETCH_V {PTR}, {HOFF}, {areg}, 1, 0")
                a(f"S_ADDI_INT {PTR}, {PTR}, {r * vlen}")
                a.addi(HOFF, HOFF, r * g["dh"], scratch=SCR)

    def compute(base: str) -> None:
        tables = 2 * rows if g["narrow"] else 0     # broadcast rows follow the raw ones
        if g["narrow"]:
            a.addi(PTR, base, table, scratch=SCR)
            a.addi(CS, base, table + 2 * rows * vlen, scratch=SCR)
            with a.loop(ROWLOOP, 2 * rows, "broadcast cos and sin rows over the chunk's heads"):
                a(f"M_MV gp0, {ETILE}, {PTR}")
                a(f"M_MV_WO {CS}, 0")
                a(f"S_ADDI_INT {PTR}, {PTR}, {vlen}")
                a(f"S_ADDI_INT {CS}, {CS}, {vlen}")
        a(f"S_ADDI_INT {ROW}, {base}, 0")
        a.addi(CS, base, table + tables * vlen, scratch=SCR)
        with a.loop(ROWLOOP, rows, "rows of the block"):
            a(f"S_ADDI_INT {CH}, {ROW}, 0")
            with a.loop(CHLOOP, chunks, "chunks of the row"):
                a(f"M_MV gp0, gp0, {CH}", "rotate_half(x) by the permutation tile")
                a(f"M_MV_WO {TMP}, 0")
                a(f"V_MUL_VV {CH}, {CH}, {CS}, 0", "x * cos")
                a.addi(PTR, CS, rows * vlen, scratch=SCR)
                a(f"V_MUL_VV {TMP}, {TMP}, {PTR}, 0", "rot * sin")
                a(f"V_ADD_VV {CH}, {CH}, {TMP}, 0")
                a.addi(CH, CH, rows * vlen, scratch=SCR)
            a(f"S_ADDI_INT {ROW}, {ROW}, {vlen}")
            a(f"S_ADDI_INT {CS}, {CS}, {vlen}")

    def store(base: str, xoff: str) -> None:
        stride(g["width"])
        w = hw.HBM_V_WRITEBACK_AMOUNT
        a(f"S_ADDI_INT {PTR}, {base}, 0")
        a(f"S_ADDI_INT {HOFF}, {xoff}, 0")
        with a.loop(XFER, chunks, "store the block"):
            for i in range(0, rows, w):
                a.addi(CS, HOFF, i * g["width"], scratch=SCR)
                a(f"H_STORE_V {PTR}, {CS}, a1, 1, 0")
                a(f"S_ADDI_INT {PTR}, {PTR}, {w * vlen}")
            a(f"S_ADDI_INT {HOFF}, {HOFF}, {vlen}")

    blocks = g["s"] // rows
    a(f"S_ADDI_INT {BLK}, gp0, 0")
    a(f"S_ADDI_INT {TOFF}, gp0, 0")
    if not p["ahead"]:
        with a.loop(OUTER, blocks, "row blocks"):
            fetch("gp0", BLK, TOFF)
            compute("gp0")
            store("gp0", BLK)
            a.addi(BLK, BLK, rows * g["width"], scratch=SCR)
            a.addi(TOFF, TOFF, rows * g["dh"], scratch=SCR)
        return
    # double buffered: CUR is the buffer being computed, the other one is in flight
    a(f"S_ADDI_INT {CUR}, gp0, 0")
    fetch(CUR, BLK, TOFF)

    def other(reg):
        a.li(SCR, buf)
        a(f"S_SUB_INT {reg}, {SCR}, {CUR}")

    def block(prefetch: bool) -> None:
        if prefetch:
            a.addi(HOFF, BLK, rows * g["width"], scratch=SCR)
            other(ROW)
            a.addi(TMP, BLK, rows * g["width"], scratch=SCR)
            a.addi(CH, TOFF, rows * g["dh"], scratch=SCR)
            fetch(ROW, TMP, CH)
            a.li(TMP, tmp)
        compute(CUR)
        store(CUR, BLK)
        other(CUR)
        a.addi(BLK, BLK, rows * g["width"], scratch=SCR)
        a.addi(TOFF, TOFF, rows * g["dh"], scratch=SCR)
    if blocks > 1:
        with a.loop(OUTER, blocks - 1, "row blocks, the next one in flight"):
            block(True)
    block(False)


TEMPLATE = Template(task="rope", generate=_generate, params={"rows": 4, "ahead": 0},
                    space={"rows": (4, 8, 16, 32), "ahead": (0, 1)}, doc=__doc__, check=check)
