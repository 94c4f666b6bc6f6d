"""Step-by-step traces: what each retired instruction changed, old and new values,
so a debugger can step forward and back without re-running."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Change:
    space: str          # "gp", "f", "a", "csr", or a memory/accumulator name
    address: int        # register number or first element address
    old: Any            # scalar or numpy array
    new: Any


@dataclass
class TraceStep:
    step: int           # retirement number, from 0
    pc: int             # instruction index
    line: int
    text: str
    cycle: int          # issue cycle
    changes: list[Change] = field(default_factory=list)
