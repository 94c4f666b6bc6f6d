"""A text area of fixed size (set by the stylesheet) that is redrawn without a
layout pass: `update(text)` only repaints it. The debugger's panes change at every
step, and a repaint is several times cheaper than Static.update's re-layout."""
from __future__ import annotations

from rich.text import Text
from textual.widget import Widget


class TextPane(Widget):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._text: Text | str = ""

    def update(self, text: Text | str) -> None:
        self._text = text
        self.refresh()

    @property
    def text(self) -> str:
        return self._text.plain if isinstance(self._text, Text) else str(self._text)

    def render(self) -> Text | str:
        return self._text
