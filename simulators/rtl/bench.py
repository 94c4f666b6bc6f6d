"""What every RTL benchmark prints about its builds (`kernelcraft bench rtl --accel NAME`
runs the one the accelerator's registry record names)."""
from __future__ import annotations

import os
import tempfile
import time


def build_times(build, cfg, cold: bool) -> None:
    """Print the build times of `build(cfg)`: cold into an empty temporary cache (with
    `cold`, or when nothing was cached), and the cached lookup."""
    if cold:
        with tempfile.TemporaryDirectory(prefix="kernelcraft-cold-") as tmp:
            old = os.environ.get("KERNELCRAFT_CACHE")
            os.environ["KERNELCRAFT_CACHE"] = tmp
            try:
                t0 = time.perf_counter()
                build(cfg)
                print(f"  cold build:   {time.perf_counter() - t0:8.1f} s")
            finally:
                if old is None:
                    os.environ.pop("KERNELCRAFT_CACHE", None)
                else:
                    os.environ["KERNELCRAFT_CACHE"] = old
    first = build(cfg)
    if not first.cached:
        print(f"  cold build:   {first.seconds:8.1f} s (nothing was cached)")
    t0 = time.perf_counter()
    again = build(cfg)
    print(f"  cached build: {time.perf_counter() - t0:8.3f} s (lookup; reused {again.directory.name})")
