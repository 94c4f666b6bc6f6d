"""CoralModel: the coral functional + timing model, a simulators.core Backend.

The run loop calls one compiled function per basic block (compiler.py). A block runs
its fast variant and adds its static cycles when nothing can make it wait, else its
timed variant; a loop block with a plan (loops.py, strips.py) may run many iterations
in one step (never past the instruction budget; not when tracing), and any other
block that branches back to itself runs as one Python loop up to the next budget
check (selfloop.py). The frame around this loop (budgets, deadline, the block the
budget ends in, result) is simulators/core/runloop.py's; errors name the failing
instruction, line, text, cycle and
(for memory faults) address.
"""
from __future__ import annotations

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.errors import ConfigError, SimError, Where
from kernelcraft.simulators.core.runloop import Machine, Run
from kernelcraft.simulators.core.trace import TraceStep

from .compiler import STOP_BREAK, STOP_ECALL, Compiler
from .state import CoralState
from .tables import ACCEL, memory_base
from .timing import VectorTiming


def check_config(cfg) -> None:
    """The model's own requirements on a configuration (isa/coral/hardware.toml)."""
    if getattr(getattr(cfg, "isa", None), "name", None) != ACCEL:
        raise ConfigError(f"CoralModel needs a coral HardwareConfig (isa.coral.default_config()), got {cfg!r}")
    if not 32 <= cfg.VLEN <= 65536:
        raise ConfigError(f"coral needs 32 <= VLEN <= 65536 bits (got VLEN={cfg.VLEN})")
    base = memory_base(cfg, "dtcm")
    if base < cfg.ITCM_SIZE:
        raise ConfigError(f"DTCM_BASE = {base:#x} lies inside ITCM (0..{cfg.ITCM_SIZE - 1:#x}); "
                          f"raise DTCM_BASE to at least ITCM_SIZE = {cfg.ITCM_SIZE:#x}")
    if base % 4 or cfg.ITCM_SIZE % 4 or cfg.DTCM_SIZE % 4:
        raise ConfigError("ITCM_SIZE, DTCM_BASE and DTCM_SIZE must be multiples of 4")
    if base + cfg.DTCM_SIZE > 1 << 32:
        raise ConfigError(f"DTCM ends past 4 GiB (DTCM_BASE {base:#x} + DTCM_SIZE {cfg.DTCM_SIZE:#x})")
    if cfg.DATA_SIZE > cfg.DTCM_SIZE:
        raise ConfigError(f"DATA_SIZE = {cfg.DATA_SIZE} exceeds DTCM_SIZE = {cfg.DTCM_SIZE}")


class CoralModel(Machine):
    """Functional model of coral with the timing model of isa/coral/manual_intro.md."""

    name = "coral-model"
    check_config = staticmethod(check_config)

    def __init__(self, agnostic_ones: bool = True):
        self.agnostic_ones = agnostic_ones

    def start(self, program, config, budget, started, trace) -> "_Run":
        run = _Run(program, config, get_isa(ACCEL), budget, started, trace)
        run.state.agnostic_ones = self.agnostic_ones
        return run


