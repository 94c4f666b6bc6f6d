"""Vector loads and stores to DTCM: unit-stride, strided, indexed and mask. Every
active element's address is checked (in DTCM, aligned to its size) before anything
is written; masked-off elements are neither read nor written."""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators.core.errors import MemoryAccessError

from ..state import UINT, fault
from . import vector
from .vector_core import beats, elems, group, mask, masked_dest_check, need_vtype, put, realign


def _check(s, pc, addrs: np.ndarray, eb: int, what: str, elements=None) -> np.ndarray:
    """DTCM offsets of the element addresses, or the error for the first bad one
    (named by its element number: `elements[i]` for addrs[i] when given)."""
    off = addrs - s.dbase
    bad = (off < 0) | (off > s.dsize - eb) | (addrs % eb != 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        a = int(addrs[i]) & 0xFFFFFFFF
        why = s.bad_access(pc, a, eb, what).message
        raise fault(pc, f"element {int(elements[i]) if elements is not None else i}: {why}", MemoryAccessError, memory="dtcm", address=a)
    return off


def _addresses(s, base: int, vl: int, eb: int, stride=None, offsets=None) -> np.ndarray:
    if offsets is not None:
        return base + offsets.astype(np.int64)
    step = eb if stride is None else stride
    return base + step * np.arange(vl, dtype=np.int64)


def _signed32(v: int) -> int:
    return (v ^ 0x80000000) - 0x80000000


def _load_maker(eew, mode):

    def maker(s, ops, pc, cost):
        vd, rs1, vm = ops["vd"], ops["rs1"], ops["vm"]

        def run():
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            data_eew = sew if mode == "indexed" else eew
            n = group(s, pc, vd, data_eew / sew, "vd")
            masked_dest_check(pc, vm, vd)
            if mode == "indexed":
                group(s, pc, ops["vs2"], eew / sew, "vs2 (offsets)")
            if not vl:
                return cost
            base = s.x[rs1]
            act = mask(s, vl) if vm == 0 else None
            db = data_eew // 8
            stride = db if mode == "unit" else _signed32(s.x[ops["rs2"]]) if mode == "strided" else 0
            if mode != "indexed" and act is None and stride and stride % db == 0:
                # a plain slice of DTCM when the first and last elements are in range and aligned
                o = base - s.dbase
                last = o + (vl - 1) * stride
                if not (0 <= o <= s.dsize - db and 0 <= last <= s.dsize - db) or base % db:
                    _check(s, pc, base + stride * np.arange(vl, dtype=np.int64), db, "vector load")
                step, first, final = stride // db, o // db, last // db
                view = s.mem_view(db)
                if step > 0:
                    values = view[first:final + 1:step]
                else:
                    values = view[first:final - 1 if final else None:step]
            else:
                stride = _signed32(s.x[ops["rs2"]]) if mode == "strided" else None
                offsets = elems(s, ops["vs2"], eew, vl) if mode == "indexed" else None
                addrs = _addresses(s, base, vl, db, stride, offsets)
                use = np.flatnonzero(act) if act is not None else np.arange(vl)
                o = _check(s, pc, addrs[use], db, "vector load", use)
                values = np.zeros(vl, UINT[db * 8])
                raw = s.mem[(o[:, None] + np.arange(db)).ravel()]
                values[use] = raw.view(UINT[db * 8])
            put(s, vd, data_eew, vl, values, vm, n, act)
            if mode == "unit":
                return cost * beats(s, vl, data_eew) + realign(s, base, vl * db)
            return cost * vl
        return run
    return maker


def _store_maker(eew, mode):

    def maker(s, ops, pc, cost):
        vs3, rs1, vm = ops["vs3"], ops["rs1"], ops["vm"]

        def run():
            need_vtype(s, pc)
            sew, vl = s.sew, s.vl
            data_eew = sew if mode == "indexed" else eew
            group(s, pc, vs3, data_eew / sew, "vs3")
            if mode == "indexed":
                group(s, pc, ops["vs2"], eew / sew, "vs2 (offsets)")
            if not vl:
                return cost
            base = s.x[rs1]
            db = data_eew // 8
            values = elems(s, vs3, data_eew, vl)
            act = mask(s, vl) if vm == 0 else None
            if mode == "unit" and act is None:
                o = base - s.dbase
                if o < 0 or o + vl * db > s.dsize or base % db:
                    _check(s, pc, base + db * np.arange(vl, dtype=np.int64), db, "vector store")
                s.vmem_write(o, data_eew, values.copy())
            else:
                stride = _signed32(s.x[ops["rs2"]]) if mode == "strided" else None
                offsets = elems(s, ops["vs2"], eew, vl) if mode == "indexed" else None
                addrs = _addresses(s, base, vl, db, stride, offsets)
                use = np.flatnonzero(act) if act is not None else np.arange(vl)
                o = _check(s, pc, addrs[use], db, "vector store", use)
                s.vmem_write(o, data_eew, values[use].copy())
            return cost * (beats(s, vl, data_eew) if mode == "unit" else vl)
        return run
    return maker


for _eew in (8, 16, 32):
    vector(f"vle{_eew}.v")(_load_maker(_eew, "unit"))
    vector(f"vlse{_eew}.v")(_load_maker(_eew, "strided"))
    vector(f"vluxei{_eew}.v", f"vloxei{_eew}.v")(_load_maker(_eew, "indexed"))
    vector(f"vse{_eew}.v")(_store_maker(_eew, "unit"))
    vector(f"vsse{_eew}.v")(_store_maker(_eew, "strided"))
    vector(f"vsuxei{_eew}.v", f"vsoxei{_eew}.v")(_store_maker(_eew, "indexed"))


@vector("vlm.v")
def _vlm(s, ops, pc, cost):
    vd, rs1 = ops["vd"], ops["rs1"]

    def run():
        need_vtype(s, pc)
        n = -(-s.vl // 8)
        if n:
            base = s.x[rs1]
            o = _check(s, pc, np.array([base, base + n - 1], dtype=np.int64), 1, "mask load")
            put(s, vd, 8, n, s.mem[o[0]:o[0] + n].copy(), 1, 1)
            return cost + realign(s, base, n)
        return cost
    return run


@vector("vsm.v")
def _vsm(s, ops, pc, cost):
    vs3, rs1 = ops["vs3"], ops["rs1"]

    def run():
        need_vtype(s, pc)
        n = -(-s.vl // 8)
        if n:
            base = s.x[rs1]
            o = _check(s, pc, np.array([base, base + n - 1], dtype=np.int64), 1, "mask store")
            s.vmem_write(int(o[0]), 8, s.vreg[vs3 * s.VLENB:vs3 * s.VLENB + n].copy())
        return cost
    return run
