"""Comparing an aie functional-model run with an RTL run of the same program and image.

`compare_runs` compares how the runs ended (error type, bundle, failing slot, cycle,
address), the bundles retired, every byte of data memory and word of external memory,
every register (r, p, m, address generators, x, accumulators as bits, RM, locks, the
loop stack), the cycle count, the per-slot activity and the stall counts per cause.
`compare_traces` walks two retirement traces and returns the first bundle whose number or
issue cycle differs.
"""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators.core.backend import RunResult
from kernelcraft.simulators.core.trace import TraceStep
from kernelcraft.simulators.rtl.divergence import Divergence, counter_divergences


def _ended(r: RunResult) -> str:
    if r.error is None:
        return r.stop
    e = r.error
    at = f" (dm address {e.address})" if getattr(e, "memory", None) else ""
    if e.where.index < 0:                    # refused before running: say why
        return f"{r.stop}: {type(e).__name__}: {e}"
    return f"{r.stop}: {type(e).__name__} at {e.where.format()}, cycle {e.where.cycle}{at}"


def compare_runs(model: RunResult, rtl: RunResult, limit: int = 8) -> list[Divergence]:
    out: list[Divergence] = []
    # the failing slot too (a deadlock's: the ACQ's or the DMAIN/DMAOUT's that waits)
    key = lambda e: None if e is None else (
        type(e), e.where.index, getattr(e.where, "op", ""),
        e.where.cycle, getattr(e, "memory", None), getattr(e, "address", None))
    if model.stop != rtl.stop or key(model.error) != key(rtl.error):
        out.append(Divergence("stop", "how the run ended", _ended(model), _ended(rtl)))
    if model.retired != rtl.retired:
        out.append(Divergence("stop", "bundles retired", str(model.retired), str(rtl.retired)))
    for memory in ("dm", "ext"):
        a, b = np.asarray(model.memories[memory]), np.asarray(rtl.memories[memory])
        diff = np.flatnonzero(a != b)
        if diff.size:
            i = int(diff[0])
            more = f" (and {diff.size - 1} more)" if diff.size > 1 else ""
            out.append(Divergence("memory", f"{memory}[{i}]{more}", f"0x{int(a[i]):02X}",
                                  f"0x{int(b[i]):02X}"))
    m, r = model.registers, rtl.registers
    for space in ("r", "p", "m"):
        for i, (x, y) in enumerate(zip(m[space], r[space])):
            if x != y:
                out.append(Divergence("register", f"{space}{i}", str(x), str(y)))
    for i, (x, y) in enumerate(zip(m["g"], r["g"])):
        if x != y:
            out.append(Divergence("register", f"g{i}", str(x), str(y)))
    for space, width in (("x", np.uint8), ("acc", np.uint32)):
        a = np.asarray(m[space]).view(width)
        b = np.asarray(r[space]).view(width)
        diff = np.argwhere(a != b)
        if diff.size:
            i, j = (int(v) for v in diff[0])
            out.append(Divergence("register", f"{space}{i}[{j}]", f"0x{int(a[i, j]):X}",
                                  f"0x{int(b[i, j]):X}"))
    norm = lambda v: [list(map(int, e)) for e in v] if name == "LOOPS" else \
        (list(map(int, v)) if isinstance(v, (list, tuple)) else int(v))
    for name in ("RM", "locks", "LOOPS"):
        if norm(m[name]) != norm(r[name]):
            out.append(Divergence("register", name, str(m[name]), str(r[name])))
    out += counter_divergences(model, rtl, "bundles using slot {}", "stall cycles ({})")
    return out[:limit]


def _describe(step: TraceStep) -> str:
    line = f" (line {step.line})" if step.line else ""
    return f"retired bundle #{step.step}: bundle {step.pc}{line} `{step.text}`, issued at cycle {step.cycle}"


def compare_traces(model: list[TraceStep], rtl: list[TraceStep]) -> Divergence | None:
    """The first retired bundle at which the two traces differ (bundle number or issue
    cycle); the debugger's lockstep view and `rtl-check --lockstep` use it."""
    if rtl is None or model is None:             # a run refused before simulating: no trace
        return None
    for i, (a, b) in enumerate(zip(model, rtl)):
        if a.pc != b.pc:
            return Divergence("trace", "next bundle", f"bundle {a.pc} `{a.text}`",
                              f"bundle {b.pc} `{b.text}`", _describe(a), i)
        if a.cycle != b.cycle:
            return Divergence("trace", "issue cycle", str(a.cycle), str(b.cycle), _describe(a), i)
    if len(model) != len(rtl):
        n = min(len(model), len(rtl))
        longer = model if len(model) > len(rtl) else rtl
        who = "model" if longer is model else "RTL"
        return Divergence("trace", "bundles retired", str(len(model)), str(len(rtl)),
                          f"the {who} goes on with {_describe(longer[n])}", n)
    return None
