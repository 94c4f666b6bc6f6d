"""Fast closures on lanes.c's C loops (built by lanes.py): plena's lane-wise vector
instructions (masked too), row sums and maxima, matrix-vector and matrix products and
their write-outs, S_MAP_V_FP, S_EXP_FP and the transfers, each one C call.

Like fastvec.py's closures, each computes what the reference semantics do for the
ordinary case and hands anything else to them (the C loop returns False or None having
written nothing): an address that fails a check, a NaN, heads that do not tile a row.
The transfers note their footprint themselves (the timing model queues them by it).
`bind` returns None where there is no C closure or no built module; fastvec.bind then
takes its numpy closure or the reference.
"""
from __future__ import annotations

from kernelcraft.simulators.numerics import bf16_table, exp, max_f32, reciprocal, round_f32

from . import lanes
from .state import HBM_READ, HBM_WRITE, MSRAM, STRIDE, V_MASK, VSRAM

ADD, SUB, RSUB, MUL, MAX, MIN = range(6)      # lanes.c's operation codes


def _addresses(m) -> dict:
    """The addresses of the state's arrays that lanes.c works on (made once per state:
    the arrays are only ever written in place), by name: vsram, msram, hbm, MV_ACC,
    MM_ACC."""
    a = m.__dict__.get("_lanes_addresses")
    if a is None:
        arrays = {"vsram": m.vsram, "msram": m.msram, "hbm": m.hbm,
                  "MV_ACC": m.acc["MV_ACC"], "MM_ACC": m.acc["MM_ACC"]}
        a = m.__dict__["_lanes_addresses"] = {k: v.__array_interface__["data"][0]
                                              for k, v in arrays.items()}
    return a


def _frame(m) -> tuple:
    """What every lanes.c call starts with: Vector SRAM's address, its size, VLEN."""
    return _addresses(m)["vsram"], m.vsram.size, m.VLEN


def _masked(m) -> bool:
    """Whether lanes.c can do a masked instruction: its heads tile the row (else the
    reference's head mask and the row do not line up, which it reports)."""
    return m.MLEN % m.HLEN == 0


def _c_binary(op):
    def make(m, ref, c, rd, rs1, rs2, rmask):
        gp, csr, (base, size, vlen), binary, hlen = m.gp, m.csr, _frame(m), c.binary, m.HLEN
        if rmask:
            if not _masked(m):
                return ref

            def masked():
                if not binary(base, size, vlen, op, gp[rd], gp[rs1], gp[rs2], hlen, csr[V_MASK]):
                    return ref()
            return masked

        def run():
            if not binary(base, size, vlen, op, gp[rd], gp[rs1], gp[rs2]):
                return ref()
        return run
    return make


def _c_scalar(op):
    def make(m, ref, c, rd, rs1, rs2, rmask, rorder=0):
        gp, f, csr, (base, size, vlen), scalar = m.gp, m.f, m.csr, _frame(m), c.scalar
        code, hlen = RSUB if op == SUB and rorder else op, m.HLEN
        if rmask:
            if not _masked(m):
                return ref

            def masked():
                if not scalar(base, size, vlen, code, gp[rd], gp[rs1], f[rs2], hlen, csr[V_MASK]):
                    return ref()
            return masked

        def run():
            if not scalar(base, size, vlen, code, gp[rd], gp[rs1], f[rs2]):
                return ref()
        return run
    return make


def _c_unary(fn):
    def make(m, ref, c, rd, rs1, rmask):
        gp, csr, (base, size, vlen), lookup, hlen = m.gp, m.csr, _frame(m), c.table, m.HLEN
        values = bf16_table(fn)
        at = values.__array_interface__["data"][0]  # (kept by numerics.bf16_table)
        if rmask:
            if not _masked(m):
                return ref

            def masked():
                if not lookup(base, size, vlen, at, gp[rd], gp[rs1], hlen, csr[V_MASK]):
                    return ref()
            return masked

        def run():
            if not lookup(base, size, vlen, at, gp[rd], gp[rs1]):
                return ref()
        return run
    return make


def _c_red_sum(m, ref, c, rd, rs1):
    gp, f, (base, size, vlen), tree_sum = m.gp, m.f, _frame(m), c.tree_sum

    def run():
        x = tree_sum(base, size, vlen, gp[rs1])
        if x is None:
            return ref()
        if rd:
            f[rd] = round_f32(f[rd] + x)
    return run


def _c_red_max(m, ref, c, rd, rs1):
    gp, f, (base, size, vlen), max_reduce = m.gp, m.f, _frame(m), c.max_reduce

    def run():
        x = max_reduce(base, size, vlen, gp[rs1])
        if x is None:
            return ref()
        if rd:
            f[rd] = max_f32(f[rd], x)
    return run


def _c_mv(transposed: bool):
    def make(m, ref, c, rs1, rs2):
        if m.VLEN != m.MLEN:
            return ref
        gp, (base, size, vlen), mv = m.gp, _frame(m), c.mv
        mbase, msize = _addresses(m)["msram"], m.msram.size
        acc = _addresses(m)["MV_ACC"]      # (written in place: PlenaState.set_acc)

        def run():
            if not mv(base, size, vlen, mbase, msize, acc, transposed, gp[rs1], gp[rs2]):
                return ref()
        return run
    return make


def _c_mv_wo(m, ref, c, rd, imm):
    if m.VLEN != m.MLEN:
        return ref
    gp, (base, size, vlen), write_out = m.gp, _frame(m), c.write_out
    acc = _addresses(m)["MV_ACC"]

    def run():
        if not write_out(base, size, vlen, acc, gp[rd] + imm):
            return ref()
    return run


