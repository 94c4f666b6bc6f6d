"""Synthesis of the coral RTL with Yosys (`synth`, generic gates): the check that it is
hardware, and its size.

`synthesize(cfg)` synthesizes coral_top for a configuration with the SRAM banks and the
clock gates as black boxes (SRAM macros and integrated clock-gate cells: a memory
compiler and the cell library provide them, not synthesis), fails on a
Verilog construct Yosys rejects, an inferred latch, or any problem `check` finds
(multiple drivers, undriven signals, combinational loops), and returns the cell counts.
It is hierarchical: each distinct module (one per parameter set) is synthesized once,
however many times it is instantiated, as a design flow with a block-level netlist does;
the checks cover every module and the connections between instances.
`sram_check()` synthesizes one SRAM bank on its own and requires that it is inferred as
one memory (a macro) with no latches. The machinery (script, checks, counts) is
simulators/rtl/synth.py, shared with the aie RTL's synthesis.
"""
from __future__ import annotations

from pathlib import Path

from kernelcraft.simulators.rtl import synth as rtl_synth
from kernelcraft.simulators.rtl.synth import ELABORATE, LATCHES, SYNTH, SynthesisError  # noqa: F401

from . import build as rtl_build


def synthesize(cfg, timeout: float = 3600) -> dict:
    """coral_top's counts over the hierarchy (`checked_synth`), and `srams` and `clock_gates`
    (the black boxes' instances)."""
    # (the black boxes are coral_sram, coral_sram_dp and icg: see _coral)
    return rtl_synth.macro_counts(checked_synth(*_coral(cfg), timeout=timeout),
                                  ("coral_sram", "coral_sram_dp"))


def elaborate(cfg, timeout: float = 900) -> dict:
    """The checks on coral_top elaborated but not synthesized (`hierarchy -check; proc;
    opt_clean`: every module once per parameter set, processes turned into cells, so an
    incomplete combinational assignment is already a $dlatch and a second driver already
    a conflict): the default suite's guard, a fraction of synthesis's time. Counts are of
    word-level cells. The sources are read with `-defer` (each module elaborated once, by
    `hierarchy`, at the parameters it is instantiated with, not first at its defaults as
    well): the default configuration's result is the same, in 13.3 instead of 18.4 CPU s
    of Yosys (medians of 3 runs each, rtl/coral/README.md)."""
    return checked_synth(*_coral(cfg), timeout=timeout, passes=ELABORATE, defer=True)


def _coral(cfg):
    rtl_build.check_config(cfg)
    params = {p: getattr(cfg, p) for p in rtl_build.PARAMETERS}
    common = tuple(str(rtl_build.COMMON_RTL / s) for s in rtl_build.COMMON if s != "icg.v")
    return ((*common, "coral_fminmax.v", "coral_fcvt.v", "coral_fpu.v", "coral_vdec.v", "coral_idiv.v",
             "coral_frest.v", "coral_vec.v", "coral_core.v", "coral_top.v"), "coral_top", params,
            ("coral_sram.v", "coral_sram_dp.v", str(rtl_build.COMMON_RTL / "icg.v")))


def checked_synth(sources, top: str, params: dict, macros=(), cwd: Path = rtl_build.CORAL_RTL,
                  timeout: float = 900, passes: str = "", defer: bool = False) -> dict:
    """simulators/rtl/synth.checked_synth with the sources' paths relative to rtl/coral."""
    return rtl_synth.checked_synth(sources, top, params, macros, cwd=cwd, timeout=timeout, passes=passes,
                                   defer=defer)


def sram_check(words: int = 256, timeout: float = 300) -> dict:
    """One SRAM bank: inferred as a single memory, no latches, no other state."""
    script = (f"read_verilog -sv coral_sram.v; chparam -set WORDS {words} coral_sram; "
              "hierarchy -top coral_sram; proc; opt; memory -nomap; opt_clean; "
              f"select -assert-none {LATCHES}; select -assert-count 1 t:$mem_v2; check -assert")
    return rtl_synth.run(script, timeout, rtl_build.CORAL_RTL)["modules"]["\\coral_sram"]
