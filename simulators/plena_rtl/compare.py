"""Comparing a functional-model run with an RTL run of the same program and image.

`compare_runs` compares how the runs ended, every element of every memory, every
register and accumulator (as bits), the cycle count and the activity counters, and
returns the differences found, most telling first. `compare_traces` walks two
retirement traces in step and returns the first instruction whose pc, issue cycle or
writes differ.
"""
from __future__ import annotations

import struct

import numpy as np

from kernelcraft.simulators.core.backend import RunResult
from kernelcraft.simulators.core.trace import TraceStep
from kernelcraft.simulators.rtl.divergence import Divergence, counter_divergences

from .trace import writes


def _f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", float(x)))[0]


def _show(memory: str, bits: int) -> str:
    if memory in ("hbm", "vsram", "msram"):
        v = np.array([bits], dtype=np.uint32) << 16
        return f"0x{bits:04X} ({float(v.view(np.float32)[0]):.7g})"
    if memory == "fp_mem":
        return f"0x{bits:08X} ({float(np.array([bits], np.uint32).view(np.float32)[0]):.7g})"
    return str(bits)


def _bits_array(memory: str, arr: np.ndarray) -> np.ndarray:
    if memory == "fp_mem":
        return np.asarray(arr, dtype=np.float32).view(np.uint32)
    if memory == "int_mem":
        return np.asarray(arr, dtype=np.int32)
    return np.asarray(arr, dtype=np.uint16)


def compare_runs(model: RunResult, rtl: RunResult, limit: int = 8) -> list[Divergence]:
    out: list[Divergence] = []
    me, re_ = model.error, rtl.error
    key = lambda e: None if e is None else (type(e), e.where.index, e.where.cycle, e.memory, e.address)
    if model.stop != rtl.stop or key(me) != key(re_):
        def describe(r):
            if r.error is None:
                return r.stop
            e = r.error
            at = f" ({e.memory} address {e.address})" if e.memory else ""
            return (f"{r.stop}: {type(e).__name__} at instruction {e.where.index}, "
                    f"cycle {e.where.cycle}{at}")
        out.append(Divergence("stop", "how the run ended", describe(model), describe(rtl)))
    if model.retired != rtl.retired:
        out.append(Divergence("stop", "instructions retired", str(model.retired), str(rtl.retired)))
    for memory in model.memories:
        a = _bits_array(memory, model.memories[memory])
        b = _bits_array(memory, rtl.memories.get(memory, np.zeros(0)))
        if a.shape != b.shape:
            out.append(Divergence("memory", memory, f"{a.size} elements", f"{b.size} elements"))
            continue
        diff = np.flatnonzero(a != b)
        if diff.size:
            i = int(diff[0])
            more = f" (and {diff.size - 1} more)" if diff.size > 1 else ""
            out.append(Divergence("memory", f"{memory}[{i}]{more}",
                                  _show(memory, int(a[i]) & 0xFFFFFFFF),
                                  _show(memory, int(b[i]) & 0xFFFFFFFF)))
    out += _registers(model.registers, rtl.registers)
    out += counter_divergences(model, rtl)
    return out[:limit]


def _registers(m: dict, r: dict) -> list[Divergence]:
    out = []
    for space in ("gp", "f", "a"):
        for i, (x, y) in enumerate(zip(m[space], r[space])):
            bx, by = (_f32_bits(x), _f32_bits(y)) if space == "f" else (x, y)
            if bx != by:
                show = (lambda v, b: f"0x{b:08X} ({v:.7g})") if space == "f" else (lambda v, b: str(v))
                out.append(Divergence("register", f"{space}{i}", show(x, bx), show(y, by)))
    for name in ("STRIDE", "SCALE_OFFSET", "V_MASK"):
        if m[name] != r[name]:
            out.append(Divergence("register", name, str(m[name]), str(r[name])))
    if list(m.get("LOOPS", [])) != list(r.get("LOOPS", [])):
        out.append(Divergence("register", "hardware loop stack", str(m["LOOPS"]), str(r["LOOPS"])))
    for name in ("MM_ACC", "MV_ACC", "BMM_ACC", "BMV_ACC"):
        a = np.asarray(m[name], np.float32).view(np.uint32).ravel()
        b = np.asarray(r[name], np.float32).view(np.uint32).ravel()
        diff = np.flatnonzero(a != b)
        if diff.size:
            i = int(diff[0])
            out.append(Divergence("register", f"{name}[{i}] (flat)", f"0x{int(a[i]):08X}",
                                  f"0x{int(b[i]):08X}"))
    return out


def _describe(step: TraceStep) -> str:
    line = f" (line {step.line})" if step.line else ""
    return f"retired instruction #{step.step}: pc {step.pc}{line} `{step.text}`, issued at cycle {step.cycle}"


def compare_traces(model: list[TraceStep], rtl: list[TraceStep]) -> Divergence | None:
    """The first retired instruction at which the two traces differ. The one
    comparison of traces: `rtl-check --lockstep` and the debugger's lockstep use it."""
    for i, (a, b) in enumerate(zip(model, rtl)):
        if a.pc != b.pc:
            return Divergence("trace", "next instruction", f"pc {a.pc} `{a.text}`",
                              f"pc {b.pc} `{b.text}`", _describe(a), i)
        if a.cycle != b.cycle:
            return Divergence("trace", "issue cycle", str(a.cycle), str(b.cycle), _describe(a), i)
        wa, wb = writes(a), writes(b)
        if wa != wb:
            for key in sorted(set(wa) | set(wb)):
                if wa.get(key) != wb.get(key):
                    space, addr = key
                    fmt = lambda v: "(not written)" if v is None else (
                        _show(space, v) if space in ("hbm", "vsram", "msram", "fp_mem") else
                        f"0x{v:08X}" if space in ("f", "MM_ACC", "MV_ACC", "BMM_ACC", "BMV_ACC")
                        else str(v))
                    return Divergence("trace", f"{space}[{addr}]", fmt(wa.get(key)),
                                      fmt(wb.get(key)), _describe(a), i)
    if len(model) != len(rtl):
        n = min(len(model), len(rtl))
        longer = model if len(model) > len(rtl) else rtl
        who = "model" if longer is model else "RTL"
        return Divergence("trace", "retired instructions", str(len(model)), str(len(rtl)),
                          f"the {who} goes on with {_describe(longer[n])}", n)
    return None
