"""Analytic lower bound of cycles for a task on aie.

The bound is the largest of: the compulsory DMA traffic (every input read once by the
input channels, every output written once by the output channels, each channel moving
DMA_BW bytes per cycle, plus one EXT_LATENCY for the data to land); the core's stores
(every output byte passes through the one store slot, 64 bytes per cycle); and the
task's multiply-accumulates at the vector unit's peak (one VMMAC.BF16 per cycle). Other
vector work is not counted: a lower bound must never exceed what is achievable. A
kernel measured below it is flagged as impossible."""
from __future__ import annotations

from kernelcraft.isa.aie.model import get_spec
from kernelcraft.isa.loader import HardwareConfig
from kernelcraft.tasks.core import Task
from kernelcraft.workbench.accel import Bound

WORD_BYTES = 2
STORE_BYTES = 64
PEAK_MACS = 4 * 8 * 8          # VMMAC.BF16: a 4x8 tile from 4x8 and 8x8 operands


def aie_lower_bound(task: Task, config: str, hw: HardwareConfig) -> Bound:
    w = task.work(config)
    ch = get_spec().dma_channels
    per_cycle_in, per_cycle_out = ch["in"] * hw.DMA_BW, ch["out"] * hw.DMA_BW
    dma_in = -(-w.input_elems * WORD_BYTES // per_cycle_in)
    dma_out = -(-w.output_elems * WORD_BYTES // per_cycle_out)
    dma = max(dma_in, dma_out) + hw.EXT_LATENCY
    stores = -(-w.output_elems * WORD_BYTES // STORE_BYTES)
    compute = -(-w.macs // PEAK_MACS) if w.macs else 0
    best = max((dma, "bandwidth", f"{w.input_elems} input / {w.output_elems} output words over "
                                  f"{ch['in']}+{ch['out']} channels at {hw.DMA_BW} B/cycle + latency {hw.EXT_LATENCY}"),
               (stores, "bandwidth", f"{w.output_elems} output words through the store slot at 64 B/cycle"),
               (compute, "compute", f"{w.macs} MACs at {PEAK_MACS} MACs/cycle"))
    return Bound(best[0], best[1], best[2])
