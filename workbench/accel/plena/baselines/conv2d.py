"""conv2d as an implicit GEMM on the matrix unit: one output pixel x MLEN output
channels per fp32 accumulation in MV_ACC.

w [KH, KW, Cin, Cout] is a [KH*KW*Cin, Cout] matrix in HBM. For one chunk of MLEN
output channels its k-tiles are t = (kh*KW + kw) * Cin/MLEN + c (c a chunk of input
channels), n = KH*KW*Cin/MLEN of them, each loaded with one strided H_PREFETCH_M.
Output pixel p of that chunk is sum_t (x row of pixel p + tap(t), chunk c) @ tile t:
n M_MV into MV_ACC, one M_MV_WO (fp32 accumulation, one bf16 rounding). M_MV runs the
systolic array at its full rate with a quarter of M_MM's instructions and, unlike a
BLEN-pixel M_MM block, never spans two output rows.

The whole image sits in Vector SRAM (row (h*W + w) * Cin/MLEN + c, one contiguous
load); outputs collect in Vector SRAM in y's own layout and leave with contiguous
stores at the end.

Matrix SRAM has S = MSRAM_TILES slots. When n <= S a chunk's tiles stay resident
while every pixel is computed. When n > S (Cin = 128 needs 18 tiles) consecutive pixels
walk the tiles in alternating directions, a snake: tile t lives in slot t mod S, a pass
starts with the S tiles the previous pass ended with, and after using a tile it loads
the next tile of that slot in its walking direction (t + S forward, t - S backward). A
pass then costs n - S tile loads instead of n, each in flight while the S tiles
before its use compute.

`early = 1` (tuning, resident case) loads the next output-channel chunk's tiles as soon
as slots free up instead of after the chunk: into the slots the current chunk leaves
empty (slots are then allocated round-robin, chunk j's tile t in slot (j*n + t) mod S),
and during the chunk's last pass, each right after the last use of its slot. (With the
snake every slot is busy until the last pass, whose slots free up in an order the next
chunk's first pass cannot use, so it gains nothing there and is left out.)

When the image and the whole output do not fit in Vector SRAM together, each
output-channel chunk is stored (strided, STRIDE = Cout as for the weights) as soon as it
is done, from a buffer of one chunk. An `epilogue` (conv_block's batch norm and ReLU)
runs on each chunk's rows in Vector SRAM before they are stored, with `extra_rows`
rows of its own after the output.
"""
from __future__ import annotations

from dataclasses import dataclass

from kernelcraft.isa.loader import HardwareConfig

from .asm import Asm
from .conv import Image, pixel_passes, transfer_rows
from .template import Ctx, Template

# Register plan: pointers, scratch, then hardware-loop counters.
PIX, OUT, XA, MA, HOFF, SCR, PTR, OFF = (f"gp{i}" for i in range(1, 9))
ROWS, COLS, XFER = "gp12", "gp13", "gp14"


