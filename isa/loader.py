"""Load and validate an accelerator's ISA data (`isa/<name>/*.toml`).

One in-memory model (`ISA`) feeds the assembler, disassembler, functional model,
manual and RTL constants. Validation names the file, the instruction and the rule
broken, so a bad edit to the data fails loudly at load time.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from kernelcraft.isa.errors import ConfigError
from kernelcraft.isa.expr import ExprError, evaluate

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
    # Optional refinements (RISC-V style data); the defaults keep the plain kinds above.
    aliases: tuple[str, ...] = ()        # register kinds: other names of register i ("s0/fp")
    names: tuple[tuple[str, int], ...] = ()   # enumerations: (written name, value)
    default: int = 0                     # value of an omitted optional operand
    align: int = 1                       # immediates: the value must be a multiple of this
    pcrel: bool = False                  # written as a target address, encoded as target - pc
    display: str = ""                    # how syntax lines write the operand (e.g. "v0.t")
    numbers: bool = False                # an enumeration that also accepts min..max numbers

    @property
    def is_register(self) -> bool:
        return bool(self.prefix)

    @property
    def name_values(self) -> dict[str, int]:
        return dict(self.names)

    def register_names(self, i: int) -> tuple[str, ...]:
        """Every name of register i: the numbered one first, then its aliases."""
        extra = self.aliases[i].split("/") if i < len(self.aliases) and self.aliases[i] else []
        return (f"{self.prefix}{i}", *extra)


@dataclass(frozen=True)
class Operand:
    name: str       # field name (rd, rs1, imm, ...)
    kind: Kind
    optional: bool


@dataclass(frozen=True)
class Format:
    name: str
    doc: str
    fields: dict[str, tuple[int, int]]   # name -> (lsb, width), contiguous operand fields
    # Every operand field as pieces (word lsb, width, lsb in the operand value): a split
    # immediate (RISC-V S/B/J types) has several; `fields` lists only contiguous ones.
    pieces: dict[str, tuple[tuple[int, int, int], ...]] = field(default_factory=dict)
    # Fields whose value each instruction fixes (funct3, funct7, ...): name -> (lsb, width).
    fixed: dict[str, tuple[int, int]] = field(default_factory=dict)

    def used_mask(self, opcode_lsb: int, opcode_width: int) -> int:
        mask = ((1 << opcode_width) - 1) << opcode_lsb
        for parts in self.pieces.values():
            for lsb, width, _ in parts:
                mask |= ((1 << width) - 1) << lsb
        for lsb, width in self.fixed.values():
            mask |= ((1 << width) - 1) << lsb
        return mask

    def value_bits(self, name: str) -> int:
        """Bits of the operand value a field holds (its highest piece end)."""
        return max(at + w for _, w, at in self.pieces[name])


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
    fixed: dict = field(default_factory=dict)   # fixed field name -> value
    match: int = 0        # the bits every encoding has under `mask`
    mask: int = 0
    template: str = ""    # written operand syntax, e.g. "{rd}, {imm}({rs1})"; "" = comma list
    extension: str = ""   # e.g. "RV32I", "Zve32f"
    family: str = ""      # manual heading shared by forms documented together ("" = own section)
    classes: tuple[str, ...] = ()   # instruction classes (formats.toml [classes]) it belongs to

    @property
    def syntax(self) -> str:
        if self.template:
            return render_template(self.mnemonic, self.template, self.operands)
        parts = []
        for op in self.operands:
            text = "0" if op.kind.reserved else op.name
            parts.append(f"[{text}]" if op.optional else text)
        return f"{self.mnemonic} " + ", ".join(parts) if parts else self.mnemonic

    @property
    def min_operands(self) -> int:
        return sum(1 for op in self.operands if not op.optional)


TEMPLATE_NAME = re.compile(r"\{(\w+)\}")


def render_template(mnemonic: str, template: str, operands) -> str:
    """A syntax line from a template: `{name}` becomes the operand name (or the kind's
    display text); `[...]` marks optional parts and is kept."""
    kinds = {op.name: op.kind for op in operands}
    text = TEMPLATE_NAME.sub(lambda m: kinds[m.group(1)].display or m.group(1)
                             if m.group(1) in kinds else m.group(1), template)
    return f"{mnemonic} {text}" if text else mnemonic


@dataclass(frozen=True)
class PseudoCase:
    when: str                  # "" (always) or a condition the assembler knows
    expansion: tuple[str, ...]  # instruction lines with {operand} placeholders


@dataclass(frozen=True)
class PseudoDef:
    """A pseudo-instruction: written like an instruction, assembled as the expansion of
    the first case whose condition holds."""

    mnemonic: str
    operands: tuple[Operand, ...]
    template: str
    cases: tuple[PseudoCase, ...]
    summary: str
    group: str = ""
    source: str = ""

    @property
    def syntax(self) -> str:
        return render_template(self.mnemonic, self.template, self.operands)


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
    pseudos: dict[str, list[PseudoDef]] = field(default_factory=dict)   # by mnemonic
    # Instruction classes (formats.toml [classes]: name -> what a member promises), which
    # assemblers, fast paths and random-program generators read instead of keeping lists
    # of mnemonics beside the data.
    classes: dict[str, str] = field(default_factory=dict)

    def having(self, *classes: str) -> tuple[str, ...]:
        """The mnemonics in any of `classes`, in data order."""
        unknown = [c for c in classes if c not in self.classes]
        if unknown:
            raise KeyError(f"isa/{self.name}: no instruction class {', '.join(unknown)}; "
                           f"classes: {', '.join(self.classes) or 'none'}")
        return tuple(mn for mn, d in self.instructions.items() if set(classes) & set(d.classes))

    @property
    def by_opcode(self) -> dict[int, InstrDef]:
        return {d.opcode: d for d in self.instructions.values()}

    def register_kinds(self) -> list[Kind]:
        return [k for k in self.kinds.values() if k.is_register]


# --- configuration -----------------------------------------------------------------

def eval_expr(expr: str, env: dict[str, int]) -> int:
    """Evaluate a formula of the ISA data (a timing class, a memory size or base):
    integers and parameter names with isa/expr.py's operators."""
    try:
        return evaluate(expr, env.get, lambda name: (f"unknown parameter {name}", ""))
    except ExprError as e:
        raise ISADataError(f"timing expression {expr!r}: {e.message}") from None


