"""Load and validate an accelerator's ISA data (`isa/<name>/*.toml`).

One in-memory model (`ISA`) feeds the assembler, disassembler, functional model,
manual and RTL constants. Validation names the file, the instruction and the rule
broken, so a bad edit to the data fails loudly at load time.
"""
from __future__ import annotations

import ast
import operator
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from simulators.core.errors import ConfigError

ISA_ROOT = Path(__file__).resolve().parent


class ISADataError(Exception):
    """The ISA data itself is inconsistent (a defect of the project, not of a kernel)."""


@dataclass(frozen=True)
class Kind:
    name: str
    doc: str
    prefix: str = ""          # register kinds: "gp", "f", "a"
    count: int = 0
    min: int = 0
    max: int = 0
    signed: bool = False
    reserved: bool = False

    @property
    def is_register(self) -> bool:
        return bool(self.prefix)


@dataclass(frozen=True)
class Operand:
    name: str       # field name (rd, rs1, imm, ...)
    kind: Kind
    optional: bool


@dataclass(frozen=True)
class Format:
    name: str
    doc: str
    fields: dict[str, tuple[int, int]]   # name -> (lsb, width)

    def used_mask(self, opcode_lsb: int, opcode_width: int) -> int:
        mask = ((1 << opcode_width) - 1) << opcode_lsb
        for lsb, width in self.fields.values():
            mask |= ((1 << width) - 1) << lsb
        return mask


@dataclass(frozen=True)
class InstrDef:
    mnemonic: str
    opcode: int
    format: Format
    operands: tuple[Operand, ...]
    unit: str
    timing: str
    summary: str
    semantics: str = ""
    constraints: tuple[str, ...] = ()
    example: str = ""
    group: str = ""       # file it came from: scalar, vector, ...
    source: str = ""      # "file:line" of the record, for messages

    @property
    def syntax(self) -> str:
        parts = []
        for op in self.operands:
            text = "0" if op.kind.reserved else op.name
            parts.append(f"[{text}]" if op.optional else text)
        return f"{self.mnemonic} " + ", ".join(parts) if parts else self.mnemonic

    @property
    def min_operands(self) -> int:
        return sum(1 for op in self.operands if not op.optional)


@dataclass(frozen=True)
class Param:
    name: str
    default: int
    doc: str
    power_of_two: bool = False


@dataclass
class ISA:
    name: str
    word_bits: int
    opcode_lsb: int
    opcode_width: int
    kinds: dict[str, Kind]
    formats: dict[str, Format]
    instructions: dict[str, InstrDef]           # by mnemonic, in data order
    params: dict[str, Param]
    timing: dict[str, str]                      # class -> expression
    hardware: dict = field(default_factory=dict)
    root: Path = ISA_ROOT

    @property
    def by_opcode(self) -> dict[int, InstrDef]:
        return {d.opcode: d for d in self.instructions.values()}

    def register_kinds(self) -> list[Kind]:
        return [k for k in self.kinds.values() if k.is_register]


# --- configuration -----------------------------------------------------------------

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.FloorDiv: operator.floordiv}


