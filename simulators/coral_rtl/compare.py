"""Comparing a coral model run with an RTL run of the same program and image.

`compare_runs` compares how the runs ended, every byte of ITCM and DTCM, the integer,
fp and vector registers and CSRs (as bits), the cycle count and the activity counters,
most telling first. `compare_traces` walks two retirement traces in step and returns
the first instruction whose pc, issue cycle or writes differ. Both return the
Divergence records every RTL comparison shares (simulators/rtl/divergence.py).
"""
from __future__ import annotations

import numpy as np

from kernelcraft.simulators.core.backend import RunResult
from kernelcraft.simulators.core.trace import TraceStep
from kernelcraft.simulators.rtl.divergence import Divergence, counter_divergences

from .trace import writes

CSRS = ("fflags", "frm", "vxrm", "vxsat", "vl", "vtype")


def _stop_key(r: RunResult):
    e = r.error
    return None if e is None else (type(e), e.where.index, e.where.cycle, e.memory, e.address)


def _describe_stop(r: RunResult) -> str:
    if r.error is None:
        return r.stop
    e = r.error
    at = f" (address 0x{e.address:08x})" if e.address is not None else ""
    return (f"{r.stop}: {type(e).__name__} at instruction {e.where.index} (pc 0x{4 * e.where.index:x}), "
            f"cycle {e.where.cycle}{at}")


def compare_runs(model: RunResult, rtl: RunResult, limit: int = 8) -> list[Divergence]:
    out: list[Divergence] = []
    if model.stop != rtl.stop or _stop_key(model) != _stop_key(rtl):
        out.append(Divergence("stop", "how the run ended", _describe_stop(model), _describe_stop(rtl)))
    if model.retired != rtl.retired:
        out.append(Divergence("stop", "instructions retired", str(model.retired), str(rtl.retired)))
    for memory in model.memories:
        a = np.asarray(model.memories[memory], dtype=np.uint8)
        b = np.asarray(rtl.memories.get(memory, np.zeros(0, np.uint8)), dtype=np.uint8)
        if a.shape != b.shape:
            out.append(Divergence("memory", memory, f"{a.size} bytes", f"{b.size} bytes"))
            continue
        diff = np.flatnonzero(a != b)
        if diff.size:
            i = int(diff[0])
            more = f" (and {diff.size - 1} more bytes)" if diff.size > 1 else ""
            out.append(Divergence("memory", f"{memory}[{i}]{more}", f"0x{int(a[i]):02x}",
                                  f"0x{int(b[i]):02x}"))
    m, r = model.registers, rtl.registers
    for space in ("x", "f"):
        for i, (u, v) in enumerate(zip(m[space], r[space])):
            if u != v:
                out.append(Divergence("register", f"{space}{i}", f"0x{u:08x}", f"0x{v:08x}"))
    va, vb = np.asarray(m["v"]), np.asarray(r["v"])
    for i in np.flatnonzero((va != vb).any(axis=1)).tolist():
        out.append(Divergence("register", f"v{i}", va[i].tobytes().hex(), vb[i].tobytes().hex()))
    for name in CSRS:
        if m[name] != r[name]:
            out.append(Divergence("register", name, str(m[name]), str(r[name])))
    out += counter_divergences(model, rtl)
    return out[:limit]


def _describe(step: TraceStep) -> str:
    line = f" (line {step.line})" if step.line else ""
    return (f"retired instruction #{step.step}: pc 0x{4 * step.pc:x} (instruction {step.pc}){line} "
            f"`{step.text}`, issued at cycle {step.cycle}")


def _show(space: str, key: int, v) -> str:
    if v is None:
        return "(not written)"
    if space == "dtcm":
        return f"0x{v:02x}"
    if space in ("x", "f"):
        return f"0x{v:08x}"
    return str(v)


def _vector_divergence(addr: int, wa: dict, wb: dict, where: str, i: int) -> Divergence:
    """A vector register write that differs, named by register and 32-bit element."""
    reg, byte = divmod(addr, 4096)
    e = byte // 4

    def element(w):
        bs = [w.get(("v", reg * 4096 + 4 * e + k)) for k in range(4)]
        return "(not written)" if None in bs else f"0x{int.from_bytes(bytes(bs), 'little'):08x}"
    return Divergence("trace", f"v{reg} element {e}", element(wa), element(wb), where, i)


def compare_traces(model: list[TraceStep], rtl: list[TraceStep]) -> Divergence | None:
    """The first retired instruction at which the two traces differ."""
    for i, (a, b) in enumerate(zip(model, rtl)):
        if a.pc != b.pc:
            return Divergence("trace", "next instruction", f"pc 0x{4 * a.pc:x} `{a.text}`",
                              f"pc 0x{4 * b.pc:x} `{b.text}`", _describe(a), i)
        if a.cycle != b.cycle:
            return Divergence("trace", "issue cycle", str(a.cycle), str(b.cycle), _describe(a), i)
        wa, wb = writes(a), writes(b)
        if wa != wb:
            for key in sorted(set(wa) | set(wb)):
                if wa.get(key) != wb.get(key):
                    space, addr = key
                    if space == "v":
                        return _vector_divergence(addr, wa, wb, _describe(a), i)
                    where = f"dtcm byte {addr}" if space == "dtcm" else \
                        f"csr {('fflags', 'frm', 'vl', 'vtype', 'vxrm', 'vxsat')[addr]}" if space == "csr" else \
                        f"{space}{addr}"
                    return Divergence("trace", where, _show(space, addr, wa.get(key)),
                                      _show(space, addr, wb.get(key)), _describe(a), i)
    if len(model) != len(rtl):
        n = min(len(model), len(rtl))
        longer = model if len(model) > len(rtl) else rtl
        who = "model" if longer is model else "RTL"
        return Divergence("trace", "retired instructions", str(len(model)), str(len(rtl)),
                          f"the {who} goes on with {_describe(longer[n])}", n)
    return None
