"""Where a task's tensors and constants live in an accelerator's memories.

A layout is shared knowledge between the evaluator (which writes inputs, poisons
outputs and reads results) and the kernel author (who is shown `describe()`). The
expected outputs are never placed anywhere: they exist only in the evaluator.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simulators import numerics
from simulators.core.backend import MemoryImage, RunResult

# Output regions start filled with these NaN patterns, so an element a kernel never writes fails.
POISON_BF16 = np.uint16(0xFFFF)
POISON_FP32 = np.uint32(0xFFFFFFFF)
ITEMSIZE = {"bf16": 2, "fp32": 4, "int32": 4}
STORAGE_DTYPE = {"bf16": np.uint16, "fp32": np.float32, "int32": np.int32}


@dataclass(frozen=True)
class Region:
    name: str
    memory: str
    address: int
    shape: tuple[int, ...]
    dtype: str            # "bf16" | "fp32" | "int32"
    role: str             # "input" | "output" | "scratch"
    doc: str = ""
    capacity: int = 0     # elements reserved (>= size); the slack after the tensor is the region's own

    @property
    def reserved(self) -> int:
        return max(self.capacity, self.size)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1

    @property
    def end(self) -> int:
        return self.address + self.size


@dataclass(frozen=True)
class Constant:
    name: str
    memory: str
    address: int
    value: float


@dataclass
class Layout:
    accel: str
    task: str
    config: str
    regions: list[Region]
    constants: list[Constant] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Byte-addressed memories (coral's DTCM): memory -> address of its first byte.
    # Addresses in such a memory are byte addresses; a region spans size x itemsize
    # bytes. Memories not listed are element-addressed (plena).
    bases: dict[str, int] = field(default_factory=dict)

    def span(self, r: "Region", reserved: bool = False) -> tuple[int, int]:
        """[start, stop) of a region as indices into its memory's array in a RunResult."""
        n = r.reserved if reserved else r.size
        if r.memory in self.bases:
            start = r.address - self.bases[r.memory]
            return start, start + n * ITEMSIZE[r.dtype]
        return r.address, r.address + n

    def region(self, name: str) -> Region:
        for r in self.regions:
            if r.name == name:
                return r
        raise KeyError(f"no region {name!r} in the {self.task} layout; regions: "
                       f"{', '.join(r.name for r in self.regions)}")

    def by_role(self, role: str) -> list[Region]:
        return [r for r in self.regions if r.role == role]

    def describe(self) -> str:
        """Markdown table of the layout, as shown to a kernel author."""
        lines = ["| tensor | role | memory | address | shape | dtype | reserved | notes |",
                 "|---|---|---|---|---|---|---|---|"]
        for r in self.regions:
            shape = " x ".join(map(str, r.shape))
            lines.append(f"| {r.name} | {r.role} | {r.memory} | {r.address} (0x{r.address:X}) "
                         f"| {shape} | {r.dtype} | {r.reserved} | {r.doc} |")
        if self.constants:
            lines += ["", "Constants preloaded for the kernel:", "",
                      "| name | memory | address | value |", "|---|---|---|---|"]
            lines += [f"| {c.name} | {c.memory} | {c.address} | {c.value!r} |" for c in self.constants]
        lines += [f"\n{n}" for n in self.notes]
        return "\n".join(lines)


