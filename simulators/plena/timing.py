"""The plena timing model (isa/plena/README.md, "Timing model").

In-order single issue; compute units block until done; one HBM channel moves one
transfer at a time. The run loop keeps the issue cycle `t` and asks this object only
about DMA: `wait` (when may an instruction that touches these SRAM rows/tiles start)
and `transfer` (queue a DMA). `horizon` is the latest ready time of any row or tile, so
once `t >= horizon` nothing can stall and the loop skips the per-row checks entirely.

This is the RTL's DMA engine (rtl/plena/plena_dma.v) counted in cycles: an H_
instruction queues a descriptor at the end of its issue cycle (it waits at issue while
the DMA_QUEUE descriptors of the queue are all taken); the engine starts the oldest one
in the cycle after, once the channel is free and no earlier prefetch still owes data to
its SRAM side, and then requests one beat of HBM_BW elements per cycle.
"""
from __future__ import annotations

from collections import deque

from .state import HBM_WRITE, MSRAM, VSRAM


class Timing:
    def __init__(self, cfg):
        self.bandwidth = cfg.HBM_BW
        self.latency = cfg.HBM_LATENCY
        # ready[VSRAM][row], ready[MSRAM][tile]: first cycle the data may be used
        self.ready = {VSRAM: [0] * cfg.VSRAM_ROWS, MSRAM: [0] * cfg.MSRAM_TILES}
        self.horizon = 0          # max over all ready times
        self.channel_free = 0     # first cycle the HBM channel can start a transfer
        self.done = 0             # completion of the last transfer (data landed in HBM/SRAM)
        self.stall = 0            # DMA stall cycles: SRAM not ready, or the queue full
        self.channel_busy = 0     # cycles the channel moved data
        self.depth = cfg.DMA_QUEUE
        self.queued: deque[int] = deque()   # start cycles of transfers that may be queued

    def wait(self, t: int, footprint) -> int:
        """The cycle at which an instruction issued at `t` that touches `footprint`
        (rows/tiles from the state's checked accessors) can start; counts the stall."""
        start = t
        for space, first, count in footprint:
            if space <= MSRAM:
                ready = self.ready[space]
                r = ready[first] if count == 1 else max(ready[first:first + count])
                if r > start:
                    start = r
        self.stall += start - t
        return start

    def settled(self, t: int, gp: list, touched: list) -> bool:
        """Whether every row and tile of `touched` (fastvec.touches entries, addressed
        through the registers `gp`) is ready by cycle `t`, so that nothing issued from
        `t` on that touches only those can stall. False too for an address that is
        not a row or tile in range: that instruction faults, and is stepped."""
        ready = self.ready
        for space, reg, imm, size in touched:
            a = gp[reg] + imm
            if a < 0 or a % size:
                return False
            r, row = ready[space], a // size
            if row >= len(r) or r[row] > t:
                return False
        return True

    def transfer(self, t: int, footprint) -> int:
        """Queue the DMA of an instruction at issue at `t`: `footprint` holds its SRAM side
        and its HBM side (rows, row length, direction). Returns the cycle it issues in:
        later than `t` while the descriptor queue is full (a DMA stall)."""
        sram = hbm = None
        for entry in footprint:
            if entry[0] <= MSRAM:
                sram = entry
            else:
                hbm = entry
        space, first, count = sram
        kind, rows, length = hbm
        ready = self.ready[space]
        # a descriptor occupies the queue from the cycle after its issue to its start
        queued = self.queued
        while queued and queued[0] < t:
            queued.popleft()
        if len(queued) >= self.depth:
            issue = queued[0] + 1
            self.stall += issue - t
            t = issue
            queued.popleft()
        start = max(t + 1, self.channel_free, max(ready[first:first + count]))
        queued.append(start)
        occupancy = rows * -(-length // self.bandwidth)
        end = start + occupancy
        self.channel_free = end
        self.channel_busy += occupancy
        # a store's source rows are free once read; a prefetch's data lands after latency
        usable = end if kind == HBM_WRITE else end + self.latency
        ready[first:first + count] = [usable] * count
        if usable > self.horizon:
            self.horizon = usable
        if end + self.latency > self.done:
            self.done = end + self.latency
        return t

    def cycles(self, t: int) -> int:
        """Total cycles of a run whose next issue slot is `t`: every transfer completes."""
        return max(t, self.done)
