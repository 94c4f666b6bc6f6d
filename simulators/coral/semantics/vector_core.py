"""Shared machinery of the vector semantics: vtype checks, register groups, masks,
and writing results under the tail and mask policies (isa/coral/manual_intro.md,
"Vector model").

A maker's closure reads vl and vtype when it runs (the values at dispatch), checks
its register groups, computes on numpy views and writes through `put`, which applies
v0.t masking and the tail policy and is the one place vector registers change.
"""
from __future__ import annotations

import numpy as np

from ..state import LMUL_NAMES, SINT, UINT, CoralState, IllegalInstruction, fault

ONES = {8: np.uint8(0xFF), 16: np.uint16(0xFFFF), 32: np.uint32(0xFFFFFFFF), 64: np.uint64(2**64 - 1)}


def need_vtype(s: CoralState, pc: int) -> None:
    if s.vill:
        why = "at reset" if s.vill_reason is None else \
            f"the vset* at instruction {s.vill_reason[0]} asked for a setting coral does not support: {s.vill_reason[1]}"
        raise fault(pc, f"vtype is illegal (vill = 1, {why}); run vsetvli / vsetivli with a supported "
                        "SEW (e8, e16, e32) and LMUL first")


def lmul_text(s: CoralState) -> str:
    return LMUL_NAMES[s.vtype & 7]


def group(s: CoralState, pc: int, reg: int, factor: float, what: str) -> int:
    """Check the register group of `reg` with EMUL = LMUL * factor; return how many
    registers it spans (1 for fractional EMUL)."""
    emul = s.lmul_num * factor / s.lmul_den
    if emul > 8:
        raise fault(pc, f"{what} would need EMUL = {emul:g} registers (LMUL = {lmul_text(s)}, SEW = {s.sew}): "
                        "at most 8; use a smaller LMUL for widening and narrowing instructions")
    n = max(1, int(emul))
    if reg % n:
        raise fault(pc, f"{what} = v{reg} is not a multiple of {n}: with LMUL = {lmul_text(s)} "
                        f"{'(widened) ' if factor > 1 else ''}a register group of {n} starts at "
                        f"v0, v{n}, v{2 * n}, ... (misaligned vector register group)")
    return n


def overlaps(a: int, na: int, b: int, nb: int) -> bool:
    return a < b + nb and b < a + na


def no_overlap(pc: int, vd: int, nd: int, src: int, ns: int, what: str) -> None:
    if overlaps(vd, nd, src, ns):
        raise fault(pc, f"the destination v{vd}..v{vd + nd - 1} overlaps {what} v{src}..v{src + ns - 1}, "
                        "which this instruction does not allow; use another destination register")


def widen_overlap(pc: int, vd: int, nd: int, src: int, ns: int, src_whole: bool, what: str) -> None:
    """A wider destination may overlap a narrower source only in its highest-numbered
    part, and only when the source group is at least one whole register."""
    if overlaps(vd, nd, src, ns) and not (src_whole and src == vd + nd - ns):
        no_overlap(pc, vd, nd, src, ns, what)


def masked_dest_check(pc: int, vm: int, vd: int) -> None:
    if vm == 0 and vd == 0:
        raise fault(pc, "a masked instruction (v0.t) cannot write v0, which holds the mask; use another "
                        "destination register")


def element_checks(s: CoralState, pc: int, ops: dict) -> int:
    """vd, vs2 and vs1 (when the form has it) as register groups of LMUL, and v0.t not on
    vd: the checks of an element-wise operation. Returns the group size."""
    n = group(s, pc, ops["vd"], 1, "vd")
    group(s, pc, ops["vs2"], 1, "vs2")
    if "vs1" in ops:
        group(s, pc, ops["vs1"], 1, "vs1")
    masked_dest_check(pc, ops["vm"], ops["vd"])
    return n


def elems(s: CoralState, reg: int, sew: int, count: int, signed: bool = False) -> np.ndarray:
    """A view of `count` SEW-bit elements of the group starting at `reg`."""
    base = reg * s.epr[sew]
    return (s.vs if signed else s.vu)[sew][base:base + count]


def mask(s: CoralState, vl: int, reg: int = 0) -> np.ndarray:
    """Bits 0..vl-1 of mask register `reg` as booleans."""
    return np.unpackbits(s.vreg[reg * s.VLENB:(reg + 1) * s.VLENB], bitorder="little")[:vl].astype(bool)


def scalar(value: int, sew: int, signed: bool = False):
    """A scalar register value truncated to SEW bits, as a numpy scalar of that width."""
    u = UINT[sew](value & ((1 << sew) - 1))
    return u.view(SINT[sew]) if signed else u


def tail_end(s: CoralState, sew: int, nregs: int) -> int:
    """Elements of a destination group of `nregs` registers (fractional LMUL: the
    whole register)."""
    return nregs * s.VLENB * 8 // sew


def put(s: CoralState, vd: int, sew: int, vl: int, values, vm: int, nregs: int, active=None) -> None:
    """Write elements 0..vl-1 of vd (SEW bits) with the mask and tail policies."""
    if values.dtype != UINT[sew] if isinstance(values, np.ndarray) else True:
        values = np.asarray(values).astype(UINT[sew])
    if vm == 0:
        if active is None:
            active = mask(s, vl)
        old = elems(s, vd, sew, vl)
        other = ONES[sew] if s.vma and s.agnostic_ones else old
        values = np.where(active, values, other)
    s.vput(vd, sew, 0, values)
    if s.vta and s.agnostic_ones:
        end = tail_end(s, sew, nregs)
        if vl < end:
            s.vput(vd, sew, vl, np.full(end - vl, ONES[sew]))


def put_mask(s: CoralState, vd: int, vl: int, bits: np.ndarray, vm: int, active=None) -> None:
    """Write mask bits 0..vl-1 of register vd: inactive bits follow the mask policy;
    the tail (bits vl..VLEN-1) is set to 1 (mask destinations are tail-agnostic), or
    kept when the state leaves agnostic elements undisturbed."""
    old = np.unpackbits(s.vreg[vd * s.VLENB:(vd + 1) * s.VLENB], bitorder="little").astype(bool)
    new = old.copy()
    if vm == 0:
        if active is None:
            active = mask(s, vl)
        bits = np.where(active, bits, True if s.vma and s.agnostic_ones else old[:vl])
    new[:vl] = bits
    if s.agnostic_ones:
        new[vl:] = True
    s.vput(vd, 8, 0, np.packbits(new, bitorder="little"))


def beats(s: CoralState, vl: int, eew: int) -> int:
    return max(1, -(-vl * eew // s.VLEN))


def realign(s: CoralState, base: int, nbytes: int) -> int:
    """The cycle a unit-stride load of nbytes from `base` adds when its bytes start inside a
    word and span more than VLEN / 32 words (the RTL reads VLEN / 32 words a cycle, one per
    bank, and writes each beat a cycle later, from those and the next cycle's first word)."""
    off = base & 3
    return 1 if off and off + nbytes > s.VLENB else 0


__all__ = ["IllegalInstruction", "fault"]
