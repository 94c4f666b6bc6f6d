"""Limits on a run: retired instructions and wall-clock seconds."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    max_instructions: int = 20_000_000
    wall_seconds: float = 60.0
    # How many instructions between wall-clock checks (a clock read per step is costly).
    check_every: int = 4096
