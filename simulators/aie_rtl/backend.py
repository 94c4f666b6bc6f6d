"""AieRTL: the aie RTL (rtl/aie) under Verilator, a simulators.core Backend like AieModel.

A run decodes the program exactly as the functional model does (same errors, before
any simulation), writes the job's files, and runs the cached simulator through cocotb:
the harness loads the program and data memory through the tile's host ports, the clock
runs in C, and memory, registers and counters come back through the same ports.
`run_many` runs several jobs on one configuration in a single simulator process.

Every operation and descriptor the model runs is built: `unsupported` refuses a program
(before simulation, naming what is missing) only for a vector operation not in
VECTOR_BUILT, which lists every one the model implements today.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from kernelcraft.isa.aie.model import get_spec
from kernelcraft.simulators.aie.dma import DeadlockError
from kernelcraft.simulators.aie.machine import STALLS, check_config as model_check_config
from kernelcraft.simulators.aie.predecode import Code, decode
from kernelcraft.simulators.aie.state import G_FIELDS, AieState
from kernelcraft.simulators.core.backend import MemoryImage, RunResult
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import (BudgetExceeded, ConfigError, IllegalOperandError,
                                                MemoryAccessError, SimError, TimeLimitExceeded)
from kernelcraft.simulators.numerics import canon
from kernelcraft.simulators.core.backend import Job
from kernelcraft.simulators.core.runloop import budget_exceeded
from kernelcraft.simulators.rtl import jobrun, toolchain

from . import build as rtl_build
from .jobs import JobInput, read_job, write_job

# Error codes of rtl/aie/aie_core.v.
(E_RANGE, E_ALIGN, E_LOOPR, E_DEEP, E_REL, E_DEADLOCK, E_BUDGET, E_CYCLES, E_HALT,
 E_ILLEGAL, E_UNSUPPORTED, E_DMAEXT, E_DMADM, E_DMAREL, E_STUCK) = range(1, 16)
STOPS = {0: "end", 1: "break", 2: "error"}
UNLIMITED = (1 << 64) - 1
# Host register map of aie_core (hr_data).
R0, P0, M0, G0, LOCK0, RM, LOOP0, DEPTH = 0x000, 0x010, 0x018, 0x020, 0x040, 0x050, 0x060, 0x06F
STOP, ERR_CODE, ERR_SLOT, ERR_B, ERR_CYCLE, ERR_ADDR, ERR_VAL, CYCLES, RETIRED, \
    HAZARD, BANK, BUSY = 0x080, 0x081, 0x082, 0x083, 0x084, 0x086, 0x087, 0x088, 0x08A, \
    0x08C, 0x08E, 0x090
DMA_WAIT, DMA_QUEUE, DMA_BUSY, COLLIDE, DMA_PORT = 0x0A0, 0x0A2, 0x0A4, 0x0AC, 0x0AD
CHANNELS = ("in0", "in1", "out0", "out1")


# The vector unit's operations built so far: the lane ALU, bf16 max/min, the fp32 and
# int32 accumulator lanes, the conversions (SRS/UPS), the multiply-accumulate unit, the
# reductions, the function unit and the shuffles.
VECTOR_BUILT = frozenset(f"{op}.{t}" for op in ("VADD", "VSUB", "VMAX", "VMIN") for t in ("I8", "I16")) \
    | {"VAND", "VOR", "VXOR", "VMAX.BF16", "VMIN.BF16", "AADD.I32", "ASUB.I32", "AADD.F32",
       "ASUB.F32", "AMUL.F32", "AMAX.F32"} \
    | {f"{op}.{t}" for op in ("VSRS", "VUPS") for t in ("I8", "I16", "BF16")} \
    | {f"{op}.{t}" for op in ("VMUL", "VMAC", "VMMAC") for t in ("I8", "I16", "BF16")} | {"VMSC.BF16"} \
    | {"AREDADD.F32", "AREDADD.I32", "VREDMAX.BF16", "VPWL.EXP", "VPWL.RCP", "VPWL.RSQRT"} \
    | {"VSHUF", "VALIGN", "VBCL.16"}


def unsupported(program, cfg=None) -> list[str]:
    """What of `program` the RTL does not implement: vector operations outside
    VECTOR_BUILT. (`cfg` is unused: kept for callers.)"""
    spec = get_spec()
    missing = [i.mnemonic for i in program.instrs
               if i.mnemonic in spec.ops and spec.ops[i.mnemonic].slot == "vector"
               and i.mnemonic not in VECTOR_BUILT]
    return list(dict.fromkeys(missing))


class AieRTL:
    """The aie RTL (rtl/aie) on Verilator. `max_cycles` stops a run at that many cycles
    (BudgetExceeded naming the bundle it reached); `keep` keeps each run's job files."""

    name = "aie-rtl"

    def __init__(self, simulator: str = "verilator", max_cycles: int | None = None,
                 keep: Path | None = None, bulk: bool = False):
        if simulator not in rtl_build.SIMULATORS:
            raise ConfigError(f"the aie RTL runs on {' or '.join(rtl_build.SIMULATORS)}; got "
                              f"simulator {simulator!r}")
        self.simulator = simulator
        self.max_cycles = max_cycles
        self.keep = Path(keep) if keep else None
        self.bulk = bulk          # the C++ driver instead of cocotb (simulators/rtl/bulk.py)
        self.last_build: toolchain.Build | None = None

    def build_state(self, config) -> toolchain.BuildState:
        return jobrun.build_state(rtl_build.spec(config, self.simulator), self.simulator, self.bulk)

    def run(self, program, image: MemoryImage, config, budget: Budget = Budget(),
            trace: bool = False) -> RunResult:
        return self.run_many([Job(program, image, budget, trace)], config)[0]

    def run_many(self, jobs: list[Job], config) -> list[RunResult]:
        started = time.perf_counter()
        model_check_config(config)
        rtl_build.check_config(config)
        spec = get_spec()
        results: list[RunResult | None] = [None] * len(jobs)
        prepared = []                     # (index, job, code, state)
        base = Path(tempfile.mkdtemp(prefix="aie-rtl-", dir=self.keep))
        try:
            for i, job in enumerate(jobs):
                state = AieState(config, spec)
                try:
                    state.load_image(job.image)
                    code = decode(job.program, config, spec)
                    missing = unsupported(job.program, config)
                    if missing:
                        raise ConfigError(f"the aie RTL does not implement {', '.join(missing)} yet "
                                          "(an operation newer than the RTL); run this kernel on "
                                          "the functional model")
                except SimError as e:
                    results[i] = self._early(state, e, started)
                    continue
                write_job(base / f"job{len(prepared)}", JobInput(
                    list(job.program.words), state.dm, job.budget.max_instructions,
                    self.max_cycles if self.max_cycles is not None else UNLIMITED, job.trace,
                    state.ext, list(getattr(job.program, "descriptors", []))))
                prepared.append((i, job, code, state))
            if prepared:
                b = jobrun.build(rtl_build.spec(config, self.simulator), self.simulator, self.bulk)
                self.last_build = b
                jobrun.run_jobs(b, base, [f"+aie_dir={base}"], len(prepared),
                                [j.budget.wall_seconds for _, j, _, _ in prepared])
                for n, (i, job, code, state) in enumerate(prepared):
                    results[i] = self._result(base / f"job{n}", job, code, state, config, started)
        finally:
            if self.keep is None:
                shutil.rmtree(base, ignore_errors=True)
        return results

    def _early(self, state, error, started) -> RunResult:
        spec = get_spec()
        busy = {s.name: 0 for s in spec.slots} | {f"dma_{d}{c}": 0 for d in ("in", "out")
                                                  for c in range(2)}
        return RunResult(backend=self.name, memories=state.memories(),
                         registers=state.registers(), cycles=0, retired=0, unit_busy=busy,
                         stalls=dict.fromkeys(STALLS, 0), stop="error", error=error,
                         wall_seconds=time.perf_counter() - started)

    def _result(self, directory, job, code: Code, state: AieState, cfg, started) -> RunResult:
        out = read_job(directory)
        reg = out.regs
        s32 = lambda v: ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000
        u64 = lambda k: reg[k] | reg[k + 1] << 32
        spec = get_spec()
        stop = STOPS[reg[STOP]]
        retired = u64(RETIRED)
        depth = reg[DEPTH]
        registers = {
            "r": [s32(reg[R0 + i]) for i in range(16)],
            "p": [s32(reg[P0 + i]) for i in range(8)],
            "m": [s32(reg[M0 + i]) for i in range(8)],
            "g": [dict(zip(G_FIELDS + ("C1", "C2"), (s32(reg[G0 + 7 * k + f]) for f in range(7))))
                  for k in range(4)],
            "x": out.x, "acc": out.acc, "acc_f32": canon(out.acc.view(np.float32).copy()),
            "RM": reg[RM], "locks": [reg[LOCK0 + i] for i in range(16)],
            "LOOPS": [[reg[LOOP0 + 2 * k], reg[LOOP0 + 2 * k + 1]] for k in range(depth)],
        }
        busy = {s.name: u64(BUSY + 2 * k) for k, s in enumerate(spec.slots)}
        busy |= {f"dma_{c}": u64(DMA_BUSY + 2 * k) for k, c in enumerate(CHANNELS)}
        stalls = dict.fromkeys(STALLS, 0) | {"data_hazard": u64(HAZARD), "bank_conflict": u64(BANK),
                                             "dma_wait": u64(DMA_WAIT), "dma_queue": u64(DMA_QUEUE),
                                             "dma_port": u64(DMA_PORT)}
        error = None
        if stop == "error":
            error = self._error(reg, code, job, cfg, retired)
        elif reg[COLLIDE]:
            stop = "error"
            error = SimError("two DMA beats met on one data-memory macro port in one cycle (the "
                             "RTL arbitrates only between the core and the DMA, and the model's "
                             "DMA timing has no such stall): keep the buffers of transfers that "
                             "run at once in separate banks"
                             ).locate(code.where(max(len(code.rows) - 1, 0), u64(CYCLES), retired))
        state.dm[:] = out.dm[:state.dm.size]
        state.ext[:] = 0
        state.ext[:out.ext.size] = out.ext
        trace = None
        if job.trace:
            from .trace import read_trace
            trace = read_trace(directory, code)
        return RunResult(backend=self.name, memories=state.memories(), registers=registers,
                         cycles=u64(CYCLES), retired=retired, unit_busy=busy, stalls=stalls,
                         stop=stop, error=error, trace=trace,
                         wall_seconds=time.perf_counter() - started)

    def _error(self, reg, code: Code, job, cfg, retired) -> SimError:
        c, b = reg[ERR_CODE], reg[ERR_B]
        slot = reg[ERR_SLOT]
        cycle = reg[ERR_CYCLE] | reg[ERR_CYCLE + 1] << 32
        addr = ((reg[ERR_ADDR] + 0x80000000) & 0xFFFFFFFF) - 0x80000000
        val = ((reg[ERR_VAL] + 0x80000000) & 0xFFFFFFFF) - 0x80000000
        op = None
        info = None
        if b < len(code.rows) and slot < 6:
            name = code.slot_names[slot]
            row = code.rows[b]
            if name in row.slots:
                op = row.slots.index(name)
                ins = job.program.bundle_ops(b)[op]
                info = get_spec().ops[ins.mnemonic]
        # the run's end with transfers that can never start: where the model's drain
        # names it, after the last bundle
        where = code.where(len(code.rows) if c == E_STUCK else b, cycle, retired, op)
        if c in (E_RANGE, E_ALIGN):
            n, align = info.bytes, info.align
            if c == E_RANGE:
                e = MemoryAccessError(
                    f"data-memory access {addr}..{addr + n - 1} ({n} bytes) is outside data memory "
                    f"(0..{cfg.DM_SIZE - 1}); check the pointer", memory="dm", address=addr)
            else:
                e = MemoryAccessError(f"data-memory address {addr} is not a multiple of {align} "
                                      f"(this operation moves {n} bytes)", memory="dm", address=addr)
        elif c == E_LOOPR:
            e = IllegalOperandError(f"LOOPR trip count = {val}; a loop runs at least once (set r "
                                    "to 1 or more, or skip the loop)")
        elif c == E_DEEP:
            e = IllegalOperandError(f"hardware loops nest deeper than LOOP_DEPTH={cfg.LOOP_DEPTH}; "
                                    "close an inner loop first")
        elif c == E_REL:
            e = IllegalOperandError(f"REL would make a lock {val}; a lock holds 0..63")
        elif c in (E_DMAEXT, E_DMADM):
            name = f"descriptor in {job.program.bundle_ops(b)[op].text}" if op is not None else "a transfer"
            if c == E_DMAEXT:
                e = MemoryAccessError(f"transfer ({name}) reaches external word {addr}; external memory is "
                                      f"0..{cfg.EXT_SIZE - 1}: the descriptor runs off memory",
                                      memory="ext", address=addr)
            else:
                e = MemoryAccessError(f"transfer ({name}) reaches data-memory byte {addr}; data memory is "
                                      f"0..{cfg.DM_SIZE - 1} (or its offset is odd)",
                                      memory="dm", address=addr)
        elif c == E_DMAREL:
            e = IllegalOperandError("a DMA transfer's release takes a lock above 63 (more releases "
                                    "than acquires?)")
        elif c == E_DEADLOCK:
            e = DeadlockError("the bundle waits forever: its ACQ's lock is too small (or its DMA "
                              "queue full) and no running or queued transfer can change that")
        elif c == E_STUCK:
            e = DeadlockError("the program ended with transfers that can never start (each waits "
                              "for a lock no one will release)")
        elif c == E_BUDGET:
            e = budget_exceeded(job.budget.max_instructions, "bundles")
        elif c == E_CYCLES:
            e = BudgetExceeded(f"the program did not finish within the RTL run's cycle budget of "
                               f"{self.max_cycles} cycles; look for a loop that never ends or "
                               "raise the cycle budget")
        elif c == E_HALT:
            e = TimeLimitExceeded(f"the run exceeded its wall-clock limit of "
                                  f"{job.budget.wall_seconds} s after {retired} bundles")
        else:
            e = SimError(f"the RTL reports an illegal or unsupported bundle (error code {c}); the "
                         "program's encoding and the RTL's decoder disagree")
        return e.locate(where)
