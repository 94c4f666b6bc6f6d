"""Bulk mode: a design's simulation harness run by a C++ driver (bulk_main.cpp) instead
of cocotb, for runs where speed matters and nothing needs Python in the loop.

The driver is linked against the Verilated model of the design's cocotb build (the same
objects cocotb's simulator runs), so a bulk build costs one small compile and a link on
top of a build the tests share anyway, and the two modes run identical model code. The
harness and its files are the same too (the driver speaks cocotb_jobs.py's
job/go/halt/finished protocol); what bulk mode drops is the simulator's Python and
cocotb's per-time-step callbacks. Builds are cached beside the cocotb builds
(toolchain.cached_build, flavour "bulk").

Measured on the machine this was written on (load average 20-28, so CPU time, not wall):
an optimised model (no VPI, OPT_FAST=-O2 instead of Verilator's -Os) ran the plena scalar
loop no measurably faster than the cocotb build's objects, and cost a second full
compile per configuration; hence the link. Measured again at load 1-9 (CPU seconds of
the small plena scalar loop, 1.6 M cycles): -Os 4.87, -O1 4.13, -O2 3.75, -O2 with
--x-assign/--x-initial fast 3.70; the shared builds now compile at -O1
(toolchain.VERILATOR_MAKE_OVERRIDES), which both modes run. What the time goes to
(perf): the clock-gated units' combinational logic, which Verilator evaluates in its
trigger ("act") region because the clock gates' latches (rtl/common/icg.v) are
sensitive to their enables, the trigger computation itself, and the harness's
`always #1` clock and `@(posedge clk)` waits (the timing scheduler's coroutines).
A harness with a `clk_in` port (plena_top, aie_sim) takes its clock from this driver
instead of its `always #1` (the driver adds +bulk_clk_in and toggles the port every half
period, at the times the harness's own clock would): one evaluation of the model per
edge and no delay scheduling; plena's scalar loop ran 1.18x faster for it
(rtl/plena/README.md, "Where a simulated cycle goes"), aie's about 1.01x (its harness
has no process waiting on the clock; rtl/aie/README.md, same section). A harness
without the port (coral_sim) runs as before.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import time
from pathlib import Path
from typing import Sequence

from . import toolchain

DRIVER = Path(__file__).with_name("bulk_main.cpp")
FLAVOUR = "bulk"

# Added to the cocotb build's generated makefile: compile the driver with the model's own
# flags and link it with the model, the Verilator runtime and the design's C++ (the DPI
# models), leaving out cocotb's main (verilator.o) and its VPI library.
MAKEFILE = """include Vtop.mk
bulk_main.o: {driver}
\t$(OBJCACHE) $(CXX) $(CXXFLAGS) $(CPPFLAGS) $(OPT_FAST) -c -o $@ $<
sim: bulk_main.o $(filter-out verilator.o,$(VK_USER_OBJS)) $(VK_GLOBAL_OBJS) $(VM_PREFIX)__ALL.a
\t$(LINK) $(LDFLAGS) $^ $(LOADLIBES) $(LDLIBS) $(LIBS) -o $@
"""


def spec(base: toolchain.BuildSpec, model_key: str | None = None) -> toolchain.BuildSpec:
    """The key of `base`'s bulk build: `base` (a design's cocotb BuildSpec) with the
    driver's source and the key of the model it links hashed in (through defines: the
    key hashes Verilog only). `model_key`: the key of the cocotb build that is linked;
    by default the one `base`'s sources have now. (Naming the model linked matters when
    the sources change while the model compiles: the bulk build then links the model
    it waited for, whose key is the old sources', and must not be filed under the new
    sources' key.)"""
    driver = hashlib.sha256(DRIVER.read_bytes()).hexdigest()[:16]
    if model_key is None:
        model_key = base.key("verilator", toolchain.prepare("verilator"))
    return toolchain.BuildSpec(
        top=base.top, sources=base.sources, includes=base.includes,
        parameters=base.parameters,
        defines={**base.defines, "KERNELCRAFT_BULK": driver, "KERNELCRAFT_BULK_MODEL": model_key},
        build_args=base.build_args, timescale=base.timescale)


def build(base: toolchain.BuildSpec) -> toolchain.Build:
    """The cached bulk simulator of `base` (a design's cocotb BuildSpec, Verilator);
    builds (or reuses) the cocotb build first, since its model is what gets linked."""
    model = toolchain.build(base, "verilator")

    def link(work: Path, log: Path) -> None:
        keep = {base.top, "build.log", "kernelcraft-build.json"}
        links = [work / f.name for f in model.directory.iterdir() if f.name not in keep]
        for f in links:
            f.symlink_to(model.directory / f.name)
        (work / "bulk.mk").write_text(MAKEFILE.format(driver=DRIVER))
        env = {**os.environ, **toolchain._verilator_env()}
        with open(log, "w") as f:
            subprocess.run(["make", "-f", "bulk.mk", "sim", "VM_USER_LDLIBS="], cwd=work,
                           stdout=f, stderr=subprocess.STDOUT, env=env, check=True)
        for f in links:                  # the binary needs none of them at run time
            f.unlink()
    return toolchain.cached_build(spec(base, model.key), "verilator", link, FLAVOUR)


def run(b: toolchain.Build, directory: Path, plusargs: Sequence[str], jobs: int,
        walls: Sequence[float] = ()) -> float:
    """Run `jobs` prepared jobs (<directory>/job<N>/) on bulk build `b`; returns the
    wall seconds. Raises RtlRunError, with the end of the log, if the simulator failed."""
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
