"""Bulk mode: a design's simulation harness Verilated with a C++ driver (bulk_main.cpp)
instead of cocotb, for runs where speed matters and nothing needs Python in the loop.

The harness and its files are the same as under cocotb (the driver speaks the same
job/go/halt/finished protocol as cocotb_jobs.py), so the two modes give identical
results; what differs is the build: no VPI, no --public-flat-rw, the model compiled with
-O3 (BULK_ARGS), and no Python in the simulator process. Builds are cached beside the
cocotb builds (toolchain.cached_build, flavour "bulk").
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Sequence

from . import toolchain

DRIVER = Path(__file__).with_name("bulk_main.cpp")
FLAVOUR = "bulk"
# -O3 on the model: Verilator's default (OPT_FAST=-Os) favours build time; a bulk build
# is made once per configuration and run for long kernels.
BULK_ARGS = ("-CFLAGS", "-O3")
# Options cocotb's runner needs and a plain C++ driver does not.
_COCOTB_ONLY = ("--no-public-flat-rw", "--public-flat-rw", "--vpi")


def spec(base: toolchain.BuildSpec) -> toolchain.BuildSpec:
    """`base` (a design's cocotb BuildSpec) as a bulk build: its arguments, the driver's
    source in the key (through a define, as the key hashes Verilog only) and BULK_ARGS."""
    import hashlib
    driver = hashlib.sha256(DRIVER.read_bytes()).hexdigest()[:16]
    args = tuple(a for a in base.build_args if a not in _COCOTB_ONLY)
    return toolchain.BuildSpec(
        top=base.top, sources=base.sources, includes=base.includes,
        parameters=base.parameters, defines={**base.defines, "KERNELCRAFT_BULK": driver},
        build_args=(*args, *BULK_ARGS), timescale=base.timescale)


def _verilator_command(s: toolchain.BuildSpec, work: Path, tool: toolchain.Tool) -> list[str]:
    return [str(tool.executable), "--cc", "--exe", "--build", "-j", str(os.cpu_count() or 1),
            "-Mdir", str(work), "--top-module", s.top, "--prefix", "Vtop", "-o", "sim",
            *s.build_args, "--timescale", "/".join(s.timescale),
            *[f"-D{k}={v}" for k, v in s.defines.items()],
            *[f"-I{Path(i).resolve()}" for i in s.includes],
            *[f"-G{k}={v}" for k, v in s.parameters.items()],
            str(DRIVER), *[str(Path(p).resolve()) for p in s.sources]]


def build(base: toolchain.BuildSpec) -> toolchain.Build:
    """The cached bulk simulator of `base` (a design's cocotb BuildSpec, Verilator)."""
    s = spec(base)

    def compile_bulk(work: Path, log: Path) -> None:
        tool = toolchain.prepare_verilator()
        cmd = _verilator_command(s, work, tool)
        env = {**os.environ, **toolchain._verilator_env(),
               "VERILATOR_ROOT": str(tool.executable.parent.parent)}
        with open(log, "w") as f:
            f.write(" ".join(cmd) + "\n")
            f.flush()
            subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, check=True)
    return toolchain.cached_build(s, "verilator", compile_bulk, FLAVOUR)


def run(b: toolchain.Build, directory: Path, plusargs: Sequence[str], jobs: int,
        walls: Sequence[float] = ()) -> float:
    """Run `jobs` prepared jobs (<directory>/job<N>/) on bulk build `b`; returns the
    wall seconds. Raises RtlRunError, with the end of the log, if the simulator failed."""
    import time
    t0 = time.perf_counter()
    directory = Path(directory)
    log = directory / "sim.log"
    cmd = [str(b.directory / "sim"), "--jobs", str(jobs),
           *(["--wall", ",".join(str(float(w)) for w in walls)] if walls else []), *plusargs]
    with open(log, "w") as f:
        proc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=directory)
    if proc.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-30:]
        raise toolchain.RtlRunError(
            f"bulk simulation of {b.spec.top} failed (exit status {proc.returncode})\n"
            f"  --- end of {log} ---\n" + "\n".join(f"  {ln}" for ln in tail))
    return time.perf_counter() - t0
