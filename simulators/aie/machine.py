"""AieModel: the aie functional + timing model, a simulators.core Backend.

One bundle issues per cycle, in program order, unless it must wait (README "Timing
model"): for a register it reads or writes that is not ready yet (data_hazard), for a
lock an ACQ needs (dma_wait), for room in a DMA channel's queue (dma_queue). A bundle
whose memory operations hit one data-memory bank more than once takes a cycle more per
extra access (bank_conflict); an access waits while a DMA beat holds its data-memory
port (dma_port, ports.py). The DMA engine runs concurrently and is advanced to each
bundle's issue cycle before the bundle executes. Semantics are applied at issue, so
timing never changes results: a mis-scheduled kernel computes the same values in more
cycles.

The timing checks and the operations of each straight-line run of bundles are one
generated Python function (codegen.py); this loop only dispatches runs and closes
hardware loops (the budget, deadline and result are simulators/core/runloop.py's). A loop body whose iterations can run at
once (fastloop.py: contractions; lanewise.py: element-wise and row-wise work) does, with
the same timing. A traced run steps bundle by bundle.
"""
from __future__ import annotations

import time

from kernelcraft.isa.aie.model import get_spec
from kernelcraft.simulators.core.backend import MemoryImage, RunResult
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import ConfigError, SimError
from kernelcraft.simulators.core.runloop import Machine, Run
from kernelcraft.simulators.core.trace import TraceStep

from .dma import DmaEngine
from . import fastloop, lanewise
from .codegen import Compiler, blocks_of
from .predecode import Code, predecode
from .state import AieState
from .tracing import TracingState

STALLS = ("data_hazard", "dma_wait", "dma_queue", "bank_conflict", "dma_port")


def check_config(cfg) -> None:
    if getattr(getattr(cfg, "isa", None), "name", None) != "aie":
        raise ConfigError(f"AieModel needs an aie HardwareConfig (isa.aie.default_config()), got {cfg!r}")
    if cfg.DM_SIZE < cfg.DM_BANKS or cfg.DM_SIZE % 128:
        raise ConfigError(f"aie needs DM_SIZE a multiple of 128 and at least DM_BANKS "
                          f"(got DM_SIZE={cfg.DM_SIZE}, DM_BANKS={cfg.DM_BANKS})")


class AieModel(Machine):
    """Functional model of aie with the README's timing model."""

    name = "aie-model"
    check_config = staticmethod(check_config)

    def start(self, program, config, budget, started, trace, state_class=None,
              dma_class=DmaEngine) -> "_Run":
        spec = get_spec()
        state = (state_class or (TracingState if trace else AieState))(config, spec)
        state.descriptors = list(getattr(program, "descriptors", []))
        state.descriptor_names = list(getattr(program, "descriptor_names", []))
        dma = state.dma = dma_class(config, spec, state)
        state.pending = dma.pending
        if not budget.fast:
            state.defer_macs = False       # every accumulate at its own bundle, as when tracing
        return _Run(program, spec, state, dma, config, budget, started, trace)

    def execute(self, program, image: MemoryImage, config, budget: Budget = Budget(),
                trace: bool = False, state_class=None, dma_class=DmaEngine
                ) -> tuple[RunResult, AieState, DmaEngine, Code | None]:
        """`run`, also returning the state, the DMA engine and the decoded program (None
        if decoding failed). The state and engine are made from `state_class` (default:
        TracingState if traced, else AieState) and `dma_class`: the debugger passes
        subclasses that watch what the run asks of them (inspect.py)."""
        started = time.perf_counter()
        self.check_config(config)
        run = self.start(program, config, budget, started, trace, state_class, dma_class)
        return run.go(self.name, image), run.state, run.dma, run.code