# Element sizes of the memory dtypes, and the most one simulated memory may take: a
# size parameter beyond it is refused here rather than failing in numpy's allocator.
DTYPE_BYTES = {"bf16": 2, "fp32": 4, "int32": 4, "u8": 1}
MAX_MEMORY_BYTES = 1 << 30


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
        too_big = {m: n * DTYPE_BYTES.get(dtype, 4) for m, (n, dtype) in self.memories().items()
                   if n * DTYPE_BYTES.get(dtype, 4) > MAX_MEMORY_BYTES}
        if too_big:
            raise ConfigError(
                f"{isa.name}: memory {', '.join(f'{m} would take {b:,} bytes' for m, b in too_big.items())}"
                f"; a simulated memory holds at most {MAX_MEMORY_BYTES:,} bytes (1 GiB): make "
                f"{', '.join(sorted(overrides)) or 'the size parameters'} smaller")
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

def _record_lines(text: str, table: str = "instruction") -> list[int]:
    return [i + 1 for i, line in enumerate(text.splitlines()) if line.strip() == f"[[{table}]]"]


def _load_kinds(data: dict, path: Path) -> dict[str, Kind]:
    kinds = {}
    for name, k in data.get("kinds", {}).items():
        names = tuple((str(n), int(v)) for n, v in k.get("names", {}).items())
        lo, hi = k.get("min", 0), k.get("max", 0)
        if names and "min" not in k and "max" not in k:
            lo, hi = min(v for _, v in names), max(v for _, v in names)
        aliases = tuple(k.get("aliases", ()))
        if aliases and len(aliases) != k.get("count", 0):
            raise ISADataError(f"{path}: kind {name}: {len(aliases)} aliases for "
                               f"{k.get('count', 0)} registers")
        kinds[name] = Kind(name=name, doc=k.get("doc", ""), prefix=k.get("prefix", ""),
                           count=k.get("count", 0), min=lo, max=hi,
                           signed=k.get("signed", False), reserved=k.get("reserved", False),
                           aliases=aliases, names=names, default=k.get("default", 0),
                           align=k.get("align", 1), pcrel=k.get("pcrel", False),
                           display=k.get("display", ""), numbers=k.get("numbers", False))
    return kinds


