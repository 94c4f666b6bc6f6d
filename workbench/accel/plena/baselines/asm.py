"""A small assembly builder for templates: lines, comments, constants, loops."""
from __future__ import annotations

from contextlib import contextmanager

from kernelcraft.isa.loader import HardwareConfig

SIMM18 = (-(1 << 17), (1 << 17) - 1)


class Asm:
    def __init__(self, hw: HardwareConfig):
        self.hw = hw
        self.lines: list[str] = []
        self._depth = 0

    def comment(self, text: str) -> None:
        self.lines.append("  " * self._depth + f"; {text}")

    def __call__(self, text: str, comment: str = "") -> None:
        line = "  " * self._depth + text
        self.lines.append(f"{line:<44}; {comment}" if comment else line)

    def li(self, reg: str, value: int, comment: str = "") -> None:
        """Load any 32-bit value into a gp register (S_ADDI_INT, or S_LUI_INT + S_ADDI_INT)."""
        if SIMM18[0] <= value <= SIMM18[1]:
            self(f"S_ADDI_INT {reg}, gp0, {value}", comment)
            return
        if not 0 <= value < (1 << 32):
            raise ValueError(f"li {reg}, {value}: value outside 0..2^32-1")
        upper, lower = value >> 12, value & 0xFFF
        self(f"S_LUI_INT {reg}, {upper}", comment or f"{reg} = {value}")
        if lower:
            self(f"S_ADDI_INT {reg}, {reg}, {lower}")

    def addi(self, rd: str, rs: str, value: int, scratch: str | None = None) -> None:
        """rd = rs + value for any value; needs a scratch register when value is large."""
        if SIMM18[0] <= value <= SIMM18[1]:
            if value or rd != rs:
                self(f"S_ADDI_INT {rd}, {rs}, {value}")
            return
        if scratch is None:
            raise ValueError(f"addi {rd}, {rs}, {value}: immediate too large and no scratch register")
        self.li(scratch, value)
        self(f"S_ADD_INT {rd}, {rs}, {scratch}")

    def set_hbm_base(self, areg: str, value: int, scratch: str) -> None:
        self.li(scratch, value, f"{areg} base = {value}")
        self(f"C_SET_ADDR_REG {areg}, gp0, {scratch}")

    @contextmanager
    def loop(self, counter: str, count: int, comment: str = ""):
        """A hardware loop of `count` iterations (emits nothing but the body if count == 1)."""
        if count < 1:
            raise ValueError(f"loop of {count} iterations")
        if count == 1:
            yield
            return
        self(f"C_LOOP_START {counter}, {count}", comment)
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            self(f"C_LOOP_END {counter}")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"
