"""plena in the workbench: its registry entry."""
from __future__ import annotations

from kernelcraft.isa.manual import render_manual
from kernelcraft.isa.plena import default_config
from kernelcraft.simulators.plena.assembler import assemble, disassemble
from kernelcraft.workbench.accel import Accelerator, Rtl

from .baselines import baseline_source, templates
from .layout import plena_layout
from .roofline import plena_lower_bound


def _backend():
    from kernelcraft.simulators.plena.machine import PlenaModel
    return PlenaModel()


ACCELERATOR = Accelerator(
    name="plena",
    title="plena: matrix NPU after the public PLENA ISA",
    default_config=default_config,
    assemble=assemble,
    disassemble=disassemble,
    backend=_backend,
    layout=plena_layout,
    baseline=baseline_source,
    baseline_templates=templates,
    lower_bound=plena_lower_bound,
    manual=lambda hw=None: render_manual("plena", hw),
    imem_limit=lambda hw: hw.IMEM_SIZE,
    checked_memories=("hbm",),
    tracing="kernelcraft.simulators.plena.tracing",
    rtl=Rtl(backend="kernelcraft.simulators.plena_rtl.backend:PlenaRTL",
            compare="kernelcraft.simulators.plena_rtl.compare:compare_traces",
            small="kernelcraft.simulators.plena_rtl.randprog:DIFF_CONFIG",
            bench="kernelcraft.workbench.accel.plena.bench:rtl_main"),
    benchmarks={
        "model": ("kernelcraft.simulators.plena.bench", "plena functional model: instructions/s, MACs/s, traced slowdown"),
    },
)
