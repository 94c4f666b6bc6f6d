"""aie's Template: its layout and bundle builder on the shared template record."""
from __future__ import annotations

from kernelcraft.workbench.templates import Ctx, Template as _Template

from ..layout import aie_layout
from .asm import Asm

__all__ = ["Ctx", "Template", "dm_problem"]

FULL_DM = 65536             # the Level-2/3 templates place their buffers for this data memory


def dm_problem(ctx: Ctx) -> str | None:
    """Why the hardware's data memory is too small for the fixed buffer placement, or None."""
    if ctx.hw.DM_SIZE < FULL_DM:
        return f"needs DM_SIZE >= {FULL_DM} bytes (its buffers are placed for it), got {ctx.hw.DM_SIZE}"
    return None


class Template(_Template):
    accel_name = "aie"

    def layout(self, task, config, hw):
        return aie_layout(task, config, hw)

    def begin(self, hw, header):
        asm = Asm(hw)
        asm.head.append(f"; {header}")
        return asm
