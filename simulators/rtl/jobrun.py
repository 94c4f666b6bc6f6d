"""Running prepared jobs on a built simulation harness, the same for every accelerator:
under cocotb (cocotb_jobs.py) or, for a bulk build, the C++ driver (bulk.py).

A backend writes <directory>/job<N>/ for each job, builds its design with
`build(spec, simulator, bulk)` and calls `run_jobs`; the harness reads the job files,
runs them and writes the results beside them, whichever mode drove it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from kernelcraft.simulators.core.errors import ConfigError

from . import bulk as bulk_mode
from . import toolchain

TEST_MODULE = "cocotb_jobs"
TEST_DIR = Path(__file__).resolve().parent


def build(spec: toolchain.BuildSpec, simulator: str = "verilator",
          bulk: bool = False) -> toolchain.Build:
    """The cached build of `spec`: cocotb's (for any simulator) or, with `bulk`, the C++
    driver's (Verilator only)."""
    if not bulk:
        return toolchain.build(spec, simulator)
    if simulator != "verilator":
        raise ConfigError(f"bulk mode drives a Verilated model from C++: it needs the "
                          f"verilator simulator, not {simulator!r}")
    return bulk_mode.build(spec)


def build_state(spec: toolchain.BuildSpec, simulator: str = "verilator",
                bulk: bool = False) -> toolchain.BuildState:
    """Is `build(spec, simulator, bulk)` in the cache, or who is building it now."""
    if bulk:
        return toolchain.build_state(bulk_mode.spec(spec), simulator, bulk_mode.FLAVOUR)
    return toolchain.build_state(spec, simulator)


def run_jobs(b: toolchain.Build, directory: Path, plusargs: Sequence[str], jobs: int,
             walls: Sequence[float] = ()) -> None:
    """Run jobs 0..jobs-1 of `directory` on build `b` (either mode); `walls`: each job's
    wall-clock limit in seconds (0: none). Raises RtlRunError if the simulation failed."""
    if b.flavour == bulk_mode.FLAVOUR:
        bulk_mode.run(b, directory, plusargs, jobs, walls)
        return
    toolchain.run(b, TEST_MODULE, [TEST_DIR], directory, plusargs=list(plusargs),
                  extra_env={"KERNELCRAFT_JOBS": str(jobs),
                             "KERNELCRAFT_WALL_SECONDS": ",".join(str(w) for w in walls)})
