"""aie in the workbench: its registry entry."""
from __future__ import annotations

from kernelcraft.isa.aie import default_config
from kernelcraft.isa.manual import render_manual
from kernelcraft.simulators.aie.assembler import assemble
from kernelcraft.simulators.aie.program import disassemble
from kernelcraft.workbench.accel import Accelerator, Rtl

from .baselines import baseline_source, templates
from .layout import aie_layout
from .roofline import aie_lower_bound


def _backend():
    from kernelcraft.simulators.aie.machine import AieModel
    return AieModel()


ACCELERATOR = Accelerator(
    name="aie",
    title="aie: VLIW SIMD tile after AMD's AI Engine-ML",
    default_config=default_config,
    assemble=assemble,
    disassemble=disassemble,
    backend=_backend,
    layout=aie_layout,
    baseline=baseline_source,
    baseline_templates=templates,
    lower_bound=aie_lower_bound,
    manual=lambda hw=None: render_manual("aie", hw),
    imem_limit=lambda hw: hw.IMEM_WORDS,
    checked_memories=("ext",),
    tracing="kernelcraft.simulators.aie.tracing",
    view="kernelcraft.workbench.tui.model.views.aie:VIEW",
    rtl=Rtl(backend="kernelcraft.simulators.aie_rtl.backend:AieRTL",
            compare="kernelcraft.simulators.aie_rtl.compare:compare_traces",
            small="kernelcraft.simulators.aie_rtl.randprog:DIFF_CONFIG",
            bench="kernelcraft.simulators.aie_rtl.bench:main"),
    benchmarks={"aie-model": ("kernelcraft.workbench.accel.aie.bench", "aie functional model: bundles/s per loop kind, MACs/s, traced slowdown, Level-1 suite time")},
)
