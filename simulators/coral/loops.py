"""Run a whole execution of a simple vector loop at once, with the results and cycles
of running it block by block.

Contraction kernels spend almost all their instructions in one shape of inner loop:
a block that branches back to itself, loads a vector and some scalars from addresses
that step by a constant, multiply-adds them into accumulators and counts a register
down to zero. Run block by block, every iteration pays Python and numpy call overhead
for a few dozen elements. `LoopPlan` recognises such a block once (at compile time)
and, when the block is entered with a known trip count, computes all iterations with
numpy: every load of every iteration in one gather, every product in one multiply,
then the sequentially rounded accumulation and its checks in one C call (chain.c;
without a C compiler, numpy: one vectorised step per iteration).

The shortcut must never change a result, so it only runs when it can prove it takes
the same path as the block-by-block run:
- the block holds only addi/add stepping a register by a constant, flw, unit-stride
  and strided vle32/vlse32, unmasked vfmacc.vf/.vv, and a final conditional branch
  (the last three: the ISA data's classes word_load, multiply_accumulates and
  compare_branch)
  comparing a register stepped by a constant with one the loop leaves alone (a
  counter, a pointer against its end); no stores, so memory is read-only;
- vtype is legal with SEW = 32 and integer LMUL, frm = RNE, vl > 0, register groups
  aligned and disjoint, every address in DTCM and aligned, the whole loop within the
  instruction budget;
- every multiply-add is finite with no huge sum; a binary32 midpoint reached through a
  rounded binary64 sum (where rounding that sum would round twice) is rounded to the
  exact sum's side by chain.c (numpy's path refuses it); tiny sums (subnormal: the
  weights of attention's masked keys) take their flags from fp32.vfma on those
  elements, which must give the values the batch rounded them to.
Otherwise it declines and the blocks run as usual (and raise the usual errors).
Cycles come from replaying the block's timing steps (compiler.py records them) on the
vector timing model; once an iteration starts from the same relative timing state as
the one before, the rest repeat it exactly and are added in one step.
"""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.core.native import Native

from . import fp32
from .semantics.scalar import BRANCH
from .state import FFLAGS, FRM, M
from .timing import LOAD, STORE, WSHIFT, VectorTiming

F32, F64, U32, U64 = np.float32, np.float64, np.uint32, np.uint64
# the instruction shapes a plan takes, from the ISA data's instruction classes
_ISA = get_isa("coral")
LOADS = {mn: "strided" if any(o.name == "rs2" for o in _ISA.instructions[mn].operands) else "unit"
         for mn in _ISA.having("word_load")}
FMAS = frozenset(_ISA.having("multiply_accumulates"))
# each branch's condition as the block compiler evaluates it, on x[0] = rs1's values and
# x[1] = rs2's (an array of a stepped register's values: every outcome at once)
BRANCHES = {mn: compile(BRANCH[mn].format(a=0, b=1), mn, "eval") for mn in _ISA.having("compare_branch")}
# the rounding-ordered accumulation in C (chain.c), else numpy, two calls per iteration
NATIVE = Native(Path(__file__).with_name("chain.c"), "_coral_chain", "coral accumulation chains")
chain_bits = SimpleNamespace(INEXACT=1, TINY_SUM=2, DECLINE=4)     # chain.c's result
MAX_ELEMENTS = 1 << 21       # products computed at once (16 MiB of binary64)
TRIP_WINDOW = 256            # branch outcomes of the first window looked at for the trip count


def _signed32(v: int) -> int:
    return (v ^ 0x80000000) - 0x80000000


