"""Running all the iterations of a plena hardware loop at once: the row loops of
element-wise kernels (a body of lane-wise vector instructions on rows whose addresses
step by a constant per iteration, and the S_ADDI_INT that step them).

A loop body qualifies (`plan`) when it is one block ending in its C_LOOP_END and holds
only S_ADDI_INT of a register onto itself (an address that steps) and the lane-wise
vector instructions of `LANE_WISE`, unmasked. Their fp operands are loop invariants
(nothing in such a body writes an f register). Then the body runs instruction by
instruction over all iterations ("instruction-major"), each instruction one numpy
operation on a (trips, VLEN) stack of rows, with the reference semantics' own
numerics on every element, when every row is one of:
  - a row only one iteration touches (a streamed row: the rows of an element-wise pass);
  - a fixed row each iteration writes before it reads it (a scratch row): one row per
    iteration, the last iteration's left in Vector SRAM;
  - a fixed row nothing writes (a constant row).
Nothing then flows between iterations, so the order of the work does not matter and
the results are those of stepping. A row read before it is written in an iteration
(a running value), a row two iterations touch, or an address that is not a whole row
in range makes `run` decline (nothing done): the loop steps, and an error is reported
at its instruction. The run loop only asks when no DMA transfer is in flight (the
body then never stalls, its cycles are static) and the budget allows every iteration.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernelcraft.simulators.numerics import bf16_unary, exp, fmax, fmin, reciprocal, round_bf16

from .semantics import parameters

F32 = np.float32

# The fewest instructions (trips x body) a loop must have left for `run` to be asked:
# its checks and set operations cost about what stepping this many instructions does
# on lanes.c's closures (True) or on the numpy ones (False); a shorter loop steps
# (measured: a 6-instruction body broke even at about 100 and 16 trips).
MIN_INSTRUCTIONS = {True: 512, False: 96}

# mnemonic -> (batched numerics on stacked rows a, b or the fp operand f; the ISA
# operands that are row addresses read, the fp operand or None). The numerics are
# semantics/vector.py's, applied element-wise to every iteration's rows at once.
LANE_WISE = {
    "V_ADD_VV": (lambda a, b, _f, _o: round_bf16(a + b), ("rs1", "rs2"), None),
    "V_SUB_VV": (lambda a, b, _f, _o: round_bf16(a - b), ("rs1", "rs2"), None),
    "V_MUL_VV": (lambda a, b, _f, _o: round_bf16(a * b), ("rs1", "rs2"), None),
    "V_ADD_VF": (lambda a, _b, f, _o: round_bf16(a + F32(f)), ("rs1",), "rs2"),
    "V_SUB_VF": (lambda a, _b, f, o: round_bf16(F32(f) - a if o else a - F32(f)), ("rs1",), "rs2"),
    "V_MUL_VF": (lambda a, _b, f, _o: round_bf16(a * F32(f)), ("rs1",), "rs2"),
    "V_MAX_VF": (lambda a, _b, f, _o: round_bf16(fmax(a, f)), ("rs1",), "rs2"),
    "V_MIN_VF": (lambda a, _b, f, _o: round_bf16(fmin(a, f)), ("rs1",), "rs2"),
    "V_EXP_V": (lambda a, _b, _f, _o: bf16_unary(exp, a), ("rs1",), None),
    "V_RECI_V": (lambda a, _b, _f, _o: bf16_unary(reciprocal, a), ("rs1",), None),
}


@dataclass
class Op:
    fn: object
    dst: tuple              # (gp register, offset of its value here from the iteration's start)
    srcs: list              # the same for each row read
    f: int | None           # fp register of the fp operand
    order: int              # V_SUB_VF's rorder


@dataclass
class Plan:
    counter: int            # the loop's counter register
    steps: dict             # gp register -> its step per iteration
    ops: list

    def run(self, m, trips: int) -> bool:
        return run(self, m, trips)


def plan(block, counter: int) -> Plan | None:
    """The plan of a loop body (`block`, a predecode.Block) counted by gp `counter`, or
    None if it does not qualify."""
    steps: dict[int, int] = {}
    ops = []
    for ref, *_ in block.items:
        mn = ref.func.__name__
        vals = dict(zip(parameters(mn), ref.args[1:]))
        if mn == "S_ADDI_INT":
            rd = vals["rd"]
            if rd != vals["rs1"] or rd in (0, counter):
                return None
            steps[rd] = steps.get(rd, 0) + vals["imm"]
            continue
        spec = LANE_WISE.get(mn)
        if spec is None or vals.get("rmask"):
            return None
        fn, reads, fp = spec
        regs = [vals["rd"], *(vals[r] for r in reads)]
        if counter in regs:
            return None
        at = [(g, steps.get(g, 0)) for g in regs]
        ops.append(Op(fn, at[0], at[1:], vals[fp] if fp else None, vals.get("rorder", 0)))
    if not ops:
        return None
    return Plan(counter, steps, ops)


def run(pl: Plan, m, trips: int) -> bool:
    """Run the loop's `trips` remaining iterations (all of them: the loop ends) and
    return True, or return False having changed nothing."""
    vlen, rows = m.VLEN, m.V.shape[0]
    gp = m.gp
    k = np.arange(trips, dtype=np.int64)
    # every access: (op, is write, register, offset) -> its addresses per iteration
    addr = {}
    for op in pl.ops:
        for g, off in (*op.srcs, op.dst):
            if (g, off) in addr:
                continue
            start, step = gp[g] + off, pl.steps.get(g, 0)
            lo, hi = min(start, start + (trips - 1) * step), max(start, start + (trips - 1) * step)
            if start % vlen or step % vlen or lo < 0 or hi + vlen > m.vsram.size:
                return False
            addr[g, off] = (start + step * k) // vlen if step else start // vlen
    fixed = {key: a for key, a in addr.items() if pl.steps.get(key[0], 0) == 0}
    streamed = {key: a for key, a in addr.items() if key not in fixed}
    # fixed rows: written before read in each iteration, or never written
    first: dict[int, str] = {}
    written: set = set()
    for op in pl.ops:
        for key in op.srcs:
            if key in fixed:
                first.setdefault(fixed[key], "read")
        if op.dst in fixed:
            first.setdefault(fixed[op.dst], "write")
            written.add(fixed[op.dst])
    if any(first[r] == "read" for r in written):
        return False
    # streamed rows: one iteration each, and none of them a fixed row
    if streamed:
        a = np.concatenate(list(streamed.values()))
        it = np.tile(k, len(streamed))
        o = np.lexsort((it, a))
        a, it = a[o], it[o]
        same = a[1:] == a[:-1]
        if np.any(same & (it[1:] != it[:-1])) or np.any(np.isin(a, list(first))):
            return False
        uniq = np.unique(a)
        index = {key: np.searchsorted(uniq, v) for key, v in streamed.items()}
        work = m.V[uniq]                          # a copy: the streamed rows
    private = {r: np.empty((trips, vlen), F32) for r in written}
    f = m.f

    def fetch(key):
        if key in streamed:
            return work[index[key]]
        r = fixed[key]
        return private[r] if r in private else m.V[r][None, :]
    for op in pl.ops:
        srcs = [fetch(key) for key in op.srcs]
        out = op.fn(srcs[0], srcs[1] if len(srcs) > 1 else None,
                    f[op.f] if op.f is not None else None, op.order)
        if op.dst in streamed:
            work[index[op.dst]] = out
        else:
            private[fixed[op.dst]][...] = out
    if streamed:
        m.V[uniq] = work
    for r, v in private.items():
        m.V[r] = v[-1]
    for g, step in pl.steps.items():
        m.set_gp(g, gp[g] + trips * step)
    m.set_gp(pl.counter, 0)          # counted down by each C_LOOP_END to 0, which ends it
    m.pop_loop()
    return True
