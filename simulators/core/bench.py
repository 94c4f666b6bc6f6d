"""What every accelerator's model benchmark measures the same way."""
from __future__ import annotations

import statistics
import time

from .backend import MemoryImage


def median_rate(model, program, cfg, trace: bool, repeats: int) -> tuple[float, int]:
    """Median retired instructions per CPU second of the running thread over `repeats`
    runs of `program` on an empty memory image, and the instructions one run retires.
    CPU time, not wall time: on a shared machine wall time measures the load."""
    rates = []
    for _ in range(repeats):
        started = time.thread_time()
        result = model.run(program, MemoryImage(), cfg, trace=trace)
        used = time.thread_time() - started
        if result.error is not None:
            raise RuntimeError(f"benchmark kernel failed: {result.error}")
        rates.append(result.retired / max(used, 1e-9))
    return statistics.median(rates), result.retired
