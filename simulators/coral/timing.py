"""The coral timing model's vector side (isa/coral/manual_intro.md, "Timing model").

The scalar core's time `T` lives in the run loop and in timed block code; this object
holds what the vector unit needs to remember: the queue of dispatched instructions
that have not started, when the unit is free, and when its last load and store end,
and per vector register when its last writer ends (the scoreboard indexed accesses wait on).
Everything is integers and in order, so a hardware implementation can count the same.

The RTL (rtl/coral/coral_vec.v) is the reference: an instruction holds the unit's issue
stage for its cycles and writes its last register one cycle later, in a write-back
stage that overlaps the next instruction; only the run's end sees that cycle, when the
last instruction writes registers (not a store, not a move to a scalar register).
"""
from __future__ import annotations

from collections import deque

LOAD, STORE = 1, 2
NOWB = 4       # a vector instruction without a register write-back (vfmv.f.s, vmv.x.s, ...)
WSHIFT = 3     # dispatch's `mem` carries the registers written (scoreboard.py) above its kind bits


class VectorTiming:
    def __init__(self, cfg):
        self.depth = cfg.VQ_DEPTH
        self.waiting: deque[int] = deque()   # start cycles of dispatched, not yet started instructions
        self.vend = 0          # cycle the vector unit finishes its last instruction
        self.mem_end = 0       # ... its last load or store
        self.store_end = 0     # ... its last store
        self.wb = 0            # 1: the last instruction writes back a cycle after its end
        self.busy = 0          # cycles the vector unit worked
        self.full_stall = 0    # scalar cycles waiting for a queue slot
        self.sync_stall = 0    # scalar cycles waiting for the vector unit
        self.wait_from = 0     # the cycle the last wait started (a waiting instruction's issue)
        # the cycle each vector register's last writer leaves the issue stage (its write from
        # then on is bypassed): kept only while `scoreboard` (the program has an indexed access,
        # the one reader; compiler.py), else no dispatch carries its written registers
        self.ready = [0] * 32
        self.scoreboard = False

    def dispatch(self, t: int, cycles: int, mem: int = 0) -> int:
        """A vector instruction issued by the scalar core at cycle t that keeps the
        vector unit busy for `cycles`; returns the scalar core's next cycle. `mem` is its
        kind (LOAD, STORE, NOWB) | the registers it writes << WSHIFT."""
        q = self.waiting
        while q and q[0] <= t:
            q.popleft()
        if len(q) >= self.depth:
            start_oldest = q.popleft()
            self.full_stall += start_oldest - t
            t = start_oldest
        start = t + 1 if t + 1 > self.vend else self.vend
        end = start + cycles
        q.append(start)
        self.vend = end
        self.busy += cycles
        self.wb = 0 if mem & (STORE | NOWB) else 1
        if mem & (LOAD | STORE):
            self.mem_end = end
            if mem & STORE:
                self.store_end = end
        w = mem >> WSHIFT
        if w:
            ready = self.ready
            while w:
                low = w & -w
                ready[low.bit_length() - 1] = end
                w ^= low
        return t + 1

    def wait(self, t: int, until: int) -> int:
        self.wait_from = t
        if until > t:
            self.sync_stall += until - t
            return until
        return t

    def sync_load(self, t: int) -> int:
        """A scalar load waits for earlier vector stores."""
        return self.wait(t, self.store_end)

    def sync_store(self, t: int) -> int:
        """A scalar store waits for earlier vector loads and stores."""
        return self.wait(t, self.mem_end)

    def wait_regs(self, t: int, regs: int) -> int:
        """An indexed access waits until no earlier instruction writes `regs` (a mask)."""
        until = 0
        ready = self.ready
        while regs:
            low = regs & -regs
            r = ready[low.bit_length() - 1]
            if r > until:
                until = r
            regs ^= low
        return self.wait(t, until)

    def drain(self, t: int) -> int:
        """Wait until the vector unit has finished everything dispatched."""
        t = self.wait(t, self.vend)
        self.waiting.clear()                 # everything dispatched has started (and ended)
        return t

    def total(self, t: int) -> int:
        return max(t, self.vend + self.wb)
