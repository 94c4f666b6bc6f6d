"""Architectural state of the plena functional model, and the only ways to change it.

Reads go straight to the containers (`m.gp[r]`, `m.V[row]`, ...). Every write goes
through one of the few write methods below, so `TracingState` (tracing.py) can record
each change by overriding them. Checked accessors (`v_rows`, `m_tile`, `read_hbm`,
...) validate an address against its memory and the alignment rules of
isa/plena/README.md, and note which Vector SRAM rows / Matrix SRAM tiles / HBM rows an
instruction touches in `footprint`, which the timing model reads.

Storage: HBM is uint16 bf16 bit patterns (large; only the rows a transfer touches are
converted); Vector and Matrix SRAM are float32 arrays holding bf16-exact values;
FP_MEM and INT_MEM are Python lists (scalar code runs fastest on them) of fp32-exact
floats and int32 values.
"""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.errors import IllegalOperandError, MemoryAccessError
from kernelcraft.simulators.numerics import bf16_bits_to_f32

CSR_NAMES = ("STRIDE", "SCALE_OFFSET", "V_MASK")   # trace space "csr", address = index
STRIDE, SCALE_OFFSET, V_MASK = range(3)
ACC_NAMES = ("MM_ACC", "MV_ACC", "BMM_ACC", "BMV_ACC")
MEMORIES = ("hbm", "vsram", "msram", "fp_mem", "int_mem")
MEMORY_TITLES = {"hbm": "HBM", "vsram": "Vector SRAM", "msram": "Matrix SRAM",
                 "fp_mem": "FP_MEM", "int_mem": "INT_MEM"}

# Footprint entries are (space, a, b): Vector SRAM rows (VSRAM, first row, rows),
# a Matrix SRAM tile (MSRAM, tile, 1), an HBM transfer (HBM_READ/HBM_WRITE, rows, row length).
VSRAM, MSRAM, HBM_READ, HBM_WRITE = range(4)

_U64 = (1 << 64) - 1


