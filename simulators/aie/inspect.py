"""What a debugger shows of an aie run beyond registers and memories, per bundle: the
slots it fills, the cycles it stalled before issuing and why (data hazard, DMA wait,
DMA queue, bank conflict, DMA port), the registers or lock it waited for, and the DMA engine
(every channel's transfers with their cycles, the locks) as it stood after it.

    result, info = traced_run(program, image, cfg, budget)
    info.records[k].stalls        # cycles bundle k waited, per cause (machine.STALLS)
    info.dma[k]                   # the DMA engine after bundle k
    info.stalls_before(k)         # the run's stall counters after k bundles

The run is the model's own traced run (AieModel.execute), with a state and a DMA
engine that watch what they are asked: `access` (the banks a bundle touched),
`take_changes` (the end of a bundle), `wait_lock` and `wait_queue` (the cycles a
bundle waited for DMA). So the numbers are the model's,
not a second timing model; the stall totals after the last bundle equal RunResult.stalls.
What this reads of the model: AieState.bank_shift/.dma/.locks/.descriptors,
TracingState.take_changes, DmaEngine.all/.wait_lock/.wait_queue (Channel.queue,
Transfer fields), Code.rows (Row.reads/.macr/.writes/.slots/.mem) and Code.units.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernelcraft.isa.aie.model import get_spec
from kernelcraft.simulators.core.backend import MemoryImage, RunResult
from kernelcraft.simulators.core.budget import Budget

from . import machine
from .dma import DmaEngine
from .predecode import Code
from .tracing import TracingState

STALLS = machine.STALLS


@dataclass(frozen=True)
class TransferView:
    """One queued or running DMA transfer, as it stood at a bundle."""

    channel: str            # "in0", "out1", ...
    name: str               # the descriptor's name
    nbytes: int
    queued: int             # cycle it was queued
    start: int              # cycle it started (-1: not yet, waiting for its channel or lock)
    beats_end: int          # last beat (-1 until started)
    done: int               # data landed / read (-1 until started)
    acq: int | None         # lock it acquires before starting, and how much
    acq_n: int
    rel: int | None         # lock it releases when done
    rel_n: int
    where: str              # the DMAIN/DMAOUT that queued it

    def progress(self, now: int) -> tuple[str, float]:
        """(phase, fraction of its beats moved) at cycle `now`: phase is "waiting",
        "queued" (started later), "moving", "landing" (beats done, data in flight) or
        "done"."""
        if self.start < 0:
            return "waiting", 0.0
        if now < self.start:
            return "queued", 0.0
        if now < self.beats_end:
            return "moving", (now - self.start) / max(1, self.beats_end - self.start)
        return ("landing", 1.0) if now < self.done else ("done", 1.0)


@dataclass(frozen=True)
class BundleRecord:
    """How one issued bundle fared: its stall cycles per cause (before it issued, and
    the bank-conflict cycles it added after), and in words what it waited for."""

    stalls: tuple[int, ...]          # in STALLS order
    waited: str                      # "" if it issued without waiting


@dataclass
class Inspection:
    code: Code | None
    records: list[BundleRecord]      # one per trace step
    dma: list[tuple[TransferView, ...]]   # the channels' transfers after each bundle
    channels: tuple[str, ...]
    slots: tuple[str, ...]
    cumulative: np.ndarray           # (steps + 1, len(STALLS)): stall counters after k bundles
    slot_uses: np.ndarray            # (steps + 1, len(slots)): bundles issued with each slot filled

    def stalls_before(self, k: int) -> dict[str, int]:
        """The run's stall counters after k bundles (k = steps: the whole run)."""
        return dict(zip(STALLS, self.cumulative[k].tolist()))

    def slots_used_before(self, k: int) -> dict[str, int]:
        return dict(zip(self.slots, self.slot_uses[k].tolist()))

    def program_slots(self) -> dict[str, int]:
        """Bundles of the program (not of the run) that fill each slot."""
        out = dict.fromkeys(self.slots, 0)
        for row in self.code.rows if self.code else ():
            for s in row.slots:
                out[s] += 1
        return out

    def bundle_slots(self, b: int) -> tuple[str, ...]:
        """Slot names bundle b fills, in its operations' order."""
        return tuple(self.code.rows[b].slots) if self.code and 0 <= b < len(self.code.rows) else ()


class _WatchedDma(DmaEngine):
    def __init__(self, *args):
        super().__init__(*args)
        self.waits = [0, 0, 0, 0]    # dma_wait, dma_queue, dma_port before / after issue
        self.waited_for = ""
        wait = self.ports.core_wait

        def core_wait(st, accesses, t):
            t2, holds = wait(st, accesses, t)
            self.waits[2] += t2 - t
            self.waits[3] += len(holds)
            return t2, holds
        self.ports.core_wait = core_wait

    def _waited(self, cause: int, what: str, t: int, t2: int) -> int:
        if t2 > t:
            self.waits[cause] += t2 - t
            self.waited_for = what
        return t2

    def wait_lock(self, lock, n, t):
        return self._waited(0, f"lock l{lock} to reach {n} (ACQ)", t, super().wait_lock(lock, n, t))

    def wait_queue(self, direction, ch, t):
        return self._waited(1, f"room in DMA channel {direction}{ch}'s queue", t,
                            super().wait_queue(direction, ch, t))


