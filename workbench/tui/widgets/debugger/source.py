"""The kernel being debugged, with the instruction about to execute highlighted and
breakpoints marked. Only the lines that fit are built at each step (the highlighted
lines are made once), so a step costs the same for a 50-line and a 5,000-line kernel."""
from __future__ import annotations

from rich.text import Text

from ...model.kernels import BREAKPOINT_MARK, CURRENT_LINE, highlight
from ..common.pane import TextPane


class SourceView(TextPane):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lines: list[Text] = []
        self.current: int | None = None
        self.cursor = 1
        self.breakpoints: set[int] = set()
        self.top = 1

    def load(self, source: str, accel: str) -> None:
        text = highlight(source, accel, line_numbers=False)
        self.lines = text.split("\n", allow_blank=True)
        self.cursor = 1
        self.redraw()

    def move_cursor(self, delta: int) -> None:
        if self.lines:
            self.cursor = max(1, min(len(self.lines), self.cursor + delta))
            self.redraw(follow_cursor=True)

    def show(self, current: int | None, breakpoints: set[int]) -> None:
        self.current, self.breakpoints = current, breakpoints
        if current:
            self.cursor = current
        self.redraw()

    def redraw(self, follow_cursor: bool = False) -> None:
        if not self.lines:
            self.update(Text("(no source)", "grey50 italic"))
            return
        height = max(1, (self.size.height or 20))    # a short pane still shows the current line
        focus = self.cursor if follow_cursor or not self.current else self.current
        if not self.top <= focus < self.top + height - 1:
            self.top = max(1, focus - height // 3)
        self.top = min(self.top, max(1, len(self.lines) - height + 1))
        width = len(str(len(self.lines)))
        out = Text(no_wrap=True, overflow="ellipsis")
        for n in range(self.top, min(len(self.lines), self.top + height - 1) + 1):
            start = len(out)
            out.append(BREAKPOINT_MARK if n in self.breakpoints else " ", "bold red")
            out.append("▶" if n == self.current else ("›" if n == self.cursor else " "),
                       "bold green" if n == self.current else "grey62")
            out.append(f"{n:>{width}} ", "grey50")
            out.append_text(self.lines[n - 1])
            if n == self.current:
                out.stylize(CURRENT_LINE, start, len(out))
            elif n == self.cursor:
                out.stylize("underline", start + 2, len(out))
            out.append("\n")
        out.rstrip()
        self.update(out)

    def on_resize(self) -> None:
        self.redraw()
