"""Hierarchical synthesis of an RTL design with Yosys (`synth`, generic gates) with the
checks that it is hardware, and its counts; shared by the accelerators' RTL
(coral_rtl/synth.py, aie: tests/rtl/aie/test_synth.py).

`checked_synth` synthesizes a top module and the modules under it hierarchically: each
distinct module (one per parameter set) once, however many times it is instantiated, as
a design flow with a block-level netlist does. It fails on a Verilog construct Yosys
rejects, a missing module, an inferred latch in any module, or any problem `check` finds
(multiple drivers, undriven signals, combinational loops) in any module or between the
instances of a parent; SRAM macros and clock-gate cells are black boxes (`macros`: a
memory compiler and the cell library provide them, not synthesis). `passes` runs a
cheaper flow, e.g. `ELABORATE` (the default suites' guards). Counts are each module's own
cells times its instances.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from kernelcraft.simulators.core.errors import ConfigError, KernelCraftError

LATCHES = "t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH_* t:$_DLATCHSR_* t:$_SR_*"

# Yosys 0.23's `synth` with its `fine` step written out less its `opt -fast` between
# `techmap` and `abc -fast` (an area clean-up of the gate netlist that ABC's own
# optimisation makes up for: 47 % of coral's default configuration's synthesis time, and
# the result 1.6 % fewer cells without it), and its `check` step less `stat` and the
# `check` that the `check -assert` after it repeats (rtl/coral/README.md)
SYNTH = ("synth -noshare -top {top} -run :fine; opt -fast -full; memory_map; opt -full; techmap; "
         "abc -fast; opt -fast; hierarchy -check")

# Elaborated but not synthesized: every module once per parameter set, processes turned
# into cells, so an incomplete combinational assignment is already a $dlatch and a second
# driver already a conflict. Counts are of word-level cells.
ELABORATE = "hierarchy -check -top {top}; proc; opt_clean"


class SynthesisError(KernelCraftError):
    pass


def yosys() -> str:
    path = shutil.which("yosys")
    if path is None:
        raise ConfigError("yosys is not installed: sudo scripts/install-system-deps.sh (Debian's yosys)")
    return path


def run(script: str, timeout: float, cwd: Path | None = None) -> dict:
    """`script` then `stat -json`; the JSON."""
    with tempfile.TemporaryDirectory(prefix="kc-synth-") as tmp:
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


def script(sources, top: str, params: dict, macros=(), passes: str = "", include=(),
           defer: bool = False) -> str:
    """The Yosys script `checked_synth` runs (less its `stat`). `include`: directories for
    `include; `defer`: read the sources without elaborating them (`read_verilog -defer`)
    and elaborate from `top` at `params` only what it instantiates (without it Yosys
    elaborates every module at its default parameters while reading)."""
    inc = "".join(f" -I{d}" for d in include)
    if defer:
        # (`chparam` on the deferred module, then `hierarchy`: `hierarchy -chparam` on a
        # deferred top trips an assertion in Yosys 0.23 on plena_core)
        sets = " ".join(f"-set {k} {v}" for k, v in params.items())
        read = (f"read_verilog -sv -defer{inc} {' '.join(map(str, sources))}; " +
                (f"chparam {sets} $abstract\\{top}; " if sets else "") +
                f"hierarchy -check -top {top}; ")
    else:
        sets = " ".join(f"-set {k} {v}" for k, v in params.items())
        read = (f"read_verilog -sv{inc} {' '.join(map(str, sources))}; " +
                (f"chparam {sets} {top}; " if sets else ""))
    return ((f"read_verilog -sv -lib{inc} {' '.join(map(str, macros))}; " if macros else "") + read +
            (passes or SYNTH).format(top=top) + f"; select -assert-none {LATCHES}; check -assert; "
            "setattr -mod -unset top")


def checked_synth(sources, top: str, params: dict, macros=(), cwd: Path | None = None,
                  timeout: float = 900, passes: str = "", include=(), defer: bool = False) -> dict:
    """`passes` (`SYNTH`: `synth -noshare` less one optional pass) on `top` and the modules
    under it from `sources` (`macros`: black boxes), hierarchically (no -flatten: one
    netlist per distinct module, not one per instance: a unit instantiated per lane is
    synthesized once), with the checks: no latch cell in any module, and `check -assert`,
    which checks each module and, in the parent, the instances' ports (two instances
    driving one wire are multiple drivers). Returns {"cells", "by_type", "flip_flops"} over
    the whole hierarchy (each module's cells times its instances) and "modules": {name:
    {"cells" (its own, not its submodules'), "flip_flops" (its own), "instances"}} and
    "submodules": {name: {submodule's name: its instances in it}}. Cells are an upper
    bound on a flattened synthesis's: constants and unused outputs do not cross module
    boundaries. -noshare: Yosys's SAT-based resource sharing enumerates activation patterns
    of coral's NB lanes' fp32_fma shifters and did not finish on its vector unit
    (rtl/coral/README.md); it is an area optimisation, not a check."""
    # (the totals are counted here: Yosys 0.23's `stat -json` of a design with a top module
    # writes the hierarchy's text into the JSON, hence the top attribute unset by `script`)
    mods = run(script(sources, top, params, macros, passes, include, defer), timeout, cwd)["modules"]
    return counts(mods, top)


def counts(mods: dict, top: str) -> dict:
    """`checked_synth`'s counts from `stat -json`'s "modules" (no top attribute set)."""
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
    # (a top derived at parameters other than its defaults is $paramod\top\...)
    root = f"\\{top}" if f"\\{top}" in mods else \
        next(m for m in mods if m.startswith("$paramod") and m.split("\\")[1] == top)
    count(root, 1)
    names = {m: module_name(m) for m in mods}
    twice = {n for n in names.values() if list(names.values()).count(n) > 1}
    for m in mods:        # Yosys names a module with long parameters by a hash of them
        if names[m] in twice:
            names[m] += "#" + m.split("\\")[0].removeprefix("$paramod$")[:8]
    return {"cells": sum(by_type.values()), "by_type": by_type, "flip_flops": flip_flops(by_type),
            "modules": {names[m]: {"cells": mods[m]["num_cells"] - sum(sub[m].values()),
                                   "instances": insts.get(m, 0),
                                   # (its own cells' types only: a submodule's hashed
                                   # name may hold "dff")
                                   "flip_flops": flip_flops({t: n for t, n in
                                                             mods[m]["num_cells_by_type"].items()
                                                             if t not in mods and "\\" + t not in mods})}
                        for m in mods},
            "submodules": {names[m]: {names[t]: n for t, n in sub[m].items()} for m in mods}}


def macro_counts(r: dict, srams) -> dict:
    """`r` (`checked_synth`'s counts) with "srams", the instances of the SRAM macros (the
    black-box cell types named in `srams`), and "clock_gates", the clock-gate cells' (icg)."""
    r["srams"] = sum(n for t, n in r["by_type"].items() if t in srams)
    r["clock_gates"] = r["by_type"].get("icg", 0)
    return r


def flip_flops(by_type: dict) -> int:
    return sum(n for t, n in by_type.items() if "DFF" in t.upper())


def module_name(module: str) -> str:
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


def longest_path(sources, top: str, params: dict, macros=(), include=(),
                 timeout: float = 3600, cwd: Path | None = None) -> dict:
    """The longest combinational path of `top`, in gate levels, between its registers and
    ports: `top` and everything under it synthesized flat (`SYNTH` with `-flatten`: ABC
    maps to two-input gates, 2-to-1 muxes and inverters), then Yosys's `ltp -noff` (the
    most cells on a path that starts at an input port, a flip-flop's output or a macro's
    output and ends at an output port, a flip-flop's input or a macro's input); a level is
    one such gate (an inverter counts as one). `macros`: black boxes (SRAM macros, clock
    gates) read as cells a path ends and starts at, as at a register (a macro's read is
    registered). Any latch fails the measurement, as a flip-flop count would hide it and
    `ltp -noff` stops at it. (An option read a named module's latches and registers as
    wires while plena's operand isolation was a latch, then a falling-edge register; since
    it is AND gates, plain logic on the path, nothing needs it.) Returns
    {"levels", "cells", "flip_flops", "cpu_s" (Yosys's user + system CPU), "path": the
    path's signals, from its start}."""
    import resource
    inc = "".join(f" -I{d}" for d in include)
    sets = " ".join(f"-set {k} {v}" for k, v in params.items())
    boxes = [Path(m).stem for m in macros]
    with tempfile.TemporaryDirectory(prefix="kc-ltp-") as tmp:
        out, latches = Path(tmp) / "ltp.txt", Path(tmp) / "latches.txt"
        steps = [f"read_verilog -sv -lib{inc} {' '.join(map(str, macros))}" if macros else "",
                 # -defer: nothing elaborated at its default parameters, only `top` at
                 # `params` and what it instantiates
                 f"read_verilog -sv -defer{inc} {' '.join(map(str, sources))}",
                 f"chparam {sets} $abstract\\{top}" if sets else "",
                 f"hierarchy -check -top {top}", "proc",
                 SYNTH.replace("synth -noshare", "synth -flatten -noshare").format(top=top),
                 f"tee -q -o {latches} select -count {LATCHES}", "check -assert",
                 # (a macro at parameters is a cell of type $paramod\\<name>\\<parameters>)
                 f"tee -q -o {out} ltp -noff *{''.join(f' t:*{b}* %d' for b in boxes)}"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        stat = run("; ".join(s for s in steps if s), timeout, cwd)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        text = out.read_text()
        left = int(re.search(r"(\d+) objects", latches.read_text()).group(1))
    if left:
        raise SynthesisError(f"{top}: {left} latch cells after synthesis (a latch ends a "
                             f"path in `ltp -noff`: the path would be undercounted)")
    m = re.search(r"Longest topological path in \S+ \(length=(-?\d+)\)", text)
    if m is None:
        raise SynthesisError("ltp printed no path:\n" + text[-2000:])
    path = [re.sub(r" \(via .*\)$", "", ln.split(":", 1)[1].strip())
            for ln in text[m.end():].splitlines() if re.match(r"\s*(\d+|ff):", ln)]
    mods = stat["modules"]      # the flat top (and the macros' empty boxes, if listed)
    mod = mods.get("\\" + top) or max(mods.values(), key=lambda m: m["num_cells"])
    return {"levels": int(m.group(1)), "cells": mod["num_cells"],
            "flip_flops": flip_flops(mod["num_cells_by_type"]),
            "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "path": path}
