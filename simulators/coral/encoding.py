"""coral encoder, decoder and disassembler, driven by the ISA data (tables.py)."""
from __future__ import annotations

from kernelcraft.isa.loader import InstrDef, Kind
from kernelcraft.simulators.core.errors import DecodeError
from kernelcraft.simulators.core.program import Instr

from .tables import WORD_MASK, Tables, kind_range, tables


def field_ok(kind: Kind, value: int) -> bool:
    """Whether `value` is a legal value of an operand of this kind."""
    if kind.is_register:
        return 0 <= value < kind.count
    if kind.names and not kind.numbers:
        return value in kind.name_values.values() or value == kind.default
    return kind.min <= value <= kind.max and value % kind.align == 0


def encode_ops(d: InstrDef, ops: dict, t: Tables | None = None) -> int:
    """The word of `d` with operand values `ops` (pc-relative operands as offsets)."""
    t = t or tables()
    word = d.match
    for f in t.fields[d.mnemonic]:
        v = ops[f.name]
        for p in f.pieces:
            word |= ((v >> p.at) & ((1 << p.width) - 1)) << p.lsb
    return word


def encode(instr: Instr) -> int:
    """The word of a decoded or hand-built instruction; ValueError on a bad value."""
    t = tables()
    d = t.defs.get(instr.mnemonic)
    if d is None:
        raise ValueError(f"unknown coral mnemonic {instr.mnemonic!r}")
    ops = {}
    for op in d.operands:
        v = instr.ops.get(op.name, op.kind.default if op.optional else None)
        if not isinstance(v, int) or isinstance(v, bool):
            raise ValueError(f"{d.mnemonic}: operand {op.name} must be an int, got {v!r}")
        if not field_ok(op.kind, v):
            raise ValueError(f"{d.mnemonic}: operand {op.name} = {v} is not {kind_range(op.kind)}")
        ops[op.name] = v
    return encode_ops(d, ops, t)


def _extract(word: int, f) -> int:
    v = 0
    for p in f.pieces:
        v |= ((word >> p.lsb) & ((1 << p.width) - 1)) << p.at
    if f.kind.signed and v >> (f.bits - 1) & 1:
        v -= 1 << f.bits
    return v


def decode(word: int, index: int = 0, pc: int | None = None) -> Instr:
    """Decode one word (at address `pc`, default 4 * index); DecodeError if it is not
    a coral instruction or a field holds a value its operand does not allow."""
    t = tables()
    if not isinstance(word, int) or not 0 <= word <= WORD_MASK:
        raise DecodeError(index, int(word) & WORD_MASK if isinstance(word, int) else 0,
                          f"{word!r} is not a 32-bit word")
    pc = 4 * index if pc is None else pc
    opcode = word & 0x7F
    bucket = t.by_opcode.get(opcode)
    if not bucket:
        what = "a compressed (16-bit) instruction: C is not supported" if word & 3 != 3 else \
            f"major opcode 0x{opcode:02X} is not used by coral"
        raise DecodeError(index, word, what)
    d = next((c for c in bucket if word & c.mask == c.match), None)
    if d is None:
        raise DecodeError(index, word, f"no coral instruction with major opcode 0x{opcode:02X} "
                                       f"({bucket[0].extension}) has this encoding")
    ops = {}
    for f in t.fields[d.mnemonic]:
        v = _extract(word, f)
        if not field_ok(f.kind, v):
            raise DecodeError(index, word, f"{d.mnemonic}: field {f.name} = {v} is not "
                                           f"{kind_range(f.kind)}")
        ops[f.name] = v
    return Instr(d.mnemonic, ops, 0, format_instr(d.mnemonic, ops, pc))


def operand_text(kind: Kind, value: int, pc: int, t: Tables) -> str:
    if kind.is_register:
        return t.canonical[kind.name][value]
    if kind.names:
        for n, v in kind.names:
            if v == value:
                return n
    if kind.pcrel:
        return f"0x{(pc + value) & WORD_MASK:x}"
    return str(value)


def format_instr(mnemonic: str, ops: dict, pc: int = 0) -> str:
    """Canonical GNU-syntax text: ABI register names, branch targets as absolute
    addresses, optional operands left out when they have their default value (the
    vtype operands of vsetvli/vsetivli are always written)."""
    t = tables()
    d = t.defs[mnemonic]
    kinds = {op.name: op for op in d.operands}
    out, pending = [], []
    for slot in t.slots[mnemonic]:
        if slot.kind == "lit":
            text = slot.text
        elif slot.kind == "mem":
            off, base = slot.names
            b = operand_text(kinds[base].kind, ops[base], pc, t)
            text = f"({b})" if not off else f"{operand_text(kinds[off].kind, ops[off], pc, t)}({b})"
        else:
            op = kinds[slot.names[0]]
            v = ops.get(op.name, op.kind.default)
            text = operand_text(op.kind, v, pc, t)
            if op.optional and v == op.kind.default and op.kind.name not in ("lmul", "vta", "vma"):
                if mnemonic == "fence":
                    text = operand_text(op.kind, v, pc, t)
                else:
                    pending.append(text)
                    continue
        out += pending
        pending = []
        out.append(text)
    return f"{mnemonic} {', '.join(out)}" if out else mnemonic


def disassemble(words, base: int = 0) -> str:
    """Text, one instruction per line, that assembles back to the same words (at
    address `base` onwards)."""
    return "".join(decode(w, i, base + 4 * i).text + "\n" for i, w in enumerate(words))
