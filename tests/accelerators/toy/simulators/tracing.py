"""Stepping a traced toy run: changes are ("r", register) or ("mem", address)."""
from __future__ import annotations

from kernelcraft.simulators.core.trace import apply_memory, stepping


def _apply(memories, registers, change, value):
    if not apply_memory(memories, change, value):
        registers[change.space][change.address] = value


undo, redo = stepping(_apply)
