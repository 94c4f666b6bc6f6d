"""coral in the workbench: its registry entry."""
from __future__ import annotations

from kernelcraft.isa.coral import default_config
from kernelcraft.isa.manual import render_manual
from kernelcraft.simulators.coral.assembler import assemble
from kernelcraft.simulators.coral.encoding import disassemble
from kernelcraft.workbench.accel import Accelerator, Rtl

from .baselines import baseline_source, templates
from .layout import coral_layout
from .roofline import coral_lower_bound


def _backend():
    from kernelcraft.simulators.coral.machine import CoralModel
    return CoralModel()


ACCELERATOR = Accelerator(
    name="coral",
    title="coral: RISC-V RV32IMF + RVV (Zve32f) core after Google's Coral NPU",
    default_config=default_config,
    assemble=assemble,
    disassemble=disassemble,
    backend=_backend,
    layout=coral_layout,
    baseline=baseline_source,
    baseline_templates=templates,
    lower_bound=coral_lower_bound,
    manual=lambda hw=None: render_manual("coral", hw),
    imem_limit=lambda hw: hw.ITCM_SIZE // 4,
    checked_memories=("dtcm",),
    tracing="kernelcraft.simulators.coral.tracing",
    view="kernelcraft.workbench.tui.model.views.coral:VIEW",
    rtl=Rtl(backend="kernelcraft.simulators.coral_rtl.backend:CoralRTL",
            compare="kernelcraft.simulators.coral_rtl.compare:compare_traces",
            small="kernelcraft.simulators.coral_rtl.randprog:TEST_CONFIG",
            bench="kernelcraft.simulators.coral_rtl.bench:main"),
    benchmarks={"coral-model": ("kernelcraft.workbench.accel.coral.bench", "coral functional model: scalar and vector instructions/s, loop throughput, traced slowdown, one C5 cell")},
)
