"""Architectural state of the coral functional model.

Scalar registers are Python lists (`x`: unsigned 32-bit values, `f`: binary32 bit
patterns) because scalar code runs fastest on them; `fc` = [fflags, frm]. The vector
register file is one numpy byte array (`vreg`, 32 * VLENB bytes) seen through typed
views; DTCM is one bytearray seen as bytes, halfwords and words (memoryviews, for the
scalar code) and as numpy arrays (for vector code). ITCM holds the program and is not
addressable by loads and stores.

Writes that tracing must see go through the methods marked "write": scalar stores in
traced code, vector register writes (`vput`) and vector stores (`vmem_write`);
`TracingState` (tracing.py) overrides them. Register-file writes of scalar code are
found by comparing before and after each traced instruction.
"""
from __future__ import annotations

import mmap

import numpy as np

from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.errors import MemoryAccessError, SimError, Where

from .tables import memory_base

M = 0xFFFFFFFF
VILL = 1 << 31
FFLAGS, FRM = 0, 1
# vtype.vlmul -> LMUL as a fraction (numerator, denominator); 4 is reserved
LMULS = {0: (1, 1), 1: (2, 1), 2: (4, 1), 3: (8, 1), 5: (1, 8), 6: (1, 4), 7: (1, 2)}
LMUL_NAMES = {0: "m1", 1: "m2", 2: "m4", 3: "m8", 5: "mf8", 6: "mf4", 7: "mf2"}
ELEN = 32
UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
SINT = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


class IllegalInstruction(SimError):
    """The instruction cannot execute in the current state (vtype, operands, CSR)."""

    kind = "illegal instruction"


def fault(pc: int, message: str, cls=IllegalInstruction, **kw) -> SimError:
    """An error located at instruction `pc` (the run loop adds line, text and cycle)."""
    return cls(message, Where(index=pc), **kw)


