"""Shared template for contractions Y[M, N] = X[M, K] @ B (+ bias) with the right
operand in Matrix SRAM: gemm, batch_matmul and linear.

Right operand: its MLEN x MLEN tiles are loaded a group at a time, all K/MLEN
k-tiles of G output column tiles (G as large as Matrix SRAM allows; the last group
may be smaller). Left operand: rows of X stream through Vector SRAM in blocks of
`rows` rows; a block is contiguous in HBM, so it moves with unstrided H_PREFETCH_V.

Each output chunk (one row x MLEN columns) is one accumulation in MV_ACC over the
k-tiles -- M_MV for B stored [K, N], M_TMV for a weight stored [N, K] -- in fp32,
rounded to bf16 once by M_MV_WO. M_MV does MLEN*MLEN MACs in MLEN/BLEN steps (one per
cycle, the systolic array's full rate) plus the array's 4-cycle drain, against M_MM's
BLEN*BLEN*MLEN in BLEN steps plus the same drain, with a quarter of M_MM's
instructions and address updates, so it is the natural choice.

A block's outputs sit column-major in an out buffer (chunk n, row r at row n*rows + r)
so each group's columns go back with strided H_STORE_V (STRIDE = N).

`ahead = 0` (the baseline) fetches a block of X and waits for it. `ahead = 1` double
buffers X: the next block, or at a group's end the next group's first block, is in
flight while the current block is computed.

Level-2/3 templates fuse element-wise work into a contraction, as a compiler fuses an
epilogue: `Epilogue.body` runs on each output chunk right after its rounding (and bias),
in place, with one scratch row; with `Epilogue.operand` set, each chunk is first
multiplied by (`op` "mul") or added to (`op` "add", a residual) the same chunk of another
tensor shaped like Y, whose block is fetched next to the out buffer before the block is
computed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from kernelcraft.isa.loader import HardwareConfig

from .asm import Asm
from .template import Ctx, Template

# Register plan: pointers, then hardware-loop counters (one per nesting level).
T, V, OUT, XOFF, YOFF, BOFF, SCR, XCUR, BP = (f"gp{i}" for i in range(1, 10))
GRP, BLK, NL, RR, KK = "gp11", "gp12", "gp13", "gp14", "gp15"
EPI = "gp10"          # an epilogue's scratch row, or the chunk of its `mul` operand

PARAMS = {"rows": 16, "ahead": 0}
SPACE = {"rows": (4, 8, 16, 32, 64), "ahead": (0, 1)}


@dataclass(frozen=True)
class Operands:
    """HBM addresses of one contraction: x [M, K], w (B [K, N] or W [N, K]), y [M, N]."""
    x: int
    w: int
    y: int


@dataclass(frozen=True)
class Epilogue:
    """Fused work on each rounded output chunk: `body(asm, out_reg, (tmp_reg,), fregs)`
    (the element-wise templates' body signature) and/or a product with or sum with
    (`op`) the chunk of the tensor at HBM address `operand` (shaped like Y), before the
    body. `consts` name the task constants the body reads, loaded into f1.. once."""
    body: Callable | None = None
    operand: int | None = None
    op: str = "mul"
    consts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """Geometry of one contraction on one hardware configuration."""
    hw: HardwareConfig
    m: int
    k: int
    n: int
    rows: int
    ahead: int
    transposed: bool          # right operand is W [N, K] (linear) rather than B [K, N]
    bias: bool
    mul: bool = False         # an epilogue multiplies by a tensor shaped like Y
    tmp: bool = False         # an epilogue needs one scratch row

    @property
    def kt(self) -> int:
        return self.k // self.hw.MLEN

    @property
    def nt(self) -> int:
        return self.n // self.hw.MLEN

    @property
    def group(self) -> int:
        return max(1, min(self.nt, self.hw.MSRAM_TILES // self.kt))

    @property
    def groups(self) -> int:
        return -(-self.nt // self.group)

    @property
    def last_group(self) -> int:
        return self.nt - (self.groups - 1) * self.group

    @property
    def tile(self) -> int:
        return self.hw.MLEN * self.hw.MLEN

    # Vector SRAM rows: X buffer(s), the out buffer, the bias vector.
    @property
    def x_rows(self) -> int:
        return self.rows * self.kt

    @property
    def x_bufs(self) -> tuple[int, ...]:
        size = self.x_rows * self.hw.VLEN
        return (0, size) if self.ahead else (0,)

    @property
    def out_base(self) -> int:
        return len(self.x_bufs) * self.x_rows * self.hw.VLEN

    @property
    def bias_base(self) -> int:
        return self.out_base + self.rows * self.group * self.hw.VLEN

    @property
    def bias_rows(self) -> int:
        r = self.hw.HBM_V_PREFETCH_AMOUNT
        return -(-self.nt // r) * r if self.bias else 0

    @property
    def mul_base(self) -> int:
        return self.bias_base + self.bias_rows * self.hw.VLEN

    @property
    def tmp_base(self) -> int:
        return self.mul_base + (self.rows * self.group * self.hw.VLEN if self.mul else 0)

    @property
    def vsram_rows(self) -> int:
        return self.tmp_base // self.hw.VLEN + int(self.tmp)

    @property
    def strides(self) -> tuple[int, int]:
        """(STRIDE for tile loads, STRIDE for output stores)."""
        return (self.k if self.transposed else self.n), self.n

    def check(self) -> str | None:
        hw, mlen = self.hw, self.hw.MLEN
        r, w = hw.HBM_V_PREFETCH_AMOUNT, hw.HBM_V_WRITEBACK_AMOUNT
        if hw.VLEN != mlen:
            return f"needs VLEN == MLEN (VLEN={hw.VLEN}, MLEN={mlen})"
        if self.k % mlen or self.n % mlen:
            return f"K={self.k} and N={self.n} must be multiples of MLEN={mlen}"
        if self.ahead not in (0, 1):
            return f"ahead={self.ahead!r} must be 0 or 1"
        if self.rows < 1 or self.rows % r or self.rows % w:
            return (f"rows={self.rows} must be a positive multiple of HBM_V_PREFETCH_AMOUNT={r} "
                    f"and HBM_V_WRITEBACK_AMOUNT={w}")
        if self.m % self.rows:
            fits = _divisors(self.m, max(r, w))
            return (f"rows={self.rows} must divide M={self.m}; " +
                    (f"try one of {fits}" if fits else f"M must be a multiple of {max(r, w)}"))
        if self.kt > hw.MSRAM_TILES:
            return (f"K={self.k} needs {self.kt} tiles per output column tile; Matrix SRAM holds "
                    f"MSRAM_TILES={hw.MSRAM_TILES} (K must be at most {hw.MSRAM_TILES * mlen})")
        if self.vsram_rows > hw.VSRAM_ROWS:
            return (f"rows={self.rows}, ahead={int(self.ahead)} needs {self.vsram_rows} Vector SRAM rows "
                    f"(X {len(self.x_bufs)} x {self.x_rows}, out {self.rows * self.group}, bias "
                    f"{self.bias_rows}{', epilogue operand ' + str(self.rows * self.group) if self.mul else ''}"
                    f"); VSRAM_ROWS={hw.VSRAM_ROWS}: use fewer rows or ahead=0")
        return None


def _addi(a: Asm, rd: str, rs: str, value: int, scratch: str) -> None:
    """rd = rs + value for any 32-bit value (Asm.addi loads only non-negative large values)."""
    if value < -(1 << 17):
        a.li(scratch, -value)
        a(f"S_SUB_INT {rd}, {rs}, {scratch}")
    else:
        a.addi(rd, rs, value, scratch=scratch)


def _divisors(m: int, step: int) -> list[int]:
    return [d for d in range(step, min(m, 64) + 1, step) if m % d == 0]


class Contraction:
    """Emits the kernel of one Plan; `run` takes one Operands per batch element."""

    def __init__(self, asm: Asm, plan: Plan, bias_addr: int | None = None,
                 epilogue: Epilogue | None = None, fregs: dict[str, str] | None = None):
        self.a, self.p, self.bias_addr = asm, plan, bias_addr
        self.epi, self.fregs = epilogue, fregs or {}
        self.vlen = plan.hw.VLEN
        tile_stride, store_stride = plan.strides
        self.fixed_stride = tile_stride == store_stride

    # ---- pieces --------------------------------------------------------------------
    def _stride(self, value: int) -> None:
        self.a.li(SCR, value)
        self.a(f"C_SET_STRIDE_REG {SCR}", f"STRIDE = {value}")

    def load_tiles(self, g: int) -> None:
        """Tiles (k, n) of the group's g column tiles into slots n*kt + k; BOFF walks HBM."""
        a, p = self.a, self.p
        mlen = p.hw.MLEN
        dk, dn = (mlen, mlen * p.k) if p.transposed else (mlen * p.n, mlen)
        if not self.fixed_stride:
            self._stride(p.strides[0])
        a(f"S_ADDI_INT {T}, gp0, 0")
        with a.loop(NL, g, "column tiles of the group"):
            with a.loop(KK, p.kt, "k tiles"):
                a(f"H_PREFETCH_M {T}, {BOFF}, a1, 1, 0")
                a(f"S_ADDI_INT {T}, {T}, {p.tile}")
                if p.kt > 1:
                    _addi(a, BOFF, BOFF, dk, scratch=SCR)
            _addi(a, BOFF, BOFF, dn - p.kt * dk if p.kt > 1 else dn, scratch=SCR)

    def prefetch_x(self) -> None:
        """One block of X (rows x K, contiguous at XOFF) into Vector SRAM from the address in V."""
        a, p = self.a, self.p
        step = p.hw.HBM_V_PREFETCH_AMOUNT * self.vlen
        with a.loop(RR, p.x_rows // p.hw.HBM_V_PREFETCH_AMOUNT, "X block"):
            a(f"H_PREFETCH_V {V}, {XOFF}, a0, 0, 0")
            a(f"S_ADDI_INT {V}, {V}, {step}")
            a(f"S_ADDI_INT {XOFF}, {XOFF}, {step}")

    def compute(self, g: int, xbuf: str) -> None:
        """Out chunk (n, r) = X row r @ column tile n, for the g column tiles of the group."""
        a, p, vlen = self.a, self.p, self.vlen
        op = "M_TMV" if p.transposed else "M_MV"
        a(f"S_ADDI_INT {T}, gp0, 0")
        a.li(OUT, p.out_base)
        with a.loop(NL, g, "column tiles"):
            a(f"S_ADDI_INT {V}, {xbuf}, 0")
            with a.loop(RR, p.rows, "rows of the block"):
                with a.loop(KK, p.kt, "k tiles: MV_ACC accumulates in fp32"):
                    a(f"{op} gp0, {T}, {V}")
                    if p.kt > 1:
                        a(f"S_ADDI_INT {T}, {T}, {p.tile}")
                    a(f"S_ADDI_INT {V}, {V}, {vlen}")
                if p.kt > 1:
                    _addi(a, T, T, -p.kt * p.tile, scratch=SCR)
                a(f"M_MV_WO {OUT}, 0", "round once to bf16")
                if p.bias:
                    a(f"V_ADD_VV {OUT}, {OUT}, {BP}", "+ bias")
                self.epilogue()
                a(f"S_ADDI_INT {OUT}, {OUT}, {vlen}")
            _addi(a, T, T, p.kt * p.tile, scratch=SCR)
            if p.bias:
                a(f"S_ADDI_INT {BP}, {BP}, {vlen}")
        if p.bias:
            _addi(a, BP, BP, -g * vlen, scratch=SCR)

    def epilogue(self) -> None:
        e, a = self.epi, self.a
        if e is None:
            return
        if e.operand is not None:
            a(f"S_ADDI_INT {EPI}, {OUT}, {self.p.mul_base - self.p.out_base}")
            a(f"V_{e.op.upper()}_VV {OUT}, {OUT}, {EPI}, 0", f"fused: {e.op} the same chunk of the operand")
        if e.body is not None:
            e.body(a, OUT, (EPI,), self.fregs)

    def store(self, g: int, load: bool = False) -> None:
        """The block's g column chunks, strided rows of Y at YOFF; YOFF moves to the next block.
        With `load`, the same rows of the epilogue's `mul` operand come into its buffer
        instead, and YOFF stays."""
        a, p, vlen = self.a, self.p, self.vlen
        w = p.hw.HBM_V_PREFETCH_AMOUNT if load else p.hw.HBM_V_WRITEBACK_AMOUNT
        if not self.fixed_stride or load:
            self._stride(p.strides[1])
        a.li(OUT, p.mul_base if load else p.out_base)
        op = "H_PREFETCH_V {0}, {1}, a4, 1, 0" if load else "H_STORE_V {0}, {1}, a2, 1, 0"
        with a.loop(NL, g, "epilogue operand column chunks" if load else "store column chunks"):
            with a.loop(RR, p.rows // w, "row groups"):
                a(op.format(OUT, YOFF))
                a(f"S_ADDI_INT {OUT}, {OUT}, {w * vlen}")
                _addi(a, YOFF, YOFF, w * p.n, scratch=SCR)
            _addi(a, YOFF, YOFF, vlen - p.rows * p.n, scratch=SCR)
        _addi(a, YOFF, YOFF, (0 if load else p.rows * p.n) - g * vlen, scratch=SCR)

    def load_mul(self, g: int) -> None:
        if self.epi is not None and self.epi.operand is not None:
            self.store(g, load=True)

    def _other_buffer(self, reg: str) -> None:
        """reg = the X buffer that XCUR is not."""
        bufs = self.p.x_bufs
        self.a.li(SCR, bufs[0] + bufs[1])
        self.a(f"S_SUB_INT {reg}, {SCR}, {XCUR}")

    def group(self, g: int, last: bool) -> None:
        a, p = self.a, self.p
        blocks = p.m // p.rows
        self.load_tiles(g)
        if not p.ahead:
            a(f"S_ADDI_INT {XOFF}, gp0, 0")
            with a.loop(BLK, blocks, "row blocks"):
                a.li(V, p.x_bufs[0])
                self.prefetch_x()
                self.load_mul(g)
                self.compute(g, "gp0")     # buffer 0 is at address 0
                self.store(g)
        else:
            # this group's first block is already in flight into XCUR
            def block(prefetch: bool) -> None:
                if prefetch:
                    self._other_buffer(V)
                    self.prefetch_x()
                self.load_mul(g)
                self.compute(g, XCUR)
                self.store(g)
                self._other_buffer(XCUR)
            if blocks > 1:
                with a.loop(BLK, blocks - 1, "row blocks, the next one in flight"):
                    block(True)
            if not last:
                a(f"S_ADDI_INT {XOFF}, gp0, 0", "next group starts at block 0")
            block(not last)
        _addi(a, YOFF, YOFF, g * self.vlen - p.m * p.n, scratch=SCR)
        if p.bias:
            _addi(a, BP, BP, g * self.vlen, scratch=SCR)

    # ---- whole kernel ----------------------------------------------------------------
    def run(self, batches: list[Operands]) -> None:
        a, p = self.a, self.p
        if self.fixed_stride:
            self._stride(p.strides[0])
        if p.bias:
            a.set_hbm_base("a3", self.bias_addr, SCR)
            a.li(V, p.bias_base, "bias -> Vector SRAM")
            a(f"S_ADDI_INT {XOFF}, gp0, 0")
            with a.loop(RR, p.bias_rows // p.hw.HBM_V_PREFETCH_AMOUNT, "load bias"):
                a(f"H_PREFETCH_V {V}, {XOFF}, a3, 0, 0")
                a(f"S_ADDI_INT {V}, {V}, {p.hw.HBM_V_PREFETCH_AMOUNT * self.vlen}")
                a(f"S_ADDI_INT {XOFF}, {XOFF}, {p.hw.HBM_V_PREFETCH_AMOUNT * self.vlen}")
        if self.epi is not None:
            if self.epi.operand is not None:
                a.set_hbm_base("a4", self.epi.operand, SCR)
            elif p.tmp:
                a.li(EPI, p.tmp_base, "epilogue scratch row")
        for i, ops in enumerate(batches):
            if len(batches) > 1:
                a.comment(f"batch element {i}")
            a.set_hbm_base("a0", ops.x, SCR)
            a.set_hbm_base("a1", ops.w, SCR)
            a.set_hbm_base("a2", ops.y, SCR)
            a(f"S_ADDI_INT {BOFF}, gp0, 0")
            a(f"S_ADDI_INT {YOFF}, gp0, 0")
            if p.bias:
                a.li(BP, p.bias_base)
            if p.ahead:
                a.li(XCUR, p.x_bufs[0])
                a(f"S_ADDI_INT {XOFF}, gp0, 0")
                a(f"S_ADDI_INT {V}, {XCUR}, 0")
                self.prefetch_x()
            full = p.groups - 1 if (p.ahead or p.last_group != p.group) else p.groups
            if full:
                with a.loop(GRP, full, f"groups of {p.group} column tiles"):
                    self.group(p.group, last=False)
            if full < p.groups:
                self.group(p.last_group, last=True)


def contraction_template(task: str, dims: Callable[[Ctx], tuple[int, int, int]],
                         batches: Callable[[Ctx], list[Operands]], transposed: bool,
                         bias: str | None = None, doc: str = "") -> Template:
    """`dims(ctx)` gives (M, K, N) of one contraction, `batches(ctx)` its operands per
    batch element; `bias` names a per-column vector input added to every output row."""

    def plan(ctx: Ctx, p: dict) -> Plan:
        m, k, n = dims(ctx)
        return Plan(ctx.hw, m, k, n, p["rows"], p["ahead"], transposed, bias is not None)

    def generate(ctx: Ctx, asm: Asm, p: dict) -> None:
        Contraction(asm, plan(ctx, p), ctx.addr(bias) if bias else None).run(batches(ctx))

    return Template(task=task, generate=generate, params=dict(PARAMS), space=dict(SPACE),
                    doc=doc or __doc__, check=lambda ctx, p: plan(ctx, p).check())
