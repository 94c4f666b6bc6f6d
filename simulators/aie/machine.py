"""AieModel: the aie functional + timing model, a simulators.core Backend.

One bundle issues per cycle, in program order, unless it must wait (README "Timing
model"): for a register it reads or writes that is not ready yet (data_hazard), for a
lock an ACQ needs (dma_wait), for room in a DMA channel's queue (dma_queue). A bundle
whose memory operations hit one data-memory bank more than once takes a cycle more per
extra access (bank_conflict). The DMA engine runs concurrently and is advanced to each
bundle's issue cycle before the bundle executes. Semantics are applied at issue, so
timing never changes results: a mis-scheduled kernel computes the same values in more
cycles.
"""
from __future__ import annotations

import gc
import time

from isa.aie.model import get_spec
from simulators.core.backend import MemoryImage, RunResult
from simulators.core.budget import Budget
from simulators.core.errors import BudgetExceeded, ConfigError, SimError, TimeLimitExceeded
from simulators.core.trace import TraceStep

from .dma import DmaEngine
from .codegen import compile_bundles, failing_op
from .predecode import Code, predecode
from .state import AieState
from .tracing import TracingState

STALLS = ("data_hazard", "dma_wait", "dma_queue", "bank_conflict")


def check_config(cfg) -> None:
    if getattr(getattr(cfg, "isa", None), "name", None) != "aie":
        raise ConfigError(f"AieModel needs an aie HardwareConfig (isa.aie.default_config()), got {cfg!r}")
    if cfg.DM_SIZE < cfg.DM_BANKS or cfg.DM_SIZE % 128:
        raise ConfigError(f"aie needs DM_SIZE a multiple of 128 and at least DM_BANKS "
                          f"(got DM_SIZE={cfg.DM_SIZE}, DM_BANKS={cfg.DM_BANKS})")


class AieModel:
    """Functional model of aie with the README's timing model."""

    name = "aie-model"

    def run(self, program, image: MemoryImage, config, budget: Budget = Budget(),
            trace: bool = False) -> RunResult:
        started = time.perf_counter()
        check_config(config)
        spec = get_spec()
        state = (TracingState if trace else AieState)(config, spec)
        state.descriptors = list(getattr(program, "descriptors", []))
        state.descriptor_names = list(getattr(program, "descriptor_names", []))
        dma = state.dma = DmaEngine(config, spec, state)
        state.pending = dma.pending
        run = _Run(state, dma, config, budget, started, trace)
        try:
            state.load_image(image)
            code = predecode(program, state, config, spec)
        except SimError as e:
            return run.result(self.name, None, "error", e)
        collecting = gc.isenabled()
        if trace:
            gc.disable()
        try:
            stop, error = run.execute(code)
        finally:
            if collecting:
                gc.enable()
        return run.result(self.name, code, stop, error)


class _Run:
    def __init__(self, state, dma, cfg, budget, started, trace):
        self.state, self.dma, self.cfg, self.budget, self.started = state, dma, cfg, budget, started
        self.trace: list[TraceStep] | None = [] if trace else None
        self.stalls = dict.fromkeys(STALLS, 0)
        self.t = 0              # the next free issue cycle
        self.retired = 0
        self.hits: list[int] = []
        self.horizon = 0        # latest register-ready cycle

    def execute(self, code: Code) -> tuple[str, SimError | None]:
        st, dma, cfg = self.state, self.dma, self.cfg
        nb = len(code.rows)
        hits = self.hits = [0] * nb
        ready = [0] * len(code.units)
        macready = [0] * len(code.units)
        stalls = [0] * len(STALLS)
        horizon = [0]
        steps, line_maps = compile_bundles(code, st, dma, ready, macready, stalls, horizon,
                                           cfg.ACC_FORWARD)
        # after a bundle: 0 go on, n > 0 loops end here, -1 HALT
        after = [-1 if r.halt else r.ends for r in code.rows]
        trace = self.trace
        limit = self.budget.max_instructions
        every = max(1, self.budget.check_every)
        deadline = self.started + self.budget.wall_seconds
        check_at = min(every, limit)
        tn = retired = b = 0
        stop = "end"
        try:
            while b < nb:
                if retired >= check_at:
                    if retired >= limit:
                        raise BudgetExceeded(
                            f"the program did not finish within {limit} bundles; look for a loop "
                            "that never ends or raise the budget").locate(code.where(b, tn, retired))
                    if time.perf_counter() > deadline:
                        raise TimeLimitExceeded(
                            f"the run exceeded its wall-clock limit of {self.budget.wall_seconds} s "
                            f"after {retired} bundles").locate(code.where(b, tn, retired))
                    check_at = min(retired + every, limit)
                tn = steps[b](tn)
                hits[b] += 1
                retired += 1
                if trace is not None:
                    trace.append(TraceStep(retired - 1, b, code.lines[b], code.texts[b], st.now,
                                           st.take_changes()))
                ends = after[b]
                b += 1
                if ends:
                    if ends < 0:
                        if st.halted:
                            stop = "break"
                            break
                        ends = code.rows[b - 1].ends
                    while ends:
                        if not st.loops:
                            raise SimError("a bundle closes a hardware loop that is not open (a program "
                                           "not made by the assembler?)").locate(
                                               code.where(b - 1, st.now, retired))
                        back = st.end_loop()
                        if back is not None:
                            b = back
                            break
                        ends -= 1
        except SimError as e:
            if e.where.index < 0:
                e.locate(code.where(b, st.now, retired, failing_op(e, b, line_maps)))
            self.horizon = max(max(ready, default=0), horizon[0])
            self._finish(stalls, st.now, retired)
            return "error", e
        self.horizon = max(max(ready, default=0), horizon[0])
        self._finish(stalls, tn, retired)
        try:
            self.end = dma.drain(max(tn, self.horizon))
        except SimError as e:
            e.locate(code.where(nb, tn, retired))
            return "error", e
        return stop, None

    def _finish(self, stalls, t, retired):
        self.stalls.update(zip(STALLS, stalls))
        self.t, self.retired = t, retired
        self.end = max(t, self.horizon, self.dma.done_time)

    def unit_busy(self, code: Code | None) -> dict[str, int]:
        from isa.aie.model import get_spec
        busy = {s.name: 0 for s in get_spec().slots}
        if code is not None:
            for row, h in zip(code.rows, self.hits):
                if h:
                    for s in row.slots:
                        busy[s] += h
        for c in self.dma.all:
            busy[f"dma_{c.name}"] = c.busy
        return busy

    def result(self, backend, code, stop, error) -> RunResult:
        end = getattr(self, "end", self.t)
        return RunResult(backend=backend, memories=self.state.memories(),
                         registers=self.state.registers(), cycles=end, retired=self.retired,
                         unit_busy=self.unit_busy(code), stalls=dict(self.stalls), stop=stop,
                         error=error, trace=self.trace, wall_seconds=time.perf_counter() - self.started)
