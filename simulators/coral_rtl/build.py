"""What the coral RTL is built from, and building it for one hardware configuration.

The memory sizes and addresses of a configuration become coral_sim's top-level
parameters, so each configuration is its own simulator binary; simulators/rtl/toolchain
caches builds by their contents and parameters, so an unchanged design is never rebuilt.
Jobs run through simulators/rtl/jobrun.py (cocotb, or the C++ driver in bulk mode), the
job/go/halt/finished protocol coral_sim speaks.
"""
from __future__ import annotations

import functools
from pathlib import Path

from kernelcraft.simulators.core.errors import ConfigError
from kernelcraft.simulators.coral.machine import check_config as model_check_config
from kernelcraft.simulators.rtl import toolchain

ROOT = Path(__file__).resolve().parents[2]
CORAL_RTL = ROOT / "rtl" / "coral"
TOP = "coral_sim"
TIMESCALE = ("1ns", "1ps")
# --timing: coral_sim generates the clock itself; coral_sim marks the few ports cocotb
# drives public, so the rest stays optimisable.
BUILD_ARGS = ("--timing", "-CFLAGS", "-fcoroutines", "--no-public-flat-rw")
SIMULATORS = ("verilator",)
SOURCES = ("coral_sram.v", "coral_sram_dp.v", "coral_fminmax.v", "coral_fcvt.v", "coral_fpu.v",
           "coral_vdec.v", "coral_idiv.v", "coral_frest.v", "coral_vec.v", "coral_core.v", "coral_top.v", "coral_sim.v")
COMMON_RTL = ROOT / "rtl" / "common"
COMMON = ("fp32_round_ieee.v", "fp32_fma.v", "fp32_divsqrt.v",     # shared IEEE binary32 units
          "icg.v")                                                   # and the clock gate
PARAMETERS = ("ITCM_SIZE", "DTCM_BASE", "DTCM_SIZE", "VLEN", "VQ_DEPTH")

# Cycles the pipeline takes per timing class (rtl/coral/coral_core.v's EX stage; JALR
# and a mispredicted branch add the one-cycle bubble of a redirected fetch). The model's
# classes (isa/coral/hardware.toml) must agree: the RTL is the timing reference.
PIPELINE_CYCLES = {"INT": 1, "MUL": 2, "DIV": 33, "LOAD": 2, "STORE": 1, "BRANCH": 1,
                   "JUMP": 1, "JALR": 2, "FENCE": 1, "SYS": 1, "CSR": 1, "FADD": 2, "FMUL": 2,
                   "FMA": 3, "FDIV": 12, "FSQRT": 12, "FCVT": 2, "FMISC": 1,
                   # the vector unit (rtl/coral/coral_vec.v): one beat per cycle in its S1 stage
                   "VSET": 1, "VALU": 1, "VFALU": 1, "VLOAD": 1, "VSTORE": 1, "VLOADS": 1,
                   "VSTORES": 1, "VMOVE": 1, "VFRED": 1, "VRED": 1, "VPERM": 1, "VMASK": 1, "VMUL": 1,
                   # vfdiv/vfrdiv/vfsqrt: NB fp32_divsqrt lanes, 3 clocks of 9 steps, a beat per 8 cycles
                   "VFDIV": 8,
                   # vdiv/vrem: NB coral_idiv lanes, 4 quotient bits per clock, a beat per 8 cycles
                   "VDIV": 8,
                   # vrgather, vcompress: an element per cycle
                   "VGATHER": 1}


def sources() -> tuple[Path, ...]:
    return (*(COMMON_RTL / s for s in COMMON), *(CORAL_RTL / s for s in SOURCES))


def _stamp() -> tuple:
    from . import generate
    st = generate.ISA_VH.stat() if generate.ISA_VH.is_file() else None
    return (st.st_mtime_ns, st.st_size) if st else None


@functools.lru_cache(maxsize=4)
def _stale_header(stamp) -> list[Path]:
    """The generated decode header (rtl/coral/coral_isa.vh) if it is out of date with the ISA
    data: rendered once per version of the file (about 50 ms), not once per build lookup."""
    from . import generate
    return generate.stale()


def check_config(cfg) -> None:
    """The model's rules for a configuration, and what the pipeline fixes."""
    model_check_config(cfg)
    if cfg.BRANCH_PENALTY != 1:
        raise ConfigError(f"the coral RTL's branch penalty is its one-cycle fetch redirect; "
                          f"BRANCH_PENALTY = {cfg.BRANCH_PENALTY} needs BRANCH_PENALTY = 1")
    for cls, n in PIPELINE_CYCLES.items():
        if cfg.cycles(cls) != n:
            raise ConfigError(f"timing class {cls} is {cfg.cycles(cls)} cycles on this configuration; "
                              f"the coral RTL's pipeline takes {n}")
    stale = _stale_header(_stamp())
    if stale:
        raise ConfigError("the RTL's generated header is out of date with isa/coral "
                          f"({', '.join(p.name for p in stale)}): run python3 -m "
                          "kernelcraft.simulators.coral_rtl.generate")
    if cfg.ITCM_SIZE < 8 or cfg.DTCM_SIZE < 8:
        raise ConfigError("the coral RTL needs ITCM_SIZE and DTCM_SIZE of at least 8 bytes")
    if cfg.VLEN < 64 or cfg.DTCM_SIZE % (cfg.VLEN // 8):
        raise ConfigError(f"the coral RTL's DTCM is VLEN / 32 word-interleaved banks: it needs VLEN >= 64 and "
                          f"DTCM_SIZE a multiple of VLEN / 8 = {cfg.VLEN // 8} bytes; got VLEN = {cfg.VLEN}, "
                          f"DTCM_SIZE = {cfg.DTCM_SIZE}")


def spec(cfg) -> toolchain.BuildSpec:
    check_config(cfg)
    # The clock gates' falling-edge model (rtl/common/icg.v), as plena's build: every
    # enable of this design and its harness changes only while the clock is high, which the
    # model checks at every edge; a latch would put each enable's fan-in into Verilator's
    # trigger region at both edges. Lint and synthesis read the latch.
    return toolchain.BuildSpec(top=TOP, sources=sources(), includes=(CORAL_RTL, COMMON_RTL),
                               parameters={p: getattr(cfg, p) for p in PARAMETERS},
                               defines={"ICG_FLOP_MODEL": 1},
                               build_args=BUILD_ARGS, timescale=TIMESCALE)


def build(cfg, simulator: str = "verilator") -> toolchain.Build:
    """The cached simulator for `cfg`."""
    if simulator not in SIMULATORS:
        raise ConfigError(f"the coral RTL runs on {' or '.join(SIMULATORS)}; got simulator {simulator!r}")
    return toolchain.build(spec(cfg), simulator)


def lint(cfg) -> None:
    """verilator --lint-only -Wall on the whole design for `cfg`, with the clock gates'
    latch (what synthesis reads) and their falling-edge model (what the Verilator build
    simulates); raises RtlBuildError."""
    check_config(cfg)
    params = [f"-G{p}={getattr(cfg, p)}" for p in PARAMETERS]
    for defines in ((), ("+define+ICG_FLOP_MODEL",)):
        toolchain.lint(sources(), TOP, includes=(CORAL_RTL, COMMON_RTL),
                       args=("-Wall", "--timing", *defines, *params))
