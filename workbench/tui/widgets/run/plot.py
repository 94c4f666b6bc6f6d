"""Cycles and speed-up over a run's steps as a small text plot.

One column per step that ran `run_eval`: a bar of its cycles (green when the kernel
was correct, red when not; the baseline's cycles drawn as a dotted line), and under
it the speed-up over the baseline as a sparkline. The selected step is marked.
"""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...model.trace import Measure

BLOCKS = " ▁▂▃▄▅▆▇█"
HEIGHT = 5


def render_plot(series: list[tuple[int, Measure]], selected: int | None, width: int) -> Text:
    out = Text()
    if not series:
        out.append("cycles / speed-up: no kernel evaluated yet", "grey50 italic")
        return out
    cols = max(1, (width - 9) // 2)
    shown = series[-cols:]
    cycles = [m.cycles for _, m in shown if m.cycles]
    base = next((m.baseline_cycles for _, m in reversed(shown) if m.baseline_cycles), 0)
    top = max(cycles + [base]) if cycles or base else 1
    low = min(cycles + ([base] if base else [])) if cycles else 0
    # Bars start a quarter of the spread below the smallest value, so that differences
    # of a few percent between steps are visible.
    floor = max(0.0, low - max(top - low, top * 0.02) * 0.25)
    span = max(1.0, top - floor)

    def level(c: int) -> int:
        return round((c - floor) / span * HEIGHT * 8)
    out.append("cycles", "bold")
    out.append(f"  {low:,}..{top:,}" + (f"  baseline {base:,} ┄" if base else "") + "\n",
               "grey50")
    base_row = level(base) if base else -1
    for row in range(HEIGHT, 0, -1):
        out.append(f"{'':8}")
        for number, m in shown:
            eighths = level(m.cycles) if m.cycles else 0
            fill = max(0, min(8, eighths - (row - 1) * 8))
            style = "green" if m.passed else "red"
            if number == selected:
                style += " reverse"
            ch = BLOCKS[fill] if m.cycles else ("✗" if row == 1 else " ")
            if fill == 0 and base_row > 0 and (row - 1) * 8 < base_row <= row * 8:
                ch, style = "┄", "grey62"
            out.append(ch + " ", style)
        out.append("\n")
    speeds = [m.speedup for _, m in shown if m.passed and m.speedup]
    hi, lo = max(speeds + [1.0]), min(speeds + [1.0])
    out.append("speed-up", "bold")
    for number, m in shown:
        s = m.speedup if m.passed else 0.0
        ch = BLOCKS[max(1, round(1 + (s - lo) / max(hi - lo, 1e-9) * 7))] if s else "·"
        style = ("cyan" if s >= 1 else "yellow") if s else "grey50"
        if number == selected:
            style += " reverse"
        out.append(ch + " ", style)
    best = max((m.speedup for _, m in shown if m.passed), default=0.0)
    out.append(f"\n{'':8}steps {shown[0][0]}..{shown[-1][0]}", "grey50")
    if best:
        out.append(f"  best {best:.2f}x", "bold cyan")
    return out


class ProgressPlot(Static):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.series: list[tuple[int, Measure]] = []
        self.selected: int | None = None

    def show(self, series: list[tuple[int, Measure]], selected: int | None) -> None:
        self.series, self.selected = series, selected
        self.update(render_plot(series, selected, self.size.width or 40))

    def on_resize(self) -> None:
        self.update(render_plot(self.series, self.selected, self.size.width or 40))
