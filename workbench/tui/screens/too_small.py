"""Shown instead of the workbench while the terminal is too small to draw it."""
from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Static


class TooSmallScreen(Screen):
    BINDINGS = [("q", "app.quit", "Quit")]

    def compose(self):
        yield Static(id="too-small-text")

    def show(self, width: int, height: int, need: tuple[int, int]) -> None:
        self.query_one("#too-small-text", Static).update(
            f"The terminal is {width}x{height}; KernelCraft needs at least "
            f"{need[0]}x{need[1]}. Enlarge the window to continue, or press q to quit.")
