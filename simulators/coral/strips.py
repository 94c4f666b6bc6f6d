"""Run the full strips of a strip-mined elementwise loop at once.

Elementwise kernels (activations, scaling) are one loop: `vsetvli t0, a2, ...`, unit
loads, a chain of elementwise vector instructions, unit stores, pointers advanced by
vl elements, `sub a2, a2, t0`, `bnez a2`. Strip i reads and writes elements
i*vl .. i*vl+vl-1 of each array, and every element of a result depends only on the same
element of the operands. So m full strips are the same instructions run once on a
register file m times as long (VLEN' = m * VLEN, vl' = m * vl): the model's own
semantics closures, compiled against such a wide state, do all strips in one numpy
call each. Their cycles scale back exactly (beats(m * vl) on VLEN' = beats(vl) on VLEN).

`StripPlan` recognises such a block once; at block entry it runs floor(a2 / VLMAX)
strips that way when it can prove the same outcome as running them one by one:
- only the instructions in ELEMENTWISE, unmasked, plus unit-stride loads and stores of
  SEW-wide elements through pointers that advance by exactly vl elements per strip;
- every vector register read is written earlier in the same strip or not at all in the
  loop (then its vl elements are the same for every strip); scalar operands are not
  written in the loop;
- the vtype is legal, register groups are aligned, frm is legal, every access is in
  DTCM and aligned, and no store range meets another store or a load range (a store
  may rewrite exactly the range one of its own strip's loads read first);
- the whole batch fits in the instruction budget.
Otherwise it declines and the block runs strip by strip as usual.
"""
from __future__ import annotations

import numpy as np

from kernelcraft.isa.loader import get_isa

from .loops import replay, timing_program
from .semantics import VECTOR
from .state import FRM, M, CoralState

# elementwise at SEW, one result element from the same element of each operand; the
# fused multiply-adds also read vd (isa/coral instruction classes)
ELEMENTWISE = frozenset(get_isa("coral").having("elementwise"))
READS_VD = frozenset(get_isa("coral").having("accumulates")) & ELEMENTWISE
FLOAT = {m for m in ELEMENTWISE if m.startswith("vf")}
MAX_ELEMENTS = 1 << 18       # elements per register in the wide file (32 registers)
UNIT = {"vle8.v": 8, "vle16.v": 16, "vle32.v": 32, "vse8.v": 8, "vse16.v": 16, "vse32.v": 32}


def wide_file(plan, nbytes: int) -> np.ndarray:
    """A wide register file of nbytes, the plan's buffer reused from batch to batch
    (a fresh zeroed one cost a page fault per 4 KiB): a batch reads only the registers
    it fills first (tiled operands) or writes earlier in the same pass."""
    buf = getattr(plan, "_file", None)
    if buf is None or buf.size < nbytes:
        buf = plan._file = np.empty(nbytes, dtype=np.uint8)
    return buf[:nbytes]


