"""Two backends' traces of one program and image, moved together.

The functional model and the RTL must agree on every retired instruction: the same
instruction (pc), issue cycle and locations written with the same bits. Which step
is the first where they do not is decided by the accelerator's one trace comparison,
the one `kernelcraft rtl-check --lockstep` prints (`workbench.rtlcheck.trace_comparison`,
e.g. simulators/plena_rtl/compare.py `compare_traces`), so the debugger and the
command line never disagree about NaNs or the loop stack. `Lockstep` keeps both
timelines at the same state while the debugger moves and says, per state, what
each side's last instruction retired and wrote. The end states are compared too, by
the comparison rtl-check prints beside it (`compare_runs`): a trace that records no
writes (aie's RTL: bundles and issue cycles only) is checked there.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .formats import format_cells
from .timeline import Timeline
from .views.base import Seg, cell

# a location as the comparisons name one: "vsram[130]" (plena), "dtcm byte 12", "x5",
# "csr fflags" (coral)
LOCATION = re.compile(r"^(\w+)\[(\d+)\]|^(\w+) byte (\d+)$|^([a-z]+)(\d+)$|^csr (\w+)$")


def location(where: str, csr_names: tuple[str, ...] = ()) -> tuple[str, int] | None:
    """(space, element) of a location a comparison names, in the trace's spaces; None
    when it names none (e.g. "issue cycle")."""
    m = LOCATION.match(where)
    if m is None:
        return None
    if m[7] is not None:
        return ("csr", csr_names.index(m[7])) if m[7] in csr_names else None
    space, element = next((m[i], m[i + 1]) for i in (1, 3, 5) if m[i] is not None)
    return space, int(element)


@dataclass(frozen=True)
class Divergence:
    step: int              # retired-instruction index where the traces first differ
    what: str              # what differs, in words (the comparison's own text)
    where: str = ""        # the location it names, when it names one ("vsram[130]")
    detail: str = ""       # what differs there, without the instruction ("x6: model .., RTL ..")

    def __str__(self) -> str:
        return f"instruction #{self.step}: {self.what}"


def _divergence(found) -> Divergence | None:
    if found is None:
        return None
    full = found.format() if hasattr(found, "format") else str(found)
    return Divergence(int(found.step), full.replace("\n  ", ": "),
                      str(getattr(found, "where", "") or ""), full.splitlines()[-1].strip())


class Lockstep:
    """Two timelines moved together; `divergence` is computed once, on demand, by
    `compare(first_trace, second_trace)` (an object with .step and .format(), or None)."""

    def __init__(self, first: Timeline, second: Timeline, compare: Callable,
                 compare_runs: Callable | None = None, csr_names: tuple[str, ...] = ()):
        self.first, self.second = first, second
        self.compare, self.compare_runs = compare, compare_runs
        self.csr_names = csr_names
        self._divergence: Divergence | None | bool = False
        self._end: list[str] | None = None

    @property
    def end_differences(self) -> list[str]:
        """What differs between the two runs' end states (memories, registers, counters,
        how they stopped), by `compare_runs`; [] without one."""
        if self._end is None:
            self._end = [] if self.compare_runs is None else [
                d.format() for d in self.compare_runs(self.first.final_result(),
                                                      self.second.final_result())]
        return self._end

    @property
    def agree(self) -> bool:
        """No instruction diverges and the end states are the same (rtl-check's verdict)."""
        return self.divergence is None and not self.end_differences

    @property
    def traces_writes(self) -> bool:
        """Whether the second side's trace records writes (aie's RTL records bundles and
        issue cycles only: its writes are checked in the end states)."""
        return self.second.records_writes or not self.first.records_writes

    @property
    def divergence(self) -> Divergence | None:
        if self._divergence is False:
            self._divergence = _divergence(self.compare(self.first.steps, self.second.steps))
        return self._divergence  # type: ignore[return-value]

    def goto(self, target: int) -> None:
        self.first.goto(target)
        self.second.goto(self.first.position)

    @property
    def at_divergence(self) -> bool:
        """The cursor is just after the first diverging instruction (its effects shown;
        the end, when the first side retired no more)."""
        d = self.divergence
        return d is not None and self.first.position == min(d.step + 1, self.first.length)

    def field(self) -> str | tuple[str, int] | None:
        """What differs in the first diverging instruction, to mark on both sides:
        "pc" (another instruction, or one side retired no more), "cycle" (issued at
        another cycle), (space, element) for a location the comparison names, or
        "writes" when it names none. None when the traces agree."""
        d = self.divergence
        if d is None:
            return None
        a, b = (tl.steps[d.step] if d.step < tl.length else None
                for tl in (self.first, self.second))
        if a is None or b is None or a.pc != b.pc:
            return "pc"
        if a.cycle != b.cycle:
            return "cycle"
        return location(d.where, self.csr_names) or "writes"


def _cells(space: str, a: np.ndarray, dtypes: dict, fmt: str) -> list[str]:
    """Elements written to `space` in the debugger's format (memories by their
    storage type, registers as their values)."""
    storage = dtypes.get(space)
    if storage in ("bf16", "fp32", "int32"):
        return format_cells(a, storage, fmt)
    return [cell(x, fmt) for x in a.tolist()]


def _values(space: str, v, dtypes: dict, fmt: str, limit: int = 2) -> str:
    """A written value: a scalar, or an array's size and first elements."""
    if not np.ndim(v):
        return cell(v.item() if isinstance(v, np.generic) else v, fmt)
    a = np.asarray(v).ravel()
    head = _cells(space, a[:limit], dtypes, fmt)
    return f"{a.size} el [{', '.join(head)}{', ...' if a.size > limit else ''}]"


def _element(ch, element: int, dtypes: dict, fmt: str) -> str | None:
    """The value `ch` wrote to `element` of its space, or None if it did not write it."""
    if not np.ndim(ch.new):
        return _values(ch.space, ch.new, dtypes, fmt) if ch.address == element else None
    k = element - ch.address
    a = np.asarray(ch.new).ravel()
    return _cells(ch.space, a[k:k + 1], dtypes, fmt)[0] if 0 <= k < a.size else None


def _loops(timeline: Timeline, other: Timeline | None) -> str:
    """The loop stack after this state (body pcs), when the accelerator has one."""
    if "LOOPS" not in timeline.registers:
        return ""
    if other is not None and not timeline.records("LOOPS") and other.records("LOOPS"):
        return " loops: not in its trace"
    stack = timeline.registers["LOOPS"]
    return " loops " + (" ".join(str(x[0] if isinstance(x, (list, tuple)) else x)
                                 for x in stack) or "-")


def side_lines(timeline: Timeline, limit: int, mark=None, other: Timeline | None = None,
               dtypes: dict | None = None, fmt: str = "bf16",
               traces_writes: bool = True) -> list[list[Seg]]:
    """What one backend's last instruction retired and wrote and its loop stack (at
    most `limit` lines); `mark` (Lockstep.field) is the field that differs from the
    other side, shown first and marked. `traces_writes` False: its trace records no
    writes, which is said instead of "(wrote nothing)"."""
    dtypes = dtypes or {}
    step = timeline.previous()
    if step is None:
        return [[Seg("(nothing retired yet)", "bad" if mark == "pc" else "dim")]]
    bad = lambda f: "bad" if mark == f else ""
    out = [[Seg(f"#{step.step} ", "label"), Seg(step.text, bad("pc") or "title")],
           [Seg(f"pc {step.pc}", bad("pc") or "dim"), Seg(f" line {step.line}", "dim"),
            Seg(f" cycle {step.cycle}", bad("cycle") or "dim"),
            Seg(_loops(timeline, other),
                "changed" if any(ch.space == "LOOPS" for ch in step.changes) else "dim")]]
    writes = [ch for ch in step.changes if ch.space != "LOOPS"]
    if isinstance(mark, tuple):
        space, element = mark
        hit = next((ch for ch in writes if ch.space == space
                    and _element(ch, element, dtypes, fmt) is not None), None)
        value = _element(hit, element, dtypes, fmt) if hit else "(not written)"
        out.append([Seg(f"≠ {space}[{element}] ", "bad"), Seg(value, "bad")])
        if hit is not None and not np.ndim(hit.new):      # said in full already
            writes.remove(hit)
    line = lambda ch: [Seg(f"{ch.space}[{ch.address}] ", "label"),  # noqa: E731
                       Seg(_values(ch.space, ch.new, dtypes, fmt), bad("writes"))]
    room = limit - len(out)
    if len(writes) > room > 0:                  # the last line says how many more
        out += [line(ch) for ch in writes[:room - 1]]
        out.append([Seg(f"... {len(writes) - (room - 1)} more writes", "dim")])
    else:
        out += [line(ch) for ch in writes[:max(0, room)]]
    if not writes and len(out) < limit:
        out.append([Seg("(wrote nothing)", "bad" if mark == "writes" else "dim")] if traces_writes
                   else [Seg("(its trace records no writes: compared at the end)", "dim")])
    return out[:limit]


def _cut(line: list[Seg], width: int) -> list[Seg]:
    """A line cut to `width` characters (an ellipsis at the cut), roles kept."""
    out, used = [], 0
    for seg in line:
        if used + len(seg.text) <= width:
            out.append(seg)
            used += len(seg.text)
        else:
            out.append(Seg(seg.text[:max(0, width - used - 1)] + "…", seg.role))
            used = width
            break
    return out + [Seg(" " * (width - used))] if used < width else out


def lockstep_lines(session, width: int, height: int, note: str = "",
                   fmt: str = "bf16") -> list[list[Seg]]:
    """The model | RTL pane pair: per side its last retired instruction, writes and
    loop stack, side by side (one above the other when narrow); at the first
    divergence the field that differs (the instruction, its cycle, or the location
    and the value each side wrote there) marked on both sides. Before the RTL is
    attached, `note` (its build state)."""
    if len(session.timelines) < 2:
        return [[Seg("RTL ", "title"), Seg(note or "not attached", "warn")]]
    ls = session.lockstep
    d = ls.divergence
    mark = ls.field() if ls.at_divergence else None
    sides = (ls.first, ls.second)
    dtypes = getattr(session, "memory_dtypes", {}) or {}
    noun = session.view.step_noun if getattr(session, "view", None) else "instruction"
    if d is None and ls.end_differences:
        verdict = [Seg(f"every {noun} agrees; the end states differ: ", "bad"),
                   Seg(ls.end_differences[0].splitlines()[-1].strip(), "bad")]
    elif d is None:
        verdict = [Seg(f"agree on every {noun}" + ("" if ls.traces_writes else
                                                   " and at the end"), "good")]
    elif ls.at_divergence:
        verdict = [Seg(f"first divergence, at #{d.step}", "bad")]
        if d.where:
            verdict.append(Seg(f": {d.where}", "bad"))
    else:
        where = "ahead" if session.position <= d.step else "behind"
        verdict = [Seg(f"diverge at #{d.step} ({where}; D jumps)", "warn")]
    # the instruction is on both sides already, unless they retired different ones
    foot = [[Seg(d.what if mark == "pc" else d.detail, "bad")]] if ls.at_divergence else []
    col = max(10, (width - 3) // 2)
    if col < 30:                      # narrow (80 columns): one side above the other
        out = [verdict]
        room = max(2, (height - 1 - len(foot)) // 2)
        for tl, other in zip(sides, reversed(sides)):
            lines = side_lines(tl, room, mark, other, dtypes, fmt, tl is ls.first or ls.traces_writes)
            out += [[Seg(f"{tl.backend} ", "title")] + lines[0]]
            out += [[Seg("  ")] + ln for ln in lines[1:room]]
        return out + foot
    head = [Seg(f"{sides[0].backend:<{col}}"[:col], "title"), Seg(" │ ", "dim"),
            Seg(sides[1].backend, "title")]
    body = height - 2 - len(foot)
    left, right = (side_lines(tl, body, mark, other, dtypes, fmt,
                              tl is ls.first or ls.traces_writes)
                   for tl, other in zip(sides, reversed(sides)))
    out = [verdict, head]
    for i in range(max(len(left), len(right))):
        a = left[i] if i < len(left) else []
        b = right[i] if i < len(right) else []
        out.append(_cut(a, col) + [Seg(" │ ", "dim")] + b)
    return out + foot
