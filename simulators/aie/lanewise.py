"""Fast-forwarding a hardware loop whose iterations are independent lane-wise work: the
inner loop of element-wise and row-wise kernels (load a vector at a fixed step,
compute on it lane by lane, store the result at a fixed step).

A body qualifies when it holds only fixed-step loads and stores of whole vectors
(`VLD`, `VLDB`, `VST` with immediate post-modify), `NOP`s and the lane-wise operations
below, and every register an iteration reads is either written earlier in the same
iteration or not written by the body at all (nothing flows from one iteration to the
next but the pointer steps), except a running sum or maximum that nothing else in the
body touches (FOLDS: computed over all iterations at once, in order), and a register
that only stores read before the iteration writes it (a software-pipelined store of
the previous iteration's result: the rows shifted by one). Then each
operation can run once for all iterations on "stacked" registers, one row per
iteration (`Stacked`, the same semantics functions), with the results of running them
one by one:
  - loads gather every iteration's row from data memory at once (their addresses are
    affine in the iteration); stores are written back in iteration order afterwards;
  - a load that reads a byte an earlier store of the loop wrote is allowed when no
    stored value depends on it (through registers, in this or a later iteration:
    `_stores_depend_on`): the stored values are computed first, then the loop's memory
    operations are replayed in iteration order (stores written, those loads read), and
    the body is run again with the values they read;
  - the registers the body writes end with the last iteration's values;
  - time is kept by the run's timing-only code (codegen), iteration by iteration, with
    each iteration's bank conflicts computed from its addresses, so cycles, stalls and
    DMA progress are exactly those of stepping.
A loop is only fast-forwarded when nothing can go wrong in it: every address in range
and aligned, no pending DMA transfer touching bytes it reads or writes, no DMA
completion that could overflow a lock, no access that could wait for a port DMA beats
hold (ports.py). Otherwise it runs bundle by bundle, where an
error is reported at its bundle.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.numerics import canon, f32_to_bf16_bits

from . import semantics as sem
from .fastloop import bank_conflicts, keep_time, locks_could_overflow, remembered, walk, whole_body
from .numerics import accumulate_f32
from .predecode import Code
from .semantics.vector import _bf

# Operations whose semantics work unchanged on stacked registers: every lane of the
# result depends only on the same lane of the operands (no half or paired registers,
# no reductions, no shuffles, no deferred multiply-accumulates).
# (isa/aie instruction class lane_wise)
LANE_WISE = {sem.SEMANTICS[sem.key(mn)] for mn in get_isa("aie").having("lane_wise")}
# Operations that may carry a register from one iteration to the next when nothing else
# in the body touches it: `d = d op v` (or `v op d`) folds every iteration's v into d in
# order, which `fold` computes at once with the same bits.
FOLDS = {sem.SEMANTICS["AADD_F32"]: "add", sem.SEMANTICS["AMAX_F32"]: "max",
         sem.SEMANTICS["VMAX_BF16"]: "max_bf16"}
_LOADS = {sem.SEMANTICS["VLD"]: False, sem.SEMANTICS["VLDB"]: True}       # -> broadcast
_STORE = sem.SEMANTICS["VST"]
_NOP = sem.SEMANTICS["NOP"]
VECTOR_BYTES = 64


@dataclass
class Access:
    store: bool
    reg: int                # x register loaded or stored
    ptr: int
    offset: int             # pointer steps of the body before it (bytes)
    n: int
    align: int
    broadcast: bool         # VLDB: one 16-bit word in every lane
    seq: int                # its place among the body's operations
    prev: bool = False      # a store of the register the previous iteration left


@dataclass
class Plan:
    first: int
    last: int
    accesses: list[Access]
    steps: dict[int, int]                 # pointer -> its steps per iteration (bytes)
    # in order: ("mem", access number) | ("op", fn, args) | ("fold", kind, d, v, file)
    program: list[tuple]
    units: list[tuple]                    # (units read, units written) of each program step
    written: list[tuple]                  # ("x" | "acc", number) the body writes
    accs: list[int]                       # accumulators the body touches
    mem_pos: list[tuple[int, list[int]]]  # (bundle of the run, its accesses) with 2+ of them
    seqs: int                             # operations in the body
    last_write: dict                      # unit -> the program step that writes it last
    # (trips, the accesses' pointers) -> _addresses (fastloop.Plan.seen)
    seen: dict = field(default_factory=dict)

    def run(self, st, dma, trips: int, tn: int, timing_step) -> int | None:
        return run(self, st, dma, trips, tn, timing_step)


def plan(code: Code, first: int, last: int) -> Plan | None:
    """The fast-forward plan of a loop body first..last, or None if it is not one."""
    rows = code.rows
    if not whole_body(code, first, last):
        return None
    accesses: list[Access] = []
    steps: dict[int, int] = {}
    program: list[tuple] = []
    units: list[tuple] = []
    by_pos: dict[int, list[int]] = {}
    defined: set = set()          # units an iteration has written so far
    read_first: set = set()       # units an iteration reads before writing them
    written: dict = {}
    accs: set = set()
    touches: dict = {}            # unit -> operations of the body touching it
    early: dict = {}              # unit -> operations reading it before the iteration writes it
    seq = 0
    for pos, row in enumerate(rows[first:last + 1]):
        if row.ctrl or row.halt or (row.ends and pos != last - first) or not row.units:
            return None
        for fn, deferred, args, op in row.calls:
            if deferred or op is None:
                return None
            reads, writes = row.units[op]
            if fn in _LOADS or fn is _STORE:
                n, align, reg, p, pm = args
                if pm[0] != 0 or (n != VECTOR_BYTES and fn is not sem.SEMANTICS["VLDB"]):
                    return None
                acc = Access(fn is _STORE, reg, p, steps.get(p, 0), n, align, _LOADS.get(fn, False), seq)
                steps[p] = steps.get(p, 0) + pm[1]
                by_pos.setdefault(pos, []).append(len(accesses))
                accesses.append(acc)
                program.append(("mem", len(accesses) - 1))
                reads = [u for u in reads if u[0] != "p"]
                writes = [u for u in writes if u[0] != "p"]
            elif fn in LANE_WISE:
                program.append(("op", fn, args))
            elif fn is _NOP:
                continue
            else:
                return None
            units.append((tuple(reads), tuple(writes)))
            for u in (*reads, *writes):
                if u[0] not in ("x", "acc"):
                    return None
                touches.setdefault(u, set()).add(seq)
                if u[0] == "acc":
                    accs.add(u[1])
            for u in reads:
                if u not in defined:
                    read_first.add(u)
                    early.setdefault(u, []).append(len(accesses) - 1 if fn is _STORE else None)
            defined.update(writes)
            written.update(dict.fromkeys(writes))
            seq += 1
    for u in read_first & set(written):          # carried: only as a fold (program[seq] is op seq)
        if None not in early[u]:                 # or only stored (a software-pipelined store)
            for j in early[u]:
                accesses[j].prev = True
            continue
        if len(touches[u]) != 1:
            return None
        j = next(iter(touches[u]))
        entry = program[j]
        if entry[0] != "op" or entry[1] not in FOLDS:
            return None
        d, a, b = entry[2]
        if u[1] != d or (a == d) == (b == d):
            return None
        program[j] = ("fold", FOLDS[entry[1]], d, b if a == d else a, u[0])
    if not accesses:
        return None
    if any(rows[first + pos].mem != len(js) for pos, js in by_pos.items()):
        return None
    mem_pos = [(pos, js) for pos, js in sorted(by_pos.items()) if len(js) > 1]
    last_write = {u: k for k, (_, writes) in enumerate(units) for u in writes}
    return Plan(first, last, accesses, steps, program, units, list(written), sorted(accs), mem_pos,
                seq, last_write)


class Stacked:
    """Registers with one row per iteration (x[i] is (trips, 64) bytes, acc[i] (trips,
    32) lanes), read and written by the semantics functions as AieState's are."""

    def __init__(self, st, trips: int):
        self.x = np.repeat(st.x[:, None, :], trips, axis=1)
        self.x16 = self.x.view(np.uint16)
        self.xi16 = self.x.view(np.int16)
        self.xi8 = self.x.view(np.int8)
        self.acc = np.repeat(st.acc[:, None, :], trips, axis=1)
        self.acci = self.acc.view(np.int32)
        self.accf = self.acc.view(np.float32)
        self.rm, self.tables, self.defer_macs = st.rm, st.tables, False

    def set_x(self, i: int, values: np.ndarray) -> None:
        self.x[i] = values.view(np.uint8)

    def set_acc(self, i: int, values: np.ndarray) -> None:
        self.acc[i] = values.view(np.uint32)


