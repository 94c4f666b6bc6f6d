"""Constant rows and tiles a kernel builds for itself: 0/+-1 permutation and replication
tiles (rotate-half, broadcasting a narrow row) and mask rows (heads narrower than VLEN,
the causal diagonal).

plena has no immediate vector constants, so a pattern is stored into FP_MEM after the
task's constants (one S_ST_FP per entry), and each Vector SRAM row is a VLEN-wide
window of it (S_MAP_V_FP). A tile's MLEN rows go from Vector SRAM to the layout's
scratch in HBM and come back into Matrix SRAM with one H_PREFETCH_M: Matrix SRAM is
filled only from HBM.
"""
from __future__ import annotations

from .asm import Asm
from .template import Ctx


class Patterns:
    """FP_MEM patterns, handed out after the task's constants."""

    def __init__(self, asm: Asm, ctx: Ctx, reg: str):
        self.asm, self.hw, self.reg = asm, ctx.hw, reg
        self.next = len(ctx.layout.constants)
        self.need = self.next

    def pattern(self, length: int, values: dict[int, str]) -> int:
        """FP_MEM address of `length` entries, zero except values[i] (an f register's value)."""
        base = self.next
        self.next += length
        self.need = self.next
        if self.next > self.hw.FP_MEM_SIZE:
            raise ValueError(f"constant patterns need {self.next} FP_MEM entries; FP_MEM_SIZE="
                             f"{self.hw.FP_MEM_SIZE}")
        # every entry, zeros too: an earlier kernel of the same program may have left a pattern here
        self.asm.li(self.reg, base)
        for i in range(length):
            self.asm(f"S_ST_FP {values.get(i, 'f0')}, {self.reg}, {i}")
        return base

    def row(self, vaddr_reg: str, start: int) -> None:
        """Vector row at vaddr_reg = FP_MEM[start .. start + VLEN)."""
        self.asm.li(self.reg, start)
        self.asm(f"S_MAP_V_FP {vaddr_reg}, {self.reg}, 0")


def ones(asm: Asm, one: str, minus_one: str | None = None) -> None:
    """one = 1.0 (exp(0) is exact), minus_one = -1.0, without task constants."""
    asm(f"S_EXP_FP {one}, f0", "1.0")
    if minus_one:
        asm(f"S_SUB_FP {minus_one}, f0, {one}", "-1.0")


def build_tile(asm: Asm, pat: Patterns, rows: list[int | None], zero: int, tile_reg: str,
               vbuf: int, hbm_areg: str, hbm_addr: int, regs: tuple[str, str]) -> None:
    """Matrix SRAM tile at tile_reg: row k = FP_MEM window starting at rows[k] (None: the
    all-zero window at `zero`), staged through Vector SRAM rows vbuf.. and HBM hbm_addr."""
    hw = pat.hw
    v, off = regs
    for k, start in enumerate(rows):
        asm.li(v, vbuf + k * hw.VLEN)
        pat.row(v, zero if start is None else start)
    asm.set_hbm_base(hbm_areg, hbm_addr, off)
    w = hw.HBM_V_WRITEBACK_AMOUNT
    for k in range(0, hw.MLEN, w):
        asm.li(v, vbuf + k * hw.VLEN)
        asm.li(off, k * hw.VLEN)
        asm(f"H_STORE_V {v}, {off}, {hbm_areg}, 0, 0")
    asm(f"H_PREFETCH_M {tile_reg}, gp0, {hbm_areg}, 0, 0", "constant tile from scratch")
