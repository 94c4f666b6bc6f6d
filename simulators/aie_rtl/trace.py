"""The aie RTL's retirement trace (trace.txt of rtl/aie/aie_sim.v: "R index bundle
cycle" per issued bundle) as TraceStep records. The RTL trace carries no register or
memory changes yet: a lockstep comparison checks the bundle sequence and issue cycles,
and the end states are compared in full."""
from __future__ import annotations

from pathlib import Path

from kernelcraft.simulators.core.trace import TraceStep


def read_trace(directory: Path, code) -> list[TraceStep]:
    steps = []
    for raw in (Path(directory) / "trace.txt").read_text().splitlines():
        parts = raw.split()
        if parts and parts[0] == "R":
            index, b, cycle = int(parts[1]), int(parts[2]), int(parts[3])
            line, text = (code.lines[b], code.texts[b]) if b < len(code.lines) else (0, "")
            steps.append(TraceStep(index, b, line, text, cycle))
    return steps
