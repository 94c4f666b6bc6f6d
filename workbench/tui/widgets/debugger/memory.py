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


def _cells(flat: np.ndarray, storage: str, fmt: str, start: int, end: int) -> list[str]:
    return (format_bytes(flat[start:end], fmt) if cell_bytes(storage, fmt) > 1
            else format_cells(flat[start:end], storage, fmt))


def _window(size: int, step: int, start: int) -> int:
    """`start` clamped into the memory and aligned to a cell."""
    start = max(0, min(start, max(0, size - step)))
    return start - start % step


def cells_per_row(values: np.ndarray, storage: str, fmt: str, start: int, rows: int,
                  width: int, base: int = 0) -> int:
    """Cells per line (a power of two, at most PER_ROW) that fit a pane `width` wide,
    measured on the cells of the window from `start`: an 80-column pane keeps whole
    cells (fp32 bytes, hex) instead of cutting the line."""
    flat = values.reshape(-1)
    step = cell_bytes(storage, fmt)
    start = _window(flat.size, step, start)
    end = min(flat.size - flat.size % step, start + rows * PER_ROW * step)
    cell = max([len(c) for c in _cells(flat, storage, fmt, start, end)] + [4]) + 1
    label = (len(f"{base + flat.size - 1:X}") + 2 if step > 1 else len(str(flat.size - 1))) + 1
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
    start = _window(size, step, start)
    end = min(size - size % step, start + rows * per_row * step)
    cells = _cells(flat, storage, fmt, start, end)
    if step > 1:
        changed = touched.mask(name, start, end - start).reshape(-1, step).any(axis=1)
        wrong = bad.mask(name, start, end - start).reshape(-1, step).any(axis=1)
        label = lambda a: f"0x{base + a:0{addr_w}X}"  # noqa: E731
        addr_w = len(f"{base + size - 1:X}")
        what = (f"  {size:,} bytes at 0x{base:X}, {step}-byte cells shown as {fmt}; "
                f"0x{base + start:X}..0x{base + end - 1:X}")
    else:
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
