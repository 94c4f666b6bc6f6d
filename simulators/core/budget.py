"""Limits on a run: retired instructions and wall-clock seconds, and whether the
model may take its fast paths."""
from __future__ import annotations

from dataclasses import dataclass

from .errors import ConfigError


@dataclass(frozen=True)
class Budget:
    max_instructions: int = 20_000_000
    wall_seconds: float = 60.0
    # How many instructions between wall-clock checks (a clock read per step is costly).
    check_every: int = 4096
    # False: every fast path off (plena's back-to-back blocks, coral's loop plans, self
    # loops, short-vector forms and untimed block variants, aie's fast-forwarded loops,
    # merged bundle runs and deferred accumulates); each instruction goes through the
    # timing path as when tracing, without recording. Results must be identical either way (tests/simulators/test_fast_parity.py).
    fast: bool = True

    def __post_init__(self):
        # Checked once here so that every run loop gets the same clean refusal.
        # max_instructions = 0 is allowed: it runs nothing and reads back the loaded image.
        for name, low in (("max_instructions", 0), ("check_every", 1)):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < low:
                raise ConfigError(f"budget {name} must be an integer >= {low}, got {v!r}")
        if not self.wall_seconds > 0:
            raise ConfigError(f"budget wall_seconds must be > 0, got {self.wall_seconds!r}")
