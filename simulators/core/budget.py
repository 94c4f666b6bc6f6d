"""Limits on a run: retired instructions, CPU seconds and wall-clock seconds, and
whether the model may take its fast paths.

The time limit that decides is CPU time of the thread running the model: it measures
the work a kernel makes the simulator do, so the same kernel gets the same verdict on a
quiet machine and on one shared by ten jobs. Wall-clock time is only a backstop (a thread
starved of the processor still ends), set generously above the CPU limit. The RTL
backends run their simulator in another process and keep to the wall-clock limit."""
from __future__ import annotations

from dataclasses import dataclass

from .errors import ConfigError


@dataclass(frozen=True)
class Budget:
    max_instructions: int = 20_000_000
    cpu_seconds: float = 60.0       # CPU time of the thread running the model
    wall_seconds: float = 600.0     # backstop: elapsed time, whatever the machine's load
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
        for name in ("cpu_seconds", "wall_seconds"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0):
                raise ConfigError(f"budget {name} must be a number > 0, got {v!r}")
