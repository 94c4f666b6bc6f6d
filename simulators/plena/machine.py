"""PlenaModel: the plena functional + timing model, a simulators.core Backend.

The run loop walks basic blocks (predecode.py). A block that cannot stall runs its
bound semantics back to back and adds its static cycles; a block that may stall or
issues a DMA runs instruction by instruction through the timing model (timing.py);
tracing runs every instruction that way against a TracingState. Budgets are checked
between blocks, every `check_every` instructions; errors become a RunResult with the
failing instruction located and the state reached so far.
"""
from __future__ import annotations

import gc
import time

from isa.loader import get_isa
from simulators.core.backend import MemoryImage, RunResult
from simulators.core.budget import Budget
from simulators.core.errors import BudgetExceeded, ConfigError, SimError, TimeLimitExceeded
from simulators.core.program import Program
from simulators.core.trace import TraceStep

from .predecode import CHECK, DMA, FAST, PLAIN, SRAM, Code, predecode
from .state import PlenaState
from .timing import Timing
from .tracing import TracingState


def check_config(cfg) -> None:
    """The model's own requirements on a configuration (README "Machine state")."""
    if getattr(getattr(cfg, "isa", None), "name", None) != "plena":
        raise ConfigError(f"PlenaModel needs a plena HardwareConfig "
                          f"(isa.plena.default_config()), got {cfg!r}")
    if cfg.VLEN != cfg.MLEN:
        raise ConfigError(f"plena needs VLEN == MLEN (got VLEN={cfg.VLEN}, MLEN={cfg.MLEN})")
    for p in ("BLEN", "HLEN"):
        if getattr(cfg, p) > cfg.MLEN:
            raise ConfigError(f"plena needs {p} <= MLEN (got {p}={getattr(cfg, p)}, "
                              f"MLEN={cfg.MLEN})")


class PlenaModel:
    """Functional model of plena with the README's timing model."""

    name = "plena-model"

    def run(self, program: Program, image: MemoryImage, config, budget: Budget = Budget(),
            trace: bool = False) -> RunResult:
        started = time.perf_counter()
        check_config(config)
        isa = get_isa("plena")
        counts = {k.prefix: k.count for k in isa.register_kinds()}
        state = (TracingState if trace else PlenaState)(config, counts)
        timing = Timing(config)
        run = _Run(state, timing, budget, started, trace)
        try:
            state.load_image(image)
            code = predecode(program, state, config, isa, trace)
        except SimError as e:
            return run.result(self.name, None, 0, 0, "error", e, isa)
        collecting = gc.isenabled()
        if trace:
            # a trace is millions of small acyclic objects: spare the cyclic collector
            # from rescanning them over and over (it roughly halves traced run time)
            gc.disable()
        try:
            stop, error = run.execute(code)
        finally:
            if collecting:
                gc.enable()
        return run.result(self.name, code, run.t, run.retired, stop, error, isa)