class _Run(Run):
    unit = "bundles"

    def __init__(self, program, spec, state, dma, cfg, budget, started, trace):
        super().__init__(state, budget, started, trace)
        self.program, self.spec, self.dma, self.cfg = program, spec, dma, cfg
        self.code: Code | None = None
        self.stall_counts = dict.fromkeys(STALLS, 0)
        self.spans: list[tuple[int, int]] = []   # runs of bundles executed as one function
        self.runs: list[int] = []                # times each run completed
        self.partial = None                      # (run, bundle) a run stopped at
        self.horizon = 0        # latest register-ready cycle

    def prepare(self, image) -> None:
        self.state.load_image(image)
        self.code = predecode(self.program, self.state, self.cfg, self.spec)

    def where(self, pc, cycle, retired):
        return self.code.where(pc, cycle, retired)

    def creep(self, k, b, tn, retired, count):
        """Bundle by bundle up to the budget's end (inside run k starting at b)."""
        for j in range(b, b + count):
            if j not in self.singles:
                self.singles[j] = self.comp.compile(j, j)
            self.partial = (k, j)
            self.crept = retired
            tn = self.singles[j](tn)
            retired += 1
        self.partial = (k, b + count)
        return b + count, tn, retired

    def execute(self) -> str:
        code = self.code
        st, dma, cfg = self.state, self.dma, self.cfg
        nb = len(code.rows)
        ready = [0] * len(code.units)
        macready = [0] * len(code.units)
        stalls = [0] * len(STALLS)
        horizon = [0]
        trace = self.trace
        comp = self.comp = Compiler(code, st, dma, ready, macready, stalls, horizon, cfg.ACC_FORWARD,
                                    now=trace is not None,
                                    inline=trace is None and self.budget.fast and type(st) is AieState)
        # Straight-line runs of bundles execute as one generated function each; a traced
        # run steps bundle by bundle (each step's changes are recorded on their own).
        spans = [(b, b) for b in range(nb)] if trace is not None or not self.budget.fast \
            else blocks_of(code)
        run_at = [-1] * nb                 # bundle -> number of the run starting there
        for k, (first, _) in enumerate(spans):
            run_at[first] = k
        fns = [None] * len(spans)          # compiled on first use

        def compiled(k):
            fns[k] = comp.compile(*spans[k])
            return fns[k]

        # loop bodies that can run all their iterations at once (fastloop.py, lanewise.py)
        plans = [None] * len(spans)
        if trace is None and st.defer_macs:
            for k, (first, last) in enumerate(spans):
                key = ("fastloop", first, last)
                if key not in code.compiled:
                    code.compiled[key] = (fastloop.plan(code, first, last)
                                          or lanewise.plan(code, first, last))
                plans[k] = code.compiled[key]
        timing: dict[int, object] = {}
        size = [last - first + 1 for first, last in spans]
        # after a run: 0 go on, n > 0 loops end at its last bundle, -1 HALT
        after = [-1 if code.rows[last].halt else code.rows[last].ends for _, last in spans]
        runs = self.runs = [0] * len(spans)
        self.singles: dict[int, object] = {}    # bundle -> its own step (near the budget's end)
        self.spans, self.partial = spans, None
        limit, every = self.limit, self.every
        check_at = self.check_at
        tn = retired = b = 0
        declined = (None, 0)               # the loop (its st.loops entry) a fast-forward declined
        stop = "end"
        k = 0
        try:
            while b < nb:
                k = run_at[b]
                n = size[k]
                # (not while a transfer has yet to claim its data-memory ports: the
                # plans ask ports.may_hold about the ports claimed)
                if plans[k] is not None and st.loops and st.loops[-1][0] == b and \
                        dma.all_started() and \
                        (st.loops[-1] is not declined[0] or len(st.pending) != declined[1]):
                    top = st.loops[-1]
                    trips = top[1]
                    if trips > 1 and retired + trips * n <= limit:
                        if retired + trips * n > check_at:
                            self.check_time(b, tn, retired)
                            check_at = min(retired + trips * n + every, limit)
                        if k not in timing:
                            timing[k] = comp.compile(*spans[k], timing_only=True)
                        st.flush_stores()             # (the plans read data memory)
                        t2 = plans[k].run(st, dma, trips, tn, timing[k])
                        if t2 is not None:
                            tn = t2
                            runs[k] += trips
                            retired += trips * n
                            top[1] = 1
                            st.end_loop()             # the loop is done
                            b = spans[k][1] + 1
                            continue
                        # stepped on; asked again only once a DMA transfer completed (or
                        # was queued): asking each iteration costs
                        declined = (top, len(st.pending))
                if retired + n > check_at:
                    check_at = self.checkpoint(k, b, tn, retired, n)
                tn = (fns[k] or compiled(k))(tn)
                runs[k] += 1
                retired += n
                if trace is not None:
                    trace.append(TraceStep(retired - 1, b, code.lines[b], code.texts[b], st.now,
                                           st.take_changes()))
                ends = after[k]
                b += n
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
            at = comp.failing(e)
            t = st.now
            if at is not None:                  # raised inside a run of bundles: at its bundle
                failed, op, t = at
                retired += failed - spans[k][0]  # (creep's bundles before it included)
                if self.partial is None:
                    self.partial = (k, failed)
                if e.where.index < 0:
                    e.locate(code.where(failed, t, retired, op))
            elif e.where.index < 0:
                e.locate(code.where(b, t, retired))
            else:
                # located by the budget checks; a stop outside a bundle (the budget, the
                # wall clock) happens at the cycle the next bundle would issue: the clock
                # edges the RTL counts until then
                retired = e.where.retired
                t = max(t, e.where.cycle)
            self.horizon = max(max(ready, default=0), horizon[0])
            dma.stop(t)                         # its started transfers still complete
            self._finish(stalls, t, retired)
            raise
        self.horizon = max(max(ready, default=0), horizon[0])
        self._finish(stalls, tn, retired)
        try:
            self.end = dma.drain(max(tn, self.horizon))
        except SimError as e:
            # transfers that can never start: the run still ends when every one that can
            # has completed (the RTL's count waits for its DMA to be quiet)
            self.end = max(self.end, dma.done_time)
            raise e.locate(code.where(nb, tn, retired))
        return stop

    def _finish(self, stalls, t, retired):
        self.stall_counts.update(zip(STALLS, stalls))
        self.t, self.retired = t, retired
        self.end = max(t, self.horizon, self.dma.done_time)

    @property
    def hits(self) -> list[int]:
        """How many times each bundle completed."""
        spans = getattr(self, "spans", [])
        hits = [0] * (spans[-1][1] + 1 if spans else 0)
        for (first, last), n in zip(spans, self.runs):
            for b in range(first, last + 1):
                hits[b] = n
        if self.partial is not None:              # a run stopped at its bundle `stop`
            k, stop = self.partial
            for b in range(spans[k][0], stop):
                hits[b] += 1
        return hits

    def counts(self) -> dict[int, int]:
        # from `hits`: runs of bundles (stepped, compiled or fast-forwarded) and the run stopped in
        return {b: h for b, h in enumerate(self.hits) if h}

    def unit_busy(self) -> dict[str, int]:
        busy = {s.name: 0 for s in self.spec.slots}
        if self.code is not None:
            for row, h in zip(self.code.rows, self.hits):
                if h:
                    for s in row.slots:
                        busy[s] += h
        for c in self.dma.all:
            busy[f"dma_{c.name}"] = c.busy
        return busy

    def cycles(self) -> int:
        return getattr(self, "end", self.t)

    def stalls(self) -> dict[str, int]:
        return dict(self.stall_counts)