def _bits_mask(lsb: int, width: int) -> int:
    return ((1 << width) - 1) << lsb


def _load_format(fname: str, f: dict, fmt_path: Path, word_bits: int, op_lsb: int,
                 op_width: int) -> Format:
    """A format: contiguous fields `[lsb, width]`, split fields `[[lsb, width, at], ...]`
    (`at` = lowest operand-value bit the piece holds) and fixed fields. No two may share
    a bit; a split field's pieces must cover its value bits from its lowest `at` up
    without gaps."""
    used = _bits_mask(op_lsb, op_width)
    fields, pieces, fixed = {}, {}, {}

    def claim(what: str, lsb: int, width: int) -> None:
        nonlocal used
        m = _bits_mask(lsb, width)
        if width <= 0 or lsb < 0:
            raise ISADataError(f"{fmt_path}: format {fname}: {what} has a bad bit range")
        if m & used:
            raise ISADataError(f"{fmt_path}: format {fname}: field {what} overlaps another field")
        if lsb + width > word_bits:
            raise ISADataError(f"{fmt_path}: format {fname}: field {what} runs past bit {word_bits - 1}")
        used |= m

    for field_name, v in f.get("fields", {}).items():
        if v and isinstance(v[0], list):
            parts = tuple((p[0], p[1], p[2]) for p in v)
            for lsb, width, _ in parts:
                claim(field_name, lsb, width)
            covered = sorted((at, w) for _, w, at in parts)
            bit = covered[0][0]
            for at, w in covered:
                if at != bit:
                    raise ISADataError(f"{fmt_path}: format {fname}: field {field_name}: pieces "
                                       f"leave value bit {bit} uncovered or cover it twice")
                bit = at + w
            pieces[field_name] = parts
        else:
            claim(field_name, v[0], v[1])
            fields[field_name] = (v[0], v[1])
            pieces[field_name] = ((v[0], v[1], 0),)
    for field_name, v in f.get("fixed", {}).items():
        claim(field_name, v[0], v[1])
        fixed[field_name] = (v[0], v[1])
    return Format(fname, f.get("doc", ""), fields, pieces, fixed)


