"""gemv: y = a @ x, a [M, K], x [K].

Every MLEN x MLEN tile of `a` is used once, so the kernel streams tiles through
Matrix SRAM (using `tiles` of its tiles, 0 = all) in units: either `u` consecutive k-tiles of one
tile row (u divides K/MLEN) or `c` whole tile rows. M_TMV with a tile of `a`
(64 rows of a x 64 of K) adds row j's partial dot product into MV_ACC[j]; after a
tile row's last k-tile, M_MV_WO rounds the MLEN outputs to bf16 once, as one Vector
SRAM row. x is loaded once; y is stored at the end.

`ahead = 0` (the baseline) fetches a unit and waits for it. `ahead = 1` double
buffers (two units of tiles/2): the next unit is in flight while the current one is computed, so the HBM
channel (the bottleneck: a tile moves in MLEN * MLEN / HBM_BW cycles but is consumed
in MLEN / BLEN) never idles.
"""
from __future__ import annotations

from dataclasses import dataclass

from kernelcraft.isa.loader import HardwareConfig

from .asm import Asm
from .template import Ctx, Template

T, V, OUT, P, S, SCR, CUR = (f"gp{i}" for i in range(1, 8))
MT, II, JJ = "gp13", "gp14", "gp15"


@dataclass(frozen=True)
class Plan:
    hw: HardwareConfig
    m: int
    k: int
    tiles: int
    ahead: int

    @property
    def kt(self) -> int:
        return self.k // self.hw.MLEN

    @property
    def mt(self) -> int:
        return self.m // self.hw.MLEN

    @property
    def used(self) -> int:
        return self.tiles or self.hw.MSRAM_TILES

    @property
    def capacity(self) -> int:
        """Tiles per unit: all tiles used, or half of them for each of two buffers."""
        return self.used // 2 if self.ahead else self.used

    @property
    def unit(self) -> tuple[int, int]:
        """(c tile rows, u k-tiles) per unit."""
        cap = self.capacity
        if self.kt <= cap:
            return max(d for d in range(1, self.mt + 1) if self.mt % d == 0 and d * self.kt <= cap), self.kt
        return 1, max(d for d in range(1, cap + 1) if self.kt % d == 0)

    @property
    def tile(self) -> int:
        return self.hw.MLEN * self.hw.MLEN

    @property
    def out_base(self) -> int:
        r = self.hw.HBM_V_PREFETCH_AMOUNT
        return -(-self.kt // r) * r * self.hw.VLEN

    @property
    def vsram_rows(self) -> int:
        w = self.hw.HBM_V_WRITEBACK_AMOUNT
        return self.out_base // self.hw.VLEN + -(-self.mt // w) * w

    def check(self) -> str | None:
        hw, mlen = self.hw, self.hw.MLEN
        if hw.VLEN != mlen:
            return f"needs VLEN == MLEN (VLEN={hw.VLEN}, MLEN={mlen})"
        if self.m % mlen or self.k % mlen:
            return f"M={self.m} and K={self.k} must be multiples of MLEN={mlen}"
        if self.ahead not in (0, 1):
            return f"ahead={self.ahead!r} must be 0 or 1"
        least = 2 if self.ahead else 1
        if not least <= self.used <= hw.MSRAM_TILES:
            return (f"tiles={self.tiles} must be 0 (all) or between {least} and MSRAM_TILES="
                    f"{hw.MSRAM_TILES}" + (" (ahead=1 splits them into two buffers)" if self.ahead else ""))
        if self.vsram_rows > hw.VSRAM_ROWS:
            return f"needs {self.vsram_rows} Vector SRAM rows for x and y; VSRAM_ROWS={hw.VSRAM_ROWS}"
        return None


def _plan(ctx: Ctx, p: dict) -> Plan:
    return Plan(ctx.hw, ctx.dims["M"], ctx.dims["K"], p["tiles"], p["ahead"])


def _generate(ctx: Ctx, a: Asm, p: dict) -> None:
    plan = _plan(ctx, p)
    hw, vlen, tile = plan.hw, plan.hw.VLEN, plan.tile
    c, u = plan.unit
    nkb = plan.kt // u
    row_jump = hw.MLEN * plan.k - plan.k      # end of a tile row's k-tiles -> start of the next tile row
    bufs = (0, plan.capacity * tile)

    def ends_row(kb: int) -> bool:
        return c > 1 or kb == nkb - 1

    def prefetch(kb: int) -> None:
        """The unit whose first k-tile block is kb, from HBM offset P into slots from S."""
        with a.loop(II, c, "tile rows of the unit"):
            with a.loop(JJ, u, "k tiles"):
                a(f"H_PREFETCH_M {S}, {P}, a0, 1, 0")
                a(f"S_ADDI_INT {S}, {S}, {tile}")
                a(f"S_ADDI_INT {P}, {P}, {hw.MLEN}")
            if c > 1:
                a.addi(P, P, row_jump, scratch=SCR)
        if c == 1 and ends_row(kb):
            a.addi(P, P, row_jump, scratch=SCR)

    def compute(kb: int, buf: str) -> None:
        a(f"S_ADDI_INT {T}, {buf}, 0")
        with a.loop(II, c, "tile rows of the unit"):
            a.li(V, kb * u * vlen)
            with a.loop(JJ, u, "k tiles: MV_ACC accumulates in fp32"):
                a(f"M_TMV gp0, {T}, {V}")
                a(f"S_ADDI_INT {T}, {T}, {tile}")
                a(f"S_ADDI_INT {V}, {V}, {vlen}")
            if ends_row(kb):
                a(f"M_MV_WO {OUT}, 0", "64 outputs, rounded once to bf16")
                a(f"S_ADDI_INT {OUT}, {OUT}, {vlen}")

    def other_buffer(reg: str) -> None:
        a.li(SCR, bufs[0] + bufs[1])
        a(f"S_SUB_INT {reg}, {SCR}, {CUR}")

    def row_group(last: bool) -> None:
        for kb in range(nkb):
            if not plan.ahead:
                a(f"S_ADDI_INT {S}, gp0, 0")
                prefetch(kb)
                compute(kb, "gp0")
                continue
            if not (last and kb == nkb - 1):
                other_buffer(S)
                prefetch((kb + 1) % nkb)
            compute(kb, CUR)
            other_buffer(CUR)

    r, w = hw.HBM_V_PREFETCH_AMOUNT, hw.HBM_V_WRITEBACK_AMOUNT
    a.li(SCR, plan.k)
    a(f"C_SET_STRIDE_REG {SCR}", "STRIDE = K: rows of a")
    a.set_hbm_base("a0", ctx.addr("a"), SCR)
    a.set_hbm_base("a1", ctx.addr("x"), SCR)
    a.set_hbm_base("a2", ctx.addr("y"), SCR)
    a(f"S_ADDI_INT {V}, gp0, 0")
    a(f"S_ADDI_INT {P}, gp0, 0")
    with a.loop(II, -(-plan.kt // r), "load x"):
        a(f"H_PREFETCH_V {V}, {P}, a1, 0, 0")
        a(f"S_ADDI_INT {V}, {V}, {r * vlen}")
        a(f"S_ADDI_INT {P}, {P}, {r * vlen}")
    a(f"S_ADDI_INT {P}, gp0, 0")
    a.li(OUT, plan.out_base)
    groups = plan.mt // c
    if not plan.ahead:
        with a.loop(MT, groups, f"units of {c} tile row(s) x {u} k-tile(s)"):
            row_group(False)
    else:
        a(f"S_ADDI_INT {CUR}, gp0, 0")
        a(f"S_ADDI_INT {S}, gp0, 0")
        prefetch(0)
        if groups > 1:
            with a.loop(MT, groups - 1, f"units of {c} tile row(s) x {u} k-tile(s), next in flight"):
                row_group(False)
        row_group(True)
    a.li(OUT, plan.out_base)
    a(f"S_ADDI_INT {P}, gp0, 0")
    with a.loop(II, -(-plan.mt // w), "store y"):
        a(f"H_STORE_V {OUT}, {P}, a2, 0, 0")
        a(f"S_ADDI_INT {OUT}, {OUT}, {w * vlen}")
        a(f"S_ADDI_INT {P}, {P}, {w * vlen}")


TEMPLATE = Template(task="gemv", generate=_generate, params={"tiles": 0, "ahead": 0},
                    space={"tiles": (0, 2, 4, 8), "ahead": (0, 1)}, doc=__doc__,
                    check=lambda ctx, p: _plan(ctx, p).check())
