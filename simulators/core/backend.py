"""The interface every backend (functional model, RTL) implements, and what a run returns."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from .budget import Budget
from .errors import SimError
from .program import Program
from .trace import TraceStep


@dataclass
class MemoryImage:
    """Initial memory contents: memory name -> {start address: values}.

    Values use the memory's storage dtype (bf16 memories take uint16 bit patterns).
    Everything not written starts at zero."""

    writes: dict[str, dict[int, np.ndarray]] = field(default_factory=dict)

    def put(self, memory: str, address: int, values) -> "MemoryImage":
        self.writes.setdefault(memory, {})[int(address)] = np.asarray(values)
        return self


@dataclass
class RunResult:
    backend: str
    memories: dict[str, np.ndarray]          # final contents, storage dtype
    registers: dict[str, Any]                # e.g. {"gp": [...], "f": [...], "a": [...], "STRIDE": n}
    cycles: int
    retired: int
    unit_busy: dict[str, int]
    stalls: dict[str, int] = field(default_factory=dict)
    stop: str = "end"                        # "end" | "break" | "error"
    error: SimError | None = None
    trace: list[TraceStep] | None = None
    wall_seconds: float = 0.0
    # How many times each address (Program index; aie: bundle index) retired, for the
    # addresses retired at least once, the same with the fast paths on or off; None where
    # the backend does not report it (the RTL backends).
    counts: dict[int, int] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def coverage(self) -> frozenset[int] | None:
        """The addresses of the instructions retired at least once (None: not reported)."""
        return None if self.counts is None else frozenset(self.counts)


@dataclass
class Job:
    """One run asked of a backend that takes several at once (an RTL's `run_many`: one
    simulator process for many programs and images)."""

    program: Program
    image: MemoryImage
    budget: Budget = Budget()
    trace: bool = False


class Backend(Protocol):
    """A way to execute an assembled program. Implementations: the functional model
    of each accelerator, and (later) its RTL under Verilator."""

    name: str

    def run(self, program: Program, image: MemoryImage, config: Any,
            budget: Budget = Budget(), trace: bool = False) -> RunResult: ...