def _spans_overlap(lo: int, hi: int, ranges) -> bool:
    return any(lo <= b and a <= hi for a, b in ranges)


def run(pl: Plan, st, dma, trips: int, tn: int, timing_step) -> int | None:
    """Run `trips` iterations of the body (the last ones of its loop) and return the
    next free issue cycle, or None (nothing done) if one of them could fail or depend
    on another."""
    got = remembered(pl, (trips, tuple([st.p[ac.ptr] for ac in pl.accesses])),
                     lambda: _addresses(pl, st, dma.ports.shift, trips))
    if got is None:                                      # out of range or misaligned
        return None
    addrs, spans, crossing, stores, aliased, rerun, conflicts = got
    for tr in st.pending:                                # a race with a DMA transfer
        if _spans_overlap(tr.lo, tr.hi, spans):
            return None
    ports = dma.ports                  # (ports.may_hold, with the crossings known)
    if ports.until2 >= tn or (crossing and ports.until >= tn):
        return None                                      # its timing would need stepping
    if rerun is None:                                    # a stored value depends on a load
        return None
    if locks_could_overflow(st, dma):
        return None
    for d in pl.accs:                      # deferred multiply-accumulates land first
        st.flush_macs(d)
    gathered: dict = {}
    s, out = _compute(pl, st, addrs, trips, gathered, {})
    tn = keep_time(pl.mem_pos, addrs, st.bank_shift, trips, tn, timing_step, conflicts)
    if aliased:
        # stores and the loads that read them, in iteration order; then the body again
        # with what those loads read (the stored values do not depend on it)
        _replay(pl, st, addrs, stores, aliased, out, gathered, trips)
        if rerun:
            s, _ = _compute(pl, st, addrs, trips, gathered, aliased)
        else:                                # nothing reads them: only the registers' last rows
            for j in aliased:
                ac = pl.accesses[j]
                if pl.last_write.get(("x", ac.reg)) == ac.seq:
                    s.x[ac.reg] = gathered[j]
    elif len(stores) == 1 and abs(pl.steps[pl.accesses[stores[0]].ptr]) >= VECTOR_BYTES:
        j = stores[0]                        # rows that do not overlap: one assignment
        st.dm[addrs[j][:, None] + np.arange(VECTOR_BYTES)] = out[j]
    else:                                    # stores, in the order the iterations make them
        for k in range(trips):
            for j in stores:
                a = int(addrs[j][k])
                st.write_dm(a, out[j][k])
    for f, r in pl.written:
        if f == "x":
            st.set_x(r, np.ascontiguousarray(s.x[r][-1]))
        else:
            st.set_acc(r, np.ascontiguousarray(s.acc[r][-1]))
    for p, step in pl.steps.items():
        if step:
            st.set_p(p, st.p[p] + trips * step)
    return tn