def load_isa(name: str, folder: Path | None = None) -> ISA:
    """Load `isa/<name>/` (or `folder`, for an accelerator kept elsewhere, e.g. a test's
    toy) and validate it; raises ISADataError naming file:line."""
    root = Path(folder) if folder is not None else ISA_ROOT / name
    fmt_path = root / "formats.toml"
    fdata = tomllib.loads(fmt_path.read_text())
    kinds = _load_kinds(fdata, fmt_path)
    word_bits = fdata["word_bits"]
    op_lsb, op_width = fdata["opcode"]["lsb"], fdata["opcode"]["width"]
    formats = {fname: _load_format(fname, f, fmt_path, word_bits, op_lsb, op_width)
               for fname, f in fdata["formats"].items()}

    hw_path = root / "hardware.toml"
    hw = tomllib.loads(hw_path.read_text())
    params = {p: Param(p, v["default"], v.get("doc", ""), v.get("power_of_two", False))
              for p, v in hw["params"].items()}
    timing = dict(hw["timing"])

    instructions: dict[str, InstrDef] = {}
    opcodes: dict[int, str] = {}
    pseudos: dict[str, list[PseudoDef]] = {}
    pending = []
    classes = dict(fdata.get("classes", {}))
    for group in fdata["instruction_files"]:
        path = root / f"{group}.toml"
        text = path.read_text()
        data = tomllib.loads(text)
        lines = _record_lines(text)
        for i, rec in enumerate(data.get("instruction", [])):
            where = f"{path.relative_to(root.parent.parent)}:{lines[i] if i < len(lines) else '?'}"
            instructions_add(rec, where, group, kinds, formats, timing, instructions, opcodes,
                             op_width, op_lsb, classes)
        plines = _record_lines(text, "pseudo")
        for i, rec in enumerate(data.get("pseudo", [])):
            where = f"{path.relative_to(root.parent.parent)}:{plines[i] if i < len(plines) else '?'}"
            pending.append((rec, where, group))
    for rec, where, group in pending:      # pseudos may expand to instructions of any file
        p = _pseudo(rec, where, group, kinds, instructions, pseudos)
        pseudos.setdefault(p.mnemonic, []).append(p)
    _check_overlaps(instructions)
    return ISA(name=name, word_bits=word_bits, opcode_lsb=op_lsb, opcode_width=op_width,
               kinds=kinds, formats=formats, instructions=instructions, params=params,
               timing=timing, hardware=hw, root=root, pseudos=pseudos, classes=classes)


def _check_overlaps(instructions: dict[str, InstrDef]) -> None:
    """No word may match two instructions: (match, mask) pairs must differ on a bit both
    masks fix. Instructions are bucketed by their opcode, which every mask includes."""
    by_opcode: dict[int, list[InstrDef]] = {}
    for d in instructions.values():
        by_opcode.setdefault(d.opcode, []).append(d)
    for group in by_opcode.values():
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if not (a.match ^ b.match) & a.mask & b.mask:
                    raise ISADataError(f"{b.source}: {b.mnemonic}: encoding overlaps {a.mnemonic} "
                                       f"({a.source}): some words would match both")


def _operands(specs, ctx: str, kinds: dict[str, Kind]) -> list[Operand]:
    operands = []
    seen_optional = False
    for spec in specs:
        fname, _, kname = spec.partition(":")
        optional = kname.endswith("?")
        kname = kname.rstrip("?")
        if kname not in kinds:
            raise ISADataError(f"{ctx}: operand {spec!r}: unknown kind {kname!r}")
        if seen_optional and not optional:
            raise ISADataError(f"{ctx}: operand {fname} follows an optional operand")
        seen_optional |= optional
        operands.append(Operand(fname, kinds[kname], optional))
    return operands


def _check_template(template: str, operands, ctx: str) -> None:
    used = TEMPLATE_NAME.findall(template)
    names = [op.name for op in operands]
    if sorted(used) != sorted(names):
        raise ISADataError(f"{ctx}: syntax {template!r} names {used}, operands are {names}")
    if template.count("[") != template.count("]"):
        raise ISADataError(f"{ctx}: syntax {template!r}: unbalanced [ ]")


