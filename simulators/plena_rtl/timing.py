"""How many cycles each timing class takes in the plena RTL, from the RTL's own structure.

The RTL does not read hardware.toml's timing table: every unit signals its own last
cycle (a pipeline's valid bit, a step count against its own depth). hardware.toml's
classes are the functional model's account of that, and this module is how they are
held to it: it reads the structure constants the units are built from (plena_units.vh)
and derives what each class takes on a configuration. build.check_config refuses a
configuration whose classes differ, and tests/rtl/plena/test_structure.py checks the
default and test configurations. The differential tests are the proof that the RTL
really takes these cycles; this is the early, readable error.
"""
from __future__ import annotations

import re
from functools import lru_cache

from .build import PLENA_RTL

UNITS_VH = PLENA_RTL / "plena_units.vh"
NAMES = ("VDEPTH_1", "VDEPTH_4", "VCHUNKS_1", "VCHUNKS_4", "RED_EXTRA", "SFP_DEPTH",
         "MAC_DEPTH", "WO_DEPTH", "TOPK_EXTRA", "VSHIFT_DEPTH")


@lru_cache(maxsize=1)
def structure() -> dict[str, int]:
    """The units' structure constants, as plena_units.vh defines them."""
    text = UNITS_VH.read_text()
    found = {m.group(1): int(m.group(2))
             for m in re.finditer(r"localparam\s+integer\s+(\w+)\s*=\s*(\d+)\s*;", text)}
    missing = [n for n in NAMES if n not in found]
    if missing:
        raise RuntimeError(f"{UNITS_VH.name} no longer defines {', '.join(missing)}")
    return {n: found[n] for n in NAMES}


def rtl_cycles(cfg) -> dict[str, int]:
    """Timing class -> cycles the RTL takes for it on `cfg` (H_XFER: the issue cycle;
    a transfer's own time is the DMA rule's)."""
    s = structure()
    heads = cfg.MLEN // cfg.HLEN
    nb = cfg.MLEN // cfg.BLEN
    simple = s["VCHUNKS_1"] + s["VDEPTH_1"]
    piped = s["VCHUNKS_4"] + s["VDEPTH_4"]
    red = (cfg.VLEN.bit_length() - 1) + s["RED_EXTRA"]     # one tree level per cycle
    return {
        "S_INT": 1, "S_FP": 1,
        "S_FP_EXP": s["SFP_DEPTH"], "S_FP_RECI": s["SFP_DEPTH"], "S_FP_SQRT": s["SFP_DEPTH"],
        "V_MAP": simple, "V_ADD": simple, "V_MUL": simple, "V_MAX": simple,
        "V_EXP": piped, "V_RECI": piped,
        "V_RED_SUM": red, "V_RED_MAX": red,
        "V_SHIFT": 1 + s["VSHIFT_DEPTH"], "V_TOPK": 8 + s["TOPK_EXTRA"], "V_TOPK_32": 4 + s["TOPK_EXTRA"],
        "M_MM": cfg.BLEN + s["MAC_DEPTH"], "M_MV": nb + s["MAC_DEPTH"],
        "M_BMM": cfg.MLEN * nb + s["MAC_DEPTH"], "M_BMV": nb + s["MAC_DEPTH"],
        "M_MM_WO": cfg.BLEN + s["WO_DEPTH"], "M_MV_WO": 1 + s["WO_DEPTH"],
        "M_BMM_WO": heads * cfg.MLEN + s["WO_DEPTH"], "M_BMV_WO": heads + s["WO_DEPTH"],
        "H_XFER": 1, "C_SET": 1, "C_LOOP_START": 1, "C_LOOP_END": 1,
    }


def mismatches(cfg) -> list[str]:
    """Classes whose hardware.toml cycles differ from the RTL's on `cfg`, described."""
    rtl = rtl_cycles(cfg)
    classes = cfg.isa.timing
    out = [f"{c}: hardware.toml {cfg.cycles(c)}, RTL {rtl[c]}"
           for c in classes if c in rtl and cfg.cycles(c) != rtl[c]]
    out += [f"{c}: not built in the RTL" for c in classes if c not in rtl]
    return out
