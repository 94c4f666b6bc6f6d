"""Error heat maps (model/heat.py) drawn as coloured cells, one per row or tile."""
from __future__ import annotations

import math

from rich.text import Text
from textual.widgets import Static

from ...model.heat import HeatMap

# Colour by error / tolerance: comfortably inside, inside, near the edge, over.
SCALE = ((0.0, "#1f6f3f"), (0.25, "#3fa34d"), (0.5, "#b5c334"), (0.75, "#e0a020"),
         (1.0, "#e06c20"))
BAD = "#e03030"
EMPTY = "#303030"


def colour(value: float, bad: int) -> str:
    if bad or not math.isfinite(value) or value > 1.0:
        return BAD
    for edge, c in reversed(SCALE):
        if value >= edge:
            return c
    return SCALE[0][1]


def render_map(m: HeatMap, width: int) -> Text:
    out = Text()
    worst = "inf" if math.isinf(m.worst) else f"{m.worst:.3g}"
    out.append(f"{m.title} {tuple(m.shape)}: ", "bold")
    out.append(f"{m.n_bad} element(s) out of tolerance, " if m.n_bad else "all within tolerance, ",
               BAD if m.n_bad else "green")
    # normalised: beside a "max abs err" in output units, say which this is
    out.append("worst not finite (NaN or inf)\n" if math.isinf(m.worst) else
               f"worst {worst}x tolerance\n")
    rows, cols = m.values.shape
    label_w = len(str(max(0, rows * m.cell_rows - 1))) + 4
    if cols == 1:
        # One cell per row group: wrap them into lines.
        per_line = max(4, (width - label_w) // 2)
        for start in range(0, rows, per_line):
            out.append(f"r{start * m.cell_rows:<{label_w - 1}}", "grey50")
            for i in range(start, min(rows, start + per_line)):
                v, b = float(m.values[i, 0]), int(m.bad[i, 0])
                out.append("✗ " if b else "██", f"{BAD if b else colour(v, 0)}")
            out.append("\n")
    else:
        shown = max(1, min(cols, (width - label_w) // 2))
        for i in range(rows):
            out.append(f"r{i * m.cell_rows:<{label_w - 1}}", "grey50")
            for j in range(shown):
                v, b = float(m.values[i, j]), int(m.bad[i, j])
                out.append("✗ " if b else "██", BAD if b else colour(v, 0))
            if shown < cols:
                out.append(f" +{cols - shown} tiles", "grey50")
            out.append("\n")
    out.append(m.legend(), "grey50 italic")
    return out


class HeatMapView(Static):
    """One or more heat maps, redrawn to the widget's width."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.maps: list[HeatMap] = []
        self.caption = ""

    def show(self, maps: list[HeatMap], caption: str = "") -> None:
        self.maps, self.caption = maps, caption
        self.update(self._text())

    def on_resize(self) -> None:
        if self.maps:
            self.update(self._text())

    def _text(self) -> Text:
        if not self.maps:
            return Text(self.caption or "no output comparison here", "grey50 italic")
        width = max(20, self.size.width or 80)
        out = Text()
        if self.caption:
            out.append(self.caption + "\n", "italic")
        for i, m in enumerate(self.maps):
            if i:
                out.append("\n")
            out.append_text(render_map(m, width))
        return out
