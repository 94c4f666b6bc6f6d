"""CoralRTL: the coral RTL (rtl/coral) under Verilator, a simulators.core Backend like
CoralModel.

A run checks the program as the model does (same errors, before any simulation) and
that the RTL implements every instruction in it, lays out DTCM with the model's own
loader, writes the job's files and runs the cached simulator through cocotb: the
harness loads everything through coral_top's host port, the clock runs in C, and the
registers, the touched DTCM words and the counters come back in files. `run_many`
runs several jobs on one configuration in a single simulator process.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from kernelcraft.isa.loader import get_isa
from kernelcraft.simulators.core.backend import Job, MemoryImage, RunResult
from kernelcraft.simulators.core.budget import Budget
from kernelcraft.simulators.core.errors import (BudgetExceeded, ConfigError, SimError,
                                                TimeLimitExceeded, Where)
from kernelcraft.simulators.core.program import Program
from kernelcraft.simulators.core.runloop import budget_exceeded
from kernelcraft.simulators.coral.semantics.vector_segment import FIRST_FAULT
from kernelcraft.simulators.coral.state import CoralState, IllegalInstruction
from kernelcraft.simulators.coral.tables import ACCEL
from kernelcraft.simulators.rtl import jobrun, toolchain

from . import build as rtl_build
from .jobs import JobInput, read_job, write_job

# Error codes of rtl/coral/coral_core.v.
E_MEM, E_JUMP, E_CSR, E_ILLEGAL, E_BUDGET, E_CYCLES, E_HALT, E_FRM, E_VEC, E_VUNSUP, E_VPEND = range(1, 12)
STOPS = {0: "end", 1: "break", 2: "error"}
UNITS = ("alu", "branch", "lsu", "mul", "div", "csr", "system", "fpu", "fdiv", "vcfg", "vdispatch",
         "vector")
# What the RTL implements so far: RV32IMF and the CSRs, and of Zve32f the vector
# instructions rtl/coral/coral_vdec.v decodes (at SEW = 32; the widening and narrowing
# integer ones and vnclip(u) at SEW = 8 and 16, vzext/vsext.vf2 at 16 and 32; the integer element-wise
# ones, fixed point, divides, compares, reductions, merges, moves, the mask instructions and loads/stores
# of any EEW at 8 and 16 too, 8/16-bit unit-stride loads from word-aligned addresses; indexed and
# segment accesses, fault-only-first loads; add-with-carry and subtract-with-borrow). That is every
# instruction of isa/coral today; the check below refuses one added to the ISA before the RTL has it.
EXTENSIONS = ("RV32I", "M", "F", "Zicsr")
_FP_VV_VF = ("vfadd", "vfsub", "vfmul", "vfmin", "vfmax", "vfsgnj", "vfsgnjn", "vfsgnjx", "vfmacc",
             "vfnmacc", "vfmsac", "vfnmsac", "vfmadd", "vfnmadd", "vfmsub", "vfnmsub")
_INT = ("vadd", "vsub", "vrsub", "vand", "vor", "vxor", "vsll", "vsrl", "vsra", "vminu", "vmin",
        "vmaxu", "vmax")
_MASK_LOGIC = ("vmand", "vmnand", "vmandn", "vmor", "vmnor", "vmorn", "vmxor", "vmxnor")
_MUL = ("vmul", "vmulh", "vmulhu", "vmulhsu", "vmacc", "vnmsac", "vmadd", "vnmsub", "vdivu", "vdiv", "vremu", "vrem")
_CMP = ("vmfeq", "vmfne", "vmflt", "vmfle", "vmfgt", "vmfge", "vmseq", "vmsne", "vmsltu", "vmslt",
        "vmsleu", "vmsle", "vmsgtu", "vmsgt")
_WIDEN = tuple(f"{n}.{f}" for n in ("vwaddu", "vwadd", "vwsubu", "vwsub") for f in ("vv", "vx", "wv", "wx")) + \
    tuple(f"{n}.{f}" for n in ("vwmulu", "vwmulsu", "vwmul", "vwmaccu", "vwmacc", "vwmaccsu") for f in ("vv", "vx")) + \
    ("vwmaccus.vx",)
_NARROW = tuple(f"{n}.{f}" for n in ("vnsrl", "vnsra") for f in ("wv", "wx", "wi"))
_EXTEND = ("vzext.vf2", "vsext.vf2", "vzext.vf4", "vsext.vf4")
_WRED = ("vwredsumu.vs", "vwredsum.vs")                 # SEW 8 and 16 only
_MEM_8_16 = tuple(f"{k}{w}.v" for k in ("vle", "vse", "vlse", "vsse") for w in (8, 16))
_WHOLE = tuple(f"vl{n}re{w}.v" for n in (1, 2, 4, 8) for w in (8, 16, 32)) + tuple(f"vs{n}r.v" for n in (1, 2, 4, 8)) + \
    tuple(f"vmv{n}r.v" for n in (1, 2, 4, 8))
_FIXED = tuple(m for m, d in get_isa(ACCEL).instructions.items() if d.group == "rvv_fixed")   # all of them
# the indexed loads and stores (not the segment ones), at any SEW and offset width
_INDEXED = tuple(m for m, d in get_isa(ACCEL).instructions.items() if d.group == "rvv_memory" and
                 d.format.name in ("VLX", "VSX"))
# the segment loads and stores (every addressing mode, fault-only-first too) and vle<eew>ff.v
_SEGMENT = tuple(m for m, d in get_isa(ACCEL).instructions.items() if d.group == "rvv_segment" or
                 (d.group == "rvv_memory" and FIRST_FAULT.match(m)))
# vadc, vsbc, vmadc, vmsbc (every form, SEW 8, 16, 32)
_CARRY = tuple(m for m, d in get_isa(ACCEL).instructions.items() if d.group == "rvv_carry")
VECTOR = frozenset({*_FIXED, *_CARRY, *_INDEXED, *_SEGMENT, *_WIDEN, *_NARROW, *_WRED, *_EXTEND, *_MEM_8_16, *_WHOLE, "vfclass.v", "vfrec7.v", "vfrsqrt7.v", "vlm.v", "vsm.v","vsetvli", "vsetivli", "vsetvl", "vle32.v", "vse32.v", "vlse32.v", "vsse32.v",
                    "vfrsub.vf", "vmv.v.v", "vmv.v.x", "vmv.v.i", "vfmv.v.f", "vfmv.f.s", "vfmv.s.f",
                    "vmv.x.s", "vmv.s.x", "vfredusum.vs", "vfredosum.vs", "vfredmax.vs", "vfredmin.vs",
                    "vredsum.vs", "vredand.vs", "vredor.vs", "vredxor.vs", "vredminu.vs", "vredmin.vs",
                    "vredmaxu.vs", "vredmax.vs",
                    "vfdiv.vv", "vfdiv.vf", "vfrdiv.vf", "vfsqrt.v", "vfcvt.xu.f.v", "vfcvt.x.f.v",
                    "vfcvt.f.xu.v", "vfcvt.f.x.v", "vfcvt.rtz.xu.f.v", "vfcvt.rtz.x.f.v",
                    "vslideup.vx", "vslideup.vi", "vslidedown.vx", "vslidedown.vi", "vslide1up.vx",
                    "vslide1down.vx", "vfslide1up.vf", "vfslide1down.vf",
                    "vmerge.vvm", "vmerge.vxm", "vmerge.vim", "vfmerge.vfm", "vid.v", "viota.m", "vcpop.m",
                    "vfirst.m", "vmsbf.m", "vmsif.m", "vmsof.m", "vrgather.vv", "vrgather.vx", "vrgather.vi",
                    "vrgatherei16.vv",
                    "vcompress.vm",
                    *(f"{n}.mm" for n in _MASK_LOGIC), *(f"{n}.{f}" for n in _MUL for f in ("vv", "vx")),
                    *(f"{n}.{f}" for n in _FP_VV_VF for f in ("vv", "vf")),
                    *(f"{n}.{f}" for n in _INT + _CMP for f in ("vv", "vx", "vi", "vf")
                      if f"{n}.{f}" in get_isa(ACCEL).instructions)})
UNLIMITED = (1 << 64) - 1


class CoralRTL:
    """The coral RTL (rtl/coral) on Verilator. `max_cycles` stops a run at that many
    cycles with a BudgetExceeded error; `keep` keeps each run's job directory."""

    name = "coral-rtl"

    def __init__(self, simulator: str = "verilator", max_cycles: int | None = None,
                 keep: Path | None = None, bulk: bool = False):
        if simulator not in rtl_build.SIMULATORS:
            raise ConfigError(f"the coral RTL runs on {', '.join(rtl_build.SIMULATORS)} only; "
                              f"got simulator {simulator!r}")
        self.simulator = simulator
        self.max_cycles = max_cycles
        self.keep = Path(keep) if keep else None
        self.bulk = bulk          # the C++ driver instead of cocotb (simulators/rtl/bulk.py)
        self.last_build: toolchain.Build | None = None

    def build_state(self, config) -> toolchain.BuildState:
        return jobrun.build_state(rtl_build.spec(config), self.simulator, self.bulk)

    def run(self, program: Program, image: MemoryImage, config, budget: Budget = Budget(),
            trace: bool = False) -> RunResult:
        return self.run_many([Job(program, image, budget, trace)], config)[0]

    def run_many(self, jobs: list, config) -> list[RunResult]:
        started = time.perf_counter()
        rtl_build.check_config(config)
        isa = get_isa(ACCEL)
        results: list[RunResult | None] = [None] * len(jobs)
        prepared = []
        base = Path(tempfile.mkdtemp(prefix="coral-rtl-", dir=self.keep))
        try:
            for i, job in enumerate(jobs):
                n = len(job.program.instrs)
                state = CoralState(config, n)
                try:
                    _check_program(job.program, config, isa)
                    state.load_program_data(job.program.data)
                    state.load_image(job.image)
                except SimError as e:
                    results[i] = _early_failure(self.name, state, job.program, e, started)
                    continue
                write_job(base / f"job{len(prepared)}", JobInput(
                    list(job.program.words), state.mem, list(state.x), list(state.f), 4 * n,
                    job.budget.max_instructions,
                    self.max_cycles if self.max_cycles is not None else UNLIMITED, job.trace,
                    32 * config.VLEN // 32))
                prepared.append((i, job, state))
            if prepared:
                b = jobrun.build(rtl_build.spec(config), self.simulator, self.bulk)
                self.last_build = b
                jobrun.run_jobs(b, base, [f"+coral_dir={base}"], len(prepared),
                                [j.budget.wall_seconds for _, j, _ in prepared])
                for n, (i, job, state) in enumerate(prepared):
                    results[i] = self._result(base / f"job{n}", job, state, config, started)
        finally:
            if self.keep is None:
                shutil.rmtree(base, ignore_errors=True)
        return results

    def _result(self, directory: Path, job: Job, state: CoralState, cfg, started) -> RunResult:
        out = read_job(directory, cfg.DTCM_SIZE)
        s = out.state
        num = lambda key, k=0: int(s[key][k])
        stop = STOPS[num("stop")]
        retired = num("retired")
        cycles = num("cycles")
        error = None
        if stop == "error":
            pc = num("err_pc") // 4
            if num("err_code") == E_CYCLES:
                cycles = num("err_cycle")
            error = _error(num("err_code"), pc, num("err_addr"), job, state, self.max_cycles,
                           num("err_cycle"), retired)
            error = error.locate(_where(job.program, pc, num("err_cycle"), retired))
        x0, f0 = list(state.x), list(state.f)
        state.x = [int(v, 16) for v in s["x"]]
        state.f = [int(v, 16) for v in s["f"]]
        state.fc = [num("fcsr", 0), num("fcsr", 1)]
        state.vxrm, state.vxsat = num("fcsr", 2), num("fcsr", 3)
        state.mem[:] = out.dtcm
        state.vreg[:] = np.array([int(v, 16) for v in s["v"]], dtype=np.uint32).view(np.uint8)
        state.set_vtype(num("vcfg", 1), num("vcfg", 0))
        busy = _no_busy()
        busy.update(zip(UNITS, (int(v) for v in s["unit_busy"])))
        trace = None
        if job.trace:
            from .trace import read_trace
            trace = read_trace(directory, job.program, x0, f0, cfg.VLEN // 8)
        return RunResult(
            backend=self.name, memories=state.memories(job.program.words),
            registers=state.registers(), cycles=cycles, retired=retired, unit_busy=busy,
            stalls={"vq_full": num("stalls", 0), "vector_sync": num("stalls", 1)}, stop=stop,
            error=error, trace=trace,
            wall_seconds=time.perf_counter() - started)


def _where(program: Program, pc: int, cycle: int, retired: int) -> Where:
    ins = program.instrs
    if 0 <= pc < len(ins):
        return Where(pc, ins[pc].line, ins[pc].text or ins[pc].mnemonic, cycle, retired)
    return Where(pc, 0, "(end of program)", cycle, retired)


def _check_program(program: Program, cfg, isa) -> None:
    """The model's program checks, and that the RTL has every instruction."""
    if program.accel != ACCEL:
        raise SimError(f"the program was assembled for {program.accel!r}, not {ACCEL!r}")
    if 4 * len(program.instrs) > cfg.ITCM_SIZE:
        raise SimError(f"the program has {len(program.instrs)} instructions ({4 * len(program.instrs)} "
                       f"bytes); ITCM holds ITCM_SIZE = {cfg.ITCM_SIZE} bytes: shorten it (use loops)")
    for pc, ins in enumerate(program.instrs):
        d = isa.instructions.get(ins.mnemonic)
        where = f"instruction {pc} (line {ins.line}) `{ins.text or ins.mnemonic}` cannot run on it"
        if d is None or (d.extension not in EXTENSIONS and d.mnemonic not in VECTOR):
            ext = d.extension if d is not None else "unknown"
            raise ConfigError(
                f"the coral RTL implements {', '.join(EXTENSIONS)} and part of Zve32f so far, not "
                f"{ins.mnemonic} ({ext}): {where}; run this program on the functional model")


def _no_busy() -> dict[str, int]:
    """The model's unit_busy keys, in its order (CoralModel.unit_busy), all 0."""
    isa = get_isa(ACCEL)
    units = dict.fromkeys(d.unit for d in isa.instructions.values()
                          if not d.unit.startswith("v") or d.unit == "vcfg")
    return {u: 0 for u in units} | {"vdispatch": 0, "vector": 0}


def _early_failure(backend, state, program, error, started) -> RunResult:
    return RunResult(backend=backend, memories=state.memories(program.words),
                     registers=state.registers(), cycles=0, retired=0,
                     unit_busy=_no_busy(), stalls={"vq_full": 0, "vector_sync": 0},
                     stop="error", error=error, wall_seconds=time.perf_counter() - started)


def _error(code: int, pc: int, addr: int, job: Job, state: CoralState, max_cycles, cycle: int,
           retired: int) -> SimError:
    ins = job.program.instrs[pc] if 0 <= pc < len(job.program.instrs) else None
    mnemonic = ins.mnemonic if ins else ""
    if code == E_MEM:
        base = mnemonic.removeprefix("f")                  # flw, fsw: word accesses
        size = {"b": 1, "h": 2, "w": 4}[base[1]]
        return state.bad_access(pc, addr, size, "store" if base.startswith("s") else "load")
    if code == E_JUMP:
        why = "is not a multiple of 4" if addr & 3 else \
            f"is outside the program (0..0x{4 * state.end_pc:x}; 0x{4 * state.end_pc:x} ends the run)"
        return SimError(f"jump target 0x{addr:08x} {why}")
    if code == E_CSR:
        # The model's own CSR rules name the problem: replay the access (err_addr holds
        # its source operand) on the model's CSR file.
        from kernelcraft.simulators.coral.semantics.system import System
        from kernelcraft.simulators.coral.timing import VectorTiming
        word = job.program.words[pc]
        op = "wsc"[((word >> 12) & 3) - 1]
        try:
            System(state, VectorTiming(state.cfg)).csr(pc, word >> 20, op, addr, cycle, retired)
        except SimError as e:
            return e
        return IllegalInstruction(f"the RTL refused CSR 0x{word >> 20:03x} (the model allows this access)")
    if code == E_FRM:
        from kernelcraft.simulators.coral.semantics.system import System
        from kernelcraft.simulators.coral.state import FRM
        from kernelcraft.simulators.coral.timing import VectorTiming
        state.fc[FRM] = addr
        try:
            System(state, VectorTiming(state.cfg)).frm(pc)
        except SimError as e:
            return e
    if code == E_VEC:
        return _model_error(job, state, pc)
    if code == E_VUNSUP:
        raise ConfigError(
            f"the coral RTL's vector unit does not yet run instruction {pc} (line {ins.line if ins else 0}) "
            f"`{(ins.text or ins.mnemonic) if ins else ''}` at the SEW it ran with; at SEW 8 and 16 it runs the "
            "integer element-wise operations, fixed point, multiplies, divides, compares, reductions, merges, moves, slides, "
            "vrgather, vcompress, vid, viota, the mask instructions, widening and narrowing, but not vrgatherei16 or "
            "the fp instructions (SEW 32 only); loads and stores of any EEW at any SEW; an indexed load whose "
            "destination overlaps its offsets' group other than as RVV allows (vd = vs2 with SEW <= the offsets' "
            "width, or the offsets in the highest part of a wider destination) is a reserved encoding it refuses; "
            "run this program on the functional model")
    if code == E_VPEND:
        raise ConfigError(
            f"the coral RTL checks a masked vector access's elements one by one (some of its addresses are "
            f"outside DTCM or misaligned) only when no earlier vector instruction is still computing v0: "
            f"instruction {pc} (line {ins.line if ins else 0}) `{(ins.text or ins.mnemonic) if ins else ''}` "
            "met one that was; run this program on the functional model")
    if code == E_ILLEGAL:
        return IllegalInstruction(f"the RTL's decoder rejects word 0x{job.program.words[pc]:08x}")
    if code == E_BUDGET:
        return budget_exceeded(job.budget.max_instructions)
    if code == E_CYCLES:
        return BudgetExceeded(
            f"the program did not finish within the RTL run's cycle budget of {max_cycles} cycles; "
            "look for a loop that never ends or raise the cycle budget")
    if code == E_HALT:
        return TimeLimitExceeded(f"the run exceeded its wall-clock limit of {job.budget.wall_seconds} s")
    return SimError(f"the coral RTL stopped with unknown error code {code}")


def _model_error(job: Job, state: CoralState, pc: int) -> SimError:
    """A vector instruction the RTL's dispatch checks rejected: the model's semantics
    name the problem (its kind, message and address); the model must stop there too."""
    from kernelcraft.simulators.coral.machine import CoralModel
    r = CoralModel().run(job.program, job.image, state.cfg, job.budget)
    if r.error is not None and r.error.where.index == pc:
        return r.error
    return SimError(f"the RTL's vector unit rejected instruction {pc}, which the model "
                    f"{'ran' if r.error is None else f'did not reach (it stopped at {r.error.where.index})'}")
