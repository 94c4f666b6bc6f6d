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

import numpy as np

from .timeline import Timeline
from .views.base import Seg


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



def _value(v) -> str:
    if np.ndim(v):
        a = np.asarray(v).ravel()
        head = ", ".join(str(x) for x in a[:2].tolist())
        return f"{a.size} el [{head}{', ...' if a.size > 2 else ''}]"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def side_lines(timeline: Timeline, limit: int) -> list[list[Seg]]:
    """What one backend's last instruction retired and wrote (at most `limit` lines)."""
    step = timeline.previous()
    if step is None:
        return [[Seg("(nothing retired yet)", "dim")]]
    out = [[Seg(f"#{step.step} ", "label"), Seg(step.text, "title")],
           [Seg(f"pc {step.pc} line {step.line} cycle {step.cycle}", "dim")]]
    writes = [ch for ch in step.changes if ch.space != "LOOPS"]
    for ch in writes[:max(0, limit - len(out))]:
        out.append([Seg(f"{ch.space}[{ch.address}] ", "label"), Seg(_value(ch.new))])
    if len(writes) > limit - 2 > 0:
        out[-1] = [Seg(f"... {len(writes) - (limit - 3)} more writes", "dim")]
    if not writes and len(out) < limit:
        out.append([Seg("(wrote nothing)", "dim")])
    return out


def lockstep_lines(session, width: int, height: int, note: str = "") -> list[list[Seg]]:
    """The model | RTL pane pair: per side its last retired instruction and writes,
    side by side, the first divergence named and highlighted when the cursor is on
    it; before the RTL is attached, `note` (its build state)."""
    if len(session.timelines) < 2:
        return [[Seg("RTL ", "title"), Seg(note or "not attached", "warn")]]
    ls = session.lockstep
    d = ls.divergence
    col = max(10, (width - 3) // 2)
    if d is None:
        verdict = [Seg("agree on every instruction", "good")]
    elif ls.at_divergence:
        verdict = [Seg(f"first divergence, at #{d.step}", "bad")]
    else:
        where = "ahead" if session.position <= d.step else "behind"
        verdict = [Seg(f"diverge at #{d.step} ({where}; D jumps)", "warn")]
    if col < 30:                      # narrow (80 columns): one side above the other
        out = [verdict]
        room = max(2, (height - 1 - (1 if ls.at_divergence else 0)) // 2)
        for tl in (ls.first, ls.second):
            lines = side_lines(tl, room)
            first = [Seg(f"{tl.backend} ", "title")] + lines[0]
            if ls.at_divergence:
                first = [Seg(x.text, "bad") for x in first]
            out += [first] + [[Seg("  ")] + ln for ln in lines[1:room]]
        if ls.at_divergence:
            out.append([Seg(d.what, "bad")])
        return out
    head = [Seg(f"{session.main.backend:<{col}}"[:col], "title"), Seg(" │ ", "dim"),
            Seg(session.timelines[1].backend, "title")]
    body = height - 2 - (1 if ls.at_divergence else 0)
    left, right = side_lines(ls.first, body), side_lines(ls.second, body)
    bad = ls.at_divergence
    out = [verdict, head]
    for i in range(max(len(left), len(right))):
        a = left[i] if i < len(left) else []
        b = right[i] if i < len(right) else []
        text = "".join(s.text for s in a)
        cut = a if len(text) <= col else [Seg(text[:col - 1] + "…", a[0].role if a else "")]
        pad = col - min(col, len(text))
        line = [Seg(s.text, "bad" if bad and i == 0 else s.role) for s in cut]
        line += [Seg(" " * pad), Seg(" │ ", "dim")]
        line += [Seg(s.text, "bad" if bad and i == 0 else s.role) for s in b]
        out.append(line)
    if ls.at_divergence:
        out.append([Seg(d.what, "bad")])
    return out
