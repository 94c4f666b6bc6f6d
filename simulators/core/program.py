"""An assembled program: decoded instructions plus their encodings and source map."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Instr:
    """One decoded instruction. `ops` maps operand names of the ISA record to values
    (register numbers, immediates, flags); `line` is the 1-based source line or 0."""

    mnemonic: str
    ops: dict
    line: int = 0
    text: str = ""


@dataclass
class Program:
    accel: str
    instrs: list[Instr]
    words: list[int]
    # label -> instruction index; for byte-addressed machines (coral) label -> address
    labels: dict[str, int] = field(default_factory=dict)
    constants: dict[str, int] = field(default_factory=dict)
    source_name: str = "<kernel>"
    # Memory contents the program itself brings (assembled .data/.rodata):
    # [(memory name, first address, bytes)]; empty for plena.
    data: list[tuple[str, int, bytes]] = field(default_factory=list)
    entry: int = 0                     # index of the first instruction executed

    def __len__(self) -> int:
        return len(self.instrs)

    def source_at(self, pc: int) -> tuple[int, str]:
        """(source line, text) of the instruction at address `pc` (RunResult.counts'
        addresses); (0, "") past the end."""
        if 0 <= pc < len(self.instrs):
            ins = self.instrs[pc]
            return ins.line, ins.text or ins.mnemonic
        return 0, ""

    @property
    def size_bytes(self) -> int:
        return 4 * len(self.words)
