"""How the debugger shows one accelerator's machine, as data: register pages, a
header line always in view, extra panes (a VLIW tile's bundle and DMA state), how a
traced run is made. The screen draws whatever a view returns; it never asks which
accelerator it shows. `MachineView` is the plain view every accelerator starts from
(register files in rows, scalars, accumulators summarised); views/<accel>.py refine it.

Text comes back as lines of `Seg(text, role)`; the role ("label", "changed", "tail",
"title", "dim", "good", "bad", "warn", "busy", "empty") is styled by the widget.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..formats import format_scalar


@dataclass(frozen=True)
class Seg:
    text: str
    role: str = ""


Line = list[Seg]


@dataclass
class Page:
    """A page of registers. Its lines may be made on demand (`make` and `size`, the
    number of lines it will make), so only the page on screen is formatted."""

    name: str
    lines: list[Line] = field(default_factory=list)
    block: int = 1          # lines that belong together (one register's): never split
    make: Callable[[], list[Line]] | None = None
    size: int = 0
    part: str = ""          # "2/6": which part of a page split to fit

    def __len__(self) -> int:
        return self.size if self.make else len(self.lines)

    def get(self) -> list[Line]:
        return self.make() if self.make else self.lines


@dataclass(frozen=True)
class PaneSpec:
    """An extra pane below the source: `key` names it to `MachineView.pane`."""

    key: str
    title: str
    height: int


CELL = 11                 # characters per register value


def cell(value, fmt: str) -> str:
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


def paginate(pages: list[Page], height: int) -> list[Page]:
    """Pages longer than `height` lines split into numbered parts, between blocks."""
    out = []
    for p in pages:
        size = max(1, height // p.block) * p.block
        starts = range(0, len(p), size)
        if len(starts) <= 1:
            out.append(p)
        else:
            out += [Page(p.name, make=_part(p, a, size), size=min(size, len(p) - a),
                         part=f"{i + 1}/{len(starts)}") for i, a in enumerate(starts)]
    return out


def _part(page: Page, start: int, size: int) -> Callable[[], list[Line]]:
    return lambda: page.get()[start:start + size]


class MachineView:
    step_noun = "instruction"
    # what a run stopped by "break" stopped at: the program's own instruction, worded
    # apart from the debugger's breakpoints (the marked lines that `c` runs to)
    break_words = "the program's own break instruction"
    register_height: int | None = None       # rows of the registers pane (None: the stylesheet's)
    panes: tuple[PaneSpec, ...] = ()         # extra panes under the source
    unit_spaces: frozenset[str] = frozenset()   # trace spaces whose array value is one register
    paged = True                             # split register pages longer than the pane

    def __init__(self, accel: str):
        self.accel = accel

    # ------------------------------------------------------------------ running
    def traced_run(self, backend, program, image, hw, budget):
        """(RunResult with a trace, anything the view's panes read later)."""
        return backend.run(program, image, hw, budget, trace=True), None

    # ------------------------------------------------------------------ registers
    def header(self, session, timeline) -> list[Line]:
        """Lines above the register pages, in view whichever page is shown."""
        return []

    def register_pages(self, session, timeline, fmt: str, width: int) -> list[Page]:
        return [Page("registers", generic_registers(timeline.registers, timeline.touched, fmt,
                                                    session.csr_names, width))]

    def register_lines(self, session, fmt: str, width: int, height: int, page: int
                       ) -> tuple[list[Line], int]:
        """The registers pane: per backend (titled when there are several) its header,
        page tabs when its registers take several pages, then page `page` (modulo their
        number); and the number of pages. The plain view does not page (lines past the
        pane's height are cut)."""
        out: list[Line] = []
        n = 1
        tls = session.timelines
        for tl in tls:
            block = [[Seg(tl.backend, "title")]] if len(tls) > 1 else []
            if tl is not tls[0] and not tl.at_end and not tl.records_writes:
                out += block + [[Seg("(registers known at the end only)", "dim")]]
                continue
            block += self.header(session, tl)
            raw = self.register_pages(session, tl, fmt, width)
            room = height // len(tls) - len(block) - (1 if len(raw) > 1 else 0)
            pages = paginate(raw, room) if self.paged else raw
            if len(pages) > len(raw) == 1:          # split: the page tabs take a line too
                pages = paginate(raw, room - 1)
            n = len(pages)
            k = page % n
            if n > 1:
                # one tab per page; the one shown says which of its parts it is
                tabs = [Seg(f" {name} {pages[k].part} ".replace("  ", " ") if name == pages[k].name
                            else f" {name} ", "busy" if name == pages[k].name else "dim")
                        for name in dict.fromkeys(p.name for p in pages)]
                block.append(tabs + [Seg("  r: next page", "dim")])
            out += block + pages[k].get()
        return out, n

    # ------------------------------------------------------------------ extra panes
    def pane(self, key: str, session, width: int) -> list[Line]:
        raise KeyError(f"{type(self).__name__} has no pane {key!r}")


# Below this width (an 80-column terminal's registers pane) register files are laid
# out with cells as wide as their longest value, so more of them fit on a line.
COMPACT_BELOW = 60


def _flow(items: list[tuple[str, str, bool]], width: int) -> list[Line]:
    """`name=value` items wrapped into lines of at most `width` characters."""
    lines: list[Line] = []
    line: Line = []
    used = 0
    for label, text, changed in items:
        n = len(label) + len(text) + 2
        if line and used + n > width:
            lines.append(line)
            line, used = [], 0
        line += [Seg(label, "label"), Seg(text + "  ", "changed" if changed else "")]
        used += n
    return lines + ([line] if line else [])


def generic_registers(registers: dict, touched, fmt: str, csr_names: tuple[str, ...] = (),
                      width: int = 120) -> list[Line]:
    """Register files (lists) in rows, scalar registers (CSRs) after them, array
    registers (accumulators) summarised (their cells are in the memory view), each
    wrapped to `width`. `csr_names` maps the trace's "csr" space (an index) to
    register names."""
    lines: list[Line] = []
    scalars, arrays = [], []
    for name, value in registers.items():
        if isinstance(value, list) and name != "LOOPS":
            cells = [cell(v, fmt) for v in value]
            label = len(f"{name}{len(value) - 1}") if width < COMPACT_BELOW else 5
            room = max(map(len, cells), default=1) if width < COMPACT_BELOW else CELL
            per_line = max(2, min(8, width // (label + room + 2)))
            for start in range(0, len(value), per_line):
                line: Line = []
                for i in range(start, min(len(value), start + per_line)):
                    line.append(Seg(f"{f'{name}{i}':>{label}}=", "label"))
                    line.append(Seg(f"{cells[i]:<{room}} ",
                                    "changed" if touched.has(name, i) else ""))
                lines.append(line)
        elif isinstance(value, np.ndarray):
            arrays.append((name, value))
        else:
            scalars.append((name, value))
    items = []
    for name, value in scalars:
        if name == "LOOPS":
            changed = touched.has("LOOPS")
        else:
            changed = name in csr_names and touched.has("csr", csr_names.index(name))
        text = (" ".join(map(str, value)) or "-") if isinstance(value, list) else cell(value, fmt)
        items.append((f"{name}=", text, changed))
    lines += _flow(items, width)
    items = []
    for name, value in arrays:
        finite = value[np.isfinite(value)] if value.dtype.kind == "f" else value
        peak = float(np.abs(finite).max()) if finite.size else 0.0
        shape = "" if width < COMPACT_BELOW else f"{list(value.shape)}"
        items.append((f"{name}{shape} max|x| ", f"{peak:.4g}", touched.has(name)))
    lines += _flow(items, width)
    return lines
