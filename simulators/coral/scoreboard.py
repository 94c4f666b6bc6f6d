"""The vector registers a vector instruction writes and an indexed access's dispatch reads,
as 32-bit masks: the vector unit's scoreboard (rtl/coral/coral_vec.v `d_wset`, `d_rset`).

An indexed access checks its elements' addresses at dispatch from the offsets' register
group (and v0 when masked), so it waits until no earlier instruction still queued or
issuing writes one of those registers (timing.VectorTiming.wait_regs). The sets are the
RTL's, rule for rule, so that the model waits exactly as long:
- written: [vd, vd + count), count the destination group's registers at the current
  vtype: 1 for a mask result (compares, vmadc/vmsbc, mask logic, vmsbf/vmsif/vmsof), a
  reduction, vmv.s.x/vfmv.s.f and vlm.v; NF * EMUL for a unit-stride or strided load
  (EMUL = EEW / SEW * LMUL), NF * LMUL for an indexed one; n for vl<n>re*.v and
  vmv<n>r.v; 2 LMUL for a widening instruction; LMUL otherwise (a fraction: 1). Stores
  and moves to a scalar write none. The group whatever vl is: a superset of what the unit
  writes at vl = 0, in tail-undisturbed registers past vl and for a vslideup writing
  nothing, as the RTL's (rtl/coral/README.md: why, and what it costs).
- read by an indexed access: the offsets' EMUL = EEW / SEW * LMUL registers from vs2 (at
  least 1; 8 when EMUL is over 8, which faults), v0 when masked; none at vill (it faults
  at once).
"""
from __future__ import annotations

import re

from kernelcraft.isa.loader import get_isa

_ISA = get_isa("coral")
ALL = (1 << 32) - 1
_EEW = re.compile(r"e(?:i)?(8|16|32)(?:ff)?\.v$")
_SEG = re.compile(r"seg(\d)")
_WHOLE = re.compile(r"^v(?:l|mv)(\d)r")


def _single(mn: str, d) -> bool:
    """A destination of one register whatever LMUL is."""
    return (d.timing in ("VMASK", "VRED", "VFRED") or mn in ("vmv.s.x", "vfmv.s.f", "vlm.v") or
            mn.startswith(("vms", "vmf", "vmadc")))


def _regs(lmul_num: int, lmul_den: int, factor_num: int = 1, factor_den: int = 1) -> int:
    """Registers of a group of EMUL = LMUL * factor (a fraction: 1)."""
    return max(1, lmul_num * factor_num // (lmul_den * factor_den))


def write_rule(mn: str, ops: dict):
    """f(state) -> the mask of registers instruction `mn` with operands `ops` writes."""
    d = _ISA.instructions[mn]
    if "vd" not in ops:
        return lambda s: 0                       # stores, moves to a scalar register
    vd = ops["vd"]
    span = lambda n: (((1 << n) - 1) << vd) & ALL
    whole = _WHOLE.match(mn)
    if whole:
        m = span(int(whole.group(1)))
        return lambda s: m
    if _single(mn, d):
        m = span(1)
        return lambda s: m
    if d.unit == "vlsu":                         # loads
        nf = int(_SEG.search(mn).group(1)) if "seg" in mn else 1
        if d.format.name == "VLX":
            return lambda s: span(nf * _regs(s.lmul_num, s.lmul_den))
        eew = int(_EEW.search(mn).group(1))
        return lambda s: span(nf * _regs(s.lmul_num, s.lmul_den, eew, s.sew))
    if d.group == "rvv_widen" and mn.startswith("vw"):
        return lambda s: span(_regs(s.lmul_num, s.lmul_den, 2))
    return lambda s: span(_regs(s.lmul_num, s.lmul_den))


def index_read_rule(mn: str, ops: dict):
    """f(state) -> the mask of registers indexed access `mn` reads at dispatch."""
    eew = int(_EEW.search(mn).group(1))
    vs2, v0 = ops["vs2"], int(ops.get("vm", 1) == 0)

    def reads(s) -> int:
        if s.vill:
            return 0
        n = min(8, _regs(s.lmul_num, s.lmul_den, eew, s.sew))
        return ((((1 << n) - 1) << vs2) & ALL) | v0
    return reads