class LoopPlan:
    """What the block does each iteration, in terms the batch run can evaluate."""

    def __init__(self, state, timing: VectorTiming, start: int, size: int, exit_test: tuple, steps: dict,
                 flws: list, vloads: list, fmas: list, vcost: dict, tsteps: list, taken: int, fall: int):
        self.s, self.timing, self.start, self.size = state, timing, start, size
        self.exit_test = exit_test  # (branch mnemonic, stepped register, other register, swapped)
        self.steps = steps          # x register -> ("imm", step) | ("reg", rs): its update each iteration
        self.flws = flws            # (fd, rs1, imm, after)       after: use sees this iteration's update
        self.vloads = vloads        # (vd, mode, rs1, after, rs2)
        self.fmas = fmas            # (vd, form, src, vs2): src an f register (.vf) or vs1 (.vv)
        self.vcost = vcost          # pc -> (cycles per beat or element, per beat?) of a vector instruction
        self.tsteps = tsteps        # timing steps of one iteration (compiler.py), without the tail
        self.taken, self.fall = taken, fall
        self.skip = 0               # block entries to leave alone after a data-dependent refusal
        self.refusals = 0           # data-dependent refusals in a row
        self.programs: dict[int, list] = {}    # vl -> timing program of one iteration
        self.aligned: dict[int, bool] = {}     # LMUL -> register groups aligned and disjoint
        self.vregs = sorted({v for v, *_ in vloads} | {f[0] for f in fmas} | {f[3] for f in fmas}
                            | {f[2] for f in fmas if f[1] == "vv"})

    # --- recognition --------------------------------------------------------------
    @classmethod
    def recognise(cls, instrs, start: int, size: int, cfg, isa, state, timing, tsteps, taken, fall):
        """The plan of block instrs[start:start+size] (which branches back to `start`),
        or None if it is not such a loop."""
        if size < 3 or tsteps is None:
            return None
        body = instrs[start:start + size]
        last = body[-1]
        if last.mnemonic not in BRANCHES:
            return None
        steps: dict[int, tuple] = {}
        vwritten: set[int] = set()
        flws, vloads, fmas, vcost = [], [], [], {}
        for pc, ins in enumerate(body[:-1], start):
            mn, o = ins.mnemonic, ins.ops
            d = isa.instructions.get(mn)
            if d is None:
                return None
            if mn in ("addi", "add"):
                rd = o["rd"]
                if rd == 0 or rd != o["rs1"] or rd in steps:
                    return None
                steps[rd] = ("imm", o["imm"]) if mn == "addi" else ("reg", o["rs2"])
            elif mn == "flw":
                if o["rd"] in {f[0] for f in flws}:
                    return None
                flws.append((o["rd"], o["rs1"], o["imm"], o["rs1"] in steps))
            elif mn in LOADS:
                if o["vm"] != 1 or o["vd"] in vwritten:
                    return None
                mode = LOADS[mn]
                vloads.append((o["vd"], mode, o["rs1"], o["rs1"] in steps, o.get("rs2", 0)))
                vwritten.add(o["vd"])
                vcost[pc] = (cfg.cycles(d.timing), mode == "unit")
            elif mn in FMAS:
                vd, form = o["vd"], "vv" if "vs1" in o else "vf"
                src = o["rs1"] if form == "vf" else o["vs1"]
                if o["vm"] != 1 or vd in vwritten or vd in ([o["vs2"]] + ([src] if form == "vv" else [])):
                    return None
                fmas.append((vd, form, src, o["vs2"]))
                vwritten.add(vd)
                vcost[pc] = (cfg.cycles(d.timing), True)
            else:
                return None
        accs = {f[0] for f in fmas}
        if any(f[3] in accs or (f[1] == "vv" and f[2] in accs) for f in fmas):
            return None                   # an accumulator read by another multiply-add
        if not cls._loads_before_use(body[:-1]):
            return None
        # what a step or a stride reads must not change inside the loop
        if any(kind == "reg" and v in steps for kind, v in steps.values()):
            return None
        if any(mode == "strided" and rs2 in steps for _, mode, _, _, rs2 in vloads):
            return None
        # the branch compares a register stepped by a constant with one the loop leaves alone
        a, b = last.ops["rs1"], last.ops["rs2"]
        if steps.get(a, ("reg",))[0] == "imm" and a != b and b not in steps:
            exit_test = (last.mnemonic, a, b, False)
        elif steps.get(b, ("reg",))[0] == "imm" and a != b and a not in steps:
            exit_test = (last.mnemonic, b, a, True)
        else:
            return None
        if not fmas or not steps[exit_test[1]][1]:
            return None
        return cls(state, timing, start, size, exit_test, steps, flws, vloads, fmas, vcost, tsteps, taken, fall)

    @staticmethod
    def _loads_before_use(body) -> bool:
        """Each vector or f register an fma reads is loaded before it in the body, or
        not written in the loop at all."""
        written_v = {i.ops["vd"] for i in body if i.mnemonic in LOADS}
        written_f = {i.ops["rd"] for i in body if i.mnemonic == "flw"}
        have_v, have_f = set(), set()
        for ins in body:
            o = ins.ops
            if ins.mnemonic in LOADS:
                have_v.add(o["vd"])
            elif ins.mnemonic == "flw":
                have_f.add(o["rd"])
            elif ins.mnemonic in FMAS:
                vsrc = [o["vs2"]] + ([o["vs1"]] if "vs1" in o else [])
                if any(v in written_v and v not in have_v for v in vsrc):
                    return False
                if "rs1" in o and o["rs1"] in written_f and o["rs1"] not in have_f:
                    return False
        return True

    # --- the batch run ------------------------------------------------------------
    def run(self, t: int, budget_left: int):
        """Run the loop's iterations from here on (all, or MAX_ELEMENTS' worth):
        (cycle after them, iterations, next pc or None for the fall-through), or None to
        let the blocks run one by one."""
        if self.skip:
            self.skip -= 1
            return None
        s = self.s
        if s.vill or s.sew != 32 or s.lmul_den != 1 or not s.vl or s.fc[FRM]:
            return None
        # at most MAX_ELEMENTS products at once (memory) and within the budget; the rest
        # of the loop follows in further steps
        cap = min(max(2, MAX_ELEMENTS // (len(self.fmas) * s.vl)), budget_left // self.size)
        n, last = self._trips(cap)
        x = s.x
        # each stepped register's step this entry (the registers steps read stay put)
        self.now = {r: v if kind == "imm" else _signed32(x[v]) for r, (kind, v) in self.steps.items()}
        if n < 2:
            return None
        lm = s.lmul_num
        ok = self.aligned.get(lm)
        if ok is None:
            bases = self.vregs
            ok = self.aligned[lm] = not any(v % lm for v in bases) and all(b >= a + lm for a, b in zip(bases, bases[1:]))
        if not ok:
            return None
        out = self._compute(n, s.vl)
        if out is None:
            # back off: 0, 1, 3, 7 ... entries (one entry's data, e.g. a sum on a binary32
            # midpoint, says little about the next; data that always refuses soon stops
            # costing a batch attempt per entry)
            self.skip = min(n - 1, (1 << self.refusals) - 1)
            self.refusals += 1
            return None
        self.refusals = 0
        self._commit(n, s.vl, *out)
        return self._time(t, n, s.vl, last), n, None if last else self.start

    def _trips(self, cap: int) -> tuple[int, bool]:
        mn, reg, other, swapped = self.exit_test
        return trips(self.s.x, mn, reg, self.steps[reg][1], other, swapped, cap)

    def _step(self, r: int) -> int:
        return self.now.get(r, 0)

    def _gather(self, words, base: int, step: int, n: int, count: int, stride: int):
        """The words of a (n, count) gather (count 0: n words) at byte address
        base + i*step + j*stride, or None if any is outside DTCM or unaligned. A strided
        view of DTCM, not a copy: the loop does not store, and the view is read before
        anything else runs."""
        s = self.s
        if (base | step | stride) & 3:
            return None
        o = base - s.dbase
        corners = (o, o + (n - 1) * step, o + (count - 1) * stride, o + (n - 1) * step + (count - 1) * stride)
        if min(corners) < 0 or max(corners) > s.dsize - 4:
            return None
        if count == 0:
            return np.ndarray((n,), U32, words, o, (step,))
        return np.ndarray((n, count), U32, words, o, (step, stride))

    def _compute(self, n: int, vl: int):
        s = self.s
        words = s.mem_view(4)
        fl_vals, v_vals = {}, {}
        for fd, rs1, imm, after in self.flws:
            got = self._gather(words, s.x[rs1] + imm + after * self._step(rs1), self._step(rs1), n, 0, 0)
            if got is None:
                return None
            fl_vals[fd] = got
        for vd, mode, rs1, after, rs2 in self.vloads:
            stride = 4 if mode == "unit" else _signed32(s.x[rs2])
            got = self._gather(words, s.x[rs1] + after * self._step(rs1), self._step(rs1), n, vl, stride)
            if got is None:
                return None
            v_vals[vd] = got

        conv: dict[int, np.ndarray] = {}

        def vec(v):                       # (n, vl) or (vl,) binary64 values of a vector source
            if v not in conv:
                bits = v_vals[v] if v in v_vals else s.vu[32][v * s.epr[32]:v * s.epr[32] + vl]
                conv[v] = bits.view(F32).astype(F64)
            return conv[v]

        m = len(self.fmas)
        P = np.empty((n, m * vl), F64)
        acc0 = np.empty(m * vl, F32)
        for j, (vd, form, src, vs2) in enumerate(self.fmas):
            cols = slice(j * vl, (j + 1) * vl)
            if form == "vf":
                a = fl_vals[src].view(F32).astype(F64)[:, None] if src in fl_vals else fp32.to_float(s.f[src])
            else:
                a = vec(src)
            np.multiply(vec(vs2), a, out=P[:, cols])
            acc0[cols] = s.vu[32][vd * s.epr[32]:vd * s.epr[32] + vl].view(F32)
        # the one sequential part: each step adds in binary64 (exactly as vector_float does)
        # and rounds to binary32 (RNE) for the next
        S = np.empty_like(P)
        fl = s.fc[FFLAGS]
        c = NATIVE.module()
        if c is not None:
            R = np.empty(P.shape, F32)
            found = c.chain(P, acc0, S, R)          # the checks below, and rounding at midpoints
            if found is not None:
                if found & chain_bits.DECLINE:
                    return None
                if found & chain_bits.INEXACT:
                    fl |= fp32.NX
                if found & chain_bits.TINY_SUM:
                    a = np.abs(S)
                    got = self._tiny(R, (a < fp32.TINY) & (a != 0.0), acc0, vl, fl_vals, v_vals)
                    if got is None:
                        return None
                    fl |= got
                return fl_vals, v_vals, R[-1], fl
        P32 = P.astype(F32)
        if (P32 == P).all():
            # every product a binary32 value (low-precision data): then each step's binary64
            # sum rounded to binary32 is the binary32 sum (53 >= 2 * 24 + 2), and numpy's
            # binary32 accumulate runs the whole recurrence in one call
            R = np.add.accumulate(np.concatenate((acc0[None, :], P32)), axis=0)
            np.add(P, R[:-1], out=S)
            prev = R[-1]
        else:
            add = np.add
            prev = acc0
            for p, row in zip(P, S):
                add(p, prev, out=row)
                prev = row.astype(F32)
        # vector_float's fast path, for all iterations at once (fp32.fast_fma_sum, _fast)
        a = np.abs(S)
        if not a.max() < fp32._BIG:
            return None
        mid = (S.view(U64) & fp32._MID_MASK) == fp32._MID
        if a.min() < fp32.TINY:
            tiny = (a < fp32.TINY) & (a != 0.0)
            if tiny.any():
                # (the binary32 midpoints of the subnormal range are not _MID's)
                found = self._tiny(S.astype(F32), tiny, acc0, vl, fl_vals, v_vals)
                if found is None:
                    return None
                fl |= found
                mid &= ~tiny
        if mid.any() or not fl & fp32.NX:
            # where binary64 rounded the sum (only there can a midpoint be false)
            # each step's addend is the previous step's sum rounded to binary32
            if fl & fp32.NX:
                ii, jj = np.nonzero(mid)
                p_, s_ = P[ii, jj], S[ii, jj]
                z = np.where(ii == 0, acc0[jj], S[ii - 1, jj].astype(F32)).astype(F64)
            else:
                p_, s_ = P, S
                z = np.concatenate((acc0[None, :], S[:-1].astype(F32))).astype(F64)
            bb = s_ - p_
            inexact = (p_ - (s_ - bb)) + (z - bb) != 0
            if ((mid[ii, jj] if fl & fp32.NX else mid) & inexact).any():
                return None
            if not fl & fp32.NX and (inexact.any() or (S.astype(F32).astype(F64) != S).any()):
                fl |= fp32.NX
        return fl_vals, v_vals, prev, fl

    def _tiny(self, R, tiny, acc0, vl, fl_vals, v_vals) -> int | None:
        """The flags of the sums that are tiny (below binary32's normal range: underflow,
        a subnormal grid), from fp32.vfma, the stepping semantics, on those elements'
        operands; None unless its results are the binary32 values R the batch rounded
        them to (a binary64 sum rounded onto a subnormal midpoint could differ)."""
        s = self.s
        ii, cc = np.nonzero(tiny)
        j, e = cc // vl, cc % vl
        m, v = np.empty(ii.size, U32), np.empty(ii.size, U32)
        for k, (vd, form, src, vs2) in enumerate(self.fmas):
            at = j == k
            if not at.any():
                continue
            r, el = ii[at], e[at]
            if form == "vf":
                m[at] = fl_vals[src][r] if src in fl_vals else s.f[src]
            else:
                m[at] = self._words(src, v_vals, vl, r, el)
            v[at] = self._words(vs2, v_vals, vl, r, el)
        z = np.where(ii == 0, acc0[cc], R[ii - 1, cc]).view(U32)
        out, fl = fp32.vfma(m, v, z, fp32.RNE, 0)
        return fl if np.array_equal(out, R[ii, cc].view(U32)) else None

    def _words(self, v: int, v_vals: dict, vl: int, r: np.ndarray, el: np.ndarray) -> np.ndarray:
        """Vector source v's words at iterations r, elements el: loaded by the loop, or
        the register's, the same every iteration."""
        if v in v_vals:
            return v_vals[v][r, el]
        s = self.s
        return s.vu[32][v * s.epr[32]:v * s.epr[32] + vl][el]

    def _commit(self, n, vl, fl_vals, v_vals, last, fl):
        s, lm = self.s, self.s.lmul_num
        # vector_core.put unmasked at SEW 32, inlined: the register's vl words, then its
        # tail all ones under an agnostic tail policy
        view, e = s.vu[32], s.epr[32]
        tail = lm * e if s.vta and s.agnostic_ones and vl < lm * e else 0
        last = last.view(U32)
        for vd, words in [(vd, v_vals[vd][-1]) for vd, *_ in self.vloads] + \
                [(vd, last[j * vl:(j + 1) * vl]) for j, (vd, *_) in enumerate(self.fmas)]:
            b = vd * e
            view[b:b + vl] = words
            if tail:
                view[b + vl:b + tail] = 0xFFFFFFFF
        for fd, vals in fl_vals.items():
            s.f[fd] = int(vals[-1])
        x, now = s.x, self.now
        for r in self.steps:
            x[r] = (x[r] + n * now[r]) & M
        s.fc[FFLAGS] = fl

    # --- timing ------------------------------------------------------------------------
    def _program(self, vl: int) -> list[tuple]:
        key = (vl, self.s.vtype)      # (the registers written depend on vtype)
        prog = self.programs.get(key)
        if prog is None:
            beats = max(1, -(-vl * 32 // self.s.VLEN))
            prog = self.programs[key] = tuple(timing_program(     # (a tuple: replay's memo key as it is)
                self.tsteps, {pc: cost * (beats if per_beat else vl) for pc, (cost, per_beat) in self.vcost.items()},
                self.s))
        return prog

    def _time(self, t: int, n: int, vl: int, last: bool) -> int:
        return replay(self.timing, t, self._program(vl), n, self.taken, self.fall if last else self.taken)


def trips(x, mn: str, reg: int, step: int, other: int, swapped: bool, cap: int) -> tuple[int, bool]:
    """(iterations to run, whether the last of them leaves the loop): up to the
    first k <= cap whose branch (on the stepped register's value after k updates)
    falls through, else cap iterations that all branch back. The branch `mn`
    compares register `reg`, stepped by `step` each iteration, with `other` (swapped:
    as its first operand)."""
    cond = BRANCHES[mn]
    w = x[other]
    if mn == "bne" and step:
        # it branches back until the register meets w: after d / |step| updates when |step|
        # divides the distance d (mod 2^32), and no earlier (k |step| < d < 2^32); d = 0
        # (met only after wrapping round) and the rest are left to the windows
        d = ((w - x[reg]) if step > 0 else (x[reg] - w)) & M
        if d and d % abs(step) == 0:
            k = d // abs(step)
            return (k, True) if k <= cap else (max(cap, 0), False)
    # windows of growing size: most loops end within the first (a cap-sized window
    # costs more than the whole batch of a short loop)
    k, size = 0, TRIP_WINDOW
    while k < cap:
        size = min(size, cap - k)
        v = (x[reg] + np.arange(k + 1, k + size + 1, dtype=np.int64) * step) & M
        taken = eval(cond, {}, {"x": (w, v) if swapped else (v, w)})
        if not taken.all():
            return k + int(np.argmin(taken)) + 1, True
        k, size = k + size, 4 * size
    return max(cap, 0), False


def timing_program(tsteps: list, cycles: dict, s=None) -> list[tuple]:
    """A block's timing steps (compiler.py) as (op, a, b), with `cycles` of each vector
    instruction by pc: 0 add a cycles, 1 dispatch a cycles of kind b (| the registers it
    writes at state `s`'s vtype << WSHIFT, where the compiler gave a scoreboard rule), 2/3/4
    sync load/store/drain."""
    out = []
    for st in tsteps:
        if st[0] == "vq":
            rule = st[3]
            out.append((1, cycles[st[1]], st[2] | (rule(s) << WSHIFT if rule is not None else 0)))
        elif st[0] == "add":
            out.append((0, st[1], 0))
        else:
            out.append(({"load": 2, "store": 3, "drain": 4}[st[0]], 0, 0))
    return out


_REPLAYS: dict[tuple, tuple] = {}      # replay's memo: entry state -> outcome
_REPLAYS_MAX = 1 << 14


def replay(tm: VectorTiming, t: int, prog: list[tuple], n: int, taken: int, last: int) -> int:
    """`_replay`, remembered: a loop entered again from the same timing state relative
    to t (times already past count as t: every wait and dispatch treats them alike, and
    the first dispatch drops them from the queue) ends in the same state relative to t.
    The state a block's steps never touch is left as it is."""
    if not n:
        return t
    key = (tuple(prog), tm.depth, n, taken, last, tuple(c - t for c in tm.waiting if c > t),
           max(tm.vend - t, 0), max(tm.mem_end - t, 0), max(tm.store_end - t, 0))
    got = _REPLAYS.get(key)
    written = _written(prog)          # (no step reads the scoreboard: compiler.py leaves
    if got is None:                   # blocks with an indexed access no timing steps)
        before = (tm.mem_end, tm.store_end, tm.busy, tm.full_stall, tm.sync_stall)
        end = _replay(tm, t, prog, n, taken, last)
        dispatches = any(op == 1 for op, _, _ in prog)
        waits = any(op >= 2 for op, _, _ in prog)
        drains = any(op == 4 for op, _, _ in prog)
        got = (end - t, tuple(c - t for c in tm.waiting) if dispatches or drains else None,
               *(v - t if moved else None for v, moved in (
                   (tm.vend, dispatches), (tm.mem_end, tm.mem_end != before[0]),
                   (tm.store_end, tm.store_end != before[1]), (tm.wait_from, waits))),
               tm.wb if dispatches else None,
               tm.busy - before[2], tm.full_stall - before[3], tm.sync_stall - before[4],
               tuple(tm.ready[r] - t for r in written))
        if len(_REPLAYS) >= _REPLAYS_MAX:
            _REPLAYS.clear()
        _REPLAYS[key] = got
        return end
    dt, q, vend, mem, store, wait_from, wb, busy, full, sync, ready = got
    if q is not None:
        tm.waiting.clear()
        tm.waiting.extend(t + c for c in q)
    if vend is not None:
        tm.vend = t + vend
    if mem is not None:
        tm.mem_end = t + mem
    if store is not None:
        tm.store_end = t + store
    if wait_from is not None:
        tm.wait_from = t + wait_from
    if wb is not None:
        tm.wb = wb
    tm.busy += busy
    tm.full_stall += full
    tm.sync_stall += sync
    for r, rel in zip(written, ready):
        tm.ready[r] = t + rel
    return t + dt


def _written(prog) -> tuple:
    """The vector registers a timing program's dispatches write (timing.WSHIFT)."""
    w = 0
    for op, _, b in prog:
        if op == 1:
            w |= b >> WSHIFT
    return tuple(r for r in range(32) if w >> r & 1)


def _replay(tm: VectorTiming, t: int, prog: list[tuple], n: int, taken: int, last: int) -> int:
    """Cycle after n iterations of a block whose timing steps are `prog` (see
    timing_program) starting at cycle t: n - 1 end with `taken` cycles, the last with
    `last`. Once an iteration starts from the same timing state relative to t as the
    one before, the rest repeat it exactly (dispatch and waits compare times only with
    each other), so they are added at once."""
    q = tm.waiting
    disp, sl, ss, dr = tm.dispatch, tm.sync_load, tm.sync_store, tm.drain
    moves_mem = any(op == 1 and b & (LOAD | STORE) for op, _, b in prog)   # mem_end, store_end set every iteration
    moves_store = any(op == 1 and b & STORE for op, _, b in prog)
    # (the scoreboard, tm.ready, needs no shift below: the last iteration, run after it,
    # writes every register an iteration writes)

    def once(t, tail):
        for op, a, b in prog:
            if op == 0:
                t += a
            elif op == 1:
                t = disp(t, a, b)
            elif op == 2:
                t = sl(t)
            elif op == 3:
                t = ss(t)
            else:
                t = dr(t)
        return t + tail

    def key(t):
        # a time the loop never moves matters only while it lies ahead of t
        mem = tm.mem_end - t if moves_mem else max(tm.mem_end - t, 0)
        store = tm.store_end - t if moves_store else max(tm.store_end - t, 0)
        return tuple(c - t for c in q), tm.vend - t, mem, store

    prev = None
    i = 0
    while i < n - 1:
        k = key(t)
        if prev is not None and k == prev[0]:
            r = n - 1 - i                   # iterations left before the last: repeat the one before
            dt, db, dfs, dss = t - prev[1], tm.busy - prev[2], tm.full_stall - prev[3], tm.sync_stall - prev[4]
            shift = r * dt
            for j in range(len(q)):
                q[j] += shift
            tm.vend += shift
            if moves_mem:
                tm.mem_end += shift
            if moves_store:
                tm.store_end += shift
            tm.busy += r * db
            tm.full_stall += r * dfs
            tm.sync_stall += r * dss
            t += shift
            break
        prev = (k, t, tm.busy, tm.full_stall, tm.sync_stall)
        t = once(t, taken)
        i += 1
    return once(t, last) if n else t
