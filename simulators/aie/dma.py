"""The DMA engine: descriptors, channels, locks, and their timing.

A transfer moves n0 x n1 x n2 16-bit words between external memory (word addresses)
and data memory (byte addresses) as described in isa/aie/dma.toml and the manual's
"DMA" section. Each channel runs its queued transfers in order: a transfer starts when
the channel is free and its acquire lock (if any) can be taken; it occupies the channel
for DMA_SETUP + beats cycles (ceil(bytes / DMA_BW), unless beats end early to keep
within four data-memory rows: ports.beats); an input transfer's data lands
EXT_LATENCY cycles after its last beat, an output transfer has read its source at its
last beat (and its data reaches external memory EXT_LATENCY later, which the end of a
run waits for). The data moves (functionally) at that completion instant, and the
descriptor's release lock is released then. The engine is advanced in time order by
the core's run loop, so every effect happens at its cycle. Beat k of a transfer holds
its data-memory port in cycle start + DMA_SETUP + k (input: + EXT_LATENCY, when its
data is written); a core access needing that port waits (ports.py). After an error
the engine starts nothing more, and the transfers started by then complete (`stop`, as
rtl/aie's DMA does).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernelcraft.simulators.core.errors import IllegalOperandError, MemoryAccessError, SimError

from .ports import DmaPorts
from .state import AieState


class DeadlockError(SimError):
    """Nothing can make progress: the core waits for a lock no transfer will release."""

    kind = "deadlock"


class RaceError(SimError):
    """The core touched data-memory bytes a running DMA transfer owns."""

    kind = "data race"


def extent(d: dict, ext_off: int, loc_off: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """((first, last) external word, (first, last) data-memory byte) of a transfer."""
    def span(base, steps):
        lo = hi = base
        for n, s in steps:
            lo += min(0, (n - 1) * s)
            hi += max(0, (n - 1) * s)
        return lo, hi
    elo, ehi = span(d["ext"] + ext_off, ((d["n1"], d["s1"]), (d["n2"], d["s2"])))
    llo, lhi = span(d["loc"] + loc_off, ((d["n1"], d["ls1"]), (d["n2"], d["ls2"])))
    return (elo, ehi + d["n0"] - 1), (llo, lhi + 2 * d["n0"] - 1)


@dataclass(slots=True)
class Transfer:
    direction: str          # "in" | "out"
    channel: int
    bd: int
    name: str
    # external word index of every word in transfer order, and its 16-bit word index into
    # data memory (byte address / 2): the descriptor's pattern (its offsets) plus a base,
    # added up when asked for (`ext`, `loc`); a pattern that writes no word twice moves
    # between strided views of the two memories (`complete`, `strides`)
    ext_pat: np.ndarray
    ext_base: int
    loc_pat: np.ndarray
    loc_base: int           # (a pattern starts at offset 0: the first word's, which with the
                            # descriptor fixes them all)
    lo: int                 # data-memory bytes lo..hi it owns
    hi: int
    nbytes: int
    acq: int | None
    acq_n: int
    rel: int | None
    rel_n: int
    queued: int             # cycle it was queued
    where: str              # the DMAIN/DMAOUT that queued it, for messages
    run: int = 0            # words per contiguous run (n0); beats gather across runs
    start: int = -1
    beats_end: int = -1
    done: int = -1          # cycle its data has landed / been read (the functional move)
    # (shape, external byte strides, data-memory byte strides) of the views, or None
    strides: tuple | None = None

    @property
    def ext(self) -> np.ndarray:
        return self.ext_pat + self.ext_base

    @property
    def loc(self) -> np.ndarray:
        return self.loc_pat + self.loc_base


@dataclass
class Channel:
    direction: str
    number: int
    queue: list[Transfer] = field(default_factory=list)   # waiting or running, in order
    free: int = 0            # first cycle the channel can start its next transfer
    busy: int = 0            # cycles spent moving data (utilisation)

    @property
    def name(self) -> str:
        return f"{self.direction}{self.number}"


class DmaEngine:
    def __init__(self, cfg, spec, state):
        self.cfg, self.spec, self.state = cfg, spec, state
        self.channels = {d: [Channel(d, i) for i in range(spec.dma_channels[d])] for d in ("in", "out")}
        self.all = self.channels["in"] + self.channels["out"]
        self.locks = state.locks
        self.lock_max = spec.isa.kinds["lockval"].max
        self.pending: list[Transfer] = []        # queued, not yet completed (race checks)
        self.done_time = 0                       # completion of the last transfer
        self._patterns: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.next_event = None                   # earliest cycle something may happen
        # data-memory macro ports the DMA's beats hold, per cycle (ports.py); the core
        # waits for them (stall cause dma_port)
        self.ports = DmaPorts(cfg)
        # (the configuration's attributes are looked up by name: read them once)
        self.setup, self.latency, self.depth = cfg.DMA_SETUP, cfg.EXT_LATENCY, cfg.DMA_QUEUE
        self._extents: dict[tuple, tuple] = {}   # descriptor -> its extent at offsets 0
        # descriptor number -> (its dict, name, extent at offsets 0, pattern): what queue
        # works out of a descriptor, once (the program's descriptors do not change)
        self._bds: dict[int, tuple] = {}
        self.ext_size, self.dm_size = state.ext.size, state.dm.size
        # the state's DMA writes take slices (a traced state's are logged by index arrays)
        self.plain = (type(state).dma_write is AieState.dma_write
                      and type(state).ext_write is AieState.ext_write)

    # --- queueing ----------------------------------------------------------------------

    def pattern(self, key: tuple, d: dict) -> tuple[np.ndarray, np.ndarray, tuple | None]:
        """(external word offsets, data-memory word offsets) of descriptor d's words in
        transfer order (data-memory steps are even byte counts, so words), and the
        strides of views of both memories that hold them (None if a word would be
        written twice: then the last write wins, as index arrays give); cached under
        `key`."""
        pat = self._patterns.get(key)
        if pat is None:
            i2, i1, i0 = np.meshgrid(np.arange(d["n2"]), np.arange(d["n1"]), np.arange(d["n0"]), indexing="ij")
            ext = (i2 * d["s2"] + i1 * d["s1"] + i0).ravel()
            loc = (i2 * d["ls2"] + i1 * d["ls1"] + 2 * i0).ravel()
            ext, loc = ext.astype(np.int64), loc.astype(np.int64) // 2
            views = None
            if ext.size and np.unique(ext).size == ext.size and np.unique(loc).size == loc.size:
                views = ((d["n2"], d["n1"], d["n0"]), (2 * d["s2"], 2 * d["s1"], 2), (d["ls2"], d["ls1"], 2))
            pat = self._patterns[key] = (ext, loc, views)
        return pat

    def queue(self, direction: str, ch: int, bd: int, ext_off: int, loc_off: int, t: int,
              descriptors: list[dict], names: list[str], where: str) -> None:
        """Check and queue a transfer (semantics of DMAIN/DMAOUT, issued at cycle t)."""
        got = self._bds.get(bd)
        if got is None or bd >= len(descriptors) or got[0] is not descriptors[bd]:
            got = self._descriptor(bd, descriptors, names)
        d, name, ext0, pat = got
        (elo, ehi), (llo, lhi) = ext0
        elo, ehi, llo, lhi = elo + ext_off, ehi + ext_off, llo + loc_off, lhi + loc_off
        ext_size, dm_size = self.ext_size, self.dm_size
        if elo < 0 or ehi >= ext_size:
            raise MemoryAccessError(
                f"transfer {name} (ext {d['ext']} + {ext_off}) spans external words {elo}..{ehi}; "
                f"external memory is 0..{ext_size - 1}: the descriptor runs off memory",
                memory="ext", address=elo if elo < 0 else ehi)
        if llo < 0 or lhi >= dm_size or loc_off % 2:
            why = "an odd offset" if loc_off % 2 else "the descriptor runs off memory"
            raise MemoryAccessError(
                f"transfer {name} (loc {d['loc']} + {loc_off}) spans data-memory bytes {llo}..{lhi}; "
                f"data memory is 0..{dm_size - 1}: {why}", memory="dm", address=llo)
        ext, loc, views = pat
        tr = Transfer(direction, ch, bd, name, ext, d["ext"] + ext_off, loc, (d["loc"] + loc_off) // 2,
                      llo, lhi, 2 * ext.size, d["acq"], d["acq_n"], d["rel"], d["rel_n"], t, where, d["n0"],
                      strides=views)
        c = self.channels[direction][ch]
        c.queue.append(tr)
        self.pending.append(tr)
        # only this channel can start something now: every other one started all it
        # could at the last schedule, and nothing has raised a lock since (a raise
        # schedules), so the new transfer's is the only start and next event to add
        if len(c.queue) == 1 or c.queue[-2].start >= 0:
            self._start(c, t)
            head = c.queue[0]
            if head.start >= 0 and (self.next_event is None or head.done < self.next_event):
                self.next_event = head.done

    def _descriptor(self, bd: int, descriptors: list[dict], names: list[str]) -> tuple:
        if bd >= len(descriptors) or not descriptors[bd]:
            raise IllegalOperandError(f"descriptor {bd} is not defined: the program has "
                                      f"{len(descriptors)} (.bd directives, numbered from 0)")
        d = descriptors[bd]
        name = names[bd] if bd < len(names) else f"descriptor {bd}"
        key = (bd, tuple(d.values()))
        ext0 = self._extents.get(key)
        if ext0 is None:                       # (an extent moves with the offsets)
            ext0 = self._extents[key] = extent(d, 0, 0)
        got = self._bds[bd] = (d, name, ext0, self.pattern(key, d))
        return got

    def all_started(self) -> bool:
        """Every queued transfer has started (its beats' ports are claimed)."""
        return all(tr.start >= 0 for tr in self.pending)

    def queue_full(self, direction: str, ch: int) -> bool:
        return len(self.channels[direction][ch].queue) >= self.depth

    # --- time --------------------------------------------------------------------------

    def schedule(self, now: int) -> None:
        """Start, in queue order, every transfer that can start at or after `now` (its
        channel's beats are sequential, so a transfer may start while the previous
        one's data is still landing); recompute the next completion."""
        nxt = None
        for c in self.all:
            q = c.queue
            if not q:
                continue
            if q[-1].start < 0:                    # (they start in order: else all have)
                self._start(c, now)
            head = q[0]
            if head.start >= 0 and (nxt is None or head.done < nxt):
                nxt = head.done
        self.next_event = nxt

    def _start(self, c: Channel, now: int) -> None:
        """Start channel c's waiting transfers, in order, up to one whose lock it cannot
        take yet."""
        setup, latency, locks, ports = self.setup, self.latency, self.locks, self.ports
        for tr in c.queue:
            if tr.start < 0:
                if tr.acq is not None and locks[tr.acq] < tr.acq_n:
                    break                          # in order: later ones wait behind it
                tr.start = max(c.free, tr.queued, now)
                if tr.acq is not None:
                    locks[tr.acq] -= tr.acq_n
                beats, held = ports.beats(tr)
                occ = setup + beats
                tr.beats_end = tr.start + occ
                land = latency if tr.direction == "in" else 0
                tr.done = tr.beats_end + land
                c.busy += occ
                c.free = tr.beats_end
                ports.claim(held, tr.start + setup + land, now)

    def advance(self, t: int) -> None:
        """Complete every transfer whose completion is at or before cycle t, in time order."""
        while self.next_event is not None and self.next_event <= t:
            when = self.next_event
            for c in self.all:
                while c.queue and c.queue[0].start >= 0 and c.queue[0].done == when:
                    self.complete(c, c.queue.pop(0))
            self.schedule(when)

    def complete(self, c: Channel, tr: Transfer) -> None:
        st = self.state
        if st.stored[1] > st.stored[0]:        # deferred core stores land first
            st.flush_stores()
        if tr.strides is not None and self.plain:
            shape, es, ls = tr.strides
            ext = np.ndarray(shape, np.uint16, st.ext, 2 * tr.ext_base, es)
            loc = np.ndarray(shape, np.uint16, st.dm, 2 * tr.loc_base, ls)
            if tr.direction == "in":
                loc[...] = ext
            else:
                ext[...] = loc
        elif tr.direction == "in":
            st.dma_write(tr.loc, st.ext[tr.ext])
        else:
            st.ext_write(tr.ext, st.dm16[tr.loc])
        if tr.rel is not None:
            v = self.locks[tr.rel] + tr.rel_n
            if v > self.lock_max:
                raise IllegalOperandError(
                    f"transfer {tr.name} on channel {c.name} releases l{tr.rel} to {v}; a lock holds "
                    f"0..{self.lock_max} (more releases than acquires?)")
            st.set_lock(tr.rel, v)
        self.pending.remove(tr)
        # an output's data reaches external memory EXT_LATENCY after it was read
        landed = tr.done + (self.latency if tr.direction == "out" else 0)
        self.done_time = max(self.done_time, landed)

    def wait_lock(self, lock: int, n: int, t: int) -> int:
        """The cycle (>= t) at which lock `lock` holds at least n, advancing the engine;
        raises DeadlockError if no transfer will ever release enough."""
        self.advance(t)
        while self.locks[lock] < n:
            if self.next_event is None:
                raise DeadlockError(f"ACQ l{lock}, {n} waits forever: l{lock} = {self.locks[lock]} and "
                                    f"no running or queued transfer can release it. {self.describe()}")
            t = max(t, self.next_event)
            self.advance(t)
        return t

    def wait_queue(self, direction: str, ch: int, t: int) -> int:
        """The cycle (>= t) at which the channel has room for one more transfer."""
        self.advance(t)
        c = self.channels[direction][ch]
        while len(c.queue) >= self.depth:
            if self.next_event is None:
                raise DeadlockError(f"channel {c.name} is full and none of its transfers can start. "
                                    f"{self.describe()}")
            t = max(t, self.next_event)
            self.advance(t)
        return t

    def drain(self, t: int) -> int:
        """Run every remaining transfer to completion (the core has stopped at cycle t);
        returns the cycle the last one completes. Raises DeadlockError if some never can."""
        self.advance(t)
        while self.next_event is not None:
            self.advance(self.next_event)
        stuck = [c for c in self.all if c.queue]
        if stuck:
            raise DeadlockError("the program ended with transfers that can never start. "
                                + self.describe())
        return max(t, self.done_time)

    def stop(self, t: int) -> None:
        """The run failed at cycle t (the failing bundle's, or the stop's): the DMA starts
        no transfer after it and takes no lock; a transfer started by then runs to its
        completion (its beats are under way: rtl/aie's DMA cannot call back a request).
        Those scheduled to start later are dropped, their channel time with them. (A
        deadlock is found with the engine run dry: nothing is left to drop or run.)"""
        try:
            self.advance(t)
            dropped = set()
            for c in self.all:
                for tr in c.queue:
                    if not 0 <= tr.start <= t:
                        if tr.start >= 0:
                            c.busy -= tr.beats_end - tr.start
                        dropped.add(id(tr))
                c.queue[:] = [tr for tr in c.queue if id(tr) not in dropped]
            self.pending[:] = [tr for tr in self.pending if id(tr) not in dropped]
            self.schedule(t)                   # (starts nothing: every queued one has)
            while self.next_event is not None:
                self.advance(self.next_event)
        except SimError:
            pass        # a release past a lock's maximum: the run has already failed

    def describe(self) -> str:
        parts = []
        for c in self.all:
            if not c.queue:
                continue
            head = c.queue[0]
            if head.start < 0 and head.acq is not None:
                state = f"waits to acquire l{head.acq} ({head.acq_n}; value {self.locks[head.acq]})"
            else:
                state = f"running, completes at cycle {head.done}"
            parts.append(f"channel {c.name}: {head.name} (queued by {head.where}) {state}"
                         + (f", {len(c.queue) - 1} more queued" if len(c.queue) > 1 else ""))
        locks = ", ".join(f"l{i}={v}" for i, v in enumerate(self.locks) if v)
        return ("DMA: " + ("; ".join(parts) if parts else "all channels idle")
                + f"; locks: {locks or 'all 0'}")

    # --- races -------------------------------------------------------------------------

    def check(self, lo: int, hi: int, write: bool) -> None:
        """Raise RaceError if the core's access to bytes lo..hi overlaps a pending transfer
        that owns them (any transfer into data memory; a transfer out of it, for writes)."""
        for tr in self.pending:
            if lo <= tr.hi and tr.lo <= hi and (write or tr.direction == "in"):
                what = "writes" if tr.direction == "in" else "reads"
                raise RaceError(
                    f"the core {'stores to' if write else 'loads from'} data-memory bytes {lo}..{hi} while "
                    f"DMA transfer {tr.name} on channel {tr.direction}{tr.channel} (queued by {tr.where}) "
                    f"still {what} bytes {tr.lo}..{tr.hi} (it completes at cycle {tr.done if tr.done >= 0 else '?'}); "
                    "wait for it first (ACQ on its release lock)", memory="dm", address=lo)
