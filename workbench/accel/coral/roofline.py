"""Analytic lower bound of cycles for a task on coral.

Two bounds, the larger wins: moving every input and output once (binary32) at the
machine's peak DTCM bandwidth (a VLEN-bit vector access per cycle plus a 4-byte scalar
access per cycle), and the task's arithmetic at peak: every multiply-accumulate and
every other element operation (exp, reciprocal and sqrt counted as one each) at
VLEN/32 vector lanes plus one scalar operation per cycle. Both peaks are above what
any kernel reaches (the vector unit runs one instruction at a time, and an exp takes
many operations), so a kernel measured below the bound is flagged as impossible."""
from __future__ import annotations

from kernelcraft.isa.loader import HardwareConfig
from kernelcraft.tasks.core import Task
from kernelcraft.workbench.accel import Bound


def coral_lower_bound(task: Task, config: str, hw: HardwareConfig) -> Bound:
    w = task.work(config)
    traffic = 4 * (w.input_elems + w.output_elems)
    per_cycle = hw.VLEN // 8 + 4
    memory = -(-traffic // per_cycle)
    lanes = hw.VLEN // 32 + 1
    ops = w.macs + w.vector_elems + w.special_elems
    compute = -(-ops // lanes)
    if compute > memory:
        return Bound(compute, "compute", f"{w.macs} MACs and {w.vector_elems + w.special_elems} element "
                                         f"operations at {lanes} per cycle")
    return Bound(memory, "bandwidth", f"{traffic} bytes at {per_cycle} bytes/cycle")