def _addresses(pl: Plan, st, shift: int, trips: int):
    """What the accesses' addresses fix, from the pointers now: (every access's address
    per iteration, the bytes (lo, hi) each touches, whether any access crosses into the
    next bank (ports.may_hold), the stores, the loads that read what a store wrote,
    whether an operation reads what those loads read (None if a stored value depends
    on them), the bank conflicts for keep_time); None if an access would be out of
    range or misaligned."""
    got = walk(pl.accesses, pl.steps, st, shift, trips)
    if got is None:
        return None
    addrs, spans, crossing = got
    stores = [j for j, ac in enumerate(pl.accesses) if ac.store]
    loads = [j for j, ac in enumerate(pl.accesses) if not ac.store]
    near = [j for j in loads if _spans_overlap(*spans[j], [spans[s] for s in stores])]
    aliased = _reads_stored(pl, addrs, stores, near, trips) if near else set()
    rerun = False
    if aliased:
        stored, rerun = _taint(pl, aliased)
        if stored:
            rerun = None
    return (addrs, spans, crossing, stores, aliased, rerun,
            bank_conflicts(pl.mem_pos, addrs, st.bank_shift, trips))


def _compute(pl: Plan, st, addrs, trips: int, gathered: dict, fixed) -> tuple:
    """Run the body's operations on stacked registers: (the Stacked registers, each
    store's rows). Loads gather their rows from data memory into `gathered` (or take
    them from there when already gathered); those in `fixed` were replayed."""
    s = Stacked(st, trips)
    lanes = np.arange(VECTOR_BYTES)
    out = {}
    for step in pl.program:
        if step[0] == "op":
            step[1](s, *step[2])
            continue
        if step[0] == "fold":
            _, kind, d, v, f = step
            regs = s.x16 if f == "x" else s.accf
            regs[d][-1] = fold(kind, regs[d][0], regs[v])   # the last iteration's result
            continue
        j = step[1]
        ac, a = pl.accesses[j], addrs[j]
        if ac.store:
            if not ac.prev:
                out[j] = s.x[ac.reg].copy()
            continue
        rows = gathered.get(j)
        if rows is None:
            if ac.broadcast:
                rows = np.repeat(st.dm16[a >> 1][:, None], 32, axis=1).view(np.uint8)
            elif pl.steps[ac.ptr] == ac.n:       # consecutive rows: one slice
                start = int(a[0])
                rows = st.dm[start:start + trips * ac.n].reshape(trips, ac.n).copy()
            else:
                rows = st.dm[a[:, None] + lanes]
            gathered[j] = rows
        s.x[ac.reg] = rows
    for j, ac in enumerate(pl.accesses):     # each iteration stores the previous one's value
        if ac.store and ac.prev:
            out[j] = np.concatenate((st.x[ac.reg][None], s.x[ac.reg][:-1]))
    return s, out


