"""The registers pane, and the styling of every line a machine view returns
(model/views): each segment's role becomes a style here, so views carry no styles."""
from __future__ import annotations

from rich.text import Text

from ...model.views import Line
from ..common.pane import TextPane

CHANGED = "bold black on yellow"
STYLES = {"label": "grey62", "changed": CHANGED, "tail": "grey42 italic", "title": "bold",
          "dim": "grey50", "good": "green", "bad": "bold red", "warn": "bold yellow",
          "busy": "bold black on cyan", "empty": "grey35"}


def lines_text(lines: list[Line]) -> Text:
    out = Text(no_wrap=True, overflow="ellipsis")
    for i, line in enumerate(lines):
        if i:
            out.append("\n")
        for seg in line:
            out.append(seg.text, STYLES.get(seg.role, ""))
    out.rstrip()
    return out


class RegistersView(TextPane):
    pass
