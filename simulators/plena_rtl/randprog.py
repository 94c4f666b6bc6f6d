"""Random valid plena programs and memory images, for differential testing of the RTL
against the functional model.

Every instruction of the ISA can be drawn. Each emitter sets the gp, a and STRIDE
registers its instruction reads just before it (so a program stays valid when a loop
repeats a stretch of it) with addresses drawn inside their memories and aligned as the
ISA requires. Loops nest up to three deep with small trip counts. Memory images mix
ordinary values with the special ones numerics care about (signed zeros, infinities,
NaNs with payloads, subnormals, values that overflow when combined).

Vector SRAM rows 0..CLEAN_ROWS-1 hold V_TOPK's logits: no NaN there, and nothing writes
them. FP_MEM images hold no signalling NaN (the functional model keeps FP_MEM as Python
floats, which quiet them, a difference of representation, not of the machine).
"""
from __future__ import annotations

import numpy as np

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.core.backend import MemoryImage

# A small configuration: quick to build and to simulate, every unit still several lanes
# wide, HEADS = 4, rows of two HBM beats, a short HBM latency so transfers overlap, and
# a DMA queue of two so that back-to-back transfers fill it.
DIFF_CONFIG = dict(MLEN=16, VLEN=16, BLEN=4, HLEN=4, VSRAM_ROWS=128, MSRAM_TILES=4,
                   FP_MEM_SIZE=256, INT_MEM_SIZE=64, HBM_SIZE=8192, HBM_V_PREFETCH_AMOUNT=2,
                   HBM_V_WRITEBACK_AMOUNT=2, HBM_BW=8, HBM_LATENCY=12, LOOP_DEPTH=4,
                   IMEM_SIZE=2048, DMA_QUEUE=2)
CLEAN_ROWS = 8
TEMPS = list(range(1, 13))          # gp1..gp12: operands; gp13..gp15: loop counters
COUNTERS = [13, 14, 15]
CONTROL_FLOW = get_isa("plena").having("loop_start", "loop_end", "stop")


def bf16_values(rng: np.random.Generator, n: int, nan: bool = True) -> np.ndarray:
    """bf16 bit patterns: mostly ordinary values, some special ones."""
    sign = rng.integers(0, 2, n).astype(np.uint16) << 15
    exp = np.clip(np.round(rng.normal(127, 6, n)), 1, 254).astype(np.uint16) << 7
    frac = rng.integers(0, 128, n).astype(np.uint16)
    bits = sign | exp | frac
    specials = np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x0001, 0x8003, 0x007F, 0x7F7F,
                         0xFF7F, 0x3F80, 0x4000, 0x0080], dtype=np.uint16)
    if nan:
        specials = np.concatenate([specials, np.array([0x7FC0, 0xFFC1, 0x7F81], np.uint16)])
    pick = rng.random(n) < 0.12
    bits[pick] = rng.choice(specials, int(pick.sum()))
    return bits


def fp32_values(rng: np.random.Generator, n: int) -> np.ndarray:
    vals = (rng.normal(0, 4, n) * 2.0 ** rng.integers(-8, 8, n)).astype(np.float32)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 1e-40, -3e-39, 3e38,
                         88.0, -104.0], dtype=np.float32)
    pick = rng.random(n) < 0.15
    vals[pick] = rng.choice(specials, int(pick.sum()))
    qnan = np.array([0x7FC00000, 0xFFC00001], dtype=np.uint32).view(np.float32)
    pick = rng.random(n) < 0.03
    vals[pick] = rng.choice(qnan, int(pick.sum()))
    return vals


