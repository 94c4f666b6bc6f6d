"""Vector segment loads and stores (nf > 0), fault-only-first loads and whole-register
loads and stores (RVV 1.0 sections 7.7 to 7.9).

A segment is the NF fields of one element, next to each other in memory; field f of
element i belongs to register group vd + f*EMUL. Each instruction's NF, EEW and
addressing mode are read from its mnemonic in the ISA data. As for the other vector
memory accesses, every active address is checked before anything is written, and
masked-off segments are neither read nor written.

Timing (the RTL's, rtl/coral/README.md): a segment access moves one field a cycle, segment
after segment, whatever its addressing mode: NF * vl cycles (a unit-stride one too: each
field's elements are NF * EEW / 8 bytes apart in memory).
"""
from __future__ import annotations

import re

import numpy as np

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.core.errors import MemoryAccessError

from ..state import UINT, fault
from . import vector
from .vector_core import beats, elems, group, mask, masked_dest_check, need_vtype, no_overlap, put, realign
from .vector_memory import _check, _signed32

SEGMENT = re.compile(r"^v(?P<dir>[ls])(?P<mode>seg|sseg|uxseg|oxseg)(?P<nf>\d)ei?(?P<eew>\d+)(?P<ff>ff)?\.v$")
FIRST_FAULT = re.compile(r"^vle(?P<eew>\d+)ff\.v$")
WHOLE_LOAD = re.compile(r"^vl(?P<n>\d)re(?P<eew>\d+)\.v$")
WHOLE_STORE = re.compile(r"^vs(?P<n>\d)r\.v$")
MODES = {"seg": "unit", "sseg": "strided", "uxseg": "indexed", "oxseg": "indexed"}


def _groups(s, pc, reg, nf, data_eew, what):
    """Registers per field group (EMUL, at least 1), checking the NF groups fit."""
    n = group(s, pc, reg, data_eew / s.sew, what)
    if nf * n > 8:
        raise fault(pc, f"{nf} fields of EMUL = {n} registers need {nf * n} registers: NF * EMUL must be at "
                        "most 8; use a smaller LMUL or fewer fields")
    if reg + nf * n > 32:
        raise fault(pc, f"{what} = v{reg} with {nf} fields of {n} register(s) would run past v31 "
                        f"(v{reg}..v{reg + nf * n - 1}); start the group at v{32 - nf * n} or lower")
    return n


def _prepare(s, pc, ops, reg, what, nf, eew, mode):
    """Check vtype and the register groups; (data EEW, registers per field, registers
    of the offsets or 0)."""
    need_vtype(s, pc)
    data_eew = s.sew if mode == "indexed" else eew
    n = _groups(s, pc, reg, nf, data_eew, what)
    ni = group(s, pc, ops["vs2"], eew / s.sew, "vs2 (offsets)") if mode == "indexed" else 0
    return data_eew, n, ni


def _addresses(s, ops, mode, vl, nf, db, eew) -> np.ndarray:
    """Byte addresses of every field: a (vl, nf) array."""
    base = s.x[ops["rs1"]]
    if mode == "unit":
        starts = base + nf * db * np.arange(vl, dtype=np.int64)
    elif mode == "strided":
        starts = base + _signed32(s.x[ops["rs2"]]) * np.arange(vl, dtype=np.int64)
    else:
        starts = base + elems(s, ops["vs2"], eew, vl).astype(np.int64)
    return starts[:, None] + db * np.arange(nf)


def _bad(s, addrs: np.ndarray, db: int) -> np.ndarray:
    off = addrs - s.dbase
    return (off < 0) | (off > s.dsize - db) | (addrs % db != 0)


def _first_bad(s, rows: np.ndarray, db: int) -> int:
    """Row of the first segment with a field outside DTCM or misaligned, or len(rows)."""
    bad = _bad(s, rows, db).any(axis=1)
    return int(np.argmax(bad)) if bad.any() else len(rows)


def _offsets(s, pc, addrs: np.ndarray, use: np.ndarray, db: int, what: str) -> np.ndarray:
    """DTCM offsets of the active segments' fields (flattened, segment by segment), or
    the error naming the first bad segment and field."""
    rows = addrs[use]
    k = _first_bad(s, rows, db)
    if k == len(rows):
        return (rows - s.dbase).ravel()
    if addrs.shape[1] == 1:
        return _check(s, pc, rows.ravel(), db, what)          # names the element, as plain loads do
    f = int(np.flatnonzero(_bad(s, rows[k], db))[0])
    a = int(rows[k, f]) & 0xFFFFFFFF
    why = s.bad_access(pc, a, db, what).message
    raise fault(pc, f"segment {int(use[k])}, field {f}: {why}", MemoryAccessError, memory="dtcm", address=a)


