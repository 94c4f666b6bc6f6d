"""What the aie RTL is built from, and building it for one hardware configuration.

A configuration's parameters become the RTL's top-level parameters (Verilator -G), so
each configuration is its own simulator binary, cached by simulators/rtl/toolchain (an
unchanged design is never rebuilt; a build lock makes concurrent builders wait).
"""
from __future__ import annotations

from pathlib import Path

from kernelcraft.simulators.core.errors import ConfigError
from kernelcraft.simulators.rtl import toolchain

from . import generate

ROOT = Path(__file__).resolve().parents[2]
AIE_RTL = ROOT / "rtl" / "aie"
TOP = "aie_sim"
TIMESCALE = ("1ns", "1ps")
# --timing: aie_sim runs the clock itself under cocotb (bulk mode's driver gives it through
# `clk_in` instead: simulators/rtl/bulk.py); cocotb reaches only the ports aie_sim marks.
# -fno-inline: Verilator keeps each module a C++ class instead of flattening the tile,
# so the 16 data-memory macros, the lanes' fp32 units and the delay lines are compiled
# once per module, not once per instance: the small configuration's model is 34.9 MB of
# C++ instead of 54.8 MB, and its cold build (empty build cache and ccache) took 147.9
# instead of 196.5 CPU s; the simulator is no slower (figures in rtl/aie/README.md).
# aie's alone: plena's and coral's small builds, with few repeated instances, took
# 111 and 89 CPU s with it against 92 and 58 without (more files, each paying the
# precompiled header).
BUILD_ARGS = ("--timing", "-CFLAGS", "-fcoroutines", "--no-public-flat-rw", "-Wno-WIDTH",
              "-fno-inline")
SIMULATORS = ("verilator",)
# Synthesizable modules (aie_sim is the simulation harness).
TILE = ("aie_top.v", "aie_core.v", "aie_mac.v", "aie_mac_ilane.v", "aie_reduce.v", "aie_pwl.v", "aie_shuf.v",
        "aie_imem.v", "aie_dm.v", "aie_sram.v", "aie_dma.v", "aie_dma_agen.v")
COMMON = ROOT / "rtl" / "common"
# Shared arithmetic from rtl/common the vector unit instantiates.
COMMON_UNITS = ("fp32_minmax.v", "fp32_add.v", "fp32_mul.v", "fp_mul.v", "fp32_round_pack.v",
                "fp32_to_bf16.v", "bf16_mul.v", "fp32_tree_sum.v", "fp32_exp_range.v", "icg.v",
                "delay_line.v")


def sources(simulator: str = "verilator") -> tuple[Path, ...]:
    return (AIE_RTL / "aie_sim.v", *(AIE_RTL / f for f in TILE), *(COMMON / f for f in COMMON_UNITS))


