"""The longest combinational path of each of plena's RTL units, in gate levels between
registers (and the unit's ports), from a flat synthesis (simulators/rtl/synth.py's
`longest_path`: Yosys `synth -flatten`, ABC's two-input gates, then `ltp -noff`).

The SRAM macros (plena_sram, plena_sram2w) and the clock gate (icg) are cells a path
starts and ends at, as at a register (a macro's read is registered; an ICG's enable is
latched inside the cell). plena_opiso, the operand isolation in front of the MAC array,
the vector groups, the reductions and the scalar fp unit, is AND gates (q = d & act, act
a 1-bit rising-edge register or the scalar unit's `go`; for V_TOPK's logits, in
plena_core, a mux with a holding register): simply logic on the path, which runs from
the operand registers (or act) through it and the datapath to the result registers, a
whole period in silicon. (It was plena_opreg, a falling-edge register read here as a
wire.) `python -m kernelcraft.simulators.plena_rtl.paths
UNIT... [--default | --small]` prints the figures (rtl/plena/README.md, "Longest paths").
"""
from __future__ import annotations

import argparse
import sys
import time

from kernelcraft.simulators.rtl import synth
from kernelcraft.simulators.plena_rtl import build

HARNESS = {"plena_sim.v", "plena_top.v", "plena_core.v"}
MACROS = ("plena_sram.v", "plena_sram2w.v")

# plena_vgroup's KIND (plena_vgroup.v's VK_*) and which chunk count it takes
VGROUP_KINDS = {"add": 0, "mul": 1, "max": 2, "exp": 3, "reci": 4, "map": 5}


def _chunks(kind: str) -> int:
    from kernelcraft.simulators.plena_rtl import timing
    s = timing.structure()
    return s["VCHUNKS_4"] if kind in ("exp", "reci") else s["VCHUNKS_1"]


