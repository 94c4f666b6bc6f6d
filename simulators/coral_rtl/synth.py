"""Synthesis of the coral RTL with Yosys (`synth`, generic gates): the check that it is
hardware, and its size.

`synthesize(cfg)` synthesizes coral_top for a configuration with the SRAM banks and the
clock gates as black boxes (SRAM macros and integrated clock-gate cells: a memory
compiler and the cell library provide them, not synthesis), fails on a
Verilog construct Yosys rejects, an inferred latch, or any problem `check` finds
(multiple drivers, undriven signals, combinational loops), and returns the cell counts.
`sram_check()` synthesizes one SRAM bank on its own and requires that it is inferred as
one memory (a macro) with no latches.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from kernelcraft.simulators.core.errors import ConfigError, KernelCraftError

from . import build as rtl_build

LATCHES = "t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH_* t:$_DLATCHSR_* t:$_SR_*"


class SynthesisError(KernelCraftError):
    pass


def yosys() -> str:
    path = shutil.which("yosys")
    if path is None:
        raise ConfigError("yosys is not installed: sudo scripts/install-system-deps.sh (Debian's yosys)")
    return path


def _run(script: str, timeout: float, cwd: Path = rtl_build.CORAL_RTL) -> dict:
    with tempfile.TemporaryDirectory(prefix="coral-synth-") as tmp:
        stat = Path(tmp) / "stat.json"
        try:
            proc = subprocess.run([yosys(), "-q", "-p", script + f"; tee -q -o {stat} stat -json"],
                                  cwd=cwd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise SynthesisError(f"yosys did not finish within {timeout:.0f} s (wall clock) and was "
                                 f"stopped; on a loaded machine pass a larger timeout") from None
        if proc.returncode != 0:
            lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
            raise SynthesisError("yosys failed:\n" + "\n".join(lines[-20:]))
        return json.loads(stat.read_text())


def synthesize(cfg, timeout: float = 3600) -> dict:
    """{"cells": total, "by_type": {...}, "flip_flops": n, "srams": n} of coral_top."""
    rtl_build.check_config(cfg)
    params = {p: getattr(cfg, p) for p in rtl_build.PARAMETERS}
    common = tuple(str(rtl_build.COMMON_RTL / s) for s in rtl_build.COMMON if s != "icg.v")
    top = checked_synth((*common, "coral_fminmax.v", "coral_fcvt.v", "coral_fpu.v", "coral_vdec.v", "coral_idiv.v", "coral_frest.v", "coral_vec.v",
                         "coral_core.v", "coral_top.v"), "coral_top", params,
                        ("coral_sram.v", "coral_sram_dp.v", str(rtl_build.COMMON_RTL / "icg.v")),
                        timeout=timeout)
    by_type = top["num_cells_by_type"]
    return {"cells": top["num_cells"], "by_type": by_type,
            "flip_flops": sum(n for t, n in by_type.items() if "DFF" in t.upper()),
            "srams": sum(n for t, n in by_type.items() if "coral_sram" in t)}


def checked_synth(sources, top: str, params: dict, macros=(), cwd: Path = rtl_build.CORAL_RTL,
                  timeout: float = 900) -> dict:
    """`synth -flatten -noshare` of `top` from `sources` (`macros`: black boxes) with the
    checks; the top module's statistics. -noshare: Yosys's SAT-based resource sharing
    enumerates activation patterns of the NB lanes' fp32_fma shifters and did not finish
    on the vector unit (stopped inside it after 3 CPU minutes and 2.9 GB); without it
    coral_vec alone takes about 5 CPU minutes (rtl/coral/README.md)."""
    sets = " ".join(f"-set {k} {v}" for k, v in params.items())
    script = (f"read_verilog -lib {' '.join(macros)}; " if macros else "") + \
        (f"read_verilog -sv {' '.join(sources)}; " + (f"chparam {sets} {top}; " if sets else "") +
         f"synth -flatten -noshare -top {top}; select -assert-none {LATCHES}; check -assert")
    return _run(script, timeout, cwd)["modules"][f"\\{top}"]


def sram_check(words: int = 256, timeout: float = 300) -> dict:
    """One SRAM bank: inferred as a single memory, no latches, no other state."""
    script = (f"read_verilog -sv coral_sram.v; chparam -set WORDS {words} coral_sram; "
              "hierarchy -top coral_sram; proc; opt; memory -nomap; opt_clean; "
              f"select -assert-none {LATCHES}; select -assert-count 1 t:$mem_v2; check -assert")
    return _run(script, timeout)["modules"]["\\coral_sram"]