def _load_maker(nf, eew, mode, first_fault):
    what = "vector segment load" if nf > 1 else "vector load"

    def maker(s, ops, pc, cost):
        vd, vm = ops["vd"], ops["vm"]

        def run():
            data_eew, n, ni = _prepare(s, pc, ops, vd, "vd", nf, eew, mode)
            masked_dest_check(pc, vm, vd)
            if ni:
                no_overlap(pc, vd, nf * n, ops["vs2"], ni, "the offsets")
            vl = s.vl
            if not vl:
                return cost
            db = data_eew // 8
            addrs = _addresses(s, ops, mode, vl, nf, db, eew)
            act = mask(s, vl) if vm == 0 else None
            use = np.flatnonzero(act) if act is not None else np.arange(vl)
            if first_fault:
                k = _first_bad(s, addrs[use], db)
                if k < len(use) and use[k] > 0:  # a fault after element 0 trims vl instead
                    vl = s.vl = int(use[k])
                    use = use[:k]
                    act = act[:vl] if act is not None else None
            o = _offsets(s, pc, addrs, use, db, what)
            raw = s.mem[(o[:, None] + np.arange(db)).ravel()].view(UINT[data_eew]).reshape(len(use), nf)
            for f in range(nf):
                values = np.zeros(vl, UINT[data_eew])
                values[use] = raw[:, f]
                put(s, vd + f * n, data_eew, vl, values, vm, n, act)
            if mode == "unit" and nf == 1:               # a fault-only-first load: its trimmed vl's bytes
                return cost * beats(s, vl, data_eew) + realign(s, s.x[ops["rs1"]], vl * db)
            return cost * nf * vl
        return run
    return maker


def _store_maker(nf, eew, mode):
    def maker(s, ops, pc, cost):
        vs3, vm = ops["vs3"], ops["vm"]

        def run():
            data_eew, n, _ = _prepare(s, pc, ops, vs3, "vs3", nf, eew, mode)
            vl = s.vl
            if not vl:
                return cost
            db = data_eew // 8
            addrs = _addresses(s, ops, mode, vl, nf, db, eew)
            use = np.flatnonzero(mask(s, vl)) if vm == 0 else np.arange(vl)
            o = _offsets(s, pc, addrs, use, db, "vector segment store" if nf > 1 else "vector store")
            fields = np.stack([elems(s, vs3 + f * n, data_eew, vl)[use] for f in range(nf)], axis=1)
            s.vmem_write(o, data_eew, fields.ravel())
            return cost * nf * (beats(s, vl, data_eew) if mode == "unit" and nf == 1 else vl)
        return run
    return maker


def _whole_check(s, pc, reg, n, what):
    if reg % n:
        raise fault(pc, f"{what} = v{reg} is not a multiple of {n}: a whole-register group of {n} starts at "
                        f"v0, v{n}, v{2 * n}, ... (misaligned vector register group)")


def _whole_load_maker(n, eew):
    def maker(s, ops, pc, cost):
        vd, rs1 = ops["vd"], ops["rs1"]

        def run():                       # whole-register accesses ignore vl and vtype
            _whole_check(s, pc, vd, n, "vd")
            size, eb = n * s.VLENB, eew // 8
            base = s.x[rs1]
            o = int(_check(s, pc, np.array([base, base + size - eb], dtype=np.int64), eb, "whole-register load")[0])
            s.vput(vd, 8, 0, s.mem[o:o + size].copy())
            return cost * n + realign(s, base, size)
        return run
    return maker


def _whole_store_maker(n):
    def maker(s, ops, pc, cost):
        vs3, rs1 = ops["vs3"], ops["rs1"]

        def run():
            _whole_check(s, pc, vs3, n, "vs3")
            size = n * s.VLENB
            base = s.x[rs1]
            o = int(_check(s, pc, np.array([base, base + size - 1], dtype=np.int64), 1, "whole-register store")[0])
            s.vmem_write(o, 8, s.vreg[vs3 * s.VLENB:vs3 * s.VLENB + size].copy())
            return cost * n
        return run
    return maker


for _mn in get_isa("coral").instructions:
    if m := SEGMENT.match(_mn):
        nf, eew, mode = int(m["nf"]), int(m["eew"]), MODES[m["mode"]]
        vector(_mn)(_load_maker(nf, eew, mode, bool(m["ff"])) if m["dir"] == "l" else _store_maker(nf, eew, mode))
    elif m := FIRST_FAULT.match(_mn):
        vector(_mn)(_load_maker(1, int(m["eew"]), "unit", True))
    elif m := WHOLE_LOAD.match(_mn):
        vector(_mn)(_whole_load_maker(int(m["n"]), int(m["eew"])))
    elif m := WHOLE_STORE.match(_mn):
        vector(_mn)(_whole_store_maker(int(m["n"])))
