"""Two backends' traces of one program and image, compared step by step.

The functional model and the RTL must agree on every retired instruction: the same
instruction (pc), the same locations changed to the same values. `first_divergence`
names the first step where they do not, which is where a person starts looking;
`Lockstep` keeps both timelines at the same state while a debugger moves.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulators.core.trace import Change, TraceStep

from .timeline import Timeline


@dataclass(frozen=True)
class Divergence:
    step: int              # retired-instruction index where the traces first differ
    what: str              # what differs, in words

    def __str__(self) -> str:
        return f"step {self.step}: {self.what}"


def _same_value(a, b) -> bool:
    if np.ndim(a) or np.ndim(b):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind == "f" or b.dtype.kind == "f":   # NaN equals NaN here
            return bool(np.array_equal(a, b, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return a == b


def _changes_differ(a: list[Change], b: list[Change]) -> str | None:
    key = lambda c: (c.space, c.address)  # noqa: E731
    da, db = {key(c): c for c in a}, {key(c): c for c in b}
    for k in sorted(set(da) | set(db), key=str):
        if k not in da or k not in db:
            side = "second" if k not in da else "first"
            return f"only the {side} backend wrote {k[0]}[{k[1]}]"
        if not _same_value(da[k].new, db[k].new):
            return f"{k[0]}[{k[1]}] written differently"
    return None


def first_divergence(a: list[TraceStep], b: list[TraceStep]) -> Divergence | None:
    """The first step at which two traces differ (pc, cycle or changes), or None."""
    for i, (sa, sb) in enumerate(zip(a, b)):
        if sa.pc != sb.pc:
            return Divergence(i, f"instruction {sa.pc} (line {sa.line}) against "
                                 f"instruction {sb.pc} (line {sb.line})")
        what = _changes_differ(sa.changes, sb.changes)
        if what:
            return Divergence(i, f"{what} by instruction {sa.pc} `{sa.text}` (line {sa.line})")
        if sa.cycle != sb.cycle:
            return Divergence(i, f"instruction {sa.pc} `{sa.text}` issues at cycle {sa.cycle} "
                                 f"against {sb.cycle}")
    if len(a) != len(b):
        return Divergence(min(len(a), len(b)),
                          f"one run retired {len(a)} instructions, the other {len(b)}")
    return None


class Lockstep:
    """Two timelines moved together; `divergence` is computed once, on demand."""

    def __init__(self, first: Timeline, second: Timeline):
        self.first, self.second = first, second
        self._divergence: Divergence | None | bool = False

    @property
    def divergence(self) -> Divergence | None:
        if self._divergence is False:
            self._divergence = first_divergence(self.first.steps, self.second.steps)
        return self._divergence  # type: ignore[return-value]

    def goto(self, target: int) -> None:
        self.first.goto(target)
        self.second.goto(self.first.position)