@dataclass(frozen=True)
class Plan:
    hw: HardwareConfig
    img: Image
    cin: int
    cout: int
    early: int
    extra_rows: int = 0

    @property
    def cic(self) -> int:
        return self.cin // self.hw.MLEN

    @property
    def coc(self) -> int:
        return self.cout // self.hw.MLEN

    @property
    def n(self) -> int:
        """k-tiles per output-channel chunk."""
        return self.img.kh * self.img.kw * self.cic

    @property
    def slots(self) -> int:
        return self.hw.MSRAM_TILES

    @property
    def snake(self) -> bool:
        return self.n > self.slots

    @property
    def x_rows(self) -> int:
        return max(self.img.pixels * self.cic, self.hw.HBM_V_PREFETCH_AMOUNT)

    @property
    def stream(self) -> bool:
        """Store each output-channel chunk when done (the whole output does not fit)."""
        return self.x_rows + self.img.outputs * self.coc + self.extra_rows > self.hw.VSRAM_ROWS

    @property
    def y_rows(self) -> int:
        return max(self.img.outputs * (1 if self.stream else self.coc), self.hw.HBM_V_WRITEBACK_AMOUNT)

    @property
    def extra_base(self) -> int:
        return (self.x_rows + self.y_rows) * self.hw.VLEN

    @property
    def y_base(self) -> int:
        return self.x_rows * self.hw.VLEN

    def check(self) -> str | None:
        hw, mlen = self.hw, self.hw.MLEN
        if hw.VLEN != mlen:
            return f"needs VLEN == MLEN (VLEN={hw.VLEN}, MLEN={mlen})"
        if self.cin % mlen or self.cout % mlen or not self.cin or not self.cout:
            return f"Cin={self.cin} and Cout={self.cout} must be positive multiples of MLEN={mlen}"
        problem = self.img.check()
        if problem:
            return problem
        if self.early not in (0, 1):
            return f"early={self.early!r} must be 0 or 1"
        rows = self.x_rows + self.y_rows + self.extra_rows
        if rows > hw.VSRAM_ROWS:
            return (f"the image ({self.x_rows} rows) and the output ({self.y_rows} rows"
                    f"{', one chunk at a time' if self.stream else ''}) need {rows} "
                    f"Vector SRAM rows; VSRAM_ROWS={hw.VSRAM_ROWS}")
        if self.stream and self.img.outputs < hw.HBM_V_WRITEBACK_AMOUNT:
            return f"{self.img.outputs} output pixels: fewer than one strided store"
        return None

    # ---- schedule --------------------------------------------------------------------
    def slot(self, chunk: int, t: int) -> int:
        if self.snake:
            return t % self.slots
        return (chunk * self.n + t) % self.slots if self.early else t

    def early_count(self) -> int:
        """Tiles of the next chunk that load into free slots when a chunk starts."""
        return min(self.n, self.slots - self.n) if self.early and not self.snake else 0

    def prologue(self, chunk: int) -> list[int]:
        """Tiles a chunk loads itself before its first pass (with `early`, a resident
        chunk after the first finds its tiles loaded by the chunk before)."""
        if chunk and self.early and not self.snake:
            return []
        return list(range(min(self.n, self.slots)))

    def passes(self) -> list[tuple[list[int], dict[int, int]]]:
        """The pass bodies in their cyclic order: (tile order, {tile used: tile to load
        into its slot right after, for later in the same pass})."""
        n, s = self.n, self.slots
        if not self.snake:
            return [(list(range(n)), {})]
        forward = (list(range(n)), {t: t + s for t in range(n - s)})
        backward = (list(range(n - 1, -1, -1)), {t: t - s for t in range(s, n)})
        return [forward, backward]

    def handover(self, chunk: int, phase: int) -> dict[int, int]:
        """With `early`, the last pass of a chunk (body `phase`) loads the next chunk's
        remaining tiles: {tile used: next-chunk tile}, each after the last use of its slot."""
        if not self.early or self.snake or chunk + 1 >= self.coc:
            return {}
        order, _ = self.passes()[phase]
        last_use = {self.slot(chunk, t): t for t in order}        # later uses overwrite
        nxt = chunk + 1
        start = range(self.early_count(), min(self.n, self.slots))   # what a chunk starts with
        return {last_use[self.slot(nxt, t)]: t for t in start}


