"""One memory (or accumulator) of the current state as rows of cells in the chosen
format, cells the last move changed highlighted, the layout's regions named."""
from __future__ import annotations

import numpy as np
from rich.text import Text

from ...model.formats import format_cells
from ...model.timeline import Touched
from ..common.pane import TextPane

CHANGED = "bold black on yellow"
REGION_STYLES = {"input": "cyan", "output": "magenta", "scratch": "grey62"}


def memory_text(name: str, values: np.ndarray, storage: str, fmt: str, start: int,
                rows: int, per_row: int, touched: Touched, regions: list) -> Text:
    """Two header lines, then `rows` lines of `per_row` cells of memory `name` from
    address `start`."""
    flat = values.reshape(-1)
    size = flat.size
    start = max(0, min(start, max(0, size - 1)))
    end = min(size, start + rows * per_row)
    cells = format_cells(flat[start:end], storage, fmt)
    changed = touched.mask(name, start, end - start)
    width = max([len(c) for c in cells] + [4])
    addr_w = len(str(size - 1))
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(f"{name}", "bold")
    out.append(f"  {size:,} cells of {storage}, shown as {fmt}; address {start:,}..{end - 1:,}",
               "grey62")
    n_changed = int(changed.sum())
    if n_changed:
        out.append(f"  {n_changed} changed", CHANGED)
    out.append("\n")
    here = [r for r in regions if r.memory == name and r.address < end and start < r.end]
    for r in here:
        out.append(f"{r.name}", REGION_STYLES.get(r.role, ""))
        out.append(f"[{r.address}..{r.end - 1}] {r.role}  ", "grey50")
    if not here:
        out.append("no layout region here", "grey50")
    out.append("\n")
    for line_start in range(start, end, per_row):
        region = next((r for r in here if r.address <= line_start < r.end), None)
        out.append(f"{line_start:>{addr_w}} ", REGION_STYLES.get(region.role, "grey50")
                   if region else "grey50")
        for a in range(line_start, min(end, line_start + per_row)):
            i = a - start
            out.append(f"{cells[i]:>{width}}", CHANGED if changed[i] else "")
            out.append(" ")
        out.append("\n")
    out.rstrip()
    return out


class MemoryView(TextPane):
    pass
