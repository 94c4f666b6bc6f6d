"""Two runs side by side: their headers and scores, their steps (outcome, cycles,
speed-up, tools), and a diff of their kernels (each run's best correct one, else its
last). Read in a worker; nothing is written."""
from __future__ import annotations

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from ..messages import deliver
from ..model.compare import header_lines, kernel_to_compare
from ..model.trace import RunTrace
from ..widgets.run.kernel import DiffView
from ..widgets.run.timeline import step_line


class CompareScreen(Screen):
    BINDINGS = [Binding("escape", "back", "Back", id="compare.back")]

    def __init__(self, first: int, second: int):
        super().__init__()
        self.ids = (first, second)
        self.traces: list[RunTrace] = []

    def compose(self):
        with Horizontal(id="compare-runs"):
            for i in (0, 1):
                with Vertical(classes="compare-side"):
                    yield Static(f"reading run {self.ids[i]} ...", id=f"compare-head-{i}")
                    yield Static(id=f"compare-steps-{i}")
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
        self.query_one("#compare-head-0", Static).update(Text(f"cannot compare: {msg}",
                                                              "bold red"))
        self.app.notify(msg, title="compare", severity="error", timeout=8)

    def _show(self, traces: list[RunTrace], sources) -> None:
        self.traces = traces
        for i, trace in enumerate(traces):
            head = Text("\n".join(header_lines(trace)))
            head.stylize("bold", 0, len(header_lines(trace)[0]))
            self.query_one(f"#compare-head-{i}", Static).update(head)
            steps = Text("\n").join(step_line(s) for s in trace.steps)
            self.query_one(f"#compare-steps-{i}", Static).update(steps)
        (a, what_a), (b, what_b) = sources
        self.query_one(DiffView).show(a, b, f"run {self.ids[0]} {what_a} → run {self.ids[1]} "
                                            f"{what_b}")

    def action_back(self) -> None:
        self.app.pop_screen()
