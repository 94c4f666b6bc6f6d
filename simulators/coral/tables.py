"""What the coral assembler, disassembler and model read from `isa/coral/`, built once:
register names, operand slots of every syntax template, encodings and decode buckets.

A syntax template (`"{rd}, {imm}({rs1})"`) is split at top-level commas into slots: an
operand (`{rd}`), a memory operand (`{imm}({rs1})` or `({rs1})`), or literal text
(`v0`); `[...]` marks optional slots.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from kernelcraft.isa.loader import HardwareConfig, InstrDef, Kind, PseudoDef, get_isa

ACCEL = "coral"
WORD_MASK = 0xFFFFFFFF


@dataclass(frozen=True)
class Slot:
    """One comma-separated part of a syntax template."""

    kind: str                 # "op" | "mem" | "lit"
    names: tuple[str, ...]    # operand names: ("rd",), mem: (offset or "", base)
    text: str = ""            # literal text
    group: int = -1           # optional group number, -1 if required


_SLOT_OP = re.compile(r"^\{(\w+)\}$")
_SLOT_MEM = re.compile(r"^(?:\{(\w+)\})?\(\{(\w+)\}\)$")


def parse_template(template: str) -> tuple[Slot, ...]:
    """Slots of a template; optional groups `[, {a}, {b}]` are numbered in order."""
    slots, group, depth, buf = [], -1, 0, ""
    parts: list[tuple[str, int]] = []
    n_groups = 0
    for ch in template:
        if ch == "[":
            if buf.strip():
                parts.append((buf.strip(), group))
            buf = ""
            depth += 1
            group = n_groups
            n_groups += 1
            continue
        if ch == "]":
            depth -= 1
            if buf.strip():
                parts.append((buf.strip(), group))
            buf = ""
            group = -1 if depth == 0 else group
            continue
        if ch == "," and not buf.count("(") - buf.count(")"):
            if buf.strip():
                parts.append((buf.strip(), group))
            buf = ""
            continue
        buf += ch
    if buf.strip():
        parts.append((buf.strip(), group))
    for text, g in parts:
        m = _SLOT_OP.match(text)
        if m:
            slots.append(Slot("op", (m.group(1),), group=g))
            continue
        m = _SLOT_MEM.match(text)
        if m:
            slots.append(Slot("mem", (m.group(1) or "", m.group(2)), group=g))
            continue
        slots.append(Slot("lit", (), text=text, group=g))
    return tuple(slots)


@dataclass(frozen=True)
class Piece:
    lsb: int
    width: int
    at: int


@dataclass(frozen=True)
class FieldCode:
    """How one operand is encoded: its pieces and kind."""

    name: str
    kind: Kind
    pieces: tuple[Piece, ...]
    bits: int          # value bits (for sign extension on decode)


class Tables:
    def __init__(self):
        isa = get_isa(ACCEL)
        self.isa = isa
        self.defs: dict[str, InstrDef] = isa.instructions
        self.pseudos: dict[str, list[PseudoDef]] = isa.pseudos
        self.kinds = isa.kinds
        self.registers: dict[str, tuple[Kind, int]] = {}
        self.canonical: dict[str, list[str]] = {}
        for k in isa.register_kinds():
            names = []
            for i in range(k.count):
                all_names = k.register_names(i)
                for n in all_names:
                    self.registers[n] = (k, i)
                names.append(all_names[1] if len(all_names) > 1 else all_names[0])
            self.canonical[k.name] = names
        self.slots: dict[str, tuple[Slot, ...]] = {mn: parse_template(d.template)
                                                   for mn, d in self.defs.items()}
        self.pseudo_slots: dict[int, tuple[Slot, ...]] = {
            id(p): parse_template(p.template) for ps in self.pseudos.values() for p in ps}
        self.fields: dict[str, tuple[FieldCode, ...]] = {}
        for mn, d in self.defs.items():
            codes = []
            for op in d.operands:
                if op.kind.reserved:
                    continue
                parts = tuple(Piece(lsb, w, at) for lsb, w, at in d.format.pieces[op.name])
                codes.append(FieldCode(op.name, op.kind, parts, d.format.value_bits(op.name)))
            self.fields[mn] = tuple(codes)
        self.by_opcode: dict[int, list[InstrDef]] = {}
        for d in self.defs.values():
            self.by_opcode.setdefault(d.opcode, []).append(d)
        # most specific first, so a word matching a narrower encoding picks it
        for bucket in self.by_opcode.values():
            bucket.sort(key=lambda d: -bin(d.mask).count("1"))
        self.mnemonics = set(self.defs) | set(self.pseudos)


@lru_cache(maxsize=None)
def tables() -> Tables:
    return Tables()


@lru_cache(maxsize=None)
def default_config() -> HardwareConfig:
    return HardwareConfig(get_isa(ACCEL))


def memory_base(cfg: HardwareConfig, memory: str) -> int:
    from kernelcraft.isa.loader import eval_expr
    return eval_expr(cfg.isa.hardware["memories"][memory]["base"], cfg.values)


def kind_range(kind: Kind) -> str:
    if kind.is_register:
        return f"{kind.prefix}0..{kind.prefix}{kind.count - 1}"
    if kind.names and not kind.numbers:
        return ", ".join(n for n, _ in kind.names)
    text = f"{kind.min}..{kind.max}"
    if kind.align > 1:
        text += f", a multiple of {kind.align}"
    return text