def eval_expr(expr: str, env: dict[str, int]) -> int:
    """Evaluate a timing expression: integers, parameter names, + - * // and ()."""
    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise ISADataError(f"timing expression {expr!r}: unknown parameter {node.id}")
            return env[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        raise ISADataError(f"timing expression {expr!r}: only integers, parameters, + - * // allowed")
    return ev(ast.parse(expr, mode="eval"))


class HardwareConfig:
    """A hardware configuration: every parameter of `hardware.toml`, defaults overridden
    by keyword. Attribute access (`cfg.MLEN`) and `cfg.cycles(timing_class)`."""

    def __init__(self, isa: ISA, name: str = "default", **overrides: int):
        unknown = set(overrides) - set(isa.params)
        if unknown:
            raise ConfigError(
                f"unknown {isa.name} parameter(s) {', '.join(sorted(unknown))}; "
                f"known: {', '.join(isa.params)}")
        self.isa = isa
        self.name = name
        self.values: dict[str, int] = {p: d.default for p, d in isa.params.items()}
        for k, v in overrides.items():
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ConfigError(f"{isa.name} parameter {k} must be a positive integer, got {v!r}")
            self.values[k] = v
        for p, d in isa.params.items():
            v = self.values[p]
            if d.power_of_two and v & (v - 1):
                raise ConfigError(f"{isa.name} parameter {p}={v} must be a power of two")
        self._cycles = {c: eval_expr(e, self.values) for c, e in isa.timing.items()}
        for c, v in self._cycles.items():
            if v < 0:
                raise ConfigError(f"timing class {c} evaluates to {v} cycles on this configuration")

    def __getattr__(self, item: str) -> int:
        values = self.__dict__.get("values", {})
        if item in values:
            return values[item]
        raise AttributeError(item)

    def memories(self) -> dict[str, tuple[int, str]]:
        """Addressable memories: name -> (size in elements, dtype "bf16"|"fp32"|"int32")."""
        return {name: (eval_expr(m["size"], self.values), m["dtype"])
                for name, m in self.isa.hardware.get("memories", {}).items()}

    def cycles(self, timing_class: str) -> int:
        return self._cycles[timing_class]

    def as_dict(self) -> dict[str, int]:
        return dict(self.values)

    def __repr__(self) -> str:
        diff = {k: v for k, v in self.values.items() if v != self.isa.params[k].default}
        return f"HardwareConfig({self.isa.name}:{self.name}, {diff or 'defaults'})"


# --- loading -----------------------------------------------------------------------

def _record_lines(text: str) -> list[int]:
    return [i + 1 for i, line in enumerate(text.splitlines()) if line.strip() == "[[instruction]]"]


def _load_kinds(data: dict, path: Path) -> dict[str, Kind]:
    kinds = {}
    for name, k in data.get("kinds", {}).items():
        kinds[name] = Kind(name=name, doc=k.get("doc", ""), prefix=k.get("prefix", ""),
                           count=k.get("count", 0), min=k.get("min", 0), max=k.get("max", 0),
                           signed=k.get("signed", False), reserved=k.get("reserved", False))
    return kinds


def load_isa(name: str) -> ISA:
    """Load `isa/<name>/` and validate it; raises ISADataError naming file:line."""
    root = ISA_ROOT / name
    fmt_path = root / "formats.toml"
    fdata = tomllib.loads(fmt_path.read_text())
    kinds = _load_kinds(fdata, fmt_path)
    word_bits = fdata["word_bits"]
    op_lsb, op_width = fdata["opcode"]["lsb"], fdata["opcode"]["width"]
    formats = {}
    for fname, f in fdata["formats"].items():
        fields = {k: (v[0], v[1]) for k, v in f["fields"].items()}
        used = ((1 << op_width) - 1) << op_lsb
        for field_name, (lsb, width) in fields.items():
            m = ((1 << width) - 1) << lsb
            if m & used:
                raise ISADataError(f"{fmt_path}: format {fname}: field {field_name} overlaps another field")
            if lsb + width > word_bits:
                raise ISADataError(f"{fmt_path}: format {fname}: field {field_name} runs past bit {word_bits - 1}")
            used |= m
        formats[fname] = Format(fname, f.get("doc", ""), fields)

    hw_path = root / "hardware.toml"
    hw = tomllib.loads(hw_path.read_text())
    params = {p: Param(p, v["default"], v.get("doc", ""), v.get("power_of_two", False))
              for p, v in hw["params"].items()}
    timing = dict(hw["timing"])

    instructions: dict[str, InstrDef] = {}
    opcodes: dict[int, str] = {}
    for group in fdata["instruction_files"]:
        path = root / f"{group}.toml"
        text = path.read_text()
        lines = _record_lines(text)
        for i, rec in enumerate(tomllib.loads(text).get("instruction", [])):
            where = f"{path.relative_to(ISA_ROOT.parent)}:{lines[i] if i < len(lines) else '?'}"
            instructions_add(rec, where, group, kinds, formats, timing, instructions, opcodes,
                             op_width)
    return ISA(name=name, word_bits=word_bits, opcode_lsb=op_lsb, opcode_width=op_width,
               kinds=kinds, formats=formats, instructions=instructions, params=params,
               timing=timing, hardware=hw, root=root)


def instructions_add(rec, where, group, kinds, formats, timing, instructions, opcodes, op_width):
    mn = rec.get("mnemonic", "?")
    ctx = f"{where}: {mn}"
    for key in ("mnemonic", "opcode", "format", "operands", "unit", "timing", "summary"):
        if key not in rec:
            raise ISADataError(f"{ctx}: missing '{key}'")
    if mn in instructions:
        raise ISADataError(f"{ctx}: mnemonic defined twice (first at {instructions[mn].source})")
    opc = rec["opcode"]
    if not 0 < opc < (1 << op_width):
        raise ISADataError(f"{ctx}: opcode {opc:#x} outside 1..{(1 << op_width) - 1:#x}")
    if opc in opcodes:
        raise ISADataError(f"{ctx}: opcode {opc:#x} already used by {opcodes[opc]}")
    if rec["format"] not in formats:
        raise ISADataError(f"{ctx}: unknown format {rec['format']!r}")
    if rec["timing"] not in timing:
        raise ISADataError(f"{ctx}: timing class {rec['timing']!r} not in hardware.toml")
    fmt = formats[rec["format"]]
    operands = []
    seen_optional = False
    for spec in rec["operands"]:
        fname, _, kname = spec.partition(":")
        optional = kname.endswith("?")
        kname = kname.rstrip("?")
        if kname not in kinds:
            raise ISADataError(f"{ctx}: operand {spec!r}: unknown kind {kname!r}")
        kind = kinds[kname]
        if seen_optional and not optional:
            raise ISADataError(f"{ctx}: operand {fname} follows an optional operand")
        seen_optional |= optional
        if not kind.reserved:
            if fname not in fmt.fields:
                raise ISADataError(f"{ctx}: operand {fname} has no field in format {fmt.name}")
            width = fmt.fields[fname][1]
            top = kind.count - 1 if kind.is_register else kind.max
            lo = 0 if kind.is_register else kind.min
            span = top - lo + 1 if kind.signed else top + 1
            if span > (1 << width):
                raise ISADataError(f"{ctx}: operand {fname} ({kname}) does not fit {width} bits")
        operands.append(Operand(fname, kind, optional))
    named = {op.name for op in operands}
    for f in fmt.fields:
        if f not in named:
            raise ISADataError(f"{ctx}: field {f} of format {fmt.name} has no operand")
    opcodes[opc] = mn
    instructions[mn] = InstrDef(
        mnemonic=mn, opcode=opc, format=fmt, operands=tuple(operands), unit=rec["unit"],
        timing=rec["timing"], summary=rec["summary"], semantics=rec.get("semantics", ""),
        constraints=tuple(rec.get("constraints", ())), example=rec.get("example", ""),
        group=group, source=where)


@lru_cache(maxsize=None)
def get_isa(name: str) -> ISA:
    return load_isa(name)