def check_config(cfg) -> None:
    """What this RTL needs of a configuration beyond hardware.toml's own rules."""
    if getattr(getattr(cfg, "isa", None), "name", None) != "aie":
        raise ConfigError(f"the aie RTL needs an aie HardwareConfig (isa.aie.default_config()), "
                          f"got {cfg!r}")
    bank = cfg.DM_SIZE // cfg.DM_BANKS
    if bank < 128 or bank & (bank - 1):
        raise ConfigError(f"the aie RTL builds each data-memory bank from four 32-byte-row macros: "
                          f"DM_SIZE / DM_BANKS must be a power of two of at least 128 bytes "
                          f"(got {bank})")
    if cfg.IMEM_WORDS % 8 or cfg.IMEM_WORDS & (cfg.IMEM_WORDS - 1):
        raise ConfigError(f"the aie RTL's instruction memory has eight word banks: IMEM_WORDS must "
                          f"be a power of two and a multiple of 8 (got {cfg.IMEM_WORDS})")
    if cfg.cycles("LOAD") < 4:
        raise ConfigError(f"the aie RTL's load data lands up to 3 cycles after issue (bank "
                          f"conflicts included): LOAD_LATENCY must be at least 4 "
                          f"(got {cfg.cycles('LOAD')})")
    lanes = ("VALU", "ACC", "FMUL", "SRS", "UPS", "SHUF")
    bad = [c for c in lanes if not 2 <= cfg.cycles(c) <= cfg.cycles("LOAD") - 2]
    if bad:
        # (a longer one could land in the edge an older load of its register lands in)
        raise ConfigError(f"the aie RTL's vector lanes take their operands at issue and write their "
                          f"results at the next edge: timing classes {', '.join(bad)} must be 2 .. "
                          f"LOAD_LATENCY - 2 cycles")
    if cfg.cycles("MAC") < 3 or cfg.ACC_FORWARD < 1:
        raise ConfigError(f"the aie RTL's multiply-accumulate unit takes its operands at issue, "
                          f"multiplies and sums in the next cycle and accumulates in its last: "
                          f"MAC_LATENCY must be at least 3 and ACC_FORWARD at least 1 (got "
                          f"MAC_LATENCY={cfg.cycles('MAC')}, ACC_FORWARD={cfg.ACC_FORWARD})")
    if cfg.cycles("PWL") < 5:
        raise ConfigError(f"the aie RTL's function unit takes its operand at issue and has three "
                          f"stages (index, interpolation, scale) before its last: PWL_LATENCY must "
                          f"be at least 5 (got {cfg.cycles('PWL')})")
    if cfg.cycles("REDUCE") < 3:
        raise ConfigError(f"the aie RTL's reductions take their operand at issue, reduce in the "
                          f"next cycle and write from a last stage: REDUCE_LATENCY must be at "
                          f"least 3 (got {cfg.cycles('REDUCE')})")
    if cfg.DMA_SETUP < 1 or cfg.EXT_LATENCY < 2:
        raise ConfigError(f"the aie RTL's DMA needs DMA_SETUP >= 1 and EXT_LATENCY >= 2 (a write is "
                          f"acknowledged EXT_LATENCY - 1 cycles after it leaves the tile); got "
                          f"DMA_SETUP={cfg.DMA_SETUP}, EXT_LATENCY={cfg.EXT_LATENCY}")
    if cfg.DMA_BW not in (2, 4, 8, 16, 32):
        raise ConfigError(f"the aie RTL's DMA beats are 2, 4, 8, 16 or 32 bytes: DMA_BW={cfg.DMA_BW}")
    for cls in ("LOAD", "MUL", "ACC", "MAC", "FMUL", "SRS", "UPS", "VALU", "SHUF", "REDUCE", "PWL"):
        if not 1 <= cfg.cycles(cls) <= 31:
            raise ConfigError(f"the aie RTL's scoreboard counts latencies of 1..31 cycles; timing "
                              f"class {cls} is {cfg.cycles(cls)}")
    stale = generate.stale()
    if stale:
        raise ConfigError("the RTL's generated headers are out of date with isa/aie "
                          f"({', '.join(p.name for p in stale)}): run python3 -m "
                          "kernelcraft.simulators.aie_rtl.generate")


def spec(cfg, simulator: str = "verilator") -> toolchain.BuildSpec:
    check_config(cfg)
    # The clock gates' falling-edge model (rtl/common/icg.v), as plena's build: every
    # enable of the tile and harness changes only just after a rising edge (the harness's
    # inputs, `halt` included, are registered), which the model checks at every edge.
    # With the latch, Verilator evaluates each enable's fan-in (a DMA channel's reaches
    # the issue decision and aie_dm's port check) with the clock triggers at both edges;
    # a flop reads it at its edge only. Synthesis and lint keep the latch.
    return toolchain.BuildSpec(top=TOP, sources=sources(simulator), includes=(AIE_RTL, COMMON),
                               parameters=cfg.as_dict(), defines={"ICG_FLOP_MODEL": 1},
                               build_args=BUILD_ARGS, timescale=TIMESCALE)


def build(cfg, simulator: str = "verilator") -> toolchain.Build:
    """The cached simulator for `cfg`."""
    if simulator not in SIMULATORS:
        raise ConfigError(f"the aie RTL runs on {' or '.join(SIMULATORS)}; got simulator "
                          f"{simulator!r}")
    return toolchain.build(spec(cfg, simulator), simulator)
