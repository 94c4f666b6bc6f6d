"""What a sweep shows while it runs: a live rich progress bar on a terminal (cells done,
running, failed, ETA, tokens and cost so far), one plain line per event otherwise (CI,
a pipe, a log file)."""
from __future__ import annotations

import sys
import time


def _cell(cell: dict) -> str:
    return f"{cell['model']} {cell['accel']}/{cell['task']}/{cell['config']} r{cell['rep']}"


class SweepProgress:
    def __init__(self, stream=None, live: bool | None = None):
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.summary = None
        self.todo = 0
        self.done = 0
        self.running = 0
        self.failed = 0
        self.t0 = time.monotonic()
        self._progress = None
        self._task = None

    # --------------------------------------------------------------- lifecycle
    def start(self, summary, todo: int) -> None:
        self.summary, self.todo, self.t0 = summary, todo, time.monotonic()
        head = (f"sweep {summary.sweep_id}: {summary.total} cells, {summary.already_done} "
                f"already finished, {todo} to run")
        if self.live:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeRemainingColumn)
            console = Console(file=self.stream)
            console.print(head)
            self._progress = Progress(TextColumn("cells"), BarColumn(), MofNCompleteColumn(),
                                      TextColumn("{task.fields[info]}"), TimeRemainingColumn(),
                                      console=console)
            self._task = self._progress.add_task("sweep", total=max(todo, 1), info="")
            self._progress.start()
        else:
            self._line(head)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    # ------------------------------------------------------------------ events
    def started(self, cell: dict, running: int) -> None:
        self.running = running
        if self.live:
            self._refresh()
        else:
            self._line(f"start {_cell(cell)}")

    def finished(self, cell: dict, status: str, run_id, res: dict, running: int) -> None:
        self.done += 1
        self.running = running
        self.failed += status != "succeeded"
        what = f"{status}" + (f" (run {run_id})" if run_id else "")
        if res.get("error"):
            what += f": {res['error']}"
        line = f"[{self.done}/{self.todo}] {_cell(cell)}: {what} in {res.get('seconds', 0):.1f}s"
        if self.live:
            self._progress.console.print(line, markup=False, highlight=False)
            self._refresh()
        else:
            self._line(f"{line}; {self._totals()}")

    # --------------------------------------------------------------- rendering
    def _eta(self) -> str:
        if not self.done or self.done >= self.todo:
            return ""
        per = (time.monotonic() - self.t0) / self.done
        return f", ETA {per * (self.todo - self.done):.0f}s"

    def _totals(self) -> str:
        s = self.summary
        return (f"running {self.running}, not succeeded {self.failed}, tokens {s.tokens:,}, "
                f"cost ${s.cost:.4f}{self._eta()}")

    def _refresh(self) -> None:
        s = self.summary
        self._progress.update(self._task, completed=self.done,
                              info=f"running {self.running}  not succeeded {self.failed}  "
                                   f"tokens {s.tokens:,}  ${s.cost:.4f}")

    def _line(self, text: str) -> None:
        print(f"kernelcraft sweep: {text}", file=self.stream, flush=True)
