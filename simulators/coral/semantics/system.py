"""What scalar code calls out to: CSR access, the dynamic rounding mode, indirect
jumps, the vector configuration, integer division. Bound to one state by compiler.py.
"""
from __future__ import annotations

from kernelcraft.simulators.core.errors import SimError

from ..fp32 import RM_NAMES
from ..state import FFLAGS, FRM, M, VILL, CoralState, fault

SB = 0x80000000
CSR_NAMES = {0x001: "fflags", 0x002: "frm", 0x003: "fcsr", 0x008: "vstart", 0x009: "vxsat",
             0x00A: "vxrm", 0x00F: "vcsr", 0xC00: "cycle", 0xC01: "time", 0xC02: "instret",
             0xC20: "vl", 0xC21: "vtype", 0xC22: "vlenb", 0xC80: "cycleh", 0xC81: "timeh",
             0xC82: "instreth", 0xF14: "mhartid"}
READ_ONLY = {0xC00, 0xC01, 0xC02, 0xC20, 0xC21, 0xC22, 0xC80, 0xC81, 0xC82, 0xF14}


class System:
    """Helpers for generated code, bound to one state."""

    def __init__(self, state: CoralState, timing):
        self.s = state
        self.timing = timing

    def csr(self, pc: int, number: int, op: str, value, t: int, retired: int) -> int:
        """csrrw/csrrs/csrrc (op 'w'/'s'/'c'); value None means no write. Returns the old value."""
        s = self.s
        name = CSR_NAMES.get(number)
        if name is None:
            raise fault(pc, f"CSR 0x{number:03x} does not exist on coral; CSRs: " + ", ".join(CSR_NAMES.values()))
        cycles = max(t, self.timing.vend) if name in ("cycle", "time", "cycleh", "timeh") else t
        old = {"fflags": s.fc[FFLAGS], "frm": s.fc[FRM], "fcsr": s.fc[FRM] << 5 | s.fc[FFLAGS],
               "vstart": 0, "cycle": cycles & M, "time": cycles & M, "instret": retired & M,
               "cycleh": cycles >> 32, "timeh": cycles >> 32, "instreth": retired >> 32,
               "vl": s.vl, "vtype": s.vtype, "vlenb": s.VLENB, "mhartid": 0,
               "vxsat": s.vxsat, "vxrm": s.vxrm, "vcsr": s.vxrm << 1 | s.vxsat}[name]
        if value is None:
            return old
        new = value if op == "w" else (old | value) if op == "s" else (old & ~value & M)
        if number in READ_ONLY:
            if new != old or op == "w":
                raise fault(pc, f"CSR {name} is read-only; read it with csrr (csrrs rd, {name}, zero)")
            return old
        if name == "vstart":
            if new:
                raise fault(pc, "vstart can only be 0 on coral: no vector instruction is ever interrupted")
            return old
        if name == "fflags":
            s.fc[FFLAGS] = new & 0x1F
        elif name == "frm":
            s.fc[FRM] = new & 7
        elif name == "vxsat":
            s.vxsat = new & 1
        elif name == "vxrm":
            s.vxrm = new & 3
        elif name == "vcsr":                          # vcsr = vxrm << 1 | vxsat
            s.vxsat, s.vxrm = new & 1, (new >> 1) & 3
        else:
            s.fc[FFLAGS], s.fc[FRM] = new & 0x1F, (new >> 5) & 7
        return old

    def frm(self, pc: int) -> int:
        rm = self.s.fc[FRM]
        if rm > 4:
            raise fault(pc, f"rounding mode dyn with frm = {rm}, which is reserved: set frm to one of "
                        + ", ".join(f"{v} ({n})" for v, n in RM_NAMES.items()) + " (fsrmi), or name rm")
        return rm

    def jump(self, pc: int, address: int) -> int:
        """The instruction index of an indirect jump target, checked."""
        s = self.s
        if address & 3 or address // 4 > s.end_pc:
            why = "is not a multiple of 4" if address & 3 else \
                f"is outside the program (0..0x{4 * s.end_pc:x}; 0x{4 * s.end_pc:x} ends the run)"
            raise fault(pc, f"jump target 0x{address:08x} {why}", SimError)
        return address >> 2

    def vset(self, pc: int, avl, vt: int) -> int:
        """Set vtype and vl as vsetvl* do; returns the new vl. avl None: VLMAX; -1: keep vl."""
        s = self.s
        problem = s.vtype_problem(vt)
        if problem:
            s.set_vtype(VILL, 0)
            s.vill_reason = (pc, problem)
            return 0
        prev_vl = s.vl
        s.set_vtype(vt, 0)
        if avl is None:
            vl = s.vlmax
        elif avl == -1:
            if prev_vl > s.vlmax:
                s.set_vtype(VILL, 0)
                s.vill_reason = (pc, f"vsetvli zero, zero keeps vl = {prev_vl}, but the new VLMAX is {s.vlmax}")
                return 0
            vl = prev_vl
        else:
            vl = min(avl, s.vlmax)
        s.set_vtype(vt, vl)
        return vl


def div_s(a: int, b: int) -> int:
    if b == 0:
        return M
    x, y = (a ^ SB) - SB, (b ^ SB) - SB
    if x == -SB and y == -1:
        return a
    q = abs(x) // abs(y)
    return (q if (x < 0) == (y < 0) else -q) & M


def div_u(a: int, b: int) -> int:
    return a // b if b else M


def rem_s(a: int, b: int) -> int:
    if b == 0:
        return a
    x, y = (a ^ SB) - SB, (b ^ SB) - SB
    if x == -SB and y == -1:
        return 0
    r = abs(x) % abs(y)
    return (r if x >= 0 else -r) & M


def rem_u(a: int, b: int) -> int:
    return a % b if b else a
