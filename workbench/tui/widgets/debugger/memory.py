"""One memory (or accumulator) of the current state as rows of cells in the chosen
format, cells the last move changed highlighted, the layout's regions named.

Element-addressed memories (plena's SRAMs, HBM, aie's external memory) show one
element per cell at its element address. Byte-addressed memories (storage "u8":
coral's DTCM, aie's data memory) show little-endian cells of the format's width at
their byte addresses (the memory's base address added, in hex)."""
from __future__ import annotations

import numpy as np
from rich.text import Text

from ...model.formats import cell_bytes, format_bytes, format_cells
from ...model.timeline import Touched
from ..common.pane import TextPane

CHANGED = "bold black on yellow"
MISMATCH = "bold white on red"          # an output cell out of tolerance now
CHANGED_MISMATCH = "bold yellow on red"  # both: written by the last move and out of tolerance
PER_ROW = 8                              # cells per line at most (fewer when narrow)


def cells_per_row(width: int, storage: str, fmt: str) -> int:
    """Cells per line that fit `width` columns (a power of two, at most PER_ROW): an
    80-column terminal's pane keeps whole cells of fp32 bytes instead of cutting them."""
    cell = {"bf16": 9, "fp32": 12, "int": 11, "hex": 10}.get(fmt, 10) + 1
    label = 10 if storage == "u8" else 9
    n = PER_ROW
    while n > 1 and label + n * cell > width:
        n //= 2
    return n
REGION_STYLES = {"input": "cyan", "output": "magenta", "scratch": "grey62"}


def memory_text(name: str, values: np.ndarray, storage: str, fmt: str, start: int,
                rows: int, per_row: int, touched: Touched, layout,
                bad: Touched | None = None) -> Text:
    """Two header lines, then `rows` lines of `per_row` cells of memory `name` from
    index `start` (an element, or a byte offset from the memory's base); cells the
    last move changed highlighted, output cells out of tolerance (`bad`) in red."""
    bad = bad or Touched()
    flat = values.reshape(-1)
    size = flat.size
    step = cell_bytes(storage, fmt)                 # array elements per cell
    base = layout.bases.get(name, 0) if step > 1 else 0
    start = max(0, min(start, max(0, size - step)))
    start -= start % step
    end = min(size - size % step, start + rows * per_row * step)
    if step > 1:
        cells = format_bytes(flat[start:end], fmt)
        changed = touched.mask(name, start, end - start).reshape(-1, step).any(axis=1)
        wrong = bad.mask(name, start, end - start).reshape(-1, step).any(axis=1)
        label = lambda a: f"0x{base + a:0{addr_w}X}"  # noqa: E731
        addr_w = len(f"{base + size - 1:X}")
        what = (f"  {size:,} bytes at 0x{base:X}, {step}-byte cells shown as {fmt}; "
                f"0x{base + start:X}..0x{base + end - 1:X}")
    else:
        cells = format_cells(flat[start:end], storage, fmt)
        changed = touched.mask(name, start, end - start)
        wrong = bad.mask(name, start, end - start)
        addr_w = len(str(size - 1))
        label = lambda a: f"{a:>{addr_w}}"  # noqa: E731
        what = f"  {size:,} cells of {storage}, shown as {fmt}; address {start:,}..{end - 1:,}"
    width = max([len(c) for c in cells] + [4])
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(f"{name}", "bold")
    # what is wrong and what changed first: a narrow pane cuts the description instead
    if wrong.any():
        out.append(f"  {int(wrong.sum())} out of tolerance", MISMATCH)
    n_changed = int(changed.sum())
    if n_changed:
        out.append(f"  {n_changed} changed", CHANGED)
    out.append(what, "grey62")
    out.append("\n")
    spans = [(r, *layout.span(r)) for r in layout.regions if r.memory == name]
    here = [(r, a, b) for r, a, b in spans if a < end and start < b]
    for r, a, b in here:
        out.append(f"{r.name}", REGION_STYLES.get(r.role, ""))
        where = f"0x{base + a:X}..0x{base + b - 1:X}" if step > 1 else f"{a}..{b - 1}"
        out.append(f"[{where}] {r.role}  ", "grey50")
    if not here:
        out.append("no layout region here", "grey50")
    out.append("\n")
    for line_start in range(start, end, per_row * step):
        region = next((r for r, a, b in here if a <= line_start < b), None)
        out.append(f"{label(line_start)} ", REGION_STYLES.get(region.role, "grey50")
                   if region else "grey50")
        for a in range(line_start, min(end, line_start + per_row * step), step):
            i = (a - start) // step
            out.append(f"{cells[i]:>{width}}",
                       (CHANGED_MISMATCH if changed[i] else MISMATCH) if wrong[i]
                       else CHANGED if changed[i] else "")
            out.append(" ")
        out.append("\n")
    out.rstrip()
    return out


class MemoryView(TextPane):
    pass