def instructions_add(rec, where, group, kinds, formats, timing, instructions, opcodes, op_width,
                     op_lsb=0, classes: dict | None = None):
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
    if rec["format"] not in formats:
        raise ISADataError(f"{ctx}: unknown format {rec['format']!r}")
    fmt = formats[rec["format"]]
    if opc in opcodes and not fmt.fixed:
        raise ISADataError(f"{ctx}: opcode {opc:#x} already used by {opcodes[opc]}")
    if rec["timing"] not in timing:
        raise ISADataError(f"{ctx}: timing class {rec['timing']!r} not in hardware.toml")
    fixed = dict(rec.get("fixed", {}))
    if set(fixed) != set(fmt.fixed):
        raise ISADataError(f"{ctx}: format {fmt.name} fixes {sorted(fmt.fixed) or 'nothing'}, "
                           f"the record gives {sorted(fixed) or 'nothing'}")
    match, mask = opc << op_lsb, _bits_mask(op_lsb, op_width)
    for fname, value in fixed.items():
        lsb, width = fmt.fixed[fname]
        if not 0 <= value < (1 << width):
            raise ISADataError(f"{ctx}: fixed field {fname} = {value} does not fit {width} bits")
        match |= value << lsb
        mask |= _bits_mask(lsb, width)
    operands = _operands(rec["operands"], ctx, kinds)
    for op in operands:
        kind = op.kind
        if kind.reserved:
            continue
        if op.name not in fmt.pieces:
            raise ISADataError(f"{ctx}: operand {op.name} has no field in format {fmt.name}")
        width = fmt.value_bits(op.name)
        top = kind.count - 1 if kind.is_register else kind.max
        lo = 0 if kind.is_register else kind.min
        span = top - lo + 1 if kind.signed else top + 1
        if span > (1 << width):
            raise ISADataError(f"{ctx}: operand {op.name} ({kind.name}) does not fit {width} bits")
        low = min(at for _, _, at in fmt.pieces[op.name])
        if low and kind.align != 1 << low:
            raise ISADataError(f"{ctx}: operand {op.name}: field {op.name} drops {low} low bit(s), "
                               f"so kind {kind.name} must have align = {1 << low}")
    named = {op.name for op in operands}
    for f in fmt.pieces:
        if f not in named:
            raise ISADataError(f"{ctx}: field {f} of format {fmt.name} has no operand")
    template = rec.get("syntax", "")
    if template:
        _check_template(template, operands, ctx)
    member = tuple(rec.get("classes", ()))
    for c in member:
        if c not in (classes or {}):
            raise ISADataError(f"{ctx}: unknown instruction class {c!r}; formats.toml [classes] "
                               f"declares: {', '.join(classes or {}) or 'none'}")
    opcodes.setdefault(opc, mn)
    instructions[mn] = InstrDef(
        mnemonic=mn, opcode=opc, format=fmt, operands=tuple(operands), unit=rec["unit"],
        timing=rec["timing"], summary=rec["summary"], semantics=rec.get("semantics", ""),
        constraints=tuple(rec.get("constraints", ())), example=rec.get("example", ""),
        group=group, source=where, fixed=fixed, match=match, mask=mask, template=template,
        extension=rec.get("extension", ""), family=rec.get("family", ""), classes=member)


def _pseudo(rec, where, group, kinds, instructions, pseudos) -> PseudoDef:
    mn = rec.get("mnemonic", "?")
    ctx = f"{where}: pseudo {mn}"
    for key in ("mnemonic", "operands", "cases", "summary"):
        if key not in rec:
            raise ISADataError(f"{ctx}: missing '{key}'")
    operands = _operands(rec["operands"], ctx, kinds)
    template = rec.get("syntax", ", ".join(f"{{{op.name}}}" for op in operands))
    _check_template(template, operands, ctx)
    names = {op.name for op in operands}
    cases = []
    for c in rec["cases"]:
        lines = tuple(c["expansion"])
        if not lines:
            raise ISADataError(f"{ctx}: a case with an empty expansion")
        for line in lines:
            head = line.split()[0]
            if head not in instructions:
                raise ISADataError(f"{ctx}: expansion {line!r} uses {head!r}, which is not an "
                                   f"instruction")
            for used in TEMPLATE_NAME.findall(line):
                if used not in names:
                    raise ISADataError(f"{ctx}: expansion {line!r} uses {{{used}}}, not an operand")
        cases.append(PseudoCase(c.get("when", ""), lines))
    if cases[-1].when:
        raise ISADataError(f"{ctx}: the last case must have no condition (it is the fallback)")
    for other in pseudos.get(mn, []):
        if len(other.operands) == len(operands) and other.template == template:
            raise ISADataError(f"{ctx}: same syntax as the pseudo at {other.source}")
    return PseudoDef(mn, tuple(operands), template, tuple(cases), rec["summary"], group, where)


@lru_cache(maxsize=None)
def get_isa(name: str, folder: Path | None = None) -> ISA:
    return load_isa(name, folder)