class _Run(Run):
    def __init__(self, program, cfg, isa, budget, started, trace):
        if trace:
            from .tracing import TracingState
            state = TracingState(cfg, len(program.instrs))
        else:
            state = CoralState(cfg, len(program.instrs))
        super().__init__(state, budget, started, trace)
        self.program, self.cfg, self.isa = program, cfg, isa
        self.timing = VectorTiming(cfg)
        self.hits: dict[int, int] = {}
        self.extra_pcs: list[int] = []       # instructions run outside a whole block (cut by a budget or error)
        self.penalties = 0

    def prepare(self, image: MemoryImage) -> None:
        p, cfg = self.program, self.cfg
        if p.accel != ACCEL:
            raise SimError(f"the program was assembled for {p.accel!r}, not {ACCEL!r}")
        if 4 * len(p.instrs) > cfg.ITCM_SIZE:
            raise SimError(f"the program has {len(p.instrs)} instructions ({4 * len(p.instrs)} bytes); ITCM "
                           f"holds ITCM_SIZE = {cfg.ITCM_SIZE} bytes: shorten it (use loops)")
        self.state.load_program_data(p.data)
        self.state.load_image(image)
        self.compiler = Compiler(p, self.state, self.timing, cfg, self.isa, self.trace is not None,
                                 self.budget.fast)

    def where(self, pc: int, cycle: int, retired: int) -> Where:
        ins = self.program.instrs
        if 0 <= pc < len(ins):
            return Where(pc, ins[pc].line, ins[pc].text or ins[pc].mnemonic, cycle, retired)
        return Where(pc, 0, "(end of program)", cycle, retired)

    def execute(self) -> str:
        comp, timing, state = self.compiler, self.timing, self.state
        blocks = comp.blocks
        end = len(self.program.instrs)
        limit = self.limit
        check_at = self.check_at
        hits = self.hits
        trace = self.trace
        fast = self.budget.fast
        t = retired = 0
        pc = self.program.entry
        blk = None
        stop = "end"
        try:
            while pc != end:
                blk = blocks.get(pc) or comp.block(pc)
                size = blk.size
                if retired + size > check_at:
                    check_at = self.checkpoint(blk, pc, t, retired, size)
                if trace is not None:
                    before, issue = state.snapshot(), t
                elif fast and blk.loop is not None:
                    whole = blk.loop.run(t, limit - retired)
                    if whole is not None:         # n iterations ran in one step
                        t, n, nxt = whole
                        hits[pc] = hits.get(pc, 0) + n
                        retired += n * size
                        nxt = pc + size if nxt is None else nxt
                        if nxt != blk.predicted:  # the loop's exit: t includes its penalty
                            self.penalties += blk.penalty
                        pc = nxt
                        continue
                fn = blk.fn
                if fast and blk.sloop is not None and retired + 2 * size <= check_at:
                    t, retired, pc = self.self_loop(blk, t, retired, (check_at - retired) // size)
                    continue
                if fast and fn is not None and (not blk.mem or t >= timing.mem_end):
                    nxt = fn()
                    t += blk.cost
                    if nxt != blk.predicted:
                        t += blk.penalty
                        self.penalties += blk.penalty
                else:
                    nxt, t = (blk.tfn or comp.timed(blk))(t, retired)
                    if nxt != blk.predicted:      # the timed variant's cycles include it already
                        self.penalties += blk.penalty
                if trace is not None:
                    trace.append(TraceStep(retired, pc, self.program.instrs[pc].line,
                                           self.program.instrs[pc].text, issue, state.changes_since(before)))
                hits[pc] = hits.get(pc, 0) + 1
                retired += size
                if nxt < 0:
                    stop = "break" if nxt in (STOP_BREAK, STOP_ECALL) else "end"
                    break
                pc = nxt
        except SimError as e:
            if getattr(e, "loop_start", None) is not None:
                t, retired = e.loop_start
            if e.where.index >= 0 and blk is not None and not e.where.line:
                k = e.where.index - blk.start
                cycle = getattr(e, "fault_cycle", None)      # timed code: waits before it included
                if cycle is None:
                    cycle = t + (blk.prefix[k] if 0 <= k < len(blk.prefix) else 0)
                if 0 <= k < blk.size:
                    self.extra_pcs += range(blk.start, blk.start + k)
                    retired += k
                e.locate(self.where(e.where.index, cycle, retired))
            self.t, self.retired = e.where.cycle, e.where.retired
            raise
        self.t, self.retired = t, retired
        return stop

    def self_loop(self, blk, t: int, retired: int, n: int) -> tuple[int, int, int]:
        """Up to n iterations of a block that branches to itself, in one call
        (selfloop.py): (cycle, retired, next index) after them, as block by block."""
        pc, size = blk.start, blk.size
        untimed = blk.fn is not None and (not blk.mem or t >= self.timing.mem_end)
        try:
            if untimed:
                i, nxt = blk.sloop.fast(n)
                t += i * blk.cost
                if nxt != pc:
                    t += blk.penalty
            else:
                i, nxt, t = blk.sloop.timed(t, retired, n)
        except SimError as e:        # the failing iteration's start, for execute's accounting
            done = getattr(e, "done", 0)
            self.hits[pc] = self.hits.get(pc, 0) + done
            e.loop_start = (t + done * blk.cost if untimed else e.T0, retired + done * size)
            raise
        if nxt != pc:
            self.penalties += blk.penalty
        self.hits[pc] = self.hits.get(pc, 0) + i
        return t, retired + i * size, nxt

    def creep(self, blk, pc: int, t: int, retired: int, count: int) -> tuple[int, int, int]:
        """Run `count` instructions from pc one by one (a budget ends inside a block)."""
        comp, end = self.compiler, len(self.program.instrs)
        for _ in range(count):
            if pc == end:
                break
            blk = comp.block(pc, 1)
            nxt, t = comp.timed(blk)(t, retired)
            self.extra_pcs.append(pc)
            retired += 1
            if nxt < 0:
                break
            pc = nxt
        return pc, t, retired

    def unit_busy(self) -> dict[str, int]:
        """Scalar units: static cycles of the instructions retired (blocks x passes);
        `branch` includes misprediction penalties; `vdispatch`: cycles the scalar core
        spent queueing vector instructions; `vector`: the vector unit's busy cycles."""
        busy = {u: 0 for u in dict.fromkeys(d.unit for d in self.isa.instructions.values()
                                            if not d.unit.startswith("v") or d.unit == "vcfg")}
        busy["vdispatch"] = 0
        comp = getattr(self, "compiler", None)
        if comp is not None:
            for start, h in self.hits.items():
                for unit, c in comp.block(start).busy.items():
                    busy[unit] = busy.get(unit, 0) + h * c
            for pc in self.extra_pcs:
                for unit, c in comp.block(pc, 1).busy.items():
                    busy[unit] = busy.get(unit, 0) + c
        busy["branch"] = busy.get("branch", 0) + self.penalties
        busy["vector"] = self.timing.busy
        return busy

    def counts(self) -> dict[int, int]:
        # Whole blocks in `hits` (block by block, loop plans, self loops: each adds its
        # iterations there) and single instructions in `extra_pcs`, as unit_busy counts
        # them. Blocks may overlap (a jump into the middle of one starts another there).
        comp, counts = getattr(self, "compiler", None), {}
        get = counts.get
        if comp is not None:
            for start, h in self.hits.items():
                if h:
                    blk = comp.block(start)
                    for pc in range(blk.start, blk.start + blk.size):
                        counts[pc] = get(pc, 0) + h
        for pc in self.extra_pcs:
            counts[pc] = get(pc, 0) + 1
        return counts

    def memories(self) -> dict:
        return self.state.memories(self.program.words)

    def cycles(self) -> int:
        return self.timing.total(self.t)

    def stalls(self) -> dict[str, int]:
        return {"vq_full": self.timing.full_stall, "vector_sync": self.timing.sync_stall}
