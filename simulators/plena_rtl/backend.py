"""PlenaRTL: the plena RTL under Verilator (or Icarus Verilog), a simulators.core
Backend like PlenaModel.

A run checks the program exactly as the functional model does (same errors, before any
simulation), encodes it, writes the job's files, and runs the cached simulator binary
through cocotb: the harness loads everything at start, the clock runs in C, and the
memories, registers and counters are read back from files at the end. `run_many` runs
several jobs on one configuration in a single simulator process (one start-up).
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.core.backend import Job, MemoryImage, RunResult  # noqa: F401 (Job: re-exported)
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import (BudgetExceeded, ConfigError, IllegalOperandError,
                                                MemoryAccessError, SimError, TimeLimitExceeded,
                                                Where)
from kernelcraft.simulators.core.program import Program
from kernelcraft.simulators.core.runloop import budget_exceeded
from kernelcraft.simulators.plena.assembler import encode
from kernelcraft.simulators.plena.predecode import _operand_values, render
from kernelcraft.simulators.plena.state import MEMORY_TITLES, PlenaState
from kernelcraft.simulators.rtl import jobrun, toolchain

from . import build as rtl_build
from .jobs import ACCUMULATORS, JobInput, f32_of, read_job, write_job

# Error codes and memory numbers of rtl/plena/plena_units.vh and plena_isa.vh.
ERR_RANGE, ERR_ALIGN, ERR_SHIFT, ERR_NAN, ERR_LOOP_DEEP, ERR_LOOP_NONE, ERR_ILLEGAL, \
    ERR_BUDGET, ERR_CYCLES, ERR_HALT = range(1, 11)
STOPS = {0: "end", 1: "break", 2: "error"}
UNLIMITED = (1 << 64) - 1


class PlenaRTL:
    """The plena RTL (rtl/plena) on `simulator`: "verilator" (the default) or "icarus"
    (the same RTL with the Verilog HBM model; far slower, for small configurations).
    `max_cycles` stops a run at that many cycles with a BudgetExceeded error naming the
    instruction it reached; `keep` keeps each run's job directory (files in and out)
    for inspection. `bulk` runs the Verilated model from a C++ driver instead of cocotb
    (simulators/rtl/bulk.py: the same results, several times faster; Verilator only)."""

    name = "plena-rtl"

    def __init__(self, simulator: str = "verilator", max_cycles: int | None = None,
                 keep: Path | None = None, bulk: bool = False):
        if simulator not in rtl_build.SIMULATORS:
            raise ConfigError(f"unknown RTL simulator {simulator!r}; choose one of "
                              f"{', '.join(rtl_build.SIMULATORS)}")
        self.simulator = simulator
        # Icarus has no DPI-C: its build uses the Verilog HBM model and hex files.
        self._hbm = "hex" if simulator == "icarus" else "bin"
        self.max_cycles = max_cycles
        self.keep = Path(keep) if keep else None
        self.bulk = bulk
        self.last_build: toolchain.Build | None = None

    def build_state(self, config) -> toolchain.BuildState:
        """Is the simulator for `config` built, or who is building it now."""
        return jobrun.build_state(rtl_build.spec(config, self.simulator), self.simulator,
                                  self.bulk)

    def run(self, program: Program, image: MemoryImage, config, budget: Budget = Budget(),
            trace: bool = False) -> RunResult:
        return self.run_many([Job(program, image, budget, trace)], config)[0]

    def run_many(self, jobs: list[Job], config) -> list[RunResult]:
        started = time.perf_counter()
        rtl_build.check_config(config)
        isa = get_isa("plena")
        results: list[RunResult | None] = [None] * len(jobs)
        prepared = []                      # (index, job, instruction texts/lines)
        base = Path(tempfile.mkdtemp(prefix="plena-rtl-", dir=self.keep))
        try:
            for i, job in enumerate(jobs):
                state = PlenaState(config, {k.prefix: k.count for k in isa.register_kinds()})
                try:
                    state.load_image(job.image)
                    words, listing = _check_program(job.program, config, isa)
                except SimError as e:
                    results[i] = _early_failure(self.name, state, e, isa, started)
                    continue
                limit = job.budget.max_instructions
                write_job(base / f"job{len(prepared)}", JobInput(
                    words, state.memories(), config.HBM_SIZE,
                    [(a, np.asarray(v).ravel()) for a, v in job.image.writes.get("hbm", {}).items()],
                    limit,
                    self.max_cycles if self.max_cycles is not None else UNLIMITED,
                    job.trace), config, self._hbm)
                prepared.append((i, job, listing))
            if prepared:
                b = jobrun.build(rtl_build.spec(config, self.simulator), self.simulator, self.bulk)
                self.last_build = b
                jobrun.run_jobs(b, base, [f"+plena_dir={base}"], len(prepared),
                                [j.budget.wall_seconds for _, j, _ in prepared])
                for n, (i, job, listing) in enumerate(prepared):
                    results[i] = self._result(base / f"job{n}", job, listing, config, isa,
                                              started)
        finally:
            if self.keep is None:
                shutil.rmtree(base, ignore_errors=True)
        return results

    def _result(self, directory: Path, job: Job, listing, config, isa, started) -> RunResult:
        out = read_job(directory, config, self._hbm)
        s = out.state
        num = lambda key: int(s[key][0])
        stop = STOPS[num("stop")]
        retired = num("retired")
        if num("cycles") != num("clock_edges"):
            raise toolchain.RtlRunError(
                f"the plena core reported {num('cycles')} cycles but the harness counted "
                f"{num('clock_edges')} clock edges from start to done ({directory})")
        error = None
        if stop == "error":
            pc = num("err_pc")
            where = Where(pc, *listing(pc), num("err_cycle"), retired)
            error = _error(num("err_code"), num("err_mem"), _signed68(s["err_addr"][0]),
                           pc, job, config, isa, self.max_cycles).locate(where)
        units = list(dict.fromkeys(d.unit for d in isa.instructions.values()))
        busy = dict(zip(units, (int(v) for v in s["unit_busy"])))
        busy["dma"] = num("chan_busy")
        registers = {
            "gp": [_signed32(int(v, 16)) for v in s["gp"]],
            "f": [f32_of(int(v, 16)) for v in s["f"]],
            "a": [int(v, 16) for v in s["a"]],
        }
        registers.update(zip(("STRIDE", "SCALE_OFFSET", "V_MASK"),
                             (_signed32(int(v, 16)) for v in s["csr"])))
        registers.update(out.accumulators)
        registers["LOOPS"] = [int(v) for v in s.get("loops", [])]
        trace = None
        if job.trace:
            from .trace import read_trace
            trace = read_trace(directory, job.program, config, isa)
        return RunResult(
            backend=self.name, memories=out.memories, registers=registers,
            cycles=num("cycles"), retired=retired, unit_busy=busy,
            stalls={"dma_wait": num("dma_wait")}, stop=stop, error=error, trace=trace,
            wall_seconds=time.perf_counter() - started)


def _signed32(v: int) -> int:
    return ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def _signed68(text: str) -> int:
    v = int(text, 16)
    return v - (1 << 68) if v >> 67 else v


def _check_program(program: Program, cfg, isa):
    """The functional model's program checks (predecode), then the machine words.
    Returns (words, listing) where listing(pc) gives (line, text) for messages."""
    if program.accel != isa.name:
        raise SimError(f"the program was assembled for {program.accel!r}, not {isa.name!r}")
    n = len(program.instrs)
    if n > cfg.IMEM_SIZE:
        raise SimError(f"the program has {n} instructions; instruction memory holds "
                       f"IMEM_SIZE={cfg.IMEM_SIZE}: shorten it (use hardware loops)")
    lines, texts, words = [], [], []
    for pc, instr in enumerate(program.instrs):
        defn = isa.instructions.get(instr.mnemonic)
        text = instr.text or (render(defn, instr.ops) if defn else instr.mnemonic)
        lines.append(instr.line)
        texts.append(text)
        try:
            if defn is None:
                raise IllegalOperandError(f"unknown instruction {instr.mnemonic!r}: plena has "
                                          "no such mnemonic")
            _operand_values(defn, instr)
        except SimError as e:
            raise e.locate(Where(pc, instr.line, text))
        words.append(encode(instr))

    def listing(pc: int) -> tuple[int, str]:
        if pc >= len(lines):
            return 0, "(end of program)"
        return lines[pc], texts[pc]
    return words, listing


def _early_failure(backend, state, error, isa, started) -> RunResult:
    units = dict.fromkeys(d.unit for d in isa.instructions.values())
    return RunResult(backend=backend, memories=state.memories(), registers=state.registers(),
                     cycles=0, retired=0, unit_busy={u: 0 for u in units} | {"dma": 0},
                     stalls={"dma_wait": 0}, stop="error", error=error,
                     wall_seconds=time.perf_counter() - started)


_ALIGN_RULES = {
    ("vsram", "M_MM_WO"): "a multiple of BLEN={BLEN} (M_MM_WO writes a BLEN x BLEN block)",
    ("msram", "M_MM"): "the tile base plus a multiple of BLEN={BLEN} below MLEN={MLEN}",
    ("msram", "M_TMM"): "the tile base plus a multiple of BLEN={BLEN} below MLEN={MLEN}",
}


def _error(code, mem_id, addr, pc, job, cfg, isa, max_cycles) -> SimError:
    memories = list(isa.hardware["memories"])
    memory = memories[mem_id] if 0 <= mem_id < len(memories) else ""
    title = MEMORY_TITLES.get(memory, memory)
    mnemonic = job.program.instrs[pc].mnemonic if pc < len(job.program.instrs) else ""
    sizes = {m: size for m, (size, _) in cfg.memories().items()}
    if code == ERR_RANGE:
        return MemoryAccessError(
            f"{title} address {addr} is outside {memory} (addresses 0..{sizes[memory] - 1}) "
            f"for this operand of {mnemonic}; see its constraints in the manual",
            memory=memory, address=addr)
    if code == ERR_ALIGN:
        rule = _ALIGN_RULES.get((memory, mnemonic))
        if rule is None:
            rule = ("a multiple of MLEN*MLEN={TILE} (this instruction uses a whole tile)"
                    if memory == "msram" else "a multiple of VLEN={VLEN} (vector operands are whole rows)")
        rule = rule.format(TILE=cfg.MLEN * cfg.MLEN, **cfg.as_dict())
        return MemoryAccessError(f"{title} address {addr} is not {rule}", memory=memory,
                                 address=addr)
    if code == ERR_SHIFT:
        return IllegalOperandError(f"V_SHFT_V shift amount {addr} is outside 0..VLEN ({cfg.VLEN})")
    if code == ERR_NAN:
        return IllegalOperandError(f"V_TOPK logit at Vector SRAM address {addr} is NaN",
                                   memory="vsram", address=addr)
    if code == ERR_LOOP_DEEP:
        return IllegalOperandError(
            f"hardware loops nest deeper than LOOP_DEPTH={cfg.LOOP_DEPTH}; close an inner "
            "loop first or restructure the loop nest")
    if code == ERR_LOOP_NONE:
        return IllegalOperandError(
            "C_LOOP_END without an open hardware loop: pair it with an earlier C_LOOP_START")
    if code == ERR_BUDGET:
        return budget_exceeded(job.budget.max_instructions)     # the models' own text
    if code == ERR_CYCLES:
        return BudgetExceeded(
            f"the program did not finish within the RTL run's cycle budget of {max_cycles} "
            "cycles; look for a loop that never ends or raise the cycle budget")
    if code == ERR_HALT:
        return TimeLimitExceeded(
            f"the run exceeded its wall-clock limit of {job.budget.wall_seconds} s")
    return SimError(f"the RTL reports an illegal instruction word (error code {code}); "
                    "the program's encoding and the RTL's decoder disagree")
