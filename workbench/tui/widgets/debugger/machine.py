"""A pane a machine view adds below the source (model/views: e.g. aie's current
bundle and DMA engine), redrawn from the view's lines at every move."""
from __future__ import annotations

from ..common.pane import TextPane


class MachinePane(TextPane):
    def __init__(self, key: str, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.key = key