def _replay(pl: Plan, st, addrs, stores, aliased, out, gathered, trips: int) -> None:
    """Write the stores and read the loads in `aliased` (into `gathered`) one iteration
    after another, in the body's order."""
    dm, dm16 = st.dm, st.dm16
    items = []
    for j in sorted((*stores, *aliased), key=lambda j: pl.accesses[j].seq):
        ac = pl.accesses[j]
        if ac.store:
            rows = out[j]
        else:
            rows = gathered[j] = np.empty((trips, VECTOR_BYTES), np.uint8)
        items.append((ac.store, ac.broadcast, addrs[j].tolist(), rows, rows.view(np.uint16)))
    for k in range(trips):
        for store, broadcast, a, rows, rows16 in items:
            x = a[k]
            if store:
                dm[x:x + VECTOR_BYTES] = rows[k]
            elif broadcast:
                rows16[k] = dm16[x >> 1]
            else:
                rows[k] = dm[x:x + VECTOR_BYTES]


def _taint(pl: Plan, loads) -> tuple[bool, bool]:
    """(whether a value some store writes depends on what one of `loads` read, in the
    same iteration or, through a register carried to the next, a later one; whether any
    operation reads such a value)."""
    tainted: set = set()
    used = False
    for _ in range(2):                       # the second pass sees what the first carried
        for step, (reads, writes) in zip(pl.program, pl.units):
            if step[0] == "mem":
                ac = pl.accesses[step[1]]
                if ac.store:
                    if ("x", ac.reg) in tainted:
                        return True, True
                elif step[1] in loads:
                    tainted.add(("x", ac.reg))
                else:
                    tainted.discard(("x", ac.reg))
            elif any(u in tainted for u in reads):
                used = True
                tainted.update(writes)
            else:
                tainted.difference_update(writes)
    return False, used


def _reads_stored(pl: Plan, addrs, stores, loads, trips: int) -> set:
    """The loads (of `loads`) that read a byte a store of an earlier iteration (or
    earlier in the same iteration) writes: the loop's iterations are not independent."""
    lo = min(int(addrs[j].min()) for j in stores + loads)
    hi = max(int(addrs[j].max()) for j in stores + loads) + VECTOR_BYTES
    first = np.full(hi - lo, trips * pl.seqs + 1, dtype=np.int64)   # first store of each byte
    lanes = np.arange(VECTOR_BYTES)
    it = np.arange(trips, dtype=np.int64) * pl.seqs
    for j in stores:
        ac = pl.accesses[j]
        idx = (addrs[j] - lo)[:, None] + lanes[:ac.n]
        np.minimum.at(first, idx.ravel(), np.repeat(it + ac.seq, ac.n))
    out = set()
    for j in loads:
        ac = pl.accesses[j]
        n = 2 if ac.broadcast else ac.n
        idx = (addrs[j] - lo)[:, None] + lanes[:n]
        if np.any(first[idx] < (it + ac.seq)[:, None]):
            out.add(j)
    return out


def fold(kind: str, init: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The register after `d = op(d, v)` for every row v in order, from d = init:
    an fp32 add rounds each sum (numerics.accumulate_f32); a max is exact and its
    order does not matter (NaN wins, a zero result is +0 if any +0 was seen, as
    numerics.fmax chooses for -0 and +0); a bf16 max works on the widened values."""
    if kind == "add":
        return accumulate_f32(init, rows)
    if kind == "max_bf16":
        v = np.concatenate((_bf(init)[None], _bf(rows)))
        return f32_to_bf16_bits(_max_of(v))
    return _max_of(np.concatenate((init[None], rows)))


def _max_of(v: np.ndarray) -> np.ndarray:
    r = np.maximum.reduce(v, axis=0)
    zero = r == 0
    if np.count_nonzero(zero):
        pos = np.any((v == 0) & ~np.signbit(v), axis=0)
        r = np.where(zero, np.float32(0.0), r)
        r = np.where(zero & ~pos, np.float32(-0.0), r)
    return canon(r.astype(np.float32))
