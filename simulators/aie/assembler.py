"""aie assembler, driven by isa/aie/.

Syntax (the manual's "Assembler syntax"): one bundle per line, its operations joined
by `||`; a line that starts with `||` adds operations to the bundle above. `ENDLOOP`
closes the innermost `LOOP`. Memory operands are `[pN]`, followed by an optional
post-modify (a byte step, `mN` or `gN`). Directives: `.equ NAME, expr` / `.set`, and
`.bd NAME, field=value, ...` (a DMA descriptor). Comments `;` `#` `//`; labels `name:`.
Expressions may use constants, labels (bundle numbers), descriptor names, hardware
parameters, shuffle-mode and rounding-mode names. Every error of a file is collected
with its line, column and a hint, and raised together as one AssemblyError; a bundle
that breaks a slot or register-port rule is reported with the rule's name.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from kernelcraft.isa.aie import default_config
from kernelcraft.isa.aie.model import MEMORY_KINDS, AieSpec, OpInfo, get_spec
from kernelcraft.isa.loader import HardwareConfig, Kind, get_isa
from kernelcraft.simulators.core import asmtext
from kernelcraft.simulators.core.asmnames import DIRECTIVE_RE, NameScope
from kernelcraft.simulators.core.asmtext import ExprError, Line, Piece, clip, suggest
from kernelcraft.simulators.core.program import Instr

from . import rules
from .program import ACCEL, AieProgram, Bundle, PostMod, encode_program, op_text

DIRECTIVES = (".equ", ".set", ".bd")
ENDLOOP = "ENDLOOP"
LOOP_OPS = get_isa("aie").having("loop_start")
MAX_DIAGNOSTICS = 50
_MNEMONIC_RE = re.compile(r"\s*([A-Za-z_][\w.]*)")
_REG_RE = re.compile(r"([A-Za-z]+)(\d+)")
_ASSIGN_RE = re.compile(r"\s*([A-Za-z_.$][\w.$]*)\s*=\s*(.*)")


class _Tables:
    def __init__(self, spec: AieSpec):
        self.spec = spec
        self.ops = {mn.upper(): info for mn, info in spec.ops.items()}
        self.prefixes = {k.prefix.lower(): k for k in spec.isa.register_kinds()
                         if k.name not in MEMORY_KINDS}
        self.postmod = PostMod(spec)
        self.capacity = spec.slot_classes()
        self.slot_names = {cls: [s.name for s in spec.slots if s.cls == cls] for cls in self.capacity}
        self.order = {s.cls: i for i, s in reversed(list(enumerate(spec.slots)))}
        self.dma_fields = {f.name: f for f in spec.dma_fields}
        self.lock_kind = spec.isa.kinds["lock"]

    def register(self, text: str) -> tuple[Kind, int] | None:
        """(kind, number) of a register name of any file, or None."""
        m = _REG_RE.fullmatch(text)
        if not m:
            return None
        kind = self.prefixes.get(m.group(1).lower())
        if kind is None or m.group(2).startswith("0") and m.group(2) != "0":
            return None
        n = int(m.group(2))
        return (kind, n) if n < kind.count else None

    def register_like(self, text: str) -> Kind | None:
        m = _REG_RE.fullmatch(text)
        return self.prefixes.get(m.group(1).lower()) if m else None


@lru_cache(maxsize=None)
def _tables() -> _Tables:
    return _Tables(get_spec())


@lru_cache(maxsize=None)
def _default_config() -> HardwareConfig:
    return default_config()


# --- messages -------------------------------------------------------------------------

def kind_range(kind: Kind) -> str:
    if kind.is_register:
        return f"{kind.prefix}0..{kind.prefix}{kind.count - 1}"
    return f"{kind.min}..{kind.max}"


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aefhilmnorsx" else "a ") + word


def _kind_word(kind: Kind) -> str:
    if kind.name in MEMORY_KINDS:
        return f"memory operand [p0]..[p{kind.count - 1}]"
    if kind.name == "postmod":
        return "post-modify: a byte step, mN or gN (optional)"
    if kind.is_register:
        return f"{kind.prefix} register ({kind_range(kind)})"
    return f"{kind.name} {kind_range(kind)}"


def syntax_hint(info: OpInfo) -> str:
    ops = ", ".join(f"{op.name}: {_kind_word(op.kind)}" for op in info.defn.operands)
    out = f"syntax: {info.written_syntax()}" + (f"  ({ops})" if ops else "")
    example = next((ln.split(";")[0].strip() for ln in info.defn.example.splitlines()
                    if ln.strip().upper().startswith(info.mnemonic.upper() + " ")
                    or ln.strip().upper() == info.mnemonic.upper()), "")
    return out + (f"; e.g. {example}" if example else "")


# --- statements -------------------------------------------------------------------------

@dataclass
class _Op:
    info: OpInfo
    ops: dict
    line: Line
    column: int
    text: str


@dataclass
class _Bundle:
    line: Line
    column: int
    ops: list[_Op] = field(default_factory=list)
    broken: bool = False          # an operation of it had an error (skip the rule checks)
    index: int = 0


@dataclass
class _Stmt:
    line: Line
    pos: int
    kind: str            # "bundle" | "cont" | "directive" | "endloop"
    directive: str = ""


class _Assembler(NameScope):
    directives = DIRECTIVES
    label_rule = ("labels start with a letter, '_' or '.', and must not be a register, "
                  "operation, parameter or predefined name")
    names_hint = ("names are constants (.equ), labels, descriptors (.bd), hardware parameters and "
                  "shuffle/rounding mode names")
    directives_hint = f"directives: {', '.join(DIRECTIVES)}"

    def __init__(self, source_name: str, config: HardwareConfig):
        super().__init__(source_name, MAX_DIAGNOSTICS)
        self.t = _tables()
        self.spec = self.t.spec
        self.config = config
        self.params = dict(config.values)
        self.fixed_names = self.spec.constants()
        self.bd_index: dict[str, int] = {}          # .bd names, numbered in pass 1
        self.descriptors: list[dict | None] = []
        self.bundles: list[_Bundle] = []
        self.ends: list[int] = []
        self.loops: list[tuple[int, Line, int]] = []   # (bundle index of the LOOP, line, column)

    # pass 1: labels, bundle numbers, names defined by directives
    def scan(self, lines: list[Line]) -> list[_Stmt]:
        stmts, count = [], 0
        for line in lines:
            code = line.code
            if not code.strip():
                continue
            labels, pos = asmtext.take_labels(code)
            rest = code[pos:]
            if rest.lstrip().startswith("||"):
                labels, pos, rest = [], 0, code
            for name, col in labels:
                self.define_label(line, name, col, count)
            if not rest.strip():
                continue
            stripped = rest.strip()
            if stripped.startswith("||"):
                stmts.append(_Stmt(line, pos, "cont"))
            elif stripped.upper() == ENDLOOP or stripped.upper().startswith(ENDLOOP + " "):
                stmts.append(_Stmt(line, pos, "endloop"))
            elif DIRECTIVE_RE.match(rest):
                d = DIRECTIVE_RE.match(rest).group(1).lower()
                stmts.append(_Stmt(line, pos, "directive", d))
                # Split as pass 2 does, so `.bd A B, ...` (a missing comma) names A here too.
                pieces = asmtext.split_operands(rest[DIRECTIVE_RE.match(rest).end():], 1)[0]
                name = pieces[0].text if pieces else ""
                if d == ".bd":
                    if name and name not in self.bd_index:
                        self.bd_index[name] = len(self.bd_index)
                else:
                    self.later_constants.setdefault(name, line.number)
            else:
                stmts.append(_Stmt(line, pos, "bundle"))
                count += 1
        self.count = count
        return stmts

    def name_problem(self, name: str) -> str:
        bad = super().name_problem(name)
        if bad:
            return bad
        if self.t.register_like(name) or name.upper() in self.t.ops:
            return f"'{name}' is a register or operation name"
        if name in self.params:
            return f"'{name}' is a hardware parameter"
        if name in self.fixed_names:
            return f"'{name}' is a predefined name (shuffle or rounding mode)"
        return ""

    def is_register_name(self, name: str) -> bool:
        return bool(self.t.register_like(name))

    def name_tables(self) -> tuple[dict[str, int], ...]:
        return (self.constants, self.labels, self.bd_index, self.params, self.fixed_names)

    def redefinition(self, name: str) -> str:
        if name not in self.constants and name not in self.labels and name not in self.bd_index:
            return ""
        first = self.constant_lines.get(name) or self.label_lines.get(name)
        return f"'{name}' is already defined" + (f" at line {first}" if first else " (as a descriptor)")

    # pass 2
    def run(self, stmts: list[_Stmt]) -> None:
        prev = None
        for st in stmts:
            if st.kind == "cont":
                self.continuation(st, prev)
            elif st.kind == "bundle":
                self.bundle_line(st)
            elif st.kind == "endloop":
                self.endloop(st)
            else:
                self.directive(st)
            prev = st.kind
        for b in self.bundles:
            self.check_bundle(b)
            for op in b.ops:
                if op.info.mnemonic in ("DMAIN", "DMAOUT") and op.ops["bd"] >= len(self.bd_index):
                    self.diags.error(op.line, op.column, f"{op.info.mnemonic} uses descriptor "
                                     f"{op.ops['bd']}, but the program defines {len(self.bd_index)}",
                                     "define it with `.bd NAME, ext=..., loc=..., n0=...` and use NAME")
        for idx, line, col in self.loops:
            self.diags.error(line, col, "LOOP has no matching ENDLOOP",
                             "close the loop with a line `ENDLOOP` after its last bundle")
        self.check_size()

    # --- bundles ---------------------------------------------------------------------

    def split_ops(self, line: Line, start: int) -> list[tuple[str, int]]:
        """The operation texts of a line from index `start`, split on `||`, with the
        1-based column of each."""
        code, out, pos = line.code, [], start
        while True:
            k = code.find("||", pos)
            seg = code[pos:] if k < 0 else code[pos:k]
            col = asmtext.first_column(code, pos)
            if not seg.strip():
                where = col if k >= 0 else len(code) + 1
                self.diags.error(line, min(where, len(code) + 1),
                                 "empty operation between '||' separators" if k >= 0 else
                                 "'||' at the end of the line with no operation after it",
                                 "write one operation between separators: `VLD x0, [p0], 64 || VMAC.BF16 acc0, x1, x2`")
            else:
                out.append((seg, col))
            if k < 0:
                return out
            pos = k + 2

    def bundle_line(self, st: _Stmt) -> None:
        line = st.line
        b = _Bundle(line, asmtext.first_column(line.code, st.pos), index=len(self.bundles))
        self.bundles.append(b)
        self.ends.append(0)
        for text, col in self.split_ops(line, st.pos):
            self.operation(b, line, text, col)

    def continuation(self, st: _Stmt, prev: str | None) -> None:
        line = st.line
        k = line.code.index("||", st.pos)
        if prev not in ("bundle", "cont") or not self.bundles:
            self.diags.error(line, k + 1, "a line starting with '||' continues the bundle above it, "
                                          "but the line above is not a bundle",
                             "put the operation on the bundle's line, or start a new bundle without '||'")
            return
        b = self.bundles[-1]
        for text, col in self.split_ops(line, k + 2):
            self.operation(b, line, text, col)

    def endloop(self, st: _Stmt) -> None:
        line = st.line
        col = asmtext.first_column(line.code, st.pos)
        extra = line.code[st.pos:].strip()[len(ENDLOOP):].strip()
        if extra:
            self.diags.error(line, col + len(ENDLOOP) + 1, f"unexpected '{clip(extra)}' after ENDLOOP",
                             "ENDLOOP stands alone on its line")
        if not self.loops:
            self.diags.error(line, col, "ENDLOOP without a matching LOOP",
                             "open the loop with `LOOP count` (or `LOOPR rN`) in the bundle before its body")
            return
        idx, loop_line, _ = self.loops.pop()
        last = len(self.bundles) - 1
        if last <= idx:
            self.diags.error(line, col, f"the loop opened at line {loop_line.number} has no bundle in "
                                        "its body", "a loop body holds at least one bundle between LOOP and ENDLOOP")
            return
        self.ends[last] += 1

    def operation(self, b: _Bundle, line: Line, text: str, col: int) -> None:
        m = _MNEMONIC_RE.match(text)
        if not m:
            word = text.strip().split()[0]
            self.diags.error(line, col, f"expected an operation, label or directive, got '{clip(word)}'",
                             "a line holds `label:`, operations joined by `||`, `ENDLOOP`, or a directive")
            b.broken = True
            return
        word = m.group(1)
        info = self.t.ops.get(word.upper())
        wcol = col
        if info is None:
            self.diags.error(line, wcol, f"unknown operation '{clip(word)}'",
                             lambda: self.mnemonic_hint(word, text[m.end():]))
            b.broken = True
            return
        rest_at = m.end()
        if rest_at < len(text) and not text[rest_at].isspace():
            self.diags.error(line, col + rest_at, f"expected a blank after {info.mnemonic}, got "
                                                  f"'{text[rest_at]}'", syntax_hint(info))
            b.broken = True
            return
        pieces, problems = asmtext.split_operands(text[rest_at:], col + rest_at)
        for pc, msg in problems:
            self.diags.error(line, pc, msg, lambda: syntax_hint(info))
        errors = len(self.diags)
        ops = None if problems else self.operands(line, info, pieces, col + len(text.rstrip()))
        if ops is None or len(self.diags) != errors:
            b.broken = True
            if info.mnemonic in LOOP_OPS:
                self.loops.append((len(self.bundles) - 1, line, wcol))   # keep loops in step
            return
        b.ops.append(_Op(info, ops, line, wcol, text.strip()))
        if info.mnemonic in LOOP_OPS:
            if len(self.loops) >= self.config.LOOP_DEPTH:
                self.diags.error(line, wcol, f"loop nesting depth {len(self.loops) + 1} exceeds "
                                             f"LOOP_DEPTH = {self.config.LOOP_DEPTH}",
                                 "flatten the innermost loops or merge them")
            self.loops.append((len(self.bundles) - 1, line, wcol))

    def mnemonic_hint(self, word: str, rest: str) -> str:
        head = word.upper().split(".")[0]
        family = [mn for mn in self.t.ops if mn.split(".")[0] == head]
        near = suggest(word, self.t.ops)
        if family:
            hint = f"{head} takes a type suffix: " + ", ".join(self.t.ops[f].mnemonic for f in family)
        elif near:
            hint = "did you mean " + " or ".join(f"`{self.t.ops[n].written_syntax()}`" for n in near) + "?"
        else:
            hint = "see the manual's Operation index for every aie operation"
        a = _ASSIGN_RE.match(word + rest)
        if a:
            hint = f"to define a constant write `.equ {a.group(1)}, {clip(a.group(2).strip())}`"
        elif not rest.strip():
            hint += f". If '{clip(word)}' is meant as a label, end it with a colon: {clip(word)}:"
        return hint

    # --- operands --------------------------------------------------------------------

    def operands(self, line: Line, info: OpInfo, pieces: list[Piece], eol: int) -> dict | None:
        written = list(info.defn.operands)
        n, hi = len(pieces), len(written)
        lo = sum(1 for op in written if not op.optional)
        if n > hi and all(p.inferred for p in pieces[hi:]):
            self.diags.error(line, pieces[hi].column,
                             f"unexpected '{clip(pieces[hi].text)}' after the last operand of {info.mnemonic}",
                             lambda: "remove it or start a comment with ';'. " + syntax_hint(info))
            pieces, n = pieces[:hi], hi
        if not lo <= n <= hi:
            counts = f"{lo}" if lo == hi else f"{lo} or {hi}"
            self.diags.error(line, pieces[hi].column if n > hi else eol,
                             f"{info.mnemonic} takes {counts} operand{'s' if hi != 1 else ''}, got {n}",
                             lambda: syntax_hint(info))
            return None
        ops, ok = {}, True
        for i, op in enumerate(written):
            if i >= n:
                ops[op.name] = 0
                continue
            p = pieces[i]
            if p.inferred:
                self.diags.error(line, p.column, f"missing comma before '{clip(p.text)}'",
                                 lambda: syntax_hint(info))
            value = self.operand(line, info, op.name, op.kind, p)
            if value is None:
                ok = False
            else:
                ops[op.name] = value
        return ops if ok else None

    def operand(self, line: Line, info: OpInfo, name: str, kind: Kind, p: Piece) -> int | None:
        text = p.text
        where = f"{name} of {info.mnemonic}"
        if kind.name in MEMORY_KINDS:
            return self.memory_operand(line, info, where, kind, p)
        if kind.name == "postmod":
            return self.postmod_operand(line, info, where, p)
        reg = self.t.register(text)
        if kind.is_register:
            if reg is not None and reg[0] is kind:
                return reg[1]
            if reg is not None:
                self.diags.error(line, p.column, f"{text} where {_a(kind.prefix)} register "
                                 f"({kind_range(kind)}) is expected ({where})",
                                 lambda: f"{name}: {kind.doc}. " + syntax_hint(info))
                return None
            like = self.t.register_like(text)
            if like is not None:
                self.diags.error(line, p.column, f"{text} does not exist: registers are {kind_range(like)}",
                                 lambda: f"{name}: {kind.doc}. " + syntax_hint(info))
            elif text.startswith("["):
                self.diags.error(line, p.column, f"a memory operand where {_a(kind.prefix)} register "
                                 f"is expected ({where})", lambda: syntax_hint(info))
            else:
                self.diags.error(line, p.column, f"expected {_a(kind.prefix)} register ({kind_range(kind)}) "
                                 f"for {where}, got '{clip(text)}'",
                                 lambda: "constants go into a register first (MOVI rN, value). "
                                 + syntax_hint(info))
            return None
        if reg is not None or self.t.register_like(text):
            self.diags.error(line, p.column, f"register {text} where an immediate is expected ({where}: "
                             f"{kind.name} {kind_range(kind)})", lambda: syntax_hint(info))
            return None
        value = self.expression(line, p)
        if value is None:
            return None
        if not kind.min <= value <= kind.max:
            self.diags.error(line, p.column, f"{where} out of range: {value} is not in "
                             f"{kind_range(kind)} ({kind.name})",
                             lambda: f"{name}: {kind.doc}. " + self.range_hint(info, kind, value))
            return None
        return value

    def range_hint(self, info: OpInfo, kind: Kind, value: int) -> str:
        if info.mnemonic in ("MOVI", "ADDI") and -(1 << 31) <= value < (1 << 32):
            v = value & 0xFFFFFFFF
            lo, hi = v & 0xFFFF, v >> 16
            return (f"build {value} in two steps: MOVI rN, {lo if lo < 0x8000 else lo - 0x10000}; "
                    f"MOVHI rN, {hi if lo < 0x8000 else (hi + 1) & 0xFFFF}")
        return syntax_hint(info)

    def memory_operand(self, line, info, where, kind, p) -> int | None:
        text = p.text
        m = re.fullmatch(r"\[\s*([^\]]*?)\s*\]", text)
        if m is None:
            reg = self.t.register(text)
            if reg is not None and reg[0].prefix == kind.prefix:
                self.diags.error(line, p.column, f"write the memory operand as [{text}] ({where})",
                                 lambda: syntax_hint(info))
            else:
                self.diags.error(line, p.column, f"expected a memory operand [pN] for {where}, got "
                                 f"'{clip(text)}'", lambda: syntax_hint(info))
            return None
        inner = m.group(1)
        reg = self.t.register(inner)
        if reg is not None and reg[0].prefix == kind.prefix:
            return reg[1]
        if re.match(r"p\d+\s*[-+]", inner, re.IGNORECASE):
            self.diags.error(line, p.column, f"no offset addressing: {text} ({where})",
                             "an access is at the pointer's address; step the pointer with a post-modify "
                             "(VLD x0, [p0], 64) or PADDI")
        else:
            self.diags.error(line, p.column, f"expected a pointer p0..p{kind.count - 1} inside the brackets "
                             f"of {where}, got '{clip(inner)}'", lambda: syntax_hint(info))
        return None

    def postmod_operand(self, line, info, where, p) -> int | None:
        pm = self.t.postmod
        reg = self.t.register(p.text)
        if reg is not None:
            mode = reg[0].name
            if mode in pm.modes and mode != "imm":
                return pm.encode(mode, reg[1])
            self.diags.error(line, p.column, f"{p.text} cannot post-modify a pointer ({where})",
                             "a post-modify is a byte step (64), a modifier register (m1) or an "
                             "address generator (g0)")
            return None
        if self.t.register_like(p.text):
            self.diags.error(line, p.column, f"{p.text} does not exist ({where})",
                             "modifier registers are m0..m7, address generators g0..g3")
            return None
        value = self.expression(line, p)
        if value is None:
            return None
        if not pm.lo <= value <= pm.hi:
            self.diags.error(line, p.column, f"post-modify step {value} is outside {pm.lo}..{pm.hi} ({where})",
                             "put a larger step in a modifier register (MOVI r1, step; MOVM m0, r1) and "
                             "post-modify by m0")
            return None
        return pm.encode("imm", value)

    # --- expressions and directives ----------------------------------------------------

    def directive(self, st: _Stmt) -> None:
        m = self.directive_head(st.line, st.pos, st.directive)
        if m is None:
            return
        pieces, problems = asmtext.split_operands(st.line.code[m.end():], m.end() + 1)
        if st.directive == ".bd":
            self.descriptor(st.line, m.start(1) + 1, pieces, problems)
            return
        usage = f"write `{st.directive} NAME, expression`, e.g. `{st.directive} ROWS, 4 * 64`"
        self.define_constant(st.line, st.directive, pieces, problems, usage)

    def descriptor(self, line: Line, col: int, pieces: list[Piece], problems) -> None:
        fields = self.t.dma_fields
        usage = ("write `.bd NAME, ext=ADDR, loc=ADDR, n0=WORDS[, n1=.., s1=.., n2=.., s2=.., "
                 "ls1=.., ls2=.., acq=lN, acq_n=.., rel=lN, rel_n=..]`")
        for pc, msg in problems:
            self.diags.error(line, pc, msg, usage)
        if problems:
            return
        if not pieces:
            self.diags.error(line, col, ".bd needs a name and fields", usage)
            return
        name = pieces[0].text
        bad = self.name_problem(name)
        if bad:
            self.diags.error(line, pieces[0].column, f"bad descriptor name: {bad}", usage)
            return
        index = self.bd_index[name]
        while len(self.descriptors) <= index:
            self.descriptors.append(None)
        if self.descriptors[index] is not None or name in self.constants:
            self.diags.error(line, pieces[0].column, f"descriptor '{name}' is already defined",
                             "each descriptor name may be defined once")
            return
        if index >= self.spec.descriptors:
            self.diags.error(line, col, f"more than {self.spec.descriptors} descriptors: the DMA holds "
                             f"{self.spec.descriptors} (numbers 0..{self.spec.descriptors - 1})",
                             "reuse a descriptor with different run-time offsets (the ra and rb of DMAIN/DMAOUT)")
            return
        given: dict[str, tuple[str, Piece]] = {}
        ok = True
        for p in pieces[1:]:
            m = re.fullmatch(r"([A-Za-z_]\w*)\s*=\s*(.+)", p.text)
            if p.inferred:
                self.diags.error(line, p.column, f"missing comma before '{clip(p.text)}'", usage)
                ok = False
                if m is None:
                    continue
            if m is None:
                self.diags.error(line, p.column, f"expected field=value in .bd, got '{clip(p.text)}'", usage)
                ok = False
                continue
            key = m.group(1).lower()
            if key not in fields:
                near = suggest(key, fields)
                self.diags.error(line, p.column, f"unknown descriptor field '{clip(m.group(1))}'",
                                 (f"did you mean {near[0]}? " if near else "") + "fields: " + ", ".join(fields))
                ok = False
                continue
            if key in given:
                self.diags.error(line, p.column, f"field {key} given twice", usage)
                ok = False
                continue
            vcol = p.column + m.start(2)
            given[key] = (m.group(2), Piece(m.group(2), vcol))
        values: dict = {}
        for f in self.spec.dma_fields:
            if f.name in given:
                text, piece = given[f.name]
                if f.kind == "lock":
                    values[f.name] = self.lock_value(line, piece, f.name)
                else:
                    values[f.name] = self.expression(line, piece)
                    if values[f.name] is not None:
                        self.field_range(line, piece.column, f, values[f.name])
            elif f.default is None:
                self.diags.error(line, col, f"descriptor {name} needs field {f.name} ({f.doc})", usage)
                ok = False
                values[f.name] = None
            elif f.kind == "lock":
                values[f.name] = None
            else:
                env = {k: v for k, v in values.items() if v is not None}
                try:
                    values[f.name] = asmtext.evaluate(f.default, env.get)
                except ExprError:
                    values[f.name] = None           # an earlier field is already in error
        if not ok or any(values[f.name] is None for f in self.spec.dma_fields if f.kind == "int"):
            self.descriptors[index] = {}
            return
        self.check_extent(line, col, name, values)
        self.descriptors[index] = values

    def lock_value(self, line: Line, piece: Piece, key: str) -> int | None:
        if piece.text.lower() == "none":
            return None
        reg = self.t.register(piece.text)
        if reg is not None and reg[0] is self.t.lock_kind:
            return reg[1]
        self.diags.error(line, piece.column, f"{key} takes a lock l0..l{self.t.lock_kind.count - 1} or "
                         f"none, got '{clip(piece.text)}'", "e.g. rel=l0")
        return None

    def field_range(self, line: Line, column: int, f, v: int) -> None:
        if (f.min is not None and v < f.min) or (f.max is not None and v > f.max):
            lo = "" if f.min is None else f.min
            hi = "" if f.max is None else f.max
            self.diags.error(line, column, f"descriptor field {f.name} = {v} is outside {lo}..{hi}", f.doc)
        elif f.even and v % 2:
            self.diags.error(line, column, f"descriptor field {f.name} = {v} must be even", f.doc)

    def check_extent(self, line: Line, col: int, name: str, v: dict) -> None:
        from .dma import extent
        (elo, ehi), (llo, lhi) = extent(v, 0, 0)
        if elo < 0 or ehi >= self.config.EXT_SIZE:
            self.diags.error(line, col, f"descriptor {name} spans external words {elo}..{ehi} (with zero "
                             f"offsets); external memory is 0..{self.config.EXT_SIZE - 1}",
                             "check ext, n0, n1, s1, n2, s2")
        if llo < 0 or lhi >= self.config.DM_SIZE:
            self.diags.error(line, col, f"descriptor {name} spans data-memory bytes {llo}..{lhi} (with zero "
                             f"offsets); data memory is 0..{self.config.DM_SIZE - 1}",
                             "check loc, n0, n1, ls1, n2, ls2")

    # --- bundle rules ------------------------------------------------------------------

    def check_bundle(self, b: _Bundle) -> None:
        if b.broken or not b.ops:
            return
        names = [f"{o.info.mnemonic} (line {o.line.number}, column {o.column})" for o in b.ops]
        problem = rules.check(self.spec, [(o.info, o.ops) for o in b.ops], names, self.t.postmod)
        if problem is not None:
            op = b.ops[problem.culprit]
            self.diags.error(op.line, op.column, problem.message, problem.hint)

    def check_size(self) -> None:
        words, limit = 0, self.config.IMEM_WORDS
        for b in self.bundles:
            words += 1 + len(b.ops)
            if words > limit:
                total = sum(1 + len(x.ops) for x in self.bundles)
                self.diags.error(b.line, b.column, f"program has {total} words but instruction memory holds "
                                 f"IMEM_WORDS = {limit}; this is the first bundle that does not fit",
                                 f"shorten the kernel by {total - limit} words: use hardware loops "
                                 "(LOOP/ENDLOOP) instead of unrolled code")
                return

    # --- result ----------------------------------------------------------------------

    def program(self, source_name: str) -> AieProgram:
        instrs, bundles = [], []
        for b, ends in zip(self.bundles, self.ends):
            ordered = sorted(b.ops, key=lambda o: self.t.order[o.info.slot])
            start = len(instrs)
            instrs += [Instr(o.info.mnemonic, o.ops, o.line.number, o.text) for o in ordered]
            text = " || ".join(o.text for o in b.ops)
            bundles.append(Bundle(start, len(ordered), ends, b.line.number, text))
        names = sorted(self.bd_index, key=self.bd_index.get)
        words = encode_program(self.spec, instrs, bundles)
        return AieProgram(accel=ACCEL, instrs=instrs, words=words, labels=self.labels,
                          constants={**self.constants, **self.bd_index}, source_name=source_name,
                          bundles=bundles, descriptors=[d or {} for d in self.descriptors],
                          descriptor_names=names)


def assemble(source: str, source_name: str = "<kernel>", config: HardwareConfig | None = None) -> AieProgram:
    """Assemble aie source into an AieProgram; raises AssemblyError listing every error."""
    asm = _Assembler(source_name, config or _default_config())
    asm.run(asm.scan(asmtext.split_lines(source)))
    asm.diags.raise_if_any()
    return asm.program(source_name)


def canonical(mnemonic: str, ops: dict) -> str:
    """Canonical text of one operation (for programs built without source)."""
    return op_text(get_spec(), mnemonic, ops)