class _Run:
    def __init__(self, state, timing, budget, started, trace):
        self.state, self.timing, self.budget, self.started = state, timing, budget, started
        self.trace: list[TraceStep] | None = [] if trace else None
        self.t = 0
        self.retired = 0
        self.hits: list[int] = []
        self.partial = None          # (block, instructions retired in it) when stopped inside

    def execute(self, code: Code) -> tuple[str, SimError | None]:
        self.code = code
        rows, block_at = code.rows, code.block_at
        hits = self.hits = [0] * len(rows)
        nb = len(rows)
        timing, footprint = self.timing, self.state.footprint
        trace, state = self.trace, self.state
        limit = self.budget.max_instructions
        every = max(1, self.budget.check_every)
        deadline = self.started + self.budget.wall_seconds
        check_at = min(every, limit)
        fast = self.budget.fast
        t = retired = b = 0
        fn = flow = None
        start = size = 0
        stop = "end"
        try:
            while b < nb:
                fns, flow, body_cycles, flow_cycles, size, mode, start = rows[b]
                if retired + size > check_at:
                    if time.perf_counter() > deadline:
                        self.partial = (b, 0)
                        raise TimeLimitExceeded(
                            f"the run exceeded its wall-clock limit of {self.budget.wall_seconds}"
                            f" s after {retired} instructions").locate(
                                code.where(start, t, retired))
                    if retired + size > limit:
                        keep = limit - retired
                        t = self.slow(b, t, retired, keep)
                        retired += keep
                        self.partial = (b, keep)
                        raise BudgetExceeded(
                            f"the program did not finish within {limit} instructions; look "
                            "for a loop that never ends (e.g. a loop counter changed in its "
                            "body) or raise the budget").locate(code.where(start + keep, t, retired))
                    check_at = min(retired + every, limit)
                if fast and (mode == FAST or (mode == CHECK and t >= timing.horizon)):
                    for fn in fns:
                        fn()
                    t += body_cycles
                    if mode:
                        footprint.clear()
                else:
                    t = self.slow(b, t, retired)
                nxt = None
                if flow is not None:
                    fn = flow
                    nxt = fn()
                    if trace is not None:
                        pc = start + size - 1
                        trace.append(TraceStep(retired + size - 1, pc, code.lines[pc],
                                               code.texts[pc], t, state.take_changes()))
                    t += flow_cycles
                hits[b] += 1
                retired += size
                if nxt is None:
                    b += 1
                elif nxt < 0:
                    stop = "break"
                    break
                else:
                    b = block_at[nxt]
        except SimError as e:
            if e.where.index < 0:           # raised by a fast-path or flow instruction
                i = code.pc_of[id(fn)] - start
                if fn is not flow:
                    t += code.blocks[b].prefix[i]
                e.locate(code.where(start + i, t, retired + i))
                self.partial = (b, i)
            self.t, self.retired = e.where.cycle, e.where.retired
            return "error", e
        self.t, self.retired = t, retired
        return stop, None

    def slow(self, b: int, t: int, retired: int, count: int | None = None) -> int:
        """Run the body of block `b` (its first `count` instructions) one by one through
        the timing model; record trace steps when tracing. Returns the next issue cycle."""
        code = self.code
        blk = code.blocks[b]
        items = blk.items if count is None else blk.items[:count]
        timing, footprint = self.timing, self.state.footprint
        trace = self.trace
        for i, (fn, kind, cycles) in enumerate(items):
            issue = t
            try:
                fn()
            except SimError as e:
                self.partial = (b, i)
                raise e.locate(code.where(blk.start + i, issue, retired + i))
            if kind == PLAIN:
                t += cycles
            elif kind == SRAM:
                if t < timing.horizon:
                    t = timing.wait(t, footprint)
                footprint.clear()
                t += cycles
            else:
                t = timing.transfer(t, footprint)
                footprint.clear()
                t += cycles
            if trace is not None:
                pc = blk.start + i
                trace.append(TraceStep(retired + i, pc, code.lines[pc], code.texts[pc], issue,
                                       self.state.take_changes()))
        return t

    def unit_busy(self, code: Code | None, isa) -> dict[str, int]:
        busy = {u: 0 for u in dict.fromkeys(d.unit for d in isa.instructions.values())}
        if code is not None:
            for blk, h in zip(code.blocks, self.hits):
                if h:
                    for unit, c in blk.busy.items():
                        busy[unit] += h * c
            if self.partial is not None:
                blk = code.blocks[self.partial[0]]
                for pc in range(blk.start, blk.start + self.partial[1]):
                    if code.kinds[pc] != DMA:
                        busy[code.units[pc]] += code.cycles[pc]
        busy["dma"] = self.timing.channel_busy
        return busy

    def result(self, backend, code, t, retired, stop, error, isa) -> RunResult:
        return RunResult(
            backend=backend, memories=self.state.memories(), registers=self.state.registers(),
            cycles=self.timing.cycles(t + (stop == "error" and code is not None)),
            retired=retired, unit_busy=self.unit_busy(code, isa),
            stalls={"dma_wait": self.timing.stall}, stop=stop, error=error, trace=self.trace,
            wall_seconds=time.perf_counter() - self.started)
