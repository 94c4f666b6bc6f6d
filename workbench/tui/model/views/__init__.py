"""The debugger's view of each accelerator (base.py: what a view provides). An
accelerator whose registry record names a `view` (a MachineView subclass, e.g.
views/coral.py's VIEW) gets it; any other gets the plain MachineView."""
from __future__ import annotations

from .base import Line, MachineView, Page, PaneSpec, Seg

__all__ = ["Line", "MachineView", "Page", "PaneSpec", "Seg", "view_for"]


def view_for(accel: str) -> MachineView:
    from kernelcraft.workbench.accel import get_accel, load
    path = get_accel(accel).view
    return load(path)(accel) if path else MachineView(accel)
