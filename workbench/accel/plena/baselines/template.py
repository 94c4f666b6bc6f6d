"""plena's Template: its layout and assembly builder on the shared template record."""
from __future__ import annotations

from kernelcraft.workbench.templates import Ctx, Template as _Template

from ..layout import plena_layout
from .asm import Asm

__all__ = ["Ctx", "Template"]


class Template(_Template):
    accel_name = "plena"

    def layout(self, task, config, hw):
        return plena_layout(task, config, hw)

    def begin(self, hw, header):
        asm = Asm(hw)
        asm.comment(header)
        return asm
