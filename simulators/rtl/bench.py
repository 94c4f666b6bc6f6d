"""What every RTL benchmark prints about its builds (`kernelcraft bench rtl --accel NAME`
runs the one the accelerator's registry record names)."""
from __future__ import annotations

import tempfile
import time

from . import toolchain


def build_times(build, cfg, cold: bool) -> None:
    """Print the build times of `build(cfg)`: cold into an empty temporary cache (with
    `cold`, or when nothing was cached), and the cached lookup."""
    if cold:
        with tempfile.TemporaryDirectory(prefix="kernelcraft-cold-") as tmp:
            with toolchain.environ({"KERNELCRAFT_CACHE": tmp}):
                t0 = time.perf_counter()
                build(cfg)
                print(f"  cold build:   {time.perf_counter() - t0:8.1f} s")
    first = build(cfg)
    if not first.cached:
        print(f"  cold build:   {first.seconds:8.1f} s (nothing was cached)")
    t0 = time.perf_counter()
    again = build(cfg)
    print(f"  cached build: {time.perf_counter() - t0:8.3f} s (lookup; reused {again.directory.name})")


def side_by_side(speeds: dict[str, dict[str, float]]) -> None:
    """Print cycles/s per kernel of cocotb and bulk mode (speeds[mode][kernel]) and the
    ratio."""
    print("cocotb vs bulk mode (cycles/s by the simulator's CPU time, start-up subtracted):")
    print(f"  {'kernel':34s} {'cocotb':>12s} {'bulk':>12s} {'bulk/cocotb':>12s}")
    for name, c in speeds["cocotb"].items():
        b = speeds["bulk"][name]
        print(f"  {name:34s} {c:>12,.0f} {b:>12,.0f} {b / c:>11.2f}x")


def modes(which: str, spec, cfg, cold: bool, measure) -> dict[str, dict[str, float]]:
    """Per mode of `which` ("both", "cocotb" or "bulk"): print the build times of
    `spec(cfg)`'s build in that mode, then `measure(bulk)` -> cycles/s per kernel; with
    both, print them side by side. Returns speeds[mode][kernel]."""
    from . import jobrun
    speeds = {}
    for mode in (("cocotb", "bulk") if which == "both" else (which,)):
        print(f"{mode} mode:")
        build_times(lambda c: jobrun.build(spec(c), "verilator", bulk=mode == "bulk"), cfg, cold)
        speeds[mode] = measure(mode == "bulk")
    if len(speeds) == 2:
        side_by_side(speeds)
    return speeds
