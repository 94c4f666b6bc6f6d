"""vsetvli, vsetivli, vsetvl: executed by the scalar core (system.vset)."""
from __future__ import annotations

from . import Code, scalar
from .scalar import setx


def _vtype(vsew: int, vlmul: int, vta: int, vma: int) -> int:
    return vlmul | vsew << 3 | vta << 6 | vma << 7


@scalar("vsetvli")
def _vsetvli(rd, rs1, vsew, vlmul, vta, vma, pc, **_):
    # AVL: x[rs1]; rs1 = zero: VLMAX if rd != zero ("None"), else keep vl ("-1")
    avl = f"x[{rs1}]" if rs1 else ("None" if rd else "-1")
    return Code([f"v = VSET({pc}, {avl}, {_vtype(vsew, vlmul, vta, vma)})"] + setx(rd, "v"))


@scalar("vsetivli")
def _vsetivli(rd, uimm, vsew, vlmul, vta, vma, pc, **_):
    return Code([f"v = VSET({pc}, {uimm}, {_vtype(vsew, vlmul, vta, vma)})"] + setx(rd, "v"))


@scalar("vsetvl")
def _vsetvl(rd, rs1, rs2, pc, **_):
    avl = f"x[{rs1}]" if rs1 else ("None" if rd else "-1")
    return Code([f"v = VSET({pc}, {avl}, x[{rs2}])"] + setx(rd, "v"))
