"""coral's template compiler: one module per task family, each defining `TEMPLATE`s.

A template turns (task, configuration, layout, hardware) plus a few tuning parameters
into RISC-V assembly, vectorised with RVV as a good compiler would at -O2: strip-mined
loops with vsetvli, register blocking for contractions, reductions into vector
accumulators. The baseline is the template at its default parameters; the autotuning
agent searches `Template.space` through the same tools an LLM uses."""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from kernelcraft.isa.loader import HardwareConfig
from kernelcraft.tasks import get_task

from .template import Template


@lru_cache(maxsize=1)
def templates() -> dict[str, Template]:
    found = {}
    for mod in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{mod.name}")
        for t in getattr(module, "TEMPLATES", ()):
            found[t.task] = t
    return found


def baseline_source(task_name: str, config: str, hw: HardwareConfig, **params) -> str:
    table = templates()
    if task_name not in table:
        raise KeyError(f"no coral baseline for task {task_name!r} yet; have: {', '.join(sorted(table))}")
    return table[task_name].render(get_task(task_name), config, hw, **params)
