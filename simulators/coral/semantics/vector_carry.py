"""Vector add-with-carry and subtract-with-borrow (RVV 1.0 section 11.4): v0 holds the
carry/borrow input of the .vvm/.vxm/.vim forms (never masked), vmadc/vmsbc write the
carry/borrow output as a mask."""
from __future__ import annotations

import numpy as np

from ..state import UINT, fault
from . import vector_forms
from .vector_core import beats, elems, group, mask, need_vtype, overlaps, put, put_mask
from .vector_integer import _operand


def _mask_dest_overlap(pc: int, vd: int, src: int, ns: int, what: str) -> None:
    """A mask destination may share only the lowest register of a source group."""
    if overlaps(vd, 1, src, ns) and vd != src:
        raise fault(pc, f"the mask destination v{vd} overlaps {what} v{src}..v{src + ns - 1} other than in its "
                        f"lowest register: use v{src} itself or a register outside the group")


def _carry_maker(name, form):
    add = name in ("vadc", "vmadc")
    to_mask = name.startswith("vm")
    carry_in = form.endswith("m")
    word = "carry" if add else "borrow"

    def maker(s, ops, pc, cost):
        vd, vs2 = ops["vd"], ops["vs2"]
        vs1 = ops.get("vs1")

        def run():
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            ns = group(s, pc, vs2, 1, "vs2")
            if vs1 is not None:
                group(s, pc, vs1, 1, "vs1")
            if to_mask:
                _mask_dest_overlap(pc, vd, vs2, ns, "the source vs2")
                if vs1 is not None:
                    _mask_dest_overlap(pc, vd, vs1, ns, "the source vs1")
            else:
                n = group(s, pc, vd, 1, "vd")
                if vd == 0:
                    raise fault(pc, f"{name}.{form} cannot write v0, which holds the {word} input; use "
                                    "another destination register")
            if vl:
                a = elems(s, vs2, sew, vl).astype(np.int64)
                b = np.asarray(_operand(s, ops, form[:2], sew, vl, False)).astype(np.int64)
                c = mask(s, vl).astype(np.int64) if carry_in else 0
                r = a + b + c if add else a - b - c
                if to_mask:
                    put_mask(s, vd, vl, r > (1 << sew) - 1 if add else r < 0, 1)
                else:
                    put(s, vd, sew, vl, (r & ((1 << sew) - 1)).astype(UINT[sew]), 1, n)
            return cost * beats(s, vl, sew)
        return run
    return maker


for _name in ("vadc", "vmadc", "vsbc", "vmsbc"):
    vector_forms(_name, ("vvm", "vxm", "vim", "vv", "vx", "vi"), lambda form, n=_name: _carry_maker(n, form))
