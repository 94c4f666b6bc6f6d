"""coral's Template: its layout, LMUL check and kernel end on the shared template record."""
from __future__ import annotations

from workbench.templates import Ctx as _Ctx, Template as _Template

from ..layout import coral_layout
from .asm import Asm

LMULS = (1, 2, 4, 8)


class Ctx(_Ctx):
    def vlmax(self, lmul: int, sew: int = 32) -> int:
        return self.hw.VLEN * lmul // sew


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