class CoralState:
    """Registers, CSRs, vector registers and DTCM of one run."""

    # What agnostic elements become (isa/coral/README.md): all ones, coral's documented
    # choice; False leaves them undisturbed, the other choice RVV allows (Spike's), which
    # the conformance tests use so that only what RISC-V defines is compared.
    agnostic_ones = True

    def __init__(self, cfg, program_size: int = 0):
        self.cfg = cfg
        self.x = [0] * 32
        self.f = [0] * 32
        self.fc = [0, 0]
        self.vxrm = 0                          # fixed-point rounding mode (vxrm CSR, 2 bits)
        self.vxsat = 0                         # fixed-point saturation flag (vxsat CSR, 1 bit)
        self.VLEN = cfg.VLEN
        self.VLENB = cfg.VLEN // 8
        self.vreg = np.zeros(32 * self.VLENB, dtype=np.uint8)
        # typed views of the register file, made once: vu[sew] unsigned, vs[sew] signed
        self.vu = {w: self.vreg.view(UINT[w]) for w in (8, 16, 32)}
        self.vs = {w: self.vreg.view(SINT[w]) for w in (8, 16, 32)}
        self.epr = {w: self.VLENB * 8 // w for w in (8, 16, 32)}     # elements per register
        self.vl = 0
        self.vtype = VILL
        self.vill_reason: tuple[int, str] | None = None     # (pc, why) of the vset* that set vill
        self.decode_vtype()
        self.dbase = memory_base(cfg, "dtcm")
        self.dsize = cfg.DTCM_SIZE
        self.itcm_size = cfg.ITCM_SIZE
        # an anonymous mapping: pages the system zeroes when first touched. A bytearray
        # (or np.zeros, once the allocator reuses the last run's block) writes all
        # DTCM_SIZE bytes (16 MiB) before the first instruction
        self.dmem = np.frombuffer(mmap.mmap(-1, self.dsize), dtype=np.uint8) if self.dsize else np.zeros(0, np.uint8)
        self.m8 = memoryview(self.dmem)
        self.m16 = self.m8[:self.dsize & ~1].cast("H")
        self.m32 = self.m8[:self.dsize & ~3].cast("I")
        self.mem = self.dmem
        self._mem_views: dict[int, np.ndarray] = {}
        self.pc = 0
        self.end_pc = program_size            # one past the last instruction: the run ends there
        self.x[2] = (self.dbase + self.dsize) & M          # sp: end of DTCM
        self.x[1] = 4 * program_size                       # ra: a final `ret` ends the run

    # --- vector configuration -----------------------------------------------------
    def decode_vtype(self) -> None:
        vt = self.vtype
        self.vill = bool(vt & VILL)
        if self.vill:
            self.sew, self.lmul_num, self.lmul_den, self.vta, self.vma, self.vlmax = 8, 1, 1, 0, 0, 0
            return
        self.sew = 8 << ((vt >> 3) & 7)
        self.lmul_num, self.lmul_den = LMULS[vt & 7]
        self.vta = (vt >> 6) & 1
        self.vma = (vt >> 7) & 1
        self.vlmax = self.VLEN * self.lmul_num // (self.lmul_den * self.sew)

    def vtype_problem(self, vt: int) -> str:
        """Why a requested vtype is unsupported (then vill is set), or ''."""
        if vt >> 8:
            return f"reserved vtype bits set (0x{vt:x})"
        sew = 8 << ((vt >> 3) & 7)
        if sew > ELEN:
            return f"SEW = {sew} is above ELEN = {ELEN} (Zve32f has no 64-bit elements)"
        if (vt & 7) == 4:
            return "vlmul = 4 is reserved"
        num, den = LMULS[vt & 7]
        if num * ELEN < sew * den:
            return f"LMUL = {LMUL_NAMES[vt & 7]} is too small for SEW = {sew} (LMUL >= SEW / {ELEN})"
        return ""

    def set_vtype(self, vt: int, vl: int) -> None:
        """write: the vector configuration (vsetvl*)."""
        self.vtype, self.vl = vt, vl
        self.decode_vtype()

    # --- scalar memory ------------------------------------------------------------
    def bad_access(self, pc: int, addr: int, size: int, what: str) -> SimError:
        """The error for a scalar access of `size` bytes at `addr` that failed its check."""
        end = self.dbase + self.dsize
        if addr % size:
            msg = (f"{what} of {size} bytes at address 0x{addr:08x} is not aligned: the address must "
                   f"be a multiple of {size}")
        elif addr < self.itcm_size:
            msg = (f"{what} at address 0x{addr:08x} is in ITCM (0..0x{self.itcm_size - 1:x}), which holds "
                   f"the program; data lives in DTCM 0x{self.dbase:08x}..0x{end - 1:08x}")
        else:
            msg = (f"{what} of {size} bytes at address 0x{addr:08x} is outside DTCM "
                   f"(0x{self.dbase:08x}..0x{end - 1:08x})")
        return fault(pc, msg, MemoryAccessError, memory="dtcm", address=addr)

    def store(self, pc: int, addr: int, size: int, value: int) -> None:
        """write: a checked scalar store (traced code calls this; fast code inlines it)."""
        o = addr - self.dbase
        if o < 0 or o > self.dsize - size or addr % size:
            raise self.bad_access(pc, addr, size, "store")
        if size == 4:
            self.m32[o >> 2] = value & M
        elif size == 2:
            self.m16[o >> 1] = value & 0xFFFF
        else:
            self.m8[o] = value & 0xFF

    # --- vector registers -------------------------------------------------------------
    def vview(self, sew: int, signed: bool = False) -> np.ndarray:
        return self.vreg.view((SINT if signed else UINT)[sew])

    def vput(self, reg: int, sew: int, start: int, values: np.ndarray) -> None:
        """write: elements start.. of the group at `reg` (SEW-bit elements)."""
        base = reg * self.epr[sew] + start
        self.vu[sew][base:base + len(values)] = values

    # --- vector memory -----------------------------------------------------------------
    def mem_view(self, nbytes: int) -> np.ndarray:
        """DTCM as an array of nbytes-byte elements (element i at offset i * nbytes)."""
        view = self._mem_views.get(nbytes)
        if view is None:
            view = self._mem_views[nbytes] = self.mem[:self.dsize - self.dsize % nbytes].view(UINT[8 * nbytes])
        return view

    def vmem_write(self, offsets: np.ndarray | int, eew: int, values: np.ndarray) -> None:
        """write: elements to DTCM byte offsets (a start offset for a contiguous run, or
        one offset per element, written in order)."""
        if isinstance(offsets, (int, np.integer)):
            view = self.mem[offsets:offsets + len(values) * (eew // 8)].view(UINT[eew])
            view[:] = values
            return
        b = eew // 8
        raw = np.ascontiguousarray(values.astype(UINT[eew])).view(np.uint8).reshape(-1, b)
        idx = offsets[:, None] + np.arange(b)
        self.mem[idx.ravel()] = raw.ravel()       # later elements overwrite earlier ones

    # --- whole-state views ----------------------------------------------------------
    def load_program_data(self, data) -> None:
        for memory, addr, blob in data:
            self.load_bytes(memory, addr, np.frombuffer(blob, dtype=np.uint8))

    def load_image(self, image: MemoryImage) -> None:
        """Apply a MemoryImage: memory "dtcm", byte addresses, values of any dtype
        (written as their little-endian bytes)."""
        for memory, writes in image.writes.items():
            for addr, values in writes.items():
                self.load_bytes(memory, addr, np.ascontiguousarray(np.asarray(values)).view(np.uint8).ravel())

    def load_bytes(self, memory: str, addr: int, raw: np.ndarray) -> None:
        if memory != "dtcm":
            what = "ITCM holds the program and cannot be preloaded" if memory == "itcm" else \
                f"coral has no memory {memory!r}"
            raise MemoryAccessError(f"memory image writes {memory!r}: {what}; data goes to 'dtcm'",
                                    memory=memory, address=addr)
        o = addr - self.dbase
        if o < 0 or o + raw.size > self.dsize:
            raise MemoryAccessError(
                f"memory image writes dtcm 0x{addr:08x}..0x{addr + raw.size - 1:08x}, outside DTCM "
                f"(0x{self.dbase:08x}..0x{self.dbase + self.dsize - 1:08x}); addresses are byte addresses",
                memory="dtcm", address=addr)
        self.mem[o:o + raw.size] = raw

    def memories(self, words: list[int]) -> dict[str, np.ndarray]:
        """Final contents as bytes: 'itcm' (the program) and 'dtcm' (DTCM itself, not a
        copy: called once a run has ended, when nothing writes it any more; copying
        16 MiB cost several ms per run)."""
        itcm = np.zeros(self.itcm_size, dtype=np.uint8)
        code = np.asarray(words, dtype=np.uint32).view(np.uint8)
        itcm[:min(code.size, itcm.size)] = code[:itcm.size]
        return {"itcm": itcm, "dtcm": self.mem}

    def registers(self) -> dict:
        vt = self.vtype
        return {"x": list(self.x), "f": list(self.f), "v": self.vreg.reshape(32, self.VLENB).copy(),
                "fflags": self.fc[FFLAGS], "frm": self.fc[FRM], "fcsr": self.fc[FRM] << 5 | self.fc[FFLAGS],
                "vxrm": self.vxrm, "vxsat": self.vxsat, "vl": self.vl, "vtype": vt, "vlenb": self.VLENB,
                "vtype_text": self.vtype_text()}

    def vtype_text(self) -> str:
        if self.vill:
            return "vill"
        return (f"e{self.sew}, {LMUL_NAMES[self.vtype & 7]}, {'ta' if self.vta else 'tu'}, "
                f"{'ma' if self.vma else 'mu'}")
