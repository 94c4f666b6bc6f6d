"""Two runs side by side: their facts and scores in rows that line up (the cells
that differ bright), their steps (outcome, cycles, speed-up, tools) side by side, and
a diff of their kernels (each run's best correct one, else its last). Laid out for
80x24 first: the facts and steps scroll (j/k) above the diff (PageUp/PageDown).
Read in a worker; nothing is written."""
from __future__ import annotations

from itertools import zip_longest

from rich.table import Table
from rich.text import Text
from textual import work
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from ..keys import bindings
from ..messages import deliver
from ..model.compare import compare_rows, kernel_to_compare
from ..model.trace import RunTrace
from ..widgets.run.kernel import DiffView
from ..widgets.run.timeline import step_line


def _table(first: str, second: str) -> Table:
    t = Table(box=None, padding=(0, 1), expand=True, show_edge=False)
    t.add_column("", style="grey62", no_wrap=True, width=9)
    for title in (first, second):
        t.add_column(title, ratio=1, no_wrap=True, overflow="ellipsis", header_style="bold")
    return t


class CompareScreen(Screen):
    BINDINGS = bindings("compare")

    def __init__(self, first: int, second: int):
        super().__init__()
        self.ids = (first, second)
        self.traces: list[RunTrace] = []

    def compose(self):
        with VerticalScroll(id="compare-runs"):
            yield Static(f"reading runs {self.ids[0]} and {self.ids[1]} ...", id="compare-facts")
            yield Static(id="compare-steps")
        yield DiffView(id="compare-diff")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._read()

    @work(thread=True, group="compare-read")
    def _read(self) -> None:
        reader = self.app.reader
        try:
            traces, sources = [], []
            for run_id in self.ids:
                trace = RunTrace(reader.run(run_id))
                trace.add(reader.events(run_id))
                ref, what = kernel_to_compare(trace)
                traces.append(trace)
                sources.append((reader.kernel(ref.hash).source if ref else None, what))
        except Exception as e:  # noqa: BLE001 -- a run that is not there, an unreadable store
            msg = str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)
            deliver(self, self._failed, msg)
            return
        deliver(self, self._show, traces, sources)

    def _failed(self, msg: str) -> None:
        self.query_one("#compare-facts", Static).update(Text(f"cannot compare: {msg}",
                                                             "bold red"))
        self.app.notify(msg, title="compare", severity="error", timeout=8)

    def _show(self, traces: list[RunTrace], sources) -> None:
        self.traces = traces
        a, b = traces
        facts = _table(f"run {self.ids[0]}", f"run {self.ids[1]}")
        for label, x, y in compare_rows(a, b):
            style = "" if x == y else "bold"          # what differs stands out
            facts.add_row(label, Text(x, style), Text(y, style))
        self.query_one("#compare-facts", Static).update(facts)
        steps = _table("steps", "")
        for i, (x, y) in enumerate(zip_longest(a.steps, b.steps)):
            steps.add_row("steps" if i == 0 else "", step_line(x) if x else Text(""),
                          step_line(y) if y else Text(""))
        steps.show_header = False
        self.query_one("#compare-steps", Static).update(steps)
        (src_a, what_a), (src_b, what_b) = sources
        self.query_one(DiffView).show(src_a, src_b, f"run {self.ids[0]} {what_a} → run "
                                                    f"{self.ids[1]} {what_b}")

    def action_scroll_top(self, lines: int) -> None:
        self.query_one("#compare-runs", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_page_diff(self, pages: int) -> None:
        diff = self.query_one(DiffView)
        diff.scroll_relative(y=pages * max(1, diff.size.height - 2), animate=False)

    def action_back(self) -> None:
        self.app.pop_screen()