def _c_mm(transposed: bool):
    def make(m, ref, c, rs1, rs2):
        if m.VLEN != m.MLEN or m.BLEN > 64:
            return ref
        gp, (base, size, vlen), mm, blen = m.gp, _frame(m), c.mm, m.BLEN
        mbase, msize = _addresses(m)["msram"], m.msram.size
        acc = _addresses(m)["MM_ACC"]      # (written in place: PlenaState.set_acc)

        def run():
            if not mm(base, size, vlen, mbase, msize, blen, acc, transposed, gp[rs1], gp[rs2]):
                return ref()
        return run
    return make


def _c_mm_wo(m, ref, c, rd, imm):
    gp, (base, size, vlen), write_out, blen = m.gp, _frame(m), c.mm_write_out, m.BLEN
    acc = _addresses(m)["MM_ACC"]

    def run():
        if not write_out(base, size, vlen, blen, acc, gp[rd] + imm):
            return ref()
    return run


def _c_exp_f32(m, ref, c, rd, rs1):
    """S_EXP_FP: numerics.exp_f32 in C (its constants passed as they are there)."""
    if not rd:
        return ref
    from kernelcraft.simulators import numerics
    f, exp_f32 = m.f, c.exp_f32
    top, coeffs = numerics._EXP_TOP, tuple(numerics._EXP_C)
    log2e, hi, lo = numerics._LOG2E, numerics._LN2_HI, numerics._LN2_LO

    def run():
        x = exp_f32(f[rs1], top, coeffs, log2e, hi, lo)
        if x is None:
            return ref()
        f[rd] = x
    return run


def _c_map_fp(m, ref, c, rd, rs1, imm):
    gp, mem, (base, size, vlen), map_fp = m.gp, m.fp_mem, _frame(m), c.map_fp

    def run():
        if not map_fp(base, size, vlen, mem, gp[rs1] + imm, gp[rd]):
            return ref()
    return run


# The transfers note their own footprint (the timing model queues them by it), so
# each closure is its own `noting` wrapper.

def _c_prefetch_v(m, ref, c, rd, rs1, rs2, rstride, precision):
    gp, a, csr, footprint, load = m.gp, m.a, m.csr, m.footprint, c.load
    rows, vlen = m.cfg.HBM_V_PREFETCH_AMOUNT, m.VLEN
    base, size, hbm, hsize = _addresses(m)["vsram"], m.vsram.size, _addresses(m)["hbm"], m.hbm.size

    def run():
        d = gp[rd]
        if not load(base, size, vlen, rows, vlen, hbm, hsize, d, a[rs2] + gp[rs1],
                    csr[STRIDE] if rstride else vlen):
            return ref()
        footprint.append((VSRAM, d // vlen, rows))
        footprint.append((HBM_READ, rows, vlen))
    return run


def _c_prefetch_m(m, ref, c, rd, rs1, rs2, rstride, precision):
    gp, a, csr, footprint, load = m.gp, m.a, m.csr, m.footprint, c.load
    mlen, tile = m.MLEN, m.TILE
    base, size, hbm, hsize = _addresses(m)["msram"], m.msram.size, _addresses(m)["hbm"], m.hbm.size

    def run():
        d = gp[rd]
        if not load(base, size, tile, mlen, mlen, hbm, hsize, d, a[rs2] + gp[rs1],
                    csr[STRIDE] if rstride else mlen):
            return ref()
        footprint.append((MSRAM, d // tile, 1))
        footprint.append((HBM_READ, mlen, mlen))
    return run


def _c_store_v(m, ref, c, rd, rs1, rs2, rstride, precision):
    gp, a, csr, footprint, store = m.gp, m.a, m.csr, m.footprint, c.store
    rows, (base, size, vlen) = m.cfg.HBM_V_WRITEBACK_AMOUNT, _frame(m)
    hbm, hsize = _addresses(m)["hbm"], m.hbm.size

    def run():
        s = gp[rd]
        if not store(base, size, vlen, rows, hbm, hsize, s, a[rs2] + gp[rs1],
                     csr[STRIDE] if rstride else vlen):
            return ref()
        footprint.append((VSRAM, s // vlen, rows))
        footprint.append((HBM_WRITE, rows, vlen))
    return run


TRANSFERS = {"H_PREFETCH_V", "H_PREFETCH_M", "H_STORE_V"}


MAKERS = {
    "V_ADD_VV": _c_binary(ADD), "V_SUB_VV": _c_binary(SUB), "V_MUL_VV": _c_binary(MUL),
    "V_ADD_VF": _c_scalar(ADD), "V_SUB_VF": _c_scalar(SUB), "V_MUL_VF": _c_scalar(MUL),
    "V_MAX_VF": _c_scalar(MAX), "V_MIN_VF": _c_scalar(MIN),
    "V_EXP_V": _c_unary(exp), "V_RECI_V": _c_unary(reciprocal),
    "V_RED_SUM": _c_red_sum, "V_RED_MAX": _c_red_max,
    "M_MV": _c_mv(False), "M_TMV": _c_mv(True), "M_MV_WO": _c_mv_wo,
    "M_MM": _c_mm(False), "M_TMM": _c_mm(True), "M_MM_WO": _c_mm_wo,
    "S_MAP_V_FP": _c_map_fp, "S_EXP_FP": _c_exp_f32, "H_PREFETCH_V": _c_prefetch_v, "H_PREFETCH_M": _c_prefetch_m,
    "H_STORE_V": _c_store_v,
}


def bind(mnemonic: str, state, values: list[int], ref):
    """The C closure of an instruction with operand `values` (or `ref` where the C
    loops cannot take its configuration), or None."""
    make = MAKERS.get(mnemonic)
    if make is None:
        return None
    c = lanes.module()
    return None if c is None else make(state, ref, c, *values)
