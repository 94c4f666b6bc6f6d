"""aie's Template: its layout and bundle builder on the shared template record."""
from __future__ import annotations

from workbench.templates import Ctx, Template as _Template

from ..layout import aie_layout
from .asm import Asm

__all__ = ["Ctx", "Template"]


class Template(_Template):
    accel_name = "aie"

    def layout(self, task, config, hw):
        return aie_layout(task, config, hw)

    def begin(self, hw, header):
        asm = Asm(hw)
        asm.head.append(f"; {header}")
        return asm
