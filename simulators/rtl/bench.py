"""`kernelcraft bench rtl [--accel NAME] [options]`: the RTL benchmark of one accelerator
(simulators/<accel>_rtl/bench.py; default plena), its options passed on."""
from __future__ import annotations

import importlib

ACCELS = ("plena", "coral")


def main(argv: list[str] | None = None) -> int:
    argv = list(argv or [])
    accel = "plena"
    if "--accel" in argv:
        i = argv.index("--accel")
        if i + 1 >= len(argv) or argv[i + 1] not in ACCELS:
            raise SystemExit(f"bench rtl: --accel takes one of {', '.join(ACCELS)}")
        accel = argv[i + 1]
        del argv[i:i + 2]
    return importlib.import_module(f"simulators.{accel}_rtl.bench").main(argv)