def pack(regions_spec, memory: str, start: int, align: int, block: int = 1,
         guard: int = 0) -> list[Region]:
    """Place (name, shape, dtype, role, doc[, extra]) tuples one after another: each
    starts aligned to `align`, reserves a whole number of `block`s covering its size plus
    `extra` elements, and is followed by `guard` unused elements (where overruns show up
    as stray writes)."""
    out, addr = [], start
    for name, shape, dtype, role, doc, *extra in regions_spec:
        addr = -(-addr // align) * align
        size = int(np.prod(shape)) if len(shape) else 1
        r = Region(name, memory, addr, tuple(shape), dtype, role, doc,
                   capacity=-(-(size + sum(extra)) // block) * block)
        out.append(r)
        addr = r.address + r.reserved + guard
    return out


def to_storage(values: np.ndarray, dtype: str) -> np.ndarray:
    flat = np.asarray(values).reshape(-1)
    if dtype == "bf16":
        return numerics.f32_to_bf16_bits(flat.astype(np.float32))
    if dtype == "fp32":
        return flat.astype(np.float32)
    if dtype == "int32":
        return flat.astype(np.int32)
    raise ValueError(f"unknown dtype {dtype}")


def from_storage(values: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bf16":
        return numerics.bf16_bits_to_f32(values)
    return np.asarray(values).astype(np.float32 if dtype == "fp32" else np.int32)


def build_image(layout: Layout, inputs: dict[str, np.ndarray]) -> MemoryImage:
    """Inputs at their regions, outputs poisoned, constants in place."""
    image = MemoryImage()
    for r in layout.regions:
        if r.role == "input":
            arr = np.asarray(inputs[r.name])
            if arr.size != r.size:
                raise ValueError(f"input {r.name}: {arr.size} elements, layout expects {r.size}")
            image.put(r.memory, r.address, to_storage(arr, r.dtype))
        elif r.role == "output":
            if r.dtype == "bf16":
                image.put(r.memory, r.address, np.full(r.size, POISON_BF16, dtype=np.uint16))
            elif r.dtype == "fp32":
                image.put(r.memory, r.address, np.full(r.size, POISON_FP32, dtype=np.uint32).view(np.float32))
            else:
                raise ValueError(f"output {r.name}: only bf16 and fp32 outputs are poisoned")
    for c in layout.constants:
        image.put(c.memory, c.address, np.array([c.value], dtype=np.float32))
    return image


def read_outputs(layout: Layout, result: RunResult) -> dict[str, np.ndarray]:
    return {r.name: read_region(layout, result.memories, r) for r in layout.by_role("output")}


def read_region(layout: Layout, memories: dict[str, np.ndarray], r: Region) -> np.ndarray:
    """The values of region `r` in final memories (a RunResult's or a debugger
    snapshot's), as float32/int32 of its shape, for element- and byte-addressed memories."""
    start, stop = layout.span(r)
    raw = memories[r.memory][start:stop]
    if r.memory in layout.bases:
        raw = raw.view(STORAGE_DTYPE[r.dtype])
    return from_storage(raw, r.dtype).reshape(r.shape)


def writes_outside(layout: Layout, image: MemoryImage, result: RunResult,
                   memories: tuple[str, ...]) -> list[tuple[str, int, int]]:
    """Runs of changed elements outside every declared region: (memory, first, count).

    Only memories that start as the image says (zero elsewhere) are checked, so the
    comparison is against zero outside the image's own writes."""
    found = []
    for mem in memories:
        final = result.memories.get(mem)
        if final is None:
            continue
        base = layout.bases.get(mem)
        changed = final != 0
        for r in layout.regions:
            if r.memory == mem:
                start, stop = layout.span(r, reserved=True)
                changed[start:stop] = False
        for addr, vals in image.writes.get(mem, {}).items():
            if base is not None:        # byte-addressed: compare the bytes written
                addr, vals = addr - base, np.ascontiguousarray(vals).view(np.uint8).ravel()
            seg = final[addr:addr + len(vals)]
            changed[addr:addr + len(vals)] &= seg != vals[:len(seg)]
        idx = np.flatnonzero(changed)
        if idx.size:
            breaks = np.flatnonzero(np.diff(idx) != 1)
            starts = np.concatenate(([idx[0]], idx[breaks + 1]))
            ends = np.concatenate((idx[breaks], [idx[-1]]))
            found += [(mem, int(s) + (base or 0), int(e - s + 1)) for s, e in zip(starts, ends)]
    return found
