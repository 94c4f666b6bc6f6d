"""What every accelerator's model benchmark measures the same way."""
from __future__ import annotations

import statistics

from .backend import MemoryImage


def median_rate(model, program, cfg, trace: bool, repeats: int) -> tuple[float, int]:
    """Median retired instructions per second over `repeats` runs of `program` on an
    empty memory image, and the instructions one run retires."""
    rates = []
    for _ in range(repeats):
        result = model.run(program, MemoryImage(), cfg, trace=trace)
        if result.error is not None:
            raise RuntimeError(f"benchmark kernel failed: {result.error}")
        rates.append(result.retired / result.wall_seconds)
    return statistics.median(rates), result.retired
