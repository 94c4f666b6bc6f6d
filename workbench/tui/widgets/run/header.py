"""One line about the run: what, who, status, where the viewer stands, totals."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from kernelcraft.workbench.agent.scoring import held_out_cell, score_flags

from ...model.backends import STATUS_STYLES as BACKEND_STYLES
from ...model.backends import backends_of, is_rtl_run, rtl_cell
from ...model.runs import STATUS_MARKS, STATUS_STYLES
from ...model.trace import RunTrace


class RunHeader(Static):
    def show(self, trace: RunTrace, index: int | None, mode: str = "") -> None:
        r = trace.run
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(f"run {r.id} ", "bold")
        t.append(f"{r.accelerator}/{r.task}/{r.config} ", "bold")
        t.append(r.agent + (f" {r.model}" if r.model else "") + "  ")
        t.append(STATUS_MARKS.get(r.status, r.status), STATUS_STYLES.get(r.status, ""))
        if mode:
            t.append(f"  {mode}", "bold reverse")
        if index is not None and trace.steps:
            t.append(f"  {trace.steps[index].label} ({index + 1}/{len(trace.steps)})")
        budget = r.settings.get("budget") if isinstance(r.settings, dict) else None
        t.append(f"  steps {r.steps}{'/' + str(budget) if budget else ''}", "grey70")
        best = trace.best()
        if best is not None and best.speedup:
            t.append(f"  best {best.cycles:,}c {best.speedup:.2f}x", "cyan")
        if r.finished and r.scores:
            for flag in score_flags(r.scores):
                t.append(f"  {flag.upper()}", "bold red")
            if r.scores.get("held_out_configs"):
                h1 = held_out_cell(r.scores)
                t.append(f"  H1 {h1}", {"pass": "green", "fail": "red"}.get(h1, "grey70"))
        if is_rtl_run(r):
            rtl = ((backends_of(r) or {}).get("rtl") or {}).get("status")
            t.append(f"  RTL {rtl_cell(r)}", BACKEND_STYLES.get(rtl, "grey70"))
        t.append(f"  tokens {r.tokens_in:,}/{r.tokens_out:,}", "grey70")
        t.append(f"  {r.cost_text}", "grey70")
        t.append(f"  events {trace.events}", "grey50")
        self.update(t)
