"""What the tools reported at the selected step: each evaluation's verdict, cycles
and speed-up, and the output error as a heat map per row (from the recording) or per
tile (after re-executing the kernel)."""
from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...model.backends import comparison_lines
from ...model.heat import from_evaluation
from ...model.reexec import Reexecution
from ...model.trace import Measure, Step, payload_text
from ..common.heatmap import HeatMapView


def evaluation_text(step: Step) -> tuple[Text, list, str, Text]:
    """Verdict lines, heat maps with their caption, and the tools' own text, for the
    step's evaluations."""
    out = Text()
    maps, caption = [], ""
    for ev in step.evaluations:
        p = ev.payload
        r = p.get("result") or {}
        m = Measure.of(ev)
        status = m.status
        ok = m.passed
        out.append(f"{p.get('tool')} {p.get('config')} kernel v{p.get('kernel_version') or '-'}: ",
                   "bold")
        out.append(f"{status}", "green" if ok else "red")
        if r.get("cycles"):
            out.append(f"  {r['cycles']:,} cycles")
        if r.get("baseline_cycles"):
            out.append(f"  baseline {r['baseline_cycles']:,}")
        if m.speedup:
            out.append(f"  {m.speedup:.3f}x", "cyan")
        if r.get("impossible"):
            out.append("  IMPOSSIBLE (fewer cycles than the lower bound)", "bold red")
        if isinstance(r.get("frac_match"), (int, float)):
            out.append(f"  {r['frac_match']:.2%} match")
        if isinstance(r.get("roofline_fraction"), (int, float)) and r.get("roofline_fraction"):
            out.append(f"  {r['roofline_fraction']:.0%} of roofline")
        out.append("\n")
        for d in (r.get("diagnostics") or [])[:10]:
            out.append(f"  {d}\n", "red")
        if r.get("error") and status != "passed":
            out.append(f"  {r['error']}\n", "red")
        if isinstance(r.get("rtl"), dict):       # run_rtl / final_rtl: both backends' verdicts
            for line, style in comparison_lines(r):
                out.append(line + "\n", style)
        label, m = from_evaluation(r)
        if m:
            maps, caption = m, f"output error of {p.get('tool')} ({label}), from the recording"
    details = Text()
    for x in step.exchanges.values():
        if x.evaluation is not None and x.result is not None:
            details.append(payload_text(x.result.payload) + "\n", "grey70")
    if not step.evaluations:
        out.append("no evaluation at this step", "grey50 italic")
    return out, maps, caption, details


class FeedbackView(VerticalScroll):
    def compose(self):
        yield Static(id="feedback-text")
        yield HeatMapView(id="feedback-heat")
        yield Static(id="feedback-details")

    def show(self, step: Step | None, reexec: Reexecution | None = None) -> None:
        heat = self.query_one("#feedback-heat", HeatMapView)
        details = self.query_one("#feedback-details", Static)
        if step is None:
            self.query_one("#feedback-text", Static).update("")
            details.update("")
            heat.show([], "")
            return
        text, maps, caption, detail_text = evaluation_text(step)
        details.update(detail_text)
        if reexec is not None:
            text.append("\n" + reexec.summary() + "\n",
                        "bold green" if reexec.identical else "bold red")
            for d in reexec.differences[:12]:
                text.append(f"  differs: {d}\n", "red")
            if reexec.maps:
                maps, caption = reexec.maps, (f"output error per tile, re-executed on seed "
                                              f"{reexec.seeds[0]}")
        self.query_one("#feedback-text", Static).update(text)
        heat.show(maps, caption)
