"""The output regions at the current state against the reference: how much matches,
where the error is (a heat map per tile), and the first mismatches."""
from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...model.debugger import OutputCheck
from ...model.heat import from_arrays
from ..common.heatmap import HeatMapView


def outputs_text(checks: list[OutputCheck]) -> Text:
    out = Text()
    for c in checks:
        cmp = c.comparison
        where = f"0x{c.address:X}" if c.byte_address else str(c.address)
        out.append(f"{c.name} {'x'.join(map(str, c.shape))} {c.dtype} in {c.memory}"
                   f"[{where}..]: ", "bold")
        out.append("matches the reference" if cmp.passed else
                   f"{cmp.n_bad:,} of {cmp.n_elems:,} elements out of tolerance",
                   "green" if cmp.passed else "red")
        out.append(f"  ({cmp.frac_match:.1%} match, max abs err {cmp.max_abs_err:.4g})\n")
        for idx, got, exp, tol in cmp.first_mismatches[:4]:
            out.append(f"  {tuple(idx)}: {got:.6g} vs {exp:.6g} (tol {tol:.3g})\n", "grey70")
    return out


class OutputsView(VerticalScroll):
    # Not focusable: the screen's keys (home/end, page up/down for the memory) must not
    # be taken by this pane's scrolling; the mouse wheel still scrolls it.
    can_focus = False

    def compose(self):
        yield Static(id="outputs-text")
        yield HeatMapView(id="outputs-heat")

    def show(self, checks: list[OutputCheck]) -> None:
        self.query_one("#outputs-text", Static).update(outputs_text(checks))
        maps = [from_arrays(c.name, c.got, c.expected, c.tolerance, c.allowance, max_rows=32)
                for c in checks]
        self.query_one("#outputs-heat", HeatMapView).show(maps)
