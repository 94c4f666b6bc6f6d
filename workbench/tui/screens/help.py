"""Every key binding of the screen below and of the app, with what it does and its id
(the name to use in a keymap file, `kernelcraft tui --keymap FILE`)."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from ..keys import bindings


def _keys(binding: Binding, keymap: dict[str, str]) -> str:
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    names = {"question_mark": "?", "slash": "/", "dollar_sign": "$", "plus": "+",
             "minus": "-", "left_square_bracket": "[", "right_square_bracket": "]",
             "escape": "Esc", "space": "Space"}
    return ", ".join(names.get(k.strip(), k.strip()) for k in keys.split(","))


def binding_rows(screen: Screen, app) -> list[tuple[str, str, str, str]]:
    """(section, keys, description, id) of every binding the person can use there."""
    keymap = getattr(app, "keymap", {}) or {}
    rows = []
    # the screen's, then those of its widgets that have their own (the run table's)
    widgets = [(type(w).__name__, w) for w in screen.query("*")
               if any(isinstance(b, Binding) and b.id for b in type(w).__dict__.get("BINDINGS", ()))]
    for section, owner in ((type(screen).__name__.replace("Screen", "") or "screen", screen),
                           *dict(widgets).items(), ("everywhere", app)):
        for b in type(owner).BINDINGS:
            if isinstance(b, tuple):
                b = Binding(*b)
            desc = b.description or b.action
            if b.tooltip:
                desc += f" — {b.tooltip}"
            rows.append((section, _keys(b, keymap), desc, b.id or ""))
    rows.append(("everywhere", "ctrl+p", "command palette: every action above by name",
                 "(textual)"))
    return rows


class HelpScreen(ModalScreen[None]):
    BINDINGS = bindings("help")

    def __init__(self, screen: Screen):
        super().__init__()
        self.target = screen

    def compose(self):
        table = Table(title="Keys", expand=True, show_lines=False)
        for col in ("where", "keys", "what", "id"):
            table.add_column(col, no_wrap=col != "what")
        for section, keys, desc, bid in binding_rows(self.target, self.app):
            table.add_row(section, Text(keys, "bold"), desc, Text(bid, "grey50"))
        with VerticalScroll(id="help"):
            yield Static(table)
            yield Static(Text("Esc closes. Keys can be remapped: a TOML file of id = \"keys\" "
                              "given to `kernelcraft tui --keymap FILE`.", "italic"))

    def action_close(self) -> None:
        self.dismiss(None)
