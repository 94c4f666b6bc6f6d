"""The steps of a run as a list: number, outcome, cycles, speed-up, tools called."""
from __future__ import annotations

from rich.text import Text
from textual import on
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...messages import StepChosen
from ...model.backends import build_state
from ...model.trace import FINAL, RunTrace, Step


def step_line(step: Step) -> Text:
    t = Text(no_wrap=True, overflow="ellipsis")
    if step.number == 0:
        t.append("  0 prompt", "grey62")
        build = build_state(step.events)      # a run with --rtl builds before step 1
        if build is not None:
            t.append(f"  {build[0]}", build[1])
        return t
    if step.number == FINAL:
        t.append("  ★ final scoring", "bold")
        return t
    m = step.measure
    t.append(f"{step.number:>3} ")
    if step.errors:
        t.append("! ", "bold red")
    elif m is None:
        t.append("· ", "grey50")
    else:
        t.append("✓ " if m.passed else "✗ ", "green" if m.passed else "red")
    if m is not None and m.cycles:
        t.append(f"{m.cycles:>8,}c ", "bold" if m.passed else "grey62")
        # a speed-up only means something for a correct kernel
        if m.impossible:      # below the lower bound: no speed-up to show, only the flag
            t.append("impos. ", "bold red")
        else:
            t.append(f"{m.speedup:5.2f}x " if m.speedup and m.passed else "    -  ", "cyan")
    elif m is not None:
        t.append(f"{m.status:<17}", "red")
    tools = [n for n in step.tools if n]
    if tools:
        t.append(" ".join(tools), "grey62")
    return t


class StepTimeline(OptionList):
    """Posts StepChosen when the highlighted step changes."""

    numbers: list[int] = []

    def set_steps(self, trace: RunTrace, touched: list[int] | None = None) -> None:
        """Show the trace's steps: new steps at the end are appended and touched lines
        re-rendered; anything else (a step inserted before the final scoring, another
        trace) rebuilds the list."""
        numbers = [s.number for s in trace.steps]
        n = len(self.numbers)
        if touched is not None and numbers[:n] == self.numbers:
            for i in touched:
                if i < n:
                    self.replace_option_prompt_at_index(i, step_line(trace.steps[i]))
            if len(numbers) > n:
                self.add_options([Option(step_line(s)) for s in trace.steps[n:]])
            self.numbers = numbers
            return
        keep = self.highlighted
        self.clear_options()
        self.add_options([Option(step_line(s)) for s in trace.steps])
        self.numbers = numbers
        if keep is not None and keep < self.option_count:
            self.highlighted = keep

    @on(OptionList.OptionHighlighted)
    def _chosen(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.post_message(StepChosen(event.option_index))
