"""Run a counted loop of loads, element-wise operations and stores at once.

Transposes, scalings and copies move data with a loop that loads a vector through a
pointer (unit-stride or strided), applies element-wise instructions, stores it
through another pointer and steps the pointers and a counter by constants, e.g.

    vlse32.v v8, (a3), t2 / vfmul.vf v8, v8, ft10 / vse32.v v8, (a4)
    addi a3, a3, 4 / add a4, a4, t5 / addi t4, t4, -1 / bnez t4, .loop

Nothing flows from one iteration to the next but the pointers, so n iterations are
the same instructions run once on a register file n times as long, iteration i in
elements i*vl .. i*vl+vl-1 of every register (strips.py's wide state and the model's
own semantics closures; their cycles scale back exactly), the loads one gather of
DTCM each and the stores one scatter each.

`MapPlan` recognises such a block once; at block entry it runs the iterations up to
the loop's exit (or a batch's worth) that way when it can prove the same outcome as
running them one by one:
- only addi/add stepping a register by a constant or by a register the loop leaves
  alone (a register may be stepped several times), unmasked SEW-wide unit-stride and
  strided loads and stores (vle32/vlse32/vse32/vsse32), unmasked ELEMENTWISE
  instructions (strips.py: one result element from the same element of each operand),
  and a final branch comparing a register stepped by a constant with one the loop
  leaves alone (loops.trips gives the trip count);
- every vector register read is written earlier in the same iteration or not at all
  in the loop; scalar operands and strides are not written in the loop;
- SEW = 32 at integer LMUL, vl > 0, register groups aligned, frm legal, every access
  in DTCM and aligned without wrapping round 2^32, no element stored twice, and no
  stored element loaded, except by a load of exactly the same addresses earlier in
  the same iteration (an in-place update);
- the whole batch fits in the instruction budget.
Otherwise it declines and the block runs iteration by iteration as usual.
Cycles come from replaying the block's timing steps (loops.replay).
"""
from __future__ import annotations

import numpy as np

from .loops import _ISA, BRANCHES, _signed32, replay, timing_program, trips
from .semantics import VECTOR
from .state import FRM, M, CoralState
from .strips import ELEMENTWISE, FLOAT, READS_VD, widen
from .semantics.vector_core import put

# (store, strided) of each SEW-wide load and store a plan takes, from the ISA data's classes
MEMORY = {mn: (store, any(o.name == "rs2" for o in _ISA.instructions[mn].operands))
          for store, cls in ((False, "word_load"), (True, "word_store")) for mn in _ISA.having(cls)}
MAX_WIDE_BYTES = 1 << 21     # the wide register file (32 registers); longer loops take more batches


