"""Which register units an operation reads and writes: what the bundle rules count
and what the pipeline's scoreboard tracks. Units are (file, number) of the base
register files: a w register is half of an x register, a y register two of them, a
pointer post-modify writes its pointer (and an address generator's counters)."""
from __future__ import annotations

from kernelcraft.isa.aie.model import MEMORY_KINDS, AieSpec, OpInfo

from .program import PostMod

Unit = tuple[str, int]


def units(spec: AieSpec, kind_name: str, value: int) -> list[Unit]:
    f = spec.file_of(kind_name)
    if f is None:
        return []
    if f.alias == "half":
        return [(f.units, value // 2)]
    if f.alias == "pair":
        return [(f.units, 2 * value), (f.units, 2 * value + 1)]
    return [(f.units, value)]


def effects(spec: AieSpec, info: OpInfo, ops: dict, postmod: PostMod | None = None
            ) -> tuple[list[Unit], list[Unit]]:
    """(read units, written units) of one operation with operand values `ops`."""
    kinds = {op.name: op.kind for op in info.defn.operands}
    reads: list[Unit] = []
    writes: list[Unit] = []
    for name in info.reads:
        if name in kinds:
            reads += units(spec, kinds[name].name, ops.get(name, 0))
    for name in info.writes:
        if name in kinds:
            writes += units(spec, kinds[name].name, ops.get(name, 0))
    if info.post:
        pm = postmod or PostMod(spec)
        mode, value = pm.decode(ops.get(info.post, 0))
        ptr = next(n for n, k in kinds.items() if k.name in MEMORY_KINDS)
        p = ("p", ops.get(ptr, 0))
        if mode == "m":
            reads.append(("m", value))
            writes.append(p)
        elif mode == "g":
            reads.append(("g", value))
            writes += [("g", value), p]
        elif value:
            writes.append(p)
    return reads, writes

