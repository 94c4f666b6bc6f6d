"""`kernelcraft bench speed`: simulated instructions (aie: bundles) per second of each
functional model on workload classes an agent's kernel falls into -- scalar integer
and fp32 loops, irregular small-vector loops, wide vector loops -- as medians of
several whole runs (CPU seconds of the running thread), with the fast paths on and, for comparison, off
(`Budget(fast=False)`, every instruction stepped through the timing path). Each
workload's two runs must agree on memories, registers, cycles and stalls, or the
benchmark stops.

The workloads live beside each model (`SPEED` in simulators/<accel>/bench.py, with an
optional `status()` line printed after the table).
"""
from __future__ import annotations

import argparse
import importlib
import statistics
import struct
import time

import numpy as np

from kernelcraft.simulators.core.backend import MemoryImage
from kernelcraft.simulators.core.budget import Budget

ACCELS = {"coral": ("kernelcraft.simulators.coral", "CoralModel", "instr"),
          "plena": ("kernelcraft.simulators.plena", "PlenaModel", "instr"),
          "aie": ("kernelcraft.simulators.aie", "AieModel", "bundles")}


def _parts(accel: str):
    pkg, model, unit = ACCELS[accel]
    bench = importlib.import_module(f"{pkg}.bench")
    machine = importlib.import_module(f"{pkg}.machine")
    asm = importlib.import_module(f"{pkg}.assembler")
    cfg = importlib.import_module(f"kernelcraft.isa.{accel}").default_config()
    return bench.SPEED, getattr(machine, model), asm.assemble, cfg, unit


def workloads(only: list[str] | None = None):
    """(accel/name, what, source, trips, model class, assemble, config, unit) of every workload."""
    out = []
    for accel in ACCELS:
        speed, model, assemble, cfg, unit = _parts(accel)
        for name, (what, source, trips) in speed.items():
            key = f"{accel}/{name}"
            if only and not any(o in key for o in only):
                continue
            out.append((key, what, source, trips, model, assemble, cfg, unit))
    return out


def identical(v, w) -> bool:
    """Bit-identical values: arrays of the same dtype, shape and bytes, floats of the same
    bits (NaN payloads and signs, -0), sequences element by element."""
    if isinstance(v, np.ndarray) or isinstance(w, np.ndarray):
        v, w = np.asarray(v), np.asarray(w)
        return v.dtype == w.dtype and v.shape == w.shape and v.tobytes() == w.tobytes()
    if isinstance(v, (list, tuple)) and isinstance(w, (list, tuple)):
        return len(v) == len(w) and all(identical(x, y) for x, y in zip(v, w))
    if isinstance(v, (float, np.floating)) and isinstance(w, (float, np.floating)):
        return struct.pack("<d", v) == struct.pack("<d", w)
    return v == w


def same(a, b) -> str:
    """'' if two RunResults agree on everything a fast path must keep, else what differs."""
    if (a.error is None) != (b.error is None) or (a.error and str(a.error) != str(b.error)):
        return f"errors differ: {a.error} / {b.error}"
    for field in ("cycles", "retired", "stop", "stalls", "unit_busy", "counts"):
        if getattr(a, field) != getattr(b, field):
            return f"{field} differ: {getattr(a, field)} / {getattr(b, field)}"
    if a.memories.keys() != b.memories.keys() or a.registers.keys() != b.registers.keys():
        return "different memories or registers"
    for name in a.memories:
        if not identical(a.memories[name], b.memories[name]):
            return f"memory {name} differs"
    for name, v in a.registers.items():
        if not identical(v, b.registers[name]):
            return f"register {name} differs"
    return ""


def measure(model, program, cfg, budget: Budget, repeats: int):
    """(median units per CPU second, units per run, last result). CPU time of this
    thread, not wall time: the figures are meant for loaded shared machines."""
    rates = []
    for _ in range(repeats):
        t = time.thread_time()
        r = model().run(program, MemoryImage(), cfg, budget)
        wall = time.thread_time() - t
        if r.error is not None:
            raise RuntimeError(f"benchmark kernel failed: {r.error}")
        rates.append(r.retired / wall)
    return statistics.median(rates), r.retired, r


def benchmark(repeats: int = 5, scale: float = 1.0, only: list[str] | None = None, slow: bool = True):
    """One row per workload: key, what, unit, fast rate, stepped rate (or None), retired."""
    rows = []
    for key, what, source, trips, model, assemble, cfg, unit in workloads(only):
        n = max(2, int(trips * scale))
        program = assemble(source.format(n=n), key, cfg)
        fast, retired, rf = measure(model, program, cfg, Budget(), repeats)
        stepped = None
        if slow:
            stepped, _, rs = measure(model, program, cfg, Budget(fast=False), max(1, repeats // 2))
            diff = same(rf, rs)
            if diff:
                raise RuntimeError(f"{key}: the fast paths changed the result: {diff}")
        rows.append((key, what, unit, fast, stepped, retired))
    return rows


def table(rows, repeats: int) -> str:
    lines = [f"| workload | what | fast paths on | off (stepped) | per run |",
             "|---|---|---|---|---|"]
    for key, what, unit, fast, stepped, retired in rows:
        off = "-" if stepped is None else f"{stepped / 1e6:.3f} M"
        lines.append(f"| {key} | {what} | {fast / 1e6:.3f} M {unit}/s | {off} | {retired:,} {unit} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="kernelcraft bench speed", description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="runs per workload (median)")
    ap.add_argument("--scale", type=float, default=1.0, help="shrink (< 1) or grow the loop trip counts")
    ap.add_argument("--only", nargs="*", help="workloads whose accel/name contains one of these")
    ap.add_argument("--no-slow", action="store_true", help="skip the stepped (fast=False) runs")
    a = ap.parse_args(argv)
    rows = benchmark(a.repeats, a.scale, a.only, not a.no_slow)
    print(f"functional models, default configurations, median of {a.repeats} runs per workload, per CPU "
          "second (fast and stepped runs agree on memories, registers, cycles, stalls)")
    print(table(rows, a.repeats))
    for accel in ACCELS:      # a model may say which of its paths ran (plena: C or numpy lanes)
        status = getattr(importlib.import_module(f"{ACCELS[accel][0]}.bench"), "status", None)
        if status is not None and any(key.startswith(f"{accel}/") for key, *_ in rows):
            print(status())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
