"""Analytic lower bound of cycles for a task on plena.

The bound is the larger of the compulsory HBM traffic (every input read once, every
output written once, at HBM_BW elements per cycle, plus one HBM_LATENCY for the last
transfer to land) and the task's multiply-accumulates at the systolic array's peak
rate (BLEN x MLEN MACs per cycle: one step of BLEN lanes; every matrix instruction adds
its pipeline's drain, so none reaches it). Vector work is not counted: a clever kernel
may move some of it to other units, and a lower bound must never exceed what is
achievable. A kernel measured below this bound is flagged as impossible."""
from __future__ import annotations

from kernelcraft.isa.loader import HardwareConfig
from kernelcraft.tasks.core import Task
from kernelcraft.workbench.accel import Bound


def plena_lower_bound(task: Task, config: str, hw: HardwareConfig) -> Bound:
    w = task.work(config)
    traffic = w.input_elems + w.output_elems
    dma = -(-traffic // hw.HBM_BW) + hw.HBM_LATENCY
    peak = hw.BLEN * hw.MLEN                 # MACs per cycle
    compute = int(-(-w.macs // peak)) if w.macs else 0
    if compute > dma:
        return Bound(compute, "compute", f"{w.macs} MACs at {peak:g} MACs/cycle")
    return Bound(dma, "bandwidth", f"{traffic} HBM elements at {hw.HBM_BW}/cycle + latency {hw.HBM_LATENCY}")