def wrap32(v: int) -> int:
    """Two's-complement 32-bit wrap-around."""
    return ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """Bit patterns of float32 values that are bf16-exact (no rounding, NaN payloads kept)."""
    return (np.ascontiguousarray(x, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


class PlenaState:
    """Registers, memories, accumulators and the hardware-loop stack of one run."""

    def __init__(self, cfg, register_counts: dict[str, int]):
        self.cfg = cfg
        self.VLEN, self.MLEN, self.BLEN, self.HLEN = cfg.VLEN, cfg.MLEN, cfg.BLEN, cfg.HLEN
        self.HEADS = cfg.MLEN // cfg.HLEN
        self.TILE = cfg.MLEN * cfg.MLEN
        self.gp = [0] * register_counts["gp"]
        self.f = [0.0] * register_counts["f"]
        self.a = [0] * register_counts["a"]
        self.csr = [0, 0, 0]
        self.hbm = np.zeros(cfg.HBM_SIZE, dtype=np.uint16)
        self.vsram = np.zeros(cfg.VSRAM_ROWS * cfg.VLEN, dtype=np.float32)
        self.V = self.vsram.reshape(cfg.VSRAM_ROWS, cfg.VLEN)           # rows
        self.msram = np.zeros(cfg.MSRAM_TILES * self.TILE, dtype=np.float32)
        self.M = self.msram.reshape(cfg.MSRAM_TILES, cfg.MLEN, cfg.MLEN)  # tiles
        self.fp_mem = [0.0] * cfg.FP_MEM_SIZE
        self.int_mem = [0] * cfg.INT_MEM_SIZE
        self.acc = {
            "MM_ACC": np.zeros((cfg.BLEN, cfg.BLEN), np.float32),
            "MV_ACC": np.zeros(cfg.MLEN, np.float32),
            "BMM_ACC": np.zeros((self.HEADS, cfg.MLEN, cfg.MLEN), np.float32),
            "BMV_ACC": np.zeros((self.HEADS, cfg.MLEN), np.float32),
        }
        self.loops: list[int] = []      # body start pc of each open hardware loop
        self.footprint: list[tuple[int, int, int]] = []

    # --- writes (TracingState overrides each of these) -----------------------------

    def set_gp(self, r: int, v: int) -> None:
        if r:
            self.gp[r] = ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000

    def set_f(self, r: int, v: float) -> None:
        """`v` must already be fp32-exact (the semantics round it)."""
        if r:
            self.f[r] = v

    def set_a(self, r: int, v: int) -> None:
        self.a[r] = v & _U64

    def set_csr(self, i: int, v: int) -> None:
        self.csr[i] = v

    def write_int(self, addr: int, v: int) -> None:
        self.int_mem[addr] = v

    def write_fp(self, addr: int, v: float) -> None:
        self.fp_mem[addr] = v

    def write_v(self, row: int, col: int, values, rmask: int = 0) -> None:
        """Vector SRAM: values (h, w) or (w,) go to rows row.. at columns col..col+w.
        With rmask, only head segments enabled in V_MASK are written."""
        values = np.asarray(values, dtype=np.float32)
        if values.ndim == 1:
            values = values[None, :]
        h, w = values.shape
        dst = self.V[row:row + h, col:col + w]
        if rmask:
            values = np.where(self.head_mask()[col:col + w], values, dst)
        dst[...] = values

    def write_tile(self, tile: int, values) -> None:
        self.M[tile] = values

    def write_hbm(self, addr: int, bits) -> None:
        self.hbm[addr:addr + len(bits)] = bits

    def set_acc(self, name: str, values) -> None:
        self.acc[name][...] = values

    def push_loop(self, body_pc: int) -> None:
        if len(self.loops) >= self.cfg.LOOP_DEPTH:
            raise IllegalOperandError(
                f"hardware loops nest deeper than LOOP_DEPTH={self.cfg.LOOP_DEPTH}; "
                "close an inner loop first or restructure the loop nest")
        self.loops.append(body_pc)

    def pop_loop(self) -> None:
        self.loops.pop()

    # --- derived values -------------------------------------------------------------

    def head_mask(self) -> np.ndarray:
        """Per-element write enables of a row: bit i // HLEN of V_MASK."""
        heads = (self.csr[V_MASK] >> np.arange(self.HEADS)) & 1
        return np.repeat(heads.astype(bool), self.HLEN)

    def stride(self, rstride: int, default: int) -> int:
        """HBM row stride of a transfer: STRIDE with rstride=1, else the row length."""
        return self.csr[STRIDE] if rstride else default

    def accumulate(self, name: str, partial) -> None:
        """acc = acc + partial in fp32 (RNE), NaN canonical."""
        s = (self.acc[name] + partial).astype(np.float32)
        nan = np.isnan(s)
        if nan.any():
            s[nan] = np.float32(np.nan)
        self.set_acc(name, s)

    # --- checked accessors ----------------------------------------------------------

    def _out_of_range(self, memory: str, addr: int, last: int, size: int, fix: str):
        title = MEMORY_TITLES[memory]
        if addr < 0:
            msg = f"{title} address {addr} is negative"
        else:
            msg = (f"{title} access {addr}..{last} runs past the end of {memory} "
                   f"(addresses 0..{size - 1})")
        return MemoryAccessError(f"{msg}; {fix}", memory=memory, address=addr)

    def v_span(self, addr: int, rows: int, width: int, align: int, rule: str) -> int:
        """Check an access of `rows` rows x `width` elements at element address `addr`
        (row stride VLEN) that must be a multiple of `align`; return its first row."""
        vlen = self.VLEN
        if addr < 0 or addr + (rows - 1) * vlen + width > self.vsram.size:
            raise self._out_of_range("vsram", addr, addr + (rows - 1) * vlen + width - 1,
                                     self.vsram.size,
                                     f"this operand spans {rows} row(s) of VLEN={vlen}")
        if addr % align:
            raise MemoryAccessError(
                f"Vector SRAM address {addr} is not a multiple of {align} ({rule})",
                memory="vsram", address=addr)
        row = addr // vlen
        self.footprint.append((VSRAM, row, rows))
        return row

    def v_rows(self, addr: int, rows: int = 1) -> int:
        """Whole rows starting at `addr`, which must be a multiple of VLEN."""
        vlen = self.VLEN
        if addr % vlen or addr < 0 or addr + rows * vlen > self.vsram.size:   # rare: say why
            return self.v_span(addr, rows, vlen, vlen,
                               f"VLEN={vlen}: vector operands are whole rows")
        row = addr // vlen
        self.footprint.append((VSRAM, row, rows))
        return row

    def m_tile(self, addr: int, column_block: bool = False) -> tuple[int, int]:
        """A Matrix SRAM tile: returns (tile, column offset). The address must be the
        tile base, or with `column_block` the tile base plus a multiple of BLEN below
        MLEN (M_MM / M_TMM select BLEN columns or rows of the tile)."""
        size = self.msram.size
        if addr < 0 or addr >= size:
            raise self._out_of_range("msram", addr, addr, size,
                                     f"Matrix SRAM holds {self.cfg.MSRAM_TILES} tiles of "
                                     f"MLEN*MLEN={self.TILE} elements")
        tile, c = divmod(addr, self.TILE)
        if column_block:
            if c % self.BLEN or c >= self.MLEN:
                raise MemoryAccessError(
                    f"Matrix SRAM address {addr} is tile {tile} + {c}; the offset within the "
                    f"tile must be a multiple of BLEN={self.BLEN} below MLEN={self.MLEN}",
                    memory="msram", address=addr)
        elif c:
            raise MemoryAccessError(
                f"Matrix SRAM address {addr} is not a multiple of MLEN*MLEN={self.TILE} "
                "(this instruction uses a whole tile)", memory="msram", address=addr)
        self.footprint.append((MSRAM, tile, 1))
        return tile, c

    def fp_addr(self, addr: int, n: int = 1) -> int:
        if addr < 0 or addr + n > len(self.fp_mem):
            raise self._out_of_range("fp_mem", addr, addr + n - 1, len(self.fp_mem),
                                     f"FP_MEM has FP_MEM_SIZE={len(self.fp_mem)} entries")
        return addr

    def int_addr(self, addr: int, n: int = 1) -> int:
        if addr < 0 or addr + n > len(self.int_mem):
            raise self._out_of_range("int_mem", addr, addr + n - 1, len(self.int_mem),
                                     f"INT_MEM has INT_MEM_SIZE={len(self.int_mem)} entries")
        return addr

    def hbm_rows(self, base: int, rows: int, stride: int, length: int, write: bool) -> list[int]:
        """Check `rows` HBM rows of `length` elements at base + r*stride; return their
        start addresses."""
        starts = [base + r * stride for r in range(rows)]
        lo, hi = min(starts), max(starts) + length
        if lo < 0 or hi > self.hbm.size:
            bad = lo if lo < 0 else next(s for s in starts if s + length > self.hbm.size)
            raise self._out_of_range(
                "hbm", bad, bad + length - 1, self.hbm.size,
                f"the transfer moves {rows} rows of {length} elements from a[rs2] + gp[rs1] "
                f"= {base} with row stride {stride}")
        self.footprint.append((HBM_WRITE if write else HBM_READ, rows, length))
        return starts

    def read_hbm(self, base: int, rows: int, stride: int, length: int) -> np.ndarray:
        """Checked read of HBM rows, as float32 (rows, length)."""
        starts = self.hbm_rows(base, rows, stride, length, write=False)
        if stride == length:
            bits = self.hbm[base:base + rows * length]
        else:
            bits = self.hbm[np.add.outer(np.asarray(starts), np.arange(length)).ravel()]
        return bf16_bits_to_f32(bits).reshape(rows, length)

    # --- whole-state views ------------------------------------------------------------

    def load_image(self, image: MemoryImage) -> None:
        """Apply a MemoryImage; raises MemoryAccessError naming the memory and range."""
        sizes = {"hbm": self.hbm.size, "vsram": self.vsram.size, "msram": self.msram.size,
                 "fp_mem": len(self.fp_mem), "int_mem": len(self.int_mem)}
        for memory, writes in image.writes.items():
            if memory not in sizes:
                raise MemoryAccessError(
                    f"memory image names unknown memory {memory!r}; plena memories are "
                    f"{', '.join(MEMORIES)}", memory=memory)
            for addr, values in writes.items():
                values = np.asarray(values).ravel()
                if addr < 0 or addr + values.size > sizes[memory]:
                    raise self._out_of_range(memory, addr, addr + values.size - 1,
                                             sizes[memory], "fix the memory image")
                self._load(memory, addr, values)

    def _load(self, memory: str, addr: int, values: np.ndarray) -> None:
        end = addr + values.size
        if memory in ("hbm", "vsram", "msram"):
            if values.dtype != np.uint16:
                raise MemoryAccessError(
                    f"memory image for {memory} has dtype {values.dtype}; bf16 memories take "
                    "uint16 bit patterns (convert with numerics.f32_to_bf16_bits)",
                    memory=memory, address=addr)
            if memory == "hbm":
                self.hbm[addr:end] = values
            else:
                getattr(self, memory)[addr:end] = bf16_bits_to_f32(values)
        elif memory == "fp_mem":
            if values.dtype.kind != "f":
                raise MemoryAccessError(
                    f"memory image for fp_mem has dtype {values.dtype}; it takes float32 values",
                    memory=memory, address=addr)
            self.fp_mem[addr:end] = values.astype(np.float32).tolist()
        else:
            if values.dtype.kind not in "iu" or (values.size and (
                    values.min() < -2**31 or values.max() >= 2**31)):
                raise MemoryAccessError(
                    f"memory image for int_mem must hold 32-bit signed integers "
                    f"(got dtype {values.dtype})", memory=memory, address=addr)
            self.int_mem[addr:end] = [int(v) for v in values]

    def memories(self) -> dict[str, np.ndarray]:
        """Final contents in storage dtypes (bf16 memories as uint16 bit patterns)."""
        return {"hbm": self.hbm, "vsram": bf16_bits(self.vsram),
                "msram": bf16_bits(self.msram),
                "fp_mem": np.array(self.fp_mem, dtype=np.float32),
                "int_mem": np.array(self.int_mem, dtype=np.int32)}

    def registers(self) -> dict:
        regs = {"gp": list(self.gp), "f": list(self.f), "a": list(self.a)}
        regs.update(zip(CSR_NAMES, self.csr))
        regs.update({name: arr.copy() for name, arr in self.acc.items()})
        regs["LOOPS"] = list(self.loops)
        return regs
