"""Where a task's tensors and constants live in an accelerator's memories.

A layout is shared knowledge between the evaluator (which writes inputs, poisons
outputs and reads results) and the kernel author (who is shown `describe()`). The
expected outputs are never placed anywhere: they exist only in the evaluator.

A kernel owns its outputs, its scratch regions (role "scratch": declare one in the
accelerator's layout wherever honest kernels need room, e.g. coral's stack) and the
slack of every reservation. Everything else it must leave as the pre-run image had it:
memory no region declares starts as a guard pattern (NaN), and `stray_writes` compares
the final memory with that image, so a write of zero into unowned memory shows too.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernelcraft.simulators import numerics
from kernelcraft.simulators.core.backend import MemoryImage, RunResult

# Output regions start filled with these NaN patterns, so an element a kernel never writes fails.
POISON_BF16 = np.uint16(0xFFFF)
POISON_FP32 = np.uint32(0xFFFFFFFF)
# Memory a layout does not declare starts filled with this guard (NaN as bf16 and as
# binary32), so that a stray write shows against the pre-run image even when it writes zero.
GUARD_BF16 = np.uint16(0xFFFF)
GUARD_BYTE = np.uint8(0xFF)


def stray_note(memory: str) -> str:
    """What a kernel may write in a guarded memory, as its layout notes tell the author."""
    return (f"In {memory}, a kernel may write its outputs, the regions with role scratch and the "
            f"slack of every reservation, nothing else: the rest of {memory} starts filled with "
            "NaN (all bits set), and a write there (even of zero), or one that changes an input "
            "or a constant, fails the evaluation with the memory and address range named.")
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
    lead: int = 0         # elements before `address` that read as zero and are not the kernel's to
                          # write (a tile read that starts before the tensor: plena's narrow heads)

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
    # Guarded memories -> their size (elements, or bytes where byte-addressed): every
    # element no region or constant declares starts as the guard pattern.
    sizes: dict[str, int] = field(default_factory=dict)

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
            doc = r.doc + (f"; preceded by {r.lead} zero elements (read-only)" if r.lead else "")
            lines.append(f"| {r.name} | {r.role} | {r.memory} | {r.address} (0x{r.address:X}) "
                         f"| {shape} | {r.dtype} | {r.reserved} | {doc} |")
        if self.constants:
            lines += ["", "Constants preloaded for the kernel:", "",
                      "| name | memory | address | value |", "|---|---|---|---|"]
            lines += [f"| {c.name} | {c.memory} | {c.address} | {c.value!r} |" for c in self.constants]
        lines += [f"\n{n}" for n in self.notes]
        return "\n".join(lines)


def pack(regions_spec, memory: str, start: int, align: int, block: int = 1,
         guard: int = 0, lead: dict[str, int] | None = None) -> list[Region]:
    """Place (name, shape, dtype, role, doc[, extra]) tuples one after another: each
    starts aligned to `align`, after `lead[name]` zero elements if any, reserves a whole
    number of `block`s covering its size plus `extra` elements, and is followed by
    `guard` unused elements (where overruns show up as stray writes)."""
    out, addr = [], start
    for name, shape, dtype, role, doc, *extra in regions_spec:
        before = (lead or {}).get(name, 0)
        addr = -(-(addr + before) // align) * align
        size = int(np.prod(shape)) if len(shape) else 1
        r = Region(name, memory, addr, tuple(shape), dtype, role, doc,
                   capacity=-(-(size + sum(extra)) // block) * block, lead=before)
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
    """Inputs at their regions, outputs poisoned, constants in place, and every element
    of a guarded memory (`layout.sizes`) that the layout does not declare filled with
    the guard pattern."""
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
    for r in layout.regions:
        if r.lead:                    # written, so that stray_writes checks it
            image.put(r.memory, r.address - r.lead, np.zeros(r.lead, STORAGE_DTYPE[r.dtype]))
    for mem in layout.sizes:
        base = layout.bases.get(mem)
        for start, stop in guard_spans(layout, mem):
            image.put(mem, start + (base or 0), _guard(stop - start, base is not None))
    return image


_GUARDS: dict[bool, np.ndarray] = {}


def _guard(n: int, byte_addressed: bool) -> np.ndarray:
    """n guard elements: a read-only view of one shared array (backends copy it in)."""
    arr = _GUARDS.get(byte_addressed)
    if arr is None or arr.size < n:
        arr = np.full(n, GUARD_BYTE if byte_addressed else GUARD_BF16)
        arr.flags.writeable = False
        _GUARDS[byte_addressed] = arr
    return arr[:n]


def _owned_spans(layout: Layout, mem: str) -> list[tuple[int, int]]:
    """[start, stop) indices of every region (with its reservation and lead) and constant in `mem`."""
    spans = [layout.span(r, reserved=True) for r in layout.regions if r.memory == mem]
    spans += [(a - r.lead, a) for r in layout.regions if r.memory == mem and r.lead
              for a in [layout.span(r)[0]]]
    width = 4 if mem in layout.bases else 1
    spans += [(c.address - layout.bases.get(mem, 0),) * 2 for c in layout.constants if c.memory == mem]
    spans = [(a, b if b > a else a + width) for a, b in spans]
    return sorted(spans)


def guard_spans(layout: Layout, mem: str) -> list[tuple[int, int]]:
    """[start, stop) indices of `mem` that no region or constant declares: what the guard fills."""
    owned = _owned_spans(layout, mem)
    size = layout.sizes[mem]
    out, at = [], 0
    for a, b in owned + [(size, size)]:
        if a > at:
            out.append((at, min(a, size)))
        at = max(at, b)
    return [(a, b) for a, b in out if b > a]


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


def stray_writes(layout: Layout, image: MemoryImage, result: RunResult,
                 memories: tuple[str, ...]) -> tuple[list, list]:
    """Runs of elements that differ from the pre-run image where a kernel may not write:
    (outside, into_inputs), as (memory, first address, count) and (memory, first address,
    count, input name). A kernel may write its outputs and scratch regions and the slack
    of every reservation; anything else it changes (an input, a constant, the guard or
    memory the image never wrote) is a stray write. Byte-addressed memories count bytes."""
    outside, into = [], []
    for mem in memories:
        final = result.memories.get(mem)
        if final is None:
            continue
        base = layout.bases.get(mem)
        # Memory the image does not write starts at zero; in a guarded memory the image
        # writes everything outside the regions, so one comparison per write is enough.
        changed = np.zeros(final.shape, bool) if mem in layout.sizes else final != 0
        for addr, vals in image.writes.get(mem, {}).items():
            if base is not None:              # byte-addressed: compare the bytes written
                addr, vals = addr - base, np.ascontiguousarray(vals).view(np.uint8).ravel()
            seg = final[addr:addr + len(vals)]
            np.not_equal(seg, vals[:len(seg)], out=changed[addr:addr + len(seg)])
        for r in layout.regions:
            if r.memory != mem:
                continue
            start, stop = layout.span(r, reserved=True)
            if r.role == "input":             # the tensor is checked, its slack is free
                tensor_stop = layout.span(r)[1]
                into += [(m, a, n, r.name) for m, a, n in _runs(changed[start:tensor_stop], mem,
                                                                start + (base or 0))]
            changed[start:stop] = False
        outside += _runs(changed, mem, base or 0)
    return outside, into


def _runs(changed: np.ndarray, mem: str, offset: int) -> list[tuple[str, int, int]]:
    idx = np.flatnonzero(changed)
    if not idx.size:
        return []
    breaks = np.flatnonzero(np.diff(idx) != 1)
    starts = np.concatenate(([idx[0]], idx[breaks + 1]))
    ends = np.concatenate((idx[breaks], [idx[-1]]))
    return [(mem, int(s) + offset, int(e - s + 1)) for s, e in zip(starts, ends)]


def describe_stray(layout: Layout, outside: list, into: list, limit: int = 3) -> str:
    """What a kernel wrote where it may not, naming memory and address range."""
    def where(mem, first, count):
        unit = "bytes" if mem in layout.bases else "elements"
        if mem in layout.bases:
            return f"{mem}[0x{first:X}:0x{first + count:X}] ({count} {unit})"
        return f"{mem}[{first}:{first + count}] ({count} {unit})"
    parts = []
    if into:
        parts.append("writes into inputs (a kernel may not overwrite its caller's data): " + ", ".join(
            f"{name} at {where(m, a, n)}" for m, a, n, name in into[:limit])
            + (f" and {len(into) - limit} more" if len(into) > limit else ""))
    if outside:
        parts.append("writes outside the declared regions: " + ", ".join(
            where(m, a, n) for m, a, n in outside[:limit])
            + (f" and {len(outside) - limit} more" if len(outside) > limit else ""))
    return "; ".join(parts)
