"""Shared pieces of the convolution templates (conv2d, depthwise_conv).

Both tasks take one HWC image x [H, W, C] (stride 1, no padding) and hold it in
Vector SRAM as rows of VLEN channels, pixel after pixel. The operand row of tap
(kh, kw) for output pixel (oh, ow) is then `pixel base + a constant` that depends on
the tap only, and stepping to the next output pixel adds one pixel; the end of an
output row skips the KW - 1 input pixels that no output row starts at. Hardware loops
have no conditional branch, so that skip is emitted after each output row and the
pixel loop is a loop over output rows around a loop over output columns.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import Callable

from .asm import Asm


@dataclass(frozen=True)
class Image:
    """Spatial geometry of one stride-1, unpadded convolution."""
    h: int
    w: int
    kh: int
    kw: int

    @property
    def oh(self) -> int:
        return self.h - self.kh + 1

    @property
    def ow(self) -> int:
        return self.w - self.kw + 1

    @property
    def pixels(self) -> int:
        return self.h * self.w

    @property
    def outputs(self) -> int:
        return self.oh * self.ow

    @property
    def taps(self) -> list[tuple[int, int]]:
        return [(i, j) for i in range(self.kh) for j in range(self.kw)]

    def check(self) -> str | None:
        if min(self.h, self.w, self.kh, self.kw) < 1 or self.oh < 1 or self.ow < 1:
            return (f"image {self.h}x{self.w} with a {self.kh}x{self.kw} filter has no output "
                    "pixel (stride 1, no padding needs H >= KH and W >= KW)")
        return None


def pixel_passes(asm: Asm, img: Image, bodies: list[Callable[[], None]],
                 row_end: Callable[[], None], rows_reg: str, cols_reg: str,
                 last: Callable[[int], None] | None = None) -> None:
    """Emit one pass per output pixel in row-major order; pass number i runs
    `bodies[i % len(bodies)]` (each body advances to the next pixel itself), and
    `row_end()` follows every output row. With `last`, the final pass runs
    `last(i % len(bodies))` instead (it may hand Matrix SRAM over to what follows).

    With more than one body (an alternating schedule) and OW not a multiple of their
    number, consecutive output rows start at different bodies, so the rows are
    emitted in groups whose phases repeat."""
    k = len(bodies)

    def row(phase: int, final: bool = False) -> int:
        n = img.ow - 1 if final else img.ow
        full, rest = divmod(n, k)
        if full:
            with asm.loop(cols_reg, full, "output columns"):
                for i in range(k):
                    bodies[(phase + i) % k]()
        for i in range(rest):
            bodies[(phase + i) % k]()
        if final:
            last((phase + n) % k)
        else:
            row_end()
        return (phase + img.ow) % k

    rows = img.oh - 1 if last else img.oh
    period = k // gcd(img.ow % k, k) if img.ow % k else 1
    reps, rest = divmod(rows, period)
    if reps:
        with asm.loop(rows_reg, reps, "output rows" if period == 1 else f"groups of {period} output rows"):
            phase = 0
            for _ in range(period):
                phase = row(phase)
    phase = 0
    for _ in range(rest):
        phase = row(phase)
    if last:
        row(phase, final=True)


def transfer_rows(asm: Asm, op: str, areg: str, vbase: int, hbase: int, rows: int, amount: int,
                  row_stride: int, regs: tuple[str, str, str, str]) -> None:
    """Move `rows` rows between consecutive Vector SRAM rows from `vbase` and HBM rows
    `row_stride` apart from a[areg] + `hbase`, `amount` rows per transfer (op is
    H_PREFETCH_V or H_STORE_V). When `rows` is not a multiple of `amount`, the last
    transfer ends at the last row and repeats a few already moved, so no transfer
    touches memory past the tensor. With fewer rows than one transfer, one transfer
    moves the rows after them too: the Vector SRAM buffer must have room, and a store
    must be contiguous (the layout reserves whole blocks of HBM_V_WRITEBACK_AMOUNT rows
    per tensor, so its tail block is the tensor's own).
    `regs` = (Vector SRAM pointer, HBM offset, loop counter, scratch)."""
    ptr, off, loop, scratch = regs
    vlen = asm.hw.VLEN
    flag = 0 if row_stride == vlen else 1         # rstride = 0 moves rows VLEN apart
    if rows < amount and op == "H_STORE_V" and flag:
        raise ValueError(f"strided {op} of {rows} rows: fewer than one transfer of {amount}")
    full = max(1, rows // amount)
    asm.li(ptr, vbase)
    asm.li(off, hbase)
    with asm.loop(loop, full):
        asm(f"{op} {ptr}, {off}, {areg}, {flag}, 0")
        if full > 1:
            asm.addi(ptr, ptr, amount * vlen, scratch=scratch)
            asm.addi(off, off, amount * row_stride, scratch=scratch)
    if rows > amount and rows % amount:
        last = rows - amount
        asm.li(ptr, vbase + last * vlen)
        asm.li(off, hbase + last * row_stride)
        asm(f"{op} {ptr}, {off}, {areg}, {flag}, 0", "the last rows, ending at the tensor's end")