def widen(plan, m: int, vt: int, vl: int):
    """Point plan.wide at a copy of plan.s whose register file is m times as long (the
    reused buffer), under vtype vt with vl' = m * vl; returns it."""
    s, w = plan.s, plan.wide
    w.__dict__.update(s.__dict__)
    w.VLEN, w.VLENB = s.VLEN * m, s.VLENB * m
    w.vreg = wide_file(plan, 32 * w.VLENB)
    w.vu = {e: w.vreg.view(v.dtype) for e, v in s.vu.items()}
    w.vs = {e: w.vreg.view(v.dtype) for e, v in s.vs.items()}
    w.epr = {e: w.VLENB * 8 // e for e in s.epr}
    w.set_vtype(vt, m * vl)
    return w


class StripPlan:
    def __init__(self, state: CoralState, timing, start, size, vset, scalars, vinstrs, cfg, isa, tsteps, tails):
        self.s, self.timing, self.start, self.size = state, timing, start, size
        self.vset = vset              # (rd, rs1 = the count, vtype)
        self.scalars = scalars        # ("slli", rd, k) | ("add", p, q) | ("addi", p, imm) | ("sub", rs)
        self.vinstrs = vinstrs        # (pc, mnemonic, ops) of the vector instructions, in order
        self.tsteps, self.taken, self.fall = tsteps, *tails
        self.skip = 0
        self.wide = object.__new__(CoralState)
        self.wide.__dict__.update(state.__dict__)
        self.closures = []
        for pc, mn, ops in vinstrs:
            d = isa.instructions[mn]
            self.closures.append((pc, VECTOR[mn](self.wide, ops, pc, cfg.cycles(d.timing))))

    @classmethod
    def recognise(cls, instrs, start, size, cfg, isa, state, timing, tsteps, tails):
        if tsteps is None or size < 4:
            return None
        body = instrs[start:start + size]
        first, last = body[0], body[-1]
        if first.mnemonic != "vsetvli" or last.mnemonic != "bne" or last.ops.get("rs2") != 0:
            return None
        vl_reg, count = first.ops["rd"], first.ops["rs1"]
        if vl_reg == 0 or count == 0 or last.ops["rs1"] != count or vl_reg == count:
            return None
        o = first.ops
        vtype = o["vlmul"] | o["vsew"] << 3 | o["vta"] << 6 | o["vma"] << 7
        scalars, vinstrs = [], []
        derived = {vl_reg: 0}                 # register -> k: it holds vl << k
        xwritten = {vl_reg, count}
        advanced: set[int] = set()            # pointers already advanced in this strip
        vwritten: set[int] = set()
        vread_first: set[int] = set()         # read before any write in the strip
        counted = False
        for pc, ins in enumerate(body[1:-1], start + 1):
            mn, o = ins.mnemonic, ins.ops
            if mn == "slli" and o["rs1"] in derived and o["rd"] not in xwritten:
                derived[o["rd"]] = derived[o["rs1"]] + o["shamt"]
                xwritten.add(o["rd"])
                scalars.append(("slli", o["rd"], o["rs1"], o["shamt"]))
            elif mn == "add" and o["rd"] == o["rs1"] and o["rs2"] in derived and o["rd"] not in xwritten:
                xwritten.add(o["rd"])
                advanced.add(o["rd"])
                scalars.append(("add", o["rd"], o["rs2"]))
            elif mn == "sub" and o["rd"] == o["rs1"] == count and o["rs2"] == vl_reg and not counted:
                counted = True
                scalars.append(("sub", count))
            elif mn in ELEMENTWISE or mn in UNIT:
                d = isa.instructions.get(mn)
                if d is None or o.get("vm", 1) != 1:
                    return None
                ops = {op.name: o.get(op.name, op.kind.default) for op in d.operands}
                reads = [ops[k] for k in ("vs1", "vs2", "vs3") if k in ops]
                if mn in READS_VD:
                    reads.append(ops["vd"])
                vread_first.update(r for r in reads if r not in vwritten)
                if "vd" in ops:
                    vwritten.add(ops["vd"])
                if mn in UNIT and (ops["rs1"] == 0 or ops["rs1"] in advanced):
                    return None               # (the batch reads pointers as they enter the loop)
                vinstrs.append((pc, mn, ops))
            else:
                return None
        if not counted or not vinstrs:
            return None
        accs = cls._accumulators(vinstrs, vread_first & vwritten)
        if accs is None:
            return None                       # a value carried from one strip to the next
        for pc, mn, ops in vinstrs:
            if mn in UNIT:
                if ops["rs1"] not in {p for kind, p, *_ in scalars if kind == "add"}:
                    return None               # a pointer that does not advance
            elif "rs1" in ops and not mn.startswith("vf") and ops["rs1"] in xwritten:
                return None                   # a scalar operand that changes in the loop
        plan = cls(state, timing, start, size, (vl_reg, count, vtype), scalars, vinstrs, cfg, isa, tsteps, tails)
        plan.vread = sorted(vread_first - set(accs.values()))
        plan.vwritten = sorted(vwritten - set(accs.values()))
        plan.vall = sorted(vread_first | vwritten)
        plan.acc_runs = []
        for k, (pc, mn, ops) in enumerate(vinstrs):
            if pc in accs:                    # the same instruction on the real state, strip by strip
                srcs = [ops[n] for n in ("vs1", "vs2") if n in ops and ops[n] != accs[pc] and ops[n] in vwritten]
                run = VECTOR[mn](state, ops, pc, cfg.cycles(isa.instructions[mn].timing))
                plan.acc_runs.append((k, pc, run, srcs))
        return plan

    @staticmethod
    def _accumulators(vinstrs, carried) -> dict | None:
        """{pc: register} of the instructions that carry a register from strip to strip
        as `acc = op(acc, other operands)`, written and read by that instruction alone;
        None if some carried register is used otherwise."""
        out = {}
        for a in carried:
            users = []
            for pc, mn, ops in vinstrs:
                reads = [ops[k] for k in ("vs1", "vs2", "vs3") if k in ops] + ([ops["vd"]] if mn in READS_VD else [])
                if a in reads or ops.get("vd") == a:
                    users.append((pc, mn, ops, reads.count(a)))
            if len(users) != 1:
                return None
            pc, mn, ops, n = users[0]
            if mn in UNIT or ops.get("vd") != a or n != 1:
                return None
            out[pc] = a
        srcs = {r for pc, mn, ops in vinstrs if pc in out for r in (ops.get("vs1"), ops.get("vs2")) if r != out[pc]}
        if srcs & set(out.values()):
            return None
        return out

    # --- the batch run ------------------------------------------------------------
    def run(self, t: int, budget_left: int):
        if self.skip:
            self.skip -= 1
            return None
        s = self.s
        vl_reg, count, vt = self.vset
        if s.vtype_problem(vt):
            return None
        sew = 8 << ((vt >> 3) & 7)
        lnum, lden = {0: (1, 1), 1: (2, 1), 2: (4, 1), 3: (8, 1)}.get(vt & 7, (0, 0))
        if not lnum:
            return None
        vlmax = s.VLEN * lnum // (lden * sew)
        c = s.x[count]
        m = min(c // vlmax, max(2, MAX_ELEMENTS // vlmax))     # the wide file's size; more strips follow
        if c // vlmax < 2 or m * self.size > budget_left:
            return None
        if any(r % lnum for r in self.vall):
            return None
        if any(mn in FLOAT for _, mn, _ in self.vinstrs) and (sew != 32 or s.fc[FRM] > 4):
            return None
        vl = vlmax
        regs = self._scalars(vl)
        if not self._memory_ok(regs, m, vl, sew):
            return None
        self._wide(m, vl, vt, sew, lnum)
        # beats scale with VLEN: each wide closure returns the cycles of one strip
        cycles = {}
        snaps = {}
        acc_at = {k: (pc, srcs) for k, pc, _, srcs in self.acc_runs}
        w = self.wide
        for k, (pc, run) in enumerate(self.closures):
            if k in acc_at:                   # keep its operands as they are at this point
                snaps[pc] = [(r, w.vu[sew][r * w.epr[sew]:r * w.epr[sew] + m * vl].copy()) for r in acc_at[k][1]]
            else:
                cycles[pc] = run()
        if self.acc_runs:
            s.set_vtype(vt, vl)
            view, per = s.vu[sew], s.epr[sew]
            for i in range(m):
                lo = i * vl
                for _, pc, run, _ in self.acc_runs:
                    for r, vals in snaps[pc]:
                        view[r * per:r * per + vl] = vals[lo:lo + vl]
                    cycles[pc] = run()
        self._commit(m, vl, vt, sew, lnum, regs)
        left = s.x[count]
        prog = timing_program(self.tsteps, cycles, s)
        t = replay(self.timing, t, prog, m, self.taken, self.fall if left == 0 else self.taken)
        return t, m, self.start + self.size if left == 0 else self.start

    def _scalars(self, vl: int):
        """({register: value} of vl and the registers derived from it, {pointer: step
        per strip})."""
        derived = {self.vset[0]: vl}
        steps = {}
        for kind, rd, *rest in self.scalars:
            if kind == "slli":
                derived[rd] = (derived[rest[0]] << rest[1]) & M
            elif kind == "add":
                steps[rd] = derived[rest[0]]
        return derived, steps

    def _memory_ok(self, regs, m: int, vl: int, sew: int) -> bool:
        s = self.s
        derived, steps = regs
        ranges = []
        for pc, mn, ops in self.vinstrs:
            if mn not in UNIT:
                continue
            eew = UNIT[mn]
            if eew != sew or steps.get(ops["rs1"]) != vl * eew // 8:
                return False
            base = s.x[ops["rs1"]]
            n = m * vl * eew // 8
            o = base - s.dbase
            if base % (eew // 8) or o < 0 or o + n > s.dsize:
                return False
            ranges.append((mn.startswith("vse"), o, o + n, pc))
        for st, a0, a1, pc in ranges:
            if not st:
                continue
            for st2, b0, b1, pc2 in ranges:
                if pc2 == pc or b1 <= a0 or a1 <= b0:
                    continue
                if st2 or (b0, b1) != (a0, a1) or pc2 > pc:
                    return False
        return True

    def _wide(self, m: int, vl: int, vt: int, sew: int, lnum: int) -> None:
        """Point the wide state at a register file m times as long, vl' = m * vl; the
        registers read before written hold their vl elements m times over."""
        s, w = self.s, widen(self, m, vt, vl)
        for r in self.vread:
            src = s.vu[sew][r * s.epr[sew]:r * s.epr[sew] + vl]
            base = r * w.epr[sew]
            w.vu[sew][base:base + m * vl] = np.tile(src, m)

    def _commit(self, m, vl, vt, sew, lnum, regs):
        from .semantics.vector_core import put
        s, w = self.s, self.wide
        s.set_vtype(vt, vl)
        for r in self.vwritten:
            base = r * w.epr[sew] + (m - 1) * vl
            put(s, r, sew, vl, w.vu[sew][base:base + vl].copy(), 1, lnum)
        derived, steps = regs
        x = s.x
        for r, v in derived.items():
            x[r] = v
        for r, st in steps.items():
            x[r] = (x[r] + m * st) & M
        count = self.vset[1]
        x[count] = (x[count] - m * vl) & M