class _WatchingState(TracingState):
    def __init__(self, cfg, spec):
        super().__init__(cfg, spec)
        self.touched_banks: list[int] = []
        self.ended: list[tuple] = []        # per bundle: (dma_wait, dma_queue, bank extra, what, dma)
        self._last_dma: tuple = ()

    def access(self, a, n, align, write):
        a = super().access(a, n, align, write)
        self.touched_banks.append(a >> self.bank_shift)
        return a

    def take_changes(self):
        banks, self.touched_banks = self.touched_banks, []
        extra = max(banks.count(k) for k in banks) - 1 if len(banks) > 1 else 0
        dma = self.dma
        transfers = tuple(TransferView(c.name, tr.name, tr.nbytes, tr.queued, tr.start, tr.beats_end,
                                       tr.done, tr.acq, tr.acq_n, tr.rel, tr.rel_n, tr.where)
                          for c in dma.all for tr in c.queue)
        if transfers == self._last_dma:
            transfers = self._last_dma              # one tuple shared by the bundles between changes
        self._last_dma = transfers
        self.ended.append((dma.waits[0], dma.waits[1], extra, dma.waited_for, transfers,
                           dma.waits[2], dma.waits[3]))
        dma.waits = [0, 0, 0, 0]
        dma.waited_for = ""
        return super().take_changes()


def traced_run(program, image: MemoryImage, cfg, budget: Budget = Budget()
               ) -> tuple[RunResult, Inspection]:
    """AieModel().run(..., trace=True), and what each bundle waited for and left the DMA
    engine doing."""
    result, state, dma, code = machine.AieModel().execute(program, image, cfg, budget, True,
                                                           _WatchingState, _WatchedDma)
    if len(state.ended) != len(result.trace or []):
        # what this module reads of the run loop (module docstring) has changed
        raise RuntimeError(f"simulators/aie/inspect.py: the traced run recorded {len(result.trace or [])} "
                           f"bundles but ended {len(state.ended)} through take_changes; the run loop "
                           "no longer takes each bundle's changes once, so inspect.py must follow it")
    return result, _inspection(code, result.trace or [], state.ended, dma, get_spec())


def _unit_names(code: Code) -> dict[int, str]:
    return {flat: f"{f}{i}" for (f, i), flat in code.units.items()}


def _inspection(code, steps, ended, dma, spec) -> Inspection:
    slots = tuple(s.name for s in spec.slots)
    n = len(steps)
    per_step = np.zeros((n, len(STALLS)), dtype=np.int64)
    uses = np.zeros((n, len(slots)), dtype=np.int64)
    records, snapshots = [], []
    names = _unit_names(code) if code else {}
    index = {s: i for i, s in enumerate(slots)}
    ready: dict[int, int] = {}
    macready: dict[int, int] = {}
    fwd = dma.cfg.ACC_FORWARD
    prev_end = 0                      # earliest issue cycle of the next bundle
    for k, step in enumerate(steps[:len(ended)]):
        dmaw, dmaq, extra, what, transfers, port, held = ended[k]
        row = code.rows[step.pc]
        data = step.cycle - prev_end - dmaw - dmaq - port
        per_step[k] = (data, dmaw, dmaq, extra, port + held)
        waits = []
        if data > 0:
            # the registers whose results it waited for (the scoreboard's ready times)
            t_data = step.cycle - dmaw - dmaq - port
            regs = [names.get(u, str(u)) for u in row.reads if ready.get(u, 0) == t_data]
            regs += [names.get(u, str(u)) for u in row.macr if macready.get(u, 0) == t_data]
            regs += [names.get(u, str(u)) for u, lat, _ in row.writes
                     if ready.get(u, 0) - lat + 1 == t_data]
            waits.append(f"{data} cycle(s) for " + (", ".join(dict.fromkeys(regs)) or "a register")
                         + " (data hazard)")
        if dmaw or dmaq:
            waits.append(f"{dmaw + dmaq} cycle(s) for {what}")
        if port or held:
            waits.append(f"{port + held} cycle(s) for data-memory ports DMA beats held")
        records.append(BundleRecord((data, dmaw, dmaq, extra, port + held), "; ".join(waits)))
        snapshots.append(transfers)
        for u, lat, f in row.writes:
            ready[u] = step.cycle + lat
            macready[u] = step.cycle + fwd if f else step.cycle + lat
        for s in row.slots:
            uses[k, index[s]] = 1
        prev_end = step.cycle + 1 + extra + held
    cumulative = np.zeros((n + 1, len(STALLS)), dtype=np.int64)
    np.cumsum(per_step, axis=0, out=cumulative[1:])
    slot_uses = np.zeros((n + 1, len(slots)), dtype=np.int64)
    np.cumsum(uses, axis=0, out=slot_uses[1:])
    return Inspection(code, records, snapshots, tuple(c.name for c in dma.all), slots,
                      cumulative, slot_uses)
