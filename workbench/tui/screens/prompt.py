"""A one-line question in a modal: search text, a line number, an address."""
from __future__ import annotations

from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ..keys import bindings


class TextPrompt(ModalScreen[str | None]):
    """Ask for one line of text; dismissed with it (stripped), or None on Esc."""

    BINDINGS = bindings("prompt")

    def __init__(self, question: str, value: str = ""):
        super().__init__()
        self.question, self.value = question, value

    def compose(self):
        with Vertical(id="text-prompt"):
            yield Static(self.question)
            yield Input(value=self.value, id="text-prompt-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
