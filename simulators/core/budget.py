"""Limits on a run: retired instructions and wall-clock seconds, and whether the
model may take its fast paths."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    max_instructions: int = 20_000_000
    wall_seconds: float = 60.0
    # How many instructions between wall-clock checks (a clock read per step is costly).
    check_every: int = 4096
    # False: every fast path off (plena's back-to-back blocks, coral's loop plans and
    # untimed block variants, aie's fast-forwarded loops, merged bundle runs and deferred
    # accumulates); each instruction goes through the timing path as when tracing, without
    # recording. Results must be identical either way (tests/simulators/test_fast_parity.py).
    fast: bool = True
