"""One difference between a functional-model run and an RTL run: the record every
accelerator's comparison (`<accel>_rtl/compare.py`) returns and rtl-check prints."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Divergence:
    what: str                  # "stop", "memory", "register", "cycles", "activity", "trace"
    where: str                 # e.g. "vsram[130]", "gp5", "the cycle count"
    model: str
    rtl: str
    instruction: str = ""      # for trace divergences: the retired instruction
    step: int | None = None    # for trace divergences: its index in the traces

    def format(self) -> str:
        head = f"{self.where}: model {self.model}, RTL {self.rtl}"
        return f"{self.instruction}\n  {head}" if self.instruction else head
