"""Registers of one backend at the current state, changed ones highlighted.

Register files (lists) are shown in rows of eight; scalar registers (CSRs) after
them; array registers (accumulators) as a one-line summary (their cells are in the
memory view). Integers that fit 32 bits follow the chosen format as int32, floats as
fp32; wider integers (64-bit address registers) show as decimal or hex."""
from __future__ import annotations

import numpy as np
from rich.text import Text

from ...model.formats import format_scalar
from ...model.timeline import Touched
from ..common.pane import TextPane

CHANGED = "bold black on yellow"
CELL = 11                 # characters per register value


def _cell(value, fmt: str) -> str:
    """Floats follow the format (bf16/fp32 values, int/hex bit patterns); integers
    are shown as integers, in hex when hex is chosen."""
    if isinstance(value, float):
        return format_scalar(value, "fp32", fmt)
    if isinstance(value, (int, np.integer)):
        v = int(value)
        if fmt == "hex":
            return format_scalar(v, "int32", "hex") if -2**31 <= v < 2**31 else f"0x{v:X}"
        return str(v)
    return str(value)


def registers_text(registers: dict, touched: Touched, fmt: str, title: str = "",
                   csr_names: tuple[str, ...] = (), width: int = 120) -> Text:
    """`csr_names` maps the trace's "csr" space (an index) to register names; register
    files are laid out in as many columns as `width` holds."""
    per_line = max(2, min(8, width // (CELL + 6)))
    out = Text(no_wrap=True, overflow="ellipsis")
    if title:
        out.append(title + "\n", "bold")
    scalars, arrays = [], []
    for name, value in registers.items():
        if isinstance(value, list) and name != "LOOPS":
            for start in range(0, len(value), per_line):
                for i in range(start, min(len(value), start + per_line)):
                    label = f"{name}{i}"
                    out.append(f"{label:>5}=", "grey62")
                    style = CHANGED if touched.has(name, i) else ""
                    out.append(f"{_cell(value[i], fmt):<{CELL}}", style)
                out.append("\n")
        elif isinstance(value, np.ndarray):
            arrays.append((name, value))
        else:
            scalars.append((name, value))
    for name, value in scalars:
        if name == "LOOPS":
            changed = touched.has("LOOPS")
        else:
            changed = name in csr_names and touched.has("csr", csr_names.index(name))
        out.append(f"{name}=", "grey62")
        text = (" ".join(map(str, value)) or "-") if isinstance(value, list) else _cell(value, fmt)
        out.append(text + "  ", CHANGED if changed else "")
    if scalars:
        out.append("\n")
    for name, value in arrays:
        finite = value[np.isfinite(value)] if value.dtype.kind == "f" else value
        peak = float(np.abs(finite).max()) if finite.size else 0.0
        out.append(f"{name}{list(value.shape)} ", "grey62")
        out.append(f"max|x| {peak:.4g}  ", CHANGED if touched.has(name) else "")
    out.rstrip()
    return out


class RegistersView(TextPane):
    pass