def unit_params(unit: str, cfg) -> tuple[str, dict]:
    """(top module, its parameters) of `unit` at `cfg`, as plena_core instantiates it.
    Units: the rtl/common fp units plena uses, the fp pipelines, plena_sfpu, plena_vgroup
    per kind (`vgroup-add`, ...; `vlen` overrides VLEN: a group's lanes are copies, so its
    path is the same at any lane count), plena_vreduce (`vreduce-sum`, `vreduce-max`),
    plena_mac_lane, plena_topk, plena_dma, plena_check, plena_smem (`smem-fp`,
    `smem-int`), plena_msram, plena_vsram, plena_acc (`acc-bmm`, `acc-mm`: BMM_ACC and
    MM_ACC) and plena_matrix (the whole MAC array: its lanes, Matrix SRAM and
    accumulators)."""
    if unit in ("fp32_add", "fp32_mul", "bf16_mul", "fp32_max", "fp32_min", "fp32_to_bf16",
                "plena_exp_pipe", "plena_recip_pipe", "plena_sqrt_pipe", "plena_sfpu"):
        return unit, {}
    if unit == "fp32_tree_sum":          # plena_topk's sum of its KMAX = 8 weights
        return unit, {"L": 8}
    if unit.startswith("vgroup-"):
        kind = unit.removeprefix("vgroup-")
        return "plena_vgroup", {"VLEN": cfg.VLEN, "CHUNKS": _chunks(kind),
                                "KIND": VGROUP_KINDS[kind]}
    if unit.startswith("vreduce-"):
        return "plena_vreduce", {"VLEN": cfg.VLEN,
                                 "KIND": {"sum": 0, "max": 1}[unit.removeprefix("vreduce-")]}
    if unit == "plena_mac_lane":
        return unit, {"MLEN": cfg.MLEN, "HLEN": cfg.HLEN}
    if unit in ("plena_topk", "plena_dma", "plena_check", "plena_matrix"):
        return unit, cfg.as_dict()
    if unit == "smem-fp":                # plena_core's FP_MEM: MAP_LANES reads, 8 writes
        return "plena_smem", {"DEPTH": cfg.FP_MEM_SIZE, "NR": cfg.VLEN // _chunks("map"),
                              "NW": 8}
    if unit == "smem-int":
        return "plena_smem", {"DEPTH": cfg.INT_MEM_SIZE, "NR": 1, "NW": 8}
    if unit == "plena_msram":
        return unit, {k: getattr(cfg, k) for k in ("MLEN", "BLEN", "HLEN", "MSRAM_TILES")}
    if unit == "acc-bmm":                # plena_matrix's BMM_ACC and MM_ACC
        return "plena_acc", {"ROWS": cfg.MLEN, "COLS": cfg.MLEN, "BLEN": cfg.BLEN,
                             "HEADS": cfg.MLEN // cfg.HLEN}
    if unit == "acc-mm":
        return "plena_acc", {"ROWS": cfg.BLEN, "COLS": cfg.BLEN, "BLEN": cfg.BLEN, "HEADS": 1}
    if unit == "plena_vsram":
        return unit, {"VLEN": cfg.VLEN, "VSRAM_ROWS": cfg.VSRAM_ROWS}
    raise KeyError(f"unknown plena unit {unit!r}")


UNITS = ("fp32_to_bf16", "fp32_max", "fp32_min", "fp32_add", "bf16_mul", "fp32_mul",
         "fp32_tree_sum", "plena_recip_pipe", "plena_sqrt_pipe", "plena_exp_pipe", "plena_sfpu",
         *(f"vgroup-{k}" for k in VGROUP_KINDS), "vreduce-sum", "vreduce-max",
         "plena_mac_lane", "plena_topk", "plena_dma", "plena_check", "smem-fp", "smem-int",
         "plena_vsram", "plena_msram", "acc-bmm", "acc-mm", "plena_matrix")


def longest_path(unit: str, cfg, timeout: float = 3600, **overrides) -> dict:
    """`synth.longest_path` of `unit` at `cfg` (`overrides`: parameters set otherwise,
    e.g. VLEN), with "top" and "params" added."""
    top, params = unit_params(unit, cfg)
    params.update(overrides)
    sources = [p for p in build.sources("icarus")
               if p.name not in HARNESS and p.name not in MACROS and p.name != "icg.v"]
    macros = [build.PLENA_RTL / m for m in MACROS] + [build.COMMON_RTL / "icg.v"]
    r = synth.longest_path(sources, top, params, macros=macros,
                           include=(build.PLENA_RTL, build.COMMON_RTL), timeout=timeout)
    return {"unit": unit, "top": top, "params": params, **r}


def main(argv=None) -> int:
    from kernelcraft.isa.plena import default_config
    from kernelcraft.simulators.plena_rtl.randprog import DIFF_CONFIG
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("units", nargs="*", default=list(UNITS))
    ap.add_argument("--small", action="store_true", help="DIFF_CONFIG, not the default")
    ap.add_argument("--set", action="append", default=[], metavar="P=V",
                    help="a parameter of the unit's top set otherwise (e.g. VLEN=8)")
    ap.add_argument("--timeout", type=float, default=3600)
    args = ap.parse_args(argv)
    cfg = default_config(**DIFF_CONFIG) if args.small else default_config()
    over = {k: int(v) for k, v in (s.split("=", 1) for s in args.set)}
    for unit in args.units:
        t = time.time()
        try:
            r = longest_path(unit, cfg, args.timeout, **over)
        except synth.SynthesisError as e:
            print(f"{unit}: {e}", flush=True)
            continue
        print(f"{unit} {r['params']}: {r['levels']} levels, {r['cells']:,} cells, "
              f"{r['flip_flops']:,} flip-flops, {r['cpu_s']:.1f} s CPU, {time.time() - t:.0f} s "
              f"wall; path {r['path'][0]} -> {r['path'][-1]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
