"""An assembled aie program (bundles of operations, DMA descriptors) and its binary
form: encoding, decoding and disassembly, all driven by isa/aie/.

Binary: every bundle is a header word (how many operation words follow, how many
hardware loops end after it) followed by its operation words in slot order; each
operation word is its record's format with the opcode in bits [6:0].
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kernelcraft.isa.aie.model import AieSpec, get_spec
from kernelcraft.simulators.core.errors import DecodeError
from kernelcraft.simulators.core.program import Instr, Program

ACCEL = "aie"


@dataclass(frozen=True)
class Bundle:
    start: int            # index of its first operation in Program.instrs
    count: int            # operations (0 for an empty bundle)
    ends: int = 0         # hardware loops that end after this bundle
    line: int = 0
    text: str = ""


@dataclass
class AieProgram(Program):
    bundles: list[Bundle] = field(default_factory=list)
    descriptors: list[dict] = field(default_factory=list)      # .bd fields, by number
    descriptor_names: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        """Code size in 32-bit words (headers and operations): what instruction memory holds."""
        return len(self.words)

    def source_at(self, pc: int) -> tuple[int, str]:
        """(source line, text) of bundle `pc` (aie's addresses are bundle indices)."""
        if not 0 <= pc < len(self.bundles):
            return 0, ""
        bd = self.bundles[pc]
        ops = self.bundle_ops(pc)
        return bd.line or (ops[0].line if ops else 0), bd.text or " || ".join(i.text for i in ops)

    def bundle_ops(self, b: int) -> list[Instr]:
        bd = self.bundles[b]
        return self.instrs[bd.start:bd.start + bd.count]


# --- post-modify operands -------------------------------------------------------------

class PostMod:
    """Encoding of the post-modify operand (formats.toml, kinds.postmod)."""

    def __init__(self, spec: AieSpec):
        a = spec.kind_attrs["postmod"]
        self.bits = a["value_bits"]
        self.modes = dict(a["modes"])                  # "imm" | "m" | "g" -> code
        self.names = {v: k for k, v in self.modes.items()}
        self.lo, self.hi = -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1

    def encode(self, mode: str, value: int) -> int:
        return self.modes[mode] << self.bits | (value & ((1 << self.bits) - 1))

    def decode(self, word: int) -> tuple[str, int]:
        mode = self.names.get(word >> self.bits)
        value = word & ((1 << self.bits) - 1)
        if mode == "imm" and value >> (self.bits - 1):
            value -= 1 << self.bits
        return mode, value

    def text(self, word: int) -> str:
        mode, value = self.decode(word)
        return str(value) if mode == "imm" else f"{mode}{value}"


# --- text of an operation -------------------------------------------------------------

def op_text(spec: AieSpec, mnemonic: str, ops: dict) -> str:
    """Canonical text of an operation: registers by name, [pN] memory operands, a zero
    post-modify left out."""
    info = spec.ops[mnemonic]
    pm = PostMod(spec)
    kinds = {op.name: op.kind for op in info.defn.operands}
    parts = {}
    for name, kind in kinds.items():
        v = ops.get(name, 0)
        if kind.name == "postmod":
            parts[name] = "" if v == 0 else pm.text(v)
        elif kind.is_register:
            parts[name] = f"{kind.prefix}{v}"
        else:
            parts[name] = str(v)
    text = info.syntax
    for name, t in parts.items():
        if t == "" and f"[, {{{name}}}]" in text:
            text = text.replace(f"[, {{{name}}}]", "")
        text = text.replace(f"[, {{{name}}}]", f", {{{name}}}").replace(f"{{{name}}}", t)
    return f"{mnemonic} {text}".strip()


# --- encoding -------------------------------------------------------------------------

class Codec:
    def __init__(self, spec: AieSpec):
        isa = spec.isa
        self.spec = spec
        self.pm = PostMod(spec)
        self.by_opcode = isa.by_opcode
        self.op_mask = (1 << isa.opcode_width) - 1
        self.op_lsb = isa.opcode_lsb
        self.hdr = spec.header_fields
        self.hdr_used = 0
        for lsb, width in self.hdr.values():
            self.hdr_used |= ((1 << width) - 1) << lsb
        self.fields = {}
        self.unused = {}
        for mn, info in spec.ops.items():
            d = info.defn
            fs = []
            used = self.op_mask << self.op_lsb
            for op in d.operands:
                lsb, width = d.format.fields[op.name]
                fs.append((op.name, lsb, width, op.kind))
                used |= ((1 << width) - 1) << lsb
            self.fields[mn] = fs
            self.unused[mn] = 0xFFFFFFFF & ~used

    def header(self, count: int, ends: int) -> int:
        (olsb, _), (elsb, _) = self.hdr["ops"], self.hdr["ends"]
        return count << olsb | ends << elsb

    def encode_op(self, instr: Instr) -> int:
        info = self.spec.ops.get(instr.mnemonic)
        if info is None:
            raise ValueError(f"unknown aie operation {instr.mnemonic!r}")
        word = info.defn.opcode << self.op_lsb
        for name, lsb, width, kind in self.fields[instr.mnemonic]:
            v = instr.ops.get(name, 0)
            lo, hi = (0, kind.count - 1) if kind.is_register else (kind.min, kind.max)
            if kind.name == "postmod":
                lo, hi = 0, (1 << width) - 1
            if not isinstance(v, int) or not lo <= v <= hi:
                raise ValueError(f"{instr.mnemonic}: operand {name} = {v!r} outside {lo}..{hi}")
            word |= (v & ((1 << width) - 1)) << lsb
        return word

    def decode_op(self, word: int, index: int) -> Instr:
        opcode = (word >> self.op_lsb) & self.op_mask
        d = self.by_opcode.get(opcode)
        if d is None:
            raise DecodeError(index, word, f"opcode 0x{opcode:02X} is not assigned to an operation")
        extra = word & self.unused[d.mnemonic]
        if extra:
            raise DecodeError(index, word, f"{d.mnemonic} (format {d.format.name}) needs the bits "
                                           f"0x{extra:08X} to be zero")
        ops = {}
        for name, lsb, width, kind in self.fields[d.mnemonic]:
            v = (word >> lsb) & ((1 << width) - 1)
            if kind.name == "postmod":
                if self.pm.decode(v)[0] is None:
                    raise DecodeError(index, word, f"{d.mnemonic}: post-modify mode "
                                                   f"{v >> self.pm.bits} is not assigned")
                ops[name] = v
                continue
            if kind.signed and v >> (width - 1):
                v -= 1 << width
            lo, hi = (0, kind.count - 1) if kind.is_register else (kind.min, kind.max)
            if not lo <= v <= hi:
                raise DecodeError(index, word, f"{d.mnemonic}: field {name} = {v} outside {lo}..{hi}")
            ops[name] = v
        return Instr(d.mnemonic, ops, 0, op_text(self.spec, d.mnemonic, ops))


def encode_program(spec: AieSpec, instrs: list[Instr], bundles: list[Bundle]) -> list[int]:
    codec = Codec(spec)
    words = []
    for b in bundles:
        words.append(codec.header(b.count, b.ends))
        words += [codec.encode_op(i) for i in instrs[b.start:b.start + b.count]]
    return words


def decode(words, spec: AieSpec | None = None) -> tuple[list[Instr], list[Bundle]]:
    """Operations and bundles of a binary; raises DecodeError naming the word."""
    spec = spec or get_spec()
    codec = Codec(spec)
    (olsb, owidth), (elsb, ewidth) = spec.header_fields["ops"], spec.header_fields["ends"]
    capacity = spec.slot_classes()
    instrs, bundles = [], []
    i, n = 0, len(words)
    while i < n:
        h = words[i]
        if not isinstance(h, int) or not 0 <= h <= 0xFFFFFFFF:
            raise DecodeError(i, 0, f"{h!r} is not a 32-bit word")
        if h & ~codec.hdr_used:
            raise DecodeError(i, h, "a bundle header uses only bits "
                                    f"0x{codec.hdr_used:X}; this word is an operation or garbage")
        count, ends = (h >> olsb) & ((1 << owidth) - 1), (h >> elsb) & ((1 << ewidth) - 1)
        if not 1 <= count <= spec.max_ops:
            raise DecodeError(i, h, f"bundle header says {count} operations; a bundle holds 1.."
                                    f"{spec.max_ops} (an empty bundle is written NOP)")
        if i + 1 + count > n:
            raise DecodeError(i, h, f"bundle header says {count} operations but only "
                                    f"{n - i - 1} words follow")
        start = len(instrs)
        used: dict[str, int] = {}
        for k in range(count):
            ins = codec.decode_op(words[i + 1 + k], i + 1 + k)
            cls = spec.ops[ins.mnemonic].slot
            used[cls] = used.get(cls, 0) + 1
            if used[cls] > capacity[cls]:
                raise DecodeError(i + 1 + k, words[i + 1 + k],
                                  f"rule slots: a bundle has {capacity[cls]} {cls} slot(s); this is "
                                  f"one {cls} operation too many")
            instrs.append(ins)
        text = " || ".join(x.text for x in instrs[start:])
        bundles.append(Bundle(start, count, ends, 0, text))
        i += 1 + count
    return instrs, bundles


def descriptor_text(spec: AieSpec, name: str, fields: dict) -> str:
    parts = []
    for f in spec.dma_fields:
        v = fields[f.name]
        if f.kind == "lock":
            if v is None:
                continue
            parts.append(f"{f.name}=l{v}")
        else:
            parts.append(f"{f.name}={v}")
    return f".bd {name}, " + ", ".join(parts)


def disassemble(words, descriptors: list[dict] | None = None, names: list[str] | None = None) -> str:
    """Text that assembles back to the same words (and descriptors): one bundle per line,
    operations joined by `||`, ENDLOOP lines where loops end."""
    spec = get_spec()
    instrs, bundles = decode(words, spec)
    out = []
    for k, fields in enumerate(descriptors or []):
        out.append(descriptor_text(spec, (names or [])[k] if names and k < len(names) else f"BD{k}", fields))
    depth = 0
    for b in bundles:
        ops = instrs[b.start:b.start + b.count]
        out.append("    " * depth + " || ".join(x.text for x in ops))
        depth += sum(1 for x in ops if x.mnemonic in ("LOOP", "LOOPR"))
        for _ in range(b.ends):
            depth -= 1
            out.append("    " * max(depth, 0) + "ENDLOOP")
    return "\n".join(out) + ("\n" if out else "")
