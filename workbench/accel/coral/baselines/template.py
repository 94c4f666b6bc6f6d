"""coral's Template: its layout, LMUL check and kernel end on the shared template record."""
from __future__ import annotations

from kernelcraft.workbench.templates import Ctx as _Ctx, Template as _Template

from ..layout import coral_layout
from .asm import Asm

LMULS = (1, 2, 4, 8)


class Ctx(_Ctx):
    def vlmax(self, lmul: int, sew: int = 32) -> int:
        return self.hw.VLEN * lmul // sew

    def scratch(self, **sizes: int) -> dict[str, int]:
        """Addresses of named buffers (sizes in binary32 elements) packed into the task's
        scratch region, each on a 64-byte boundary."""
        region = self.layout.region("scratch")
        addr, end, out = region.address, region.address + 4 * region.size, {}
        for name, n in sizes.items():
            out[name] = addr
            addr += -(-4 * n // 64) * 64
        if addr > end:
            raise ValueError(f"{self.task.name} {self.config}: intermediates need {addr - region.address} "
                             f"bytes of scratch, the layout has {end - region.address}")
        return out


class Template(_Template):
    accel_name = "coral"
    ctx_class = Ctx

    def layout(self, task, config, hw):
        return coral_layout(task, config, hw)

    def validate(self, p):
        if "lmul" in p and p["lmul"] not in LMULS:
            raise ValueError(f"{self.task} template: lmul must be one of {LMULS}, got {p['lmul']}")

    def begin(self, hw, header):
        asm = Asm(hw)
        asm.comment(header)
        return asm

    def finish(self, asm):
        asm("ebreak")
