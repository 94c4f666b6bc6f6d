"""depthwise_conv: bf16 products on the vector unit, summed in fp32 by the matrix unit.

Each output row (one pixel, one chunk of VLEN channels) is sum over the KH*KW taps of
x row (pixel + tap) * w row (tap). Summed in bf16 on the vector unit, every partial sum
is rounded; with large per-channel means (the outlier-channel edge case) the taps
cancel and that error leaves the tolerance. So the products, one V_MUL_VV each, go
through the matrix unit instead: M_MV adds each product row into MV_ACC in fp32, and
one M_MV_WO rounds the sum once.

M_MV needs a matrix that passes a row through, and Matrix SRAM loads only from HBM,
where a kernel may write only its output. An identity tile takes MLEN*MLEN elements
there (more than small outputs have) unless its rows overlap, and overlapping rows at
a positive stride make a Hankel matrix, T[r, j] = pattern[r + j]. The exchange matrix
J (J[r, j] = 1 iff r + j = MLEN - 1) is one: MLEN rows at stride 1 over 2*MLEN - 1
elements, zero but for a one in the middle. The kernel builds that pattern at the
start of y (every element of which it overwrites later) from a one-hot row made by
S_MAP_V_FP (FP_MEM and Vector SRAM start at zero), loads J into Matrix SRAM tile 0,
and uses it twice per output row: the fp32 sum of the taps comes out reversed, and
one more M_MV through J puts it back in order, exactly (one non-zero term per column).

`sum = "twosum"` (tuning) keeps the sum on the vector unit instead, exact enough to
give the same worst case as fp32: a running bf16 sum s and a bf16 error row e, each
product p added by Knuth's TwoSum (s' = s + p, b' = s' - s, the rounding error of the
addition is (s - (s' - b')) + (p - b'), exactly, into e), and s + e rounded once at the
end. Seven 2-cycle vector operations per tap instead of a 16-cycle M_MV: fewer cycles,
more instructions.

Channels are processed one VLEN chunk at a time: the chunk's image (row h*W + w) and
its KH*KW filter rows are loaded with strided H_PREFETCH_V (STRIDE = C), every output
pixel is computed into an out buffer, and the buffer is stored strided. `buffers = 2`
(tuning) double-buffers the chunks: the next chunk's image and filters load, and the
previous chunk's outputs drain, while the current chunk computes.
"""
from __future__ import annotations

from dataclasses import dataclass

from kernelcraft.isa.loader import HardwareConfig

from .asm import Asm
from .conv import Image, pixel_passes, transfer_rows
from .template import Ctx, Template

# Register plan: pointers, scratch, then hardware-loop counters. While a chunk computes,
# the transfer registers are free: they and the rest hold work-row and filter-row
# addresses (per summation: work rows, then filter rows).
PIX, OUT, XA, SCR, PTR, OFF = "gp1", "gp2", "gp3", "gp6", "gp7", "gp8"
ROWS, COLS, XFER = "gp12", "gp13", "gp14"
FREE = ("gp5", "gp4", "gp7", "gp8", "gp9", "gp10", "gp11", "gp14", "gp15")
WORK_ROWS = {"matrix": 1, "twosum": 6}     # product; or product, s, s', e, two temporaries
ONE = "f1"


