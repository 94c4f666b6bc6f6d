"""The debugger's view of each accelerator (base.py: what a view provides). An
accelerator with a views/<name>.py module exporting `VIEW` (a MachineView subclass)
gets it; any other gets the plain MachineView."""
from __future__ import annotations

import importlib

from .base import Line, MachineView, Page, PaneSpec, Seg

__all__ = ["Line", "MachineView", "Page", "PaneSpec", "Seg", "view_for"]


def view_for(accel: str) -> MachineView:
    try:
        mod = importlib.import_module(f"{__name__}.{accel}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{accel}":
            raise
        return MachineView(accel)
    return mod.VIEW(accel)
