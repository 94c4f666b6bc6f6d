"""Errors raised by the ISA loader, assemblers and simulators (the lowest layer: every
package may import it).

Each carries the location a person (or a model) needs to fix the problem: source
line and column for assembly errors; instruction index, source line, instruction text,
memory and address for run-time errors.
"""
from __future__ import annotations

from dataclasses import dataclass, field


class KernelCraftError(Exception):
    """Base of every error the project raises on purpose."""


@dataclass
class AsmDiagnostic:
    """One problem found in assembly source."""

    line: int
    column: int
    message: str
    text: str = ""
    hint: str = ""
    source: str = "<kernel>"

    def format(self) -> str:
        out = f"{self.source}:{self.line}:{self.column}: error: {self.message}"
        if self.text:
            out += f"\n    {self.text}"
        if self.hint:
            out += f"\n    hint: {self.hint}"
        return out


class AssemblyError(KernelCraftError):
    """Assembly source has errors; `diagnostics` lists them in source order. An
    assembler may keep only the first ones and count the rest in `omitted`."""

    def __init__(self, diagnostics: list[AsmDiagnostic], omitted: int = 0):
        self.diagnostics = sorted(diagnostics, key=lambda d: (d.line, d.column))
        self.omitted = omitted
        n = len(self.diagnostics) + omitted
        head = f"{n} error{'s' if n != 1 else ''} in assembly"
        body = "\n".join(d.format() for d in self.diagnostics)
        if omitted:
            body += (f"\n... and {omitted} more error{'s' if omitted != 1 else ''} not shown "
                     f"(fix the ones above first)")
        super().__init__(head + "\n" + body)


class DecodeError(KernelCraftError):
    """A machine word is not a legal instruction."""

    def __init__(self, index: int, word: int, message: str):
        self.index, self.word = index, word
        super().__init__(f"instruction {index}: word 0x{word:08X}: {message}")


@dataclass
class Where:
    """The instruction a run-time error happened at."""

    index: int = -1          # position in the program (pc)
    line: int = 0            # source line, 0 if unknown
    text: str = ""           # the instruction as written
    cycle: int = 0
    retired: int = 0         # instructions retired before this one

    def format(self) -> str:
        if self.index < 0:
            return "before the first instruction"
        loc = f"instruction {self.index}"
        if self.line:
            loc += f" (line {self.line})"
        if self.text:
            loc += f" `{self.text}`"
        return loc


class SimError(KernelCraftError):
    """A run stopped because the program did something the machine forbids."""

    kind = "error"

    def __init__(self, message: str, where: Where | None = None, *,
                 memory: str = "", address: int | None = None):
        self.message = message
        self.where = where or Where()
        self.memory = memory
        self.address = address
        super().__init__(self._text())

    def _text(self) -> str:
        return f"{self.kind} at {self.where.format()}: {self.message}"

    def locate(self, where: Where) -> "SimError":
        """Attach the failing instruction (simulators raise first, locate after)."""
        self.where = where
        self.args = (self._text(),)
        return self


class MemoryAccessError(SimError):
    """An access fell outside its memory or broke an alignment rule."""

    kind = "memory access error"


class IllegalOperandError(SimError):
    """An operand value is not allowed at run time (e.g. a shift amount out of range)."""

    kind = "illegal operand"


class BudgetExceeded(SimError):
    """The run retired more instructions than its budget allows (e.g. a runaway loop)."""

    kind = "instruction budget exceeded"


class TimeLimitExceeded(SimError):
    """The run took longer than its wall-clock limit."""

    kind = "time limit exceeded"


class ConfigError(KernelCraftError):
    """A hardware configuration is invalid; the message names the parameter."""
