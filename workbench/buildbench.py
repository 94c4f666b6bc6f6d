"""`kernelcraft bench build [--accel NAME] [--hw default|small] [--runs N] [--ccache]`:
the cold build of an accelerator's Verilator model (cocotb's build: Verilator, the C++
compile with `make -j<cores>`, the link), each run into its own empty private cache.

Prints, per run: wall seconds, CPU seconds of the build's processes (user + system of
every reaped child: Verilator, make, the compilers, the linker), Verilator's own CPU
(from its report in the build log), and the load average before and after; then the
medians. CPU is the figure that survives a loaded machine; wall is what a user waits,
and on a quiet machine with C cores it is about Verilator's CPU plus the rest / C.

ccache is off unless --ccache (CCACHE_DISABLE=1 for the build's processes), so every
object is compiled, Verilator's runtime included; the runtime's objects are then kept
in the private cache's runtime store (toolchain.runtime_store) like in any cache, so
--runtime-warm builds once first (not timed) and times builds that find the runtime
there: what a second design costs on a machine without ccache.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from kernelcraft.simulators.rtl import toolchain


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _verilator_cpu(log: Path) -> float | None:
    """Verilator's own CPU seconds, from its report ("... cpu 15.762 s on 1 threads")."""
    try:
        m = re.search(r"Verilator: Walltime [\d.]+ s .*?; cpu ([\d.]+) s", log.read_text(errors="replace"))
    except OSError:
        return None
    return float(m.group(1)) if m else None


def cold_build(build, cfg, cache: Path, ccache: bool = False) -> dict:
    """Build `build(cfg)` (a design's cached-build function) into `cache` (an empty or
    runtime-only directory) and return its wall and CPU seconds."""
    load0 = os.getloadavg()[0]
    cpu0, t0 = _children_cpu(), time.perf_counter()
    with toolchain.environ({"KERNELCRAFT_CACHE": str(cache),
                            "CCACHE_DISABLE": None if ccache else "1"}):
        b = build(cfg)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if b.cached:
        raise toolchain.ToolchainError(f"the build in {cache} was cached: not a cold build")
    log = b.directory / "build.log"
    text = log.read_text(errors="replace") if log.is_file() else ""
    return {"wall": wall, "cpu": cpu, "verilator": _verilator_cpu(log),
            "load": (load0, os.getloadavg()[0]),
            "runtime": (text.count("runtime store: reused"), text.count("runtime store: compiled"))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="kernelcraft bench build", description=__doc__.split("\n\n")[0])
    ap.add_argument("--accel", default="plena", help="accelerator (default plena)")
    ap.add_argument("--hw", choices=("default", "small"), default="default",
                    help="hardware configuration (default: the default configuration)")
    ap.add_argument("--runs", type=int, default=1, help="cold builds to time (default 1)")
    ap.add_argument("--ccache", action="store_true",
                    help="leave ccache on (its own cache is not emptied: a warm ccache "
                         "makes this a measure of ccache, not of the build)")
    ap.add_argument("--runtime-warm", action="store_true",
                    help="time builds that find Verilator's runtime objects already in "
                         "the cache's runtime store (built once first, untimed)")
    ap.add_argument("--keep", metavar="DIR", help="build under DIR instead of a "
                    "temporary directory, and keep the builds (to look at their C++)")
    args = ap.parse_args(argv)

    from kernelcraft.workbench.accel import get_accel
    accel = get_accel(args.accel)
    rtl = accel.need_rtl("bench build: ")
    module = rtl.builder()
    cfg = accel.default_config(**(rtl.small_overrides() if args.hw == "small" else {}))
    toolchain.prepare_verilator()
    cores = os.cpu_count() or 1
    print(f"cold build of {args.accel}'s {args.hw} configuration for Verilator "
          f"({toolchain.find_verilator().version_text}; make -j{min(cores, 16)}; "
          f"ccache {'on' if args.ccache else 'off'}; runtime "
          f"{'already in the store' if args.runtime_warm else 'compiled too'}):")
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="kernelcraft-coldbuild-"))
    results = []
    try:
        warm = None
        if args.runtime_warm:
            warm = root / "runtime-warm"
            r = cold_build(module.build, cfg, warm, args.ccache)
            print(f"  (runtime store filled by one untimed build: {r['wall']:.1f} s wall)")
        for i in range(args.runs):
            cache = root / f"run{i}"
            if cache.exists():
                shutil.rmtree(cache)
            cache.mkdir(parents=True)
            if warm is not None:
                shutil.copytree(warm / toolchain.RUNTIME_DIR, cache / toolchain.RUNTIME_DIR)
            r = cold_build(module.build, cfg, cache, args.ccache)
            results.append(r)
            vl = f"{r['verilator']:6.1f}" if r["verilator"] is not None else "     ?"
            print(f"  run {i + 1}: wall {r['wall']:7.1f} s   CPU {r['cpu']:7.1f} s   "
                  f"(Verilator {vl} s)   load {r['load'][0]:.1f} -> {r['load'][1]:.1f}   "
                  f"runtime objects ready {r['runtime'][0]}, compiled by make {r['runtime'][1]}",
                  flush=True)
            if not args.keep:
                shutil.rmtree(cache, ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    if len(results) > 1:
        med = {k: statistics.median(r[k] for r in results) for k in ("wall", "cpu")}
        vls = [r["verilator"] for r in results if r["verilator"] is not None]
        print(f"  median: wall {med['wall']:7.1f} s   CPU {med['cpu']:7.1f} s   "
              f"(Verilator {statistics.median(vls) if vls else float('nan'):6.1f} s)")
    return 0
