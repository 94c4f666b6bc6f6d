"""Synthesis of the aie tile (aie_top: core, vector units, DMA, data memory) with Yosys
(`synth`, generic gates), hierarchical, through the machinery coral's uses
(simulators/rtl/synth.py): each distinct module once per parameter set, no latch in any
module, `check -assert` on every module and the instances' ports. The SRAM macros
(aie_sram, aie_imem) and the clock-gate cell (icg) are black boxes; aie_sim (the
simulation harness, with the DMA's external memory) is not part of the tile.

The sources are read with `-defer` and elaborated from aie_top at the configuration's
parameters: without it Yosys elaborates every module at its default parameters while
reading (rtl/aie/README.md, Synthesis).
"""
from __future__ import annotations

from kernelcraft.simulators.rtl import synth as rtl_synth
from kernelcraft.simulators.rtl.synth import ELABORATE

from . import build

MACROS = ("aie_sram.v", "aie_imem.v")


def design(cfg, top: str = "aie_top", params: dict | None = None) -> dict:
    """`checked_synth`'s arguments for `top` (aie_top at `cfg`'s parameters, or a unit at
    `params`)."""
    build.check_config(cfg)
    sources = [str(build.AIE_RTL / f) for f in build.TILE if f not in MACROS] + \
        [str(build.COMMON / f) for f in build.COMMON_UNITS if f != "icg.v"]
    macros = [str(build.AIE_RTL / f) for f in MACROS] + [str(build.COMMON / "icg.v")]
    return dict(sources=sources, top=top, params=cfg.as_dict() if params is None else params,
                macros=macros, include=(str(build.AIE_RTL), str(build.COMMON)), defer=True,
                cwd=build.AIE_RTL)


def synthesize(cfg, timeout: float = 3600 * 4, **kw) -> dict:
    """The tile's counts over the hierarchy (`rtl_synth.checked_synth`), and `srams` and
    `clock_gates` (the black boxes' instances)."""
    return rtl_synth.macro_counts(rtl_synth.checked_synth(**design(cfg, **kw), timeout=timeout),
                                  ("aie_sram", "aie_imem"))


def elaborate(cfg, timeout: float = 900, **kw) -> dict:
    """The checks on the tile elaborated but not synthesized (`rtl_synth.ELABORATE`): the
    default suite's guard. Counts are of word-level cells."""
    return rtl_synth.checked_synth(**design(cfg, **kw), timeout=timeout, passes=ELABORATE)