class ProgramGenerator:
    """generate(seed) -> (assembly source, MemoryImage) for DIFF_CONFIG-like configs."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.isa = get_isa("plena")
        self.mnemonics = [m for m in self.isa.instructions if m not in CONTROL_FLOW]

    # --- helpers ---------------------------------------------------------------------
    def _set(self, reg: int, value: int) -> None:
        if -131072 <= value <= 131071:
            self.out.append(f"S_ADDI_INT gp{reg}, gp0, {value}")
        else:
            self.out.append(f"S_LUI_INT gp{reg}, {(value >> 12) & 0xFFFFF}")
            self.out.append(f"S_ADDI_INT gp{reg}, gp{reg}, {value & 0xFFF}")

    def _temps(self, k: int) -> list[int]:
        return [int(r) for r in self.rng.choice(TEMPS, k, replace=False)]

    def _row(self, rows: int = 1, dest: bool = False) -> int:
        """Element address of `rows` consecutive Vector SRAM rows."""
        lo = CLEAN_ROWS if dest else 0
        return int(self.rng.integers(lo, self.cfg.VSRAM_ROWS - rows + 1)) * self.cfg.VLEN

    def _f(self) -> int:
        return int(self.rng.integers(0, 8))

    def _flag(self) -> int:
        return int(self.rng.integers(0, 2))

    def _rows_in_hbm(self, rows: int, length: int) -> tuple[int, int]:
        """(base, stride) with every row inside HBM; stride may be negative or zero."""
        size = self.cfg.HBM_SIZE
        stride = int(self.rng.integers(-3 * length, 3 * length + 1))
        span = (rows - 1) * abs(stride)
        first = int(self.rng.integers(0, size - span - length + 1))
        base = first + span if stride < 0 else first
        return base, stride

    def _hbm(self, rows: int, length: int) -> tuple[int, int]:
        """Set an a register, an offset register and (for rstride = 1) STRIDE for a
        transfer of `rows` rows; returns (offset gp, a register); self.rstride says
        which stride the instruction must name."""
        self.rstride = self._flag()
        if self.rstride:
            base, stride = self._rows_in_hbm(rows, length)
        else:
            base = int(self.rng.integers(0, self.cfg.HBM_SIZE - rows * length + 1))
        areg = int(self.rng.integers(0, 8))
        split = int(self.rng.integers(0, base + 1))
        ra, ro, rs = self._temps(3)
        self._set(ra, split)
        self.out.append(f"C_SET_ADDR_REG a{areg}, gp0, gp{ra}")
        self._set(ro, base - split)
        if self.rstride:
            self._set(rs, stride)
            self.out.append(f"C_SET_STRIDE_REG gp{rs}")
        return ro, areg

    # --- one instruction and its set-up ----------------------------------------------
    def emit(self, mn: str) -> None:
        c, o, rng = self.cfg, self.out, self.rng
        tile = c.MLEN * c.MLEN
        if mn in ("S_ADD_INT", "S_SUB_INT", "S_MUL_INT"):
            a, b, d = (int(x) for x in rng.choice(TEMPS, 3))
            o.append(f"{mn} gp{d}, gp{a}, gp{b}")
        elif mn == "S_ADDI_INT":
            a, d = (int(x) for x in rng.choice(TEMPS, 2))
            o.append(f"S_ADDI_INT gp{d}, gp{a}, {int(rng.integers(-131072, 131072))}")
        elif mn == "S_LUI_INT":
            o.append(f"S_LUI_INT gp{int(rng.choice(TEMPS))}, {int(rng.integers(0, 1 << 20))}")
        elif mn in ("S_LD_INT", "S_ST_INT", "S_LD_FP", "S_ST_FP"):
            size = c.INT_MEM_SIZE if "INT" in mn else c.FP_MEM_SIZE
            addr = int(rng.integers(0, size))
            base = int(rng.integers(-50, size + 50))
            rb, rv = self._temps(2)
            self._set(rb, base)
            first = f"f{self._f()}" if "FP" in mn else f"gp{rv}"
            o.append(f"{mn} {first}, gp{rb}, {addr - base}")
        elif mn in ("S_ADD_FP", "S_SUB_FP", "S_MUL_FP", "S_MAX_FP"):
            o.append(f"{mn} f{self._f()}, f{self._f()}, f{self._f()}")
        elif mn in ("S_EXP_FP", "S_RECI_FP", "S_SQRT_FP"):
            o.append(f"{mn} f{self._f()}, f{self._f()}")
        elif mn == "S_MAP_V_FP":
            rd, rs = self._temps(2)
            src = int(rng.integers(0, c.FP_MEM_SIZE - c.VLEN + 1))
            base = int(rng.integers(0, src + 1))
            self._set(rd, self._row(dest=True))
            self._set(rs, base)
            o.append(f"S_MAP_V_FP gp{rd}, gp{rs}, {src - base}")
        elif mn in ("V_ADD_VV", "V_SUB_VV", "V_MUL_VV"):
            rd, ra, rb = self._temps(3)
            self._set(rd, self._row(dest=True))
            self._set(ra, self._row())
            self._set(rb, self._row())
            o.append(f"{mn} gp{rd}, gp{ra}, gp{rb}, {self._flag()}")
        elif mn in ("V_ADD_VF", "V_MUL_VF", "V_MAX_VF", "V_MIN_VF", "V_SUB_VF"):
            rd, ra = self._temps(2)
            self._set(rd, self._row(dest=True))
            self._set(ra, self._row())
            extra = f", {self._flag()}" if mn == "V_SUB_VF" else ""
            o.append(f"{mn} gp{rd}, gp{ra}, f{self._f()}, {self._flag()}{extra}")
        elif mn in ("V_EXP_V", "V_RECI_V"):
            rd, ra = self._temps(2)
            self._set(rd, self._row(dest=True))
            self._set(ra, self._row())
            o.append(f"{mn} gp{rd}, gp{ra}, {self._flag()}")
        elif mn in ("V_RED_SUM", "V_RED_MAX"):
            (ra,) = self._temps(1)
            self._set(ra, self._row())
            o.append(f"{mn} f{self._f()}, gp{ra}")
        elif mn == "V_SHFT_V":
            rd, ra, rs = self._temps(3)
            self._set(rd, self._row(dest=True))
            self._set(ra, self._row())
            self._set(rs, int(rng.integers(0, c.VLEN + 1)))
            o.append(f"V_SHFT_V gp{rd}, gp{ra}, gp{rs}")
        elif mn == "V_TOPK":
            big = self._flag()
            n, k = (128, 8) if big else (32, 4)
            rows = -(-n // c.VLEN)
            rw, rl, ri = self._temps(3)
            self._set(rl, int(rng.integers(0, CLEAN_ROWS - rows + 1)) * c.VLEN)
            self._set(rw, int(rng.integers(0, c.FP_MEM_SIZE - k + 1)))
            self._set(ri, int(rng.integers(0, c.INT_MEM_SIZE - k + 1)))
            o.append(f"V_TOPK gp{rw}, gp{rl}, gp{ri}, {big}")
        elif mn in ("M_MM", "M_TMM", "M_BMM", "M_BTMM", "M_MV", "M_TMV", "M_BMV", "M_BTMV"):
            rm, rv = self._temps(2)
            t = int(rng.integers(0, c.MSRAM_TILES)) * tile
            if mn in ("M_MM", "M_TMM"):
                t += int(rng.integers(0, c.MLEN // c.BLEN)) * c.BLEN
            rows = c.BLEN if mn in ("M_MM", "M_TMM") else c.MLEN if mn in ("M_BMM", "M_BTMM") else 1
            self._set(rm, t)
            self._set(rv, self._row(rows))
            o.append(f"{mn} 0, gp{rm}, gp{rv}")
        elif mn == "M_MM_WO":
            (rd,) = self._temps(1)
            d = self._row(c.BLEN, dest=True) + int(rng.integers(0, c.VLEN // c.BLEN)) * c.BLEN
            imm = int(rng.integers(-64, 65))
            self._set(rd, d - imm)
            o.append(f"M_MM_WO gp{rd}, 0, {imm}")
        elif mn in ("M_MV_WO", "M_BMM_WO", "M_BMV_WO"):
            heads = c.MLEN // c.HLEN
            rows = {"M_MV_WO": 1, "M_BMM_WO": heads * c.MLEN, "M_BMV_WO": heads}[mn]
            (rd,) = self._temps(1)
            d = self._row(rows, dest=True)
            imm = int(rng.integers(0, 3)) * c.VLEN
            imm = min(imm, d)
            self._set(rd, d - imm)
            o.append(f"{mn} gp{rd}, {imm}")
        elif mn in ("H_PREFETCH_V", "H_STORE_V"):
            rows = c.HBM_V_PREFETCH_AMOUNT if mn == "H_PREFETCH_V" else c.HBM_V_WRITEBACK_AMOUNT
            ro, areg = self._hbm(rows, c.VLEN)
            (rd,) = [r for r in self._temps(4) if r != ro][:1]
            self._set(rd, self._row(rows, dest=(mn == "H_PREFETCH_V")))
            o.append(f"{mn} gp{rd}, gp{ro}, a{areg}, {self.rstride}, {self._flag()}")
        elif mn == "H_PREFETCH_M":
            ro, areg = self._hbm(c.MLEN, c.MLEN)
            (rd,) = [r for r in self._temps(4) if r != ro][:1]
            self._set(rd, int(rng.integers(0, c.MSRAM_TILES)) * tile)
            o.append(f"H_PREFETCH_M gp{rd}, gp{ro}, a{areg}, {self.rstride}, {self._flag()}")
        elif mn == "C_SET_ADDR_REG":
            a, b = (int(x) for x in rng.choice(TEMPS, 2))
            o.append(f"C_SET_ADDR_REG a{int(rng.integers(0, 8))}, gp{a}, gp{b}")
        elif mn in ("C_SET_SCALE_REG", "C_SET_V_MASK_REG"):
            (r,) = self._temps(1)
            self._set(r, int(rng.integers(0, 1 << 17)))
            o.append(f"{mn} gp{r}")
        elif mn == "C_SET_STRIDE_REG":
            (r,) = self._temps(1)
            self._set(r, int(rng.integers(-200, 200)))
            o.append(f"C_SET_STRIDE_REG gp{r}")
        else:
            raise ValueError(f"randprog has no emitter for {mn}")

    def _block(self, budget: int, depth: int) -> None:
        while budget > 0:
            if depth < 3 and budget > 6 and self.rng.random() < 0.12:
                counter = COUNTERS[depth]
                inner = int(self.rng.integers(2, min(budget, 12) + 1))
                self.out.append(f"C_LOOP_START gp{counter}, {int(self.rng.integers(1, 4))}")
                self._block(inner, depth + 1)
                self.out.append(f"C_LOOP_END gp{counter}")
                budget -= inner
            else:
                self.emit(str(self.rng.choice(self.mnemonics)))
                budget -= 1

    def generate(self, seed: int, length: int = 60) -> tuple[str, MemoryImage]:
        self.rng = rng = np.random.default_rng(seed)
        self.out: list[str] = [f"; random plena program, seed {seed}"]
        self._block(length, 0)
        if rng.random() < 0.3:
            self.out.append("C_BREAK")
            self.emit(str(rng.choice(self.mnemonics)))      # never reached
        c = self.cfg
        img = MemoryImage()
        vs = bf16_values(rng, c.VSRAM_ROWS * c.VLEN)
        clean = bf16_values(rng, CLEAN_ROWS * c.VLEN, nan=False)
        clean[rng.random(clean.size) < 0.2] = clean[0]          # ties for V_TOPK
        vs[:clean.size] = clean
        img.put("vsram", 0, vs)
        img.put("msram", 0, bf16_values(rng, c.MSRAM_TILES * c.MLEN * c.MLEN))
        img.put("hbm", 0, bf16_values(rng, c.HBM_SIZE))
        img.put("fp_mem", 0, fp32_values(rng, c.FP_MEM_SIZE))
        img.put("int_mem", 0, rng.integers(-2**31, 2**31, c.INT_MEM_SIZE).astype(np.int32))
        return "\n".join(self.out) + "\n", img

    def programs(self, seeds, length: int = 60) -> list[tuple[int, object, MemoryImage]]:
        """(seed, assembled Program, image) for each seed."""
        from kernelcraft.simulators.plena.assembler import assemble
        out = []
        for seed in seeds:
            src, img = self.generate(seed, length)
            out.append((seed, assemble(src, f"random-{seed}.asm", self.cfg), img))
        return out