@dataclass(frozen=True)
class Plan:
    hw: HardwareConfig
    img: Image
    c: int
    buffers: int
    sum: str              # "matrix" | "twosum"
    fp_base: int          # first FP_MEM entry after the task's constants

    @property
    def chunks(self) -> int:
        return self.c // self.hw.VLEN

    @property
    def x_rows(self) -> int:
        return max(self.img.pixels, self.hw.HBM_V_PREFETCH_AMOUNT)

    @property
    def w_rows(self) -> int:
        return max(len(self.img.taps), self.hw.HBM_V_PREFETCH_AMOUNT)

    @property
    def y_rows(self) -> int:
        return self.img.outputs

    @property
    def buffer_rows(self) -> int:
        return self.x_rows + self.w_rows + self.y_rows

    def buffer(self, chunk: int) -> tuple[int, int, int]:
        """Vector SRAM addresses of (image, filters, outputs) of a chunk's buffer."""
        vlen = self.hw.VLEN
        base = (chunk % self.buffers) * self.buffer_rows * vlen
        return base, base + self.x_rows * vlen, base + (self.x_rows + self.w_rows) * vlen

    @property
    def work_rows(self) -> list[int]:
        """Vector SRAM addresses of the summation's work rows, after the buffers."""
        base = self.buffers * self.buffer_rows * self.hw.VLEN
        return [base + i * self.hw.VLEN for i in range(WORK_ROWS[self.sum])]

    def check(self) -> str | None:
        hw, vlen = self.hw, self.hw.VLEN
        wb = hw.HBM_V_WRITEBACK_AMOUNT
        if vlen != hw.MLEN:
            return f"needs VLEN == MLEN (VLEN={vlen}, MLEN={hw.MLEN})"
        if self.c % vlen or not self.c:
            return f"C={self.c} must be a positive multiple of VLEN={vlen}"
        problem = self.img.check()
        if problem:
            return problem
        if self.buffers not in (1, 2):
            return f"buffers={self.buffers!r} must be 1 or 2"
        if self.sum not in WORK_ROWS:
            return f"sum={self.sum!r} must be one of {', '.join(map(repr, WORK_ROWS))}"
        matrix = self.sum == "matrix"
        if self.img.outputs < max(wb, 2 if matrix else 1):
            return (f"{self.img.outputs} output pixels: the strided stores move "
                    f"HBM_V_WRITEBACK_AMOUNT={wb} pixels at a time and need at least that many"
                    + (" (and at least 2, the rows of the exchange-matrix pattern)" if matrix else ""))
        rows = self.buffers * self.buffer_rows + WORK_ROWS[self.sum]
        if rows > hw.VSRAM_ROWS:
            return (f"buffers={self.buffers} needs {rows} Vector SRAM rows ({self.buffers} x (image "
                    f"{self.x_rows} + filters {self.w_rows} + outputs {self.y_rows}) + "
                    f"{WORK_ROWS[self.sum]} work rows); VSRAM_ROWS={hw.VSRAM_ROWS}"
                    + (": use buffers=1" if self.buffers > 1 else ""))
        if matrix and self.fp_base + vlen > hw.FP_MEM_SIZE:
            return (f"the exchange-matrix pattern needs FP_MEM entries {self.fp_base}.."
                    f"{self.fp_base + vlen - 1} after the task's constants; FP_MEM_SIZE="
                    f"{hw.FP_MEM_SIZE}: use sum='twosum'")
        return None