class Conv2d:
    def __init__(self, ctx: Ctx, asm: Asm, plan: Plan, epilogue=None):
        """`epilogue(conv, chunk, first_row, step)` emits work on one output-channel chunk's
        rows in Vector SRAM (outputs rows from address first_row, `step` apart)."""
        self.ctx, self.a, self.p, self.epilogue = ctx, asm, plan, epilogue
        self.vlen = plan.hw.VLEN
        self.tile = plan.hw.MLEN * plan.hw.MLEN

    def x_offset(self, t: int) -> int:
        """Vector SRAM distance from a pixel's first row to tile t's operand row."""
        p = self.p
        tap, c = divmod(t, p.cic)
        kh, kw = divmod(tap, p.img.kw)
        return ((kh * p.img.w + kw) * p.cic + c) * self.vlen

    def w_offset(self, chunk: int, t: int) -> int:
        """HBM offset of tile t of an output-channel chunk within w."""
        return t * self.p.hw.MLEN * self.p.cout + chunk * self.p.hw.MLEN

    def slot_reg(self, chunk: int, t: int) -> str:
        """A register holding tile t's slot address (gp0 for slot 0)."""
        s = self.p.slot(chunk, t)
        if not s:
            return "gp0"
        self.a.li(MA, s * self.tile)
        return MA

    def load(self, chunk: int, t: int, into: str | None = None) -> None:
        a = self.a
        reg = into or self.slot_reg(chunk, t)
        a.li(HOFF, self.w_offset(chunk, t))
        a(f"H_PREFETCH_M {reg}, {HOFF}, a1, 1, 0", f"tile {t} of chunk {chunk}")

    def one_pass(self, chunk: int, order: list[int], loads: dict[int, int],
                 handover: dict[int, int] | None = None) -> None:
        a, p = self.a, self.p
        handover = handover or {}
        for t in order:
            off = self.x_offset(t)
            if off:
                a.addi(XA, PIX, off, scratch=SCR)
            reg = self.slot_reg(chunk, t)
            a(f"M_MV gp0, {reg}, {XA if off else PIX}")
            if t in loads:
                self.load(chunk, loads[t], into=reg)
            if t in handover:
                self.load(chunk + 1, handover[t], into=reg)
        a(f"M_MV_WO {OUT}, 0", "round once to bf16")
        a.addi(OUT, OUT, self.out_step, scratch=SCR)
        a.addi(PIX, PIX, p.cic * self.vlen, scratch=SCR)

    def chunk(self, j: int) -> None:
        a, p = self.a, self.p
        a.comment(f"output channels {j * p.hw.MLEN}..{(j + 1) * p.hw.MLEN - 1}")
        for t in p.prologue(j):
            self.load(j, t)
        if j + 1 < p.coc:
            for t in range(p.early_count()):
                self.load(j + 1, t)
        a(f"S_ADDI_INT {PIX}, gp0, 0")
        a.li(OUT, p.y_base + (0 if p.stream else j * self.vlen))
        passes = p.passes()
        bodies = [lambda o=o, ld=ld: self.one_pass(j, o, ld) for o, ld in passes]

        def last(phase: int) -> None:
            self.one_pass(j, *passes[phase], handover=p.handover(j, phase))
        pixel_passes(a, p.img, bodies,
                     lambda: a.addi(PIX, PIX, (p.img.kw - 1) * p.cic * self.vlen, scratch=SCR),
                     ROWS, COLS, last=last if any(p.handover(j, ph) for ph in range(len(passes))) else None)
        if p.stream:
            if self.epilogue:
                self.epilogue(self, j, p.y_base, self.vlen)
            transfer_rows(a, "H_STORE_V", "a2", p.y_base, j * p.hw.MLEN, p.img.outputs,
                          p.hw.HBM_V_WRITEBACK_AMOUNT, p.cout, (PTR, OFF, XFER, SCR))

    @property
    def out_step(self) -> int:
        return self.vlen if self.p.stream else self.p.coc * self.vlen

    def run(self) -> None:
        a, p, ctx = self.a, self.p, self.ctx
        a.set_hbm_base("a0", ctx.addr("x"), SCR)
        a.set_hbm_base("a1", ctx.addr("w"), SCR)
        a.set_hbm_base("a2", ctx.addr("y"), SCR)
        a.li(SCR, p.cout)
        a(f"C_SET_STRIDE_REG {SCR}", "w rows are Cout apart")
        a.comment("the image, contiguous: row (h*W + w)*Cin/MLEN + c")
        transfer_rows(a, "H_PREFETCH_V", "a0", 0, 0, p.img.pixels * p.cic, p.hw.HBM_V_PREFETCH_AMOUNT,
                      self.vlen, (PTR, OFF, XFER, SCR))
        for j in range(p.coc):
            self.chunk(j)
        if p.stream:
            return
        for j in range(p.coc):
            if self.epilogue:
                self.epilogue(self, j, p.y_base + j * self.vlen, p.coc * self.vlen)
        a.comment("the output, in y's layout")
        transfer_rows(a, "H_STORE_V", "a2", p.y_base, 0, p.img.outputs * p.coc, p.hw.HBM_V_WRITEBACK_AMOUNT,
                      self.vlen, (PTR, OFF, XFER, SCR))


def plan(ctx: Ctx, params: dict) -> Plan:
    d = ctx.dims
    return Plan(ctx.hw, Image(d["H"], d["W"], d["KH"], d["KW"]), d["Cin"], d["Cout"], params["early"])


TEMPLATE = Template(
    task="conv2d",
    generate=lambda ctx, asm, params: Conv2d(ctx, asm, plan(ctx, params)).run(),
    params={"early": 0},
    space={"early": (0, 1)},
    doc=__doc__,
    check=lambda ctx, params: plan(ctx, params).check(),
)
