"""One difference between a functional-model run and an RTL run: the record every
accelerator's comparison (`<accel>_rtl/compare.py`) returns and rtl-check prints."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Divergence:
    what: str                  # "stop", "memory", "register", "cycles", "activity", "trace"
    where: str                 # e.g. "vsram[130]", "gp5", "the cycle count"
    model: str
    rtl: str
    instruction: str = ""      # for trace divergences: the retired instruction
    step: int | None = None    # for trace divergences: its index in the traces

    def format(self) -> str:
        head = f"{self.where}: model {self.model}, RTL {self.rtl}"
        return f"{self.instruction}\n  {head}" if self.instruction else head


def counter_divergences(model, rtl, unit: str = "busy cycles of unit {}",
                        stall: str = "stall counter {}") -> list[Divergence]:
    """The cycle count and the activity counters of two runs (RunResults), in the words
    each accelerator uses for its units and stalls (`unit`, `stall`: format strings)."""
    out = []
    if model.cycles != rtl.cycles:
        gap = rtl.cycles - model.cycles
        rel = f", {100 * gap / model.cycles:+.3f}%" if model.cycles else ""
        out.append(Divergence("cycles", "the cycle count", str(model.cycles),
                              f"{rtl.cycles} ({gap:+d}{rel})"))
    for label, a_counts, b_counts in ((unit, model.unit_busy, rtl.unit_busy),
                                      (stall, model.stalls, rtl.stalls)):
        for k in sorted(set(a_counts) | set(b_counts)):
            a, b = a_counts.get(k, 0), b_counts.get(k, 0)
            if a != b:
                out.append(Divergence("activity", label.format(k), str(a), str(b)))
    return out


def runs_differences(jobs, first, second, compare_runs, compare_traces) -> list[str]:
    """What differs between two runs of the same jobs (RunResults `first[i]`,
    `second[i]` of `jobs[i]`), e.g. an RTL under cocotb and in bulk mode: each job's
    state divergences (`compare_runs`, the accelerator's), how it stopped, and for a
    traced job the first trace divergence (`compare_traces`). Empty when identical."""
    out = []
    for n, (job, a, b) in enumerate(zip(jobs, first, second)):
        name = f"job {n} ({job.program.source_name})"
        out += [f"{name}: {d.format()}" for d in compare_runs(a, b)]
        if (a.stop, a.retired, repr(a.error)) != (b.stop, b.retired, repr(b.error)):
            out.append(f"{name}: stopped {a.stop} after {a.retired} ({a.error!r}) against "
                       f"{b.stop} after {b.retired} ({b.error!r})")
        if job.trace:
            d = compare_traces(a.trace, b.trace) if a.trace and b.trace else None
            if d is not None or not (a.trace and b.trace):
                out.append(f"{name}: trace: {d.format() if d else 'missing'}")
    if len(first) != len(jobs) or len(second) != len(jobs):
        out.append(f"{len(jobs)} jobs, {len(first)} and {len(second)} results")
    return out