class Depthwise:
    def __init__(self, ctx: Ctx, asm: Asm, plan: Plan):
        self.ctx, self.a, self.p = ctx, asm, plan
        self.vlen = plan.hw.VLEN

    def exchange_matrix(self) -> None:
        """Matrix SRAM tile 0 = J, through a 2*MLEN - 1 element pattern at the start of y."""
        a, p, mlen = self.a, self.p, self.p.hw.MLEN
        staging = p.buffer(0)[2]        # out rows, still zero: row 0 gets the one, row 1 stays 0
        a.comment("exchange matrix J into Matrix SRAM tile 0")
        a(f"S_EXP_FP {ONE}, f0", "exp(0) = 1.0")
        a(f"S_ST_FP {ONE}, gp0, {p.fp_base + mlen - 1}")
        a.li(PTR, staging)
        a(f"S_MAP_V_FP {PTR}, gp0, {p.fp_base}", f"row = one-hot at {mlen - 1}")
        wb = p.hw.HBM_V_WRITEBACK_AMOUNT
        for k in range(-(-2 // wb)):           # the pattern's two rows, in whole transfers
            a.li(OFF, k * wb * self.vlen)
            if k:
                a.li(PTR, staging + k * wb * self.vlen)
            a(f"H_STORE_V {PTR}, {OFF}, a2, 0, 0", "pattern -> start of y, which is overwritten later")
        a(f"S_ADDI_INT {SCR}, gp0, 1")
        a(f"C_SET_STRIDE_REG {SCR}")
        a("H_PREFETCH_M gp0, gp0, a2, 1, 0", "J[r, j] = pattern[r + j]")

    def rows(self, op: str, areg: str, vbase: int, chunk: int, rows: int, amount: int) -> None:
        """A chunk's `rows` rows (pixels or taps, C apart in HBM) to or from Vector SRAM."""
        transfer_rows(self.a, op, areg, vbase, chunk * self.vlen, rows, amount, self.p.c,
                      (PTR, OFF, XFER, SCR))

    def load(self, j: int) -> None:
        p, r = self.p, self.p.hw.HBM_V_PREFETCH_AMOUNT
        xb, wb, _ = p.buffer(j)
        self.a.comment(f"channels {j * self.vlen}..: image and filters")
        self.rows("H_PREFETCH_V", "a0", xb, j, p.img.pixels, r)
        self.rows("H_PREFETCH_V", "a1", wb, j, len(p.img.taps), r)

    def store(self, j: int) -> None:
        p = self.p
        self.rows("H_STORE_V", "a2", p.buffer(j)[2], j, p.y_rows, p.hw.HBM_V_WRITEBACK_AMOUNT)

    def hold(self, wb: int) -> tuple[list[str], list[str | None]]:
        """Registers for the work rows, and per tap the register holding its filter row
        (None: taps beyond the free registers share the last one, loaded at each use)."""
        p, taps = self.p, len(self.p.img.taps)
        work = list(FREE[:len(p.work_rows)])
        regs = FREE[len(work):]
        held = regs[:taps] if taps <= len(regs) else regs[:-1]
        for reg, addr in zip(work, p.work_rows):
            self.a.li(reg, addr)
        for t, reg in enumerate(held):
            self.a.li(reg, wb + t * self.vlen, f"filter row of tap {t}")
        return work, list(held) + [None] * (taps - len(held))

    def product(self, t: int, dst: str, wb: int, wregs: list[str | None]) -> None:
        """dst = x row (pixel + tap t) * filter row t, rounded to bf16."""
        a, p, vlen = self.a, self.p, self.vlen
        kh, kw = p.img.taps[t]
        off = (kh * p.img.w + kw) * vlen
        if off:
            a.addi(XA, PIX, off, scratch=SCR)
        wreg = wregs[t]
        if wreg is None:
            wreg = FREE[-1]
            a.li(wreg, wb + t * vlen)
        a(f"V_MUL_VV {dst}, {XA if off else PIX}, {wreg}", f"tap ({kh}, {kw})")

    def pixel_matrix(self, wb: int, work: list[str], wregs: list[str | None]) -> None:
        a, (pt,) = self.a, work
        for t in range(len(self.p.img.taps)):
            self.product(t, pt, wb, wregs)
            a(f"M_MV gp0, gp0, {pt}", "MV_ACC += reversed product (fp32)")
        a(f"M_MV_WO {pt}, 0", "round once to bf16")
        a(f"M_MV gp0, gp0, {pt}", "reverse back")
        a(f"M_MV_WO {OUT}, 0")

    def pixel_twosum(self, wb: int, work: list[str], wregs: list[str | None]) -> None:
        a = self.a
        pt, s, s2, e, t1, t2 = work
        self.product(0, s, wb, wregs)
        for t in range(1, len(self.p.img.taps)):
            self.product(t, pt, wb, wregs)
            a(f"V_ADD_VV {s2}, {s}, {pt}", "s' = s + p")
            a(f"V_SUB_VV {t1}, {s2}, {s}", "b' = s' - s")
            a(f"V_SUB_VV {t2}, {s2}, {t1}", "a' = s' - b'")
            a(f"V_SUB_VV {t1}, {pt}, {t1}", "p - b'")
            a(f"V_SUB_VV {t2}, {s}, {t2}", "s - a'")
            if t == 1:
                a(f"V_ADD_VV {e}, {t2}, {t1}", "e = rounding error of s + p")
            else:
                a(f"V_ADD_VV {t1}, {t2}, {t1}", "rounding error of s + p")
                a(f"V_ADD_VV {e}, {e}, {t1}", "e += it")
            s, s2 = s2, s
        if len(self.p.img.taps) > 1:
            a(f"V_ADD_VV {OUT}, {s}, {e}", "s + e, rounded once")
        else:
            a(f"V_ADD_VF {OUT}, {s}, f0", "the only product")

    def compute(self, j: int) -> None:
        a, p = self.a, self.p
        xb, wb, yb = p.buffer(j)
        a.comment(f"channels {j * self.vlen}..: every output pixel")
        a.li(PIX, xb)
        a.li(OUT, yb)
        work, wregs = self.hold(wb)
        body = self.pixel_matrix if p.sum == "matrix" else self.pixel_twosum

        def pixel() -> None:
            body(wb, work, wregs)
            a(f"S_ADDI_INT {OUT}, {OUT}, {self.vlen}")
            a(f"S_ADDI_INT {PIX}, {PIX}, {self.vlen}")
        pixel_passes(a, p.img, [pixel],
                     lambda: a.addi(PIX, PIX, (p.img.kw - 1) * self.vlen, scratch=SCR), ROWS, COLS)

    def run(self) -> None:
        a, p, ctx = self.a, self.p, self.ctx
        a.set_hbm_base("a0", ctx.addr("x"), SCR)
        a.set_hbm_base("a1", ctx.addr("w"), SCR)
        a.set_hbm_base("a2", ctx.addr("y"), SCR)
        if p.sum == "matrix":
            self.exchange_matrix()
        a.li(SCR, p.c)
        a(f"C_SET_STRIDE_REG {SCR}", "image, filter and output rows are C apart")
        self.load(0)
        for j in range(p.chunks):
            if p.buffers > 1 and j + 1 < p.chunks:
                self.load(j + 1)
            self.compute(j)
            self.store(j)
            if p.buffers == 1 and j + 1 < p.chunks:
                self.load(j + 1)


def plan(ctx: Ctx, params: dict) -> Plan:
    d = ctx.dims
    return Plan(ctx.hw, Image(d["H"], d["W"], d["KH"], d["KW"]), d["C"], params["buffers"],
                params["sum"], len(ctx.layout.constants))


TEMPLATE = Template(
    task="depthwise_conv",
    generate=lambda ctx, asm, params: Depthwise(ctx, asm, plan(ctx, params)).run(),
    params={"buffers": 1, "sum": "matrix"},
    space={"buffers": (1, 2), "sum": ("matrix", "twosum")},
    doc=__doc__,
    check=lambda ctx, params: plan(ctx, params).check(),
)
