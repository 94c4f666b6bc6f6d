"""Finding places in a debug session, free of any UI: a state by instruction number or
source line, watchpoints on registers and memory ranges (the next state after an
instruction wrote one), a value in a memory, and the output elements out of tolerance
as locations the memory view marks.

    parse_goto("120") -> ("instruction", 120); parse_goto("L42") -> ("line", 42)
    w = parse_watch("vsram:64+16", session)     # or "gp3", "STRIDE", "MM_ACC", "y"
    session.goto(next_write(session.main, [w]))
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from kernelcraft.simulators import numerics
from kernelcraft.tasks.tolerance import within

from .timeline import Timeline, Touched, _extent, _merge


class NavigationError(ValueError):
    """What was typed names no instruction, line, register, memory or value."""


def parse_goto(text: str) -> tuple[str, int]:
    """`120` (the state after 120 instructions) or `L42` / `line 42` (a source line)."""
    t = text.strip().lower()
    m = re.fullmatch(r"(?:l|line\s*|:)(\d+)", t)
    if m:
        return "line", int(m.group(1))
    if t.replace(",", "").replace("_", "").isdigit():
        return "instruction", int(t.replace(",", "").replace("_", ""))
    raise NavigationError(f"{text!r}: give an instruction number (e.g. 120) or a source "
                          f"line (L42)")


def goto_line(timeline: Timeline, line: int) -> int | None:
    """The next state about to execute `line` (after the cursor, wrapping to the first)."""
    hit = timeline.find({line}, forward=True)
    if hit is None and timeline.current() is not None and timeline.current().line == line:
        return timeline.position
    if hit is None:
        hit = next((k for k, st in enumerate(timeline.steps) if st.line == line), None)
    return hit


@dataclass(frozen=True)
class Watch:
    """A watched location: cells [start, end) of one trace space."""

    space: str
    start: int
    end: int
    text: str              # as typed, to show


def parse_watch(text: str, session) -> Watch:
    """A register (`gp3`, `f1`, `a0`, `STRIDE`, an accumulator), a memory range
    (`vsram:64..79`, `hbm:320+64`, `vsram:70`) or a layout region (`y`)."""
    t = text.strip()
    regs = session.main.registers
    layout = session.layout
    region = next((r for r in layout.regions if r.name == t), None)
    if region is not None:
        a, b = layout.span(region)
        return Watch(region.memory, a, b, t)
    mem, sep, where = t.partition(":")
    if sep:
        if mem not in session.main.memories:
            raise NavigationError(f"{t!r}: no memory {mem!r}; memories: "
                                  f"{', '.join(session.main.memories)}")
        base = layout.bases.get(mem, 0)
        try:
            if ".." in where:
                lo, hi = where.split("..", 1)
                start, end = int(lo, 0), int(hi, 0) + 1
            elif "+" in where:
                lo, n = where.split("+", 1)
                start, end = int(lo, 0), int(lo, 0) + int(n, 0)
            else:
                start = int(where, 0)
                end = start + 1
        except ValueError:
            raise NavigationError(f"{t!r}: addresses are numbers: MEM:A..B, MEM:A+N or "
                                  f"MEM:A (e.g. vsram:64+16)") from None
        size = np.asarray(session.main.memories[mem]).size
        if not (0 <= start - base < end - base <= size):
            raise NavigationError(f"{t!r} is outside {mem} ({base}..{base + size - 1})")
        return Watch(mem, start - base, end - base, t)
    if t in session.csr_names:
        i = session.csr_names.index(t)
        return Watch("csr", i, i + 1, t)
    if isinstance(regs.get(t), np.ndarray):
        return Watch(t, 0, int(np.size(regs[t])), t)
    m = re.fullmatch(r"([A-Za-z_]+?)(\d+)", t)
    if m and isinstance(regs.get(m.group(1)), list) and int(m.group(2)) < len(regs[m.group(1)]):
        n = int(m.group(2))
        return Watch(m.group(1), n, n + 1, t)
    names = [k for k, v in regs.items() if isinstance(v, list) and k != "LOOPS"]
    raise NavigationError(f"{t!r}: watch a register ({', '.join(f'{k}0' for k in names)}, "
                          f"{', '.join(session.csr_names) or 'no CSRs'}), a memory range "
                          f"(vsram:64+16) or a layout region "
                          f"({', '.join(r.name for r in layout.regions) or 'none'})")


def _writes(step, watches: list[Watch], units) -> Watch | None:
    for ch in step.changes:
        lo, hi = ch.address, ch.address + _extent(ch, units)
        for w in watches:
            if ch.space == w.space and lo < w.end and w.start < hi:
                return w
    return None


def next_write(timeline: Timeline, watches: list[Watch], forward: bool = True
               ) -> tuple[int, Watch] | None:
    """The state just after the next instruction (forwards or backwards from the
    cursor) that wrote a watched location, with the watch it hit; None if none does."""
    steps = timeline.steps
    rng = range(timeline.position, len(steps)) if forward else \
        range(timeline.position - 2, -1, -1)
    for k in rng:
        hit = _writes(steps[k], watches, timeline.units)
        if hit is not None:
            return k + 1, hit
    return None


def mismatches(session, outputs) -> Touched:
    """The output cells out of tolerance now, as locations (per memory, [start, end))
    the memory view marks; byte-addressed memories mark every byte of an element."""
    out = Touched()
    for o in outputs:
        bad = ~within(o.got, o.expected, o.tolerance, o.allowance).reshape(-1)
        idx = np.flatnonzero(bad)
        if not idx.size:
            continue
        region = next(r for r in session.layout.regions if r.name == o.name)
        start = session.layout.span(region)[0]
        size = (session.layout.span(region)[1] - start) // max(1, region.size)
        starts = start + idx * size
        out.ranges.setdefault(o.memory, []).extend(_merge(starts, starts + size))
    return out


# A byte-addressed memory is searched as the cells it is shown in: format -> storage
BYTE_CELLS = {"bf16": (np.uint16, "bf16"), "fp32": (np.float32, "fp32"),
              "int": (np.int32, "int32"), "hex": (np.int32, "int32")}


def find_value(values: np.ndarray, storage: str, query: str, after: int,
               fmt: str = "bf16") -> int | None:
    """The first cell after index `after` (wrapping) holding `query`: a number (compared
    at the memory's precision: a bf16 memory matches the query rounded to bf16), nan,
    inf, -inf, or 0x bits. A byte-addressed memory ("u8") is searched in the aligned
    cells of format `fmt`, as it is shown; the index returned is then a byte offset."""
    flat = np.asarray(values).reshape(-1)
    if storage == "u8":
        dtype, cells = BYTE_CELLS[fmt]
        width = np.dtype(dtype).itemsize
        usable = flat[:flat.size - flat.size % width]
        hit = find_value(np.ascontiguousarray(usable).view(dtype), cells, query,
                         after // width if after >= 0 else -1)
        return None if hit is None else hit * width
    q = query.strip().lower()
    as_float = numerics.bf16_bits_to_f32(flat) if storage == "bf16" else flat
    if q.startswith("0x"):
        try:
            bits = int(q, 16)
        except ValueError:
            raise NavigationError(f"{query!r} is not hex bits (e.g. 0x3F80)") from None
        view = flat.view(np.uint32) if flat.dtype.itemsize == 4 else flat.view(np.uint16)
        hit = view == bits
    elif q in ("nan", "inf", "-inf", "+inf"):
        hit = np.isnan(as_float) if q == "nan" else (as_float == float(q))
    else:
        try:
            v = float(q)
        except ValueError:
            raise NavigationError(f"{query!r}: search for a number, nan, inf or 0x bits") \
                from None
        if storage == "bf16":
            hit = flat == numerics.f32_to_bf16_bits(np.float32(v))
        else:
            hit = as_float == np.asarray(v).astype(flat.dtype)
    idx = np.flatnonzero(hit)
    if not idx.size:
        return None
    later = idx[idx > after]
    return int(later[0] if later.size else idx[0])
