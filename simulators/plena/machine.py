"""PlenaModel: the plena functional + timing model, a simulators.core Backend.

The run loop walks basic blocks (predecode.py). A block that cannot stall runs its
bound semantics (fastvec.py's closures where there are some) back to back and adds its
static cycles; a block that may stall or issues a DMA runs instruction by instruction
through the timing model (timing.py), each instruction that cannot stall by its fast
closure and one that may by that closure noting its footprint (fastvec.noting);
tracing runs every instruction that way against a TracingState. The frame around this
loop (budgets, deadline, errors, result) is simulators/core/runloop.py's.
"""
from __future__ import annotations

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.core.errors import ConfigError, IllegalOperandError, SimError
from kernelcraft.simulators.core.program import Program
from kernelcraft.simulators.core.runloop import Machine, Run
from kernelcraft.simulators.core.trace import TraceStep

from . import lanes, loopbatch
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


class PlenaModel(Machine):
    """Functional model of plena with the README's timing model."""

    name = "plena-model"
    check_config = staticmethod(check_config)

    def start(self, program, config, budget, started, trace) -> "_Run":
        return _Run(program, config, budget, started, trace)


class _Run(Run):
    def __init__(self, program: Program, config, budget, started, trace):
        self.isa = get_isa("plena")
        counts = {k.prefix: k.count for k in self.isa.register_kinds()}
        super().__init__((TracingState if trace else PlenaState)(config, counts), budget,
                         started, trace)
        self.program, self.config = program, config
        self.timing = Timing(config)
        self.code: Code | None = None
        self.hits: list[int] = []
        self.partial = None          # (block, instructions retired in it) when stopped inside
        self.late_unit = None        # unit of an instruction stopped by a step-1 check

    def prepare(self, image) -> None:
        self.state.load_image(image)
        self.code = predecode(self.program, self.state, self.config, self.isa,
                              self.trace is not None)

    def where(self, pc, cycle, retired):
        return self.code.where(pc, cycle, retired)

    def creep(self, b, pc, t, retired, count):
        t = self.slow(b, t, retired, count)
        self.partial = (b, count)
        return pc + count, t, retired + count

    def execute(self) -> str:
        code = self.code
        fast = self.budget.fast
        rows, block_at = code.rows if fast else code.ref_rows, code.block_at
        hits = self.hits = [0] * len(rows)
        nb = len(rows)
        # loop bodies that can run all their iterations at once (loopbatch.py)
        batches = [blk.batch if fast else None for blk in code.blocks]
        # blocks that may stall whose rows are known at entry (predecode.Block.touched)
        touched = [blk.touched if fast else None for blk in code.blocks]
        gp = self.state.gp
        declined = [False] * nb
        at_least = loopbatch.MIN_INSTRUCTIONS[lanes.module() is not None]
        timing, footprint = self.timing, self.state.footprint
        trace, state = self.trace, self.state
        check_at = self.check_at
        t = retired = b = 0
        fn = flow = None
        start = size = 0
        stop = "end"
        try:
            while b < nb:
                fns, flow, body_cycles, flow_cycles, size, mode, start = rows[b]
                batch = batches[b]
                if batch is not None and not declined[b] and t >= timing.horizon and \
                        state.loops and state.loops[-1] == start:
                    trips = state.gp[batch.counter]
                    n = trips * size
                    if trips > 1 and n >= at_least and retired + n <= self.limit:
                        if retired + n > check_at:
                            self.check_time(start, t, retired)
                            check_at = min(retired + n + self.every, self.limit)
                        if batch.run(state, trips):
                            t += trips * (body_cycles + flow_cycles)
                            hits[b] += trips
                            retired += n
                            b += 1
                            continue
                        declined[b] = True      # for this loop: asking each iteration costs
                if retired + size > check_at:
                    self.partial = (b, 0)
                    check_at = self.checkpoint(b, start, t, retired, size)
                    self.partial = None
                if fast and (mode == FAST or mode == CHECK and (
                        t >= timing.horizon or touched[b] is not None
                        and timing.settled(t, gp, touched[b]))):
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
                    declined[b] = False         # (its loop, if it ended one, is done)
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
                    t += self._late(start + i, e)     # (a fast block never stalls)
                e.locate(code.where(start + i, t, retired + i))
                self.partial = (b, i)
            self.t, self.retired = e.where.cycle, e.where.retired
            raise
        self.t, self.retired = t, retired
        return stop

    def slow(self, b: int, t: int, retired: int, count: int | None = None) -> int:
        """Run the body of block `b` (its first `count` instructions) one by one through
        the timing model; record trace steps when tracing. Returns the next issue cycle."""
        code = self.code
        blk = code.blocks[b]
        items = blk.items if count is None else blk.items[:count]
        timing, footprint = self.timing, self.state.footprint
        trace = self.trace
        fast = self.budget.fast
        for i, (fn, kind, cycles, quick, noted) in enumerate(items):
            issue = t
            if fast:
                if kind == PLAIN or (kind == SRAM and t >= timing.horizon):
                    fn = quick              # cannot stall: its footprint is not needed
                elif noted is not None:
                    fn = noted              # may stall or is a transfer: the fast path
                                            # noting its footprint
            try:
                fn()
            except SimError as e:
                self.partial = (b, i)
                if blk.start + i in code.late and self._late(blk.start + i, e):
                    if kind == SRAM and t < timing.horizon:
                        issue = timing.wait(t, footprint)    # it starts after any stall
                    footprint.clear()
                    issue += 1
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

    def _late(self, pc: int, e: SimError) -> int:
        """1 when `e` is a check the RTL makes in the instruction's step 1 (V_TOPK's NaN
        logit: Code.late); the instruction then occupied its unit for its issue cycle."""
        if pc in self.code.late and isinstance(e, IllegalOperandError):
            self.late_unit = self.code.units[pc]
            return 1
        return 0

    def unit_busy(self) -> dict[str, int]:
        code = self.code
        busy = {u: 0 for u in dict.fromkeys(d.unit for d in self.isa.instructions.values())}
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
        if self.late_unit is not None:
            busy[self.late_unit] += 1
        busy["dma"] = self.timing.channel_busy
        return busy

    def counts(self) -> dict[int, int]:
        # Every path (batched loop, back-to-back block, stepping) counts whole blocks in
        # `hits` and the block it stopped in as `partial`: the same counts unit_busy uses.
        code, counts = self.code, {}
        get = counts.get
        if code is not None:
            for blk, h in zip(code.blocks, self.hits):
                if h:
                    for pc in range(blk.start, blk.start + blk.size):
                        counts[pc] = get(pc, 0) + h
            if self.partial is not None:
                blk = code.blocks[self.partial[0]]
                for pc in range(blk.start, blk.start + self.partial[1]):
                    counts[pc] = get(pc, 0) + 1
        return counts

    def cycles(self) -> int:
        # a run stopped by an error counts the cycle in which the check failed, as the
        # RTL's clock does (not when the program was refused before its first cycle)
        return self.timing.cycles(self.t + (self.stop == "error" and self.code is not None))

    def stalls(self) -> dict[str, int]:
        return {"dma_wait": self.timing.stall}
