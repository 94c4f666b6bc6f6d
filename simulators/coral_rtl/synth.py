"""Synthesis of the coral RTL with Yosys (`synth`, generic gates): the check that it is
hardware, and its size.

`synthesize(cfg)` synthesizes coral_top for a configuration with the SRAM banks and the
clock gates as black boxes (SRAM macros and integrated clock-gate cells: a memory
compiler and the cell library provide them, not synthesis), fails on a
Verilog construct Yosys rejects, an inferred latch, or any problem `check` finds
(multiple drivers, undriven signals, combinational loops), and returns the cell counts.
It is hierarchical: each distinct module (one per parameter set) is synthesized once,
however many times it is instantiated, as a design flow with a block-level netlist does;
the checks cover every module and the connections between instances.
`sram_check()` synthesizes one SRAM bank on its own and requires that it is inferred as
one memory (a macro) with no latches.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from kernelcraft.simulators.core.errors import ConfigError, KernelCraftError

from . import build as rtl_build

LATCHES = "t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH_* t:$_DLATCHSR_* t:$_SR_*"


# Yosys 0.23's `synth` with its `fine` step written out less its `opt -fast` between
# `techmap` and `abc -fast` (an area clean-up of the gate netlist that ABC's own
# optimisation makes up for: 47 % of the default configuration's synthesis time, and the
# result 1.6 % fewer cells without it), and its `check` step less `stat` and the `check`
# that the `check -assert` after it repeats (rtl/coral/README.md)
SYNTH = ("synth -noshare -top {top} -run :fine; opt -fast -full; memory_map; opt -full; techmap; "
         "abc -fast; opt -fast; hierarchy -check")


# elaborate()'s passes: the design elaborated, processes turned into cells, not synthesized
ELABORATE = "hierarchy -check -top {top}; proc; opt_clean"


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
        # (Yosys 0.23 ends the JSON of a design without a top module with a stray comma)
        return json.loads(re.sub(r",\s*}\s*$", "}", stat.read_text()))


def synthesize(cfg, timeout: float = 3600) -> dict:
    """coral_top's counts over the hierarchy (`checked_synth`), and `srams` and `clock_gates`
    (the black boxes' instances)."""
    r = checked_synth(*_coral(cfg), timeout=timeout)
    r["srams"] = sum(n for t, n in r["by_type"].items() if t.startswith("coral_sram"))
    r["clock_gates"] = r["by_type"].get("icg", 0)
    return r


def elaborate(cfg, timeout: float = 900) -> dict:
    """The checks on coral_top elaborated but not synthesized (`hierarchy -check; proc;
    opt_clean`: every module once per parameter set, processes turned into cells, so an
    incomplete combinational assignment is already a $dlatch and a second driver already
    a conflict): the default suite's guard, a fraction of synthesis's time. Counts are of
    word-level cells. The sources are read with `-defer` (each module elaborated once, by
    `hierarchy`, at the parameters it is instantiated with, not first at its defaults as
    well): the default configuration's result is the same, in 13.3 instead of 18.4 CPU s
    of Yosys (medians of 3 runs each, rtl/coral/README.md)."""
    return checked_synth(*_coral(cfg), timeout=timeout, passes=ELABORATE, defer=True)


def _coral(cfg):
    rtl_build.check_config(cfg)
    params = {p: getattr(cfg, p) for p in rtl_build.PARAMETERS}
    common = tuple(str(rtl_build.COMMON_RTL / s) for s in rtl_build.COMMON if s != "icg.v")
    return ((*common, "coral_fminmax.v", "coral_fcvt.v", "coral_fpu.v", "coral_vdec.v", "coral_idiv.v",
             "coral_frest.v", "coral_vec.v", "coral_core.v", "coral_top.v"), "coral_top", params,
            ("coral_sram.v", "coral_sram_dp.v", str(rtl_build.COMMON_RTL / "icg.v")))


def checked_synth(sources, top: str, params: dict, macros=(), cwd: Path = rtl_build.CORAL_RTL,
                  timeout: float = 900, passes: str = "", defer: bool = False) -> dict:
    """`passes` (`SYNTH`: `synth -noshare` less one optional pass) on `top` and the modules
    under it from `sources` (`macros`: black boxes), hierarchically (no -flatten: one netlist per distinct module, not one per
    instance; the NB lanes' fp32_fma, dividers and converters are each synthesized once),
    with the checks: no latch cell in any module, and `check -assert`, which checks each
    module and, in the parent, the instances' ports (two instances driving one wire are
    multiple drivers). Returns {"cells", "by_type", "flip_flops"} over the whole hierarchy
    (each module's cells times its instances) and "modules": {name: {"cells" (its own, not
    its submodules'), "flip_flops", "instances"}}. Cells are an upper bound on a flattened
    synthesis's: constants and unused outputs do not cross module boundaries. -noshare:
    Yosys's SAT-based resource sharing enumerates activation patterns of the NB lanes'
    fp32_fma shifters and did not finish on the vector unit (rtl/coral/README.md); it is an
    area optimisation, not a check. `defer`: read the sources with `read_verilog -defer`,
    so that only `hierarchy` elaborates them (each module at the parameters it is
    instantiated with); the top is then Yosys's `$abstract\\<top>` until then."""
    sets = " ".join(f"-set {k} {v}" for k, v in params.items())
    passes = passes or SYNTH
    read, name = ("read_verilog -defer", "$abstract\\" + top) if defer else ("read_verilog", top)
    script = (f"read_verilog -lib {' '.join(macros)}; " if macros else "") + \
        (f"{read} -sv {' '.join(sources)}; " + (f"chparam {sets} {name}; " if sets else "") +
         passes.format(top=top) + f"; select -assert-none {LATCHES}; check -assert; "
         "setattr -mod -unset top")
    # (the totals are counted here: Yosys 0.23's `stat -json` of a design with a top module
    # writes the hierarchy's text into the JSON, hence the top attribute unset above)
    mods = _run(script, timeout, cwd)["modules"]
    sub = {m: {(t if t in mods else "\\" + t): n for t, n in mods[m]["num_cells_by_type"].items()
               if t in mods or "\\" + t in mods} for m in mods}     # public names lack the backslash
    insts, by_type = {}, {}
    def count(mod: str, k: int) -> None:
        insts[mod] = insts.get(mod, 0) + k
        for t, n in mods[mod]["num_cells_by_type"].items():
            if t not in mods and "\\" + t not in mods:
                by_type[t] = by_type.get(t, 0) + k * n
        for t, n in sub[mod].items():
            count(t, k * n)
    count(f"\\{top}", 1)
    names = {m: _name(m) for m in mods}
    twice = {n for n in names.values() if list(names.values()).count(n) > 1}
    for m in mods:        # Yosys names a module with long parameters by a hash of them
        if names[m] in twice:
            names[m] += "#" + m.split("\\")[0].removeprefix("$paramod$")[:8]
    return {"cells": sum(by_type.values()), "by_type": by_type, "flip_flops": _flip_flops(by_type),
            "modules": {names[m]: {"cells": mods[m]["num_cells"] - sum(sub[m].values()),
                                   "instances": insts.get(m, 0),
                                   "flip_flops": _flip_flops(mods[m]["num_cells_by_type"])}
                        for m in mods}}


def _flip_flops(by_type: dict) -> int:
    return sum(n for t, n in by_type.items() if "DFF" in t.upper())


def _name(module: str) -> str:
    """`$paramod\\coral_idiv\\W=s32'00000000000000000000000000010000\\STEPS=...` -> coral_idiv(W=16,STEPS=..)"""
    parts = module.lstrip("\\").split("\\")
    if parts[0].startswith("$paramod"):
        base = parts[1] if len(parts) > 1 else parts[0]
        ps = []
        for kv in parts[2:]:
            k, _, v = kv.partition("=")
            m = re.fullmatch(r"s?\d*'([01]+)", v)
            ps.append(f"{k}={int(m.group(1), 2)}" if m else f"{k}={v}")
        return f"{base}({','.join(ps)})" if ps else base
    return parts[0]


def sram_check(words: int = 256, timeout: float = 300) -> dict:
    """One SRAM bank: inferred as a single memory, no latches, no other state."""
    script = (f"read_verilog -sv coral_sram.v; chparam -set WORDS {words} coral_sram; "
              "hierarchy -top coral_sram; proc; opt; memory -nomap; opt_clean; "
              f"select -assert-none {LATCHES}; select -assert-count 1 t:$mem_v2; check -assert")
    return _run(script, timeout)["modules"]["\\coral_sram"]
