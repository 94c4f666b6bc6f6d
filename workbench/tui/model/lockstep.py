"""Two backends' traces of one program and image, moved together.

The functional model and the RTL must agree on every retired instruction: the same
instruction (pc), issue cycle and locations written with the same bits. Which step
is the first where they do not is decided by the accelerator's one trace comparison,
the one `kernelcraft rtl-check --lockstep` prints (`workbench.rtlcheck.trace_comparison`,
e.g. simulators/plena_rtl/compare.py `compare_traces`), so the debugger and the
command line never disagree about NaNs or the loop stack. `Lockstep` keeps both
timelines at the same state while the debugger moves and says, per state, what
each side's last instruction retired and wrote.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .timeline import Timeline


@dataclass(frozen=True)
class Divergence:
    step: int              # retired-instruction index where the traces first differ
    what: str              # what differs, in words (the comparison's own text)

    def __str__(self) -> str:
        return f"instruction #{self.step}: {self.what}"


def _divergence(found) -> Divergence | None:
    if found is None:
        return None
    text = found.format().replace("\n  ", ": ") if hasattr(found, "format") else str(found)
    return Divergence(int(found.step), text)


class Lockstep:
    """Two timelines moved together; `divergence` is computed once, on demand, by
    `compare(first_trace, second_trace)` (an object with .step and .format(), or None)."""

    def __init__(self, first: Timeline, second: Timeline, compare: Callable):
        self.first, self.second = first, second
        self.compare = compare
        self._divergence: Divergence | None | bool = False

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
        """The cursor is just after the first diverging instruction (its effects shown)."""
        d = self.divergence
        return d is not None and self.first.position == d.step + 1

