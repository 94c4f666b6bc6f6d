"""The kernel at the selected step, highlighted, and its diff against the version
before it."""
from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...model.kernels import diff, highlight


class KernelView(VerticalScroll):
    def compose(self):
        yield Static(id="kernel-title", classes="pane-title")
        yield Static(id="kernel-text")

    def show(self, source: str | None, accel: str, title: str) -> None:
        self.set_title(title)
        body = highlight(source, accel) if source is not None else Text(
            "no kernel written yet at this step", "grey50 italic")
        self.query_one("#kernel-text", Static).update(body)

    def set_title(self, title: str) -> None:
        """The title alone (the same kernel seen from another step)."""
        self.query_one("#kernel-title", Static).update(title)


class DiffView(VerticalScroll):
    def compose(self):
        yield Static(id="diff-title", classes="pane-title")
        yield Static(id="diff-text")

    def show(self, old: str | None, new: str | None, title: str) -> str:
        """Show the diff; returns its +added -removed summary."""
        if new is None:
            self.query_one("#diff-title", Static).update(title)
            self.query_one("#diff-text", Static).update(Text("no kernel written yet",
                                                             "grey50 italic"))
            return ""
        text, stats = diff(old, new)
        self.query_one("#diff-title", Static).update(f"{title}  ({stats})")
        self.query_one("#diff-text", Static).update(text)
        return str(stats)