class MapPlan:
    def __init__(self, state: CoralState, timing, start, size, exit_test, steps, vinstrs, cfg, isa, tsteps, tails):
        self.s, self.timing, self.start, self.size = state, timing, start, size
        self.exit_test = exit_test    # (branch mnemonic, stepped register, other register, swapped)
        self.steps = steps            # x register -> its updates in order: ("imm", k) | ("reg", rs)
        self.vinstrs = vinstrs        # (pc, mnemonic, ops, access) in order; access for loads and stores:
        #                               (store?, strided?, data register, rs1, rs2, updates of rs1 before it)
        self.tsteps, self.taken, self.fall = tsteps, *tails
        self.wide = object.__new__(CoralState)
        self.wide.__dict__.update(state.__dict__)
        self.closures = {}
        self.mcost = {}               # pc -> (cycles per beat or element, per beat?) of a load or store
        for pc, mn, ops, access in vinstrs:
            d = isa.instructions[mn]
            if access is None:
                self.closures[pc] = VECTOR[mn](self.wide, ops, pc, cfg.cycles(d.timing))
            else:
                self.mcost[pc] = (cfg.cycles(d.timing), not access[1])
        self.vregs = sorted({r for _, mn, ops, _ in vinstrs for k in ("vd", "vs1", "vs2", "vs3") if (r := ops.get(k)) is not None})
        self.written = sorted({ops["vd"] for _, mn, ops, _ in vinstrs if "vd" in ops})
        self.float = any(mn in FLOAT for _, mn, _, _ in vinstrs)

    @classmethod
    def recognise(cls, instrs, start, size, cfg, isa, state, timing, tsteps, tails):
        if tsteps is None or size < 3:
            return None
        body = instrs[start:start + size]
        last = body[-1]
        if last.mnemonic not in BRANCHES:
            return None
        steps: dict[int, list] = {}
        vinstrs = []
        vwritten: set[int] = set()
        vread_first: set[int] = set()
        scalar_reads: set[int] = set()     # strides and .vx operands: must stay put
        for pc, ins in enumerate(body[:-1], start):
            mn, o = ins.mnemonic, ins.ops
            if mn in ("addi", "add"):
                rd = o["rd"]
                if rd == 0 or rd != o["rs1"] or (mn == "add" and o["rs2"] == rd):
                    return None
                steps.setdefault(rd, []).append(("imm", o["imm"]) if mn == "addi" else ("reg", o["rs2"]))
                continue
            d = isa.instructions.get(mn)
            if d is None or (mn not in MEMORY and mn not in ELEMENTWISE) or o.get("vm", 1) != 1:
                return None
            ops = {op.name: o.get(op.name, op.kind.default) for op in d.operands}
            if mn in MEMORY:
                store, strided = MEMORY[mn]
                data = ops["vs3" if store else "vd"]
                if store and data not in vwritten:
                    vread_first.add(data)
                if strided:
                    scalar_reads.add(ops["rs2"])
                access = (store, strided, data, ops["rs1"], ops.get("rs2"), tuple(steps.get(ops["rs1"], ())))
            else:
                reads = [ops[k] for k in ("vs1", "vs2") if k in ops] + ([ops["vd"]] if mn in READS_VD else [])
                vread_first.update(r for r in reads if r not in vwritten)
                if "rs1" in ops and not mn.startswith("vf"):
                    scalar_reads.add(ops["rs1"])
                access = None
            if "vd" in ops:
                vwritten.add(ops["vd"])
            vinstrs.append((pc, mn, ops, access))
        if not vinstrs or vread_first & vwritten:
            return None                   # nothing to batch, or a value carried between iterations
        if not any(a is not None for *_, a in vinstrs):
            return None                   # no memory access: selfloop.py's loops serve better
        if scalar_reads & steps.keys() or any(v in steps for ups in steps.values() for kind, v in ups if kind == "reg"):
            return None
        a, b = last.ops["rs1"], last.ops["rs2"]
        imm_only = lambda r: r in steps and all(kind == "imm" for kind, _ in steps[r]) and sum(v for _, v in steps[r])
        if imm_only(a) and a != b and b not in steps:
            exit_test = (last.mnemonic, a, b, False)
        elif imm_only(b) and a != b and a not in steps:
            exit_test = (last.mnemonic, b, a, True)
        else:
            return None
        return cls(state, timing, start, size, exit_test, steps, vinstrs, cfg, isa, tsteps, tails)

    # --- the batch run ------------------------------------------------------------
    def run(self, t: int, budget_left: int):
        s = self.s
        if s.vill or s.sew != 32 or s.lmul_den != 1 or not s.vl:
            return None
        if self.float and s.fc[FRM] > 4:
            return None
        lnum, vl = s.lmul_num, s.vl
        if any(r % lnum for r in self.vregs):
            return None
        x = s.x
        now = {r: sum(v if kind == "imm" else _signed32(x[v]) for kind, v in ups) for r, ups in self.steps.items()}
        mn, reg, other, swapped = self.exit_test
        cap = min(MAX_WIDE_BYTES // (32 * s.VLENB), budget_left // self.size)
        n, last = trips(x, mn, reg, now[reg], other, swapped, cap)
        if n < 2:
            return None
        grids = self._grids(n, vl, now)
        if grids is None:
            return None
        self._batch(n, vl, grids)
        for r, st in now.items():
            x[r] = (x[r] + n * st) & M
        cycles = dict(self.cycles)
        for pc, (cost, per_beat) in self.mcost.items():
            cycles[pc] = cost * (max(1, -(-vl * 32 // s.VLEN)) if per_beat else vl)
        prog = timing_program(self.tsteps, cycles, s)
        t = replay(self.timing, t, prog, n, self.taken, self.fall if last else self.taken)
        return t, n, None if last else self.start

    def _grids(self, n: int, vl: int, now: dict):
        """{pc: (n, vl) word indices into DTCM} of every load and store, or None if an
        access fails a check above (the blocks then run and raise what they raise)."""
        s, x = self.s, self.s.x
        grids, stores, loads = {}, [], []
        for pc, mn, ops, access in self.vinstrs:
            if access is None:
                continue
            store, strided, data, rs1, rs2, before = access
            base = x[rs1]
            for kind, v in before:       # the pointer as this access sees it
                base = (base + (v if kind == "imm" else _signed32(x[v]))) & M
            step = now.get(rs1, 0)
            stride = _signed32(x[rs2]) if strided else 4
            lastbase = base + (n - 1) * step
            if (base | step | stride) & 3 or not 0 <= lastbase <= M:
                return None
            o = base - s.dbase
            corners = (o, o + (n - 1) * step, o + (vl - 1) * stride, o + (n - 1) * step + (vl - 1) * stride)
            if min(corners) < 0 or max(corners) > s.dsize - 4:
                return None
            key = (base, step, stride)
            idx = (o >> 2) + (step >> 2) * np.arange(n, dtype=np.int64)[:, None] + (stride >> 2) * np.arange(vl, dtype=np.int64)
            grids[pc] = idx
            (stores if store else loads).append((key, idx, pc))
        if stores:
            every = np.concatenate([idx.ravel() for _, idx, _ in stores])
            u = np.unique(every)
            if u.size != every.size:
                return None              # an element stored twice
            for key, idx, pc in loads:
                # an in-place update: the same addresses stored later in the iteration
                if any(k == key and spc > pc for k, _, spc in stores):
                    continue
                if np.isin(idx.ravel(), u).any():
                    return None
        return grids

    def _batch(self, n: int, vl: int, grids: dict) -> None:
        s = self.s
        lnum, epr = s.lmul_num, s.epr[32]
        w = widen(self, n, s.vtype, vl)
        wv, wepr = w.vu[32], w.epr[32]
        for r in self.vregs:              # registers the loop reads unwritten: vl elements n times over
            if r not in self.written:
                wv[r * wepr:r * wepr + n * vl] = np.tile(s.vu[32][r * epr:r * epr + vl], n)
        mem = s.mem_view(4)
        self.cycles = {}
        for pc, mn, ops, access in self.vinstrs:
            if access is None:
                self.cycles[pc] = self.closures[pc]()
                continue
            store, _, data, *_ = access
            idx = grids[pc].ravel()
            if store:
                mem[idx] = wv[data * wepr:data * wepr + n * vl]
            else:
                wv[data * wepr:data * wepr + n * vl] = mem[idx]
        for r in self.written:            # the last iteration's values, under the state's tail policy
            base = r * wepr + (n - 1) * vl
            put(s, r, 32, vl, wv[base:base + vl].copy(), 1, lnum)
