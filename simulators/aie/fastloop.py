"""Fast-forwarding a hardware loop whose body only loads and multiply-accumulates in
bf16: the inner loop of every contraction (`VLD`/`VLDB` with immediate post-modify,
`VMMAC.BF16`, `VMAC.BF16`, `VMSC.BF16`, `NOP`).

Such a body changes nothing but vector registers, pointers and accumulators, and its
bf16 multiply-accumulates are deferred anyway (AieState.queue_mac). So all its
iterations can run at once, with the results of running them one by one:
  - every load's address is affine in the iteration (pointer + offset + i * the
    pointer's step per iteration), so all its rows are gathered from data memory at
    once; a register read before its load in the body holds the previous iteration's
    load (or its value before the loop);
  - each accumulator's terms are applied in the order the iterations would apply them
    (semantics.vector.mac_terms: one fp32 rounding per term, in order; where lanes.c
    is built, a body of one kind of multiply-accumulate is one call of its mac_rows);
  - time is kept by the run's timing-only code (codegen), iteration by iteration, with
    each iteration's bank conflicts computed from its addresses, so cycles, stalls and
    DMA progress are exactly those of stepping.
A loop is only fast-forwarded when nothing can go wrong in it: every address in range
and aligned, no pending DMA transfer writing bytes it reads, no DMA completion that
could overflow a lock, no access that could wait for a port DMA beats hold (ports.py). Otherwise it runs bundle by bundle, where an error is reported
at its bundle.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import lanes, semantics as sem
from .predecode import Code
from .numerics import accumulate_f32, accumulate_f32_rows_in
from .semantics.vector import mac_term_values, mac_terms
from .state import MAC_ADD, MAC_MATRIX, MAC_SUB, AieState

_LOADS = {sem.SEMANTICS["VLD"]: False, sem.SEMANTICS["VLDB"]: True}       # -> broadcast
_MACS = {sem.SEMANTICS["VMMAC_BF16"]: MAC_MATRIX, sem.SEMANTICS["VMAC_BF16"]: MAC_ADD,
         sem.SEMANTICS["VMSC_BF16"]: MAC_SUB}
_NOP = sem.SEMANTICS["NOP"]


@dataclass
class Load:
    reg: int                # x register written
    ptr: int
    offset: int             # pointer steps of the body before it (bytes)
    n: int
    align: int
    broadcast: bool         # VLDB: one 16-bit word in every lane
    pos: int                # bundle of the run (from 0)


@dataclass
class Plan:
    first: int
    last: int
    loads: list[Load]
    steps: dict[int, int]                 # pointer -> its steps per iteration (bytes)
    # per accumulator, in body order: (kind, source of a, sources of b) where a source is
    # ("cur", load) | ("prev", load) | ("init", x register)
    macs: dict[int, list[tuple]]
    last_load: dict[int, int]             # x register -> the body's last load into it
    mem_pos: list[tuple[int, list[int]]]  # (bundle of the run, its loads) with 2+ loads
    # (trips, the loads' pointers) -> _addresses: a loop entered again with its pointers
    # set as before (a contraction's inner loop in an outer one) reuses them
    seen: dict = field(default_factory=dict)
    # a body of one kind of multiply-accumulate, as many per accumulator, whose operands
    # all come from this iteration's loads of whole vectors: (the load of every a
    # operand, (accumulators, terms); of every b operand, (accumulators, terms, 1 or 2))
    gather: tuple | None = None

    def run(self, st, dma, trips: int, tn: int, timing_step) -> int | None:
        return run(self, st, dma, trips, tn, timing_step)


def whole_body(code: Code, first: int, last: int) -> bool:
    """Whether bundles first..last are the whole body of one hardware loop (it opens
    just before and only it ends after the last)."""
    return first > 0 and code.rows[first - 1].loop and code.rows[last].ends == 1


def plan(code: Code, first: int, last: int) -> Plan | None:
    """The fast-forward plan of a loop body first..last, or None if it is not one."""
    rows = code.rows
    if not whole_body(code, first, last):
        return None
    loads: list[Load] = []
    steps: dict[int, int] = {}
    current: dict[int, tuple] = {}
    events = []                                 # ("load", j) | ("mac", acc, kind, a regs, b regs)
    by_pos: dict[int, list[int]] = {}
    for pos, row in enumerate(rows[first:last + 1]):
        if row.ctrl or row.halt or row.flush or (row.ends and pos != last - first):
            return None
        for fn, deferred, args, _ in row.calls:
            if deferred:
                return None
            if fn in _LOADS:
                n, align, d, p, pm = args
                if pm[0] != 0:                  # modifier or generator post-modify
                    return None
                loads.append(Load(d, p, steps.get(p, 0), n, align, _LOADS[fn], pos))
                steps[p] = steps.get(p, 0) + pm[1]
                by_pos.setdefault(pos, []).append(len(loads) - 1)
                events.append(("load", len(loads) - 1))
            elif fn in _MACS:
                d, a, b = args
                kind = _MACS[fn]
                events.append(("mac", d, kind, (a,), (2 * b, 2 * b + 1) if kind == MAC_MATRIX else (b,)))
            elif fn is not _NOP:
                return None
    last_load = {}
    for j, ld in enumerate(loads):
        last_load[ld.reg] = j
    current = {r: ("prev", j) for r, j in last_load.items()}
    macs: dict[int, list[tuple]] = {}
    for ev in events:
        if ev[0] == "load":
            current[loads[ev[1]].reg] = ("cur", ev[1])
        else:
            _, d, kind, a, b = ev
            src = lambda r: current.get(r, ("init", r))      # noqa: E731
            macs.setdefault(d, []).append((kind, [src(r) for r in a], [src(r) for r in b]))
    mem_pos = [(pos, js) for pos, js in sorted(by_pos.items()) if len(js) > 1]
    if any(rows[first + pos].mem != len(js) for pos, js in by_pos.items()):
        return None
    pl = Plan(first, last, loads, steps, macs, last_load, mem_pos)
    ops = [op for d in sorted(macs) for op in macs[d]]
    if (len({kind for kind, _, _ in ops}) == 1 and len({len(v) for v in macs.values()}) == 1
            and all(ld.broadcast or ld.n == 64 for ld in loads)
            and all(src[0] == "cur" for _, a, b in ops for src in a + b)):
        g, m = len(macs), len(ops) // len(macs)
        pl.gather = (np.array([a[0][1] for _, a, _ in ops]).reshape(g, m),
                     np.array([[src[1] for src in b] for _, _, b in ops]).reshape(g, m, -1))
    return pl


def remembered(pl, key, work):
    """pl.seen[key], worked out by work() the first time (None too: a plan that cannot
    run at these pointers); at most 64 kept per plan."""
    got = pl.seen.get(key)
    if got is None and key not in pl.seen:
        if len(pl.seen) >= 64:
            pl.seen.clear()
        got = pl.seen[key] = work()
    return got


def run(pl: Plan, st, dma, trips: int, tn: int, timing_step) -> int | None:
    """Run `trips` iterations of the body (the last ones of its loop) and return the
    next free issue cycle, or None (nothing done) if one of them could fail."""
    got = remembered(pl, (trips, tuple(st.p[ld.ptr] for ld in pl.loads)),
                     lambda: _addresses(pl, st, dma.ports.shift, trips))
    if got is None:                             # out of range or misaligned
        return None
    addrs, spans, crossing, conflicts = got
    plain = type(st) is AieState            # (its writes need no method: nothing records them)
    for tr in st.pending:                      # loads race with transfers into data memory
        if tr.direction == "in":
            for lo, hi in spans:
                if lo <= tr.hi and tr.lo <= hi:
                    return None
    ports = dma.ports                          # (ports.may_hold, with the crossings known)
    if ports.until2 >= tn or (crossing and ports.until >= tn):
        return None                            # its timing would need stepping
    if locks_could_overflow(st, dma):
        return None
    # the rows every load brings, as 16-bit lanes: (trips, 32) (all in one array when
    # the operands are gathered from it)
    rows = [] if pl.gather is None else np.empty((len(pl.loads), trips, 32), np.uint16)
    cols = np.arange(64)
    for j, (ld, a) in enumerate(zip(pl.loads, addrs)):
        step = pl.steps[ld.ptr]
        if ld.broadcast:
            r = np.broadcast_to(st.dm16[a >> 1][:, None], (trips, 32))
        elif step >= 0:        # rows a step apart: a view (nothing writes them while it runs)
            r = np.ndarray((trips, ld.n >> 1), np.uint16, st.dm, int(a[0]), (step, 2))
        else:
            r = st.dm[a[:, None] + cols].view(np.uint16)
        if pl.gather is None:
            rows.append(r)
        else:
            rows[j] = r
    initial = {}

    def values(src) -> np.ndarray:
        how, k = src
        if how == "cur":
            return rows[k]
        if how == "prev":
            reg = pl.loads[k].reg
            if reg not in initial:
                initial[reg] = st.x16[reg].copy()
            return np.concatenate((initial[reg][None], rows[k][:-1]))
        if k not in initial:
            initial[k] = st.x16[k].copy()
        return np.broadcast_to(initial[k], (trips, 32))
    kinds = {kind for ops in pl.macs.values() for kind, _, _ in ops}
    counts = {len(ops) for ops in pl.macs.values()}
    if len(kinds) == 1 and len(counts) == 1:
        # one kind, as many terms per accumulator: every accumulator's operands in one
        # array each, their terms by one call, their sums by one more
        kind, m, ds = kinds.pop(), counts.pop(), sorted(pl.macs)
        width = 64 if kind == MAC_MATRIX else 32
        if pl.gather is not None:               # (accumulators, terms, trips, ...) -> C order
            ia, ib = pl.gather
            a = rows[ia]
            if m > 1:
                a = np.ascontiguousarray(a.transpose(0, 2, 1, 3))
            b = np.ascontiguousarray(rows[ib].transpose(0, 3, 1, 2, 4))
        else:
            a = np.empty((len(ds), trips, m, 32), np.uint16)
            b = np.empty((len(ds), trips, m, width), np.uint16)
            for di, d in enumerate(ds):
                for k, (_, asrc, bsrc) in enumerate(pl.macs[d]):
                    a[di, :, k] = values(asrc[0])
                    if kind == MAC_MATRIX:
                        b[di, :, k, :32], b[di, :, k, 32:] = values(bsrc[0]), values(bsrc[1])
                    else:
                        b[di, :, k] = values(bsrc[0])
        c = lanes.module()             # (lanes.c: the same terms and sums, one call)
        one = None if c is not None else mac_term_values(kind, a.reshape(-1, 32), b.reshape(-1, width))
        tn = keep_time(pl.mem_pos, addrs, st.bank_shift, trips, tn, timing_step, conflicts)
        # the state the last iteration leaves
        macs = st.macs
        for d in ds:
            if macs[d]:
                st.flush_macs(d)
        # accumulators in a row of the plain state's: their sums land in place
        whole = plain and ds == list(range(ds[0], ds[0] + len(ds)))
        if c is not None:
            # (else a fresh array: indexed by a list)
            sums = st.accf[ds[0]:ds[0] + len(ds)] if whole else st.accf[ds]
            at = lambda v: v.__array_interface__["data"][0]     # noqa: E731
            c.mac_rows(at(a), at(b), at(sums), len(ds), trips * m, kind)
        else:
            sums = accumulate_f32_rows_in(st.accf[ds], one.reshape(len(ds), trips * m, 32))   # (one is fresh)
            if whole:
                st.accf[ds[0]:ds[0] + len(ds)] = sums
        if not whole:
            for k, d in enumerate(ds):
                st.set_acc(d, sums[k])
    else:
        terms = {}
        for d, ops in pl.macs.items():
            m = len(ops)
            a = np.empty((trips, m, 32), np.uint16)
            b = np.zeros((trips, m, 32), np.uint16)
            y = np.zeros((trips, m, 64), np.uint16)
            for k, (kind, asrc, bsrc) in enumerate(ops):
                a[:, k] = values(asrc[0])
                if kind == MAC_MATRIX:
                    y[:, k, :32], y[:, k, 32:] = values(bsrc[0]), values(bsrc[1])
                else:
                    b[:, k] = values(bsrc[0])
            terms[d] = ([kind for _ in range(trips) for kind, _, _ in ops],
                        a.reshape(-1, 32), b.reshape(-1, 32), y.reshape(-1, 64))
        one = None                    # every term of one kind: all accumulators' terms at once
        if len(kinds) == 1 and terms:
            kind = kinds.pop()
            other = 3 if kind == MAC_MATRIX else 2
            one = mac_term_values(kind, np.concatenate([t[1] for t in terms.values()]),
                                  np.concatenate([t[other] for t in terms.values()]))
        tn = keep_time(pl.mem_pos, addrs, st.bank_shift, trips, tn, timing_step, conflicts)
        # the state the last iteration leaves
        at = 0
        for d, (kinds, a, b, y) in terms.items():
            st.flush_macs(d)
            if one is not None:
                st.set_acc(d, accumulate_f32(st.accf[d], one[at:at + len(kinds)]))
                at += len(kinds)
            else:
                st.set_acc(d, mac_terms(st.accf[d], kinds, a, b, y))
    for reg, j in pl.last_load.items():
        if plain:
            st.x16[reg] = rows[j][-1]
        else:
            st.set_x(reg, np.ascontiguousarray(rows[j][-1]))
    for p, step in pl.steps.items():
        if step:
            st.set_p(p, st.p[p] + trips * step)
    return tn


def _addresses(pl: Plan, st, shift: int, trips: int):
    """What the loads' addresses fix, from the pointers now: (every load's address per
    iteration, the data-memory bytes (lo, hi) each touches, whether any access crosses
    into the next bank (ports.may_hold), the bank conflicts for keep_time); None if an
    access would be out of range or misaligned."""
    got = walk(pl.loads, pl.steps, st, shift, trips)
    return None if got is None else (*got, bank_conflicts(pl.mem_pos, got[0], st.bank_shift, trips))


def walk(accesses, steps, st, shift: int, trips: int):
    """(each access's address per iteration, the bytes (lo, hi) it touches, whether any
    crosses into the next bank) for accesses whose pointers step by `steps[ptr]` each
    iteration; None if one would be out of range or misaligned."""
    i = np.arange(trips, dtype=np.int64)
    addrs, spans, crossing = [], [], False
    for ac in accesses:
        step = steps[ac.ptr]
        got = stepped(st, ac, step, trips)
        if got is None:
            return None
        a = got[0] + step * i
        addrs.append(a)
        spans.append(got[1])
        crossing = crossing or bool(np.any((a >> shift) != ((a + ac.n - 1) >> shift)))
    return addrs, spans, crossing


def stepped(st, acc, step: int, trips: int):
    """(first address, (first, last) data-memory byte touched) of an access (its ptr,
    offset, n bytes, align) whose pointer steps by `step` for `trips` iterations from
    now; None if one would be out of range or misaligned."""
    start = st.p[acc.ptr] + acc.offset
    end = start + (trips - 1) * step
    lo, hi = min(start, end), max(start, end)
    if lo < 0 or hi + acc.n > st.dm_size or start % acc.align or step % acc.align:
        return None
    return start, (lo, hi + acc.n - 1)


def locks_could_overflow(st, dma) -> bool:
    """Whether the pending transfers' lock releases could take a lock past its maximum
    (an error stepping reports at the bundle where the transfer completes)."""
    rel: dict[int, int] = {}
    for tr in st.pending:
        if tr.rel is not None:
            rel[tr.rel] = rel.get(tr.rel, st.locks[tr.rel]) + tr.rel_n
    return any(v > dma.lock_max for v in rel.values())


def bank_conflicts(mem_pos, addrs, shift: int, trips: int) -> tuple[dict, int]:
    """(extra cycles per iteration of each bundle of the run (mem_pos: (bundle of the run,
    its memory accesses) with 2+ of them; addrs: every access's address per iteration),
    the first iteration from which they stay the same)."""
    extra = {}
    steady = 0
    for pos, js in mem_pos:
        banks = [addrs[j] >> shift for j in js]
        if len(js) == 2:
            e = (banks[0] == banks[1]).astype(np.int64)
        else:
            most = np.ones(trips, dtype=np.int64)
            for x in range(len(js)):
                most = np.maximum(most, sum((banks[x] == bk).astype(np.int64) for bk in banks))
            e = most - 1
        changes = np.flatnonzero(e[1:] != e[:-1])
        steady = max(steady, int(changes[-1]) + 1 if changes.size else 0)
        extra[pos] = e.tolist()
    return extra, steady


def keep_time(mem_pos, addrs, shift: int, trips: int, tn: int, timing_step, conflicts=None) -> int:
    """Run the body's timing-only code for every iteration, with each iteration's bank
    conflicts (bank_conflicts, or `conflicts` if known); the next free issue cycle after
    the last.

    Once an iteration leaves the scoreboard as the one before it did, shifted by the
    cycles it took (every unit still pending, the horizon), with the same stalls, no DMA
    event to come and the same bank conflicts in every iteration left, each iteration
    left repeats it: they are added at once (`_repeat`)."""
    extra, steady = conflicts or bank_conflicts(mem_pos, addrs, shift, trips)
    g = timing_step.__globals__            # the run's scoreboard (codegen.Compiler.common)
    ready, macready, stalls, horizon, dma = g["ready"], g["macready"], g["stalls"], g["horizon"], g["dma"]
    k, last, tries = 0, None, 8
    while k < trips:
        if k < steady or not tries or dma.next_event is not None:
            tn = timing_step(tn, k, extra)
            k += 1
            continue
        before, t0 = list(stalls), tn
        tn = timing_step(tn, k, extra)
        k += 1
        seen = (tn - t0, [a - b for a, b in zip(stalls, before)], _pending(ready, tn),
                _pending(macready, tn), max(horizon[0] - tn, 0))
        if seen == last and dma.next_event is None:
            return _repeat(g, seen, trips - k, tn)
        last, tries = seen, tries - 1
    return tn


def _pending(ready: list, tn: int) -> list:
    """Cycles after tn each unit becomes ready (0: ready already, which no later bundle
    can wait for)."""
    return [r - tn if r > tn else 0 for r in ready]


def _repeat(g: dict, seen: tuple, m: int, tn: int) -> int:
    """Add m more iterations that each repeat the last one (`seen`, keep_time)."""
    delta, per, _, _, _ = seen
    shift = m * delta
    for board in (g["ready"], g["macready"]):
        board[:] = [r + shift if r > tn else r for r in board]
    horizon, stalls = g["horizon"], g["stalls"]
    if horizon[0] > tn:
        horizon[0] += shift
    for i, d in enumerate(per):
        stalls[i] += m * d
    g["st"].now += shift
    return tn + shift
